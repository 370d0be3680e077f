// server/index.mjs, as the shipped-JS type check (tsconfig.shipped.json) sees it: built from server/index.js.
export * from "./index.js";
