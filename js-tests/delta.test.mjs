// ABD1 snapshot deltas through the built package (docs/ABD1.md):
// encodeSnapshotDelta → applySnapshotDelta rebuilds the target, byte for byte
// on re-encode; every bit flip and truncation of a delta is rejected; a wrong
// base, a removal and a layout change have their codes; composing two deltas
// gives the direct one. Checks the test makes of the formats (the ABF1
// checksum, the ABD1 trailer) use node:crypto, not the package.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { applySnapshotDelta, composeSnapshotDeltas, encodeSnapshotDelta, readSnapshotDeltaHeader } from "artifact-bloom/delta";
import { packedDigests } from "./helpers/abf1.mjs";

const SPEC = { expectedItemCount: 1200, targetFalsePositiveRate: 0.01 };
// The fixed header and the trailer of every ABD1 file (docs/ABD1.md).
const DELTA_HEADER_LENGTH = 200;
const TRAILER_LENGTH = 32;

/** A loaded snapshot of `member0 .. member{count-1}` at `catalogVersion`. */
function snapshotOf(count, catalogVersion, { prefix = "member", spec = SPEC } = {}) {
  return mustSucceed(loadSnapshot(fileOf(count, catalogVersion, { prefix, spec })));
}

function fileOf(count, catalogVersion, { prefix = "member", spec = SPEC } = {}) {
  const built = ArtifactBloomFilter.createPacked(packedDigests(prefix, count), spec);
  const filter = mustSucceed(built);
  try {
    return encodeSnapshot(filter, { catalogVersion });
  } finally {
    filter.free();
  }
}

function mustSucceed(result) {
  if (result.kind !== "success") assert.fail(`expected success, got ${result.error}: ${result.message}`);
  return result.value;
}

function mustFail(result, code) {
  assert.equal(result.kind, "failure", `expected failure ${code}`);
  if (code !== undefined) assert.equal(result.error, code, result.message);
  assert.equal(typeof result.message, "string");
  assert.ok(result.message.length > 0);
  return result;
}

/** The trailer recomputed over the bytes before it (what a forger can do). */
function resealed(bytes) {
  const out = bytes.slice();
  const split = out.byteLength - TRAILER_LENGTH;
  out.set(createHash("sha256").update(out.subarray(0, split)).digest(), split);
  return out;
}

describe("a delta rebuilds the target exactly", () => {
  for (const [from, to] of [
    [1000, 1000],
    [1000, 1001],
    [1000, 1010],
    [1000, 1100],
    [0, 1200],
  ]) {
    test(`${from} → ${to} digests: apply re-encodes to the full target file byte for byte`, () => {
      const base = snapshotOf(from, 7);
      const targetFile = fileOf(to, 8);
      const target = snapshotOf(to, 8);
      const delta = mustSucceed(encodeSnapshotDelta(base, target));
      const applied = mustSucceed(applySnapshotDelta(base, delta));
      assert.deepEqual(encodeSnapshot(applied.filter, { catalogVersion: applied.catalogVersion }), targetFile);
      assert.deepEqual(applied.header, target.header);
      assert.equal(applied.catalogVersion, 8);
      assert.ok(Object.isFrozen(applied));
      // A new snapshot: the base is untouched and independent of it.
      assert.notEqual(applied.filter, base.filter);
      applied.filter.free();
      assert.deepEqual(encodeSnapshot(base.filter, { catalogVersion: 7 }), fileOf(from, 7));
      for (const snapshot of [base, target]) snapshot.filter.free();
    });
  }

  test("a 100,000-digest catalog grown by 1 %: identical to the full load, and small", () => {
    const spec = { expectedItemCount: 120_000, targetFalsePositiveRate: 0.001 };
    const base = snapshotOf(100_000, 1, { spec });
    const targetFile = fileOf(101_000, 2, { spec });
    const target = mustSucceed(loadSnapshot(targetFile));
    const delta = mustSucceed(encodeSnapshotDelta(base, target));
    const applied = mustSucceed(applySnapshotDelta(base, delta, { source: "delta" }));
    assert.deepEqual(encodeSnapshot(applied.filter, { catalogVersion: 2 }), targetFile);
    assert.equal(applied.source, "delta");
    // ~0.5 % of 1,000 items × 10 probes new bits at ~9 bits each ≈ 6 KB; the
    // 4 % target of the issue is a loose upper bound for this size too.
    assert.ok(delta.byteLength < 0.04 * targetFile.byteLength, `${delta.byteLength} of ${targetFile.byteLength}`);
    for (const snapshot of [base, target, applied]) snapshot.filter.free();
  });
});

