// Rate limits on the existence API (docs/security.md), counted in digests:
// a findMissing of 10,000 digests takes 10,000 from its client's budget, a
// HEAD one, so batching buys no extra questions. One token bucket per
// client: `burst` digests at most, refilled at `digestsPerSecond`. The
// clock is injected (`now`), so tests advance time instead of waiting.
//
// Memory is bounded however many clients come: at most `maxClients`
// buckets, in a Map kept in least-recently-used order (a use moves a bucket
// to the end); a new client past the capacity evicts the first, the one
// unused for longest — which has had the most time to refill, so
// forgetting it gives its client the least it would not have had anyway.

import { typeError } from "../core/errors.js";

/**
 * Counts since the limiter was made: requests and digests allowed and
 * refused, buckets held now and evicted so far.
 *
 * @typedef {{
 *   allowedRequests: number;
 *   limitedRequests: number;
 *   allowedDigests: number;
 *   limitedDigests: number;
 *   trackedClients: number;
 *   evictedClients: number;
 * }} RateLimitMetrics
 */
/**
 * A limiter's verdict for `take(client, cost)`: allowed, or refused with the
 * whole seconds after which the same cost will be allowed (≥ 1), or refused
 * for good because the cost exceeds the bucket (`overBurst`: split the
 * request).
 *
 * @typedef {{ allowed: true }
 *   | { allowed: false; retryAfterSeconds: number; overBurst: boolean }} RateLimitVerdict
 */
/**
 * A token-bucket limiter shared by every route it guards.
 *
 * @typedef {{
 *   readonly burst: number;
 *   readonly digestsPerSecond: number;
 *   readonly maxClients: number;
 *   take(client: string, cost: number): RateLimitVerdict;
 *   metrics(): RateLimitMetrics;
 * }} RateLimiter
 */
/**
 * @typedef {{
 *   digestsPerSecond: number;
 *   burst: number;
 *   maxClients?: number;
 *   now?: () => number;
 * }} RateLimiterOptions
 */

/** Buckets kept by default: about 100 bytes each, so 10 MB at most. */
export const DEFAULT_MAX_RATE_LIMIT_CLIENTS = 100_000;

/**
 * A token-bucket rate limiter counted in digests.
 *
 * @example
 * ```ts
 * // 10,000 digests at once, 1,000 a second after that, per token.
 * const limiter = createRateLimiter({ burst: 10_000, digestsPerSecond: 1_000 });
 * const handler = withAccessControl(inner, { authorize, rateLimit: { limiter } });
 * ```
 *
 * @param {RateLimiterOptions} options `burst` (the bucket's size, in
 *   digests; at least MAX_DIGESTS_PER_REQUEST lets a full findMissing
 *   through), `digestsPerSecond` (its refill), `maxClients` (buckets kept,
 *   default 100,000), `now` (a clock in milliseconds, default Date.now).
 * @returns {RateLimiter}
 * @throws {TypeError} for a bad option.
 */
