// The sentences of the other filters' failures (TLBF, mergeable, scalable,
// sizing), by filter and code: the wasm sends `{ domain: "variants", code,
// filter }` (src/error.rs `coded_errors!`), and lib/core/errors.js makes the
// message from this table, as it does for snapshots and deltas (an
// `outOfMemory` entry names what the memory was for). The table is added at
// import of artifact-bloom/variants, so the main entry does not carry it.
// This table is each sentence's one home: the Rust enums declare only the
// codes, and js-tests/error-messages.test.mjs fails if a code declared in
// src/variants/ has no sentence here (or one here has no code).

import { defineMessages, memoryMessage } from "../core/errors.js";

/** @type {Record<string, Record<string, string>>} */
export const VARIANT_MESSAGES = {
  tlbf: {
    invalidExpectedItemCount: "n must be at least 1",
    invalidFalsePositiveRate: "p must be a finite number strictly between 0 and 1",
    incompatibleFilters: "union needs two filters with the same m and k",
    truncated: "a TLBF needs at least its 32-byte header",
    badMagic: 'a TLBF starts with the bytes "TLBF"',
    unsupportedVersion: "only TLBF version 1 is supported",
    zeroBitCount: "m must not be 0",
    zeroHashCount: "k must not be 0",
    nonZeroReserved: "the reserved field must be 0",
    filterTooLarge: "m must be at most 2^30 bits",
    hashCountTooLarge: "k must be at most 4096",
    lengthMismatch: "the length must be 32 + ceil(m / 8) bytes",
    nonZeroPadding: "the unused high bits of the last byte must be 0",
    outOfMemory: "for the filter's bits",
  },
  mergeable: {
    invalidExpectedItemCount: "expectedElements must be at least 1",
    invalidFalsePositiveRate: "falsePositiveRate must be a finite number strictly between 0 and 1",
    filterTooLarge: "bitCount must be at most 2^30",
    incompatibleFilters: "only filters with the same bitCount and hashCount can be pieced",
    truncated: "the input is shorter than a header and checksum",
    badMagic: 'an encoded mergeable filter starts with "MBLF"',
    unsupportedVersion: "only version 1 is supported",
    checksumMismatch: "the SHA-256 trailer does not match the content",
    unknownKind: "the kind byte must be 1 (dense), 2 (sparse) or 3 (delta)",
    unexpectedKind: "a filter state and a delta are not interchangeable",
    nonZeroReserved: "the reserved byte must be 0",
    invalidBitCount: "bitCount must be a non-zero multiple of 64",
    zeroHashCount: "hashCount must not be 0",
    hashCountTooLarge: "hashCount must be at most 4096",
    lengthMismatch: "the body length must match entryCount exactly",
    entryCountMismatch: "a dense body has exactly bitCount / 64 words",
    wordIndexOutOfRange: "word indices must be below bitCount / 64",
    wordIndicesNotIncreasing: "word indices must be strictly increasing",
    zeroWordValue: "sparse entries must not carry the value 0",
    nonCanonicalEncoding: "sparse is used exactly when it is smaller than dense",
    outOfMemory: "for the filter's words",
  },
  scalable: {
    invalidInitialCapacity: "initialCapacity must be at least 1",
    invalidFalsePositiveRate: "targetFpp must be a finite number strictly between 0 and 1",
    invalidGrowthFactor: "growthFactor must be at least 1",
    invalidTighteningRatio: "tighteningRatio must be a finite number strictly between 0 and 1",
    filterTooLarge: "the chain may hold at most 2^30 bits in at most 256 stages",
    truncated: "the input ends inside a header or bit array",
    badMagic: 'an encoded scalable filter starts with "SBLF"',
    unsupportedVersion: "only version 1 is supported",
    checksumMismatch: "the SHA-256 trailer does not match the content",
    nonZeroReserved: "reserved fields must be 0",
    zeroStageCount: "a chain has at least one stage",
    stageCapacityMismatch: "stage i must hold initialCapacity · growthFactor^i items",
    itemCountExceedsCapacity: "a stage cannot hold more items than its capacity",
    stageNotFull: "every stage but the last must be full",
    emptyStage: "a stage after the first holds at least one item",
    invalidBitCount: "a stage's bitCount must be a non-zero multiple of 64",
    zeroHashCount: "a stage's hashCount must not be 0",
    hashCountTooLarge: "a stage's hashCount must be at most 4096",
    lengthMismatch: "no bytes may follow the last stage",
    outOfMemory: "for the chain's bits",
  },
  sizing: {
    invalidExpectedItemCount: "the expected item count must be at least 1",
    invalidFalsePositiveRate: "the false-positive rate must be a finite number strictly between 0 and 1",
    filterTooLarge: "the filter would need more than 2^30 bits",
  },
};

defineMessages("variants", {
  outOfMemory: (f) => memoryMessage({ purpose: VARIANT_MESSAGES[String(f.filter)]?.outOfMemory ?? "", ...f }),
  "*": (f, code) => VARIANT_MESSAGES[String(f.filter)]?.[code] ?? code,
});
