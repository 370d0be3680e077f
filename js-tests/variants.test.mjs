// The other filters through the published package (artifact-bloom/variants):
// TlBloom (TLBF, shared TLBF vectors byte for byte), the mergeable CRDT
// filter (sample, merge laws, deltas, wire form), the scalable chain and the
// sizing helpers.
//
// Every random input comes from a seeded PRNG, so a failure names a
// reproducible case.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { MergeableBloomFilter, MergeableDelta, ScalableBloomFilter, TlBloom } from "artifact-bloom/variants";
import { alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "artifact-bloom/variants";
import { fromHex, hex, sealed } from "./helpers/digests.mjs";
import { seededRandom } from "./helpers/random.mjs";

const tlbfVectors = JSON.parse(readFileSync(new URL("../../shared/vectors/tlbf.json", import.meta.url), "utf8"));

function ok(result) {
  if (result.kind !== "success") assert.fail(`expected success, got ${result.error}: ${result.message}`);
  return result.value;
}

function failure(result, code) {
  assert.equal(result.kind, "failure", `expected failure ${code}`);
  assert.equal(result.error, code);
  assert.equal(typeof result.message, "string");
  assert.ok(result.message.length > 0);
}

/** n random items: strings or byte arrays, all starting with `tag` so sets never overlap. */
function randomItems(random, tag, n) {
  return Array.from({ length: n }, (_, i) => {
    if (random() < 0.5) return `${tag}:${i}:${Math.floor(random() * 2 ** 32).toString(36)}`;
    const tail = Array.from({ length: Math.floor(random() * 24) }, () => Math.floor(random() * 256));
    return new Uint8Array([...Buffer.from(`${tag}:${i}:`), ...tail]);
  });
}

function isBitSet(bytes, bit) {
  return (bytes[32 + (bit >> 3)] >> (bit & 7)) & 1;
}

describe("TlBloom (TLBF)", () => {
  for (const [index, vector] of tlbfVectors.cases.entries()) {
    test(`vector ${index}: n = ${vector.n}, p = ${vector.p}, ${vector.items.length} items → bytes and answers`, () => {
      const filter = TlBloom.withRate(vector.n, vector.p);
      assert.equal(filter.m, vector.m);
      assert.equal(filter.k, vector.k);
      for (const item of vector.items) filter.insert(item);
      const bytes = filter.toBytes();
      assert.equal(hex(bytes), vector.bytesHex);
      assert.equal(filter.insertedCount, vector.items.length);
      for (const item of vector.items) assert.equal(filter.contains(item), true, item);
      // Strings are their UTF-8 bytes.
      for (const item of vector.items) assert.equal(filter.contains(new TextEncoder().encode(item)), true);
      // The listed probes: inserted items' bits are set in the bytes.
      for (const [item, probes] of Object.entries(vector.probes ?? {})) {
        if (vector.items.includes(item)) for (const bit of probes) assert.equal(isBitSet(bytes, bit), 1, `${item} bit ${bit}`);
      }

      const loaded = ok(TlBloom.fromBytes(fromHex(vector.bytesHex)));
      assert.equal(hex(loaded.toBytes()), vector.bytesHex);
      assert.deepEqual([loaded.m, loaded.k, loaded.insertedCount], [vector.m, vector.k, vector.items.length]);
      assert.equal(loaded.fillRatio, filter.fillRatio);
      for (const item of vector.items) assert.equal(loaded.contains(item), true);
    });
  }

  test("the seed's worked example: cat, dog → the 35 bytes of the seed text; bird is not contained", () => {
    // Copied from the TLBF format's "Worked example".
    const seedBytes = fromHex(`
      54 4c 42 46 01 00 00 00 14 00 00 00 00 00 00 00
      03 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00
      09 68 02`);
    const filter = TlBloom.withRate(4, 0.1);
    assert.deepEqual([filter.m, filter.k], [20, 3]);
    assert.equal(filter.fillRatio, 0);
    filter.insert("cat").insert("dog");
    assert.deepEqual(filter.toBytes(), seedBytes);
    assert.equal(filter.toBytes().length, 35);
    // bird probes 14, 7, 16: bit 7 is clear.
    assert.equal(isBitSet(seedBytes, 7), 0);
    assert.equal(filter.contains("bird"), false);
    assert.equal(filter.contains("cat"), true);
    assert.equal(filter.contains("dog"), true);
    // Six distinct bits (0, 3, 11, 13, 14, 17) of 20.
    assert.equal(filter.fillRatio, 6 / 20);
  });

  test("union ORs the bits and adds the counts; a different m or k is incompatibleFilters", () => {
    const a = TlBloom.withRate(100, 0.01);
    const b = TlBloom.withRate(100, 0.01);
    a.insert("cat").insert("dog");
    b.insert("bird").insert("cat").insert("fish");
    assert.equal(a.union(b), a);
    assert.equal(a.insertedCount, 5);
    for (const item of ["cat", "dog", "bird", "fish"]) assert.equal(a.contains(item), true, item);
    assert.equal(b.insertedCount, 3, "the argument is unchanged");

    // Union with itself: bits unchanged, count doubled.
    const bitsBefore = a.toBytes().subarray(32);
    a.union(a);
    assert.equal(a.insertedCount, 10);
    assert.deepEqual(a.toBytes().subarray(32), bitsBefore);

    const otherM = TlBloom.withRate(101, 0.01); // same k, larger m
    const otherK = ok(TlBloom.fromBytes(new Uint8Array([...a.toBytes()].map((x, i) => (i === 16 ? 9 : x)))));
    for (const other of [otherM, otherK]) {
      assert.throws(
        () => a.union(other),
        (error) => error instanceof Error && error.code === "incompatibleFilters",
      );
    }
    assert.equal(a.insertedCount, 10, "a failed union changes nothing");
  });

  test("every rejection of fromBytes is a typed failure (the seed's, then the stricter ones)", () => {
    const filter = TlBloom.withRate(4, 0.1);
    filter.insert("cat");
    const good = filter.toBytes();
    const edit = (patch) => {
      const bytes = good.slice();
      const view = new DataView(bytes.buffer);
      patch(view, bytes);
      return bytes;
    };
    const cases = [
      ["truncated", good.subarray(0, 31)],
      ["truncated", new Uint8Array(0)],
      ["badMagic", edit((v) => v.setUint8(0, 0x53))],
      ["unsupportedVersion", edit((v) => v.setUint32(4, 2, true))],
      ["unsupportedVersion", edit((v) => v.setUint32(4, 0, true))],
      ["zeroBitCount", edit((v) => v.setBigUint64(8, 0n, true))],
      ["zeroHashCount", edit((v) => v.setUint32(16, 0, true))],
      ["nonZeroReserved", edit((v) => v.setUint32(20, 1, true))],
      ["filterTooLarge", edit((v) => v.setBigUint64(8, 2n ** 30n + 1n, true))],
      ["hashCountTooLarge", edit((v) => v.setUint32(16, 4097, true))],
      ["lengthMismatch", good.subarray(0, 34)],
      ["lengthMismatch", new Uint8Array([...good, 0])],
      ["lengthMismatch", edit((v) => v.setBigUint64(8, 25n, true))],
      ["lengthMismatch", edit((v) => v.setBigUint64(8, 16n, true))],
      [
        "nonZeroPadding",
        edit((_, b) => {
          b[34] |= 0x10;
        }),
      ],
    ];
    for (const [code, bytes] of cases) failure(TlBloom.fromBytes(bytes), code);
    // The boundary values are accepted.
    ok(TlBloom.fromBytes(edit((v) => v.setUint32(16, 4096, true)))).free();
    ok(
      TlBloom.fromBytes(
        edit((_, b) => {
          b[34] |= 0x08;
        }),
      ),
    ).free();
    // A large count round-trips.
    const counted = ok(TlBloom.fromBytes(edit((v) => v.setBigUint64(24, 2n ** 40n, true))));
    assert.equal(counted.insertedCount, 2 ** 40);
  });

  test("free() releases; later use throws; dispose is free", () => {
    const filter = TlBloom.withRate(10, 0.1);
    assert.equal(filter.freed, false);
    filter[Symbol.dispose]();
    assert.equal(filter.freed, true);
    assert.throws(() => filter.contains("x"), /freed/);
    assert.throws(() => filter.m, /freed/);
    filter.free(); // twice is fine
  });
});

describe("MergeableBloomFilter", () => {
  /** An independent copy (decode of the canonical encoding). */
  const copy = (filter) => ok(MergeableBloomFilter.decode(filter.encode()));
  const same = (a, b, message) => assert.equal(hex(a.encode()), hex(b.encode()), message);

  test("the seed's sample: replicas A and B, alice and bob, merged mightContain both", () => {
    const replicaA = MergeableBloomFilter.create(1_000, 0.01);
    const replicaB = MergeableBloomFilter.create(1_000, 0.01);
    assert.equal(replicaA.piece(replicaA.add("alice")), replicaA);
    replicaB.piece(replicaB.add("bob"));
    const merged = replicaA.piece(replicaB);
    assert.equal(merged.mightContain("alice"), true);
    assert.equal(merged.mightContain("bob"), true);
    assert.equal(replicaB.mightContain("alice"), false, "piece is in place on the receiver only");
    // Shape: the seed's optimum (9586, 7) rounded up to whole words.
    assert.deepEqual([merged.bitCount, merged.hashCount, merged.wordCount], [9600, 7, 150]);
    replicaA.free();
    replicaB.free();
  });

  test("add returns the changed words with their full values; a repeated add returns none", () => {
    const filter = MergeableBloomFilter.create(1_000, 0.01);
    const delta = filter.add("alice");
    assert.deepEqual([delta.bitCount, delta.hashCount], [9600, 7]);
    const entries = delta.entries;
    assert.ok(entries.length >= 1 && entries.length <= 7);
    let bits = 0;
    for (const [i, { wordIndex, wordValue }] of entries.entries()) {
      assert.equal(typeof wordValue, "bigint");
      assert.ok(wordValue > 0n && wordValue < 2n ** 64n);
      if (i > 0) assert.ok(wordIndex > entries[i - 1].wordIndex);
      bits += wordValue.toString(2).replaceAll("0", "").length;
    }
    assert.ok(bits >= 1 && bits <= 7);
    assert.equal(filter.nonZeroWordCount, entries.length);
    assert.deepEqual(filter.add("alice").entries, []);
    assert.ok(Object.isFrozen(entries) && Object.isFrozen(entries[0]));
  });

  test("merge laws on random replicas: idempotent, commutative, associative; deltas in any order equal the merge", (t) => {
    const random = seededRandom(0x5eed0003);
    const rounds = 40;
    for (let round = 0; round < rounds; round += 1) {
      const n = 1 + Math.floor(random() * 300);
      const p = [0.5, 0.1, 0.01, 0.001][Math.floor(random() * 4)];
      const replicas = [];
      const deltas = [];
      const allItems = [];
      for (let r = 0; r < 3; r += 1) {
        const replica = MergeableBloomFilter.create(n, p);
        const items = randomItems(random, `r${round}.${r}`, Math.floor(random() * 2 * n));
        for (const item of items) deltas.push(replica.add(item));
        replicas.push(replica);
        allItems.push(...items);
      }
      const [a, b, c] = replicas;
      // Idempotent: a ⊔ a = a, with itself and with a copy.
      same(copy(a).piece(a), a, "a ⊔ a");
      const selfMerged = copy(a);
      same(selfMerged.piece(selfMerged), a, "a.piece(a)");
      // Commutative.
      same(copy(a).piece(b), copy(b).piece(a), "a ⊔ b = b ⊔ a");
      // Associative.
      const left = copy(a).piece(b).piece(c);
      const right = copy(a).piece(copy(b).piece(c));
      same(left, right, "(a ⊔ b) ⊔ c = a ⊔ (b ⊔ c)");
      // Deltas, shuffled, some repeated, some through the wire: the same state.
      const order = [...deltas, ...deltas.filter(() => random() < 0.2)];
      for (let i = order.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      const rebuilt = MergeableBloomFilter.create(n, p);
      for (const delta of order) {
        rebuilt.piece(random() < 0.3 ? ok(MergeableDelta.decode(delta.encode())) : delta);
      }
      same(rebuilt, left, "deltas in any order = a ⊔ b ⊔ c");
      // No false negatives after merging.
      for (const item of allItems) assert.equal(left.mightContain(item), true);
      for (const filter of [...replicas, left, right, rebuilt, selfMerged]) filter.free();
    }
    t.diagnostic(`${rounds} rounds of 3 replicas (seed 0x5eed0003)`);
  });

  test("different shapes cannot be pieced: incompatibleFilters, nothing changes", () => {
    const a = MergeableBloomFilter.create(1_000, 0.01);
    const b = MergeableBloomFilter.create(2_000, 0.01);
    a.add("x");
    const before = a.encode();
    const isIncompatible = (error) => error instanceof Error && error.code === "incompatibleFilters";
    assert.throws(() => a.piece(b), isIncompatible);
    assert.throws(() => a.piece(b.add("y")), isIncompatible);
    assert.deepEqual(a.encode(), before);
  });

  test("encode/decode round trip, sparse and dense; deltas too", () => {
    const random = seededRandom(0xdec0de);
    const sparse = MergeableBloomFilter.create(1_000, 0.01);
    for (const item of randomItems(random, "sparse", 5)) sparse.add(item);
    const dense = MergeableBloomFilter.create(1_000, 0.01);
    const members = randomItems(random, "dense", 1_000);
    for (const item of members) dense.add(item);
    const strangers = randomItems(random, "stranger", 2_000);
    for (const [filter, kind] of [
      [sparse, 2],
      [dense, 1],
    ]) {
      const bytes = filter.encode();
      assert.equal(bytes[6], kind, "kind byte");
      assert.equal(hex(bytes.subarray(0, 4)), "4d424c46");
      const loaded = ok(MergeableBloomFilter.decode(bytes));
      assert.deepEqual(loaded.encode(), bytes);
      assert.deepEqual(
        [loaded.bitCount, loaded.hashCount, loaded.wordCount, loaded.nonZeroWordCount, loaded.fillRatio],
        [filter.bitCount, filter.hashCount, filter.wordCount, filter.nonZeroWordCount, filter.fillRatio],
      );
      for (const item of [...members, ...strangers]) assert.equal(loaded.mightContain(item), filter.mightContain(item));
    }
    // Sizes: sparse = 24 + 12·nonZero + 32; dense = 24 + 8·words + 32.
    assert.equal(sparse.encode().length, 56 + 12 * sparse.nonZeroWordCount);
    assert.equal(dense.encode().length, 56 + 8 * dense.wordCount);
    // An empty state is sparse with no entries.
    const empty = MergeableBloomFilter.create(10, 0.1);
    assert.equal(empty.encode().length, 56);

    const delta = dense.add("one more");
    const decoded = ok(MergeableDelta.decode(delta.encode()));
    assert.deepEqual(decoded.entries, delta.entries);
    assert.deepEqual(decoded.encode(), delta.encode());
    assert.equal(delta.encode()[6], 3);
  });

  test("decode of corrupted bytes is a typed failure, never an exception", () => {
    const filter = MergeableBloomFilter.create(1_000, 0.01);
    for (const item of ["a", "b", "c"]) filter.add(item);
    const good = filter.encode();
    assert.equal(good[6], 2, "a sparse state");
    const delta = filter.add("d").encode();
    failure(MergeableBloomFilter.decode(good.subarray(0, 55)), "truncated");
    failure(MergeableBloomFilter.decode(new Uint8Array(0)), "truncated");
    failure(MergeableBloomFilter.decode(good.subarray(0, good.length - 1)), "checksumMismatch");
    failure(MergeableBloomFilter.decode(delta), "unexpectedKind");
    failure(MergeableDelta.decode(good), "unexpectedKind");
    // Every single-bit flip is refused (the SHA-256 trailer covers the rest).
    const allowed = new Set(["badMagic", "unsupportedVersion", "checksumMismatch"]);
    for (let bit = 0; bit < good.length * 8; bit += 1) {
      const bytes = good.slice();
      bytes[bit >> 3] ^= 1 << (bit & 7);
      for (const result of [MergeableBloomFilter.decode(bytes), MergeableDelta.decode(bytes)]) {
        assert.equal(result.kind, "failure", `bit ${bit}`);
        assert.ok(allowed.has(result.error), `bit ${bit}: ${result.error}`);
      }
    }
    // Re-sealed corruptions reach the deeper checks.
    const reseal = (patch) => {
      const bytes = good.slice(0, good.length - 32);
      patch(new DataView(bytes.buffer), bytes);
      return sealed(bytes);
    };
    failure(MergeableBloomFilter.decode(reseal((v) => v.setUint8(6, 9))), "unknownKind");
    failure(MergeableBloomFilter.decode(reseal((v) => v.setUint8(7, 1))), "nonZeroReserved");
    failure(MergeableBloomFilter.decode(reseal((v) => v.setBigUint64(8, 100n, true))), "invalidBitCount");
    failure(MergeableBloomFilter.decode(reseal((v) => v.setUint32(16, 0, true))), "zeroHashCount");
    failure(MergeableBloomFilter.decode(reseal((v) => v.setUint32(20, 99, true))), "lengthMismatch");
    failure(MergeableBloomFilter.decode(reseal((v) => v.setUint32(24, 9999, true))), "wordIndexOutOfRange");
  });
});

describe("ScalableBloomFilter", () => {
  test("10× the initial capacity: observed FPP on 100,000 non-members < 2× target; no false negatives", (t) => {
    const options = { initialCapacity: 1_000, targetFalsePositiveRate: 0.01, growthFactor: 2, tighteningRatio: 0.5 };
    const random = seededRandom(0x5ca1ab1e);
    const members = randomItems(random, "member", 10 * options.initialCapacity);
    const strangers = randomItems(random, "stranger", 100_000);
    const filter = new ScalableBloomFilter(options);
    assert.equal(filter.stageCount, 1);
    for (const item of members) filter.add(item);
    for (const item of members) assert.equal(filter.mightContain(item), true);
    const falsePositives = strangers.filter((item) => filter.mightContain(item)).length;
    const observed = falsePositives / strangers.length;
    t.diagnostic(`parameters ${JSON.stringify(options)}, PRNG seed 0x5ca1ab1e`);
    t.diagnostic(
      `${filter.itemCount} items in ${filter.stageCount} stages, ${filter.bitCount} bits (${(filter.bitCount / 8 / filter.itemCount).toFixed(2)} bytes/item); `
        + `observed FPP ${observed} (${falsePositives}/100000), estimated ${filter.estimatedFalsePositiveRate.toFixed(5)}, target ${options.targetFalsePositiveRate}`,
    );
    assert.equal(filter.itemCount, 10_000);
    // Stages hold 1000, 2000, 4000, then 3000 of 8000.
    assert.equal(filter.stageCount, 4);
    assert.ok(observed < 2 * options.targetFalsePositiveRate, `observed ${observed}`);
    assert.ok(filter.estimatedFalsePositiveRate < options.targetFalsePositiveRate);
  });

  test("defaults: growthFactor 2, tighteningRatio 0.5", () => {
    const filter = new ScalableBloomFilter({ initialCapacity: 10, targetFalsePositiveRate: 0.05 });
    assert.deepEqual(
      [filter.initialCapacity, filter.targetFalsePositiveRate, filter.growthFactor, filter.tighteningRatio],
      [10, 0.05, 2, 0.5],
    );
  });

  test("encode/decode round trip: equal answers, counts and bytes", () => {
    const random = seededRandom(0xc0ffee);
    const filter = new ScalableBloomFilter({
      initialCapacity: 200,
      targetFalsePositiveRate: 0.02,
      growthFactor: 3,
      tighteningRatio: 0.8,
    });
    const members = randomItems(random, "member", 2_000);
    for (const item of members) filter.add(item);
    const bytes = filter.encode();
    assert.equal(hex(bytes.subarray(0, 4)), "53424c46");
    const loaded = ok(ScalableBloomFilter.decode(bytes));
    assert.deepEqual(loaded.encode(), bytes);
    for (const key of [
      "stageCount",
      "itemCount",
      "bitCount",
      "estimatedFalsePositiveRate",
      "initialCapacity",
      "targetFalsePositiveRate",
      "growthFactor",
      "tighteningRatio",
    ]) {
      assert.equal(loaded[key], filter[key], key);
    }
    for (const item of [...members, ...randomItems(random, "stranger", 20_000)]) {
      assert.equal(loaded.mightContain(item), filter.mightContain(item));
    }
    // Both keep growing identically.
    for (const item of randomItems(random, "more", 500)) {
      loaded.add(item);
      filter.add(item);
    }
    assert.deepEqual(loaded.encode(), filter.encode());
    failure(ScalableBloomFilter.decode(bytes.subarray(0, bytes.length - 1)), "checksumMismatch");
    failure(ScalableBloomFilter.decode(bytes.subarray(0, 10)), "truncated");
  });
});

describe("sizing helpers", () => {
  const LN2 = Math.LN2;

  test("optimalParams: the seeds' examples and the formula", () => {
    // TLBF's worked example: n = 4, p = 0.1 → m = ceil(19.17) = 20, k = round(3.47) = 3.
    assert.deepEqual(optimalParams(4, 0.1), { m: 20, k: 3 });
    // The sizing example: n = 1000, p = 0.01 → m ≈ 9585 (ceil of 9585.06 is 9586), k ≈ 7.
    assert.deepEqual(optimalParams(1_000, 0.01), { m: 9586, k: 7 });
    const random = seededRandom(4);
    for (let i = 0; i < 500; i += 1) {
      const n = 1 + Math.floor(random() * 1e6);
      const p = Math.exp(-random() * 20) * 0.999;
      const m = Math.ceil((-n * Math.log(p)) / (LN2 * LN2));
      const k = Math.max(1, Math.round((m / n) * LN2));
      assert.deepEqual(optimalParams(n, p), { m, k }, `n = ${n}, p = ${p}`);
    }
    // Too large for 2^30 bits.
    assert.throws(
      () => optimalParams(2 ** 30, 0.01),
      (e) => e instanceof RangeError && e.code === "filterTooLarge",
    );
  });

  test("fppFromFillRatio = fill^k; alertFillRatio = (2p)^(1/k) and meets 2p there; expectedFillRatio = 1 − e^(−kn/m)", () => {
    // k = 7 at fill 0.5 gives ≈ 0.78 %; at 0.7, more than 1.6 %.
    assert.equal(fppFromFillRatio(0.5, 7), 0.0078125);
    assert.ok(fppFromFillRatio(0.7, 7) > 0.016);
    assert.equal(fppFromFillRatio(0, 3), 0);
    assert.equal(fppFromFillRatio(1, 3), 1);
    const random = seededRandom(6);
    for (let i = 0; i < 500; i += 1) {
      const fill = random();
      const p = random() * 0.49 + 1e-6;
      const k = 1 + Math.floor(random() * 40);
      assert.ok(Math.abs(fppFromFillRatio(fill, k) - fill ** k) <= 1e-15);
      const alert = alertFillRatio(p, k);
      assert.ok(Math.abs(alert - (2 * p) ** (1 / k)) <= 1e-15);
      assert.ok(Math.abs(fppFromFillRatio(alert, k) - 2 * p) <= 1e-12 * Math.max(1, 2 * p));
      const n = Math.floor(random() * 1e6);
      const m = 1 + Math.floor(random() * 1e7);
      assert.ok(Math.abs(expectedFillRatio(n, m, k) - -Math.expm1((-k * n) / m)) <= 1e-15);
    }
    assert.equal(expectedFillRatio(0, 100, 3), 0);
    // The alert line for p = 1 %, k = 7: about 0.572, not an arbitrary 80 %.
    assert.ok(Math.abs(alertFillRatio(0.01, 7) - 0.5718603679678214) < 1e-12);
  });

  test("the seed's overfill question: at 2n the modeled rate far exceeds p", (t) => {
    const { m, k } = optimalParams(1_000, 0.01);
    const model = (n) => fppFromFillRatio(expectedFillRatio(n, m, k), k);
    t.diagnostic(
      `n = 1000, p = 0.01 → m = ${m}, k = ${k}: model at n ${model(1000).toFixed(5)}, 1.5n ${model(1500).toFixed(5)}, 2n ${model(2000).toFixed(5)}`,
    );
    assert.ok(model(1000) > 0.0099 && model(1000) < 0.0101);
    assert.ok(model(1500) > 4 * 0.01);
    assert.ok(model(2000) > 10 * 0.01);
  });

  test("step 4: n members, 1000+ absent keys: observed FPP ≤ 2p (TlBloom and mergeable); step 6: fillRatio 0 then monotone", () => {
    const random = seededRandom(0xf1f0);
    const n = 1_000;
    const p = 0.01;
    const members = randomItems(random, "member", n);
    const strangers = randomItems(random, "stranger", 20_000);
    const tl = TlBloom.withRate(n, p);
    const mg = MergeableBloomFilter.create(n, p);
    assert.equal(tl.fillRatio, 0);
    assert.equal(mg.fillRatio, 0);
    let previous = 0;
    for (const item of members) {
      tl.insert(item);
      mg.add(item);
      assert.ok(tl.fillRatio >= previous);
      previous = tl.fillRatio;
    }
    for (const [name, answers] of [
      ["tlbf", (x) => tl.contains(x)],
      ["mergeable", (x) => mg.mightContain(x)],
    ]) {
      const observed = strangers.filter(answers).length / strangers.length;
      assert.ok(observed <= 2 * p, `${name}: ${observed}`);
    }
  });

  test("step 6: overfilled to the alert fill ratio, the observed rate is ≈ 2p", (t) => {
    const random = seededRandom(0xa1e47);
    const p = 0.01;
    const filter = TlBloom.withRate(10_000, p);
    const alert = alertFillRatio(p, filter.k);
    let i = 0;
    while (filter.fillRatio < alert) filter.insert(`extra:${i++}`);
    const strangers = randomItems(random, "stranger", 100_000);
    const observed = strangers.filter((x) => filter.contains(x)).length / strangers.length;
    t.diagnostic(
      `alert fill ${alert.toFixed(4)} reached after ${filter.insertedCount} items: observed ${observed} (2p = ${2 * p})`,
    );
    // 6σ of a binomial at 2p over 100,000 trials, plus 5 % for the model.
    const bound = 6 * Math.sqrt((2 * p * (1 - 2 * p)) / 100_000) + 0.05 * 2 * p;
    assert.ok(Math.abs(observed - 2 * p) <= bound, `observed ${observed}`);
  });
});
