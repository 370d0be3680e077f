// Randomized cross-check of the package against the independent JS model in
// model/reference-model.mjs. The vectors pin a few dozen specs; this covers
// hundreds of random (n, p) pairs and random digest sets, comparing layouts,
// the full bit array and every answer. A fixed seed keeps runs reproducible;
// set ARTIFACT_BLOOM_CROSS_SEED=<uint32> to explore other seeds, and the seed in
// use is printed so a CI failure can be replayed locally.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ArtifactBloomFilter } from "artifact-bloom";
import { createModel, planLayout, popcount, probePositions } from "./model/reference-model.mjs";

const SEED = Number(process.env.ARTIFACT_BLOOM_CROSS_SEED ?? 0xab1f_2026) >>> 0;
const CASES = 500;
const NON_MEMBERS_PER_CASE = 240;
console.log(`cross-check seed: ${SEED} (replay with ARTIFACT_BLOOM_CROSS_SEED=${SEED})`);

/** mulberry32: tiny, fast, good enough for test-input generation. */
function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = mulberry32(SEED);

function randomInt(low, high) {
  return low + Math.floor(random() * (high - low + 1));
}

function randomBytes(length) {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 4) {
    const word = (random() * 4294967296) >>> 0;
    for (let j = 0; j < 4 && i + j < length; j += 1) bytes[i + j] = (word >>> (8 * j)) & 0xff;
  }
  return bytes;
}

function logUniform(low, high) {
  return Math.exp(Math.log(low) + random() * (Math.log(high) - Math.log(low)));
}

// Digests at the edges of the probe arithmetic: first/second at 0 and
// 2^64 − 1 (step (second | 1) = 1 or 2^64 − 1, the BigInt modulus wrapping
// from the top), and high bits set (anything treating the u64 as signed or
// as a float loses them). Every case queries these as extra non-members.
const EDGE_DIGESTS = [
  new Uint8Array(32),
  new Uint8Array(32).fill(0xff),
  Uint8Array.from({ length: 32 }, (_, i) => (i < 8 ? 0xff : 0)),
  Uint8Array.from({ length: 32 }, (_, i) => (i < 8 ? 0 : 0xff)),
  Uint8Array.from({ length: 32 }, (_, i) => (i === 0 || i === 8 ? 0x80 : 0)),
  Uint8Array.from({ length: 32 }, (_, i) => (i === 7 || i === 15 ? 0x01 : 0)),
  Uint8Array.from({ length: 32 }, (_, i) => (i < 16 ? 0x7f : 0x55)),
];

function pack(digests) {
  const packed = new Uint8Array(digests.length * 32);
  digests.forEach((digest, i) => packed.set(digest, i * 32));
  return packed;
}

function firstDifference(a, b) {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : length;
}

// Generate every case up front, so the sequence drawn from the seed does not
// depend on which tests node:test runs (e.g. with --test-name-pattern).
const cases = Array.from({ length: CASES }, (_, index) => {
  const expectedItemCount = Math.max(1, Math.min(5000, Math.floor(logUniform(1, 5001))));
  const targetFalsePositiveRate = logUniform(1e-9, 0.9);
  const shape = random();
  // About a quarter exactly at capacity (the layout's design point), a few
  // empty, the rest anywhere below capacity.
  const count = shape < 0.25 ? expectedItemCount : shape < 0.3 ? 0 : randomInt(0, expectedItemCount);
  const members = Array.from({ length: count }, () => randomBytes(32));
  // Some cases repeat digests: the filter counts them as given and the bits
  // must not change.
  if (count >= 2 && random() < 0.15) {
    const repeats = randomInt(1, Math.max(1, Math.floor(count / 4)));
    for (let r = 0; r < repeats; r += 1) members[randomInt(0, count - 1)] = members[randomInt(0, count - 1)];
  }
  const nonMembers = Array.from({ length: NON_MEMBERS_PER_CASE }, () => randomBytes(32));
  return { index, spec: { expectedItemCount, targetFalsePositiveRate }, members, nonMembers };
});

