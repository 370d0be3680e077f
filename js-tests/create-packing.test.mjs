// `ArtifactBloomFilter.create(digests[])` packs the digests straight into
// staged wasm memory in one pass, checking and copying each element as it is
// read. Reading an element can run caller code (an accessor, a Proxy trap),
// and that code can use the package too: stage another input (which reuses
// the same wasm buffer) or grow wasm memory (which detaches the view being
// filled). The build must notice and still produce exactly the model's
// filter, reading each element once per pass and never writing outside the
// current input. These tests fail if the packing trusted its view blindly.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, sha256, wasmMemoryBytes } from "artifact-bloom";
import { createModel } from "./model/reference-model.mjs";

const spec = { expectedItemCount: 500, targetFalsePositiveRate: 0.01 };
const digest = (text) => new Uint8Array(createHash("sha256").update(text).digest());
const members = Array.from({ length: 500 }, (_, i) => digest(`member:${i}`));
const modelBits = createModel(members, spec).value.bits;

/** `members` as an array whose element `at` is an accessor running `sideEffect` first. */
function withAccessor(at, sideEffect) {
  const digests = [...members];
  let reads = 0;
  Object.defineProperty(digests, at, {
    enumerable: true,
    get() {
      reads += 1;
      sideEffect();
      return members[at];
    },
  });
  return { digests, reads: () => reads };
}

function assertModelFilter(result, what) {
  assert.equal(result.kind, "success", `${what}: ${JSON.stringify(result)}`);
  try {
    assert.deepEqual(result.value.serializeBits(), modelBits, `${what}: bits`);
    assert.equal(result.value.getInsertedItemCount(), members.length);
    for (const member of members) assert.equal(result.value.mightContain(member), true);
  } finally {
    result.value.free();
  }
}

describe("create(digests[]) packing while caller code runs", () => {
  test("plain arrays: the one-pass packing builds the model's filter", () => {
    assertModelFilter(ArtifactBloomFilter.create(members, spec), "plain");
  });

  test("an accessor that builds another filter (restaging the shared input buffer)", () => {
    const other = [digest("other")];
    const { digests, reads } = withAccessor(250, () => {
      const nested = ArtifactBloomFilter.create(other, { expectedItemCount: 1, targetFalsePositiveRate: 0.1 });
      nested.value.free();
    });
    assertModelFilter(ArtifactBloomFilter.create(digests, spec), "restaged");
    // Read once: the careful pass that takes over keeps what was read.
    assert.equal(reads(), 1);
  });

  // Two ways to grow memory: staging an input as large as all of it (the
  // staging count changes too), and reserving a bit array as large as all
  // of it (nothing staged: only the detached view tells).
  const growers = {
    "staging a large input": () => sha256(new Uint8Array(wasmMemoryBytes())),
    // (≈ 1.2 bytes of bits per expected item at p = 0.01, so more than all of memory.)
    "reserving a large bit array": () => {
      const built = ArtifactBloomFilter.create([], {
        expectedItemCount: Math.min(wasmMemoryBytes(), 2 ** 30),
        targetFalsePositiveRate: 0.01,
      });
      if (built.kind !== "success") throw new Error(`could not reserve a large bit array: ${built.error}`);
      built.value.free();
    },
  };
  for (const [how, grow] of Object.entries(growers)) {
    test(`an accessor that grows wasm memory by ${how} (detaching the view being filled)`, () => {
      let grew = false;
      const { digests } = withAccessor(100, () => {
        const before = wasmMemoryBytes();
        grow();
        grew = wasmMemoryBytes() > before;
      });
      assertModelFilter(ArtifactBloomFilter.create(digests, spec), how);
      assert.ok(grew, "the accessor did not grow wasm memory");
    });
  }

  test("a disturbance after whole chunks were inserted (40,000 digests: chunks of 16,384)", () => {
    const many = Array.from({ length: 40_000 }, (_, i) => digest(`many:${i}`));
    const manySpec = { expectedItemCount: 40_000, targetFalsePositiveRate: 0.01 };
    const digests = [...many];
    let reads = 0;
    // In the third chunk: two chunks are in the filter when the accessor restages.
    Object.defineProperty(digests, 35_000, {
      get() {
        reads += 1;
        ArtifactBloomFilter.create([digest("other")], { expectedItemCount: 1, targetFalsePositiveRate: 0.1 }).value.free();
        return many[35_000];
      },
    });
    const result = ArtifactBloomFilter.create(digests, manySpec);
    assert.equal(result.kind, "success");
    assert.deepEqual(result.value.serializeBits(), createModel(many, manySpec).value.bits);
    assert.equal(result.value.getInsertedItemCount(), 40_000);
    assert.equal(reads, 1);
    result.value.free();
  });

  test("an accessor with no side effect is read once", () => {
    const { digests, reads } = withAccessor(7, () => {});
    assertModelFilter(ArtifactBloomFilter.create(digests, spec), "quiet accessor");
    assert.equal(reads(), 1);
  });

  test("invalid elements anywhere are invalidDigest, Proxies of Uint8Arrays included", () => {
    for (const bad of [
      new Uint8Array(31),
      new Proxy(new Uint8Array(32), {}),
      "a".repeat(32),
      new DataView(new ArrayBuffer(32)),
    ]) {
      for (const at of [0, 250, 499]) {
        const digests = [...members];
        digests[at] = bad;
        assert.deepEqual(ArtifactBloomFilter.create(digests, spec), { kind: "failure", error: "invalidDigest" });
      }
    }
  });

  test("a Proxy array is read through its traps once per element, length once", () => {
    const reads = new Map();
    const proxy = new Proxy(members, {
      get(target, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return Reflect.get(target, key, receiver);
      },
    });
    assertModelFilter(ArtifactBloomFilter.create(proxy, spec), "proxy");
    assert.equal(reads.get("length"), 1);
    for (let i = 0; i < members.length; i += 1) assert.equal(reads.get(String(i)), 1, `element ${i}`);
  });
});
