// Keyed snapshots (ABF1 hashProtocolVersion 2, docs/ABF1.md "Keyed
// snapshots"): the `key` option's checks and load step 9. The key is a
// secret: it is copied into wasm (where only HMAC states derived from it
// live), never stored on a JS object a caller can see, and never described
// in an error — messages name its length, never its bytes.

import { RawSnapshotKey, unlockFilter, unlockFilterLike } from "../../artifact_bloom.js";
import { failureOf, isUint8Array, rangeError, typeError } from "../core/errors.js";

/** @import { RawFilter } from "../../artifact_bloom.js" */

/** Shortest key: 128 bits (src/keyed.rs MINIMUM_KEY_LENGTH). */
export const MINIMUM_KEY_LENGTH = 16;
/** Longest key (src/keyed.rs MAXIMUM_KEY_LENGTH). */
export const MAXIMUM_KEY_LENGTH = 1024;

/**
 * `key` must be undefined or a Uint8Array of 16 to 1024 bytes (a TypeError
 * or RangeError naming its type or length, never its content).
 *
 * @param {unknown} key
 * @param {string} [name] the option's name in the message
 * @returns {asserts key is Uint8Array | undefined}
 */
export function checkKey(key, name = "key") {
  if (key === undefined) return;
  const expected = `a Uint8Array of ${MINIMUM_KEY_LENGTH} to ${MAXIMUM_KEY_LENGTH} secret bytes (32 random bytes recommended)`;
  if (!isUint8Array(key)) throw typeError(name, expected, key);
  const length = /** @type {Uint8Array} */ (key).byteLength;
  if (length < MINIMUM_KEY_LENGTH || length > MAXIMUM_KEY_LENGTH) throw rangeError(name, expected, key);
}

/**
 * A wasm key for `key` (the caller frees it, or hands it to a call that
 * takes it over).
 *
 * @internal
 * @param {Uint8Array} key a key checkKey accepted
 * @returns {RawSnapshotKey}
 */
export function rawKeyOf(key) {
  return new RawSnapshotKey(key);
}

/**
 * Load step 9 on a decoded raw filter: `key` against the file's hash
 * protocol. Undefined when the filter may be used (a keyed one now answers);
 * else the failure `keyRequired`, `wrongKey` or `notKeyed`, the raw filter
 * freed. `key` may be the filter of a snapshot whose key to use (a delta's
 * base).
 *
 * @internal
 * @param {RawFilter} filter
 * @param {Uint8Array | { keyOf: RawFilter } | undefined} key
 * @returns {{ kind: "failure"; error: "keyRequired" | "wrongKey" | "notKeyed"; message: string } | undefined}
 */
export function unlockRaw(filter, key) {
  try {
    if (key !== undefined && "keyOf" in key) unlockFilterLike(filter, key.keyOf);
    // The wasm key is moved into the call (wasm-bindgen frees it there).
    else unlockFilter(filter, key === undefined ? undefined : rawKeyOf(key));
    return undefined;
  } catch (error) {
    const coded = failureOf(error);
    if (coded === undefined) throw error;
    filter.free();
    return /** @type {{ kind: "failure"; error: "keyRequired" | "wrongKey" | "notKeyed"; message: string }} */ (coded);
  }
}

/**
 * Throws unless `filter` answers under `key`: keyed with that very key, or
 * unkeyed when `key` is undefined — the coded Error of load step 9
 * (`keyRequired`, `wrongKey`, `notKeyed`). For holders and services given a
 * key with snapshots loaded elsewhere; the filter is left as it was.
 *
 * @internal
 * @param {string} parameter what the snapshot is, in the message
 * @param {import("../filter/filter.js").ArtifactBloomFilter} filter
 * @param {Uint8Array} key a key checkKey accepted
 * @returns {void}
 */
export function assertKeyOf(parameter, filter, key) {
  try {
    unlockFilter(filter._raw(), rawKeyOf(key));
  } catch (error) {
    const coded = /** @type {Error} */ (error);
    if (failureOf(error) !== undefined) coded.message = `${parameter}: ${coded.message}`;
    throw error;
  }
}
