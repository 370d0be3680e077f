// Format constants the JavaScript layer checks before it crosses into wasm,
// asked of the main module once at import (src/wasm/format.rs), so each
// rule has one home, in Rust, and JS never restates a number.

import { digestLength, maximumCatalogVersion, maximumExpectedItemCount } from "../../artifact_bloom.js";
import { integerRange, withCode } from "../core/checks.js";
import { rangeError } from "../core/errors.js";

/** Bytes in one SHA-256 digest. */
export const DIGEST_LENGTH = digestLength();
/** The largest `expectedItemCount` a filter or snapshot may state. */
export const MAXIMUM_EXPECTED_ITEM_COUNT = maximumExpectedItemCount();
/** The largest catalogVersion a snapshot may carry (2^53 − 1). */
const MAXIMUM_CATALOG_VERSION = maximumCatalogVersion();

/**
 * The one catalogVersion rule: an integer from 0 to MAXIMUM_CATALOG_VERSION,
 * else a RangeError with code "invalidCatalogVersion" (the code wasm gives
 * the same rule) naming `parameter`.
 *
 * @param {string} parameter
 * @param {unknown} value
 * @returns {asserts value is number}
 */
export function checkCatalogVersion(parameter, value) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > MAXIMUM_CATALOG_VERSION) {
    throw withCode(rangeError(parameter, integerRange(0, MAXIMUM_CATALOG_VERSION), value), "invalidCatalogVersion");
  }
}
