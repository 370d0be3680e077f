// docs/hosting.md's one-line settings for a cache in front of serve's
// direct URL: a cache that answers /snapshot itself drops the client's
// If-None-Match on a miss, so serve's 226 deltas never reach a client
// through it (issue 33: varnish "deltas never arrive"). With the documented
// line — nginx `location = /snapshot { proxy_pass …; proxy_cache off; }`,
// varnish `if (req.url ~ "^/snapshot") { return (pass); }` — they do, and
// everything else stays cached.
//
// nginx and varnish on 127.0.0.1 and free ports, serve in-process on port 0.
import assert from "node:assert/strict";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";
import { fetchSnapshot } from "artifact-bloom/delta";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir, writeHexList } from "./helpers/cli.mjs";
import { skipWithout, startNginx, startVarnish } from "./helpers/static-hosts.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));
const SPEC = { expectedItemCount: 6000, targetFalsePositiveRate: 0.01 };

/** The ABF1 file of `version`: 4000 + 40·(v−1) digests. */
const digestsAt = (version) => packedDigests("settings", 4000 + 40 * (version - 1));
function fileAt(version) {
  const filter = ArtifactBloomFilter.createPacked(digestsAt(version), SPEC);
  assert.equal(filter.kind, "success");
  const bytes = encodeSnapshot(filter.value, { catalogVersion: version });
  filter.value.free();
  return bytes;
}

describe("docs/hosting.md: the one-line cache settings let serve's deltas through", () => {
  let dir;
  let server;
  let snapshotPath;
  let version = 1;
  // serve takes a snapshot with its complete list (serve-unit.mjs): the list first, by rename.
  const writeList = async () => {
    const list = join(dir.path, "catalog.txt");
    await writeHexList(`${list}.tmp`, splitDigests(digestsAt(version)));
    await rename(`${list}.tmp`, list);
  };
  const publishNext = async () => {
    version += 1;
    await writeList();
    await writeFile(`${snapshotPath}.tmp`, fileAt(version));
    await rename(`${snapshotPath}.tmp`, snapshotPath);
  };
  before(async () => {
    dir = await tempDir("hosting-cache-settings");
    snapshotPath = join(dir.path, "catalog.abf1");
    await writeList();
    await writeFile(snapshotPath, fileAt(1));
    const { startServer } = await import(SERVE);
    server = await startServer({ snapshot: snapshotPath, catalog: join(dir.path, "catalog.txt"), port: 0 });
  });
  after(async () => {
    await server?.close();
    await dir?.remove();
  });

  /** A client holding the current version polls `url` after the next publish: it must get a delta. */
  const deltaThrough = async (url) => {
    const held = await fetchSnapshot(url);
    assert.equal(held.kind, "success", held.message);
    await publishNext();
    const next = await fetchSnapshot(url, { base: held.value });
    assert.equal(next.kind, "success", next.message);
    assert.equal(next.value.catalogVersion, version);
    assert.deepEqual(encodeSnapshot(next.value.filter, { catalogVersion: version }), fileAt(version));
    return next.transfer;
  };

  test("nginx proxy_cache with `location = /snapshot { … proxy_cache off; }`", { skip: skipWithout("nginx") }, async () => {
    const backend = server.url.replace(/\/$/, "");
    const plain = await startNginx({ proxy: backend, cache: {} });
    try {
      // Without the line: nginx drops If-None-Match on the way to serve, so the full file.
      const transfer = await deltaThrough(`${plain.url}/snapshot`);
      assert.equal(transfer.delta, false, JSON.stringify(transfer));
    } finally {
      await plain.stop();
    }
    const nginx = await startNginx({ proxy: backend, cache: { uncachedPaths: ["/snapshot"] } });
    try {
      const transfer = await deltaThrough(`${nginx.url}/snapshot`);
      assert.equal(transfer.delta, true, JSON.stringify(transfer));
    } finally {
      await nginx.stop();
    }
  });

  test('varnish with `if (req.url ~ "^/snapshot") { return (pass); }`', { skip: skipWithout("varnishd") }, async () => {
    const plain = await startVarnish({ backend: server.url });
    try {
      // Without the line (the default VCL): the full file, as the issue measured.
      const transfer = await deltaThrough(`${plain.url}/snapshot`);
      assert.equal(transfer.delta, false, JSON.stringify(transfer));
    } finally {
      await plain.stop();
    }
    const passing = await startVarnish({ backend: server.url, vclRecv: '  if (req.url ~ "^/snapshot") { return (pass); }' });
    try {
      const transfer = await deltaThrough(`${passing.url}/snapshot`);
      assert.equal(transfer.delta, true, JSON.stringify(transfer));
    } finally {
      await passing.stop();
    }
  });
});
