// node.mjs, as the shipped-JS type check (tsconfig.shipped.json) sees it: the ES-module face of node.cjs.
export * from "./node-entry.js";
export { default } from "./node-entry.js";
