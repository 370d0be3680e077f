// The public API, shared by the Node and browser entry points.
export { ArtifactBloomFilter } from "./filter.js";
export { Sha256, sha256 } from "./sha256.js";
export { wasmMemoryBytes } from "./memory.js";
