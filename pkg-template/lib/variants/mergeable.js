// The mergeable (CRDT) Bloom filter and its deltas: Murmur3 probes,
// join = bitwise OR, sparse deltas (docs/mergeable-format.md). Error policy:
// checks.js.

import { RawMergeableFilter, decodeMergeableDelta, encodeMergeableDelta, wasmMemory } from "../../artifact_bloom_variants.js";
import { typeError } from "../core/errors.js";
import { build, checkBytes, checkCount, checkRate, itemBytes, load } from "../core/checks.js";
import { toWasm } from "../wasm/variants-memory.js";
import { WasmResource } from "../wasm/resource.js";

/** @import { BloomItem, DecodeResult, MergeableDecodeError, MergeableDeltaEntry } from "../variant-types.js" */

// Only code inside this module may wrap a raw filter or make a delta.
const internal = Symbol("artifact-bloom mergeable internal");

/**
 * The type of this module's construction token: callers can name it, never
 * make one. (A typedef: `typeof internal` written on the parameter itself
 * trips TypeScript's circularity check, TS2502.)
 *
 * @typedef {typeof internal} MergeableToken
 */

/** @type {Uint32Array | null} */
let words32 = null;

/**
 * A Uint32Array over all of wasm memory; re-made after memory grew (the old view detaches).
 *
 * @returns {Uint32Array}
 */
function wasmWords() {
  if (words32 === null || words32.byteLength === 0) {
    words32 = new Uint32Array(/** @type {WebAssembly.Memory} */ (wasmMemory()).buffer);
  }
  return words32;
}

/**
 * A delta's words staged for a raw call, as little-endian u32 bytes (wasm's
 * byte order, whatever the host's).
 * @param {ArrayLike<number>} words
 * @returns {number} the staged length
 */
function stageWords(words) {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < words.length; i += 1) view.setUint32(i * 4, words[i], true);
  return toWasm(bytes);
}

/**
 * The sparse delta one `add` returns: the words it changed, each with its
 * full value, so applying it anywhere is an OR (idempotent, commutative,
 * associative). Held in JavaScript, not in wasm memory: ignoring it is free;
 * `free()` only marks it unusable.
 *
 * @example
 * ```ts
 * const delta = replicaA.add("alice");
 * send(delta.encode());                                   // the wire form
 * const received = MergeableDelta.decode(bytesFromPeer);
 * if (received.kind === "success") replicaB.piece(received.value);
 * ```
 *
 * @extends {WasmResource<"MergeableDelta">}
 */
export class MergeableDelta extends WasmResource {
  // Its raw object (`_raw()`) is `[bitCount, hashCount, (wordIndex, low 32
  // bits, high 32 bits)…]`, an array of u32 numbers.

  /**
   * Not for callers: deltas come from `add` or `MergeableDelta.decode`.
   * (Not `@private`, since MergeableBloomFilter#add makes deltas: the token's
   * type is this module's own symbol, which no caller can name.)
   *
   * @param {MergeableToken} token
   * @param {Uint32Array | number[]} words
   */
  constructor(token, words) {
    if (token !== internal) throw new TypeError("a MergeableDelta comes from MergeableBloomFilter.add or MergeableDelta.decode");
    super(words, "MergeableDelta");
  }

  /**
   * Parses a delta's wire form (kind 3).
   *
   * @param {Uint8Array} bytes
   * @returns {DecodeResult<MergeableDelta, MergeableDecodeError>}
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes) {
    checkBytes(bytes, "an encoded MergeableDelta");
    return load(() => new MergeableDelta(internal, decodeMergeableDelta(toWasm(bytes))));
  }

  /**
   * bitCount of the filter it came from.
   *
   * @returns {number}
   */
  get bitCount() {
    return this._raw()[0];
  }

  /**
   * hashCount of the filter it came from.
   *
   * @returns {number}
   */
  get hashCount() {
    return this._raw()[1];
  }

  /**
   * The changed words, `wordIndex` strictly increasing, `wordValue` non-zero
   * (empty when nothing changed).
   *
   * @returns {readonly MergeableDeltaEntry[]}
   */
  get entries() {
    const words = this._raw();
    /** @type {MergeableDeltaEntry[]} */
    const entries = [];
    for (let at = 2; at < words.length; at += 3) {
      const wordValue = (BigInt(words[at + 2]) << 32n) | BigInt(words[at + 1]);
      entries.push(Object.freeze({ wordIndex: words[at], wordValue }));
    }
    return Object.freeze(entries);
  }

  /**
   * The wire form: header, 12-byte entries, SHA-256 trailer (kind 3).
   *
   * @returns {Uint8Array<ArrayBuffer>}
   */
  encode() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (encodeMergeableDelta(stageWords(this._raw())));
  }
}

