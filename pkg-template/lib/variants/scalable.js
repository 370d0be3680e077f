// The scalable Bloom filter (Almeida et al. 2007): a growing chain of filters with
// a compound false-positive bound (docs/scalable-format.md). Error policy:
// checks.js.

import { RawScalableFilter } from "../../artifact_bloom_variants.js";
import { typeError } from "../core/errors.js";
import { build, checkBytes, checkCount, checkInteger, checkRate, itemBytes, load } from "../core/checks.js";
import { toWasm } from "../wasm/variants-memory.js";
import { WasmResource } from "../wasm/resource.js";

/** @import { BloomItem, DecodeResult, ScalableBloomFilterOptions, ScalableDecodeError } from "../variant-types.js" */

// Only code inside this module may wrap a raw chain.
const internal = Symbol("artifact-bloom ScalableBloomFilter internal");
const MAXIMUM_GROWTH_FACTOR = 2 ** 32 - 1;

/**
 * A new raw chain from the constructor's options, validated in order.
 *
 * @param {unknown} options a `ScalableBloomFilterOptions`, checked here
 * @returns {RawScalableFilter}
 */
function createRaw(options) {
  if (options === null || typeof options !== "object") {
    throw typeError(
      "options",
      "an object { initialCapacity, targetFalsePositiveRate, growthFactor?, tighteningRatio? }",
      options,
    );
  }
  const {
    initialCapacity,
    targetFalsePositiveRate,
    growthFactor = 2,
    tighteningRatio = 0.5,
  } = /** @type {{ [K in keyof ScalableBloomFilterOptions]?: unknown }} */ (options);
  checkCount("initialCapacity", initialCapacity, 1, "invalidInitialCapacity");
  checkRate("targetFalsePositiveRate", targetFalsePositiveRate, "invalidFalsePositiveRate");
  checkInteger("growthFactor", growthFactor, 1, MAXIMUM_GROWTH_FACTOR, "invalidGrowthFactor");
  checkRate("tighteningRatio", tighteningRatio, "invalidTighteningRatio");
  return build(
    "initialCapacity",
    initialCapacity,
    () => new RawScalableFilter(initialCapacity, targetFalsePositiveRate, growthFactor, tighteningRatio),
  );
}

/**
 * A scalable Bloom filter (Almeida et al. 2007): a chain of
 * plain filters, stage i holding `initialCapacity · growthFactor^i` items at
 * rate `p·(1 − r)·r^i`, so the compound rate stays under p however many
 * items arrive (until the 2^30-bit / 256-stage limit). No deletes.
 *
 * @example
 * ```ts
 * using filter = new ScalableBloomFilter({ initialCapacity: 1_000, targetFalsePositiveRate: 0.01 });
 * for (const id of ids) filter.add(id);           // grows a stage when the newest is full
 * filter.stageCount;                               // e.g. 4 after 10,000 items
 * const copy = ScalableBloomFilter.decode(filter.encode());
 * ```
 *
 * @extends {WasmResource<"ScalableBloomFilter">}
 */
export class ScalableBloomFilter extends WasmResource {
  /**
   * @overload
   * @param {ScalableBloomFilterOptions} options
   * @throws {TypeError | RangeError} with `code` `invalidInitialCapacity`,
   * `invalidFalsePositiveRate`, `invalidGrowthFactor`, `invalidTighteningRatio`
   * or `filterTooLarge` (the first stage alone exceeds 2^30 bits); a plain
   * `TypeError` when `options` is not an object.
   */
  /**
   * Internal: wraps a decoded raw chain.
   *
   * @internal
   * @overload
   * @param {typeof internal} token
   * @param {RawScalableFilter} raw
   */
  /**
   * @param {ScalableBloomFilterOptions | typeof internal} options
   * @param {RawScalableFilter} [raw] only with the internal token
   */
  constructor(options, raw) {
    super(options === internal ? /** @type {RawScalableFilter} */ (raw) : createRaw(options), "ScalableBloomFilter");
  }

  /**
   * Parses an encoded chain.
   *
   * @param {Uint8Array} bytes
   * @returns {DecodeResult<ScalableBloomFilter, ScalableDecodeError>}
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes) {
    checkBytes(bytes, "an encoded ScalableBloomFilter");
    return load(() => new ScalableBloomFilter(internal, RawScalableFilter.decode(toWasm(bytes))));
  }

  /**
   * Adds an item (every call counts, duplicates included), starting a new
   * stage when the newest is full; returns this.
   *
   * @param {BloomItem} item
   * @returns {this}
   * @throws {Error} with `code` `"filterTooLarge"` (chain unchanged) when a
   * new stage would exceed 2^30 bits in total or 256 stages, or `"outOfMemory"`
   * when wasm memory has no room for the new stage.
   */
  add(item) {
    const raw = this._raw();
    raw.add(toWasm(itemBytes(item)));
    return this;
  }

  /**
   * `false`: never added. `true`: maybe.
   *
   * @param {BloomItem} item
   * @returns {boolean}
   */
  mightContain(item) {
    const raw = this._raw();
    return raw.mightContain(toWasm(itemBytes(item)));
  }

  /**
   * The wire form, SHA-256 sealed.
   *
   * @returns {Uint8Array<ArrayBuffer>}
   */
  encode() {
    return /** @type {Uint8Array<ArrayBuffer>} */ (this._raw().encode());
  }

  /**
   * Stages in the chain.
   *
   * @returns {number}
   */
  get stageCount() {
    return this._raw().stageCount();
  }

  /**
   * Add calls so far, over all stages.
   *
   * @returns {number}
   */
  get itemCount() {
    return this._raw().itemCount();
  }

  /**
   * Bits over all stages.
   *
   * @returns {number}
   */
  get bitCount() {
    return this._raw().bitCount();
  }

  /**
   * `1 − Π(1 − fill_i^k_i)` from the stages' observed fill ratios.
   *
   * @returns {number}
   */
  get estimatedFalsePositiveRate() {
    return this._raw().estimatedFpp();
  }

  /**
   * Items the first stage holds.
   *
   * @returns {number}
   */
  get initialCapacity() {
    return this._raw().params()[0];
  }

  /**
   * The compound false-positive bound p.
   *
   * @returns {number}
   */
  get targetFalsePositiveRate() {
    return this._raw().params()[1];
  }

  /**
   * Capacity multiplier between stages.
   *
   * @returns {number}
   */
  get growthFactor() {
    return this._raw().params()[2];
  }

  /**
   * Rate multiplier r between stages.
   *
   * @returns {number}
   */
  get tighteningRatio() {
    return this._raw().params()[3];
  }
}
