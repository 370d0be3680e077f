// ABF1 snapshots from memory: loadSnapshot, readSnapshotHeader and
// encodeSnapshot against the shared vectors (../../shared/vectors/abf1,
// computed by the reference), plus a full-size 1M-digest publish.
//
// The manifest is the contract: every file must load as exactly what it says,
// and a valid file must survive decode → encode byte for byte, because
// publishers and clients in other languages compare snapshots by their bytes
// (checksum, ETag).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ABF1_HEADER_LENGTH, ArtifactBloomFilter, encodeSnapshot, loadSnapshot, readSnapshotHeader } from "artifact-bloom";
import {
  HEADER_FIELDS,
  PINNED_HEADER_FIELDS,
  hex,
  manifest,
  memberDigestsOf,
  packedDigests,
  readVector,
  sha256,
} from "./helpers/abf1.mjs";

// The codes a loader reports only after the header parsed (steps 6–9 of the
// spec's table); readSnapshotHeader must succeed on exactly those files.
const AFTER_HEADER_CODES = new Set(["truncated", "lengthMismatch", "checksumMismatch", "keyRequired"]);

/** Loads and returns the success value, failing the test with the code otherwise. */
function mustLoad(bytes) {
  const result = loadSnapshot(bytes);
  if (result.kind !== "success") assert.fail(`expected success, got ${result.error}: ${result.message}`);
  return result.value;
}

test("the manifest lists valid and corrupted files", () => {
  const ok = manifest.files.filter((f) => f.expect === "ok");
  assert.ok(ok.length >= 3, `${ok.length} valid files`);
  assert.ok(manifest.files.length - ok.length >= 10, "corrupted files");
});

describe("every manifest file through loadSnapshot", () => {
  for (const entry of manifest.files) {
    test(`${entry.file} loads as ${entry.expect} (${entry.why})`, () => {
      const result = loadSnapshot(readVector(entry.file));
      if (entry.expect === "ok") {
        assert.equal(result.kind, "success", `${result.error}: ${result.message}`);
        result.value.filter.free();
        return;
      }
      assert.equal(result.kind, "failure");
      assert.equal(result.error, entry.expect, result.message);
      assert.equal(typeof result.message, "string");
      assert.ok(result.message.length > 0, "a failure explains itself");
      // Never a partially usable filter next to a failure.
      assert.equal("value" in result, false);
    });
  }
});

