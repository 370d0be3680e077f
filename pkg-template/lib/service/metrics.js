// The operational metrics: filter shape and fill (per snapshot), query
// counts (per service), snapshot age and load failures, the three ratios, and
// their Prometheus text exposition.
//
// A filter is immutable once built, so everything read from it (fill ratio is
// a popcount over the whole bit array) is read once, when a snapshot is
// adopted, and cached per filter: metrics() stays cheap and keeps working even
// if an old snapshot's filter is freed later.

import { typeError } from "../core/errors.js";

/**
 * @import { ArtifactBloomFilter } from "../filter/filter.js"
 * @import { ArtifactBloomMetrics, ArtifactIndexSnapshot } from "../types.js"
 */

/**
 * A key of `metrics()`.
 *
 * @typedef {keyof ArtifactBloomMetrics} MetricKey
 */

/**
 * What a filter's numbers are, read once per filter.
 *
 * @typedef {{
 *   readonly bitCount: number;
 *   readonly hashCount: number;
 *   readonly expectedItemCount: number;
 *   readonly insertedItemCount: number;
 *   readonly fillRatio: number;
 *   readonly estimatedFpp: number;
 * }} FilterStats
 */

/**
 * A service's query counts.
 *
 * @typedef {{ negative: number; maybe: number; falsePositive: number }} QueryCounts
 */

/**
 * The metric keys, in exposition order, with their Prometheus name, type and
 * help text. The dotted keys are the public names (the keys of
 * ArtifactBloomMetrics, which `metrics()` returns).
 */
const METRICS = /** @satisfies {ReadonlyArray<readonly [MetricKey, "gauge" | "counter", string, string?]>} */ ([
  ["artifact_bloom.bit_count", "gauge", "Bits in the current filter (m)."],
  ["artifact_bloom.hash_count", "gauge", "Hash positions per digest in the current filter (k)."],
  ["artifact_bloom.expected_item_count", "gauge", "Expected item count the current filter was sized for (n)."],
  ["artifact_bloom.inserted_item_count", "gauge", "Digests inserted into the current filter."],
  ["artifact_bloom.fill_ratio", "gauge", "Set bits / all bits of the current filter."],
  ["artifact_bloom.estimated_fpp", "gauge", "Modeled false-positive probability (1 - e^(-kn/m))^k of the current filter."],
  ["artifact_bloom.negative.count", "counter", "Queries the filter answered definitely absent (no repository lookup)."],
  ["artifact_bloom.maybe.count", "counter", "Queries the filter answered maybe (sent to the repository)."],
  ["artifact_bloom.false_positive.count", "counter", "Maybe answers the repository then reported absent."],
  ["artifact_bloom.catalog_version", "gauge", "catalogVersion of the snapshot in service."],
  [
    "artifact_bloom.snapshot.age_seconds",
    "gauge",
    "Age of the snapshot in service: since its Last-Modified time when known, else since it was first seen.",
  ],
  [
    "artifact_bloom.snapshot.load_failure.count",
    "counter",
    "Snapshot refreshes that failed (the previous snapshot stayed in service).",
  ],
  [
    "negativeBypassRatio",
    "gauge",
    "negative / (negative + maybe): share of queries that skipped the repository.",
    "artifact_bloom_negative_bypass_ratio",
  ],
  [
    "observedFalsePositiveRate",
    "gauge",
    "false positives / (negative + false positives).",
    "artifact_bloom_observed_false_positive_rate",
  ],
  [
    "falseDiscoveryRatio",
    "gauge",
    "false positives / maybe: share of maybe answers that were absent.",
    "artifact_bloom_false_discovery_ratio",
  ],
]).map(([key, type, help, name = key.replaceAll(".", "_")]) => Object.freeze({ key, type, help, name }));

// filter → its immutable numbers; snapshot → the time this package first saw it.
/** @type {WeakMap<ArtifactBloomFilter, FilterStats>} */
const filterStats = new WeakMap();
/** @type {WeakMap<ArtifactIndexSnapshot, number>} */
const firstSeen = new WeakMap();

/**
 * Records a snapshot being taken into service: reads and caches its filter's
 * numbers (once per filter) and the first-seen time (once per snapshot).
 *
 * @param {ArtifactIndexSnapshot} snapshot
 * @param {number} nowMs
 * @returns {void}
 */
