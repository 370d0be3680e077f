// node.cjs, as the shipped-JS type check (tsconfig.shipped.json) sees it: scripts/build.mjs bundles it from node-entry.js.
export * from "./node-entry.js";
export { default } from "./node-entry.js";
