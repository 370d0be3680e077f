// Bad-input tables for every public method. The contract (docs/ABF1.md, the
// reference, index.d.ts): a value that is not a 32-byte Uint8Array is
// `invalidDigest` when building and a thrown error when querying — NEVER a
// silent "definitely absent", which would skip a lookup for an artifact that
// exists. Spec errors are results, not exceptions, in the reference's order.
// Valid-but-unusual inputs (Buffers, subarrays at an offset, other realms)
// must behave exactly like a fresh Uint8Array.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import vm from "node:vm";
import { ArtifactBloomFilter, Sha256, sha256, wasmMemoryBytes } from "artifact-bloom";

const SPEC = Object.freeze({ expectedItemCount: 10, targetFalsePositiveRate: 0.01 });

function digestOf(text) {
  return new Uint8Array(createHash("sha256").update(text).digest());
}

function build(digests, spec = SPEC) {
  const result = ArtifactBloomFilter.create(digests, spec);
  if (result.kind === "failure") assert.fail(`create failed: ${result.error}`);
  return result.value;
}

// [label, value]: none of these is a 32-byte Uint8Array.
const NOT_A_DIGEST = [
  ["null", null],
  ["undefined", undefined],
  ["0", 0],
  ["1.5", 1.5],
  ["NaN", Number.NaN],
  ['""', ""],
  ['"ab"', "ab"],
  ["64-char hex string", "ab".repeat(32)],
  ["{}", {}],
  ["[]", []],
  ["[1,2,3]", [1, 2, 3]],
  ["array of 32 numbers", Array.from({ length: 32 }, (_, i) => i)],
  ["ArrayBuffer(32)", new ArrayBuffer(32)],
  ["DataView(32 bytes)", new DataView(new ArrayBuffer(32))],
  ["Uint16Array(16) (32 bytes)", new Uint16Array(16)],
  ["Int8Array(32)", new Int8Array(32)],
  ["Uint8ClampedArray(32)", new Uint8ClampedArray(32)],
  ["Float64Array(4) (32 bytes)", new Float64Array(4)],
  ["Uint8Array(31)", new Uint8Array(31)],
  ["Uint8Array(33)", new Uint8Array(33)],
  ["Uint8Array(0)", new Uint8Array(0)],
];

const isUint8 = (value) => Object.prototype.toString.call(value) === "[object Uint8Array]";

describe("mightContain(not a digest) throws, never answers", () => {
  const filter = build([digestOf("member:0")]);
  for (const [label, value] of NOT_A_DIGEST) {
    test(label, () => {
      assert.throws(
        () => filter.mightContain(value),
        (error) => {
          assert.ok(error instanceof RangeError || error instanceof TypeError, `got ${error?.constructor?.name}`);
          assert.match(error.message, /digest/);
          return true;
        },
      );
    });
  }
});

describe("create() rejects non-digests as invalidDigest", () => {
  for (const [label, value] of NOT_A_DIGEST) {
    test(`create([${label}], spec)`, () => {
      assert.deepEqual(ArtifactBloomFilter.create([value], SPEC), { kind: "failure", error: "invalidDigest" });
    });
    // A bad element after good ones must not be skipped.
    test(`create([digest, ${label}], spec)`, () => {
      assert.deepEqual(ArtifactBloomFilter.create([digestOf("a"), value], SPEC), { kind: "failure", error: "invalidDigest" });
    });
    if (!Array.isArray(value)) {
      test(`create(${label}, spec): digests not an array`, () => {
        assert.deepEqual(ArtifactBloomFilter.create(value, SPEC), { kind: "failure", error: "invalidDigest" });
      });
    }
  }
  // Arrays as `digests` follow the reference's order: capacity before elements.
  test("create([], spec) is an empty filter", () => {
    const result = ArtifactBloomFilter.create([], SPEC);
    assert.equal(result.kind, "success");
    result.value.free();
  });
  test("create([1,2,3], spec) → invalidDigest", () => {
    assert.deepEqual(ArtifactBloomFilter.create([1, 2, 3], SPEC), { kind: "failure", error: "invalidDigest" });
  });
  test("create(array of 32 numbers, n=10) → capacityExceeded (checked before the elements)", () => {
    const numbers = Array.from({ length: 32 }, (_, i) => i);
    assert.deepEqual(ArtifactBloomFilter.create(numbers, SPEC), { kind: "failure", error: "capacityExceeded" });
  });
});

