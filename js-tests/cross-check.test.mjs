// Randomized cross-check of the package against the independent JS model in
// model/reference-model.mjs. The vectors pin a few dozen specs; this covers
// hundreds of random (n, p) pairs and random digest sets, comparing layouts,
// the full bit array and every answer. A fixed seed keeps runs reproducible;
// set ARTIFACT_BLOOM_CROSS_SEED=<uint32> to explore other seeds, and the seed in
// use is printed so a CI failure can be replayed locally.
//
// Every query path is compared: single `mightContain` (one call into wasm
// with the digest's first 16 bytes as four big-endian words, which the JS
// layer assembles), and the batches `mightContainMany` / `countMaybe`
// (answered in wasm, a staged chunk at a time). The last two suites aim at
// what the single path could get wrong: words at the edges of the remainder
// arithmetic (sign bits, u64 extremes, exact multiples of m), and queries
// after wasm memory grew or the filter was freed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, sha256, wasmMemoryBytes } from "artifact-bloom";
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
  digests.forEach((digest, i) => {
    packed.set(digest, i * 32);
  });
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
      const expected =
        vector.error === undefined
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
    const name =
      `#${index}: n=${spec.expectedItemCount} p=${spec.targetFalsePositiveRate.toPrecision(6)} ` + `digests=${members.length}`;
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

        // Batch calls must agree with the model too (flag 1 = maybe).
        const all = [...members, ...queries];
        const allExpected = all.map((digest) => expected.mightContain(digest));
        const flags = filter.mightContainMany(pack(all));
        assert.ok(flags instanceof Uint8Array);
        assert.deepEqual(Array.from(flags), allExpected.map(Number), "mightContainMany");
        assert.equal(filter.countMaybe(pack(all)), allExpected.filter(Boolean).length, "countMaybe");

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

// ---- the JS single-query path at the edges of its arithmetic -------------

/** A digest whose first two big-endian words are `first` and `second` (BigInts < 2^64). */
function digestOf(first, second) {
  const bytes = randomBytes(32);
  for (let i = 0; i < 8; i += 1) {
    bytes[7 - i] = Number((first >> BigInt(8 * i)) & 0xffn);
    bytes[15 - i] = Number((second >> BigInt(8 * i)) & 0xffn);
  }
  return bytes;
}

const U64_MAX = 2n ** 64n - 1n;

/** Quotients q for q·m + r: the smallest, the largest below 2^64, and some between. */
function quotients(m, r) {
  const top = (U64_MAX - r) / m;
  return [0n, 1n, top / 2n, top - 1n, top, BigInt(randomInt(2, 2 ** 30)) * BigInt(randomInt(1, 2 ** 20))].map((q) =>
    q > top ? top : q,
  );
}

// One member M, so the set bits are exactly M's k ≤ 2 positions: a query
// answers "maybe" only when it probes those very positions. Each query's
// first word is q·m + t (t = M's index) for q up to the top of the u64 range,
// where an estimated quotient is most likely off by one, and its neighbours
// q·m + t ± 1 must answer "absent"; with k = 2 the step is pinned the same
// way, through `second` and `second | 1`. Non-power-of-two m included
// (192, 1472, …), up to ~43 million bits.
const EDGE_SPECS = [
  { expectedItemCount: 1, targetFalsePositiveRate: 0.5 }, // m = 64, k = 1
  { expectedItemCount: 100, targetFalsePositiveRate: 0.5 }, // m = 192, k = 1
  { expectedItemCount: 1000, targetFalsePositiveRate: 0.5 }, // m = 1472, k = 1
  { expectedItemCount: 1000, targetFalsePositiveRate: 0.3 }, // m = 2560, k = 2
  { expectedItemCount: 1_000_000, targetFalsePositiveRate: 0.35 }, // k = 2
  { expectedItemCount: 100_000_000, targetFalsePositiveRate: 0.9 }, // k = 1
  { expectedItemCount: 10_000_000, targetFalsePositiveRate: 0.3 }, // k = 2
];

