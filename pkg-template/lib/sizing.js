// The sizing helpers: optimalParams, fppFromFillRatio,
// alertFillRatio, expectedFillRatio. Error policy: checks.js.

import {
  sizingAlertFillRatio,
  sizingExpectedFillRatio,
  sizingFppFromFillRatio,
  sizingOptimalParams,
} from "../artifact_bloom_variants.js";
import { rangeError, typeError } from "./errors.js";
import { build, checkCount, checkInteger, checkRate, withCode } from "./checks.js";

const MAXIMUM_HASH_COUNT = 4096;

function checkHashCount(k) {
  checkInteger("k", k, 1, MAXIMUM_HASH_COUNT, "invalidHashCount");
}

/** The optimum: `{ m, k }` with m = ceil(−n ln p / ln² 2), k = max(1, round(m/n ln 2)). */
export function optimalParams(n, p) {
  checkCount("n", n, 1, "invalidExpectedItemCount");
  checkRate("p", p, "invalidFalsePositiveRate");
  const [m, k] = build("n", n, () => sizingOptimalParams(n, p));
  return { m, k };
}

/** The rate implied by an observed fill ratio: fill^k. */
export function fppFromFillRatio(fill, k) {
  const expected = "a number from 0 to 1";
  if (typeof fill !== "number") throw withCode(typeError("fill", expected, fill), "invalidFillRatio");
  if (!(fill >= 0 && fill <= 1)) throw withCode(rangeError("fill", expected, fill), "invalidFillRatio");
  checkHashCount(k);
  return sizingFppFromFillRatio(fill, k);
}

/** The fill ratio at which fill^k reaches 2p: (2p)^(1/k) (≥ 1, never reached, for p ≥ 0.5). */
export function alertFillRatio(p, k) {
  checkRate("p", p, "invalidFalsePositiveRate");
  checkHashCount(k);
  return sizingAlertFillRatio(p, k);
}

/** The expected fill after n inserts of k probes into m bits: 1 − e^(−kn/m). */
export function expectedFillRatio(n, m, k) {
  checkCount("n", n, 0, "invalidItemCount");
  checkCount("m", m, 1, "invalidBitCount");
  checkHashCount(k);
  return sizingExpectedFillRatio(n, m, k);
}
