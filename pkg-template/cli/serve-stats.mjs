// Request counters of `artifact-bloom serve`, bounded whatever clients send.
//
// The server used to keep one counter per distinct digest forever: 8.4M
// distinct digests sent through POST /blobs:findMissing grew RSS by 1.4 GiB,
// made GET /stats a 203 MB answer and pinned a core in V8's dictionary code.
// Now there are totals plus a window of the most recently asked digests, of a
// fixed size, so memory and the /stats answer stay the same size after 10
// digests or 10 million.

/** How many distinct digests the recent window keeps (least recently asked go first). */
export const RECENT_DIGEST_LIMIT = 1024;

/**
 * @typedef {object} StatsSnapshot
 * @property {number} snapshotRequests GET/HEAD /snapshot requests
 * @property {number} existenceRequests HEAD/GET /blobs/sha256/… requests
 * @property {number} findMissingRequests POST /blobs:findMissing requests
 * @property {number} rejectedRequests requests refused with 4xx before an answer (bad digest, 409, 413, 415)
 * @property {number} digestsAsked digests asked about, all requests together
 * @property {number} recentDigestLimit the size of the recent window
 * @property {Record<string, number>} recentByDigest for each of the last
 *   `recentDigestLimit` distinct digests asked (lowercase hex): how often it was
 *   asked since it last entered the window
 * @property {number} snapshotLoads loads of the snapshot file (1 at start, +1 per change)
 * @property {number} catalogLoads loads of the catalog file (idem)
 * @property {number} reloadFailures reloads that failed (the previous file kept serving)
 */

/** Totals and a fixed-size window of recently asked digests. */
export class RequestStats {
  snapshotRequests = 0;
  existenceRequests = 0;
  findMissingRequests = 0;
  rejectedRequests = 0;
  digestsAsked = 0;
  /** @type {Map<string, number>} insertion order = least recently asked first */
  #recent = new Map();
  #limit;

  /** @param {number} [limit] the window size (default RECENT_DIGEST_LIMIT) */
  constructor(limit = RECENT_DIGEST_LIMIT) {
    this.#limit = limit;
  }

  /**
   * Counts one asked digest: the total, and its entry in the recent window
   * (moved to the newest end; the oldest entry leaves when the window is full).
   * @param {string} hex a 64-hex-digit digest, lowercase
   * @returns {void}
   */
  countDigest(hex) {
    this.digestsAsked += 1;
    const count = this.#recent.get(hex);
    if (count !== undefined) this.#recent.delete(hex);
    this.#recent.set(hex, (count ?? 0) + 1);
    if (this.#recent.size > this.#limit) this.#recent.delete(this.#recent.keys().next().value);
  }

  /**
   * A plain copy for GET /stats and for embedders, with the reload counters.
   * @param {{ snapshotLoads: number, catalogLoads: number, reloadFailures: number }} loads
   * @returns {StatsSnapshot}
   */
  snapshot(loads) {
    return {
      snapshotRequests: this.snapshotRequests,
      existenceRequests: this.existenceRequests,
      findMissingRequests: this.findMissingRequests,
      rejectedRequests: this.rejectedRequests,
      digestsAsked: this.digestsAsked,
      recentDigestLimit: this.#limit,
      recentByDigest: Object.fromEntries(this.#recent),
      ...loads,
    };
  }
}