describe("single queries at the edges of the remainder arithmetic (one-member filters)", () => {
  for (const spec of EDGE_SPECS) {
    const layout = planLayout(spec);
    const { bitCount, hashCount } = layout.value;
    test(`m=${bitCount} k=${hashCount}`, () => {
      assert.ok(hashCount <= 2, "the edge specs are chosen for k ≤ 2");
      const m = BigInt(bitCount);
      for (const t of [0n, 1n, m - 1n, m / 2n + 1n, BigInt(randomInt(0, bitCount - 1))]) {
        // (second | 1) mod m is odd (m is even), so s is odd too.
        const s = BigInt(randomInt(0, bitCount / 2 - 1)) * 2n + 1n;
        const member = digestOf(quotients(m, t)[5] * m + t, quotients(m, s)[5] * m + s);
        const model = createModel([member], spec).value;
        const filter = ArtifactBloomFilter.create([member], spec).value;
        try {
          const ask = (first, second, want, what) => {
            const query = digestOf(first, second);
            assert.equal(model.mightContain(query), want, `model: ${what}`);
            assert.equal(filter.mightContain(query), want, `${what}: first=${first} second=${second}`);
          };
          for (const q of quotients(m, t)) {
            for (const q2 of quotients(m, s)) {
              // second = q2·m + s is odd; q2·m + s − 1 is even and `| 1` makes it the same.
              ask(q * m + t, q2 * m + s, true, "same positions");
              ask(q * m + t, q2 * m + s - 1n, true, "same positions via second | 1");
            }
            const q2 = quotients(m, s)[4];
            if (q * m + t > 0n) ask(q * m + t - 1n, q2 * m + s, false, "index − 1");
            if (q * m + t < U64_MAX) ask(q * m + t + 1n, q2 * m + s, false, "index + 1");
            if (hashCount === 2 && q2 * m + s + 2n <= U64_MAX) ask(q * m + t, q2 * m + s + 2n, false, "step + 2");
          }
        } finally {
          filter.free();
        }
      }
    });
  }
});

// ---- single queries around wasm memory: growth, free, large batches ------

describe("single queries around wasm memory: growth, free, large batches", () => {
  const spec = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
  const members = Array.from({ length: 3000 }, () => randomBytes(32));
  const strangers = Array.from({ length: 3000 }, () => randomBytes(32));
  const model = createModel(members, spec).value;

  test("answers stay exact after wasm memory grew (which detaches every view of it)", () => {
    const queried = ArtifactBloomFilter.create(members, spec).value;
    // Built before the growth and never queried before it.
    const untouched = ArtifactBloomFilter.createPacked(pack(members), spec).value;
    try {
      for (const digest of strangers) assert.equal(queried.mightContain(digest), model.mightContain(digest));
      const before = wasmMemoryBytes();
      // An input as large as all of wasm memory cannot fit beside what is
      // there: memory must grow (sha256 stages its input whole).
      sha256(new Uint8Array(before));
      assert.ok(wasmMemoryBytes() > before, `memory did not grow (${before} bytes)`);
      for (const filter of [queried, untouched]) {
        for (const digest of members) assert.equal(filter.mightContain(digest), true, "member after growth");
        for (const digest of strangers)
          assert.equal(filter.mightContain(digest), model.mightContain(digest), "stranger after growth");
      }
    } finally {
      queried.free();
      untouched.free();
    }
  });

  test("a freed filter throws, even once its memory holds another filter's bits", () => {
    const filter = ArtifactBloomFilter.create(members, spec).value;
    assert.equal(filter.mightContain(members[0]), true);
    filter.free();
    // Very likely placed where the freed bits were: all ones would answer "maybe" for anything.
    const full = ArtifactBloomFilter.create(strangers, { expectedItemCount: 3000, targetFalsePositiveRate: 0.9 }).value;
    try {
      assert.throws(() => filter.mightContain(members[0]), /freed|free\(\)/);
      assert.throws(() => filter.mightContain(strangers[0]), /freed|free\(\)/);
    } finally {
      full.free();
    }
  });

  test("batches larger than one staged chunk answer every digest as the model does", () => {
    const filter = ArtifactBloomFilter.create(members, spec).value;
    try {
      // 40,001 digests: more than two 16,384-digest chunks, and not a multiple of one.
      const queries = Array.from({ length: 40_001 }, (_, i) => (i % 7 === 0 ? members[i % members.length] : randomBytes(32)));
      const expected = queries.map((digest) => Number(model.mightContain(digest)));
      const flags = filter.mightContainMany(pack(queries));
      assert.equal(flags.length, queries.length);
      const at = firstDifference(flags, expected);
      assert.equal(at, -1, `flag ${at}: package ${flags[at]}, model ${expected[at]}`);
      assert.equal(
        filter.countMaybe(pack(queries)),
        expected.reduce((a, b) => a + b, 0),
      );
      // And each single answer, for the same digests.
      for (const [i, digest] of queries.entries())
        if (i % 5 === 0) assert.equal(Number(filter.mightContain(digest)), expected[i]);
    } finally {
      filter.free();
    }
  });
});
