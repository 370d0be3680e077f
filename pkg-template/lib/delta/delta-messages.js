// The sentences of the delta domains (ABD1 decoding, the base check, the
// rebuilt target), added to lib/core/errors.js's table by the modules that
// run the delta wasm (delta-inputs.js, delta-apply.js): a page that never
// applies a delta never downloads them.

import { defineMessages, magic, memoryMessage, nestedMessage } from "../core/errors.js";

/** @type {Record<string, string>} */
const BOUND_WORDS = { atMost: "at most", atLeast: "at least", lessThan: "less than" };

defineMessages("delta", {
  truncated: (f) => `the delta is truncated: expected at least ${f.expected} bytes, got ${f.got}`,
  badMagic: magic,
  unsupportedFormatVersion: (f) => `delta formatVersion ${f.got} is not supported (expected ${f.expected})`,
  unsupportedPositionEncoding: (f) => `positionEncoding ${f.got} is not supported (expected ${f.expected})`,
  invalidTargetHeader: (f) => `the delta's target ABF1 header is invalid: ${nestedMessage(f.inner)}`,
  invalidHeader: (f) => `invalid delta header field ${f.field}: must be ${BOUND_WORDS[String(f.bound)]} ${f.limit}, got ${f.got}`,
  lengthMismatch: (f) =>
    `the delta must be exactly ${f.expected} bytes `
    + `(${f.headerLength}-byte header + bodyLength + ${f.checksumLength}-byte checksum), got ${f.got}`,
  checksumMismatch: () => "the delta's SHA-256 trailer does not match the bytes before it",
  positionsTruncated: (f) => `the delta body ends after ${f.decoded} of its ${f.expected} positions`,
  positionOutOfRange: (f) =>
    `position ${f.index} of the delta names zero bit ${f.rank}, but the base has only ${f.zeroCount} zero bits`,
  nonCanonicalPositions: (f) =>
    `the positions use ${f.usedBits} of the body's ${f.bodyBits} bits: only zero padding to the next byte may follow`,
  wrongBase: (f) => `the snapshot is not the base this delta applies to: ${nestedMessage(f.mismatch)}`,
  resultChecksumMismatch: () => "the rebuilt snapshot does not match the target header's checksum",
  incompatibleLayout: (f) =>
    `a delta needs the same layout: base bitCount ${f.baseBitCount} / hashCount ${f.baseHashCount}, `
    + `target ${f.targetBitCount} / ${f.targetHashCount}`,
  notSuperset: (f) =>
    `the target clears ${f.removedBits} bits set in the base `
    + `(the first at position ${f.firstPosition}): a delta only adds bits`,
  notNewer: (f) => `the target catalogVersion must be greater than the base's ${f.baseCatalogVersion}, got ${f.got}`,
  notChained: (f) => `the second delta does not start where the first ends: ${nestedMessage(f.mismatch)}`,
  outOfMemory: memoryMessage,
});
defineMessages("deltaTarget", { "*": (f) => `the rebuilt target does not load: ${nestedMessage(f.inner)}` });
defineMessages("deltaBase", {
  catalogVersion: (f) => `catalogVersion ${f.expected} expected, got ${f.got}`,
  layout: (f) =>
    `layout bitCount ${f.expectedBitCount} / hashCount ${f.expectedHashCount} expected, `
    + `got ${f.gotBitCount} / ${f.gotHashCount}`,
  setBitCount: (f) => `${f.expected} set bits expected, got ${f.got}`,
  payloadChecksum: () => "the SHA-256 of the bit array differs",
});
