// The probe walk of hash protocol 1 (spec/ABF1.md, "Bits") in JavaScript,
// for single queries: `first = BE u64 of d[0..8]`, `second = BE u64 of
// d[8..16]`, `index = first mod m`, `step = (second | 1) mod m`, then k
// positions `index, index + step, …` modulo m, each tested in the bit array
// (bit i in byte i >> 3, at bit i & 7).
//
// Why the rule is written here as well as in Rust (src/probe.rs), against
// "rules in one place": speed. A query that calls into wasm pays for the
// crossing, and the call is a barrier the CPU does not look past: the next
// query's loads (its digest object, its bits) wait until the call returns.
// Answered here, from a view of the filter's bits in wasm memory, a query is
// plain JS the engine can inline into the caller's loop; it measured faster
// than the wasm call it replaces (README "Benchmark" has the numbers and
// what is left). Only the reading side is duplicated: the bits are always
// set by the Rust core, and batches are answered there.
//
// How the duplicate is kept honest: js-tests/cross-check.test.mjs compares
// every single answer with an independent BigInt model (js-tests/model/) on
// 500 random specs, and with digests crafted at the edges of the remainder
// arithmetic below (exact multiples of m and their neighbours, u64 extremes,
// after wasm memory grew); js-tests/vectors.test.mjs sends every vector
// through this path, the batch paths and a loaded snapshot.
//
// Exactness without BigInt or 64-bit integers, in two steps:
// (1) Fold: with x = a·2^48 + b·2^32 + c (a, b < 2^16, c < 2^32),
//     x ≡ f = a·(2^48 mod m) + b·(2^32 mod m) + c (mod m), and
//     f < 2^17·m + 2^32 ≤ 2^48 for m ≤ 2^30: an integer a double holds exactly.
// (2) Divide by multiplying with 1/m. Two roundings (of 1/m and of the
//     product), each of relative error ≤ 2^-53, leave the product within
//     f·2^-52/m of f/m. With r = f mod m, reaching the next integer would
//     take an error ≥ (m − r)/m ≥ 1/m, i.e. f ≥ 2^52: never. Falling below
//     the integer part takes an error > r/m, i.e. r < f·2^-52 < 2^-4: only
//     when r = 0. So `f − ⌊f·(1/m)⌋·m` (exact: integers below 2^49) is r,
//     or m when r = 0, and one compare fixes that. The constants 2^32 mod m
//     and 2^48 mod m are taken with `%` on exact doubles, which IEEE 754
//     (and ECMAScript) define exactly.

import { wasmMemory } from "../artifact_bloom.js";

/** Largest bitCount any filter has (the layout limit, 2^30 bits); the bounds above rely on it. */
const MAXIMUM_BIT_COUNT = 2 ** 30;

/**
 * `(BE u64 of d[at..at + 8] | low) mod m`, exactly (the two steps above).
 * @param {Uint8Array} d
 * @param {number} at 0 (first) or 8 (second)
 * @param {number} low 0, or 1 for `second | 1`
 * @param {number} m
 * @param {number} reciprocal 1 / m
 * @param {number} high48 2^48 mod m
 * @param {number} high32 2^32 mod m
 * @returns {number} an int32 in [0, m)
 */
function remainder(d, at, low, m, reciprocal, high48, high32) {
  const folded = ((d[at] << 8) | d[at + 1]) * high48 + ((d[at + 2] << 8) | d[at + 3]) * high32
    + (((d[at + 4] << 24) | (d[at + 5] << 16) | (d[at + 6] << 8) | d[at + 7] | low) >>> 0);
  const estimate = folded - Math.floor(folded * reciprocal) * m;
  // m exactly when the remainder is 0 (step 2 above); never negative.
  return (estimate >= m ? estimate - m : estimate) | 0;
}

/** One filter's walk parameters and a view of its bits in wasm memory. */
export class ProbeWalk {
  /** @type {Uint8Array} length 0 once wasm memory grew (the buffer under it was detached) */
  #bits;
  /** @type {number} */
  #address;
  /** @type {number} bytes of the bit array */
  #byteLength;
  /** @type {number} m */
  #bitCount;
  /** @type {number} k */
  #hashCount;
  /** @type {number} 1 / m */
  #reciprocal;
  /** @type {number} 2^32 mod m */
  #high32;
  /** @type {number} 2^48 mod m */
  #high48;

  /**
   * @param {number} address where the bit array starts in wasm memory (it never moves)
   * @param {number} bitCount m, a multiple of 64 from 64 to 2^30
   * @param {number} hashCount k, from 1 to 32
   */
  constructor(address, bitCount, hashCount) {
    if (!(Number.isInteger(bitCount) && bitCount >= 64 && bitCount <= MAXIMUM_BIT_COUNT && bitCount % 64 === 0)) {
      // The Rust core guarantees this; a violation is a bug, not bad input.
      throw new RangeError(`internal: bitCount must be a multiple of 64 from 64 to 2^30, got ${bitCount}`);
    }
    this.#address = address;
    this.#byteLength = bitCount / 8;
    this.#bitCount = bitCount;
    this.#hashCount = hashCount;
    this.#reciprocal = 1 / bitCount;
    this.#high32 = 2 ** 32 % bitCount;
    this.#high48 = 2 ** 48 % bitCount;
    this.#bits = this.#view();
  }

  /**
   * A fresh view of the bits (after wasm memory grew, the old one has length 0).
   * @returns {Uint8Array}
   */
  #view() {
    const bits = new Uint8Array(/** @type {WebAssembly.Memory} */ (wasmMemory()).buffer, this.#address, this.#byteLength);
    this.#bits = bits;
    return bits;
  }

  /**
   * The answer for a 32-byte digest (the caller checked its type and length).
   * @param {Uint8Array} d
   * @returns {boolean} false: definitely absent; true: maybe
   */
  mightContain(d) {
    let bits = this.#bits;
    // Never 0 otherwise: m ≥ 64 bits.
    if (bits.length === 0) bits = this.#view();
    const m = this.#bitCount;
    let index = remainder(d, 0, 0, m, this.#reciprocal, this.#high48, this.#high32);
    const step = remainder(d, 8, 1, m, this.#reciprocal, this.#high48, this.#high32);
    // Two probes per branch, and the wrap `index ≥ m ? index − m : index` as
    // arithmetic: V8 compiles neither into a conditional move, and a branch
    // on each wrap (taken about half the time) and on each bit is
    // mispredicted often enough to double the cost of a query (measured).
    // `(m − 1 − index) >> 31` is −1 exactly when index ≥ m (both < 2^31).
    let probe = this.#hashCount;
    for (; probe >= 2; probe -= 2) {
      const a = bits[index >> 3] >> (index & 7);
      index += step;
      index -= m & ((m - 1 - index) >> 31);
      const b = bits[index >> 3] >> (index & 7);
      index += step;
      index -= m & ((m - 1 - index) >> 31);
      if ((a & b & 1) === 0) return false;
    }
    return probe === 0 || ((bits[index >> 3] >> (index & 7)) & 1) !== 0;
  }
}
