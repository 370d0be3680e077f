// The other seed systems over the wasm core:
//
//   TlBloom               seed 002: the TLBF filter, byte-compatible with
//                         tl_ds::bloom::Bloom (FNV-1a + SplitMix64 probes);
//   MergeableBloomFilter  seed 003: the CRDT filter (Murmur3 probes, join =
//   MergeableDelta          bitwise OR, sparse deltas; docs/mergeable-format.md);
//   ScalableBloomFilter   seed 004 step 5: a growing chain of filters with a
//                         compound false-positive bound (docs/scalable-format.md);
//   optimalParams, fppFromFillRatio, alertFillRatio, expectedFillRatio
//                         seed 004 steps 4 and 6.
//
// Error policy (index.d.ts repeats it):
//   - builders (`TlBloom.withRate`, `MergeableBloomFilter.create`,
//     `new ScalableBloomFilter`) and the sizing helpers THROW for invalid
//     arguments: a TypeError for a wrong type, a RangeError for a number out
//     of range, both with a `code` property (the core's camelCase code);
//   - loaders (`TlBloom.fromBytes`, `MergeableBloomFilter.decode`,
//     `MergeableDelta.decode`, `ScalableBloomFilter.decode`) throw a TypeError
//     only when `bytes` is not a Uint8Array, and otherwise RETURN
//     `{ kind: "success", value } | { kind: "failure", error: code, message }`
//     like `loadSnapshot`;
//   - `union` / `piece` of different shapes throw the wasm layer's Error with
//     code "incompatibleFilters"; a TypeError for a wrong argument type;
//   - items are a Uint8Array or a string (its UTF-8 bytes); anything else is a
//     TypeError naming `item`;
//   - any method after `free()` throws.

import {
  RawMergeableFilter,
  RawScalableFilter,
  RawTlBloom,
  decodeMergeableDelta,
  encodeMergeableDelta,
  sizingAlertFillRatio,
  sizingExpectedFillRatio,
  sizingFppFromFillRatio,
  sizingOptimalParams,
  wasmMemory,
} from "../artifact_bloom.js";
import { codeOf, freedError, isUint8Array, rangeError, typeError } from "./errors.js";

// Only code inside this module may wrap a raw object.
const internal = Symbol("artifact-bloom systems internal");
const encoder = new TextEncoder();
const MAXIMUM_HASH_COUNT = 4096;
const MAXIMUM_GROWTH_FACTOR = 2 ** 32 - 1;

let words32 = null;

/** A Uint32Array over all of wasm memory; re-made after memory grew (the old view detaches). */
function wasmWords() {
  if (words32 === null || words32.byteLength === 0) words32 = new Uint32Array(wasmMemory().buffer);
  return words32;
}

/** Attaches the machine-readable code to an error made by errors.js. */
function withCode(error, code) {
  error.code = code;
  return error;
}

/** An item's bytes: a Uint8Array as is, a string as UTF-8. */
function itemBytes(item) {
  if (typeof item === "string") return encoder.encode(item);
  if (isUint8Array(item)) return item;
  throw typeError("item", "a Uint8Array or a string", item);
}

function checkBytes(bytes, what) {
  if (!isUint8Array(bytes)) throw typeError("bytes", `a Uint8Array holding ${what}`, bytes);
}

/** A safe integer in [min, max], else a coded TypeError / RangeError. */
function checkInteger(parameter, value, min, max, code) {
  const expected = `an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "2^53 - 1" : max}`;
  if (typeof value !== "number") throw withCode(typeError(parameter, expected, value), code);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw withCode(rangeError(parameter, expected, value), code);
  }
}

function checkCount(parameter, value, min, code) {
  checkInteger(parameter, value, min, Number.MAX_SAFE_INTEGER, code);
}

/** A finite number strictly between 0 and 1. */
function checkRate(parameter, value, code) {
  const expected = "a finite number strictly between 0 and 1";
  if (typeof value !== "number") throw withCode(typeError(parameter, expected, value), code);
  if (!(value > 0 && value < 1)) throw withCode(rangeError(parameter, expected, value), code);
}

