// `serve --layout DIR` (docs/hosting.md): the static layout under /layout/
// with the headers a shared cache needs — manifest.json `no-cache` with an
// ETag and Last-Modified (a poll that finds nothing new is one 304), the
// content-named snapshots and deltas `public, max-age=31536000, immutable` —
// and nothing but the layout's own names. Then varnish's default VCL in
// front: the immutable files come from its cache, the manifest is asked of
// serve every time, so a republish is seen on the next poll.
//
// The layout here is written by hand from the package's own functions
// (docs/layout.md's names and manifest); publish --layout's own output is
// covered by the hosting poll-cost tests. Servers on 127.0.0.1, port 0.
import assert from "node:assert/strict";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { encodeSnapshotDelta } from "artifact-bloom/delta";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { skipWithout, startVarnish } from "./helpers/static-hosts.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));
const SPEC = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The ABF1 file of `version` (2000 + 20·(v−1) digests) and its checksum. */
function snapshotAt(version) {
  const filter = ArtifactBloomFilter.createPacked(packedDigests("layout", 2000 + 20 * (version - 1)), SPEC);
  assert.equal(filter.kind, "success");
  const bytes = encodeSnapshot(filter.value, { catalogVersion: version });
  filter.value.free();
  const loaded = loadSnapshot(bytes);
  assert.equal(loaded.kind, "success");
  return { bytes, snapshot: loaded.value, checksum: loaded.value.header.checksum };
}

/** Writes version `version` into the layout at `dir`, with a delta from `base` if given; manifest last. */
async function writeVersion(dir, version, base) {
  const target = snapshotAt(version);
  await writeFile(join(dir, "snapshots", `${target.checksum}.abf1`), target.bytes);
  const deltas = [];
  if (base !== undefined) {
    const delta = encodeSnapshotDelta(base.snapshot, target.snapshot);
    assert.equal(delta.kind, "success");
    const url = `deltas/${base.checksum}-${target.checksum}.abd1`;
    await writeFile(join(dir, url), delta.value);
    deltas.push({ baseCatalogVersion: version - 1, baseChecksum: base.checksum, url, size: delta.value.byteLength });
  }
  const manifest = {
    format: "artifact-bloom-layout",
    formatVersion: 1,
    catalogVersion: version,
    snapshot: { url: `snapshots/${target.checksum}.abf1`, checksum: target.checksum, size: target.bytes.byteLength },
    deltas,
  };
  await writeFile(join(dir, "manifest.json.tmp"), JSON.stringify(manifest));
  await rename(join(dir, "manifest.json.tmp"), join(dir, "manifest.json"));
  return { ...target, manifest, deltaUrl: deltas[0]?.url };
}

