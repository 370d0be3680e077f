// An independent, from-scratch JavaScript model of the reference
// ArtifactBloomFilter (the TypeScript/Python reference; docs/ABF1.md,
// "Layout rule" and "Bits (hashProtocolVersion 1)").
//
// Why it exists: the package computes everything in Rust/wasm. Comparing it
// against vectors alone only covers the handful of specs the vectors pin; this
// model lets cross-check.test.mjs compare layouts, bit arrays and answers on
// hundreds of random specs and digest sets. It shares NO code with the
// package — it deliberately uses the slow, obvious formulation (BigInt probe
// arithmetic, one byte array, bit i in byte i >> 3, LSB first) so a bug in the
// optimized wasm path cannot be mirrored here.
//
// The layout rule follows the Python reference that generated the vectors:
// root = p ** (1 / k) (the TypeScript seed writes exp(log(p) / k), which can
// differ in the last ulp and flip a ceil()).

const DIGEST_LENGTH = 32;
const MINIMUM_BIT_COUNT = 64;
const MAXIMUM_BIT_COUNT = 2 ** 30;
const MAXIMUM_EXPECTED_ITEM_COUNT = 2 ** 30;
const LN2 = Math.LN2;
const MAXIMUM_HASH_COUNT = 32;

/** The reference's spec validation (numbers only; JS has no Python ints). */
export function validateSpec(spec) {
  const n = spec?.expectedItemCount;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > MAXIMUM_EXPECTED_ITEM_COUNT) {
    return "invalidExpectedItemCount";
  }
  const p = spec.targetFalsePositiveRate;
  if (typeof p !== "number" || !Number.isFinite(p) || p <= 0 || p >= 1) {
    return "invalidFalsePositiveRate";
  }
  return undefined;
}

/** (1 − e^(−k·n/m))^k, computed with expm1 as the reference does. */
export function modeledFalsePositiveRate(bitCount, itemCount, hashCount) {
  return (-Math.expm1((-hashCount * itemCount) / bitCount)) ** hashCount;
}

/** k·n / −ln(1 − p^(1/k)), before ceil/alignment; Infinity when degenerate. */
function requiredBitCount(itemCount, hashCount, targetRate) {
  const root = targetRate ** (1 / hashCount);
  const denominator = -Math.log1p(-root);
  return (hashCount * itemCount) / denominator;
}

function alignToWord(value) {
  const remainder = value % 64;
  return remainder === 0 ? value : value + 64 - remainder;
}

/**
 * The layout rule: { kind: "success", value: { bitCount, hashCount } } or
 * { kind: "failure", error }. Same shape as the package's results so tests
 * can deepEqual the failure branch.
 */
export function planLayout(spec) {
  const invalid = validateSpec(spec);
  if (invalid !== undefined) return { kind: "failure", error: invalid };
  const n = spec.expectedItemCount;
  const p = spec.targetFalsePositiveRate;

  // The reference's early exit: even the ideal (k-free) size is too big.
  const ideal = (-n * Math.log(p)) / (LN2 * LN2);
  if (!Number.isFinite(ideal) || ideal > MAXIMUM_BIT_COUNT) {
    return { kind: "failure", error: "filterTooLarge" };
  }

  let best;
  for (let k = 1; k <= MAXIMUM_HASH_COUNT; k += 1) {
    const required = requiredBitCount(n, k, p);
    if (!Number.isFinite(required) || required > MAXIMUM_BIT_COUNT) continue;
    let m = alignToWord(Math.max(MINIMUM_BIT_COUNT, Math.ceil(required)));
    if (m > MAXIMUM_BIT_COUNT) continue;
    let rate = modeledFalsePositiveRate(m, n, k);
    if (!Number.isFinite(rate) || rate > p) {
      // Rounding in the closed form can leave the model a hair above p:
      // the reference allows exactly one more 64-bit word.
      if (m > MAXIMUM_BIT_COUNT - 64) continue;
      m += 64;
      rate = modeledFalsePositiveRate(m, n, k);
    }
    if (!Number.isFinite(rate) || rate > p) continue;
    if (best === undefined || m < best.bitCount || (m === best.bitCount && k < best.hashCount)) {
      best = { bitCount: m, hashCount: k };
    }
  }
  return best === undefined ? { kind: "failure", error: "filterTooLarge" } : { kind: "success", value: best };
}

function readU64BigEndian(bytes, offset) {
  let value = 0n;
  for (let i = 0; i < 8; i += 1) value = (value << 8n) | BigInt(bytes[offset + i]);
  return value;
}

/** The k bit positions a digest probes (hash protocol 1), in probe order. */
export function probePositions(digest, bitCount, hashCount) {
  if (!(digest instanceof Uint8Array) || digest.byteLength !== DIGEST_LENGTH) {
    throw new RangeError("model: digest must be 32 bytes");
  }
  const m = BigInt(bitCount);
  let index = readU64BigEndian(digest, 0) % m;
  const step = (readU64BigEndian(digest, 8) | 1n) % m;
  const positions = [];
  for (let i = 0; i < hashCount; i += 1) {
    positions.push(Number(index));
    index = (index + step) % m;
  }
  return positions;
}

/** A model filter: plain data plus the two operations the tests need. */
export class ModelFilter {
  constructor(layout, digests) {
    this.bitCount = layout.bitCount;
    this.hashCount = layout.hashCount;
    this.insertedItemCount = digests.length;
    this.bits = new Uint8Array(layout.bitCount / 8);
    for (const digest of digests) {
      for (const bit of probePositions(digest, this.bitCount, this.hashCount)) {
        this.bits[bit >> 3] |= 1 << (bit & 7);
      }
    }
  }

  mightContain(digest) {
    return probePositions(digest, this.bitCount, this.hashCount).every((bit) => (this.bits[bit >> 3] & (1 << (bit & 7))) !== 0);
  }

  setBitCount() {
    return popcount(this.bits);
  }

  estimateFalsePositiveRate() {
    return modeledFalsePositiveRate(this.bitCount, this.insertedItemCount, this.hashCount);
  }
}

/** Builds a model filter, or the reference's failure (same check order). */
export function createModel(digests, spec) {
  const layout = planLayout(spec);
  if (layout.kind === "failure") return layout;
  if (digests.length > spec.expectedItemCount) return { kind: "failure", error: "capacityExceeded" };
  return { kind: "success", value: new ModelFilter(layout.value, digests) };
}

/** Number of set bits in a byte array. */
export function popcount(bytes) {
  let count = 0;
  for (let byte of bytes) {
    while (byte !== 0) {
      byte &= byte - 1;
      count += 1;
    }
  }
  return count;
}