function checkHashCount(k) {
  checkInteger("k", k, 1, MAXIMUM_HASH_COUNT, "invalidHashCount");
}

/**
 * Runs a raw builder whose arguments were validated; a coded wasm error
 * (in practice only `filterTooLarge`) becomes a coded RangeError.
 */
function build(parameter, value, call) {
  try {
    return call();
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    const expected = code === "filterTooLarge"
      ? "small enough (with the rate) that the filter needs at most 2^30 bits"
      : `valid (${error.message})`;
    throw withCode(rangeError(parameter, expected, value), code);
  }
}

/** Runs a raw loader: the value, or the coded failure with its message. */
function load(call) {
  try {
    return { kind: "success", value: call() };
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return { kind: "failure", error: code, message: error.message };
  }
}

/**
 * The seed-002 TLBF filter. `contains` false: never inserted; true: maybe.
 * Overfilling is allowed (the rate degrades; watch `fillRatio`).
 */
export class TlBloom {
  #raw;

  /** Not for callers: use `TlBloom.withRate` or `TlBloom.fromBytes`. */
  constructor(token, raw) {
    if (token !== internal) throw new TypeError("use TlBloom.withRate(n, p) or TlBloom.fromBytes(bytes)");
    this.#raw = raw;
  }

  /** Sized for n items at rate p: m = ceil(−n ln p / ln² 2), k = max(1, round(m/n ln 2)). */
  static withRate(n, p) {
    checkCount("n", n, 1, "invalidExpectedItemCount");
    checkRate("p", p, "invalidFalsePositiveRate");
    return new TlBloom(internal, build("n", n, () => RawTlBloom.withRate(n, p)));
  }

  /** Parses TLBF bytes (result-shaped). */
  static fromBytes(bytes) {
    checkBytes(bytes, "a TLBF filter");
    return load(() => new TlBloom(internal, RawTlBloom.fromBytes(bytes)));
  }

  #live() {
    if (this.#raw === undefined) throw freedError("TlBloom");
    return this.#raw;
  }

  insert(item) {
    const raw = this.#live();
    raw.insert(itemBytes(item));
    return this;
  }

  contains(item) {
    const raw = this.#live();
    return raw.contains(itemBytes(item));
  }

  /** ORs `other` into this filter (counts add); returns this. */
  union(other) {
    const raw = this.#live();
    if (!(other instanceof TlBloom)) throw typeError("other", "a TlBloom", other);
    if (other === this) {
      // The raw layer cannot borrow one object twice: union with a copy.
      const copy = RawTlBloom.fromBytes(raw.toBytes());
      try {
        raw.union(copy);
      } finally {
        copy.free();
      }
    } else {
      raw.union(other.#live());
    }
    return this;
  }

  /** The seed's 32-byte header and ceil(m / 8) bit bytes. */
  toBytes() {
    return this.#live().toBytes();
  }

  get m() {
    return this.#live().m();
  }

  get k() {
    return this.#live().k();
  }

  get insertedCount() {
    return this.#live().insertedCount();
  }

  get fillRatio() {
    return this.#live().fillRatio();
  }

  get freed() {
    return this.#raw === undefined;
  }

