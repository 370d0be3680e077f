// The public API of `artifact-bloom/variants` (wasm: ../artifact_bloom_variants.js).
export { TlBloom } from "./tlbf.js";
export { MergeableBloomFilter, MergeableDelta } from "./mergeable.js";
export { ScalableBloomFilter } from "./scalable.js";
export { alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "./sizing.js";
export { variantsMemoryBytes } from "./variants-memory.js";
