// Leases on the snapshots a SnapshotHolder served: the release of a replaced
// snapshot without a grace period. A reader that needs one snapshot across
// awaits takes a lease (`holder.use(fn)`, `holder.lease()`); with polling's
// `freeReplaced: true`, a snapshot polling loaded is freed when it is both
// replaced and unleased — at once if no lease holds it, else when the last
// lease ends — so a long batch never meets "this ArtifactBloomFilter was
// freed", and a short one never keeps memory for a fixed grace period.

/**
 * @import { ArtifactIndexSnapshot } from "../types.js"
 */

/** Lease counts per snapshot, and the replaced snapshots waiting for theirs to end. */
export class SnapshotLeases {
  /** @type {Map<ArtifactIndexSnapshot, number>} */
  #counts = new Map();
  /** @type {Set<ArtifactIndexSnapshot>} */
  #retired = new Set();

  /**
   * Counts one lease on `snapshot` → its release (idempotent: a second call does nothing).
   *
   * @param {ArtifactIndexSnapshot} snapshot
   * @returns {() => void}
   */
  acquire(snapshot) {
    this.#counts.set(snapshot, (this.#counts.get(snapshot) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#counts.get(snapshot) ?? 1) - 1;
      if (left > 0) {
        this.#counts.set(snapshot, left);
        return;
      }
      this.#counts.delete(snapshot);
      if (this.#retired.delete(snapshot)) freeOnce(snapshot);
    };
  }

  /**
   * `snapshot` is out of service and the holder owns it: free it now, or when its last lease ends.
   *
   * @param {ArtifactIndexSnapshot} snapshot
   * @returns {void}
   */
  retire(snapshot) {
    if (this.#counts.has(snapshot)) this.#retired.add(snapshot);
    else freeOnce(snapshot);
  }

  /** Leases open now, over all snapshots. */
  get open() {
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    return total;
  }

  /** Replaced snapshots waiting for their leases to end. */
  get waiting() {
    return this.#retired.size;
  }
}

/**
 * Frees the snapshot's filter unless its owner already did.
 *
 * @param {ArtifactIndexSnapshot} snapshot
 * @returns {void}
 */
function freeOnce(snapshot) {
  const filter = /** @type {{ freed?: boolean; free(): void }} */ (snapshot.filter);
  if (filter.freed !== true) filter.free();
}
