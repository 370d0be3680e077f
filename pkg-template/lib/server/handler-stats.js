// The request handler's counters (createRequestHandler's `stats` option and
// `handler.stats()`), bounded whatever clients send: totals plus the last
// RECENT_DIGEST_LIMIT digests asked, as a ring. (`artifact-bloom serve` once
// kept one counter per distinct digest forever: 8.4M distinct digests grew
// RSS by 1.4 GiB and made its /stats a 203 MB answer.) Memory and the
// answer stay the same size after 10 digests or 10 million, and a batch
// costs at most RECENT_DIGEST_LIMIT ring writes however long it is.

/** How many of the most recent digests asked the window keeps. */
export const RECENT_DIGEST_LIMIT = 1024;

/**
 * The counters: requests by route, refusals, digests asked (the last
 * `recentDigestLimit` of them by digest), the snapshot route's deltas and,
 * with `bodyBudgetBytes`, the findMissing body budget.
 *
 * @typedef {{
 *   snapshotRequests: number;
 *   existenceRequests: number;
 *   findMissingRequests: number;
 *   rejectedRequests: number;
 *   digestsAsked: number;
 *   recentDigestLimit: number;
 *   recentByDigest: Record<string, number>;
 *   deltas: { deltaResponses: number; deltaBytes: number; fullFallbacks: number };
 *   bodyBudget?: { limitBytes: number; bufferedBytes: number; peakBytes: number; refusals: number };
 * }} HandlerStatsSnapshot
 */

/** The findMissing body bytes buffered by all requests together, bounded by `limit`. */
export class BodyBudget {
  /** Bytes reserved now, and the most ever reserved at once. */
  used = 0;
  peak = 0;
  /** Requests answered 503 because the budget was spent. */
  refusals = 0;

  /** @param {number} limit bytes */
  constructor(limit) {
    this.limit = limit;
  }

  /**
   * Reserves `bytes` if they fit; false (nothing reserved) if not.
   * @param {number} bytes
   * @returns {boolean}
   */
  reserve(bytes) {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    this.peak = Math.max(this.peak, this.used);
    return true;
  }

  /**
   * @param {number} bytes
   * @returns {void}
   */
  release(bytes) {
    this.used -= bytes;
  }
}

export class HandlerStats {
  snapshotRequests = 0;
  existenceRequests = 0;
  findMissingRequests = 0;
  /** Answers 4xx other than 404 (bad digest, 405, 409, 413, 415). */
  rejectedRequests = 0;
  digestsAsked = 0;
  deltaResponses = 0;
  deltaBytes = 0;
  /** Full files sent to clients that asked for a delta. */
  fullFallbacks = 0;
  /** @type {string[]} a ring: `#next` is the oldest entry once it is full */
  #recent = [];
  #next = 0;
  #limit;
  /** @type {BodyBudget | undefined} */
  #budget;

  /**
   * @param {BodyBudget | undefined} budget
   * @param {number} [limit] the recent window's size
   */
  constructor(budget, limit = RECENT_DIGEST_LIMIT) {
    this.#budget = budget;
    this.#limit = limit;
  }

  /**
   * Counts asked digests; only the last `limit` of them can stay in the window, so only those are written.
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
   * @param {number} bytes
   * @returns {void}
   */
  countDelta(bytes) {
    this.deltaResponses += 1;
    this.deltaBytes += bytes;
  }

  /** @returns {void} */
  countFullFallback() {
    this.fullFallbacks += 1;
  }

  /**
   * @param {number} status
   * @returns {void}
   */
  countAnswer(status) {
    if (status >= 400 && status < 500 && status !== 404) this.rejectedRequests += 1;
  }

  /**
   * A plain copy.
   * @returns {HandlerStatsSnapshot}
   */
  snapshot() {
    /** @type {Record<string, number>} */
    const recentByDigest = {};
    for (const hex of this.#recent) recentByDigest[hex] = (recentByDigest[hex] ?? 0) + 1;
    const budget = this.#budget;
    return {
      snapshotRequests: this.snapshotRequests,
      existenceRequests: this.existenceRequests,
      findMissingRequests: this.findMissingRequests,
      rejectedRequests: this.rejectedRequests,
      digestsAsked: this.digestsAsked,
      recentDigestLimit: this.#limit,
      recentByDigest,
      deltas: { deltaResponses: this.deltaResponses, deltaBytes: this.deltaBytes, fullFallbacks: this.fullFallbacks },
      ...(budget === undefined
        ? {}
        : {
            bodyBudget: {
              limitBytes: budget.limit,
              bufferedBytes: budget.used,
              peakBytes: budget.peak,
              refusals: budget.refusals,
            },
          }),
    };
  }
}
