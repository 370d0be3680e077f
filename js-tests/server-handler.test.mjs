// artifact-bloom/server's createRequestHandler (issue 34 §1), mounted on
// node:http with toNodeListener: the layout's files with their cache
// headers and validators, every refusal a JSON body, the existence API
// marked as serve's is (HttpArtifactRepository takes its answers), and the
// version rules of docs/server.md: an older catalogVersion is answered only
// where "absent" is certain (appendOnly and absent now), else 409.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, HttpArtifactRepository, SnapshotHolder, fetchSnapshot } from "artifact-bloom";
import { createRequestHandler, directoryLayoutStore, publishToLayout, toNodeListener } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";
import { manualTimers } from "./helpers/timers.mjs";

const SPEC = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
const hexOf = (digest) => Buffer.from(digest).toString("hex");
const digestsAt = (version) => splitDigests(packedDigests("handler", 1000 + 100 * (version - 1)));
const stranger = splitDigests(packedDigests("handler-stranger", 1))[0];

/** The app's catalog: a Set of hex digests at a version, swapped whole on publish. */
function catalogAt(version) {
  const present = new Set(digestsAt(version).map(hexOf));
  return { catalogVersion: version, has: (hex) => present.has(hex) };
}

async function publish(layout, version) {
  const created = ArtifactBloomFilter.create(digestsAt(version), SPEC);
  assert.equal(created.kind, "success");
  const result = await publishToLayout(layout, { filter: created.value, catalogVersion: version });
  created.value.free();
  assert.equal(result.kind, "success", result.message);
}