describe("valid files: header, members, round trip", () => {
  for (const entry of manifest.files.filter((f) => f.expect === "ok")) {
    describe(entry.file, () => {
      test("header is a plain object with every ABF1 field, matching the manifest", () => {
        const bytes = readVector(entry.file);
        const { header, catalogVersion, filter } = mustLoad(bytes);
        try {
          // Plain data: survives JSON and structured clone (no BigInt, no class).
          assert.equal(Object.getPrototypeOf(header), Object.prototype);
          assert.deepEqual(Object.keys(header).sort(), [...HEADER_FIELDS].sort());
          assert.deepEqual(JSON.parse(JSON.stringify(header)), { ...header });
          assert.deepEqual(structuredClone(header), { ...header });
          for (const field of HEADER_FIELDS.filter((f) => f !== "checksum")) {
            assert.equal(typeof header[field], "number", field);
          }
          assert.match(header.checksum, /^[0-9a-f]{64}$/);
          assert.equal(header.checksum, hex(bytes.subarray(64, 96)), "checksum is bytes [64, 96) as hex");
          assert.equal(header.formatVersion, 1);
          assert.equal(header.hashProtocolVersion, 1);
          assert.equal(header.reserved, 0);
          assert.equal(header.payloadLength, header.bitCount / 8);
          assert.equal(bytes.byteLength, ABF1_HEADER_LENGTH + header.payloadLength);
          assert.equal(catalogVersion, header.catalogVersion);
          for (const field of PINNED_HEADER_FIELDS) {
            if (entry[field] !== undefined) assert.equal(header[field], entry[field], field);
          }
          // The loaded filter reports the same spec and layout as its header.
          assert.equal(filter.getExpectedItemCount(), header.expectedItemCount);
          assert.equal(filter.getTargetFalsePositiveRate(), header.targetFpp);
          assert.equal(filter.getBitCount(), header.bitCount);
          assert.equal(filter.getHashCount(), header.hashCount);
          assert.equal(filter.getInsertedItemCount(), header.insertedItemCount);
        } finally {
          filter.free();
        }
      });

      const members = memberDigestsOf(entry);
      if (members !== undefined) {
        test(`all ${members.length} members answer maybe`, () => {
          const { filter } = mustLoad(readVector(entry.file));
          try {
            for (const digest of members) assert.equal(filter.mightContain(digest), true);
          } finally {
            filter.free();
          }
        });
      }

      test("encodeSnapshot reproduces the file byte for byte and reloads to the same answers", () => {
        const bytes = readVector(entry.file);
        const first = mustLoad(bytes);
        const encoded = encodeSnapshot(first.filter, { catalogVersion: first.catalogVersion });
        const second = mustLoad(encoded);
        try {
          assert.ok(encoded instanceof Uint8Array);
          assert.equal(hex(encoded), hex(bytes));
          assert.deepEqual(second.header, first.header);
          assert.deepEqual(second.filter.serializeBits(), first.filter.serializeBits());
          for (const digest of members ?? []) assert.equal(second.filter.mightContain(digest), true);
        } finally {
          first.filter.free();
          second.filter.free();
        }
      });
    });
  }

  test("empty-v0 answers absent for everything (no bit is set)", () => {
    const { filter } = mustLoad(readVector("empty-v0.abf1"));
    try {
      assert.equal(filter.getFillRatio(), 0);
      assert.equal(filter.countMaybe(packedDigests("anything:", 2000)), 0);
    } finally {
      filter.free();
    }
  });

  test("a loaded filter does not alias the input bytes", () => {
    // Callers reuse download buffers; zeroing one must not clear the filter.
    const bytes = readVector("small-v42.abf1");
    const { filter } = mustLoad(bytes);
    bytes.fill(0);
    try {
      assert.equal(filter.mightContain(sha256("cat")), true);
    } finally {
      filter.free();
    }
  });

  test("a Node Buffer is accepted like any Uint8Array", () => {
    const { filter } = mustLoad(Buffer.from(readVector("small-v42.abf1")));
    filter.free();
  });
});

describe("publishing reproduces the reference vectors", () => {
  test("ArtifactBloomFilter.create over sha256('member:'+i), i<10000, n=10000, p=0.01 at v43 = members10k-v43.abf1", () => {
    const digests = Array.from({ length: 10000 }, (_, i) => sha256(`member:${i}`));
    const built = ArtifactBloomFilter.create(digests, { expectedItemCount: 10000, targetFalsePositiveRate: 0.01 });
    assert.equal(built.kind, "success");
    try {
      const encoded = encodeSnapshot(built.value, { catalogVersion: 43 });
      assert.equal(hex(encoded), hex(readVector("members10k-v43.abf1")));
    } finally {
      built.value.free();
    }
  });

  test("the three words, n=4, p=0.1 at v42 = small-v42.abf1", () => {
    const built = ArtifactBloomFilter.create(["cat", "dog", "fish"].map(sha256), {
      expectedItemCount: 4,
      targetFalsePositiveRate: 0.1,
    });
    assert.equal(built.kind, "success");
    try {
      assert.equal(hex(encodeSnapshot(built.value, { catalogVersion: 42 })), hex(readVector("small-v42.abf1")));
    } finally {
      built.value.free();
    }
  });
});

describe("readSnapshotHeader", () => {
  test("checksum-bitflip: the header it claims is still readable", () => {
    const bytes = readVector("checksum-bitflip.abf1");
    const result = readSnapshotHeader(bytes);
    assert.equal(result.kind, "success", result.message);
    assert.equal(result.value.catalogVersion, 42);
    assert.equal(result.value.checksum, hex(bytes.subarray(64, 96)));
    // ...while the full load refuses it.
    assert.equal(loadSnapshot(bytes).error, "checksumMismatch");
  });

  for (const entry of manifest.files.filter((f) => f.expect !== "ok")) {
    test(`${entry.file}: header steps agree with loadSnapshot (${entry.expect})`, () => {
      const header = readSnapshotHeader(readVector(entry.file));
      if (header.kind === "success") {
        // Only the post-header checks (6–8) may reject a file whose header reads.
        assert.ok(AFTER_HEADER_CODES.has(entry.expect), `header read, but loadSnapshot says ${entry.expect}`);
      } else {
        assert.equal(header.error, entry.expect, header.message);
      }
    });
  }
});

