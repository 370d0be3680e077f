// ArtifactBloomFilter: the reference API over the wasm core.
//
// Validation of JavaScript values happens here, in the reference's order
// (spec → capacity → digests), so results match the TypeScript reference
// exactly; the wasm layer re-checks lengths and never panics. When wasm
// memory has no room (for the digests' copy or the bit array), a build
// answers `{ kind: "failure", error: "outOfMemory", message }`; methods that
// throw for bad input throw an Error with `code: "outOfMemory"` then.
//
// Single queries are answered here, in JavaScript, from a view of the bit
// array in wasm memory (probe-walk.js): no call into wasm per query. Batches
// and builds run in wasm.

import { RawFilter, dedupPacked, planLayout } from "../artifact_bloom.js";
import { codeOf, digestError, freedError, isUint8Array, rangeError, typeError } from "./errors.js";
import { toWasm } from "./memory.js";
import { CHUNK_BYTES, insertDigests, insertPacked, isDigest } from "./packing.js";
import { ProbeWalk } from "./probe-walk.js";
import { RAW, WasmResource } from "./resource.js";

const DIGEST_LENGTH = 32;
const MAXIMUM_EXPECTED_ITEM_COUNT = 2 ** 30;
// Only code inside the package may wrap a raw filter.
const internal = Symbol("artifact-bloom internal");

export function success(value) {
  return { kind: "success", value };
}

export function failure(error) {
  return { kind: "failure", error };
}

/**
 * The failure for a coded wasm error: the reference's `{ kind, error }`, plus
 * the `message` for `outOfMemory` (a code the reference does not have).
 * @param {string} code
 * @param {Error} error
 * @returns {{ kind: "failure", error: string, message?: string }}
 */
function codedFailure(code, error) {
  return code === "outOfMemory" ? { kind: "failure", error: code, message: error.message } : failure(code);
}

/** The reference's `validateSpec`, widened to reject non-numbers. */
function validateSpec(spec) {
  const n = spec?.expectedItemCount;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > MAXIMUM_EXPECTED_ITEM_COUNT) {
    return "invalidExpectedItemCount";
  }
  const p = spec.targetFalsePositiveRate;
  if (typeof p !== "number" || !Number.isFinite(p) || p <= 0 || p >= 1) {
    return "invalidFalsePositiveRate";
  }
  return undefined;
}

/** Plans the layout in wasm; a coded wasm error becomes the reference code. */
function layoutError(spec) {
  try {
    planLayout(spec.expectedItemCount, spec.targetFalsePositiveRate);
    return undefined;
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return code;
  }
}

/** `packed` must be a Uint8Array of N × 32 digest bytes (a TypeError / RangeError naming it). */
function checkPacked(packed) {
  if (!isUint8Array(packed)) throw typeError("packed", "a Uint8Array of N × 32 digest bytes", packed);
  if (packed.byteLength % DIGEST_LENGTH !== 0) {
    throw rangeError("packed", "a whole number of 32-byte digests", packed);
  }
}

/**
 * A build in wasm: begun for `totalLength` bytes of packed digests (wasm
 * checks the spec, capacity and length in the reference's order, then
 * reserves the bits), filled by `fill`, then wrapped. Coded errors become
 * failures; a build that fails frees its raw filter.
 * @param {number} totalLength
 * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
 * @param {(raw: RawFilter) => "invalidDigest" | undefined} fill
 * @returns {{ kind: "success", value: ArtifactBloomFilter } | { kind: "failure", error: string, message?: string }}
 */
function build(totalLength, spec, fill) {
  /** @type {RawFilter | undefined} */
  let raw;
  try {
    raw = RawFilter.beginPacked(totalLength, spec.expectedItemCount, spec.targetFalsePositiveRate);
    const refused = fill(raw);
    if (refused !== undefined) return failure(refused);
    const filter = new ArtifactBloomFilter(internal, raw);
    raw = undefined; // owned by the filter now
    return success(filter);
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return codedFailure(code, error);
  } finally {
    raw?.free();
  }
}

export class ArtifactBloomFilter extends WasmResource {
  /** @type {ProbeWalk} single queries, answered in JS */
  #walk;

