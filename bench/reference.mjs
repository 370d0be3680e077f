// A plain-JavaScript port of the seed's TypeScript reference
// `ArtifactBloomFilter` (layout rule + BigInt probe walk, bits in a
// Uint8Array), used only by bench/run.mjs as the "before" contender.
//
// It deliberately keeps the seed's costs — `readU64BigEndian` building a
// BigInt byte by byte, `% BigInt(bitCount)`, the `{ bitIndex, step }` object
// per probe, private fields — because the point is to measure the reference
// as written, not a tuned rewrite. Only the TypeScript types were dropped.

const bloomDigestLength = 32;
const minimumBloomBitCount = 64;
const maximumBloomExpectedItemCount = 2 ** 30;
const maximumBloomBitCount = 2 ** 30;
const bloomLn2 = Math.LN2;

export class ReferenceBloomFilter {
  #bits;
  #bitCount;
  #hashCount;
  #insertedItemCount;

  constructor(bits, layout, insertedItemCount) {
    this.#bits = bits;
    this.#bitCount = layout.bitCount;
    this.#hashCount = layout.hashCount;
    this.#insertedItemCount = insertedItemCount;
  }

  /** The seed's `create`: spec → capacity → digests, then one addDigest each. */
  static create(digests, spec) {
    const layoutResult = createLayout(spec);
    if (layoutResult.kind === "failure") return layoutResult;
    if (digests.length > spec.expectedItemCount) return failure("capacityExceeded");
    if (!digests.every(isValidDigest)) return failure("invalidDigest");
    const layout = layoutResult.value;
    const bits = new Uint8Array(layout.bitCount / 8);
    for (const digest of digests) addDigest(bits, layout, digest);
    return success(new ReferenceBloomFilter(bits, layout, digests.length));
  }

  mightContain(digest) {
    if (!isValidDigest(digest)) throw new RangeError("The artifact digest must be 32 bytes.");
    const probe = createProbe(digest, this.#bitCount);
    let bitIndex = probe.bitIndex;
    for (let index = 0; index < this.#hashCount; index += 1) {
      if (!getBit(this.#bits, bitIndex)) return false;
      bitIndex += probe.step;
      if (bitIndex >= this.#bitCount) bitIndex -= this.#bitCount;
    }
    return true;
  }

  getBitCount() {
    return this.#bitCount;
  }

  getHashCount() {
    return this.#hashCount;
  }

  getInsertedItemCount() {
    return this.#insertedItemCount;
  }

  estimateFalsePositiveRate() {
    const m = this.#bitCount;
    const n = this.#insertedItemCount;
    const k = this.#hashCount;
    return (-Math.expm1((-k * n) / m)) ** k;
  }

  serializeBits() {
    return this.#bits.slice();
  }
}

/** The seed's layout rule: smallest word-aligned m (then smallest k) meeting p. */
export function createLayout(spec) {
  const validation = validateSpec(spec);
  if (validation !== undefined) return failure(validation);
  const ideal = (-spec.expectedItemCount * Math.log(spec.targetFalsePositiveRate)) / (bloomLn2 * bloomLn2);
  if (!Number.isFinite(ideal) || ideal > maximumBloomBitCount) return failure("filterTooLarge");
  let bestLayout;
  for (let hashCount = 1; hashCount <= 32; hashCount += 1) {
    const requiredBitCount = calculateRequiredBitCountForHashCount(
      spec.expectedItemCount,
      hashCount,
      spec.targetFalsePositiveRate,
    );
    if (!Number.isFinite(requiredBitCount) || requiredBitCount > maximumBloomBitCount) continue;
    let candidateBitCount = alignToWord(Math.max(minimumBloomBitCount, Math.ceil(requiredBitCount)));
    if (candidateBitCount > maximumBloomBitCount) continue;
    let modeledRate = modeledFalsePositiveRate(candidateBitCount, spec.expectedItemCount, hashCount);
    if (!Number.isFinite(modeledRate) || modeledRate > spec.targetFalsePositiveRate) {
      if (candidateBitCount > maximumBloomBitCount - 64) continue;
      candidateBitCount += 64;
      modeledRate = modeledFalsePositiveRate(candidateBitCount, spec.expectedItemCount, hashCount);
    }
    if (Number.isFinite(modeledRate) && modeledRate <= spec.targetFalsePositiveRate) {
      const candidateLayout = { bitCount: candidateBitCount, hashCount };
      if (
        bestLayout === undefined
        || candidateLayout.bitCount < bestLayout.bitCount
        || (candidateLayout.bitCount === bestLayout.bitCount && candidateLayout.hashCount < bestLayout.hashCount)
      ) {
        bestLayout = candidateLayout;
      }
    }
  }
  return bestLayout !== undefined ? success(bestLayout) : failure("filterTooLarge");
}

function validateSpec(spec) {
  if (
    !Number.isSafeInteger(spec.expectedItemCount)
    || spec.expectedItemCount < 1
    || spec.expectedItemCount > maximumBloomExpectedItemCount
  ) {
    return "invalidExpectedItemCount";
  }
  const rate = spec.targetFalsePositiveRate;
  if (!Number.isFinite(rate) || rate <= 0 || rate >= 1) return "invalidFalsePositiveRate";
  return undefined;
}

function calculateRequiredBitCountForHashCount(itemCount, hashCount, targetRate) {
  const root = Math.exp(Math.log(targetRate) / hashCount);
  const denominator = -Math.log1p(-root);
  return (hashCount * itemCount) / denominator;
}

function modeledFalsePositiveRate(bitCount, itemCount, hashCount) {
  return (-Math.expm1((-hashCount * itemCount) / bitCount)) ** hashCount;
}

function addDigest(bits, layout, digest) {
  const probe = createProbe(digest, layout.bitCount);
  let bitIndex = probe.bitIndex;
  for (let index = 0; index < layout.hashCount; index += 1) {
    setBit(bits, bitIndex);
    bitIndex += probe.step;
    if (bitIndex >= layout.bitCount) bitIndex -= layout.bitCount;
  }
}

/** Hash protocol 1: index = BE64(d[0..8]) mod m, step = (BE64(d[8..16]) | 1) mod m — in BigInt, as the seed does. */
function createProbe(digest, bitCount) {
  const first = readU64BigEndian(digest, 0);
  const second = readU64BigEndian(digest, 8);
  const modulus = BigInt(bitCount);
  return {
    bitIndex: Number(first % modulus),
    step: Number((second | 1n) % modulus),
  };
}

function readU64BigEndian(bytes, offset) {
  let result = 0n;
  for (let index = 0; index < 8; index += 1) {
    result = (result << 8n) | BigInt(bytes[offset + index]);
  }
  return result;
}

function setBit(bits, bitIndex) {
  bits[bitIndex >> 3] |= 1 << (bitIndex & 7);
}

function getBit(bits, bitIndex) {
  return (bits[bitIndex >> 3] & (1 << (bitIndex & 7))) !== 0;
}

function alignToWord(value) {
  const remainder = value % 64;
  return remainder === 0 ? value : value + 64 - remainder;
}

function isValidDigest(digest) {
  return digest instanceof Uint8Array && digest.byteLength === bloomDigestLength;
}

function success(value) {
  return { kind: "success", value };
}

function failure(error) {
  return { kind: "failure", error };
}
