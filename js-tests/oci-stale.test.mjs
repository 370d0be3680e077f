// Stale snapshots against the real registry (issue 23 §6): a snapshot taken,
// then other pushes, then deletions (registry API DELETE with delete
// enabled), then a push with the old snapshot. Exact counts: a 404 after
// "maybe" for a digest the snapshot was built from is staleDeleted, not a
// false positive (the sidecar lists the digests); --verify-absent-above
// HEADs large "definitely absent" blobs and skips the ones pushed since;
// another repository's or an outdated snapshot is warned about; an empty
// repository publishes without --allow-empty; and --snapshot-cache asks a
// `serve` endpoint for a delta, so the push uses the newer version.
import assert from "node:assert/strict";
import { copyFile, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadSnapshot } from "artifact-bloom";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { sharedBaseImages } from "./helpers/oci-layout.mjs";
import { blobStatus, hexOf, publishFromRegistry, pushFirstImage, pushLayout } from "./helpers/oci-steps.mjs";
import { headsOf, startRegistry } from "./helpers/registry.mjs";
import { startServe, stopServe } from "./helpers/serve-process.mjs";

const BIG = 300_000; // fresh[0]: above the --verify-absent-above 100000 used below
const C_ONLY = 200_000; // C's own layer: above it too, and really absent
let registry;
let dir;
let images;
let layout;
let cOnly;
let imageC;

before(async () => {
  registry = await startRegistry("oci-stale");
  dir = await tempDir("oci-stale");
  images = sharedBaseImages({ freshSizes: [BIG, 4096, 5000], label: "stale" });
  cOnly = images.builder.layer("stale-c-only", C_ONLY);
  imageC = images.builder.image({ layers: [...images.base, ...images.fresh, cOnly], label: "stale-c" });
  images.builder.tag("c", imageC);
  layout = await images.builder.write(join(dir.path, "layout"));
});
after(async () => {
  await registry?.stop();
  await dir?.remove();
});

const at = (name) => join(dir.path, name);
const manifestJson = (descriptor) => JSON.parse(new TextDecoder().decode(images.builder.bytes(descriptor.digest)));
const blobsOf = (descriptor) => {
  const json = manifestJson(descriptor);
  return [json.config, ...json.layers];
};
const bytesOf = (digest) => Uint8Array.from(Buffer.from(hexOf(digest), "hex"));

async function deleteFromRegistry(repository, kind, digest) {
  const response = await fetch(`${registry.url}/v2/${repository}/${kind}/${digest}`, { method: "DELETE" });
  await response.arrayBuffer();
  assert.equal(response.status, 202, `DELETE ${kind}/${digest} in ${repository}`);
}

/**
 * The scenario: A pushed, the snapshot taken (with its sidecar), then B
 * pushed (its fresh layers and config arrive), then two base layers and A's
 * manifest (tag "a") deleted. → the stale snapshot's path and what was deleted.
 */
async function staleRepository(repository) {
  await pushFirstImage(registry, layout, repository, at(`${repository}-empty.abf1`));
  const snapshot = at(`${repository}.abf1`);
  const published = await publishFromRegistry(registry.url, repository, snapshot);
  assert.equal(published.run.code, 0, published.run.stderr);
  assert.equal(published.summary.insertedItemCount, 8, "6 base layers, A's config and manifest");
  const pushedB = await pushLayout(layout, `${registry.host}/${repository}:b`, snapshot);
  assert.equal(pushedB.run.code, 0, pushedB.run.stderr);
  const deleted = [images.base[0].descriptor.digest, images.base[3].descriptor.digest];
  for (const digest of deleted) await deleteFromRegistry(repository, "blobs", digest);
  await deleteFromRegistry(repository, "manifests", images.a.digest);
  for (const digest of deleted) assert.equal(await blobStatus(registry.url, repository, digest), 404);
  return { snapshot, deleted };
}

/**
 * What a push of C must count, computed here from the snapshot's own filter
 * and the registry's own answers (not from the CLI): maybes, their 404s
 * split by membership in the digests the snapshot was built from, and the
 * absent blobs above `threshold` that the registry has.
 */
