// The checks SnapshotHolder (and its polling) make of what callers pass,
// and the holder's shared callback types.

import { rangeError, typeError } from "../core/errors.js";
import { ArtifactBloomFilter } from "../filter/filter.js";

/** @import { ArtifactIndexSnapshot, SnapshotLoaderResult } from "../types.js" */

/**
 * A listener `onReplace` registered.
 *
 * @typedef {(next: ArtifactIndexSnapshot, previous: ArtifactIndexSnapshot) => void} ReplaceListener
 */

/**
 * A loader `refreshFrom` runs.
 *
 * @typedef {(current: ArtifactIndexSnapshot) => SnapshotLoaderResult | Promise<SnapshotLoaderResult>} SnapshotLoader
 */

/**
 * A timer handle; Node's has `unref()` (a browser's is a number).
 *
 * @typedef {{ unref?: () => void } | undefined} NodeTimer
 */

/**
 * Internal: throws unless `snapshot` is `{ catalogVersion, filter }` with a
 * safe-integer catalogVersion ≥ 0 and a live (not freed) ArtifactBloomFilter.
 *
 * @param {unknown} snapshot
 * @param {string} [parameter] the argument's name, for the error
 * @returns {asserts snapshot is ArtifactIndexSnapshot}
 */
export function validateSnapshot(snapshot, parameter = "snapshot") {
  if (snapshot === null || typeof snapshot !== "object") {
    throw typeError(parameter, "an object { catalogVersion, filter }", snapshot);
  }
  const version = /** @type {{ catalogVersion?: unknown }} */ (snapshot).catalogVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0) {
    throw rangeError(`${parameter}.catalogVersion`, "an integer from 0 to 2^53 - 1", version);
  }
  const filter = /** @type {{ filter?: unknown }} */ (snapshot).filter;
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError(`${parameter}.filter`, "an ArtifactBloomFilter", filter);
  }
  if (filter.freed) throw rangeError(`${parameter}.filter`, "an ArtifactBloomFilter that is not freed", filter);
}

/**
 * @param {unknown} error
 * @returns {string}
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `value` when it is undefined or a function; else a TypeError naming `parameter`.
 *
 * @template {Function | undefined} T
 * @param {string} parameter
 * @param {T} value
 * @returns {T}
 */
export function optionalFunction(parameter, value) {
  if (value !== undefined && typeof value !== "function") throw typeError(parameter, "a function", value);
  return value;
}

/**
 * Frees `snapshot`'s filter `ms` from now, on an unref()ed timer (freeing
 * must never keep a process alive).
 *
 * @param {ArtifactIndexSnapshot} snapshot
 * @param {number} ms
 * @returns {void}
 */
export function freeLater(snapshot, ms) {
  const timer = setTimeout(() => snapshot.filter.free(), ms);
  /** @type {NodeTimer} */ (/** @type {unknown} */ (timer))?.unref?.();
}
