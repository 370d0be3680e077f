// One catalogVersion names one catalog. When a server hands a client a
// snapshot with the catalogVersion the client already holds but another ABF1
// checksum, someone republished that version with other digests. The client
// must not read that as "nothing new" (notModified / stale): the server now
// answers "maybe" at that version from the other catalog, so the old filter's
// "definitely absent" can be wrong for artifacts the server has. Both
// fetchSnapshot (with a base) and SnapshotHolder detect it here.

import { failure, success } from "../core/results.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotHeader } from "../types.js"
 * @import { SnapshotTransfer } from "../delta-types.js"
 */

/**
 * The sentence describing a conflict between the snapshot `held` and the
 * `loaded` one, or undefined when there is none: another catalogVersion, the
 * same checksum, or a snapshot without a header checksum (a hand-built
 * `{ catalogVersion, filter }` cannot be compared; it is treated as before).
 *
 * @param {ArtifactIndexSnapshot} held
 * @param {ArtifactIndexSnapshot} loaded
 * @param {string | URL | undefined} source where `loaded` came from, for the message
 * @returns {string | undefined}
 */
export function versionConflictMessage(held, loaded, source) {
  const heldChecksum = held.header?.checksum;
  const loadedChecksum = loaded.header?.checksum;
  if (
    held.catalogVersion !== loaded.catalogVersion
    || typeof heldChecksum !== "string"
    || typeof loadedChecksum !== "string"
    || heldChecksum === loadedChecksum
  )
    return undefined;
  return (
    `catalogVersion ${loaded.catalogVersion} names two different snapshots: the one held has checksum `
    + `${heldChecksum}, ${source === undefined ? "the loaded one" : `the one from ${source}`} ${loadedChecksum}. `
    + "A catalogVersion must name one catalog: republish the current catalog under a greater catalogVersion"
  );
}

/**
 * fetchSnapshot's failure for a conflict with its `base`: the server's
 * snapshot comes along as `snapshot` (loaded and checksum-verified), since
 * it is what the server checks "maybe" against at that version; the caller
 * adopts it (SnapshotHolder does) or frees it.
 *
 * @param {string} message
 * @param {ArtifactIndexSnapshot & { header: SnapshotHeader }} snapshot
 * @param {SnapshotTransfer} transfer
 * @returns {{ kind: "failure"; error: "versionConflict"; message: string;
 *   snapshot: ArtifactIndexSnapshot & { header: SnapshotHeader }; transfer: SnapshotTransfer }}
 */
export function versionConflictFailure(message, snapshot, transfer) {
  return failure("versionConflict", message, { snapshot, transfer });
}

/**
 * A loader result for the holder: fetchSnapshot's `versionConflict` failure,
 * which carries the server's snapshot, reads as that snapshot loaded (the
 * holder then compares it with what it holds now, which a concurrent swap
 * may have changed); any other result is returned as it is.
 *
 * @template {{ kind: string }} R
 * @param {R} result
 * @returns {R | { kind: "success"; value: ArtifactIndexSnapshot; transfer?: SnapshotTransfer }}
 */
export function conflictAsLoaded(result) {
  const { error, snapshot, transfer } =
    /** @type {{ error?: unknown; snapshot?: ArtifactIndexSnapshot; transfer?: SnapshotTransfer }} */ (result);
  if (result.kind !== "failure" || error !== "versionConflict" || snapshot === undefined) return result;
  return success(snapshot, { transfer });
}
