// Publishing keyed snapshots: buildCatalogSnapshot / publishCatalog with a
// key (MACs before the external sort, the built file sealed as protocol 2,
// an append continuing the keyed layout) give the bytes ArtifactBloomFilter
// gives for the same unique digests and key; publishToLayout refuses a
// snapshot whose key is not the layout's, and a key rotation is a new full
// snapshot (the old version a skipped delta base, `wrongKey`).

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { buildCatalogSnapshot, publishCatalog, publishToLayout } from "artifact-bloom/server";
import { hex, sha256 } from "./helpers/digests.mjs";

const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const rotated = new Uint8Array(32).map((_, i) => 255 - i);
const spec = { expectedItemCount: 5000, targetFalsePositiveRate: 0.001 };
const digests = Array.from({ length: 3000 }, (_, i) => sha256(`keyed-publish:${i}`));
const scratch = mkdtempSync(join(tmpdir(), "keyed-publish-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** What ArtifactBloomFilter writes for `list` (unique) under `withKey` at `catalogVersion`. */
function expectedFile(list, catalogVersion, withKey = key) {
  const built = ArtifactBloomFilter.create(list, spec, { key: withKey });
  try {
    return encodeSnapshot(built.value, { catalogVersion });
  } finally {
    built.value.free();
  }
}

test("buildCatalogSnapshot with a key: the keyed file of the unique digests, from any order, hex or bytes", async () => {
  const shuffled = [...digests.slice(0, 1000)].reverse();
  for (const source of [
    { catalogVersion: 5, digests: [...shuffled, ...shuffled.slice(0, 100)] },
    { catalogVersion: 5, digests: digests.slice(0, 1000).map(hex), sorted: true },
  ]) {
    const built = await buildCatalogSnapshot(source, { ...spec, key, runBytes: 32 * 256, tempDir: scratch });
    assert.equal(built.kind, "success", built.message);
    assert.equal(built.value.uniqueCount, 1000);
    assert.deepEqual(built.value.bytes, expectedFile(digests.slice(0, 1000), 5));
  }
});

test("publishCatalog with a key: full, then append; the layout's snapshots load only with the key", async () => {
  const layout = join(scratch, "layout");
  const first = await publishCatalog(layout, { catalogVersion: 1, digests: digests.slice(0, 1000) }, { ...spec, key });
  assert.equal(first.kind, "success", first.message);
  const second = await publishCatalog(
    layout,
    { catalogVersion: 2, digests: digests.slice(1000, 2000) },
    { ...spec, key, append: true },
  );
  assert.equal(second.kind, "success", second.message);
  assert.equal(second.value.manifest.deltas.length, 1, "a delta from v1");
  const bytes = readFileSync(join(layout, second.value.manifest.snapshot.url));
  assert.deepEqual(new Uint8Array(bytes), expectedFile(digests.slice(0, 2000), 2));
  assert.equal(loadSnapshot(bytes).error, "keyRequired");
  const loaded = loadSnapshot(bytes, { key });
  assert.equal(loaded.value.filter.countMaybe(Buffer.concat(digests.slice(0, 2000))), 2000);
  loaded.value.filter.free();
  // An append without the key, or with another, is refused before anything is built.
  const without = await publishCatalog(layout, { catalogVersion: 3, digests: digests.slice(2000) }, { ...spec, append: true });
  assert.equal(without.error, "keyRequired");
  const wrong = await publishCatalog(
    layout,
    { catalogVersion: 3, digests: digests.slice(2000) },
    { ...spec, key: rotated, append: true },
  );
  assert.equal(wrong.error, "wrongKey");
});

test("publishToLayout: the snapshot must carry the layout's key; a rotation is a new full snapshot", async () => {
  const layout = join(scratch, "rotation");
  const v1 = expectedFile(digests.slice(0, 1000), 1);
  assert.equal((await publishToLayout(layout, v1, { key })).kind, "success");
  // Keyed bytes without the key, or with another: invalidSnapshot naming step 9's code.
  const v2 = expectedFile(digests.slice(0, 1500), 2);
  const without = await publishToLayout(layout, v2);
  assert.equal(without.error, "invalidSnapshot");
  assert.match(without.message, /keyRequired/);
  assert.match((await publishToLayout(layout, v2, { key: rotated })).message, /wrongKey/);
  // A loaded keyed snapshot published without the key is refused too.
  const loaded = loadSnapshot(v2, { key }).value;
  assert.equal((await publishToLayout(layout, loaded)).error, "invalidSnapshot");
  loaded.filter.free();
  // The rotation: v2 under the new key; v1 (old key) is a skipped base.
  const v2Rotated = expectedFile(digests.slice(0, 1500), 2, rotated);
  const published = await publishToLayout(layout, v2Rotated, { key: rotated });
  assert.equal(published.kind, "success", published.message);
  assert.deepEqual(published.value.manifest.deltas, []);
  assert.deepEqual(
    published.value.skippedBases.map((base) => base.error),
    ["wrongKey"],
  );
});
