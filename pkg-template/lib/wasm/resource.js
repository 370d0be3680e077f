// Ownership of one raw wasm-bindgen object, shared by every class that wraps
// one (ArtifactBloomFilter, Sha256, TlBloom, MergeableBloomFilter,
// MergeableDelta, ScalableBloomFilter): `free()`, `freed`,
// `[Symbol.dispose]()`, and `_raw()`, which throws once the object was freed.

import { freedError } from "../core/errors.js";

/**
 * The key of the raw object on an instance; undefined once freed. Internal to
 * the package (index.js does not export it). A hot path reads `this[RAW]`
 * directly instead of calling `_raw()` (ArtifactBloomFilter#mightContain).
 */
export const RAW = Symbol("artifact-bloom raw");

/**
 * Owns one raw object. `TName` is the subclass's name, which picks the raw
 * object's type (raw-types.js) so `_raw()` is typed without naming the raw
 * layer in the public declarations.
 *
 * @template {string} TName
 */
export class WasmResource {
  /** @type {TName} */
  #className;

  /**
   * `raw`: the object owned from now on; `className`: the name freed-errors use.
   *
   * @internal
   * @param {import("./raw-types.js").RawOf<TName>} raw
   * @param {TName} className
   */
  constructor(raw, className) {
    // Not enumerable: spreads, Object.assign and Object.keys never see it.
    Object.defineProperty(this, RAW, { value: raw, writable: true });
    this.#className = className;
  }

  /**
   * Internal: the live raw object (throws after free).
   *
   * @internal
   * @returns {import("./raw-types.js").RawOf<TName>}
   */
  _raw() {
    const raw = this[RAW];
    if (raw === undefined) throw freedError(this.#className);
    return raw;
  }

  /**
   * True once `free()` ran.
   *
   * @returns {boolean}
   */
  get freed() {
    return this[RAW] === undefined;
  }

  /**
   * Releases the wasm memory now (the raw object's own `free()`, where it has
   * one); later calls throw. Safe to call twice.
   *
   * @returns {void}
   */
  free() {
    const raw = this[RAW];
    // The constructor defines this slot (not enumerable); this assignment is
    // where TypeScript learns its type.
    /**
     * @internal
     * @type {import("./raw-types.js").RawOf<TName> | undefined}
     */
    this[RAW] = undefined;
    // Only some raw objects have `free` (a delta's words do not).
    /** @type {{ free?: () => void } | undefined} */ (raw)?.free?.();
  }

  /**
   * `free()`, for `using`.
   *
   * @returns {void}
   */
  [Symbol.dispose]() {
    this.free();
  }
}