describe("a damaged delta is rejected", () => {
  const base = snapshotOf(1000, 3);
  const target = snapshotOf(1010, 4);
  const delta = mustSucceed(encodeSnapshotDelta(base, target));

  test("every single-bit flip", () => {
    assert.ok(delta.byteLength > DELTA_HEADER_LENGTH + TRAILER_LENGTH, "the delta has a body");
    const codes = new Set();
    for (let bit = 0; bit < delta.byteLength * 8; bit += 1) {
      const flipped = delta.slice();
      flipped[bit >> 3] ^= 1 << (bit & 7);
      const result = applySnapshotDelta(base, flipped);
      assert.equal(result.kind, "failure", `bit ${bit} accepted`);
      codes.add(result.error);
    }
    // The checksum catches most; magic and versions are checked before it.
    assert.ok(codes.has("checksumMismatch") && codes.has("badMagic"), [...codes].join(", "));
  });

  test("every truncation, and a trailing byte", () => {
    for (let length = 0; length < delta.byteLength; length += 1) {
      mustFail(applySnapshotDelta(base, delta.subarray(0, length)), "truncated");
    }
    mustFail(applySnapshotDelta(base, new Uint8Array([...delta, 0])), "lengthMismatch");
  });

  test("a target header that does not match its payload: resultChecksumMismatch", () => {
    // Flip a bit of the target's ABF1 checksum field and recompute the
    // delta's trailer: it decodes, rebuilds, and fails the final check.
    const forged = delta.slice();
    forged[DELTA_HEADER_LENGTH - TRAILER_LENGTH] ^= 1;
    mustFail(applySnapshotDelta(base, resealed(forged)), "resultChecksumMismatch");
  });

  test("the base is still usable after every failure", () => {
    assert.equal(base.filter.freed, false);
    assert.deepEqual(encodeSnapshot(base.filter, { catalogVersion: 3 }), fileOf(1000, 3));
  });
});

describe("the base must be the one the delta names", () => {
  const base = snapshotOf(1000, 3);
  const target = snapshotOf(1010, 4);
  const delta = mustSucceed(encodeSnapshotDelta(base, target));

  test("another catalogVersion of the same bits", () => {
    const older = snapshotOf(1000, 2);
    const result = mustFail(applySnapshotDelta(older, delta), "wrongBase");
    assert.match(result.message, /catalogVersion 3 expected, got 2/);
  });

  test("another catalog at the same version, and another layout", () => {
    mustFail(applySnapshotDelta(snapshotOf(1000, 3, { prefix: "other" }), delta), "wrongBase");
    const small = { expectedItemCount: 10, targetFalsePositiveRate: 0.01 };
    mustFail(applySnapshotDelta(snapshotOf(10, 3, { spec: small }), delta), "wrongBase");
  });

  test("the same version, layout and number of set bits, one bit moved", () => {
    // Only the bit array's SHA-256 tells these apart.
    const file = fileOf(1000, 3);
    const payload = file.subarray(96);
    const set = payload.findIndex((byte) => byte !== 0);
    const clear = payload.findIndex((byte) => byte !== 0xff);
    const setBit = payload[set] & -payload[set];
    const clearBit = ~payload[clear] & -~payload[clear] & 0xff;
    payload[set] &= ~setBit;
    payload[clear] |= clearBit;
    file.set(createHash("sha256").update(file.subarray(0, 64)).update(payload).digest(), 64);
    const moved = mustSucceed(loadSnapshot(file));
    const result = mustFail(applySnapshotDelta(moved, delta), "wrongBase");
    assert.match(result.message, /SHA-256 of the bit array/);
  });
});

describe("encodeSnapshotDelta only when the target adds bits", () => {
  const base = snapshotOf(1000, 3);

  test("a removal is notSuperset", () => {
    const shrunk = mustSucceed(loadSnapshot(fileOf(999, 4)));
    const result = mustFail(encodeSnapshotDelta(base, shrunk), "notSuperset");
    assert.match(result.message, /clears \d+ bits set in the base/);
  });

  test("another layout is incompatibleLayout; an older target notNewer", () => {
    const resized = snapshotOf(1010, 4, { spec: { expectedItemCount: 5000, targetFalsePositiveRate: 0.01 } });
    mustFail(encodeSnapshotDelta(base, resized), "incompatibleLayout");
    mustFail(encodeSnapshotDelta(snapshotOf(1010, 4), base), "notNewer");
  });
});

