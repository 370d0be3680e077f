// Against a real OCI distribution registry (Debian's docker-registry on
// 127.0.0.1, filesystem storage in a temp dir): our push reads back
// byte-identical through skopeo; with the repository's snapshot, blobs that
// are definitely absent get no HEAD at all (checked in the registry's access
// log, per digest) and only shared layers and false positives are HEADed;
// skopeo's HEAD count for the same push is recorded beside ours.
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli, tempDir } from "./helpers/cli.mjs";
import { sharedBaseImages } from "./helpers/oci-layout.mjs";
import { hexOf, publishDigests, publishFromRegistry, pushLayout } from "./helpers/oci-steps.mjs";
import { headsOf, requestTable, runSkopeo, startRegistry } from "./helpers/registry.mjs";

const BIG = 300_000; // with --chunk-size 65536: a 5-chunk PATCH upload
let registry;
let dir;
let images;
let layout;

before(async () => {
  registry = await startRegistry("oci-push");
  dir = await tempDir("oci-push");
  images = sharedBaseImages({ freshSizes: [BIG, 4096, 5000] });
  layout = await images.builder.write(join(dir.path, "layout"));
});
after(async () => {
  await registry?.stop();
  await dir?.remove();
});

const at = (name) => join(dir.path, name);
const digestsOf = (manifest) => {
  const json = JSON.parse(new TextDecoder().decode(images.builder.bytes(manifest.digest)));
  return [json.config.digest, ...json.layers.map((layer) => layer.digest)];
};

/** An empty repository's snapshot (what a first push starts from). */
async function emptySnapshot(repository) {
  const { run, summary } = await publishFromRegistry(registry.url, repository, at(`${repository}-empty.abf1`));
  assert.equal(run.code, 0, run.stderr);
  assert.equal(summary.insertedItemCount, 0);
  return at(`${repository}-empty.abf1`);
}

