// TlBloom: the TLBF filter, byte-compatible with tl_ds::bloom::Bloom
// (FNV-1a + SplitMix64 probes). Error policy: checks.js.

import { RawTlBloom } from "../artifact_bloom_variants.js";
import { typeError } from "./errors.js";
import { build, checkBytes, checkCount, checkRate, itemBytes, load } from "./checks.js";
import { WasmResource } from "./resource.js";

// Only code inside this module may wrap a raw filter.
const internal = Symbol("artifact-bloom TlBloom internal");

/**
 * The TLBF filter. `contains` false: never inserted; true: maybe.
 * Overfilling is allowed (the rate degrades; watch `fillRatio`).
 */
export class TlBloom extends WasmResource {
  /** Not for callers: use `TlBloom.withRate` or `TlBloom.fromBytes`. */
  constructor(token, raw) {
    if (token !== internal) throw new TypeError("use TlBloom.withRate(n, p) or TlBloom.fromBytes(bytes)");
    super(raw, "TlBloom");
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

  insert(item) {
    const raw = this._raw();
    raw.insert(itemBytes(item));
    return this;
  }

  contains(item) {
    const raw = this._raw();
    return raw.contains(itemBytes(item));
  }

  /** ORs `other` into this filter (counts add); returns this. */
  union(other) {
    const raw = this._raw();
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
      raw.union(other._raw());
    }
    return this;
  }

  /** The TLBF 32-byte header and ceil(m / 8) bit bytes. */
  toBytes() {
    return this._raw().toBytes();
  }

  get m() {
    return this._raw().m();
  }

  get k() {
    return this._raw().k();
  }

  get insertedCount() {
    return this._raw().insertedCount();
  }

  get fillRatio() {
    return this._raw().fillRatio();
  }
}
