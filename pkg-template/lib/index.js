// The public API, shared by the Node and browser entry points.
export { ArtifactBloomFilter, dedupePacked } from "./filter.js";
export { Sha256, sha256 } from "./sha256.js";
export { DEFAULT_WHOLE_FILE_LIMIT, hashFiles } from "./hash-files.js";
export { wasmMemoryBytes } from "./memory.js";
export {
  ABF1_HEADER_LENGTH,
  encodeSnapshot,
  fetchSnapshot,
  loadSnapshot,
  loadSnapshotStream,
  readSnapshotHeader,
} from "./snapshot.js";
export { HttpArtifactRepository } from "./http-repository.js";
export { ArtifactExistenceService, SnapshotHolder, renderPrometheus } from "./service.js";
export { TlBloom } from "./tlbf.js";
export { MergeableBloomFilter, MergeableDelta } from "./mergeable.js";
export { ScalableBloomFilter } from "./scalable.js";
export { alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "./sizing.js";
