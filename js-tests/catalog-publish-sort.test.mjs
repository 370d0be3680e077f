// The external sort behind publishCatalog's unsorted sources, at its edges
// (lib/server/catalog-run-sort.js, catalog-stream.js): buckets of digests
// sharing their first two bytes (sorted through an index array when large,
// by insertion when small), a bucket of one digest repeated, runs of every
// size from one record up, hex strings with a bad digit in either place of
// a byte, and an abort once the source is read with runs on disk. The
// oracle is ArtifactBloomFilter.create of the unique digests, encoded: the
// built file must equal it byte for byte.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCatalogSnapshot, publishCatalog } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { referenceFile as reference } from "./helpers/catalog-reference.mjs";
import { tempDir } from "./helpers/cli.mjs";

const SPEC = { expectedItemCount: 30_000, targetFalsePositiveRate: 0.01 };
const hexOf = (digest) => Buffer.from(digest).toString("hex");

/** The reference file of `digests` at `version`, at this file's SPEC. */
const referenceFile = (digests, version) => reference(digests, version, SPEC);

describe("publishCatalog's external sort", () => {
  let dir;
  let counter = 0;
  const fresh = async (label) => {
    const path = join(dir.path, `${label}-${++counter}`);
    await mkdir(path, { recursive: true });
    return path;
  };
  before(async () => {
    dir = await tempDir("catalog-publish-sort");
  });
  after(async () => {
    await dir?.remove();
  });

  test("large and small buckets of a shared two-byte prefix, and one digest repeated, sort right in runs of any size", async () => {
    // 3,000 digests in 3 buckets (1,000 each: far past the insertion sort's
    // limit), 2,000 spread as hash output is (buckets of ~1), each of the
    // first 500 twice, and one digest 700 times: a bucket of equal records.
    const spread = splitDigests(packedDigests("sort-spread", 2000));
    const crowded = splitDigests(packedDigests("sort-crowded", 3000)).map((digest, index) => {
      const copy = new Uint8Array(digest);
      copy[0] = 7;
      copy[1] = index % 3;
      return copy;
    });
    const repeated = spread[0];
    const list = [...crowded, ...spread, ...crowded.slice(0, 250), ...spread.slice(0, 250), ...Array(700).fill(repeated)];
    const reference = referenceFile(list, 2);
    assert.equal(reference.unique, 5000);
    const temp = await fresh("runs");
    for (const runDigests of [1, 7, 1000, 100_000]) {
      const built = await buildCatalogSnapshot(
        { catalogVersion: 2, digests: list.slice().reverse() },
        { ...SPEC, runBytes: 32 * runDigests, tempDir: temp },
      );
      assert.equal(built.kind, "success", built.message);
      assert.equal(built.value.uniqueCount, 5000, `runs of ${runDigests}`);
      assert.deepEqual(built.value.bytes, reference.bytes, `runs of ${runDigests}`);
      assert.deepEqual(await readdir(temp), [], "the runs' temp directory is gone");
    }
  });

  test("a hex string with a bad digit in either place of a byte is invalidDigest, never a byte", async () => {
    const good = hexOf(splitDigests(packedDigests("sort-hex", 1))[0]);
    // "0g" once passed a combined range check as 0xff; the high digit bad, too; a non-ASCII one.
    for (const bad of [`${good.slice(0, 62)}0g`, `g0${good.slice(2)}`, `${good.slice(0, 63)}\u0661`, `${good} `]) {
      const built = await buildCatalogSnapshot({ catalogVersion: 1, digests: [good, bad] }, SPEC);
      assert.equal(built.error, "invalidDigest", JSON.stringify(bad));
      assert.match(built.message, /digest 1:/);
    }
    const upper = await buildCatalogSnapshot({ catalogVersion: 1, digests: [good.toUpperCase()] }, SPEC);
    assert.equal(upper.kind, "success", upper.message);
    assert.deepEqual(upper.value.bytes, referenceFile([Buffer.from(good, "hex")], 1).bytes);
  });

  test("an abort once the source is read, with runs on disk, rejects with its reason and removes them", async () => {
    const layout = join(dir.path, "late-abort");
    const temp = await fresh("late-abort-temp");
    const controller = new AbortController();
    const reason = new Error("stopped after reading");
    const list = splitDigests(packedDigests("sort-late", 5000));
    let runFilesSeen = 0;
    async function* readThenAbort() {
      // Ten copies in runs of 500: the first 32,768-digest chunk alone spills 65 runs.
      for (let copy = 0; copy < 10; copy += 1) yield* list;
      const [sortDir] = await readdir(temp);
      runFilesSeen = (await readdir(join(temp, sortDir))).length;
      setImmediate(() => controller.abort(reason));
    }
    await assert.rejects(
      publishCatalog(
        layout,
        { catalogVersion: 1, digests: readThenAbort() },
        { ...SPEC, signal: controller.signal, runBytes: 32 * 500, tempDir: temp },
      ),
      (error) => error === reason,
    );
    assert.ok(runFilesSeen > 0, "runs were on disk when the source ended");
    assert.deepEqual(await readdir(temp), []);
    await assert.rejects(readFile(join(layout, "manifest.json")), { code: "ENOENT" });
  });
});
