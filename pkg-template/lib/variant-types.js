// The types of the other filters (tlbf.js, mergeable.js, scalable.js,
// sizing.js), as JSDoc typedefs only (no runtime code), kept apart from
// types.js so they can follow those filters to their own entry point.
// scripts/emit-types.mjs emits lib/variant-types.d.ts from this file; the
// package's index.d.ts re-exports every type. Readonly object types are type
// literals with their fields documented in the type's comment (types.js
// says why).
//
// Error policy, the same for all of them (checks.js has the details):
// builders and the sizing helpers THROW a coded TypeError / RangeError
// (`SystemsArgumentError`) for invalid arguments; loaders throw a TypeError
// only when `bytes` is not a Uint8Array and RETURN a `DecodeResult` for any
// byte content; `union` / `piece` of different shapes throw an Error with
// code "incompatibleFilters"; every method and getter except `freed` and
// `free()` throws once the object was freed.

/**
 * An item: raw bytes, or a string hashed as its UTF-8 bytes (lone
 * surrogates as U+FFFD). Anything else is a `TypeError` naming `item`.
 *
 * @typedef {Uint8Array | string} BloomItem
 */

/**
 * The `code` on a `TypeError`/`RangeError` thrown for an invalid argument.
 *
 * @typedef {"invalidExpectedItemCount"
 *   | "invalidFalsePositiveRate"
 *   | "filterTooLarge"
 *   | "invalidInitialCapacity"
 *   | "invalidGrowthFactor"
 *   | "invalidTighteningRatio"
 *   | "invalidFillRatio"
 *   | "invalidHashCount"
 *   | "invalidItemCount"
 *   | "invalidBitCount"} SystemsArgumentError
 */

/**
 * A loader's result: the value, or the first failed check's code and a message.
 *
 * @template TValue
 * @template {string} TError
 * @typedef {import("./core/results.js").DecodeResult<TValue, TError>} DecodeResult
 */

/**
 * `TlBloom.fromBytes` failures, in the order they are checked.
 *
 * @typedef {"truncated"
 *   | "badMagic"
 *   | "unsupportedVersion"
 *   | "zeroBitCount"
 *   | "zeroHashCount"
 *   | "nonZeroReserved"
 *   | "filterTooLarge"
 *   | "hashCountTooLarge"
 *   | "lengthMismatch"
 *   | "nonZeroPadding"
 *   | "outOfMemory"} TlbfDecodeError
 */

/**
 * `MergeableBloomFilter.decode` / `MergeableDelta.decode` failures (docs/mergeable-format.md).
 *
 * @typedef {"truncated"
 *   | "badMagic"
 *   | "unsupportedVersion"
 *   | "checksumMismatch"
 *   | "unknownKind"
 *   | "unexpectedKind"
 *   | "nonZeroReserved"
 *   | "invalidBitCount"
 *   | "filterTooLarge"
 *   | "zeroHashCount"
 *   | "hashCountTooLarge"
 *   | "lengthMismatch"
 *   | "entryCountMismatch"
 *   | "wordIndexOutOfRange"
 *   | "wordIndicesNotIncreasing"
 *   | "zeroWordValue"
 *   | "nonCanonicalEncoding"
 *   | "outOfMemory"} MergeableDecodeError
 */

/**
 * One changed 64-bit word: its index and its full value after the add.
 *
 * @typedef {{ readonly wordIndex: number; readonly wordValue: bigint }} MergeableDeltaEntry
 */

/**
 * Options of `new ScalableBloomFilter`.
 *
 * - `initialCapacity`: items the first stage holds, an integer ≥ 1.
 * - `targetFalsePositiveRate`: compound false-positive bound p, in (0, 1).
 * - `growthFactor`: capacity multiplier between stages, an integer from 1 to
 *   2^32 − 1. Default 2.
 * - `tighteningRatio`: rate multiplier r between stages, in (0, 1). Default 0.5.
 *
 * @typedef {{
 *   readonly initialCapacity: number;
 *   readonly targetFalsePositiveRate: number;
 *   readonly growthFactor?: number;
 *   readonly tighteningRatio?: number;
 * }} ScalableBloomFilterOptions
 */

/**
 * `ScalableBloomFilter.decode` failures (docs/scalable-format.md).
 *
 * @typedef {"truncated"
 *   | "badMagic"
 *   | "unsupportedVersion"
 *   | "checksumMismatch"
 *   | "nonZeroReserved"
 *   | "invalidInitialCapacity"
 *   | "invalidFalsePositiveRate"
 *   | "invalidGrowthFactor"
 *   | "invalidTighteningRatio"
 *   | "zeroStageCount"
 *   | "filterTooLarge"
 *   | "stageCapacityMismatch"
 *   | "itemCountExceedsCapacity"
 *   | "stageNotFull"
 *   | "emptyStage"
 *   | "invalidBitCount"
 *   | "zeroHashCount"
 *   | "hashCountTooLarge"
 *   | "lengthMismatch"
 *   | "outOfMemory"} ScalableDecodeError
 */

/**
 * The classic optimum: `m` bits and `k` probes.
 *
 * @typedef {{ m: number; k: number }} OptimalParams
 */

/**
 * A byte result: always a fresh `Uint8Array` over its own `ArrayBuffer`, so
 * it fits `BlobPart`, `BufferSource` and `fetch` bodies (TypeScript ≥ 5.7).
 *
 * @typedef {Uint8Array<ArrayBuffer>} Bytes
 */

export {};
