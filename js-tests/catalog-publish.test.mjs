// artifact-bloom/server's publishCatalog and buildCatalogSnapshot (issue 34
// §3): a catalog streamed through the sorted build — sorted sources
// directly, unsorted ones through an external sort in temp files — gives
// the same snapshot, bit for bit, as ArtifactBloomFilter.create of its
// unique digests, with the exact unique count; refusals are typed; an abort
// publishes nothing and leaves no temp file; directoryCatalog reads a
// content-addressed directory.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCatalogSnapshot, directoryCatalog, publishCatalog } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { referenceFile as reference } from "./helpers/catalog-reference.mjs";
import { tempDir } from "./helpers/cli.mjs";

const SPEC = { expectedItemCount: 30_000, targetFalsePositiveRate: 0.01 };
const hexOf = (digest) => Buffer.from(digest).toString("hex");

/** The reference file of `digests` at `version`, at this file's SPEC. */
const referenceFile = (digests, version) => reference(digests, version, SPEC);

describe("publishCatalog and buildCatalogSnapshot", () => {
  let dir;
  // 20,000 digests, 5,000 of them twice, in stream order (unsorted).
  const distinct = splitDigests(packedDigests("catalog", 20_000));
  const stream = [...distinct, ...distinct.slice(0, 5000)].reverse();
  before(async () => {
    dir = await tempDir("catalog-publish");
  });
  after(async () => {
    await dir?.remove();
  });

  test("unsorted with duplicates through several runs: bit-identical, exact count, no temp file left", async () => {
    const temp = join(dir.path, "tmp-runs");
    await mkdir(temp);
    // Runs of 3,000 digests: 25,000 digests make 9 runs, merged.
    const built = await buildCatalogSnapshot(
      { catalogVersion: 3, digests: stream },
      { ...SPEC, runBytes: 32 * 3000, tempDir: temp },
    );
    assert.equal(built.kind, "success", built.message);
    const reference = referenceFile(stream, 3);
    assert.equal(built.value.uniqueCount, reference.unique);
    assert.deepEqual(built.value.bytes, reference.bytes);
    assert.deepEqual(await readdir(temp), [], "the runs' temp directory is gone");
  });

  test("a sorted source in every shape (hex, 32-byte arrays, packed chunks of odd sizes), async: the same bytes", async () => {
    const sorted = distinct.slice().sort(Buffer.compare);
    const packed = Buffer.concat(sorted);
    async function* shapes() {
      for (const digest of sorted.slice(0, 100)) yield hexOf(digest);
      for (const digest of sorted.slice(100, 200)) yield digest;
      // The rest as packed chunks of 777 digests, the last one shorter.
      for (let offset = 200 * 32; offset < packed.length; offset += 777 * 32) yield packed.subarray(offset, offset + 777 * 32);
    }
    const built = await buildCatalogSnapshot({ catalogVersion: 4, digests: shapes(), sorted: true }, SPEC);
    assert.equal(built.kind, "success", built.message);
    assert.deepEqual(built.value.bytes, referenceFile(distinct, 4).bytes);
  });

  test("publishCatalog writes the layout, with the delta from the previous version", async () => {
    const layout = join(dir.path, "layout");
    const first = await publishCatalog(layout, { catalogVersion: 1, digests: distinct.slice(0, 15_000) }, SPEC);
    assert.equal(first.kind, "success", first.message);
    assert.equal(first.value.uniqueCount, 15_000);
    // A loader (as postgresCatalog and directoryCatalog are).
    const second = await publishCatalog(layout, async () => ({ catalogVersion: 2, digests: distinct }), SPEC);
    assert.equal(second.kind, "success", second.message);
    const manifest = JSON.parse(await readFile(join(layout, "manifest.json"), "utf8"));
    assert.equal(manifest.catalogVersion, 2);
    assert.equal(manifest.deltas.length, 1);
    assert.deepEqual(new Uint8Array(await readFile(join(layout, manifest.snapshot.url))), referenceFile(distinct, 2).bytes);
    const again = await publishCatalog(layout, { catalogVersion: 1, digests: distinct }, SPEC);
    assert.equal(again.error, "versionNotNewer", "publishToLayout's version rule");
  });

  test("append: a store that only grows adds what arrived since; the result equals a full rebuild bit for bit", async () => {
    const layout = join(dir.path, "append");
    const first = await publishCatalog(
      layout,
      { catalogVersion: 1, digests: distinct.slice(0, 12_000) },
      { ...SPEC, append: true },
    );
    assert.equal(first.kind, "success", first.message);
    const next = await publishCatalog(layout, { catalogVersion: 2, digests: distinct.slice(12_000) }, { ...SPEC, append: true });
    assert.equal(next.kind, "success", next.message);
    assert.equal(next.value.uniqueCount, 20_000, "the continued version's count plus the new digests");
    const manifest = JSON.parse(await readFile(join(layout, "manifest.json"), "utf8"));
    assert.deepEqual(new Uint8Array(await readFile(join(layout, manifest.snapshot.url))), referenceFile(distinct, 2).bytes);
    assert.equal(manifest.deltas.length, 1);
    const other = await publishCatalog(
      layout,
      { catalogVersion: 3, digests: [] },
      { ...SPEC, expectedItemCount: 50_000, append: true },
    );
    assert.equal(other.error, "layoutChanged");
    const full = await publishCatalog(
      layout,
      { catalogVersion: 3, digests: splitDigests(packedDigests("catalog-more", 10_001)) },
      { ...SPEC, append: true },
    );
    assert.equal(full.error, "capacityExceeded");
    assert.match(full.message, /publish the whole catalog with a larger/);
  });

  test("refusals are typed: a sorted source that is not, a bad digest (its index), over capacity", async () => {
    const sorted = distinct.slice(0, 10).sort(Buffer.compare);
    const unsorted = await buildCatalogSnapshot(
      { catalogVersion: 1, digests: [sorted[0], sorted[2], sorted[1]], sorted: true },
      SPEC,
    );
    assert.equal(unsorted.error, "unsortedInput");
    assert.match(unsorted.message, /digest 2 of the stream/);
    const bad = await buildCatalogSnapshot({ catalogVersion: 1, digests: [hexOf(sorted[0]), "not-a-digest"] }, SPEC);
    assert.equal(bad.error, "invalidDigest");
    assert.match(bad.message, /digest 1:/);
    const small = { expectedItemCount: 5, targetFalsePositiveRate: 0.01 };
    const over = await buildCatalogSnapshot({ catalogVersion: 1, digests: sorted, sorted: true }, small);
    assert.equal(over.error, "capacityExceeded");
    const duplicatesFit = await buildCatalogSnapshot(
      { catalogVersion: 1, digests: [...sorted.slice(0, 5), ...sorted.slice(0, 5)] },
      small,
    );
    assert.equal(duplicatesFit.kind, "success", "capacity counts unique digests");
    assert.equal(duplicatesFit.value.uniqueCount, 5);
  });

  test("an abort mid-stream rejects with its reason, publishes nothing and leaves no temp file", async () => {
    const layout = join(dir.path, "aborted");
    const temp = join(dir.path, "tmp-abort");
    await mkdir(temp);
    const controller = new AbortController();
    async function* digests() {
      for (const [index, digest] of distinct.entries()) {
        if (index === 12_000) controller.abort(new Error("stopped by the test"));
        yield digest;
      }
    }
    await assert.rejects(
      publishCatalog(
        layout,
        { catalogVersion: 1, digests: digests() },
        { ...SPEC, signal: controller.signal, runBytes: 32 * 4000, tempDir: temp },
      ),
      /stopped by the test/,
    );
    assert.deepEqual(await readdir(temp), []);
    await assert.rejects(readFile(join(layout, "manifest.json")), { code: "ENOENT" });
  });

  test("directoryCatalog: files named by their SHA-256 hex, in any folder; other names ignored", async () => {
    const blobs = join(dir.path, "blobs");
    const members = distinct.slice(0, 50);
    for (const [index, digest] of members.entries()) {
      const folder = join(blobs, hexOf(digest).slice(0, 2), index % 2 === 0 ? "" : "deeper");
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, hexOf(digest)), "blob");
    }
    await writeFile(join(blobs, "README"), "not a blob");
    await writeFile(join(blobs, `${hexOf(members[0])}.tmp`), "not a blob either");
    const built = await buildCatalogSnapshot(directoryCatalog(blobs, { catalogVersion: 9 }), SPEC);
    assert.equal(built.kind, "success", built.message);
    assert.equal(built.value.uniqueCount, 50);
    assert.deepEqual(built.value.bytes, referenceFile(members, 9).bytes);
  });
});
