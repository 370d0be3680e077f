// The shared test vectors (computed with the seed's Python reference) run
// through the published package. They pin the layout rule at its edges and
// the exact bit array for real digest sets, so any divergence in float
// rounding, probe arithmetic or bit order shows up as a named case.
//
// Every filter vector runs through every query path: single `mightContain`
// (four big-endian words of the digest into one wasm call), `mightContainMany` and
// `countMaybe` (wasm), on filters from `create`, `createPacked` and a
// snapshot round trip (encodeSnapshot → loadSnapshot).
//
// The vectors live beside the checkout (CI has shared/ next to the repo root),
// hence the ../../shared path from js-tests/.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { popcount } from "./model/reference-model.mjs";

const layouts = JSON.parse(readFileSync(new URL("../../shared/vectors/layouts.json", import.meta.url), "utf8"));
const filters = JSON.parse(readFileSync(new URL("../../shared/vectors/filters.json", import.meta.url), "utf8"));

// JSON has no NaN/Infinity; the vectors spell them as strings.
function number(value) {
  if (value === "NaN") return Number.NaN;
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  if (value === "-Infinity") return Number.NEGATIVE_INFINITY;
  return value;
}

function sha256(text) {
  return new Uint8Array(createHash("sha256").update(text, "utf8").digest());
}

function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

function specOf(vector) {
  return {
    expectedItemCount: number(vector.expectedItemCount),
    targetFalsePositiveRate: number(vector.targetFalsePositiveRate),
  };
}

function label(vector) {
  return `n=${vector.expectedItemCount} p=${vector.targetFalsePositiveRate}`;
}

describe("layouts.json", () => {
  test("has cases", () => assert.ok(layouts.cases.length > 100, `${layouts.cases.length} cases`));

  for (const vector of layouts.cases) {
    const expected = vector.error ?? `${vector.bitCount} bits, k=${vector.hashCount}`;
    test(`${label(vector)} → ${expected}`, () => {
      // An empty digest list: layout errors are checked before capacity, and a
      // successful layout with no digests is still a valid filter to inspect.
      const result = ArtifactBloomFilter.create([], specOf(vector));
      if (vector.error !== undefined) {
        assert.deepEqual(result, { kind: "failure", error: vector.error });
        return;
      }
      if (result.kind === "failure") assert.fail(`expected a layout, got ${result.error}`);
      try {
        assert.equal(result.value.getBitCount(), vector.bitCount, "bitCount");
        assert.equal(result.value.getHashCount(), vector.hashCount, "hashCount");
        // createPacked shares the spec path; an empty buffer must plan the same layout.
        const packed = ArtifactBloomFilter.createPacked(new Uint8Array(0), specOf(vector));
        if (packed.kind === "failure") assert.fail(`createPacked: ${packed.error}`);
        assert.equal(packed.value.getBitCount(), vector.bitCount, "createPacked bitCount");
        assert.equal(packed.value.getHashCount(), vector.hashCount, "createPacked hashCount");
        packed.value.free();
      } finally {
        result.value.free();
      }
    });
  }
});

describe("filters.json", () => {
  test("has cases", () => assert.ok(filters.cases.length > 0));

  for (const vector of filters.cases) {
    test(`${vector.count} members, ${label(vector)}`, () => {
      const members = Array.from({ length: vector.count }, (_, i) => sha256(`member:${i}`));
      const result = ArtifactBloomFilter.create(members, specOf(vector));
      if (result.kind === "failure") assert.fail(result.error);
      const filter = result.value;
      try {
        assert.equal(filter.getBitCount(), vector.bitCount, "bitCount");
        assert.equal(filter.getHashCount(), vector.hashCount, "hashCount");
        assert.equal(filter.getInsertedItemCount(), vector.count, "insertedItemCount");

        const bits = filter.serializeBits();
        assert.equal(bits.byteLength, vector.bitCount / 8, "serializeBits length");
        assert.equal(createHash("sha256").update(bits).digest("hex"), vector.bitsSha256, "bitsSha256");
        if (vector.bitsHex !== undefined) assert.equal(hex(bits), vector.bitsHex, "bitsHex");
        assert.equal(popcount(bits), vector.setBits, "set bits");
        // Exact equality is right here: both sides are one IEEE division of
        // the same two integers.
        assert.equal(filter.getFillRatio(), vector.setBits / vector.bitCount, "fill ratio");

        const strangers = Array.from({ length: vector.nonMembersChecked }, (_, i) => sha256(`non-member:${i}`));
        checkEveryQueryPath(filter, members, strangers, vector, "create");

        const packed = ArtifactBloomFilter.createPacked(pack(members), specOf(vector));
        if (packed.kind === "failure") assert.fail(`createPacked: ${packed.error}`);
        assert.equal(
          createHash("sha256").update(packed.value.serializeBits()).digest("hex"),
          vector.bitsSha256,
          "createPacked bits",
        );
        checkEveryQueryPath(packed.value, members, strangers, vector, "createPacked");
        packed.value.free();

        const loaded = loadSnapshot(encodeSnapshot(filter, { catalogVersion: 1 }));
        if (loaded.kind === "failure") assert.fail(`loadSnapshot: ${loaded.error}`);
        checkEveryQueryPath(loaded.value.filter, members, strangers, vector, "loadSnapshot");
        loaded.value.filter.free();

        // The probe positions the vectors pin, built one digest at a time:
        // the filter of that digest alone has exactly those bits set, and
        // answers "maybe" for it on every path.
        for (const probe of vector.probes) {
          const digest = new Uint8Array(Buffer.from(probe.digest, "hex"));
          const alone = ArtifactBloomFilter.create([digest], specOf(vector)).value;
          assert.deepEqual(
            setBits(alone.serializeBits()),
            [...new Set(probe.bits)].sort((a, b) => a - b),
            `bits of ${probe.digest}`,
          );
          assert.equal(alone.mightContain(digest), true);
          assert.deepEqual(Array.from(alone.mightContainMany(digest)), [1]);
          alone.free();
        }
      } finally {
        filter.free();
      }
    });
  }
});

