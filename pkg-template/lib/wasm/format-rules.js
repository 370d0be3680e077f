// Format constants the JavaScript layer checks before it crosses into wasm,
// asked of the main module (src/wasm/format.rs), so each rule has one home,
// in Rust, and JS never restates a number. The build asks them once
// (scripts/wasm-glue.mjs) and writes the numbers into the package's copy of
// this file: reading them at import compiles no wasm (the module is
// instantiated on first use). Each must stay `export const NAME = rule();`.

import {
  abf1HeaderLength,
  digestLength,
  keyedHashProtocolVersion,
  maximumCatalogVersion,
  maximumExpectedItemCount,
  maximumSnapshotBytes,
} from "../../artifact_bloom.js";
import { integerRange, withCode } from "../core/checks.js";
import { rangeError } from "../core/errors.js";

/** Size of the fixed ABF1 header in bytes (96), as the Rust format code defines it. */
export const ABF1_HEADER_LENGTH = abf1HeaderLength();
/** Bytes in one SHA-256 digest. */
export const DIGEST_LENGTH = digestLength();
/** The largest `expectedItemCount` a filter or snapshot may state. */
export const MAXIMUM_EXPECTED_ITEM_COUNT = maximumExpectedItemCount();
/** The largest ABF1 file in bytes: the header and 2^30 bits (96 + 2^27). */
export const MAXIMUM_SNAPSHOT_BYTES = maximumSnapshotBytes();
/** The hashProtocolVersion of a keyed snapshot (protocol 1 is the unkeyed one). */
export const KEYED_HASH_PROTOCOL_VERSION = keyedHashProtocolVersion();
/** The largest catalogVersion a snapshot may carry (2^53 − 1). */
export const MAXIMUM_CATALOG_VERSION = maximumCatalogVersion();

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