export function adoptSnapshot(snapshot, nowMs) {
  const filter = snapshot.filter;
  if (!filterStats.has(filter)) {
    filterStats.set(
      filter,
      Object.freeze({
        bitCount: filter.getBitCount(),
        hashCount: filter.getHashCount(),
        expectedItemCount: filter.getExpectedItemCount(),
        insertedItemCount: filter.getInsertedItemCount(),
        fillRatio: filter.getFillRatio(),
        estimatedFpp: filter.estimateFalsePositiveRate(),
      }),
    );
  }
  if (!firstSeen.has(snapshot)) firstSeen.set(snapshot, nowMs);
}

/**
 * `numerator / denominator`, or 0 when nothing was counted yet.
 *
 * @param {number} numerator
 * @param {number} denominator
 * @returns {number}
 */
function ratio(numerator, denominator) {
  return denominator === 0 ? 0 : numerator / denominator;
}

/**
 * The snapshot's reference time: its valid `lastModified`, else first seen.
 *
 * @param {ArtifactIndexSnapshot} snapshot an adopted one (so first seen is known)
 * @returns {number}
 */
function referenceTimeMs(snapshot) {
  const lastModified = snapshot.lastModified;
  if (lastModified instanceof Date && Number.isFinite(lastModified.getTime())) return lastModified.getTime();
  return /** @type {number} */ (firstSeen.get(snapshot));
}

/**
 * The metrics object for a snapshot in service and the query counters.
 * `counts` is `{ negative, maybe, falsePositive }`.
 *
 * @param {ArtifactIndexSnapshot} snapshot
 * @param {QueryCounts} counts
 * @param {number} loadFailureCount
 * @param {number} nowMs
 * @returns {ArtifactBloomMetrics}
 */
export function collectMetrics(snapshot, counts, loadFailureCount, nowMs) {
  adoptSnapshot(snapshot, nowMs); // no-op unless the snapshot bypassed adoption
  const stats = /** @type {FilterStats} */ (filterStats.get(snapshot.filter)); // set by adoptSnapshot
  const { negative, maybe, falsePositive } = counts;
  return {
    "artifact_bloom.bit_count": stats.bitCount,
    "artifact_bloom.hash_count": stats.hashCount,
    "artifact_bloom.expected_item_count": stats.expectedItemCount,
    "artifact_bloom.inserted_item_count": stats.insertedItemCount,
    "artifact_bloom.fill_ratio": stats.fillRatio,
    "artifact_bloom.estimated_fpp": stats.estimatedFpp,
    "artifact_bloom.negative.count": negative,
    "artifact_bloom.maybe.count": maybe,
    "artifact_bloom.false_positive.count": falsePositive,
    "artifact_bloom.catalog_version": snapshot.catalogVersion,
    // Clock skew (a Last-Modified in the future) reads as age 0, not negative.
    "artifact_bloom.snapshot.age_seconds": Math.max(0, (nowMs - referenceTimeMs(snapshot)) / 1000),
    "artifact_bloom.snapshot.load_failure.count": loadFailureCount,
    negativeBypassRatio: ratio(negative, negative + maybe),
    observedFalsePositiveRate: ratio(falsePositive, negative + falsePositive),
    falseDiscoveryRatio: ratio(falsePositive, maybe),
  };
}

/**
 * A sample value in the exposition format (Go float syntax).
 *
 * @param {number} value
 * @returns {string}
 */
function sampleValue(value) {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/**
 * Renders metrics in the Prometheus text exposition format (0.0.4): per
 * metric a `# HELP` line, a `# TYPE` line and one sample; dots become
 * underscores (`artifact_bloom_fill_ratio`), the counts are `counter`s,
 * everything else (ratios included: `artifact_bloom_negative_bypass_ratio`,
 * `artifact_bloom_observed_false_positive_rate`,
 * `artifact_bloom_false_discovery_ratio`) a `gauge`.
 *
 * @example
 * ```ts
 * http.createServer((req, res) => {
 *   res.setHeader("Content-Type", "text/plain; version=0.0.4");
 *   res.end(renderPrometheus(service.metrics()));
 * });
 * ```
 *
 * @param {ArtifactBloomMetrics} metrics what `metrics()` returned
 * @returns {string}
 * @throws {TypeError} when a metric is missing or not a number.
 */
export function renderPrometheus(metrics) {
  if (metrics === null || typeof metrics !== "object") {
    throw typeError("metrics", "the object returned by metrics()", metrics);
  }
  /** @type {string[]} */
  const lines = [];
  for (const { key, type, help, name } of METRICS) {
    const value = metrics[key];
    if (typeof value !== "number") throw typeError(`metrics["${key}"]`, "a number", value);
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${sampleValue(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
