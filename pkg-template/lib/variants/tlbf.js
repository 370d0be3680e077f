// TlBloom: the TLBF filter, byte-compatible with tl_ds::bloom::Bloom
// (FNV-1a + SplitMix64 probes). Error policy: checks.js.

import { RawTlBloom } from "../../artifact_bloom_variants.js";
import { typeError } from "../core/errors.js";
import { build, checkBytes, checkCount, checkRate, itemBytes, load } from "../core/checks.js";
import { toWasm } from "../wasm/variants-memory.js";
import { WasmResource } from "../wasm/resource.js";

/** @import { BloomItem, DecodeResult, TlbfDecodeError } from "../variant-types.js" */

// Only code inside this module may wrap a raw filter.
const internal = Symbol("artifact-bloom TlBloom internal");

/**
 * The TLBF filter, byte-compatible with `tl_ds::bloom::Bloom` and
 * the Python dedup implementation (FNV-1a 64 + SplitMix64 double hashing).
 * `contains` false: never inserted; true: probably inserted. Inserting more
 * than the designed n is allowed — the rate degrades; watch `fillRatio`.
 *
 * @example
 * ```ts
 * using filter = TlBloom.withRate(4, 0.1);      // m = 20, k = 3
 * filter.insert("cat").insert("dog");
 * filter.contains("bird");                       // false
 * const bytes = filter.toBytes();                // 35 bytes
 * const loaded = TlBloom.fromBytes(bytes);
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * loaded.value.contains("cat");                  // true
 * ```
 *
 * @extends {WasmResource<"TlBloom">}
 */
export class TlBloom extends WasmResource {
  /**
   * Not for callers: use `TlBloom.withRate` or `TlBloom.fromBytes`.
   *
   * @private
   * @param {symbol} token
   * @param {RawTlBloom} raw
   */
  constructor(token, raw) {
    if (token !== internal) throw new TypeError("use TlBloom.withRate(n, p) or TlBloom.fromBytes(bytes)");
    super(raw, "TlBloom");
  }

  /**
   * Sized for `n` items at rate `p`: `m = ceil(−n·ln p / ln² 2)`,
   * `k = max(1, round(m/n · ln 2))`.
   *
   * @param {number} n
   * @param {number} p
   * @returns {TlBloom}
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`
   * (n not an integer ≥ 1), `invalidFalsePositiveRate` (p not in (0, 1)) or
   * `filterTooLarge` (m above 2^30).
   */
  static withRate(n, p) {
    checkCount("n", n, 1, "invalidExpectedItemCount");
    checkRate("p", p, "invalidFalsePositiveRate");
    return new TlBloom(
      internal,
      build("n", n, () => RawTlBloom.withRate(n, p)),
    );
  }

  /**
   * Parses TLBF bytes. Beyond what the format itself rejects (a short header,
   * another magic or version, m or k of 0, a non-zero reserved field, a length
   * other than 32 + ceil(m / 8)) it also refuses m above 2^30, k above 4096
   * and set padding bits, so every accepted input round-trips through
   * `toBytes` byte for byte.
   *
   * @param {Uint8Array} bytes
   * @returns {DecodeResult<TlBloom, TlbfDecodeError>}
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static fromBytes(bytes) {
    checkBytes(bytes, "a TLBF filter");
    return load(() => new TlBloom(internal, RawTlBloom.fromBytes(toWasm(bytes))));
  }

  /**
   * Sets the item's k bits and counts the call; returns this.
   *
   * @param {BloomItem} item
   * @returns {this}
   */
  insert(item) {
    const raw = this._raw();
    raw.insert(toWasm(itemBytes(item)));
    return this;
  }

  /**
   * `false`: never inserted. `true`: maybe.
   *
   * @param {BloomItem} item
   * @returns {boolean}
   */
  contains(item) {
    const raw = this._raw();
    return raw.contains(toWasm(itemBytes(item)));
  }

  /**
   * ORs `other` into this filter; the inserted counts add. Returns this.
   *
   * @param {TlBloom} other
   * @returns {this}
   * @throws {Error} with `code` `"incompatibleFilters"` when m or k differ.
   * @throws {TypeError} when `other` is not a `TlBloom`.
   */
  union(other) {
    const raw = this._raw();
    if (!(other instanceof TlBloom)) throw typeError("other", "a TlBloom", other);
    if (other === this) {
      // The raw layer cannot borrow one object twice: union with a copy.
      const copy = RawTlBloom.fromBytes(toWasm(raw.toBytes()));
      try {
        raw.union(copy);
      } finally {
        copy.free();
      }
    } else {
      raw.union(other._raw());
    }
    return this;
  }

  /**
   * The TLBF layout: a 32-byte header, then `ceil(m / 8)` bit bytes.
   *
   * @returns {Uint8Array<ArrayBuffer>}
   */
  toBytes() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (this._raw().toBytes());
  }

  /**
   * Bits.
   *
   * @returns {number}
   */
  get m() {
    return this._raw().m();
  }

  /**
   * Probes per item.
   *
   * @returns {number}
   */
  get k() {
    return this._raw().k();
  }

  /**
   * Insert calls so far (union adds); a loaded count above 2^53 is rounded.
   *
   * @returns {number}
   */
  get insertedCount() {
    return this._raw().insertedCount();
  }

  /**
   * Set bits / m. The implied rate is `fppFromFillRatio(fillRatio, k)`.
   *
   * @returns {number}
   */
  get fillRatio() {
    return this._raw().fillRatio();
  }
}