async function expectedCounts(repository, snapshotPath, builtFrom, threshold) {
  const loaded = loadSnapshot(new Uint8Array(await readFile(snapshotPath)));
  assert.equal(loaded.kind, "success");
  const { filter } = loaded.value;
  const counts = { maybe: 0, staleDeleted: 0, falsePositives: 0, absent: 0, verified: 0, absentButPresent: 0, upload: 0 };
  for (const blob of blobsOf(imageC)) {
    const present = (await blobStatus(registry.url, repository, blob.digest)) === 200;
    if (filter.mightContain(bytesOf(blob.digest))) {
      counts.maybe += 1;
      if (!present) {
        counts.upload += 1;
        if (builtFrom.has(blob.digest)) counts.staleDeleted += 1;
        else counts.falsePositives += 1;
      }
    } else {
      counts.absent += 1;
      if (blob.size > threshold) {
        counts.verified += 1;
        if (present) counts.absentButPresent += 1;
        else counts.upload += 1;
      } else {
        counts.upload += 1;
      }
    }
  }
  loaded.value.filter.free();
  return counts;
}

const builtFromA = () => new Set([images.a.digest, ...blobsOf(images.a).map((blob) => blob.digest)]);

async function pushC(repository, snapshot, extra = []) {
  await registry.settle();
  const mark = registry.mark();
  const pushed = await pushLayout(layout, `${registry.host}/${repository}:c`, snapshot, { extra });
  await registry.settle();
  return { ...pushed, log: registry.since(mark) };
}

