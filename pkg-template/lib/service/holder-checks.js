// The checks SnapshotHolder (and its polling) make of callbacks callers
// pass, and the holder's shared callback types (snapshots are checked by
// ../snapshot/snapshot-checks.js).

import { checkTimers, startTimer } from "../core/deadline.js";
import { typeError } from "../core/errors.js";

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
  startTimer(checkTimers(undefined), ms, () => snapshot.filter.free());
}

/**
 * Whether two snapshots are one: the same catalogVersion and ABF1 checksum
 * (the checksum covers the header and the bits).
 *
 * @param {ArtifactIndexSnapshot} a
 * @param {ArtifactIndexSnapshot} b
 * @returns {boolean}
 */
export function sameContent(a, b) {
  const checksumA = /** @type {{ header?: { checksum?: unknown } }} */ (a).header?.checksum;
  const checksumB = /** @type {{ header?: { checksum?: unknown } }} */ (b).header?.checksum;
  return a.catalogVersion === b.catalogVersion && typeof checksumA === "string" && checksumA === checksumB;
}
