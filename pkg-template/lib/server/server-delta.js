// What `artifact-bloom/server` uses of `artifact-bloom/delta`: the encoder.
// One module, so the Node build (scripts/build.mjs) replaces it with the
// delta entry's own bundle (../delta/index.cjs): one delta wasm instance in
// a process, whichever entries it imports.
export { encodeSnapshotDelta } from "../delta/delta-encode.js";
export { _SortedBuild } from "../delta/sorted-build.js";
export { _keyedBuild } from "../delta/keyed-build.js";
