// `artifact-bloom serve` behind the misconfigured cache of issue 33: an
// nginx proxy_cache that ignores Vary, Cache-Control and Expires, stores
// every 200 and 226 for a minute under the URL alone, and forwards the
// client's If-None-Match (and A-IM) to serve on a miss. A delta (226) made
// for one client's base, replayed to another, cannot load: the fresh client
// fails (badMagic) until the entry expires — an outage. serve marks its 226
// so that even this cache does not store it (X-Accel-Expires: 0, which
// nginx obeys unless told to ignore that header too).
//
// The bar: every client loads (a fresh one always gets a snapshot, a polling
// one a snapshot or "not modified"), and every snapshot any client holds is
// one that was published, bit for bit, answering "maybe" for every digest of
// its version (0 wrong answers). A stale answer (the cache keeps a 200 for a
// minute) is allowed: it is old, not wrong.
//
// nginx on 127.0.0.1, a free port, a temp dir; serve in-process on port 0.
import assert from "node:assert/strict";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { fetchSnapshot } from "artifact-bloom/delta";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { skipWithout, startNginx } from "./helpers/static-hosts.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));
// One layout for every version (deltas need it): capacity for 6000 digests at 1 %.
const SPEC = { expectedItemCount: 6000, targetFalsePositiveRate: 0.01 };
const LAST_VERSION = 5;
// Version v holds 4000 + 40·(v−1) digests: each version adds 1 %.
const digestsAt = (version) => packedDigests("cache-catalog", 4000 + 40 * (version - 1));

const files = new Map();
/** The ABF1 file of version `version` (built once). */
function fileAt(version) {
  if (!files.has(version)) {
    const filter = ArtifactBloomFilter.createPacked(digestsAt(version), SPEC);
    assert.equal(filter.kind, "success");
    files.set(version, encodeSnapshot(filter.value, { catalogVersion: version }));
    filter.value.free();
  }
  return files.get(version);
}

/** The ABF1 checksum of a file (serve's ETag for it). */
function checksumOf(bytes) {
  const loaded = loadSnapshot(bytes);
  assert.equal(loaded.kind, "success");
  loaded.value.filter.free();
  return loaded.value.header.checksum;
}

/**
 * A snapshot a client holds is right when it is a published version, bit
 * for bit, and says "maybe" for every digest of that version.
 */
function assertRight(snapshot, who) {
  const version = snapshot.catalogVersion;
  assert.ok(version >= 1 && version <= LAST_VERSION, `${who}: catalogVersion ${version} was never published`);
  const encoded = encodeSnapshot(snapshot.filter, { catalogVersion: version });
  assert.deepEqual(encoded, fileAt(version), `${who}: v${version} differs from the published file`);
  const answers = snapshot.filter.mightContainMany(digestsAt(version));
  assert.equal(answers.indexOf(0), -1, `${who}: a digest of v${version} answered "definitely absent"`);
}