describe("a push with a stale snapshot", () => {
  test("exact counts: deleted-since digests are staleDeleted (not false positives), pushed-since ones uploaded again", async () => {
    const { snapshot, deleted } = await staleRepository("stale-exact");
    const expected = await expectedCounts("stale-exact", snapshot, builtFromA(), 16 * 1024 * 1024);
    assert.deepEqual(
      { maybe: expected.maybe, staleDeleted: expected.staleDeleted, absent: expected.absent },
      { maybe: 6, staleDeleted: 2, absent: 5 },
      "the scenario: 6 base layers maybe (2 deleted), 3 pushed-since + 2 new absent",
    );
    const { run, summary, log } = await pushC("stale-exact", snapshot);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.keySetKnown, true);
    assert.equal(summary.staleDeleted, 2);
    assert.equal(summary.falsePositives, expected.falsePositives);
    assert.equal(summary.headRequests, expected.maybe);
    assert.equal(log.filter((entry) => entry.method === "HEAD").length, expected.maybe, "the registry saw exactly those HEADs");
    assert.equal(summary.headsSkipped, 5);
    assert.equal(summary.verifiedAbsent, 0, "no blob of C is above the default 16 MiB");
    assert.equal(summary.absentButPresent, 0);
    assert.equal(summary.uploaded, expected.upload);
    assert.equal(summary.uploaded, 7, "2 deleted since + 3 pushed since (uploaded again) + C's layer and config");
    for (const digest of deleted) {
      assert.equal(headsOf(log, digest), 1);
      assert.ok(summary.uploadedDigests.includes(digest), `${digest} was uploaded after its 404`);
    }
    // Tag "b" came and tag "a" went since the snapshot: warned, on stderr and in the JSON.
    assert.equal(summary.tagsAdded, 1);
    assert.equal(summary.tagsRemoved, 1);
    assert.equal(summary.warnings.length, 1);
    assert.match(summary.warnings[0], /older than .*stale-exact: 1 tags added since \(b\), 1 removed \(a\)/);
    assert.match(run.stderr, /push: warning: the snapshot \(made .*\) is older than/);
  });

  test("--verify-absent-above 100000: the pushed-since large layer is HEADed and not uploaded again", async () => {
    const { snapshot } = await staleRepository("stale-verify");
    const expected = await expectedCounts("stale-verify", snapshot, builtFromA(), 100_000);
    assert.deepEqual(
      { verified: expected.verified, absentButPresent: expected.absentButPresent },
      { verified: 2, absentButPresent: 1 },
    );
    const { run, summary, log } = await pushC("stale-verify", snapshot, ["--verify-absent-above", "100000"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.verifyAbsentAbove, 100_000);
    assert.equal(summary.verifiedAbsent, 2);
    assert.equal(summary.absentButPresent, 1);
    assert.equal(summary.absentButPresentBytes, images.fresh[0].descriptor.size);
    assert.equal(summary.staleDeleted, 2);
    assert.equal(summary.uploaded, expected.upload);
    assert.equal(summary.uploaded, 6, "one re-upload fewer than with the default");
    assert.ok(!summary.uploadedDigests.includes(images.fresh[0].descriptor.digest));
    assert.equal(headsOf(log, images.fresh[0].descriptor.digest), 1);
    assert.equal(headsOf(log, cOnly.descriptor.digest), 1, "C's own large layer was HEADed (404) and uploaded");
    assert.ok(summary.uploadedDigests.includes(cOnly.descriptor.digest));
    assert.equal(summary.headRequests, expected.maybe + 2);
    assert.equal(summary.headsSkipped, 3);
    assert.equal(
      (await runCli(["push", layout, `${registry.host}/x:c`, "--snapshot", snapshot, "--verify-absent-above", "1M"])).code,
      2,
    );
  });

  test("without the sidecar the same 404s count as false positives, with one note", async () => {
    const { snapshot } = await staleRepository("stale-nosidecar");
    await rm(`${snapshot}.meta.json`);
    const { run, summary } = await pushC("stale-nosidecar", snapshot);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.keySetKnown, false);
    assert.equal(summary.staleDeleted, 0);
    assert.equal(summary.falsePositives, 2);
    assert.deepEqual(summary.warnings, []);
    assert.equal(run.stderr.match(/push: note: no snapshot sidecar/g)?.length, 1);
  });

  test("another repository's snapshot: a warning naming both, and its key set is not used", async () => {
    const { snapshot } = await staleRepository("stale-mine");
    const { run, summary } = await pushC("stale-theirs", snapshot);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.snapshotRepository, `${registry.host}/stale-mine`);
    assert.equal(summary.keySetKnown, false);
    assert.equal(summary.warnings.length, 1);
    assert.match(
      summary.warnings[0],
      new RegExp(`the snapshot is of ${registry.host}/stale-mine, not ${registry.host}/stale-theirs`),
    );
    assert.match(run.stderr, /push: warning: the snapshot is of .*stale-mine/);
  });

  test("a sidecar that is not JSON, or describes another snapshot, is a warning and is not used", async () => {
    const { snapshot } = await staleRepository("stale-broken");
    const sidecarPath = `${snapshot}.meta.json`;
    const good = await readFile(sidecarPath, "utf8");
    await writeFile(sidecarPath, "{ not json");
    const broken = await pushC("stale-broken", snapshot);
    assert.equal(broken.run.code, 0, broken.run.stderr);
    assert.equal(broken.summary.keySetKnown, false);
    assert.match(broken.summary.warnings[0], /meta\.json is not JSON/);
    await writeFile(sidecarPath, JSON.stringify({ ...JSON.parse(good), snapshotChecksum: "0".repeat(64) }));
    const other = await pushLayout(layout, `${registry.host}/stale-broken:c`, snapshot);
    assert.equal(other.run.code, 0, other.run.stderr);
    assert.equal(other.summary.keySetKnown, false);
    assert.match(other.summary.warnings[0], /describes the snapshot with checksum 0{64}, not the one loaded/);
  });
});

describe("publish --from-registry of an empty repository", () => {
  test("publishes without --allow-empty (with a sidecar), but still refuses to empty a non-empty snapshot", async () => {
    const args = (out, repository, version = 1) => [
      "publish",
      ...publishSizing(version, 100, 0.01),
      "--out",
      out,
      "--from-registry",
      registry.url,
      "--repository",
      repository,
      "--json",
    ];
    const empty = await runCli(args(at("nobody.abf1"), "nobody-pushed-here"));
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(JSON.parse(empty.stdout).insertedItemCount, 0);
    const sidecar = JSON.parse(await readFile(at("nobody.abf1.meta.json"), "utf8"));
    assert.equal(sidecar.repository, `${registry.host}/nobody-pushed-here`);
    assert.equal(sidecar.digestCount, 0);
    assert.deepEqual(sidecar.tags, []);

    await pushFirstImage(registry, layout, "will-empty", at("will-empty-0.abf1"));
    const full = await runCli(args(at("live.abf1"), "will-empty"));
    assert.equal(full.code, 0, full.stderr);
    const over = await runCli(args(at("live.abf1"), "nobody-pushed-here", 2));
    assert.equal(over.code, 1);
    assert.match(over.stderr, /refusing to publish an empty snapshot .*--allow-empty/);
  });
});

