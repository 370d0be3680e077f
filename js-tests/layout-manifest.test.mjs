// The layout manifest's reader (artifact-bloom/server's parseLayoutManifest,
// the module the clients share): every rule of docs/layout.md's table is
// refused with its code, and a manifest the builder writes reads back.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  LAYOUT_MANIFEST_MAX_BYTES,
  buildLayoutManifest,
  layoutDeltaPath,
  layoutSnapshotPath,
  parseLayoutManifest,
  serializeLayoutManifest,
  validateLayoutManifest,
} from "artifact-bloom/server";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);

/** A valid manifest object, fresh each time (the cases mutate it). */
function valid() {
  return {
    format: "artifact-bloom-layout",
    formatVersion: 1,
    catalogVersion: 7,
    snapshot: { url: layoutSnapshotPath(A), checksum: A, size: 2157222 },
    deltas: [
      { baseCatalogVersion: 6, baseChecksum: B, url: layoutDeltaPath(B, A), size: 62711 },
      { baseCatalogVersion: 5, baseChecksum: C, url: layoutDeltaPath(C, A), size: 124761 },
    ],
  };
}

/** [what the case breaks, how, the code expected] */
const CASES = [
  ["not an object", () => [], "invalidManifest"],
  ["format missing", (m) => delete m.format, "invalidManifest"],
  ["format other", (m) => (m.format = "artifact-bloom"), "invalidManifest"],
  ["formatVersion missing", (m) => delete m.formatVersion, "invalidManifest"],
  ["formatVersion 0", (m) => (m.formatVersion = 0), "invalidManifest"],
  ["formatVersion as text", (m) => (m.formatVersion = "1"), "invalidManifest"],
  ["formatVersion 1.5", (m) => (m.formatVersion = 1.5), "invalidManifest"],
  ["formatVersion 2 (newer)", (m) => (m.formatVersion = 2), "unsupportedManifest"],
  ["catalogVersion negative", (m) => (m.catalogVersion = -1), "invalidManifest"],
  ["catalogVersion 2^53", (m) => (m.catalogVersion = 2 ** 53), "invalidManifest"],
  ["catalogVersion fractional", (m) => (m.catalogVersion = 7.5), "invalidManifest"],
  ["catalogVersion as text", (m) => (m.catalogVersion = "7"), "invalidManifest"],
  ["snapshot missing", (m) => delete m.snapshot, "invalidManifest"],
  ["snapshot.url missing", (m) => delete m.snapshot.url, "invalidManifest"],
  ["snapshot.url empty", (m) => (m.snapshot.url = ""), "invalidManifest"],
  ["snapshot.checksum uppercase", (m) => (m.snapshot.checksum = A.toUpperCase()), "invalidManifest"],
  ["snapshot.checksum short", (m) => (m.snapshot.checksum = A.slice(1)), "invalidManifest"],
  ["snapshot.checksum missing", (m) => delete m.snapshot.checksum, "invalidManifest"],
  ["snapshot.size 95", (m) => (m.snapshot.size = 95), "invalidManifest"],
  ["snapshot.size fractional", (m) => (m.snapshot.size = 100.5), "invalidManifest"],
  ["deltas missing", (m) => delete m.deltas, "invalidManifest"],
  ["deltas an object", (m) => (m.deltas = {}), "invalidManifest"],
  ["65 deltas", (m) => (m.deltas = Array.from({ length: 65 }, (_, i) => deltaFrom(i))), "invalidManifest"],
  ["two deltas from one base", (m) => (m.deltas[1].baseChecksum = B), "invalidManifest"],
  ["delta base version = catalogVersion", (m) => (m.deltas[0].baseCatalogVersion = 7), "invalidManifest"],
  ["delta base version above", (m) => (m.deltas[0].baseCatalogVersion = 8), "invalidManifest"],
  ["delta base version negative", (m) => (m.deltas[0].baseCatalogVersion = -1), "invalidManifest"],
  ["delta baseChecksum bad", (m) => (m.deltas[0].baseChecksum = "x".repeat(64)), "invalidManifest"],
  ["delta url missing", (m) => delete m.deltas[0].url, "invalidManifest"],
  ["delta size 231", (m) => (m.deltas[0].size = 231), "invalidManifest"],
  ["delta not an object", (m) => (m.deltas[0] = "deltas/x.abd1"), "invalidManifest"],
];

/** A delta entry from the i-th made-up base (for the 65-deltas case). */
function deltaFrom(i) {
  const base = i.toString(16).padStart(64, "0");
  return { baseCatalogVersion: 0, baseChecksum: base, url: layoutDeltaPath(base, A), size: 300 };
}

describe("layout manifest rules (docs/layout.md's table)", () => {
  test("a valid manifest reads as text and as bytes, unknown fields dropped", () => {
    const manifest = { ...valid(), publishedBy: "a later publisher" };
    for (const body of [JSON.stringify(manifest), new TextEncoder().encode(JSON.stringify(manifest))]) {
      const parsed = parseLayoutManifest(body);
      assert.equal(parsed.kind, "success", parsed.message);
      assert.deepEqual(parsed.value, valid());
    }
  });

  test("an empty delta list and catalogVersion 0 are valid", () => {
    const manifest = { ...valid(), catalogVersion: 0, deltas: [] };
    assert.equal(validateLayoutManifest(manifest).kind, "success");
  });

  for (const [name, breakIt, code] of CASES) {
    test(`${name} → ${code}`, () => {
      const manifest = valid();
      const broken = breakIt(manifest);
      const value = Array.isArray(broken) ? broken : manifest;
      const result = parseLayoutManifest(JSON.stringify(value));
      assert.equal(result.kind, "failure");
      assert.equal(result.error, code, result.message);
      assert.match(result.message, /^expected /);
    });
  }

  test("a body over 64 KiB is refused before parsing, even valid JSON", () => {
    const padded = JSON.stringify({ ...valid(), padding: "x".repeat(LAYOUT_MANIFEST_MAX_BYTES) });
    const result = parseLayoutManifest(padded);
    assert.equal(result.error, "invalidManifest");
    assert.match(result.message, /at most 65536 bytes/);
  });

  test("not JSON, not UTF-8 → invalidManifest", () => {
    assert.equal(parseLayoutManifest("<html>moved</html>").error, "invalidManifest");
    assert.equal(parseLayoutManifest(new Uint8Array([0x7b, 0xff, 0x7d])).error, "invalidManifest");
  });

  test("the builder validates what it builds, and its output reads back", () => {
    const built = buildLayoutManifest({ catalogVersion: 7, snapshot: valid().snapshot, deltas: valid().deltas });
    assert.equal(built.kind, "success", built.message);
    assert.deepEqual(parseLayoutManifest(serializeLayoutManifest(built.value)).value, built.value);
    const refused = buildLayoutManifest({ catalogVersion: 5, snapshot: valid().snapshot, deltas: valid().deltas });
    assert.equal(refused.error, "invalidManifest");
  });
});