describe("the model agrees with the shared vectors (so a disagreement below is the package's)", () => {
  test("layouts.json and the probe positions in filters.json", () => {
    const read = (name) => JSON.parse(readFileSync(new URL(`../../shared/vectors/${name}`, import.meta.url), "utf8"));
    const number = (v) => (v === "NaN" ? Number.NaN : v === "Infinity" ? Number.POSITIVE_INFINITY : v);
    for (const vector of read("layouts.json").cases) {
      const result = planLayout({
        expectedItemCount: number(vector.expectedItemCount),
        targetFalsePositiveRate: number(vector.targetFalsePositiveRate),
      });
      const expected = vector.error === undefined
        ? { kind: "success", value: { bitCount: vector.bitCount, hashCount: vector.hashCount } }
        : { kind: "failure", error: vector.error };
      assert.deepEqual(result, expected, JSON.stringify(vector));
    }
    for (const vector of read("filters.json").cases) {
      for (const probe of vector.probes) {
        const digest = new Uint8Array(Buffer.from(probe.digest, "hex"));
        assert.deepEqual(probePositions(digest, vector.bitCount, vector.hashCount), probe.bits);
      }
    }
  });
});

describe(`package vs model on ${CASES} random specs (seed ${SEED})`, () => {
  for (const { index, spec, members, nonMembers } of cases) {
    const name = `#${index}: n=${spec.expectedItemCount} p=${spec.targetFalsePositiveRate.toPrecision(6)} `
      + `digests=${members.length}`;
    test(name, () => {
      const model = createModel(members, spec);
      const result = ArtifactBloomFilter.create(members, spec);
      if (model.kind === "failure") {
        // n ≤ 5000 never needs 2^30 bits, so this only happens if the model is wrong.
        assert.deepEqual(result, model);
        return;
      }
      if (result.kind === "failure") assert.fail(`package: ${result.error}, model: ${model.value.bitCount} bits`);
      const filter = result.value;
      const expected = model.value;
      try {
        assert.deepEqual(
          { bitCount: filter.getBitCount(), hashCount: filter.getHashCount() },
          { bitCount: expected.bitCount, hashCount: expected.hashCount },
          `layout for ${JSON.stringify(spec)}`,
        );
        assert.equal(filter.getInsertedItemCount(), members.length);
        assert.equal(filter.getExpectedItemCount(), spec.expectedItemCount);
        assert.equal(filter.getTargetFalsePositiveRate(), spec.targetFalsePositiveRate);

        const bits = filter.serializeBits();
        const at = firstDifference(bits, expected.bits);
        assert.equal(at, -1, `bit arrays differ first at byte ${at}: package ${bits[at]}, model ${expected.bits[at]}`);
        assert.equal(filter.getFillRatio(), popcount(expected.bits) / expected.bitCount);

        // Single queries: members must all answer maybe (no false negatives),
        // and every non-member must answer exactly as the model does.
        for (const digest of members) assert.equal(filter.mightContain(digest), true, "member");
        const queries = [...nonMembers, ...EDGE_DIGESTS];
        const single = queries.map((digest) => filter.mightContain(digest));
        for (const [i, digest] of queries.entries()) {
          assert.equal(single[i], expected.mightContain(digest), `query ${i} ${Buffer.from(digest).toString("hex")}`);
        }

        // Batch calls must agree with single calls (flag 1 = maybe).
        const all = [...members, ...queries];
        const allSingle = [...members.map(() => true), ...single];
        const flags = filter.mightContainMany(pack(all));
        assert.ok(flags instanceof Uint8Array);
        assert.deepEqual(Array.from(flags), allSingle.map(Number), "mightContainMany");
        assert.equal(filter.countMaybe(pack(all)), allSingle.filter(Boolean).length, "countMaybe");

        // The packed build path must produce the same filter.
        const packed = ArtifactBloomFilter.createPacked(pack(members), spec);
        if (packed.kind === "failure") assert.fail(`createPacked: ${packed.error}`);
        assert.deepEqual(packed.value.serializeBits(), bits, "createPacked bits");
        assert.equal(packed.value.getInsertedItemCount(), members.length);
        packed.value.free();
      } finally {
        filter.free();
      }
    });
  }
});
