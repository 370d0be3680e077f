// The scalable Bloom filter (Almeida et al. 2007): a growing chain of filters with
// a compound false-positive bound (docs/scalable-format.md). Error policy:
// checks.js.

import { RawScalableFilter } from "../artifact_bloom_variants.js";
import { typeError } from "./errors.js";
import { build, checkBytes, checkCount, checkInteger, checkRate, itemBytes, load } from "./checks.js";
import { WasmResource } from "./resource.js";

// Only code inside this module may wrap a raw chain.
const internal = Symbol("artifact-bloom ScalableBloomFilter internal");
const MAXIMUM_GROWTH_FACTOR = 2 ** 32 - 1;

/** A new raw chain from the constructor's options, validated in order. */
function createRaw(options) {
  if (options === null || typeof options !== "object") {
    throw typeError("options", "an object { initialCapacity, targetFalsePositiveRate, growthFactor?, tighteningRatio? }", options);
  }
  const { initialCapacity, targetFalsePositiveRate, growthFactor = 2, tighteningRatio = 0.5 } = options;
  checkCount("initialCapacity", initialCapacity, 1, "invalidInitialCapacity");
  checkRate("targetFalsePositiveRate", targetFalsePositiveRate, "invalidFalsePositiveRate");
  checkInteger("growthFactor", growthFactor, 1, MAXIMUM_GROWTH_FACTOR, "invalidGrowthFactor");
  checkRate("tighteningRatio", tighteningRatio, "invalidTighteningRatio");
  return build("initialCapacity", initialCapacity, () =>
    new RawScalableFilter(initialCapacity, targetFalsePositiveRate, growthFactor, tighteningRatio));
}

/** The scalable Bloom filter: grows by stages, compound rate ≤ target. */
export class ScalableBloomFilter extends WasmResource {
  constructor(options, raw) {
    super(options === internal ? raw : createRaw(options), "ScalableBloomFilter");
  }

  /** Parses an encoded chain (result-shaped). */
  static decode(bytes) {
    checkBytes(bytes, "an encoded ScalableBloomFilter");
    return load(() => new ScalableBloomFilter(internal, RawScalableFilter.decode(bytes)));
  }

  /**
   * Adds an item, starting a new stage when the newest is full; returns this.
   * Throws an Error with code "filterTooLarge" (chain unchanged) when the
   * chain would exceed 2^30 bits or 256 stages.
   */
  add(item) {
    const raw = this._raw();
    raw.add(itemBytes(item));
    return this;
  }

  mightContain(item) {
    const raw = this._raw();
    return raw.mightContain(itemBytes(item));
  }

  encode() {
    return this._raw().encode();
  }

  get stageCount() {
    return this._raw().stageCount();
  }

  get itemCount() {
    return this._raw().itemCount();
  }

  get bitCount() {
    return this._raw().bitCount();
  }

  /** `1 − Π(1 − fill_i^k_i)` over the stages' observed fill. */
  get estimatedFalsePositiveRate() {
    return this._raw().estimatedFpp();
  }

  get initialCapacity() {
    return this._raw().params()[0];
  }

  get targetFalsePositiveRate() {
    return this._raw().params()[1];
  }

  get growthFactor() {
    return this._raw().params()[2];
  }

  get tighteningRatio() {
    return this._raw().params()[3];
  }
}