describe("spec validation (create and createPacked)", () => {
  const badCounts = [
    ["undefined", undefined],
    ["null", null],
    ['"10"', "10"],
    ["10n", 10n],
    ["1.5", 1.5],
    ["-1", -1],
    ["0", 0],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2**30+1", 2 ** 30 + 1],
    ["MAX_SAFE_INTEGER+2", Number.MAX_SAFE_INTEGER + 2],
    ["true", true],
  ];
  const badRates = [
    ["undefined", undefined],
    ["null", null],
    ['"0.01"', "0.01"],
    ["0", 0],
    ["-0", -0],
    ["1", 1],
    ["-0.1", -0.1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["2", 2],
  ];
  const builders = [
    ["create", (spec) => ArtifactBloomFilter.create([], spec)],
    ["createPacked", (spec) => ArtifactBloomFilter.createPacked(new Uint8Array(0), spec)],
  ];
  for (const [name, make] of builders) {
    for (const [label, n] of badCounts) {
      test(`${name}: expectedItemCount ${label} → invalidExpectedItemCount`, () => {
        assert.deepEqual(make({ expectedItemCount: n, targetFalsePositiveRate: 0.01 }), {
          kind: "failure",
          error: "invalidExpectedItemCount",
        });
      });
    }
    for (const [label, p] of badRates) {
      test(`${name}: targetFalsePositiveRate ${label} → invalidFalsePositiveRate`, () => {
        assert.deepEqual(make({ expectedItemCount: 10, targetFalsePositiveRate: p }), {
          kind: "failure",
          error: "invalidFalsePositiveRate",
        });
      });
    }
    for (const [label, spec] of [
      ["missing", undefined],
      ["null", null],
      ["{}", {}],
      ['"spec"', "spec"],
    ]) {
      test(`${name}: spec ${label} → invalidExpectedItemCount`, () => {
        assert.deepEqual(make(spec), { kind: "failure", error: "invalidExpectedItemCount" });
      });
    }
    // Both fields bad: the count is checked first, as in the reference.
    test(`${name}: both fields bad → invalidExpectedItemCount`, () => {
      assert.deepEqual(make({ expectedItemCount: 0, targetFalsePositiveRate: 2 }), {
        kind: "failure",
        error: "invalidExpectedItemCount",
      });
    });
    // A valid rate so small that no layout fits 2^30 bits.
    test(`${name}: targetFalsePositiveRate Number.MIN_VALUE → filterTooLarge`, () => {
      assert.deepEqual(make({ expectedItemCount: 10, targetFalsePositiveRate: Number.MIN_VALUE }), {
        kind: "failure",
        error: "filterTooLarge",
      });
    });
  }
  // Spec errors come before digest errors (reference order).
  test("create([bad digest], bad spec) → the spec error", () => {
    assert.deepEqual(ArtifactBloomFilter.create([null], { expectedItemCount: 0, targetFalsePositiveRate: 0.01 }), {
      kind: "failure",
      error: "invalidExpectedItemCount",
    });
  });
});

describe("mightContainMany / countMaybe", () => {
  const filter = build([digestOf("member:0")]);
  for (const [label, value] of NOT_A_DIGEST) {
    const valid = isUint8(value) && value.byteLength % 32 === 0;
    if (valid) continue; // the 0-byte case is a valid empty batch, tested below
    const expected = isUint8(value) ? RangeError : TypeError;
    test(`${label} → ${expected.name}`, () => {
      assert.throws(() => filter.mightContainMany(value), expected);
      assert.throws(() => filter.countMaybe(value), expected);
    });
  }
  test("an empty batch is valid: no flags, count 0", () => {
    assert.deepEqual(filter.mightContainMany(new Uint8Array(0)), new Uint8Array(0));
    assert.equal(filter.countMaybe(new Uint8Array(0)), 0);
  });
});

describe("createPacked(not N × 32 bytes) → invalidDigest", () => {
  for (const [label, value] of NOT_A_DIGEST) {
    if (isUint8(value) && value.byteLength % 32 === 0) continue; // 0 bytes: valid, empty
    test(label, () => {
      assert.deepEqual(ArtifactBloomFilter.createPacked(value, SPEC), { kind: "failure", error: "invalidDigest" });
    });
  }
  test("65 bytes (two digests and a stray byte)", () => {
    assert.deepEqual(ArtifactBloomFilter.createPacked(new Uint8Array(65), SPEC), { kind: "failure", error: "invalidDigest" });
  });
  test("11 digests for n=10 → capacityExceeded", () => {
    assert.deepEqual(ArtifactBloomFilter.createPacked(new Uint8Array(11 * 32), SPEC), {
      kind: "failure",
      error: "capacityExceeded",
    });
  });
});

describe("Sha256.update / sha256 reject non-Uint8Arrays", () => {
  for (const [label, value] of NOT_A_DIGEST) {
    if (isUint8(value)) continue; // any length of Uint8Array is valid input to a hash
    test(label, () => {
      assert.throws(() => sha256(value), TypeError);
      const hasher = new Sha256();
      assert.throws(() => hasher.update(value), TypeError);
      hasher.free();
    });
  }
});

describe("valid but unusual digests behave like a fresh Uint8Array", () => {
  const members = Array.from({ length: 10 }, (_, i) => digestOf(`member:${i}`));
  const others = Array.from({ length: 200 }, (_, i) => digestOf(`non-member:${i}`));
  const filter = build(members);

  // Place `digest` at byteOffset 5 of a larger buffer full of junk, so reading
  // from offset 0 (or past the view) would see different bytes.
  function atOffset(bytes, offset = 5) {
    const backing = new Uint8Array(offset + bytes.byteLength + 11).fill(0xa5);
    backing.set(bytes, offset);
    const view = backing.subarray(offset, offset + bytes.byteLength);
    assert.equal(view.byteOffset, offset);
    return view;
  }

  const variants = [
    ["Node Buffer", (d) => Buffer.from(d)],
    ["Buffer from the shared pool (nonzero byteOffset)", (d) => Buffer.from(Buffer.from(d).toString("hex"), "hex")],
    ["Uint8Array subarray at byteOffset 5", (d) => atOffset(d)],
    [
      "Uint8Array over a SharedArrayBuffer",
      (d) => {
        const shared = new Uint8Array(new SharedArrayBuffer(d.byteLength));
        shared.set(d);
        return shared;
      },
    ],
    [
      "Uint8Array from another realm (vm context)",
      (d) => {
        const foreign = vm.runInNewContext(`new Uint8Array(${d.byteLength})`);
        foreign.set(d);
        assert.equal(foreign instanceof Uint8Array, false, "really another realm");
        return foreign;
      },
    ],
  ];

  for (const [label, convert] of variants) {
    test(`${label}: mightContain, create, createPacked, batch calls, sha256`, () => {
      for (const digest of [...members, ...others]) {
        assert.equal(filter.mightContain(convert(digest)), filter.mightContain(digest));
      }
      const fromVariant = build(members.map(convert));
      assert.deepEqual(fromVariant.serializeBits(), filter.serializeBits());
      fromVariant.free();

      const packed = new Uint8Array(32 * members.length);
      members.forEach((d, i) => {
        packed.set(d, 32 * i);
      });
      const packedResult = ArtifactBloomFilter.createPacked(convert(packed), SPEC);
      if (packedResult.kind === "failure") assert.fail(packedResult.error);
      assert.deepEqual(packedResult.value.serializeBits(), filter.serializeBits());
      packedResult.value.free();

      const batch = new Uint8Array(32 * (members.length + others.length));
      [...members, ...others].forEach((d, i) => {
        batch.set(d, 32 * i);
      });
      assert.deepEqual(filter.mightContainMany(convert(batch)), filter.mightContainMany(batch));
      assert.equal(filter.countMaybe(convert(batch)), filter.countMaybe(batch));

      assert.deepEqual(sha256(convert(batch)), sha256(batch));
      const hasher = new Sha256().update(convert(batch.subarray(0, 100))).update(convert(batch.subarray(100)));
      assert.deepEqual(hasher.digest(), sha256(batch));
    });
  }

  test("a 32-byte view whose ArrayBuffer was transferred (detached) is rejected", () => {
    const digest = Uint8Array.from(members[0]);
    structuredClone(digest.buffer, { transfer: [digest.buffer] });
    assert.equal(digest.byteLength, 0);
    assert.throws(() => filter.mightContain(digest), RangeError);
  });

  test("queries still read the right bytes after the wasm memory grows", () => {
    // The package keeps a view on wasm memory for the scratch digest; growing
    // the memory detaches old views. Build a big filter to force growth.
    // At p = 0.01 a filter takes ~9.6 bits per item, so sizing n from the
    // current memory size guarantees the new bit array cannot fit in it.
    for (const digest of members) assert.equal(filter.mightContain(digest), true); // view exists now
    const before = wasmMemoryBytes();
    const expectedItemCount = Math.ceil(((before + 2 ** 21) * 8) / 9.5);
    const big = ArtifactBloomFilter.create([], { expectedItemCount, targetFalsePositiveRate: 0.01 });
    if (big.kind === "failure") assert.fail(big.error);
    assert.ok(wasmMemoryBytes() > before, `memory grew: ${before} → ${wasmMemoryBytes()}`);
    for (const digest of members) assert.equal(filter.mightContain(digest), true);
    for (const digest of others) assert.equal(big.value.mightContain(digest), false, "empty filter");
    big.value.free();
  });
});

describe("error paths do not leak wasm memory", () => {
  // Each failing call below copies a 32 KB buffer into wasm before the Rust
  // side rejects it. Bound: 1,000 leaked copies would be 32 MB, so the memory
  // staying flat (after a warm-up that lets the allocator reach its steady
  // state) proves the rejected buffers are freed.
  const spec = { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 };
  const tooMany = new Uint8Array(32 * 1001); // capacityExceeded for n = 1000
  const ragged = new Uint8Array(32 * 1000 + 1); // not a whole number of digests
  const full = new Uint8Array(32 * 1000);
  const other = ArtifactBloomFilter.createPacked(new Uint8Array(0), { expectedItemCount: 5000, targetFalsePositiveRate: 0.01 });
  const cases = [
    ["createPacked → capacityExceeded", () => ArtifactBloomFilter.createPacked(tooMany, spec)],
    ["createPacked → invalidDigest", () => ArtifactBloomFilter.createPacked(ragged, spec)],
    [
      "createPacked → filterTooLarge",
      () => ArtifactBloomFilter.createPacked(full, { expectedItemCount: 1000, targetFalsePositiveRate: Number.MIN_VALUE }),
    ],
    ["create + free", () => ArtifactBloomFilter.createPacked(full, spec).value.free()],
    ["union → incompatibleFilters", (filter) => ArtifactBloomFilter.union(filter, other.value)],
    ["mightContainMany", (filter) => filter.mightContainMany(full)],
    ["Sha256 freed without digest()", () => new Sha256().update(full).free()],
  ];
  for (const [label, call] of cases) {
    test(label, () => {
      const filter = ArtifactBloomFilter.createPacked(full, spec).value;
      for (let i = 0; i < 100; i += 1) call(filter);
      const before = wasmMemoryBytes();
      for (let i = 0; i < 1000; i += 1) call(filter);
      assert.equal(wasmMemoryBytes(), before, `${label}: wasm memory grew`);
      filter.free();
    });
  }
});

describe("lifecycle: free, dispose, constructor", () => {
  const METHODS = [
    ["mightContain", (f) => f.mightContain(digestOf("x"))],
    ["mightContain(bad input)", (f) => f.mightContain(null)],
    ["mightContainMany", (f) => f.mightContainMany(new Uint8Array(32))],
    ["countMaybe", (f) => f.countMaybe(new Uint8Array(32))],
    ["getBitCount", (f) => f.getBitCount()],
    ["getHashCount", (f) => f.getHashCount()],
    ["getInsertedItemCount", (f) => f.getInsertedItemCount()],
    ["getExpectedItemCount", (f) => f.getExpectedItemCount()],
    ["getTargetFalsePositiveRate", (f) => f.getTargetFalsePositiveRate()],
    ["estimateFalsePositiveRate", (f) => f.estimateFalsePositiveRate()],
    ["getFillRatio", (f) => f.getFillRatio()],
    ["serializeBits", (f) => f.serializeBits()],
    ["union(freed, live)", (f) => ArtifactBloomFilter.union(f, build([]))],
    ["union(live, freed)", (f) => ArtifactBloomFilter.union(build([]), f)],
  ];

  for (const [how, release] of [
    ["free()", (f) => f.free()],
    ["[Symbol.dispose]()", (f) => f[Symbol.dispose]()],
  ]) {
    test(`after ${how} every method throws an Error`, () => {
      const filter = build([digestOf("member:0")]);
      assert.equal(filter.freed, false);
      release(filter);
      assert.equal(filter.freed, true);
      for (const [name, call] of METHODS) {
        assert.throws(() => call(filter), Error, name);
      }
    });
  }

  test("free() twice, and free() after dispose, are harmless", () => {
    const filter = build([]);
    filter.free();
    filter.free();
    filter[Symbol.dispose]();
    assert.equal(filter.freed, true);
  });

  test("new ArtifactBloomFilter() throws TypeError", () => {
    assert.throws(() => new ArtifactBloomFilter(), TypeError);
    assert.throws(() => new ArtifactBloomFilter(Symbol("artifact-bloom internal"), {}), TypeError);
  });

  test("union rejects non-filters with TypeError", () => {
    const filter = build([]);
    assert.throws(() => ArtifactBloomFilter.union(null, filter), TypeError);
    assert.throws(() => ArtifactBloomFilter.union(filter, {}), TypeError);
    filter.free();
  });

  test("Sha256: freed or finished hashers throw", () => {
    const freed = new Sha256();
    freed.free();
    freed.free();
    assert.throws(() => freed.update(new Uint8Array(1)), Error);
    assert.throws(() => freed.digest(), Error);
    const finished = new Sha256().update(new Uint8Array(3));
    finished.digest();
    assert.throws(() => finished.update(new Uint8Array(1)), Error);
    finished[Symbol.dispose]();
  });
});
