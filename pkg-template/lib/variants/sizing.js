// The sizing helpers: optimalParams, fppFromFillRatio,
// alertFillRatio, expectedFillRatio. Error policy: checks.js.

import {
  sizingAlertFillRatio,
  sizingExpectedFillRatio,
  sizingFppFromFillRatio,
  sizingOptimalParams,
} from "../../artifact_bloom_variants.js";
import { rangeError, typeError } from "../core/errors.js";
import { build, checkCount, checkInteger, checkRate, withCode } from "../core/checks.js";

/** @import { OptimalParams } from "../variant-types.js" */

const MAXIMUM_HASH_COUNT = 4096;

/**
 * k must be an integer from 1 to 4096 (`invalidHashCount`).
 *
 * @param {unknown} k
 * @returns {asserts k is number}
 */
function checkHashCount(k) {
  checkInteger("k", k, 1, MAXIMUM_HASH_COUNT, "invalidHashCount");
}

/**
 * The classic optimum for n items at rate p: `m = ceil(−n·ln p / ln² 2)` bits,
 * `k = max(1, round(m/n · ln 2))` (half away from zero).
 *
 * @example
 * ```ts
 * optimalParams(1_000, 0.01); // { m: 9586, k: 7 }
 * ```
 *
 * @param {number} n
 * @param {number} p
 * @returns {OptimalParams}
 * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
 * `invalidFalsePositiveRate` or `filterTooLarge` (m above 2^30).
 */
export function optimalParams(n, p) {
  checkCount("n", n, 1, "invalidExpectedItemCount");
  checkRate("p", p, "invalidFalsePositiveRate");
  const [m, k] = build("n", n, () => sizingOptimalParams(n, p));
  return { m, k };
}

/**
 * The false-positive rate implied by an observed fill ratio: `fill^k`.
 *
 * @example
 * ```ts
 * fppFromFillRatio(filter.fillRatio, filter.k); // 0.0078125 at fill 0.5, k = 7
 * ```
 *
 * @param {number} fill
 * @param {number} k
 * @returns {number}
 * @throws {TypeError | RangeError} with `code` `invalidFillRatio` (not in
 * [0, 1]) or `invalidHashCount` (k not an integer from 1 to 4096).
 */
export function fppFromFillRatio(fill, k) {
  const expected = "a number from 0 to 1";
  if (typeof fill !== "number") throw withCode(typeError("fill", expected, fill), "invalidFillRatio");
  if (!(fill >= 0 && fill <= 1)) throw withCode(rangeError("fill", expected, fill), "invalidFillRatio");
  checkHashCount(k);
  return sizingFppFromFillRatio(fill, k);
}

/**
 * The fill ratio at which `fill^k` reaches twice the target: `(2p)^(1/k)` —
 * the operator's alert line (≥ 1, so never reached, when p ≥ 0.5).
 *
 * @example
 * ```ts
 * if (filter.fillRatio >= alertFillRatio(0.01, filter.k)) alert("rebuild the filter"); // 0.5719 for k = 7
 * ```
 *
 * @param {number} p
 * @param {number} k
 * @returns {number}
 * @throws {TypeError | RangeError} with `code` `invalidFalsePositiveRate` or `invalidHashCount`.
 */
export function alertFillRatio(p, k) {
  checkRate("p", p, "invalidFalsePositiveRate");
  checkHashCount(k);
  return sizingAlertFillRatio(p, k);
}

/**
 * The expected fill after n inserts of k probes into m bits: `1 − e^(−kn/m)`.
 *
 * @example
 * ```ts
 * const { m, k } = optimalParams(1_000, 0.01);
 * fppFromFillRatio(expectedFillRatio(2_000, m, k), k); // the model's rate at 2× the design n
 * ```
 *
 * @param {number} n
 * @param {number} m
 * @param {number} k
 * @returns {number}
 * @throws {TypeError | RangeError} with `code` `invalidItemCount` (n not an
 * integer ≥ 0), `invalidBitCount` (m not an integer ≥ 1) or `invalidHashCount`.
 */
export function expectedFillRatio(n, m, k) {
  checkCount("n", n, 0, "invalidItemCount");
  checkCount("m", m, 1, "invalidBitCount");
  checkHashCount(k);
  return sizingExpectedFillRatio(n, m, k);
}
