// artifact-bloom/server's publishToLayout and `publish --layout`: the
// static layout of docs/layout.md on temp dirs. The oracles are the
// package's own loadSnapshot / applySnapshotDelta and the manifest reader:
// every file a manifest names is there and holds what its name says, every
// delta rebuilds the new snapshot bit for bit, and a failed write at any
// step leaves a manifest that names only files that exist.
import assert from "node:assert/strict";
import { cp, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { applySnapshotDelta } from "artifact-bloom/delta";
import { directoryLayoutStore, parseLayoutManifest, publishToLayout, pruneLayout } from "artifact-bloom/server";
import { sha256 } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

let dir;
let counter = 0;
before(async () => {
  dir = await tempDir("layout-publish");
});
after(async () => {
  await dir.remove();
});

/** A fresh layout directory inside the test's temp dir. */
const freshLayout = () => join(dir.path, `layout-${++counter}`);
const digestsOf = (count, prefix = "d") => Array.from({ length: count }, (_, i) => sha256(`${prefix}${i}`));

/** ABF1 bytes of `count` digests at `version` (expected 5000 unless said). */
function snapshotOf(count, version, { expected = 5000, prefix } = {}) {
  const built = ArtifactBloomFilter.create(digestsOf(count, prefix), {
    expectedItemCount: expected,
    targetFalsePositiveRate: 0.01,
  });
  assert.equal(built.kind, "success");
  const bytes = encodeSnapshot(built.value, { catalogVersion: version });
  built.value.free();
  return bytes;
}

const load = (bytes) => {
  const loaded = loadSnapshot(bytes);
  assert.equal(loaded.kind, "success", loaded.message);
  return loaded.value;
};
const readManifest = async (layout) => {
  const parsed = parseLayoutManifest(new Uint8Array(await readFile(join(layout, "manifest.json"))));
  assert.equal(parsed.kind, "success", parsed.message);
  return parsed.value;
};
const exists = (path) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * The layout's invariant: every file the manifest names exists, has the
 * size it gives, a snapshot's header checksum is its name's, and each delta
 * applied to its base gives the snapshot bit for bit. → the manifest.
 * `prunedBases`: a base snapshot may be gone (pruned: a client that holds
 * it has it already); its delta is then only checked to be there.
 */
async function checkLayout(layout, { prunedBases = false } = {}) {
  const manifest = await readManifest(layout);
  const full = new Uint8Array(await readFile(join(layout, manifest.snapshot.url)));
  assert.equal(full.length, manifest.snapshot.size);
  const target = load(full);
  assert.equal(target.header.checksum, manifest.snapshot.checksum);
  assert.equal(manifest.snapshot.url, `snapshots/${target.header.checksum}.abf1`);
  assert.equal(target.catalogVersion, manifest.catalogVersion);
  for (const delta of manifest.deltas) {
    const bytes = new Uint8Array(await readFile(join(layout, delta.url)));
    assert.equal(bytes.length, delta.size);
    const basePath = join(layout, `snapshots/${delta.baseChecksum}.abf1`);
    if (prunedBases && !(await exists(basePath))) continue;
    const base = load(new Uint8Array(await readFile(basePath)));
    assert.equal(base.catalogVersion, delta.baseCatalogVersion);
    const applied = applySnapshotDelta(base, bytes);
    assert.equal(applied.kind, "success", applied.message);
    assert.equal(applied.value.header.checksum, manifest.snapshot.checksum);
    assert.deepEqual(encodeSnapshot(applied.value.filter, { catalogVersion: manifest.catalogVersion }), full);
    applied.value.filter.free();
    base.filter.free();
  }
  target.filter.free();
  return manifest;
}

async function publishOk(layout, bytes, options) {
  const result = await publishToLayout(layout, bytes, options);
  assert.equal(result.kind, "success", result.message);
  return result.value;
}

describe("publishToLayout", () => {
  test("each publish: the files a manifest names are there, named by checksum; deltas from every earlier version rebuild the new one", async () => {
    const layout = freshLayout();
    for (let version = 1; version <= 5; version += 1) {
      const published = await publishOk(layout, snapshotOf(1000 + 20 * version, version));
      assert.equal(published.unchanged, false);
      const manifest = await checkLayout(layout);
      assert.equal(manifest.catalogVersion, version);
      // Newest base first, one per earlier version (all within the default K = 8).
      assert.deepEqual(
        manifest.deltas.map((delta) => delta.baseCatalogVersion),
        Array.from({ length: version - 1 }, (_, i) => version - 1 - i),
      );
    }
  });

  test("{ filter, catalogVersion } publishes the same files as its ABF1 bytes", async () => {
    const built = ArtifactBloomFilter.create(digestsOf(500), { expectedItemCount: 5000, targetFalsePositiveRate: 0.01 });
    const fromFilter = freshLayout();
    await publishOk(fromFilter, { filter: built.value, catalogVersion: 3 });
    const fromBytes = freshLayout();
    await publishOk(fromBytes, encodeSnapshot(built.value, { catalogVersion: 3 }));
    assert.deepEqual(await readFile(join(fromFilter, "manifest.json")), await readFile(join(fromBytes, "manifest.json")));
    assert.equal(built.value.countMaybe(new Uint8Array(32 * 0)), 0); // the caller's filter was not freed
    built.value.free();
  });

  test("deltaHistory K bounds the deltas to the last K versions (and 0 writes none)", async () => {
    const layout = freshLayout();
    for (let version = 1; version <= 6; version += 1)
      await publishOk(layout, snapshotOf(1000 + version, version), { deltaHistory: 2 });
    const manifest = await checkLayout(layout);
    assert.deepEqual(
      manifest.deltas.map((delta) => delta.baseCatalogVersion),
      [5, 4],
    );
    await publishOk(layout, snapshotOf(1010, 7), { deltaHistory: 0 });
    assert.deepEqual((await checkLayout(layout)).deltas, []);
  });

  test("no delta across a layout change or a removal; the skipped bases say why", async () => {
    const layout = freshLayout();
    await publishOk(layout, snapshotOf(1000, 1));
    const resized = await publishOk(layout, snapshotOf(1010, 2, { expected: 9000 }));
    assert.deepEqual(resized.manifest.deltas, []);
    assert.deepEqual(
      resized.skippedBases.map((base) => [base.catalogVersion, base.error]),
      [[1, "incompatibleLayout"]],
    );
    const next = await publishOk(layout, snapshotOf(1020, 3, { expected: 9000 }));
    assert.deepEqual(
      next.manifest.deltas.map((delta) => delta.baseCatalogVersion),
      [2],
    );
    assert.deepEqual(
      next.skippedBases.map((base) => [base.catalogVersion, base.error]),
      [[1, "incompatibleLayout"]],
    );
    const shrunk = await publishOk(layout, snapshotOf(900, 4, { expected: 9000 }));
    assert.deepEqual(shrunk.manifest.deltas, []);
    assert.ok(shrunk.skippedBases.every((base) => ["notSuperset", "incompatibleLayout"].includes(base.error)));
    await checkLayout(layout);
  });

  test("the version rule: lower or reused versions are refused, the same snapshot again is a no-op", async () => {
    const layout = freshLayout();
    await publishOk(layout, snapshotOf(1000, 1));
    const current = snapshotOf(1010, 2);
    await publishOk(layout, current);
    const before = await readFile(join(layout, "manifest.json"));
    const beforeState = await readFile(join(layout, "layout-state.json"));
    const lower = await publishToLayout(layout, snapshotOf(1020, 1));
    assert.equal(lower.error, "versionNotNewer", lower.message);
    const reused = await publishToLayout(layout, snapshotOf(1020, 2));
    assert.equal(reused.error, "versionConflict", reused.message);
    assert.match(reused.message, /greater than 2/);
    const again = await publishOk(layout, current);
    assert.equal(again.unchanged, true);
    assert.deepEqual(await readFile(join(layout, "manifest.json")), before);
    assert.deepEqual(await readFile(join(layout, "layout-state.json")), beforeState);
  });

  test("bad input is a typed failure, nothing written", async () => {
    const layout = freshLayout();
    assert.equal((await publishToLayout(layout, new Uint8Array(10))).error, "invalidSnapshot");
    assert.equal((await publishToLayout(layout, snapshotOf(10, 1), { deltaHistory: 65 })).error, "invalidOptions");
    assert.equal((await publishToLayout(layout, snapshotOf(10, 1), { pruneAfterMs: -1 })).error, "invalidOptions");
    assert.equal(await exists(layout), false);
  });

  test("a write that fails at any step leaves a manifest naming only files that are there; the next publish continues", async () => {
    const seed = freshLayout();
    await publishOk(seed, snapshotOf(1000, 1));
    await publishOk(seed, snapshotOf(1010, 2));
    // Version 3 writes: snapshot, delta from 2, delta from 1, manifest, state.
    for (let failAt = 1; failAt <= 5; failAt += 1) {
      const layout = freshLayout();
      await cp(seed, layout, { recursive: true });
      const real = directoryLayoutStore(layout);
      let writes = 0;
      const failing = {
        ...real,
        async writeAtomically(path, bytes) {
          writes += 1;
          if (writes === failAt) throw Object.assign(new Error(`injected failure writing ${path}`), { code: "EIO" });
          return real.writeAtomically(path, bytes);
        },
      };
      await assert.rejects(publishToLayout(failing, snapshotOf(1020, 3)), /injected failure/);
      const manifest = await checkLayout(layout);
      assert.equal(manifest.catalogVersion, failAt <= 4 ? 2 : 3, `failing write ${failAt}`);
      // A restart publishes version 4 from what the layout holds, deltas from every version it served.
      const next = await publishOk(layout, snapshotOf(1030, 4));
      const bases = next.manifest.deltas.map((delta) => delta.baseCatalogVersion);
      assert.deepEqual(
        bases.filter((base) => base !== 3),
        [2, 1],
        `failing write ${failAt}: ${bases}`,
      );
      await checkLayout(layout);
    }
  });

  test("files no manifest names are pruned only after pruneAfterMs since they stopped being named (injected clock)", async () => {
    const layout = freshLayout();
    let now = 1_000_000;
    const options = { deltaHistory: 1, pruneAfterMs: 60_000, now: () => now };
    await publishOk(layout, snapshotOf(1000, 1), options);
    await publishOk(layout, snapshotOf(1010, 2), options);
    const v2 = await readManifest(layout);
    now += 1_000;
    await publishOk(layout, snapshotOf(1020, 3), options);
    // v1's snapshot stopped being needed when v2 was published (v2's manifest names only the delta from it);
    // v2's delta from v1 and v2's snapshot when v3 was, 1 s later. All are still there.
    const v1Snapshot = `snapshots/${v2.deltas[0].baseChecksum}.abf1`;
    const v2Delta = v2.deltas[0].url;
    for (const path of [v1Snapshot, v2Delta]) assert.equal(await exists(join(layout, path)), true, path);
    now = 1_000_000 + 59_999;
    assert.deepEqual((await pruneLayout(layout, options)).value.pruned, []);
    now = 1_000_000 + 60_000;
    assert.deepEqual((await pruneLayout(layout, options)).value.pruned, [v1Snapshot]);
    assert.equal(await exists(join(layout, v2Delta)), true);
    // v2's snapshot too: with deltaHistory 1 only v3 is the next delta base.
    const v2Snapshot = v2.snapshot.url;
    now = 1_001_000 + 60_000;
    assert.deepEqual([...(await pruneLayout(layout, options)).value.pruned].sort(), [v2Delta, v2Snapshot].sort());
    for (const path of [v1Snapshot, v2Delta, v2Snapshot]) assert.equal(await exists(join(layout, path)), false, path);
    await checkLayout(layout, { prunedBases: true });
    // The previous version's snapshot stays: it is the next publish's delta base.
    const next = await publishOk(layout, snapshotOf(1030, 4), options);
    assert.deepEqual(
      next.manifest.deltas.map((delta) => delta.baseCatalogVersion),
      [3],
    );
  });
});

describe("publish --layout", () => {
  test("writes the layout, deltas bounded by --delta-history; the same input again changes nothing; a reused version exits 1", async () => {
    const layout = freshLayout();
    const publish = async (count, version, extra = []) => {
      const list = join(dir.path, `cli-${version}-${count}.txt`);
      await writeHexList(list, digestsOf(count));
      return runCli(["publish", ...publishSizing(version, 5000, 0.01), "--input", list, "--layout", layout, ...extra]);
    };
    for (let version = 1; version <= 3; version += 1) {
      const run = await publish(1000 + version, version, ["--delta-history", "1"]);
      assert.equal(run.code, 0, run.stderr);
    }
    const manifest = await checkLayout(layout);
    assert.deepEqual(
      manifest.deltas.map((delta) => delta.baseCatalogVersion),
      [2],
    );
    const same = await publish(1003, 3, ["--json"]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(JSON.parse(same.stdout).layout.unchanged, true);
    const reused = await publish(1004, 3);
    assert.equal(reused.code, 1);
    assert.match(reused.stderr, /^publish: layout .*versionConflict: .*greater than 3\n$/);
    const withOut = join(dir.path, "cli-out.abf1");
    const both = await publish(1005, 4, ["--out", withOut]);
    assert.equal(both.code, 0, both.stderr);
    assert.deepEqual(await readFile(withOut), await readFile(join(layout, (await checkLayout(layout)).snapshot.url)));
  });

  test("bad --layout flags are one-line usage errors (exit 2)", async () => {
    const layout = freshLayout();
    for (const [extra, pattern] of [
      [["--layout", layout, "--delta-history", "65"], /--delta-history must be an integer from 0 to 64/],
      [["--layout", layout, "--prune-after=-1"], /--prune-after must be a number of seconds ≥ 0/],
      [["--layout", layout, "--allow-version-reuse"], /does not apply to --layout/],
      [["--delta-history", "2", "--out", join(dir.path, "x.abf1")], /--delta-history needs --layout DIR/],
      [[], /--out PATH or --layout DIR is required/],
    ]) {
      const run = await runCli(["publish", ...publishSizing(1, 5000, 0.01), ...extra], { input: "" });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, pattern);
      assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    }
  });
});