export function createRateLimiter(options) {
  if (options === null || typeof options !== "object") throw typeError("options", "an object", options);
  const { digestsPerSecond, burst, maxClients = DEFAULT_MAX_RATE_LIMIT_CLIENTS, now = Date.now } = options;
  if (typeof digestsPerSecond !== "number" || !Number.isFinite(digestsPerSecond) || digestsPerSecond <= 0) {
    throw typeError("digestsPerSecond", "a positive finite number", digestsPerSecond);
  }
  if (!Number.isSafeInteger(burst) || burst < 1) throw typeError("burst", "a positive integer", burst);
  if (!Number.isSafeInteger(maxClients) || maxClients < 1) throw typeError("maxClients", "a positive integer", maxClients);
  if (typeof now !== "function") throw typeError("now", "a function returning milliseconds", now);
  const perMillisecond = digestsPerSecond / 1000;
  /** @type {Map<string, { tokens: number; at: number }>} */
  const buckets = new Map();
  const counts = { allowedRequests: 0, limitedRequests: 0, allowedDigests: 0, limitedDigests: 0, evictedClients: 0 };

  /**
   * The client's bucket refilled to `time`, moved to the most recent end.
   *
   * @param {string} client
   * @param {number} time
   */
  function bucketOf(client, time) {
    const bucket = buckets.get(client);
    if (bucket === undefined) {
      if (buckets.size >= maxClients) {
        const oldest = buckets.keys().next();
        if (!oldest.done) {
          buckets.delete(oldest.value);
          counts.evictedClients += 1;
        }
      }
      const fresh = { tokens: burst, at: time };
      buckets.set(client, fresh);
      return fresh;
    }
    buckets.delete(client);
    buckets.set(client, bucket);
    // A clock that steps back refills nothing (and takes nothing back).
    const elapsed = Math.max(0, time - bucket.at);
    bucket.tokens = Math.min(burst, bucket.tokens + elapsed * perMillisecond);
    bucket.at = Math.max(bucket.at, time);
    return bucket;
  }

  return {
    burst,
    digestsPerSecond,
    maxClients,
    take(client, cost) {
      if (typeof client !== "string") throw typeError("client", "a string", client);
      if (!Number.isSafeInteger(cost) || cost < 1) throw typeError("cost", "a positive integer", cost);
      const time = now();
      if (typeof time !== "number" || !Number.isFinite(time)) throw typeError("now()", "a finite number of milliseconds", time);
      const bucket = bucketOf(client, time);
      if (cost <= bucket.tokens) {
        bucket.tokens -= cost;
        counts.allowedRequests += 1;
        counts.allowedDigests += cost;
        return { allowed: true };
      }
      counts.limitedRequests += 1;
      counts.limitedDigests += cost;
      const overBurst = cost > burst;
      const missing = (overBurst ? burst : cost) - bucket.tokens;
      const retryAfterSeconds = Math.max(1, Math.ceil(missing / digestsPerSecond));
      return { allowed: false, retryAfterSeconds, overBurst };
    },
    metrics() {
      return { ...counts, trackedClients: buckets.size };
    },
  };
}

/** The Prometheus names of RateLimitMetrics, with their types and help. */
const METRICS = /** @type {const} */ ([
  ["allowedRequests", "artifact_bloom_rate_limit_allowed_requests_total", "counter", "Existence requests let through."],
  ["limitedRequests", "artifact_bloom_rate_limit_limited_requests_total", "counter", "Existence requests refused with 429."],
  ["allowedDigests", "artifact_bloom_rate_limit_allowed_digests_total", "counter", "Digests asked about in allowed requests."],
  ["limitedDigests", "artifact_bloom_rate_limit_limited_digests_total", "counter", "Digests asked about in refused requests."],
  ["trackedClients", "artifact_bloom_rate_limit_tracked_clients", "gauge", "Clients with a bucket held now."],
  ["evictedClients", "artifact_bloom_rate_limit_evicted_clients_total", "counter", "Buckets dropped to stay within maxClients."],
]);

/**
 * A limiter's metrics in the Prometheus text format (version 0.0.4).
 *
 * @example
 * ```ts
 * if (url.pathname === "/metrics") return new Response(renderRateLimitPrometheus(limiter.metrics()),
 *   { headers: { "content-type": "text/plain; version=0.0.4" } });
 * ```
 *
 * @param {RateLimitMetrics} metrics what `limiter.metrics()` returned
 * @returns {string}
 * @throws {TypeError} when a metric is missing or not a number.
 */
export function renderRateLimitPrometheus(metrics) {
  if (metrics === null || typeof metrics !== "object")
    throw typeError("metrics", "the object limiter.metrics() returned", metrics);
  /** @type {string[]} */
  const lines = [];
  for (const [key, name, type, help] of METRICS) {
    const value = metrics[key];
    if (typeof value !== "number" || !Number.isFinite(value)) throw typeError(`metrics["${key}"]`, "a number", value);
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
  }
  return `${lines.join("\n")}\n`;
}