  free() {
    const raw = this.#raw;
    this.#raw = undefined;
    raw?.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/**
 * The words one `add` changed. Held in JavaScript (no wasm memory), so
 * ignoring deltas costs nothing; `free()` only marks it unusable.
 */
export class MergeableDelta {
  /** `[bitCount, hashCount, (wordIndex, low 32 bits, high 32 bits)…]` (an array of u32 numbers). */
  #words;

  /** Not for callers: deltas come from `add` or `MergeableDelta.decode`. */
  constructor(token, words) {
    if (token !== internal) throw new TypeError("a MergeableDelta comes from MergeableBloomFilter.add or MergeableDelta.decode");
    this.#words = words;
  }

  /** Parses a delta's wire form (result-shaped). */
  static decode(bytes) {
    checkBytes(bytes, "an encoded MergeableDelta");
    return load(() => new MergeableDelta(internal, decodeMergeableDelta(bytes)));
  }

  /** Internal: the raw words (throws after free). */
  _words() {
    if (this.#words === undefined) throw freedError("MergeableDelta");
    return this.#words;
  }

  get bitCount() {
    return this._words()[0];
  }

  get hashCount() {
    return this._words()[1];
  }

  /** `{ wordIndex, wordValue }` pairs, wordIndex strictly increasing, wordValue a non-zero u64. */
  get entries() {
    const words = this._words();
    const entries = [];
    for (let at = 2; at < words.length; at += 3) {
      const wordValue = (BigInt(words[at + 2]) << 32n) | BigInt(words[at + 1]);
      entries.push(Object.freeze({ wordIndex: words[at], wordValue }));
    }
    return Object.freeze(entries);
  }

  /** The wire form (kind 3, SHA-256 sealed). */
  encode() {
    return encodeMergeableDelta(this._words());
  }

  get freed() {
    return this.#words === undefined;
  }

  free() {
    this.#words = undefined;
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** The seed-003 mergeable (CRDT) Bloom filter: union-only, join = bitwise OR. */
export class MergeableBloomFilter {
  #raw;

  /** Not for callers: use `MergeableBloomFilter.create` or `.decode`. */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError("use MergeableBloomFilter.create(expectedElements, falsePositiveRate) or MergeableBloomFilter.decode(bytes)");
    }
    this.#raw = raw;
  }

  static create(expectedElements, falsePositiveRate) {
    checkCount("expectedElements", expectedElements, 1, "invalidExpectedItemCount");
    checkRate("falsePositiveRate", falsePositiveRate, "invalidFalsePositiveRate");
    const raw = build("expectedElements", expectedElements, () => RawMergeableFilter.create(expectedElements, falsePositiveRate));
    return new MergeableBloomFilter(internal, raw);
  }

  /** Parses a dense or sparse state (result-shaped). */
  static decode(bytes) {
    checkBytes(bytes, "an encoded MergeableBloomFilter");
    return load(() => new MergeableBloomFilter(internal, RawMergeableFilter.decode(bytes)));
  }

  #live() {
    if (this.#raw === undefined) throw freedError("MergeableBloomFilter");
    return this.#raw;
  }

  /** Sets the item's bits; returns the delta of the words that changed. */
  add(item) {
    const raw = this.#live();
    const length = raw.add(itemBytes(item));
    // Copied at once into a plain array: the next call reuses the buffer.
    const memory = wasmWords();
    const at = raw.deltaWordsPtr() >>> 2;
    const words = new Array(length);
    for (let i = 0; i < length; i += 1) words[i] = memory[at + i];
    return new MergeableDelta(internal, words);
  }

  mightContain(item) {
    const raw = this.#live();
    return raw.mightContain(itemBytes(item));
  }

  /** Joins a delta or another replica's state (bitwise OR) in place; returns this. */
  piece(deltaOrFilter) {
    const raw = this.#live();
    if (deltaOrFilter instanceof MergeableDelta) {
      raw.pieceDelta(deltaOrFilter._words());
    } else if (deltaOrFilter instanceof MergeableBloomFilter) {
      // x OR x = x: piecing a filter into itself changes nothing.
      if (deltaOrFilter !== this) raw.pieceFilter(deltaOrFilter.#live());
    } else {
      throw typeError("deltaOrFilter", "a MergeableDelta or a MergeableBloomFilter", deltaOrFilter);
    }
    return this;
  }

  /** The wire form: sparse when strictly smaller than dense. */
  encode() {
    return this.#live().encode();
  }

  get wordCount() {
    return this.#live().wordCount();
  }

  get nonZeroWordCount() {
    return this.#live().nonZeroWordCount();
  }

  get bitCount() {
    return this.#live().bitCount();
  }

  get hashCount() {
    return this.#live().hashCount();
  }

  get fillRatio() {
    return this.#live().fillRatio();
  }

  get freed() {
    return this.#raw === undefined;
  }

  free() {
    const raw = this.#raw;
    this.#raw = undefined;
    raw?.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** The seed-004 scalable Bloom filter: grows by stages, compound rate ≤ target. */
export class ScalableBloomFilter {
  #raw;

  constructor(options, raw) {
    if (options === internal) {
      this.#raw = raw;
      return;
    }
    if (options === null || typeof options !== "object") {
      throw typeError("options", "an object { initialCapacity, targetFalsePositiveRate, growthFactor?, tighteningRatio? }", options);
    }
    const { initialCapacity, targetFalsePositiveRate, growthFactor = 2, tighteningRatio = 0.5 } = options;
    checkCount("initialCapacity", initialCapacity, 1, "invalidInitialCapacity");
    checkRate("targetFalsePositiveRate", targetFalsePositiveRate, "invalidFalsePositiveRate");
    checkInteger("growthFactor", growthFactor, 1, MAXIMUM_GROWTH_FACTOR, "invalidGrowthFactor");
    checkRate("tighteningRatio", tighteningRatio, "invalidTighteningRatio");
    this.#raw = build("initialCapacity", initialCapacity, () =>
      new RawScalableFilter(initialCapacity, targetFalsePositiveRate, growthFactor, tighteningRatio));
  }

  /** Parses an encoded chain (result-shaped). */
  static decode(bytes) {
    checkBytes(bytes, "an encoded ScalableBloomFilter");
    return load(() => new ScalableBloomFilter(internal, RawScalableFilter.decode(bytes)));
  }

  #live() {
    if (this.#raw === undefined) throw freedError("ScalableBloomFilter");
    return this.#raw;
  }

  /**
   * Adds an item, starting a new stage when the newest is full; returns this.
   * Throws an Error with code "filterTooLarge" (chain unchanged) when the
   * chain would exceed 2^30 bits or 256 stages.
   */
  add(item) {
    const raw = this.#live();
    raw.add(itemBytes(item));
    return this;
  }

  mightContain(item) {
    const raw = this.#live();
    return raw.mightContain(itemBytes(item));
  }

  encode() {
    return this.#live().encode();
  }

  get stageCount() {
    return this.#live().stageCount();
  }

  get itemCount() {
    return this.#live().itemCount();
  }

  get bitCount() {
    return this.#live().bitCount();
  }

  /** `1 − Π(1 − fill_i^k_i)` over the stages' observed fill. */
  get estimatedFalsePositiveRate() {
    return this.#live().estimatedFpp();
  }

  get initialCapacity() {
    return this.#live().params()[0];
  }

  get targetFalsePositiveRate() {
    return this.#live().params()[1];
  }

  get growthFactor() {
    return this.#live().params()[2];
  }

  get tighteningRatio() {
    return this.#live().params()[3];
  }

  get freed() {
    return this.#raw === undefined;
  }

  free() {
    const raw = this.#raw;
    this.#raw = undefined;
    raw?.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** Seed 004's optimum: `{ m, k }` with m = ceil(−n ln p / ln² 2), k = max(1, round(m/n ln 2)). */
export function optimalParams(n, p) {
  checkCount("n", n, 1, "invalidExpectedItemCount");
  checkRate("p", p, "invalidFalsePositiveRate");
  const [m, k] = build("n", n, () => sizingOptimalParams(n, p));
  return { m, k };
}

/** The rate implied by an observed fill ratio: fill^k. */
export function fppFromFillRatio(fill, k) {
  const expected = "a number from 0 to 1";
  if (typeof fill !== "number") throw withCode(typeError("fill", expected, fill), "invalidFillRatio");
  if (!(fill >= 0 && fill <= 1)) throw withCode(rangeError("fill", expected, fill), "invalidFillRatio");
  checkHashCount(k);
  return sizingFppFromFillRatio(fill, k);
}

/** The fill ratio at which fill^k reaches 2p: (2p)^(1/k) (≥ 1, never reached, for p ≥ 0.5). */
export function alertFillRatio(p, k) {
  checkRate("p", p, "invalidFalsePositiveRate");
  checkHashCount(k);
  return sizingAlertFillRatio(p, k);
}

/** The expected fill after n inserts of k probes into m bits: 1 − e^(−kn/m). */
export function expectedFillRatio(n, m, k) {
  checkCount("n", n, 0, "invalidItemCount");
  checkCount("m", m, 1, "invalidBitCount");
  checkHashCount(k);
  return sizingExpectedFillRatio(n, m, k);
}
