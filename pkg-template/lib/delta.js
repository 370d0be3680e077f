// The public API of `artifact-bloom/delta` (../delta/index.js): ABD1 deltas,
// written and joined (servers), applied and fetched (clients).
export { composeSnapshotDeltas, encodeSnapshotDelta } from "./delta/delta-encode.js";
export { applySnapshotDelta, readSnapshotDeltaHeader } from "./delta/delta-apply.js";
export { fetchSnapshot } from "./delta/delta-fetch.js";