test("composing A→B and B→C gives encodeSnapshotDelta(A, C), byte for byte", () => {
  const versions = [800, 900, 1000, 1200].map((count, i) => snapshotOf(count, 10 + i));
  const steps = versions.slice(1).map((next, i) => mustSucceed(encodeSnapshotDelta(versions[i], next)));
  let composed = steps[0];
  for (let i = 1; i < steps.length; i += 1) {
    composed = mustSucceed(composeSnapshotDeltas(composed, steps[i]));
    assert.deepEqual(composed, mustSucceed(encodeSnapshotDelta(versions[0], versions[i + 1])));
  }
  const total = steps.reduce((sum, step) => sum + step.byteLength, 0);
  assert.ok(composed.byteLength < total, `composed ${composed.byteLength} vs chain ${total}`);
  const applied = mustSucceed(applySnapshotDelta(versions[0], composed));
  assert.deepEqual(encodeSnapshot(applied.filter, { catalogVersion: 13 }), fileOf(1200, 13));
  mustFail(composeSnapshotDeltas(steps[1], steps[0]), "notChained");
  mustFail(composeSnapshotDeltas(steps[0], steps[0].subarray(1)), "badMagic");
});

describe("readSnapshotDeltaHeader", () => {
  const base = snapshotOf(1000, 3);
  const target = snapshotOf(1010, 4);
  const delta = mustSucceed(encodeSnapshotDelta(base, target));

  test("names the base and carries the target header", () => {
    const header = mustSucceed(readSnapshotDeltaHeader(delta, { verify: true }));
    assert.equal(header.formatVersion, 1);
    assert.equal(header.baseCatalogVersion, 3);
    assert.deepEqual(header.target, target.header);
    assert.equal(header.basePayloadSha256, createHash("sha256").update(fileOf(1000, 3).subarray(96)).digest("hex"));
    assert.equal(header.targetPayloadSha256, createHash("sha256").update(fileOf(1010, 4).subarray(96)).digest("hex"));
    assert.equal(header.bodyLength, delta.byteLength - DELTA_HEADER_LENGTH - TRAILER_LENGTH);
    const ones = (bytes) => bytes.reduce((sum, byte) => sum + popcount(byte), 0);
    const set = ones(fileOf(1000, 3).subarray(96));
    assert.equal(header.baseSetBitCount, set);
    assert.equal(header.positionCount, ones(fileOf(1010, 4).subarray(96)) - set);
    assert.ok(Object.isFrozen(header) && Object.isFrozen(header.target));
  });

  test("reads a damaged file's header unless asked to verify", () => {
    const damaged = delta.slice();
    damaged[damaged.byteLength - 1] ^= 1;
    mustSucceed(readSnapshotDeltaHeader(damaged));
    mustFail(readSnapshotDeltaHeader(damaged, { verify: true }), "checksumMismatch");
    mustFail(readSnapshotDeltaHeader(delta.subarray(0, 199)), "truncated");
  });
});

test("wrong argument types throw, naming the parameter", () => {
  const base = snapshotOf(10, 1);
  assert.throws(() => applySnapshotDelta(base, [1, 2, 3]), { name: "TypeError", message: /deltaBytes must be a Uint8Array/ });
  assert.throws(() => applySnapshotDelta({ catalogVersion: 1 }, new Uint8Array(0)), {
    name: "TypeError",
    message: /baseSnapshot\.filter/,
  });
  assert.throws(() => encodeSnapshotDelta(base, { catalogVersion: -1, filter: base.filter }), {
    name: "RangeError",
    message: /target\.catalogVersion/,
  });
  assert.throws(() => composeSnapshotDeltas(new Uint8Array(0), "x"), { name: "TypeError", message: /second/ });
  assert.throws(() => readSnapshotDeltaHeader(new Uint8Array(0), { verify: "yes" }), { name: "TypeError" });
  const freed = snapshotOf(10, 2);
  freed.filter.free();
  assert.throws(() => encodeSnapshotDelta(base, freed), /freed/);
});

function popcount(byte) {
  let count = 0;
  for (let b = byte; b !== 0; b &= b - 1) count += 1;
  return count;
}

test("deltas are artifact-bloom/delta's, sharing the main entry's filters", async () => {
  // Browsers download the main entry: no delta function (and no delta wasm) is in it.
  const mainEntry = await import("artifact-bloom");
  for (const name of ["encodeSnapshotDelta", "composeSnapshotDeltas", "applySnapshotDelta", "readSnapshotDeltaHeader"]) {
    assert.equal(name in mainEntry, false, name);
  }
  // A filter made with the main entry (import and require alike) is the
  // class the delta entry checks for.
  const { createRequire } = await import("node:module");
  const required = createRequire(import.meta.url)("artifact-bloom/delta");
  assert.equal(required.encodeSnapshotDelta, encodeSnapshotDelta);
  assert.equal(required.applySnapshotDelta, applySnapshotDelta);
  const delta = mustSucceed(required.encodeSnapshotDelta(snapshotOf(10, 1), snapshotOf(12, 2)));
  assert.equal(mustSucceed(readSnapshotDeltaHeader(delta)).target.catalogVersion, 2);
});
