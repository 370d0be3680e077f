// `artifact-bloom/delta`: the server side of ABD1 deltas (the encoder and
// the composer), in their own wasm module, so the main entry — which
// browsers download to apply deltas — does not carry them. Instantiated at
// import like the main entry (see ../web.js); Node resolves to index.mjs /
// index.cjs, built from this file by scripts/build.mjs, which share the main
// entry's node.cjs (one ArtifactBloomFilter class, one main wasm instance).
import "../artifact_bloom_delta_instance.js";

export { composeSnapshotDeltas, encodeSnapshotDelta } from "../lib/delta-encode.js";