function pack(digests) {
  const packed = new Uint8Array(digests.length * 32);
  digests.forEach((digest, i) => {
    packed.set(digest, i * 32);
  });
  return packed;
}

/** The positions of the set bits (bit i in byte i >> 3, LSB first), ascending. */
function setBits(bytes) {
  const positions = [];
  for (let i = 0; i < bytes.length * 8; i += 1) if (bytes[i >> 3] & (1 << (i & 7))) positions.push(i);
  return positions;
}

/**
 * Members answer "maybe" and exactly `nonMembersPresent` strangers do, on
 * the single path and both batch paths, which also agree answer by answer.
 */
function checkEveryQueryPath(filter, members, strangers, vector, source) {
  for (const [i, digest] of members.entries()) {
    assert.equal(filter.mightContain(digest), true, `${source}: member:${i} must answer maybe`);
  }
  const single = strangers.map((digest) => Number(filter.mightContain(digest)));
  assert.equal(
    single.reduce((a, b) => a + b, 0),
    vector.nonMembersPresent,
    `${source}: non-members answering maybe`,
  );
  assert.deepEqual(Array.from(filter.mightContainMany(pack(strangers))), single, `${source}: mightContainMany = mightContain`);
  assert.equal(filter.countMaybe(pack(strangers)), vector.nonMembersPresent, `${source}: countMaybe`);
  assert.ok(
    filter.mightContainMany(pack(members)).every((flag) => flag === 1),
    `${source}: mightContainMany of members`,
  );
  assert.equal(filter.countMaybe(pack(members)), members.length, `${source}: countMaybe of members`);
}

describe("filter properties", () => {
  const spec = { expectedItemCount: 1000, targetFalsePositiveRate: 0.001 };

  test("estimateFalsePositiveRate() is (−expm1(−k·n/m))^k for the inserted n", () => {
    // Several fill levels, including 0 (rate exactly 0) and full capacity.
    for (const n of [0, 1, 17, 500, 1000]) {
      const digests = Array.from({ length: n }, (_, i) => sha256(`member:${i}`));
      const result = ArtifactBloomFilter.create(digests, spec);
      if (result.kind === "failure") assert.fail(result.error);
      const filter = result.value;
      const m = filter.getBitCount();
      const k = filter.getHashCount();
      const expected = (-Math.expm1((-k * n) / m)) ** k;
      // Rust's f64::powi/powf and expm1 (libm) may differ from V8's in the
      // last bits; 1e-12 relative is far below any meaningful difference and
      // far above a few ulps.
      const actual = filter.estimateFalsePositiveRate();
      if (n === 0) assert.equal(actual, 0);
      else assert.ok(Math.abs(actual - expected) <= 1e-12 * expected, `n=${n}: ${actual} vs ${expected}`);
      filter.free();
    }
  });

  test("serializeBits() returns a copy: mutating it changes nothing", () => {
    const members = Array.from({ length: 100 }, (_, i) => sha256(`member:${i}`));
    const result = ArtifactBloomFilter.create(members, spec);
    if (result.kind === "failure") assert.fail(result.error);
    const filter = result.value;
    const original = filter.serializeBits();
    const answersBefore = Array.from({ length: 2000 }, (_, i) => filter.mightContain(sha256(`non-member:${i}`)));

    const copy = filter.serializeBits();
    assert.notEqual(copy, original, "each call returns a new array");
    copy.fill(0xff); // would turn every answer into "maybe" if it aliased the filter
    const zeroed = filter.serializeBits();
    zeroed.fill(0); // would introduce false negatives if it aliased the filter

    assert.deepEqual(filter.serializeBits(), original);
    for (const digest of members) assert.equal(filter.mightContain(digest), true);
    const answersAfter = Array.from({ length: 2000 }, (_, i) => filter.mightContain(sha256(`non-member:${i}`)));
    assert.deepEqual(answersAfter, answersBefore);
    assert.equal(filter.getFillRatio(), popcount(original) / filter.getBitCount());
    filter.free();
  });
});