describe("serve --layout DIR", () => {
  let dir;
  let layout;
  let server;
  let v1;
  let v2;
  before(async () => {
    dir = await tempDir("hosting-serve-layout");
    layout = join(dir.path, "layout");
    await mkdir(join(layout, "snapshots"), { recursive: true });
    await mkdir(join(layout, "deltas"));
    await writeFile(join(dir.path, "catalog.abf1"), snapshotAt(1).bytes);
    // serve's list must be the snapshot's, complete (serve-unit.mjs).
    await writeHexList(join(dir.path, "catalog.txt"), splitDigests(packedDigests("layout", 2000)));
    v1 = await writeVersion(layout, 1);
    v2 = await writeVersion(layout, 2, v1);
    const { startServer } = await import(SERVE);
    server = await startServer({
      snapshot: join(dir.path, "catalog.abf1"),
      catalog: join(dir.path, "catalog.txt"),
      port: 0,
      layout,
    });
  });
  after(async () => {
    await server?.close();
    await dir?.remove();
  });

  test("manifest.json: no-cache, an ETag and Last-Modified, and 304 for either validator", async () => {
    const response = await fetch(`${server.url}layout/manifest.json`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), v2.manifest);
    assert.equal(response.headers.get("cache-control"), "no-cache");
    assert.equal(response.headers.get("content-type"), "application/json");
    const etag = response.headers.get("etag");
    const lastModified = response.headers.get("last-modified");
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    assert.ok(Number.isFinite(Date.parse(lastModified)), lastModified);
    assert.match(response.headers.get("access-control-expose-headers"), /\bETag\b/);
    const byTag = await fetch(`${server.url}layout/manifest.json`, { headers: { "if-none-match": etag } });
    assert.equal(byTag.status, 304);
    assert.equal(byTag.headers.get("etag"), etag);
    const byDate = await fetch(`${server.url}layout/manifest.json`, { headers: { "if-modified-since": lastModified } });
    assert.equal(byDate.status, 304);
    const stale = await fetch(`${server.url}layout/manifest.json`, { headers: { "if-none-match": '"other"' } });
    assert.equal(stale.status, 200);
  });

  test("snapshots and deltas: immutable for a year, their bytes, named by content", async () => {
    for (const [url, bytes, type] of [
      [v2.manifest.snapshot.url, v2.bytes, "application/octet-stream"],
      [v2.deltaUrl, undefined, "application/vnd.artifact-bloom.abd1"],
    ]) {
      const response = await fetch(`${server.url}layout/${url}`);
      assert.equal(response.status, 200, url);
      const body = new Uint8Array(await response.arrayBuffer());
      if (bytes !== undefined) assert.deepEqual(body, bytes);
      assert.equal(response.headers.get("cache-control"), IMMUTABLE);
      assert.equal(response.headers.get("content-type"), type);
      assert.equal(Number(response.headers.get("content-length")), body.byteLength);
      const again = await fetch(`${server.url}layout/${url}`, { headers: { "if-none-match": response.headers.get("etag") } });
      assert.equal(again.status, 304);
    }
    const snapshot = await fetch(`${server.url}layout/${v2.manifest.snapshot.url}`, { method: "HEAD" });
    assert.equal(snapshot.headers.get("etag"), `"${v2.checksum}"`);
  });

  test("only the layout's names: other files, other methods and escapes are refused", async () => {
    await writeFile(join(layout, "secret.txt"), "not part of the layout");
    for (const path of [
      "layout/secret.txt",
      "layout/snapshots/x.abf1",
      `layout/snapshots/${v2.checksum.toUpperCase()}.abf1`,
      `layout/snapshots/${"0".repeat(64)}.abf1`,
      "layout/snapshots/..%2f..%2fcatalog.txt",
      "layout/",
    ]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 404, path);
      await response.arrayBuffer();
    }
    const post = await fetch(`${server.url}layout/manifest.json`, { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
  });

  test("the CLI: --layout that is not a directory is a usage error (exit 2, one line)", async () => {
    const missing = join(dir.path, "no-such-layout");
    const run = await runCli([
      "serve",
      "--snapshot",
      join(dir.path, "catalog.abf1"),
      "--catalog",
      join(dir.path, "catalog.txt"),
      "--port",
      "0",
      "--layout",
      missing,
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, /--layout: expected a directory .*no-such-layout/);
  });

  describe("varnish (default VCL) in front", { skip: skipWithout("varnishd") }, () => {
    let varnish;
    before(async () => {
      varnish = await startVarnish({ backend: server.url });
    });
    after(async () => {
      await varnish?.stop();
    });

    test("immutable files come from varnish's cache; the manifest is asked of serve each time", async () => {
      const snapshotUrl = `${varnish.url}/layout/${v2.manifest.snapshot.url}`;
      const first = await fetch(snapshotUrl);
      assert.deepEqual(new Uint8Array(await first.arrayBuffer()), v2.bytes);
      const second = await fetch(snapshotUrl);
      await second.arrayBuffer();
      // X-Varnish holds two request ids on a hit (this one and the one that stored it).
      assert.match(second.headers.get("x-varnish"), /^\d+ \d+$/, "the second GET is a cache hit");
      const manifest = await fetch(`${varnish.url}/layout/manifest.json`);
      const etag = manifest.headers.get("etag");
      assert.equal((await manifest.json()).catalogVersion, 2);
      const idle = await fetch(`${varnish.url}/layout/manifest.json`, { headers: { "if-none-match": etag } });
      assert.equal(idle.status, 304, "an idle poll through varnish is a 304");
      const v3 = await writeVersion(layout, 3, v2);
      const next = await fetch(`${varnish.url}/layout/manifest.json`, { headers: { "if-none-match": etag } });
      assert.equal(next.status, 200, "the republished manifest is seen on the next poll");
      assert.deepEqual(await next.json(), v3.manifest);
    });
  });
});
