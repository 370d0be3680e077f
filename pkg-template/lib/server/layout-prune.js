// Which files of a layout are still needed, and which may go. A file is
// needed while the manifest names it (clients fetch it) or while it is the
// snapshot of a version the next publish encodes a delta from. Any other
// file under snapshots/ or deltas/ (named by an earlier manifest, or left by
// a publish that stopped before its manifest) is retired: the state records
// when it was first found so, and it is deleted once `pruneAfterMs` has
// passed since, so a client that read an earlier manifest just before can
// still fetch what that one named.

import { layoutSnapshotPath } from "../layout/manifest.js";
import { isLayoutFilePath } from "./layout-state.js";

/**
 * @import { LayoutManifest } from "../layout/manifest.js"
 * @import { LayoutHistoryEntry } from "./layout-state.js"
 */

/** The manifest's path in the layout. */
export const LAYOUT_MANIFEST_PATH = "manifest.json";

/**
 * The layout paths still needed: what the manifest names (relative URLs
 * only: an absolute one names another host) and the history's snapshots.
 * @param {LayoutManifest} manifest
 * @param {readonly LayoutHistoryEntry[]} history
 * @returns {Set<string>}
 */
export function liveLayoutFiles(manifest, history) {
  const live = new Set([manifest.snapshot.url, ...manifest.deltas.map((delta) => delta.url)]);
  for (const entry of history) live.add(layoutSnapshotPath(entry.checksum));
  return live;
}

/**
 * The new `retired` record and the paths to delete now.
 * @param {readonly string[]} present the files under snapshots/ and deltas/
 * @param {ReadonlySet<string>} live
 * @param {Readonly<Record<string, number>>} retired path → when it was first found unneeded
 * @param {number} now
 * @param {number} pruneAfterMs
 * @returns {{ retired: Record<string, number>; prune: string[] }}
 */
export function retireAndPrune(present, live, retired, now, pruneAfterMs) {
  /** @type {Record<string, number>} */
  const stillRetired = {};
  /** @type {string[]} */
  const prune = [];
  for (const path of present) {
    if (live.has(path) || !isLayoutFilePath(path)) continue;
    const since = Object.hasOwn(retired, path) ? retired[path] : now;
    if (now - since >= pruneAfterMs) prune.push(path);
    else stillRetired[path] = since;
  }
  return { retired: stillRetired, prune };
}
