// The public API, shared by the Node and browser entry points.
export { ArtifactBloomFilter, dedupePacked } from "./filter.js";
export { Sha256, sha256 } from "./sha256.js";
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
export { MergeableBloomFilter, MergeableDelta, ScalableBloomFilter, TlBloom, alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "./systems.js";
