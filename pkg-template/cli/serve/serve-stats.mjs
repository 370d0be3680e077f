// Request counters of `artifact-bloom serve`, bounded whatever clients send.
//
// The server used to keep one counter per distinct digest forever: 8.4M
// distinct digests sent through POST /blobs:findMissing grew RSS by 1.4 GiB,
// made GET /stats a 203 MB answer and pinned a core in V8's dictionary code.
// Now there are totals plus the last RECENT_DIGEST_LIMIT digests asked (a
// ring), so memory and the /stats answer stay the same size after 10 digests
// or 10 million, and a batch costs at most RECENT_DIGEST_LIMIT ring writes
// however long it is.

/** How many of the most recent digests asked the window keeps. */
export const RECENT_DIGEST_LIMIT = 1024;

/**
 * @typedef {object} StatsSnapshot
 * @property {number} snapshotRequests GET/HEAD /snapshot requests
 * @property {number} existenceRequests HEAD/GET /blobs/sha256/… requests
 * @property {number} findMissingRequests POST /blobs:findMissing requests
 * @property {number} rejectedRequests requests answered 4xx other than 404 (bad digest, 405, 409, 413, 415)
 * @property {number} digestsAsked digests asked about, all requests together
 * @property {number} recentDigestLimit the size of the recent window
 * @property {Record<string, number>} recentByDigest how often each digest
 *   (lowercase hex) occurs among the last `recentDigestLimit` digests asked
 * @property {number} snapshotLoads loads of the snapshot file (1 at start, +1 per change)
 * @property {number} catalogLoads loads of the catalog file (idem)
 * @property {number} reloadFailures reloads that failed (the previous file kept serving)
 * @property {number} versionRefusals snapshots (or, with --catalog-version, lists) refused
 *   because they would lower or reuse the served catalogVersion
 * @property {{ kind: "reloadFailure" | "refusal" | "waiting", message: string } | null} pending why the files
 *   on disk are not what is served (a newer snapshot waiting for its complete catalog list, a refusal, a file
 *   that does not load), or null when they are
 * @property {{ limitBytes: number, bufferedBytes: number, peakBytes: number, refusals: number }} bodyBudget
 *   findMissing body bytes buffered, all connections together, and the 503s it caused
 * @property {ReturnType<import("./serve-deltas.mjs").DeltaHistory["stats"]>} deltas the delta history (serve-deltas.mjs)
 */

/** Totals and the last RECENT_DIGEST_LIMIT digests asked. */
export class RequestStats {
  snapshotRequests = 0;
  existenceRequests = 0;
  findMissingRequests = 0;
  rejectedRequests = 0;
  digestsAsked = 0;
  /** @type {string[]} a ring: `#next` is the oldest entry once it is full */
  #recent = [];
  #next = 0;
  #limit;

  /** @param {number} [limit] the window size (default RECENT_DIGEST_LIMIT) */
  constructor(limit = RECENT_DIGEST_LIMIT) {
    this.#limit = limit;
  }

  /**
   * Counts asked digests; only the last `limit` of them can stay in the
   * window, so only those are written.
   * @param {readonly string[]} hexes 64-hex-digit digests, lowercase
   * @returns {void}
   */
  countDigests(hexes) {
    this.digestsAsked += hexes.length;
    for (let index = Math.max(0, hexes.length - this.#limit); index < hexes.length; index += 1) {
      if (this.#recent.length < this.#limit) {
        this.#recent.push(hexes[index]);
      } else {
        this.#recent[this.#next] = hexes[index];
        this.#next = (this.#next + 1) % this.#limit;
      }
    }
  }

  /**
   * A plain copy for GET /stats and for embedders, with the reload counters.
   * @param {Pick<StatsSnapshot,
   *   "snapshotLoads" | "catalogLoads" | "reloadFailures" | "versionRefusals" | "pending" | "bodyBudget" | "deltas">} loads
   * @returns {StatsSnapshot}
   */
  snapshot(loads) {
    /** @type {Record<string, number>} */
    const recentByDigest = {};
    for (const hex of this.#recent) recentByDigest[hex] = (recentByDigest[hex] ?? 0) + 1;
    return {
      snapshotRequests: this.snapshotRequests,
      existenceRequests: this.existenceRequests,
      findMissingRequests: this.findMissingRequests,
      rejectedRequests: this.rejectedRequests,
      digestsAsked: this.digestsAsked,
      recentDigestLimit: this.#limit,
      recentByDigest,
      ...loads,
    };
  }
}
