// The publisher's own record, `layout-state.json` beside the manifest
// (docs/layout.md, "The publisher's state"): the versions published (the
// delta bases of the next publish) and when each file stopped being needed
// (what a prune may delete once the grace period has passed). Clients never
// read it. It lives in the layout, so a publisher that restarts — or runs
// on another machine against the same bucket — continues where the last
// one stopped.

import { failure, success } from "../core/results.js";

/** The state file's path in the layout. */
export const LAYOUT_STATE_PATH = "layout-state.json";
const STATE_FORMAT = "artifact-bloom-layout-state";
const STATE_FORMAT_VERSION = 1;
/** The most versions the state remembers (the manifest's delta limit). */
export const LAYOUT_STATE_MAX_HISTORY = 64;
const CHECKSUM_PATTERN = /^[0-9a-f]{64}$/;

/**
 * One published version: a possible delta base.
 * @typedef {{ readonly catalogVersion: number; readonly checksum: string; readonly size: number }} LayoutHistoryEntry
 */
/**
 * `history`: oldest first, the current version last. `retired`: layout path
 * → the time (ms since the epoch, from the publisher's clock) it was first
 * seen no longer needed.
 * @typedef {{ readonly history: readonly LayoutHistoryEntry[]; readonly retired: Readonly<Record<string, number>> }} LayoutState
 */

/** @type {LayoutState} */
export const EMPTY_LAYOUT_STATE = Object.freeze({ history: Object.freeze([]), retired: Object.freeze({}) });

/**
 * Reads the state file's bytes (none: the empty state).
 * @param {Uint8Array | undefined} bytes
 * @returns {{ kind: "success"; value: LayoutState } | { kind: "failure"; error: "invalidLayout"; message: string }}
 */
export function parseLayoutState(bytes) {
  if (bytes === undefined) return success(EMPTY_LAYOUT_STATE);
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return invalidState("expected UTF-8 JSON, got bytes that do not parse");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return invalidState("expected a JSON object");
  const record = /** @type {Record<string, unknown>} */ (value);
  if (record.format !== STATE_FORMAT || record.formatVersion !== STATE_FORMAT_VERSION) {
    return invalidState(
      `expected format "${STATE_FORMAT}" version ${STATE_FORMAT_VERSION}, got ${JSON.stringify(record.format)} `
        + `version ${JSON.stringify(record.formatVersion)}`,
    );
  }
  const { history, retired } = record;
  if (!Array.isArray(history) || history.length > LAYOUT_STATE_MAX_HISTORY || !history.every(isHistoryEntry)) {
    return invalidState(`expected history as at most ${LAYOUT_STATE_MAX_HISTORY} { catalogVersion, checksum, size } entries`);
  }
  if (typeof retired !== "object" || retired === null || Array.isArray(retired)) {
    return invalidState("expected retired as an object of path → time");
  }
  const entries = Object.entries(retired);
  if (!entries.every(([path, time]) => isLayoutFilePath(path) && Number.isSafeInteger(time))) {
    return invalidState("expected retired as snapshots/… or deltas/… paths, each with a time in ms");
  }
  return success({ history, retired: /** @type {Record<string, number>} */ (retired) });
}

/**
 * The state file's bytes.
 * @param {LayoutState} state
 * @returns {Uint8Array}
 */
export function serializeLayoutState(state) {
  const body = { format: STATE_FORMAT, formatVersion: STATE_FORMAT_VERSION, ...state };
  return new TextEncoder().encode(`${JSON.stringify(body, null, 2)}\n`);
}

/**
 * Whether `path` names a file of the layout's two immutable folders (no
 * other path is ever pruned, whatever the state file says).
 * @param {string} path
 * @returns {boolean}
 */
export function isLayoutFilePath(path) {
  return /^(snapshots|deltas)\/[^/]+$/.test(path) && !path.endsWith("/.") && !path.endsWith("/..");
}

/**
 * @param {unknown} entry
 * @returns {entry is LayoutHistoryEntry}
 */
function isHistoryEntry(entry) {
  if (typeof entry !== "object" || entry === null) return false;
  const { catalogVersion, checksum, size } = /** @type {Record<string, unknown>} */ (entry);
  return (
    Number.isSafeInteger(catalogVersion)
    && /** @type {number} */ (catalogVersion) >= 0
    && typeof checksum === "string"
    && CHECKSUM_PATTERN.test(checksum)
    && Number.isSafeInteger(size)
  );
}

/**
 * @param {string} message
 * @returns {{ kind: "failure"; error: "invalidLayout"; message: string }}
 */
function invalidState(message) {
  return failure("invalidLayout", `${LAYOUT_STATE_PATH}: ${message}`);
}