describe("argument checks", () => {
  test("encodeSnapshot rejects a catalogVersion that is not an integer in [0, 2^53 - 1] with RangeError", () => {
    const { filter } = mustLoad(readVector("small-v42.abf1"));
    try {
      for (const catalogVersion of [-1, 1.5, 2 ** 53, "1", undefined, Number.NaN, Infinity, 1n]) {
        assert.throws(() => encodeSnapshot(filter, { catalogVersion }), RangeError, String(catalogVersion));
      }
      assert.throws(() => encodeSnapshot(filter), RangeError, "no options at all");
      // The bound itself is fine.
      assert.equal(mustLoad(encodeSnapshot(filter, { catalogVersion: 2 ** 53 - 1 })).catalogVersion, 2 ** 53 - 1);
    } finally {
      filter.free();
    }
  });

  test("loadSnapshot of anything but a Uint8Array throws TypeError", () => {
    const bytes = readVector("small-v42.abf1");
    for (const value of [
      bytes.buffer,
      Array.from(bytes),
      "ABF1",
      null,
      undefined,
      new DataView(bytes.buffer),
      new Uint8ClampedArray(bytes),
      new Int8Array(bytes.buffer),
    ]) {
      assert.throws(() => loadSnapshot(value), TypeError);
    }
    assert.throws(() => readSnapshotHeader(bytes.buffer), TypeError);
  });
});

describe("a published 1M-digest, p = 0.001 snapshot", () => {
  const COUNT = 1_000_000;
  const spec = { expectedItemCount: COUNT, targetFalsePositiveRate: 0.001 };

  test("has the layout rule's size and every member answers maybe after encode → load", () => {
    // ~2-4 s: a million SHA-256 in node:crypto dominates.
    const packed = packedDigests("big:", COUNT);
    const built = ArtifactBloomFilter.createPacked(packed, spec);
    assert.equal(built.kind, "success");
    const bytes = encodeSnapshot(built.value, { catalogVersion: 1 });
    built.value.free();

    assert.equal(bytes.byteLength, 96 + 1_797_208);
    const { filter, header } = mustLoad(bytes);
    try {
      assert.equal(header.bitCount, 14_377_664);
      assert.equal(header.hashCount, 10);
      assert.equal(header.payloadLength, 1_797_208);
      assert.equal(header.insertedItemCount, COUNT);
      assert.equal(header.catalogVersion, 1);
      assert.equal(filter.countMaybe(packed), COUNT, "no member may answer absent");

      // Non-members: the count of maybes is Binomial(100000, q) with q the
      // modeled rate (~0.001): mean ~100, sd ~10. The bound 2·p·N = 200 is
      // ~10 sd above the mean; the digests are fixed, so this is
      // deterministic and only a broken probe walk or bit order would exceed it.
      const outsiders = packedDigests("not-published:", 100_000);
      const maybes = filter.countMaybe(outsiders);
      assert.ok(filter.estimateFalsePositiveRate() <= 0.001 + 1e-12);
      assert.ok(maybes <= 200, `${maybes} false positives in 100000`);
    } finally {
      filter.free();
    }
  });
});

test("loadSnapshot copies only the documented meta facts; the file's own fields win", () => {
  const bytes = readVector("small-v42.abf1");
  const mtime = new Date("2026-11-01T00:00:00Z");
  const loaded = loadSnapshot(bytes, { lastModified: mtime, source: "disk", catalogVersion: 99, filter: null });
  assert.equal(loaded.kind, "success");
  assert.equal(loaded.value.catalogVersion, 42);
  assert.equal(loaded.value.lastModified, mtime);
  assert.equal(loaded.value.source, "disk");
  assert.equal(typeof loaded.value.filter.mightContain, "function");
  const invalid = loadSnapshot(bytes, { lastModified: new Date("not a date") });
  assert.equal(invalid.value.lastModified, undefined);
  loaded.value.filter.free();
  invalid.value.filter.free();
});