  /**
   * Not for callers: use `ArtifactBloomFilter.create`.
   * @param {symbol} token
   * @param {RawFilter} raw
   */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError("use ArtifactBloomFilter.create(digests, spec) to build a filter");
    }
    super(raw, "ArtifactBloomFilter");
    this.#walk = new ProbeWalk(raw.bitsAddress(), raw.bitCount(), raw.hashCount());
  }

  /**
   * Internal: wraps a raw filter owned by this package (snapshots, merges).
   * @param {RawFilter} raw
   * @returns {ArtifactBloomFilter}
   */
  static _wrap(raw) {
    return new ArtifactBloomFilter(internal, raw);
  }

  /**
   * Builds a filter from separate digests. Checks, in the reference's order:
   * the spec, capacity, every digest (a 32-byte Uint8Array), then memory.
   * @param {readonly Uint8Array[]} digests
   * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
   * @returns {{ kind: "success", value: ArtifactBloomFilter } | { kind: "failure", error: string, message?: string }}
   */
  static create(digests, spec) {
    // The reference's order: the spec first, then the digests.
    const specError = validateSpec(spec) ?? layoutError(spec);
    if (specError !== undefined) return failure(specError);
    if (!Array.isArray(digests)) return failure("invalidDigest");
    // Read once: a Proxy's length could answer differently each time.
    const count = digests.length;
    if (count > spec.expectedItemCount) return failure("capacityExceeded");
    // Packed straight into staged wasm memory, a chunk at a time.
    const result = build(count * DIGEST_LENGTH, spec, (raw) => insertDigests(raw, digests, count));
    // The reference reports a bad digest before a lack of memory, and the
    // digests after the chunk that found no room were not checked yet.
    if (result.kind === "failure" && result.error === "outOfMemory") {
      for (let index = 0; index < count; index += 1) if (!isDigest(digests[index])) return failure("invalidDigest");
    }
    return result;
  }

  /**
   * Builds a filter from N × 32 packed digest bytes (staged a chunk at a time).
   * @param {Uint8Array} packed
   * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
   * @returns {{ kind: "success", value: ArtifactBloomFilter } | { kind: "failure", error: string, message?: string }}
   */
  static createPacked(packed, spec) {
    // The JS checks cover what wasm cannot see (the types); wasm then checks
    // spec → capacity → length in the reference's order.
    const specError = validateSpec(spec);
    if (specError !== undefined) return failure(specError);
    if (!isUint8Array(packed)) return failure(layoutError(spec) ?? "invalidDigest");
    return build(packed.byteLength, spec, (raw) => insertPacked(raw, packed));
  }

  static union(a, b) {
    if (!(a instanceof ArtifactBloomFilter) || !(b instanceof ArtifactBloomFilter)) {
      throw typeError("union(a, b)", "two ArtifactBloomFilter instances", a instanceof ArtifactBloomFilter ? b : a);
    }
    try {
      return success(new ArtifactBloomFilter(internal, RawFilter.union(a._raw(), b._raw())));
    } catch (error) {
      const code = codeOf(error);
      if (code === undefined) throw error;
      return codedFailure(code, error);
    }
  }

  /**
   * `false`: definitely absent; `true`: maybe. Answered in JS (probe-walk.js).
   * @param {Uint8Array} digest 32 bytes
   * @returns {boolean}
   * @throws {RangeError} when `digest` is not a 32-byte Uint8Array
   * @throws {Error} after `free()`
   */
  mightContain(digest) {
    // A direct field read, not `_raw()`: this is the per-query hot path. The
    // walk reads the bits only while the raw filter (their owner) lives.
    if (this[RAW] === undefined) throw freedError("ArtifactBloomFilter");
    // packing.js `isDigest` (a genuine 32-byte Uint8Array, so reading it runs
    // no caller code), written out on this hot path. `length` is 0 for a
    // detached buffer.
    if (!(ArrayBuffer.isView(digest) && (digest instanceof Uint8Array || isUint8Array(digest))
      && digest.length === DIGEST_LENGTH)) {
      throw digestError("digest", digest);
    }
    return this.#walk.mightContain(digest);
  }

  /**
   * One flag per packed digest (1 = maybe, 0 = definitely absent), answered
   * in wasm a staged chunk at a time (packing.js).
   * @param {Uint8Array} packed N × 32 digest bytes
   * @returns {Uint8Array} N flags
   * @throws {TypeError | RangeError} for a packed buffer of the wrong type or length
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for a chunk or its flags
   */
  mightContainMany(packed) {
    const raw = this._raw();
    checkPacked(packed);
    if (packed.byteLength <= CHUNK_BYTES) return raw.mightContainMany(toWasm(packed));
    const flags = new Uint8Array(packed.byteLength / DIGEST_LENGTH);
    for (let start = 0; start < packed.byteLength; start += CHUNK_BYTES) {
      flags.set(raw.mightContainMany(toWasm(packed.subarray(start, start + CHUNK_BYTES))), start / DIGEST_LENGTH);
    }
    return flags;
  }

  /**
   * How many packed digests answer "maybe", counted in wasm a chunk at a time.
   * @param {Uint8Array} packed N × 32 digest bytes
   * @returns {number}
   * @throws {TypeError | RangeError} for a packed buffer of the wrong type or length
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for a chunk
   */
  countMaybe(packed) {
    const raw = this._raw();
    checkPacked(packed);
    if (packed.byteLength <= CHUNK_BYTES) return raw.countMaybe(toWasm(packed));
    let count = 0;
    for (let start = 0; start < packed.byteLength; start += CHUNK_BYTES) {
      count += raw.countMaybe(toWasm(packed.subarray(start, start + CHUNK_BYTES)));
    }
    return count;
  }

  getBitCount() {
    return this._raw().bitCount();
  }

  getHashCount() {
    return this._raw().hashCount();
  }

  getInsertedItemCount() {
    return this._raw().insertedItemCount();
  }

  getExpectedItemCount() {
    return this._raw().expectedItemCount();
  }

  getTargetFalsePositiveRate() {
    return this._raw().targetFalsePositiveRate();
  }

  estimateFalsePositiveRate() {
    return this._raw().estimateFalsePositiveRate();
  }

  getFillRatio() {
    return this._raw().fillRatio();
  }

  serializeBits() {
    return this._raw().serializeBits();
  }
}

/**
 * De-duplicates N × 32 packed digests (first-seen order) → `{ unique, duplicates }`,
 * so a publisher can record an exact unique insertedItemCount.
 */
export function dedupePacked(packed) {
  checkPacked(packed);
  return dedupPacked(toWasm(packed));
}
