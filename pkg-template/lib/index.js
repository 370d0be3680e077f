// The public API of the main entry, shared by the Node and browser builds.
// The other filters and the sizing helpers are in ./variants.js
// (`artifact-bloom/variants`, their own wasm module).
export { ArtifactBloomFilter, dedupePacked } from "./filter/filter.js";
export { Sha256, sha256 } from "./hashing/sha256.js";
export { DEFAULT_WHOLE_FILE_LIMIT, hashFiles } from "./hashing/hash-files.js";
export { wasmMemoryBytes } from "./wasm/main-memory.js";
export {
  ABF1_HEADER_LENGTH,
  encodeSnapshot,
  loadSnapshot,
  loadSnapshotStream,
  readSnapshotHeader,
} from "./snapshot/snapshot.js";
// Conditional requests only: deltas (applySnapshotDelta, readSnapshotDeltaHeader
// and a delta-asking fetchSnapshot) are `artifact-bloom/delta`'s.
export { fetchSnapshot } from "./snapshot/snapshot-fetch.js";
// The format's limits (asked of the Rust format code at build time).
export { MAXIMUM_EXPECTED_ITEM_COUNT, MAXIMUM_SNAPSHOT_BYTES } from "./wasm/format-rules.js";
export { HttpArtifactRepository } from "./repositories/http-repository.js";
export { OciRegistryError, OciRegistryRepository } from "./repositories/oci-repository.js";
export { ArtifactExistenceService, SnapshotHolder, renderPrometheus } from "./service/service.js";