/** Starts node:http with `handler` on 127.0.0.1:0 → { url, close }. */
async function listen(handler) {
  const server = createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

describe("createRequestHandler on node:http", () => {
  let dir;
  let server;
  let current;
  let strict;
  before(async () => {
    dir = await tempDir("server-handler");
    await publish(dir.path, 1);
    current = catalogAt(1);
    const store = directoryLayoutStore(dir.path);
    server = await listen(createRequestHandler({ store, catalog: () => current, basePath: "/catalog/", appendOnly: true }));
    strict = await listen(createRequestHandler({ catalog: () => current, cors: ["https://pages.example"] }));
  });
  after(async () => {
    await server?.close();
    await strict?.close();
    await dir?.remove();
  });

  test("fetchSnapshot follows the manifest; a poll after a publish refreshes by delta", async () => {
    const url = `${server.url}/catalog/manifest.json`;
    const first = await fetchSnapshot(url);
    assert.equal(first.kind, "success", first.message);
    assert.equal(first.value.catalogVersion, 1);
    const holder = new SnapshotHolder(first.value);
    const timers = manualTimers();
    let settle;
    holder.startPolling(url, { intervalMs: 60_000, timers, onRefresh: (outcome) => settle(outcome) });
    const poll = () => {
      const outcome = new Promise((resolve) => {
        settle = resolve;
      });
      timers.fireAll();
      return outcome;
    };
    assert.equal((await poll()).outcome, "notModified");
    await publish(dir.path, 2);
    current = catalogAt(2);
    assert.equal((await poll()).outcome, "replaced");
    assert.equal(holder.current().catalogVersion, 2);
    assert.equal(holder.deltaRefreshCount, 1, "the delta file, not the snapshot");
    for (const digest of digestsAt(2)) assert.equal(holder.current().filter.mightContain(digest), true);
    holder.stopPolling();
  });

  test("files: manifest no-cache with ETag and Last-Modified (304 for either), snapshots immutable, HEAD without a body", async () => {
    const manifest = await fetch(`${server.url}/catalog/manifest.json`);
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers.get("cache-control"), "no-cache");
    assert.equal(manifest.headers.get("content-type"), "application/json");
    const { snapshot, deltas } = await manifest.json();
    const etag = manifest.headers.get("etag");
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    const byTag = await fetch(`${server.url}/catalog/manifest.json`, { headers: { "if-none-match": etag } });
    assert.equal(byTag.status, 304);
    const byDate = await fetch(`${server.url}/catalog/manifest.json`, {
      headers: { "if-modified-since": manifest.headers.get("last-modified") },
    });
    assert.equal(byDate.status, 304);
    for (const path of [snapshot.url, deltas[0].url]) {
      const file = await fetch(`${server.url}/catalog/${path}`);
      assert.equal(file.status, 200, path);
      assert.equal(file.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(Number(file.headers.get("content-length")), (await file.arrayBuffer()).byteLength);
      const head = await fetch(`${server.url}/catalog/${path}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal((await head.arrayBuffer()).byteLength, 0);
      const again = await fetch(`${server.url}/catalog/${path}`, { headers: { "if-none-match": file.headers.get("etag") } });
      assert.equal(again.status, 304);
    }
  });

  test("only the layout's names: traversal, the state file and other paths are JSON 404s; POST is 405", async () => {
    for (const path of [
      "/catalog/layout-state.json",
      "/catalog/snapshots/../layout-state.json",
      "/catalog/snapshots/%2e%2e/layout-state.json",
      `/catalog/snapshots/${"0".repeat(64)}.abf1`,
      "/catalog/snapshots/ABC.abf1",
      "/elsewhere/manifest.json",
    ]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 404, path);
      assert.equal((await response.json()).error, "notFound", path);
    }
    const post = await fetch(`${server.url}/catalog/manifest.json`, { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
  });

  test("existence through HttpArtifactRepository: members exist, strangers do not, at the current version", async () => {
    const repository = new HttpArtifactRepository(`${server.url}/catalog/`);
    const version = current.catalogVersion;
    assert.equal(await repository.existsAtVersionAsync(digestsAt(version)[5], version), true);
    assert.equal(await repository.existsAtVersionAsync(stranger, version), false);
    const many = await repository.existsManyAtVersionAsync([digestsAt(version)[0], stranger], version);
    assert.deepEqual(many, [true, false]);
  });

  test("versions: appendOnly answers an older version's absent digest; a present one is 409 with the versions", async () => {
    const version = current.catalogVersion;
    assert.ok(version >= 2, "the delta test published v2");
    const older = version - 1;
    const absent = await fetch(`${server.url}/catalog/blobs/sha256/${hexOf(stranger)}?catalogVersion=${older}`, {
      method: "HEAD",
    });
    assert.equal(absent.status, 404);
    assert.equal(absent.headers.get("artifact-bloom-catalog-version"), String(older));
    const present = await fetch(`${server.url}/catalog/blobs/sha256/${hexOf(digestsAt(older)[0])}?catalogVersion=${older}`);
    assert.equal(present.status, 409);
    const body = await present.json();
    assert.equal(body.error, "catalogVersionMismatch");
    assert.deepEqual(body.availableVersions, [version]);
    const repository = new HttpArtifactRepository(`${server.url}/catalog/`);
    await assert.rejects(repository.existsAtVersionAsync(digestsAt(older)[0], older), { code: "versionMismatch" });
    // Not appendOnly: any other version is refused, even for a digest absent now.
    const refused = await fetch(`${strict.url}/blobs/sha256/${hexOf(stranger)}?catalogVersion=${older}`, { method: "HEAD" });
    assert.equal(refused.status, 409);
    const unnamed = await fetch(`${strict.url}/blobs/sha256/${hexOf(stranger)}`, { method: "HEAD" });
    assert.equal(unnamed.status, 409, "a question without a version has no exact answer");
  });

  test("findMissing: exact missing list, marked; refusals are typed JSON (415, 400, 413)", async () => {
    const version = current.catalogVersion;
    const post = (body, type = "application/json") =>
      fetch(`${strict.url}/blobs:findMissing`, { method: "POST", headers: { "content-type": type }, body });
    const answer = await post(
      JSON.stringify({ catalogVersion: version, digests: [hexOf(digestsAt(version)[1]), hexOf(stranger)] }),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("artifact-bloom-catalog-version"), String(version));
    assert.deepEqual(await answer.json(), { catalogVersion: version, missing: [hexOf(stranger)] });
    const cases = [
      [await post("{}", "text/plain"), 415, "unsupportedMediaType"],
      [await post("{not json"), 400, "invalidJson"],
      [await post(JSON.stringify({ catalogVersion: version, digests: ["xyz"] })), 400, "invalidDigest"],
      // 20,000 hex digests: ≈ 1.3 MB, over the default 1 MiB body limit.
      [
        await post(JSON.stringify({ catalogVersion: version, digests: Array(20_000).fill(hexOf(stranger)) })),
        413,
        "bodyTooLarge",
      ],
      [await post(JSON.stringify({ catalogVersion: version, digests: Array(10_001).fill("0") })), 413, "tooManyDigests"],
    ];
    for (const [response, status, code] of cases) {
      assert.equal(response.status, status, code);
      assert.equal((await response.json()).error, code);
    }
  });

  test("CORS: an allowed origin is echoed with Vary: Origin, another gets no grant; a preflight is answered", async () => {
    const allowed = await fetch(`${strict.url}/blobs/sha256/${hexOf(stranger)}?catalogVersion=${current.catalogVersion}`, {
      headers: { origin: "https://pages.example" },
    });
    assert.equal(allowed.headers.get("access-control-allow-origin"), "https://pages.example");
    assert.match(allowed.headers.get("vary"), /Origin/);
    assert.match(allowed.headers.get("access-control-expose-headers"), /artifact-bloom-catalog-version/);
    const other = await fetch(`${strict.url}/blobs/sha256/${hexOf(stranger)}`, { headers: { origin: "https://evil.example" } });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    const preflight = await fetch(`${strict.url}/blobs:findMissing`, {
      method: "OPTIONS",
      headers: { origin: "https://pages.example", "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get("access-control-allow-methods"), /POST/);
  });

  test("bad options are TypeErrors at creation", () => {
    assert.throws(() => createRequestHandler({}), TypeError);
    assert.throws(() => createRequestHandler({ catalog: { catalogVersion: -1, has: () => true } }), TypeError);
    assert.throws(() => createRequestHandler({ catalog: () => current, basePath: "catalog" }), TypeError);
    assert.throws(() => createRequestHandler({ catalog: () => current, cors: "yes" }), TypeError);
  });
});