describe("--snapshot URL of serve, --snapshot-cache", () => {
  test("the second push gets the newer version as an ABD1 delta from the cache, and counts by it", async () => {
    await pushFirstImage(registry, layout, "served", at("served-empty.abf1"));
    const snapshot = at("served.abf1");
    const catalog = at("served-catalog.txt");
    const v1 = await publishFromRegistry(registry.url, "served", snapshot, { extra: ["--save-digests", catalog] });
    assert.equal(v1.run.code, 0, v1.run.stderr);
    const server = await startServe(snapshot, catalog);
    try {
      const url = `${server.base}/snapshot`;
      const cache = at("served-cache.abf1");
      const first = await pushLayout(layout, `${registry.host}/served:b`, url, { extra: ["--snapshot-cache", cache] });
      assert.equal(first.run.code, 0, first.run.stderr);
      assert.equal(first.summary.snapshotTransfer.from, "full");
      assert.equal(first.summary.snapshotCatalogVersion, 1);
      assert.equal(first.summary.keySetKnown, true, "the sidecar came from GET /snapshot.meta.json");
      await copyFile(cache, at("served-v1.abf1"));

      // Version 2 (A and B): the catalog list first, then the snapshot (serve switches once both changed).
      const v2 = await publishFromRegistry(registry.url, "served", at("served-next.abf1"), {
        version: 2,
        extra: ["--save-digests", `${catalog}.next`],
      });
      assert.equal(v2.run.code, 0, v2.run.stderr);
      await rename(`${catalog}.next`, catalog);
      await rename(at("served-next.abf1.meta.json"), `${snapshot}.meta.json`);
      await rename(at("served-next.abf1"), snapshot);

      const second = await pushLayout(layout, `${registry.host}/served:c`, url, { extra: ["--snapshot-cache", cache] });
      assert.equal(second.run.code, 0, second.run.stderr);
      assert.equal(second.summary.snapshotTransfer.from, "delta");
      assert.equal(second.summary.snapshotTransfer.baseCatalogVersion, 1);
      assert.ok(second.summary.snapshotTransfer.bytes < second.summary.snapshotTransfer.fullBytes);
      assert.equal(second.summary.snapshotCatalogVersion, 2);
      assert.deepEqual(second.summary.warnings, []);
      // With version 2, B's fresh layers and config are "maybe" (present): only C's layer and config are absent.
      const old = loadSnapshot(new Uint8Array(await readFile(at("served-v1.abf1")))).value;
      const absentInV1 = blobsOf(imageC).filter((blob) => !old.filter.mightContain(bytesOf(blob.digest))).length;
      old.filter.free();
      assert.equal(absentInV1, 5);
      assert.equal(second.summary.headsSkipped, 2);
      assert.equal(second.summary.uploaded, 2, "nothing of B uploaded again");
      const stats = await (await fetch(`${server.base}/stats`)).json();
      assert.equal(stats.deltas.deltaResponses, 1);
      const cached = loadSnapshot(new Uint8Array(await readFile(cache)));
      assert.equal(cached.value.catalogVersion, 2, "the cache holds the new version");
      cached.value.filter.free();

      const third = await pushLayout(layout, `${registry.host}/served:c`, url, { extra: ["--snapshot-cache", cache] });
      assert.equal(third.run.code, 0, third.run.stderr);
      assert.equal(third.summary.snapshotTransfer.from, "cache", "304: the cache is current");
      assert.equal(third.summary.snapshotTransfer.bytes, 0);
    } finally {
      await stopServe(server);
    }
    const misuse = await runCli([
      "push",
      layout,
      `${registry.host}/served:d`,
      "--snapshot",
      snapshot,
      "--snapshot-cache",
      at("x.abf1"),
      "--plain-http",
    ]);
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--snapshot-cache needs --snapshot URL/);
  });
});
