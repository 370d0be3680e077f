// CommonJS view of the same types (for `require("artifact-bloom")` under
// TypeScript's Node16/NodeNext resolution). The declarations are shared.
export * from "./index.js";
export { default } from "./index.js";
