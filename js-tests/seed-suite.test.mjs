// The seed's node:test suite (the reference's "node:test" section), ported to the
// published package: same six test names, same inputs, same assertions. The
// only change is where ArtifactBloomFilter comes from — the package, resolved
// by name exactly as a user's `import` would resolve it.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import test from "node:test";
import { ArtifactBloomFilter } from "artifact-bloom";

function createDigests(prefix, count) {
  return Array.from({ length: count }, (_, index) => createDigest(`${prefix}:${index}`));
}

// A Node Buffer, as in the seed: the package must accept Buffers (they are
// Uint8Arrays) without copying them first.
function createDigest(value) {
  return createHash("sha256").update(value, "utf8").digest();
}

test("No false negatives exist for inserted digests", () => {
  const members = createDigests("member", 10_000);
  const result = ArtifactBloomFilter.create(members, {
    expectedItemCount: 10_000,
    targetFalsePositiveRate: 0.01,
  });
  if (result.kind === "failure") {
    assert.fail(result.error);
  }
  for (const digest of members) {
    assert.equal(result.value.mightContain(digest), true);
  }
  result.value.free();
});

test("The observed false-positive rate falls within the statistically acceptable range", () => {
  const itemCount = 20_000;
  const probeCount = 200_000;
  const targetRate = 0.01;
  const result = ArtifactBloomFilter.create(createDigests("member", itemCount), {
    expectedItemCount: itemCount,
    targetFalsePositiveRate: targetRate,
  });
  if (result.kind === "failure") {
    assert.fail(result.error);
  }
  let falsePositiveCount = 0;
  for (let index = 0; index < probeCount; index += 1) {
    const digest = createDigest(`non-member:${index}`);
    if (result.value.mightContain(digest)) {
      falsePositiveCount += 1;
    }
  }
  // Bound (the seed's): each non-member is a Bernoulli trial with success
  // probability ≈ the modeled rate q, so the observed count is ≈ Binomial(N, q)
  // and the observed rate has standard deviation sqrt(q(1−q)/N). The digests
  // are fixed (deterministic SHA-256 inputs), so this is not flaky: either it
  // passes every run or the filter's probe walk is biased. 5σ one-sided leaves
  // a ~3e-7 chance that a correct filter's input set lands outside.
  const observedRate = falsePositiveCount / probeCount;
  const modelRate = result.value.estimateFalsePositiveRate();
  const standardDeviation = Math.sqrt((modelRate * (1 - modelRate)) / probeCount);
  const upperBound = modelRate + 5 * standardDeviation;
  assert.ok(observedRate <= upperBound, `The observed FPP ${observedRate}` + `exceeds the allowed upper bound ${upperBound}.`);
  result.value.free();
});

test("Digests of incorrect length are rejected at query time", () => {
  const result = ArtifactBloomFilter.create(createDigests("member", 16), {
    expectedItemCount: 100,
    targetFalsePositiveRate: 0.01,
  });
  if (result.kind === "failure") {
    assert.fail(result.error);
  }
  assert.throws(() => result.value.mightContain(new Uint8Array(16)), RangeError);
  result.value.free();
});

test("Exceeding the designed capacity is rejected", () => {
  const result = ArtifactBloomFilter.create(createDigests("member", 101), {
    expectedItemCount: 100,
    targetFalsePositiveRate: 0.01,
  });
  assert.deepEqual(result, {
    kind: "failure",
    error: "capacityExceeded",
  });
});

test("The modeled FPP budget is maintained across all `hashCount` candidates", () => {
  const expectedItemCount = 1_000_000;
  const targetModeledRate = 1e-20;
  const result = ArtifactBloomFilter.create([], {
    expectedItemCount,
    targetFalsePositiveRate: targetModeledRate,
  });
  if (result.kind === "failure") {
    assert.fail(result.error);
  }
  // At 1e-20 the optimum k is ~66, above the cap of 32: the layout rule must
  // still pick the largest k and size m so the model meets the budget.
  assert.equal(result.value.getHashCount(), 32);
  const m = result.value.getBitCount();
  const k = result.value.getHashCount();
  const modeledRate = (-Math.expm1((-k * expectedItemCount) / m)) ** k;
  assert.ok(modeledRate <= targetModeledRate);
  result.value.free();
});

test("The lower `hashCount` boundary is also computed via candidate evaluation", () => {
  const expectedItemCount = 1_000_000;
  const targetModeledRate = 0.95;
  const result = ArtifactBloomFilter.create([], {
    expectedItemCount,
    targetFalsePositiveRate: targetModeledRate,
  });
  if (result.kind === "failure") {
    assert.fail(result.error);
  }
  assert.equal(result.value.getHashCount(), 1);
  assert.equal(result.value.getBitCount(), 333_824);
  const modeledRate = -Math.expm1(-expectedItemCount / result.value.getBitCount());
  assert.ok(modeledRate <= targetModeledRate);
  result.value.free();
});
