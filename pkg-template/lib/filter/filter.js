// ArtifactBloomFilter: the reference API over the wasm core.
//
// Validation of JavaScript values happens here, in the reference's order
// (spec → capacity → digests), so results match the TypeScript reference
// exactly; the wasm layer re-checks lengths and never panics. When wasm
// memory has no room (for the digests' copy or the bit array), a build
// answers `{ kind: "failure", error: "outOfMemory", message }`; methods that
// throw for bad input throw an Error with `code: "outOfMemory"` then.
//
// Single queries cross into wasm with the digest's first 16 bytes as four
// call arguments (nothing is copied into wasm memory); batches and builds
// cross a 512 KiB chunk at a time. The probe walk exists only in Rust.

import { RawFilter, dedupPacked, planLayout } from "../../artifact_bloom.js";
import { failure, success } from "../core/results.js";
import { codeOf, digestError, freedError, isUint8Array, rangeError, typeError } from "../core/errors.js";
import { toWasm } from "../wasm/main-memory.js";
import { DIGEST_LENGTH, MAXIMUM_EXPECTED_ITEM_COUNT } from "../wasm/format-rules.js";
import { CHUNK_BYTES, insertDigests, insertPacked, isDigest } from "./packing.js";
import { RAW, WasmResource } from "../wasm/resource.js";
import { checkKey, rawKeyOf } from "../snapshot/snapshot-key.js";

/** @import { BloomError, BloomSpec, Result } from "../types.js" */

// Only code inside the package may wrap a raw filter.
const internal = Symbol("artifact-bloom internal");

/**
 * The failure for a coded wasm error: the reference's `{ kind, error }`, plus
 * the `message` for `outOfMemory` (a code the reference does not have).
 *
 * @template {string} TError
 * @param {TError} code the error's `code` (codeOf), as one of the caller's codes
 * @param {unknown} error the coded Error wasm threw
 * @returns {{ kind: "failure", error: TError, message?: string }}
 */
function codedFailure(code, error) {
  return code === "outOfMemory" ? failure(code, /** @type {Error} */ (error).message) : failure(code);
}

/**
 * The reference's `validateSpec`, widened to reject non-numbers (JavaScript
 * callers may pass anything as the spec).
 *
 * @param {BloomSpec} spec
 * @returns {"invalidExpectedItemCount" | "invalidFalsePositiveRate" | undefined}
 */
function validateSpec(spec) {
  /** @type {unknown} */
  const n = spec?.expectedItemCount;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > MAXIMUM_EXPECTED_ITEM_COUNT) {
    return "invalidExpectedItemCount";
  }
  /** @type {unknown} */
  const p = spec.targetFalsePositiveRate;
  if (typeof p !== "number" || !Number.isFinite(p) || p <= 0 || p >= 1) {
    return "invalidFalsePositiveRate";
  }
  return undefined;
}

/**
 * Plans the layout in wasm; a coded wasm error becomes the reference code
 * (`filterTooLarge` for a valid spec whose bit array would exceed the limit).
 *
 * @param {BloomSpec} spec a spec validateSpec accepted
 * @returns {BloomError | undefined}
 */
function layoutError(spec) {
  try {
    planLayout(spec.expectedItemCount, spec.targetFalsePositiveRate);
    return undefined;
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return /** @type {BloomError} */ (code);
  }
}

/**
 * `packed` must be a Uint8Array of N × 32 digest bytes (a TypeError / RangeError naming it).
 *
 * @param {unknown} packed
 * @returns {asserts packed is Uint8Array}
 */
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
 *
 * With `key`, the filter hashes by protocol 2 (docs/ABF1.md "Keyed snapshots").
 *
 * @param {number} totalLength
 * @param {BloomSpec} spec
 * @param {(raw: RawFilter) => "invalidDigest" | undefined} fill
 * @param {Uint8Array | undefined} key a key checkKey accepted
 * @returns {Result<ArtifactBloomFilter>}
 */
