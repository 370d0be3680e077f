// Which raw wasm-bindgen object each WasmResource subclass owns, as JSDoc
// typedefs only (no runtime code). Kept out of types.js on purpose: this file
// names the generated "../../artifact_bloom.js" typings, which must never reach
// the public declarations (they need DOM and Disposable typings a consumer
// may not have). Only resource.js's internal members use it, and
// scripts/emit-types.mjs strips those from the emitted .d.ts.

/**
 * @import { RawFilter, RawSha256 } from "../../artifact_bloom.js"
 * @import { RawMergeableFilter, RawScalableFilter, RawTlBloom } from "../../artifact_bloom_variants.js"
 */

/**
 * The raw object owned by each class, by the class name it passes to
 * `WasmResource`. A MergeableDelta owns its words, held in JavaScript.
 *
 * @typedef {{
 *   ArtifactBloomFilter: RawFilter;
 *   Sha256: RawSha256;
 *   TlBloom: RawTlBloom;
 *   MergeableBloomFilter: RawMergeableFilter;
 *   MergeableDelta: Uint32Array | number[];
 *   ScalableBloomFilter: RawScalableFilter;
 * }} RawByClassName
 */

/**
 * The raw object type of the class named `TName` (never for an unknown name).
 *
 * @template {string} TName
 * @typedef {TName extends keyof RawByClassName ? RawByClassName[TName] : never} RawOf
 */

export {};
