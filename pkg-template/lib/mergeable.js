// The mergeable (CRDT) Bloom filter and its deltas: Murmur3 probes,
// join = bitwise OR, sparse deltas (docs/mergeable-format.md). Error policy:
// checks.js.

import { RawMergeableFilter, decodeMergeableDelta, encodeMergeableDelta, wasmMemory } from "../artifact_bloom_variants.js";
import { typeError } from "./errors.js";
import { build, checkBytes, checkCount, checkRate, itemBytes, load } from "./checks.js";
import { WasmResource } from "./resource.js";

// Only code inside this module may wrap a raw filter or make a delta.
const internal = Symbol("artifact-bloom mergeable internal");

let words32 = null;

/** A Uint32Array over all of wasm memory; re-made after memory grew (the old view detaches). */
function wasmWords() {
  if (words32 === null || words32.byteLength === 0) words32 = new Uint32Array(wasmMemory().buffer);
  return words32;
}

/**
 * The words one `add` changed. Held in JavaScript (no wasm memory), so
 * ignoring deltas costs nothing; `free()` only marks it unusable. Its raw
 * object (`_raw()`) is `[bitCount, hashCount, (wordIndex, low 32 bits,
 * high 32 bits)…]`, an array of u32 numbers.
 */
export class MergeableDelta extends WasmResource {
  /** Not for callers: deltas come from `add` or `MergeableDelta.decode`. */
  constructor(token, words) {
    if (token !== internal) throw new TypeError("a MergeableDelta comes from MergeableBloomFilter.add or MergeableDelta.decode");
    super(words, "MergeableDelta");
  }

  /** Parses a delta's wire form (result-shaped). */
  static decode(bytes) {
    checkBytes(bytes, "an encoded MergeableDelta");
    return load(() => new MergeableDelta(internal, decodeMergeableDelta(bytes)));
  }

  get bitCount() {
    return this._raw()[0];
  }

  get hashCount() {
    return this._raw()[1];
  }

  /** `{ wordIndex, wordValue }` pairs, wordIndex strictly increasing, wordValue a non-zero u64. */
  get entries() {
    const words = this._raw();
    const entries = [];
    for (let at = 2; at < words.length; at += 3) {
      const wordValue = (BigInt(words[at + 2]) << 32n) | BigInt(words[at + 1]);
      entries.push(Object.freeze({ wordIndex: words[at], wordValue }));
    }
    return Object.freeze(entries);
  }

  /** The wire form (kind 3, SHA-256 sealed). */
  encode() {
    return encodeMergeableDelta(this._raw());
  }
}

/** The mergeable (CRDT) Bloom filter: union-only, join = bitwise OR. */
export class MergeableBloomFilter extends WasmResource {
  /** Not for callers: use `MergeableBloomFilter.create` or `.decode`. */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError("use MergeableBloomFilter.create(expectedElements, falsePositiveRate) or MergeableBloomFilter.decode(bytes)");
    }
    super(raw, "MergeableBloomFilter");
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

  /** Sets the item's bits; returns the delta of the words that changed. */
  add(item) {
    const raw = this._raw();
    const length = raw.add(itemBytes(item));
    // Copied at once into a plain array: the next call reuses the buffer.
    const memory = wasmWords();
    const at = raw.deltaWordsPtr() >>> 2;
    const words = new Array(length);
    for (let i = 0; i < length; i += 1) words[i] = memory[at + i];
    return new MergeableDelta(internal, words);
  }

  mightContain(item) {
    const raw = this._raw();
    return raw.mightContain(itemBytes(item));
  }

  /** Joins a delta or another replica's state (bitwise OR) in place; returns this. */
  piece(deltaOrFilter) {
    const raw = this._raw();
    if (deltaOrFilter instanceof MergeableDelta) {
      raw.pieceDelta(deltaOrFilter._raw());
    } else if (deltaOrFilter instanceof MergeableBloomFilter) {
      // x OR x = x: piecing a filter into itself changes nothing.
      if (deltaOrFilter !== this) raw.pieceFilter(deltaOrFilter._raw());
    } else {
      throw typeError("deltaOrFilter", "a MergeableDelta or a MergeableBloomFilter", deltaOrFilter);
    }
    return this;
  }

  /** The wire form: sparse when strictly smaller than dense. */
  encode() {
    return this._raw().encode();
  }

  get wordCount() {
    return this._raw().wordCount();
  }

  get nonZeroWordCount() {
    return this._raw().nonZeroWordCount();
  }

  get bitCount() {
    return this._raw().bitCount();
  }

  get hashCount() {
    return this._raw().hashCount();
  }

  get fillRatio() {
    return this._raw().fillRatio();
  }
}