/**
 * The mergeable Bloom filter (MBLF): a state-based CRDT whose merge is
 * bitwise OR. Union-only (no removes). Probes: Kirsch–Mitzenmacher double
 * hashing with MurmurHash3_x86_32 (`h1 = murmur(x, 0)`, `h2 = murmur(x, h1)`).
 * Replicas created with the same arguments have the same shape.
 *
 * @example
 * ```ts
 * const replicaA = MergeableBloomFilter.create(1_000, 0.01);
 * const replicaB = MergeableBloomFilter.create(1_000, 0.01);
 * replicaA.piece(replicaA.add("alice"));
 * replicaB.piece(replicaB.add("bob"));
 * const merged = replicaA.piece(replicaB);      // in place; returns replicaA
 * merged.mightContain("alice") && merged.mightContain("bob"); // true
 * ```
 *
 * @extends {WasmResource<"MergeableBloomFilter">}
 */
export class MergeableBloomFilter extends WasmResource {
  /**
   * Not for callers: use `MergeableBloomFilter.create` or `.decode`.
   *
   * @private
   * @param {symbol} token
   * @param {RawMergeableFilter} raw
   */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError(
        "use MergeableBloomFilter.create(expectedElements, falsePositiveRate) or MergeableBloomFilter.decode(bytes)",
      );
    }
    super(raw, "MergeableBloomFilter");
  }

  /**
   * `bitCount` = the optimum m rounded up to whole 64-bit words,
   * `hashCount = max(1, round(m/n · ln 2))`.
   *
   * @param {number} expectedElements
   * @param {number} falsePositiveRate
   * @returns {MergeableBloomFilter}
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
   * `invalidFalsePositiveRate` or `filterTooLarge`.
   */
  static create(expectedElements, falsePositiveRate) {
    checkCount("expectedElements", expectedElements, 1, "invalidExpectedItemCount");
    checkRate("falsePositiveRate", falsePositiveRate, "invalidFalsePositiveRate");
    const raw = build("expectedElements", expectedElements, () => RawMergeableFilter.create(expectedElements, falsePositiveRate));
    return new MergeableBloomFilter(internal, raw);
  }

  /**
   * Parses a dense or sparse state (a delta is `unexpectedKind`).
   *
   * @param {Uint8Array} bytes
   * @returns {DecodeResult<MergeableBloomFilter, MergeableDecodeError>}
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes) {
    checkBytes(bytes, "an encoded MergeableBloomFilter");
    return load(() => new MergeableBloomFilter(internal, RawMergeableFilter.decode(toWasm(bytes))));
  }

  /**
   * Sets the item's bits; returns the delta of the words that changed.
   *
   * @param {BloomItem} item
   * @returns {MergeableDelta}
   */
  add(item) {
    const raw = this._raw();
    const length = raw.add(toWasm(itemBytes(item)));
    // Copied at once into a plain array: the next call reuses the buffer.
    const memory = wasmWords();
    const at = raw.deltaWordsPtr() >>> 2;
    /** @type {number[]} */
    const words = new Array(length);
    for (let i = 0; i < length; i += 1) words[i] = memory[at + i];
    return new MergeableDelta(internal, words);
  }

  /**
   * `false`: never added here or in anything pieced in. `true`: maybe.
   *
   * @param {BloomItem} item
   * @returns {boolean}
   */
  mightContain(item) {
    const raw = this._raw();
    return raw.mightContain(toWasm(itemBytes(item)));
  }

  /**
   * Joins a delta or another replica's state in place (bitwise OR); returns this.
   *
   * @param {MergeableDelta | MergeableBloomFilter} deltaOrFilter
   * @returns {this}
   * @throws {Error} with `code` `"incompatibleFilters"` when bitCount or hashCount differ.
   * @throws {TypeError} when the argument is neither a `MergeableDelta` nor a `MergeableBloomFilter`.
   */
  piece(deltaOrFilter) {
    const raw = this._raw();
    if (deltaOrFilter instanceof MergeableDelta) {
      raw.pieceDelta(stageWords(deltaOrFilter._raw()));
    } else if (deltaOrFilter instanceof MergeableBloomFilter) {
      // x OR x = x: piecing a filter into itself changes nothing.
      if (deltaOrFilter !== this) raw.pieceFilter(deltaOrFilter._raw());
    } else {
      throw typeError("deltaOrFilter", "a MergeableDelta or a MergeableBloomFilter", deltaOrFilter);
    }
    return this;
  }

  /**
   * The wire form: sparse when strictly smaller than dense, so equal states have equal bytes.
   *
   * @returns {Uint8Array<ArrayBuffer>}
   */
  encode() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (this._raw().encode());
  }

  /**
   * 64-bit words (`bitCount / 64`).
   *
   * @returns {number}
   */
  get wordCount() {
    return this._raw().wordCount();
  }

  /**
   * Words with at least one bit set (what the sparse form carries).
   *
   * @returns {number}
   */
  get nonZeroWordCount() {
    return this._raw().nonZeroWordCount();
  }

  /**
   * Bits (a multiple of 64).
   *
   * @returns {number}
   */
  get bitCount() {
    return this._raw().bitCount();
  }

  /**
   * Probes per item.
   *
   * @returns {number}
   */
  get hashCount() {
    return this._raw().hashCount();
  }

  /**
   * Set bits / bitCount.
   *
   * @returns {number}
   */
  get fillRatio() {
    return this._raw().fillRatio();
  }
}