function build(totalLength, spec, fill, key) {
  /** @type {RawFilter | undefined} */
  let raw;
  const rawKey = key === undefined ? undefined : rawKeyOf(key);
  try {
    const { expectedItemCount: n, targetFalsePositiveRate: p } = spec;
    raw = rawKey === undefined ? RawFilter.beginPacked(totalLength, n, p) : RawFilter.beginPackedKeyed(totalLength, n, p, rawKey);
    const refused = fill(raw);
    if (refused !== undefined) return failure(refused);
    const filter = ArtifactBloomFilter._wrap(raw);
    raw = undefined; // owned by the filter now
    return success(filter);
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return codedFailure(/** @type {BloomError} */ (code), error);
  } finally {
    raw?.free();
    rawKey?.free();
  }
}

/**
 * The `key` of a create's options (a TypeError or RangeError for a bad one,
 * naming its length, never its bytes).
 *
 * @param {{ key?: Uint8Array } | undefined} options
 * @returns {Uint8Array | undefined}
 */
function keyOption(options) {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw typeError("options", "an object such as { key }", options);
  }
  const key = options?.key;
  checkKey(key, "options.key");
  return key;
}

/**
 * A Bloom filter over 32-byte SHA-256 artifact digests, bit-exact with the
 * reference `ArtifactBloomFilter` (layout rule and probe walk of ABF1
 * hash protocol 1). `mightContain` is a hint: `false` means *definitely
 * absent*; `true` means *maybe* — confirm with the repository at the same
 * catalogVersion. Immutable once built: no API clears bits.
 *
 * @example
 * ```ts
 * import { ArtifactBloomFilter } from "artifact-bloom";
 * const result = ArtifactBloomFilter.create(digests, {
 *   expectedItemCount: 1_000_000,
 *   targetFalsePositiveRate: 0.001,
 * });
 * if (result.kind === "failure") throw new Error(result.error);
 * using filter = result.value;          // or call filter.free() when done
 * if (!filter.mightContain(digest)) {
 *   // definitely absent: skip the remote lookup
 * }
 * ```
 *
 * @extends {WasmResource<"ArtifactBloomFilter">}
 */
export class ArtifactBloomFilter extends WasmResource {
  /** Hash protocol 2: single queries pass the whole digest (its MAC needs all 32 bytes). */
  #keyed;