describe("push, then read back with skopeo", () => {
  test("skopeo inspect --raw and skopeo copy docker://… oci:OUT give the manifest and every blob byte for byte", async () => {
    const snapshot = await emptySnapshot("roundtrip");
    const { run, summary } = await pushLayout(layout, `${registry.host}/roundtrip:b`, snapshot, {
      extra: ["--chunk-size", "65536"],
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.ok, true);
    assert.equal(summary.blobs, 10);
    assert.equal(summary.uploaded, 10);
    assert.equal(summary.headRequests, 0, "an empty repository's snapshot says every blob is absent");
    assert.equal(summary.tagged, true);
    assert.match(run.stderr, /uploaded sha256:[0-9a-f]{12}… 0\.3 MiB/, "progress of the large blob on stderr");
    await registry.settle();
    const patches = registry.log().filter((entry) => entry.method === "PATCH");
    assert.equal(patches.length, Math.ceil(images.fresh[0].descriptor.size / 65536), "the large layer went up in 64 KiB chunks");

    const inspect = await runSkopeo(["inspect", "--raw", "--tls-verify=false", `docker://${registry.host}/roundtrip:b`]);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.equal(inspect.stdout, new TextDecoder().decode(images.builder.bytes(images.b.digest)));

    const out = at("copied");
    const copy = await runSkopeo(["copy", "--src-tls-verify=false", `docker://${registry.host}/roundtrip:b`, `oci:${out}:b`]);
    assert.equal(copy.code, 0, copy.stderr);
    assert.deepEqual(copy.cacheFiles, ["blob-info-cache-v1.boltdb"], "skopeo used the test's own blob-info cache");
    const index = JSON.parse(await readFile(join(out, "index.json"), "utf8"));
    assert.equal(index.manifests.length, 1);
    assert.equal(index.manifests[0].digest, images.b.digest, "the manifest digest survived the round trip");
    for (const digest of [images.b.digest, ...digestsOf(images.b)]) {
      const copied = new Uint8Array(await readFile(join(out, "blobs", "sha256", hexOf(digest))));
      assert.deepEqual(copied, images.builder.bytes(digest), `${digest} is byte-identical`);
    }
  });
});

describe("precheck before push", () => {
  test("absent layers get zero HEADs; only shared layers are HEADed; skopeo HEADs every blob", async (t) => {
    const snapshot = await emptySnapshot("precheck");
    const first = await pushLayout(layout, `${registry.host}/precheck:a`, snapshot);
    assert.equal(first.run.code, 0, first.run.stderr);
    const published = await publishFromRegistry(registry.url, "precheck", at("precheck.abf1"), { version: 2 });
    assert.equal(published.run.code, 0, published.run.stderr);
    assert.equal(published.summary.insertedItemCount, 8, "6 layers, A's config, A's manifest");

    await registry.settle();
    const mark = registry.mark();
    const { run, summary } = await pushLayout(layout, `${registry.host}/precheck:b`, at("precheck.abf1"));
    assert.equal(run.code, 0, run.stderr);
    await registry.settle();
    const ours = registry.since(mark);

    const absent = [images.configB.digest, ...images.fresh.map((layer) => layer.descriptor.digest)];
    for (const digest of absent) assert.equal(headsOf(ours, digest), 0, `no HEAD for the absent blob ${digest}`);
    for (const { descriptor } of images.base)
      assert.equal(headsOf(ours, descriptor.digest), 1, `one HEAD for the shared ${descriptor.digest}`);
    const heads = ours.filter((entry) => entry.method === "HEAD");
    // Every blob that is not shared is absent from the snapshot's set, so a
    // HEAD beyond the shared ones could only be a Bloom false positive.
    assert.equal(heads.length, images.base.length + summary.falsePositives);
    assert.equal(summary.headRequests, heads.length, "the summary counts the HEADs the registry saw");
    assert.equal(summary.headsSkipped + summary.headRequests, summary.blobs);
    assert.equal(summary.uploaded, 4);
    assert.equal(summary.alreadyPresent, 6);

    // skopeo, same starting state (A in the repository), same push of B.
    const skopeoA = await runSkopeo([
      "copy",
      "--dest-tls-verify=false",
      `oci:${layout}:a`,
      `docker://${registry.host}/precheck-skopeo:a`,
    ]);
    assert.equal(skopeoA.code, 0, skopeoA.stderr);
    await registry.settle();
    const skopeoMark = registry.mark();
    const skopeoB = await runSkopeo([
      "copy",
      "--dest-tls-verify=false",
      `oci:${layout}:b`,
      `docker://${registry.host}/precheck-skopeo:b`,
    ]);
    assert.equal(skopeoB.code, 0, skopeoB.stderr);
    await registry.settle();
    const theirs = registry.since(skopeoMark);
    // No batch existence call exists: a client without a snapshot must ask
    // about every blob at least once.
    for (const digest of digestsOf(images.b)) assert.ok(headsOf(theirs, digest) >= 1, `skopeo HEADed ${digest}`);
    const theirHeads = theirs.filter((entry) => entry.method === "HEAD").length;
    t.diagnostic(`blob HEADs for the push of B: ours ${heads.length}, skopeo ${theirHeads}`);
    t.diagnostic(`requests, ours: ${JSON.stringify(requestTable(ours))}`);
    t.diagnostic(`requests, skopeo: ${JSON.stringify(requestTable(theirs))}`);
    assert.ok(heads.length < theirHeads);
  });

  test("a maybe that the registry lacks is a false positive: HEADed once (404), then uploaded", async () => {
    const snapshot = await emptySnapshot("false-positive");
    assert.equal((await pushLayout(layout, `${registry.host}/false-positive:a`, snapshot)).run.code, 0);
    // The repository's set plus one blob it does not have: that blob is a
    // deterministic "maybe" (every inserted digest answers maybe).
    const planted = images.fresh[1].descriptor.digest;
    const inRepository = [images.a.digest, images.configA.digest, ...images.base.map((layer) => layer.descriptor.digest)];
    const hand = await publishDigests([...inRepository, planted].map(hexOf), at("planted.abf1"));
    await registry.settle();
    const mark = registry.mark();
    const { run, summary } = await pushLayout(layout, `${registry.host}/false-positive:b`, hand);
    assert.equal(run.code, 0, run.stderr);
    await registry.settle();
    const log = registry.since(mark);
    assert.equal(headsOf(log, planted), 1);
    assert.ok(summary.falsePositives >= 1);
    assert.ok(summary.uploadedDigests.includes(planted), "the false positive was uploaded after its 404");
    assert.equal(log.filter((entry) => entry.method === "HEAD").length, images.base.length + summary.falsePositives);
  });
});

describe("push: arguments and input", () => {
  test("--help exits 0; bad arguments, layouts and snapshots exit 2 before any request", async () => {
    const help = await runCli(["push", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: artifact-bloom push LAYOUT_DIR/);
    assert.match(help.stdout, /Exit codes/);
    const snapshot = await emptySnapshot("args");
    await mkdir(at("not-a-layout"), { recursive: true });
    await writeFile(at("garbage.abf1"), "not a snapshot");
    const cases = [
      [["push", layout], /expected LAYOUT_DIR\[:ENTRY\] and HOST:PORT\/NAME:TAG/],
      [["push", layout, "no-host-or-tag", "--snapshot", snapshot], /expected HOST\[:PORT\]\/NAME:TAG .*names no registry host/],
      [["push", layout, `${registry.host}/Bad_Name:b`, "--snapshot", snapshot], /bad repository name/],
      [["push", layout, `${registry.host}/args:b`], /--snapshot is required/],
      [
        ["push", at("not-a-layout"), `${registry.host}/args:b`, "--snapshot", snapshot],
        /not an OCI image layout: cannot read oci-layout/,
      ],
      [["push", layout, `${registry.host}/args:nope`, "--snapshot", snapshot], /no entry named "nope"/],
      [["push", layout, `${registry.host}/args:b`, "--snapshot", at("missing.abf1")], /cannot read --snapshot/],
      [["push", layout, `${registry.host}/args:b`, "--snapshot", at("garbage.abf1")], /--snapshot .*: (truncated|badMagic)/],
      [
        ["push", layout, `${registry.host}/args:b`, "--snapshot", snapshot, "--chunk-size", "0"],
        /--chunk-size must be an integer/,
      ],
      [
        ["push", layout, `${registry.host}/args:b`, "--snapshot", snapshot, "--password-stdin"],
        /--password-stdin needs --username/,
      ],
    ];
    await registry.settle();
    const mark = registry.mark();
    for (const [args, message] of cases) {
      const run = await runCli([...args, "--plain-http"]);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
    await registry.settle();
    assert.deepEqual(
      registry.since(mark).filter((entry) => !entry.path.startsWith("/v2/?settle=")),
      [],
      "no request reached the registry",
    );
  });

  test("--snapshot can be a URL (fetched like any published snapshot)", async () => {
    const bytes = await readFile(await emptySnapshot("by-url"));
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(bytes);
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}/snapshot`;
      const { run, summary } = await pushLayout(layout, `${registry.host}/by-url:a`, url);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(summary.headRequests, 0);
      assert.equal(summary.uploaded, 7);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