describe("serve behind a cache that ignores Vary and Cache-Control", { skip: skipWithout("nginx") }, () => {
  let dir;
  let server;
  let cache;
  let snapshotPath;

  let layout;
  let catalog;

  /**
   * Replaces the served snapshot atomically, then has serve read it (a
   * direct request, past the cache); and publishes the version into the
   * layout with the real CLI.
   */
  const publish = async (version) => {
    // serve takes a snapshot with its complete list (serve-unit.mjs): the list first, by rename.
    await writeHexList(`${catalog}.tmp`, splitDigests(digestsAt(version)));
    await rename(`${catalog}.tmp`, catalog);
    await writeFile(`${snapshotPath}.tmp`, fileAt(version));
    await rename(`${snapshotPath}.tmp`, snapshotPath);
    const direct = await fetch(`${server.url}snapshot`, { method: "HEAD" });
    assert.equal(direct.status, 200);
    const list = join(dir.path, "digests.bin");
    await writeFile(list, digestsAt(version));
    const sizing = publishSizing(version, SPEC.expectedItemCount, SPEC.targetFalsePositiveRate);
    const run = await runCli(["publish", "--input", list, "--binary", ...sizing, "--layout", layout]);
    assert.equal(run.code, 0, run.stderr);
  };

  before(async () => {
    dir = await tempDir("hosting-vary-cache");
    snapshotPath = join(dir.path, "catalog.abf1");
    catalog = join(dir.path, "catalog.txt");
    await writeHexList(catalog, splitDigests(digestsAt(1)));
    await writeFile(snapshotPath, fileAt(1));
    layout = join(dir.path, "layout");
    await mkdir(layout);
    // v1 in the layout too: the layout test below holds every version from v1.
    const list = join(dir.path, "digests.bin");
    await writeFile(list, digestsAt(1));
    const sizing = publishSizing(1, SPEC.expectedItemCount, SPEC.targetFalsePositiveRate);
    const run = await runCli(["publish", "--input", list, "--binary", ...sizing, "--layout", layout]);
    assert.equal(run.code, 0, run.stderr);
    const { startServer } = await import(SERVE);
    server = await startServer({ snapshot: snapshotPath, catalog, port: 0, layout });
    cache = await startNginx({
      proxy: server.url.replace(/\/$/, ""),
      cache: { ignoreHeaders: true, forwardConditionals: true, valid: "1m" },
    });
  });
  after(async () => {
    await cache?.stop();
    await server?.close();
    await dir?.remove();
  });

  test("direct /snapshot with deltas: no client ever fails to load, 0 wrong answers", async () => {
    // The cache keeps an answer for a minute; each round asks for its own
    // URL (serve ignores the query, the cache key includes it), as if the
    // previous round's entry had expired, so the round's first request —
    // a delta request — is the one the cache stores. Three clients a round:
    // one polling with the previous version as base (it asks for a delta),
    // one two versions behind, and a fresh one (no base: it must always get
    // a snapshot). The first client started from serve itself.
    const url = (round) => `${cache.url}/snapshot?round=${round}`;
    const first = await fetchSnapshot(`${server.url}snapshot`);
    assert.equal(first.kind, "success", first.message);
    assertRight(first.value, "the first client");
    let previous = first.value;
    let older = first.value;
    const outcomes = [];
    for (let version = 2; version <= LAST_VERSION; version += 1) {
      await publish(version);
      const clients = [
        ["one version behind", previous],
        ["two versions behind", older],
        ["fresh", undefined],
      ];
      for (const [who, base] of clients) {
        const result = await fetchSnapshot(url(version), base === undefined ? {} : { base });
        outcomes.push(`v${version} ${who}: ${result.kind === "success" ? `v${result.value.catalogVersion}` : result.error}`);
        if (result.kind === "failure") {
          assert.equal(base !== undefined && result.error === "notModified", true, `v${version}, ${who}: ${result.message}`);
          continue;
        }
        assertRight(result.value, `v${version}, ${who}`);
        if (base === previous) {
          older = previous;
          previous = result.value;
        }
      }
    }
    // The clients did ask for deltas, and serve sent some: the cache kept none of them.
    assert.ok(server.stats.deltas.deltaResponses > 0, outcomes.join("\n"));
  });
  test("the layout through the same cache: no client fails to load, 0 wrong answers, deltas pass", async () => {
    // serve --layout behind the cache; versions 1 … LAST_VERSION are in the
    // layout already (the test above published them). The cache keeps the
    // manifest a minute whatever its Cache-Control says: a client may see
    // an old manifest (stale, not wrong); the files it names never change.
    // A fresh round republishes nothing; it asks for its own manifest URL
    // (as if the entry had expired), the files' URLs are shared by all.
    const url = (round) => `${cache.url}/layout/manifest.json?round=${round}`;
    const fresh = await fetchSnapshot(url("layout-fresh"));
    assert.equal(fresh.kind, "success", fresh.message);
    assertRight(fresh.value, "a fresh client");
    assert.equal(fresh.value.catalogVersion, LAST_VERSION);
    for (let held = 1; held < LAST_VERSION; held += 1) {
      const base = loadSnapshot(fileAt(held));
      assert.equal(base.kind, "success");
      for (const round of ["a", "b"]) {
        const result = await fetchSnapshot(url(`layout-${held}-${round}`), { base: base.value });
        assert.equal(result.kind, "success", `holding v${held}, round ${round}: ${result.message}`);
        assertRight(result.value, `holding v${held}, round ${round}`);
        assert.equal(result.value.catalogVersion, LAST_VERSION);
        // Within K versions the layout names a delta from the held one: it came, not the full file.
        assert.equal(result.transfer?.delta, true, `holding v${held}: ${JSON.stringify(result.transfer)}`);
      }
    }
  });

  test("serve's own answers: the 226 private and unstored, the 200/304 varying, the ETag exposed", async () => {
    // After the test above serve holds v5 and the chain from v1.
    const [v4, v5] = [4, 5].map((version) => `"${checksumOf(fileAt(version))}"`);
    const delta = await fetch(`${server.url}snapshot`, { headers: { "a-im": "abd1", "if-none-match": v4 } });
    await delta.arrayBuffer();
    assert.equal(delta.status, 226);
    assert.equal(delta.headers.get("cache-control"), "private, no-store");
    assert.equal(delta.headers.get("x-accel-expires"), "0");
    assert.equal(delta.headers.get("surrogate-control"), "no-store");
    const full = await fetch(`${server.url}snapshot`);
    await full.arrayBuffer();
    const same = await fetch(`${server.url}snapshot`, { headers: { "if-none-match": v5 } });
    for (const response of [delta, full, same]) {
      assert.equal(response.headers.get("vary"), "A-IM, If-None-Match");
      assert.match(response.headers.get("access-control-expose-headers"), /\bETag\b/);
    }
    assert.deepEqual([full.status, same.status], [200, 304]);
  });
});