  /**
   * Not for callers: use `ArtifactBloomFilter.create` or `createPacked`.
   *
   * @private
   * @param {symbol} token
   * @param {RawFilter} raw
   */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError("use ArtifactBloomFilter.create(digests, spec) to build a filter");
    }
    super(raw, "ArtifactBloomFilter");
    this.#keyed = raw.isKeyed();
  }

  /**
   * Internal: wraps a raw filter owned by this package (builds, snapshots, merges).
   *
   * @internal
   * @param {RawFilter} raw
   * @returns {ArtifactBloomFilter}
   */
  static _wrap(raw) {
    return new ArtifactBloomFilter(internal, raw);
  }

  /**
   * Builds a filter. Checks, in the reference's order: the spec
   * (`invalidExpectedItemCount`, `invalidFalsePositiveRate`, `filterTooLarge`),
   * then `capacityExceeded` (more digests than `expectedItemCount`), then
   * `invalidDigest` (an element that is not a 32-byte `Uint8Array`, or
   * `digests` not an array), then `outOfMemory`.
   *
   * With `options.key` (16 to 1024 secret bytes) the filter is keyed (ABF1
   * hashProtocolVersion 2): each digest's bits are those of its
   * HMAC-SHA-256 under the key, so its snapshot tells nothing to whoever
   * lacks the key; queries take plain digests as usual.
   *
   * @param {readonly Uint8Array[]} digests
   * @param {BloomSpec} spec
   * @param {{ key?: Uint8Array }} [options]
   * @returns {Result<ArtifactBloomFilter>}
   * @throws {TypeError | RangeError} for a key that is not a Uint8Array of 16 to 1024 bytes
   */
  static create(digests, spec, options) {
    const key = keyOption(options);
    // The reference's order: the spec first, then the digests.
    const specError = validateSpec(spec) ?? layoutError(spec);
    if (specError !== undefined) return failure(specError);
    if (!Array.isArray(digests)) return failure("invalidDigest");
    // Read once: a Proxy's length could answer differently each time.
    const count = digests.length;
    if (count > spec.expectedItemCount) return failure("capacityExceeded");
    // Packed straight into staged wasm memory, a chunk at a time.
    const result = build(count * DIGEST_LENGTH, spec, (raw) => insertDigests(raw, digests, count), key);
    // The reference reports a bad digest before a lack of memory, and the
    // digests after the chunk that found no room were not checked yet.
    if (result.kind === "failure" && result.error === "outOfMemory") {
      for (let index = 0; index < count; index += 1) if (!isDigest(digests[index])) return failure("invalidDigest");
    }
    return result;
  }

  /**
   * Builds from one buffer of N × 32 packed digest bytes (the fast path,
   * staged a chunk at a time). A length that is not a multiple of 32 is
   * `invalidDigest` (after the spec and capacity checks).
   *
   * `options.key`: a keyed filter, as for `create`.
   *
   * @param {Uint8Array} packed
   * @param {BloomSpec} spec
   * @param {{ key?: Uint8Array }} [options]
   * @returns {Result<ArtifactBloomFilter>}
   * @throws {TypeError | RangeError} for a key that is not a Uint8Array of 16 to 1024 bytes
   */
  static createPacked(packed, spec, options) {
    const key = keyOption(options);
    // The JS checks cover what wasm cannot see (the types); wasm then checks
    // spec → capacity → length in the reference's order.
    const specError = validateSpec(spec);
    if (specError !== undefined) return failure(specError);
    if (!isUint8Array(packed)) return failure(layoutError(spec) ?? "invalidDigest");
    return build(
      packed.byteLength,
      spec,
      (raw) => {
        insertPacked(raw, packed);
        return undefined; // the length was checked by beginPacked: no digest to refuse
      },
      key,
    );
  }

  /**
   * Bitwise OR of two filters with the same bitCount and hashCount (e.g.
   * partial filters over digest shards). The inserted count follows
   * `merge`'s rule: identical filters (the same bits) count once, otherwise
   * the counts add up (exact for disjoint shards, an upper bound when they
   * overlap); a count over `a`'s expectedItemCount is `capacityExceeded`,
   * refused up front (its snapshot could not be published).
   *
   * @param {ArtifactBloomFilter} a
   * @param {ArtifactBloomFilter} b
   * @returns {Result<ArtifactBloomFilter, "incompatibleFilters" | "capacityExceeded" | "outOfMemory">}
   * @throws {TypeError} when `a` or `b` is not an ArtifactBloomFilter
   * @throws {Error} when either was freed
   */
  static union(a, b) {
    if (!(a instanceof ArtifactBloomFilter) || !(b instanceof ArtifactBloomFilter)) {
      throw typeError("union(a, b)", "two ArtifactBloomFilter instances", a instanceof ArtifactBloomFilter ? b : a);
    }
    try {
      return success(ArtifactBloomFilter._wrap(RawFilter.union(a._raw(), b._raw())));
    } catch (error) {
      const code = codeOf(error);
      if (code === undefined) throw error;
      // The union's count says what was refused (create's capacityExceeded,
      // the reference's, carries no message).
      if (code === "capacityExceeded") return failure(code, /** @type {Error} */ (error).message);
      return codedFailure(/** @type {"incompatibleFilters" | "outOfMemory"} */ (code), error);
    }
  }

  /**
   * `false`: definitely absent. `true`: maybe present — never an answer.
   *
   * @param {Uint8Array} digest 32 bytes
   * @returns {boolean}
   * @throws {RangeError} when `digest` is not a 32-byte Uint8Array
   * @throws {Error} after `free()`
   */
  mightContain(digest) {
    // A direct field read, not `_raw()`: this is the per-query hot path.
    const raw = this[RAW];
    if (raw === undefined) throw freedError("ArtifactBloomFilter");
    // packing.js `isDigest` (a genuine 32-byte Uint8Array, so reading it runs
    // no caller code), written out on this hot path. `length` is 0 for a
    // detached buffer.
    if (
      !(ArrayBuffer.isView(digest) && (digest instanceof Uint8Array || isUint8Array(digest)) && digest.length === DIGEST_LENGTH)
    ) {
      throw digestError("digest", digest);
    }
    const d = digest;
    if (this.#keyed) {
      // All eight big-endian words: the MAC covers the whole digest.
      return raw.mightContainDigest(
        (d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3],
        (d[4] << 24) | (d[5] << 16) | (d[6] << 8) | d[7],
        (d[8] << 24) | (d[9] << 16) | (d[10] << 8) | d[11],
        (d[12] << 24) | (d[13] << 16) | (d[14] << 8) | d[15],
        (d[16] << 24) | (d[17] << 16) | (d[18] << 8) | d[19],
        (d[20] << 24) | (d[21] << 16) | (d[22] << 8) | d[23],
        (d[24] << 24) | (d[25] << 16) | (d[26] << 8) | d[27],
        (d[28] << 24) | (d[29] << 16) | (d[30] << 8) | d[31],
      );
    }
    // The four big-endian words of the first 16 bytes (see the Rust side's
    // `mightContainWords`).
    return raw.mightContainWords(
      (d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3],
      (d[4] << 24) | (d[5] << 16) | (d[6] << 8) | d[7],
      (d[8] << 24) | (d[9] << 16) | (d[10] << 8) | d[11],
      (d[12] << 24) | (d[13] << 16) | (d[14] << 8) | d[15],
    );
  }

  /**
   * Answers N packed digests in one call: a `Uint8Array` of N flags
   * (1 = maybe, 0 = definitely absent), computed in wasm a chunk at a time.
   *
   * @param {Uint8Array} packed N × 32 digest bytes
   * @returns {Uint8Array<ArrayBuffer>} N flags
   * @throws {TypeError | RangeError} for a packed buffer of the wrong type or length
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for a chunk or its flags
   */
  mightContainMany(packed) {
    const raw = this._raw();
    checkPacked(packed);
    if (packed.byteLength <= CHUNK_BYTES) return /** @type {Uint8Array<ArrayBuffer>} */ (raw.mightContainMany(toWasm(packed)));
    const flags = new Uint8Array(packed.byteLength / DIGEST_LENGTH);
    for (let start = 0; start < packed.byteLength; start += CHUNK_BYTES) {
      flags.set(raw.mightContainMany(toWasm(packed.subarray(start, start + CHUNK_BYTES))), start / DIGEST_LENGTH);
    }
    return flags;
  }

  /**
   * How many of N packed digests answer "maybe", counted in wasm a chunk at a time.
   *
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

  /**
   * m, the number of bits (a multiple of 64).
   *
   * @returns {number}
   */
  getBitCount() {
    return this._raw().bitCount();
  }

  /**
   * The ABF1 hashProtocolVersion the filter hashes by: 1, or 2 for a keyed
   * filter (built or loaded with a key). Never reveals the key.
   *
   * @returns {1 | 2}
   */
  getHashProtocolVersion() {
    return this._raw() && this.#keyed ? 2 : 1;
  }

  /**
   * k, the number of probes per digest.
   *
   * @returns {number}
   */
  getHashCount() {
    return this._raw().hashCount();
  }

  /**
   * Digests the filter was built from (duplicates counted as given).
   *
   * @returns {number}
   */
  getInsertedItemCount() {
    return this._raw().insertedItemCount();
  }

  /**
   * The spec's `expectedItemCount`.
   *
   * @returns {number}
   */
  getExpectedItemCount() {
    return this._raw().expectedItemCount();
  }

  /**
   * The spec's `targetFalsePositiveRate`.
   *
   * @returns {number}
   */
  getTargetFalsePositiveRate() {
    return this._raw().targetFalsePositiveRate();
  }

  /**
   * `(−expm1(−k·n/m))^k` for the inserted count n.
   *
   * @returns {number}
   */
  estimateFalsePositiveRate() {
    return this._raw().estimateFalsePositiveRate();
  }

  /**
   * Set bits / all bits.
   *
   * @returns {number}
   */
  getFillRatio() {
    return this._raw().fillRatio();
  }

  /**
   * A copy of the bit array, LSB-first bytes (bit i in byte i >> 3).
   *
   * @returns {Uint8Array<ArrayBuffer>}
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for the copy
   */
  serializeBits() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (this._raw().serializeBits());
  }
}

/**
 * De-duplicates N × 32 packed digests (first-seen order) → `{ unique, duplicates }`,
 * so a publisher can record an exact unique insertedItemCount.
 *
 * @param {Uint8Array} packed N × 32 digest bytes
 * @returns {{ unique: Uint8Array<ArrayBuffer>; duplicates: number }}
 * @throws {TypeError | RangeError} for a packed buffer of the wrong type or length
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room
 */
export function dedupePacked(packed) {
  checkPacked(packed);
  return /** @type {{ unique: Uint8Array<ArrayBuffer>; duplicates: number }} */ (dedupPacked(toWasm(packed)));
}
