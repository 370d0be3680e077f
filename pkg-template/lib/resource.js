// Ownership of one raw wasm-bindgen object, shared by every class that wraps
// one (ArtifactBloomFilter, Sha256, TlBloom, MergeableBloomFilter,
// MergeableDelta, ScalableBloomFilter): `free()`, `freed`,
// `[Symbol.dispose]()`, and `_raw()`, which throws once the object was freed.

import { freedError } from "./errors.js";

/**
 * The key of the raw object on an instance; undefined once freed. Internal to
 * the package (index.js does not export it). A hot path reads `this[RAW]`
 * directly instead of calling `_raw()` (ArtifactBloomFilter#mightContain).
 */
export const RAW = Symbol("artifact-bloom raw");

export class WasmResource {
  #className;

  /** `raw`: the object owned from now on; `className`: the name freed-errors use. */
  constructor(raw, className) {
    // Not enumerable: spreads, Object.assign and Object.keys never see it.
    Object.defineProperty(this, RAW, { value: raw, writable: true });
    this.#className = className;
  }

  /** Internal: the live raw object (throws after free). */
  _raw() {
    const raw = this[RAW];
    if (raw === undefined) throw freedError(this.#className);
    return raw;
  }

  /** True once `free()` ran. */
  get freed() {
    return this[RAW] === undefined;
  }

  /**
   * Releases the wasm memory now (the raw object's own `free()`, where it has
   * one); later calls throw. Safe to call twice.
   */
  free() {
    const raw = this[RAW];
    this[RAW] = undefined;
    raw?.free?.();
  }

  [Symbol.dispose]() {
    this.free();
  }
}
