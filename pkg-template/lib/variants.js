// The public API of `artifact-bloom/variants` (wasm: ../artifact_bloom_variants.js).
// The variants' error sentences join lib/core/errors.js' table here, at
// import (package.json lists the module under "sideEffects").
import "./variants/variant-messages.js";

export { TlBloom } from "./variants/tlbf.js";
export { MergeableBloomFilter, MergeableDelta } from "./variants/mergeable.js";
export { ScalableBloomFilter } from "./variants/scalable.js";
export { alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "./variants/sizing.js";
export { variantsMemoryBytes } from "./wasm/variants-memory.js";
