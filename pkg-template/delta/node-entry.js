// The delta entry's Node bundle (delta/index.cjs): the public entry, plus
// what artifact-bloom/server's Node bundle takes from it
// (lib/server/server-delta.js is mapped to this bundle by scripts/build.mjs,
// so a process has one delta wasm instance): the sorted-stream build.
// Internal, not in the types; the ES entries export nothing of it.
export * from "./index.js";
export { _SortedBuild } from "../lib/delta/sorted-build.js";
export { _keyedBuild } from "../lib/delta/keyed-build.js";
