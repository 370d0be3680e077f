// createRequestHandler's options that `artifact-bloom serve` is built on
// (issue 34 §4): `snapshotPath` (the layout's current snapshot at one URL,
// with its checksum as ETag and the layout's deltas as 226), `stats`,
// `bodyBudgetBytes` (one bound on findMissing bodies buffered at once), a
// catalog view that is `unavailable` (503, never "absent"), the version the
// request names passed to a catalog function, and `fallback`. The handler is
// called with Web Requests directly: no socket is needed to see its answers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, loadSnapshot } from "artifact-bloom";
import { applySnapshotDelta } from "artifact-bloom/delta";
import { createRequestHandler, directoryLayoutStore, publishToLayout } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";

const SPEC = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
const hexOf = (digest) => Buffer.from(digest).toString("hex");
const digestsAt = (version) => splitDigests(packedDigests("handler-options", 1000 + 100 * (version - 1)));
const BASE = "http://handler.test/";
const get = (handler, path, headers = {}) => handler(new Request(`${BASE}${path}`, { headers }));

/** Publishes `version` into `layout` → the manifest. */
async function publish(layout, version) {
  const created = ArtifactBloomFilter.create(digestsAt(version), SPEC);
  assert.equal(created.kind, "success");
  const result = await publishToLayout(layout, { filter: created.value, catalogVersion: version });
  created.value.free();
  assert.equal(result.kind, "success", result.message);
  return result.value.manifest;
}

/** A POST blobs:findMissing whose body the test feeds: `send(text)`, then `end()`. */
function heldFindMissing(handler) {
  let controller;
  const body = new ReadableStream({
    start(c) {
      controller = c;
    },
  });
  const answer = handler(
    new Request(`${BASE}blobs:findMissing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    }),
  );
  return {
    answer,
    send: (text) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
  };
}

describe("snapshotPath: the current snapshot at one URL, deltas as 226", () => {
  let dir;
  let handler;
  let v1;
  let v2;
  before(async () => {
    dir = await tempDir("handler-options");
    v1 = await publish(dir.path, 1);
    v2 = await publish(dir.path, 2);
    handler = createRequestHandler({
      store: directoryLayoutStore(dir.path),
      snapshotPath: "snapshot",
      stats: { path: "stats" },
    });
  });
  after(async () => {
    await dir?.remove();
  });

  test("200: the manifest's file, its checksum the ETag, varying on A-IM; If-None-Match → 304", async () => {
    const full = await get(handler, "snapshot");
    assert.equal(full.status, 200);
    assert.equal(full.headers.get("etag"), `"${v2.snapshot.checksum}"`);
    assert.match(full.headers.get("vary"), /A-IM/);
    assert.match(full.headers.get("access-control-expose-headers"), /ETag/);
    const bytes = new Uint8Array(await full.arrayBuffer());
    assert.equal(bytes.byteLength, v2.snapshot.size);
    const loaded = loadSnapshot(bytes);
    assert.equal(loaded.kind, "success");
    assert.equal(loaded.value.catalogVersion, 2);
    loaded.value.filter.free();
    assert.equal((await get(handler, "snapshot", { "if-none-match": `"${v2.snapshot.checksum}"` })).status, 304);
  });

  test("A-IM: abd1 naming v1 → 226 with the layout's delta, which turns v1 into v2; q=0 → the full file", async () => {
    const delta = await get(handler, "snapshot", { "a-im": "abd1", "if-none-match": `"${v1.snapshot.checksum}"` });
    assert.equal(delta.status, 226);
    assert.equal(delta.headers.get("im"), "abd1");
    assert.equal(delta.headers.get("delta-base"), `"${v1.snapshot.checksum}"`);
    assert.match(delta.headers.get("cache-control"), /private, no-store/);
    const deltaBytes = new Uint8Array(await delta.arrayBuffer());
    const base = loadSnapshot(new Uint8Array(await (await get(handler, v1.snapshot.url)).arrayBuffer()));
    assert.equal(base.kind, "success");
    const applied = applySnapshotDelta(base.value, deltaBytes);
    assert.equal(applied.kind, "success", applied.message);
    assert.equal(applied.value.catalogVersion, 2);
    applied.value.filter.free();
    base.value.filter.free();

    const refused = await get(handler, "snapshot", { "a-im": "abd1;q=0", "if-none-match": `"${v1.snapshot.checksum}"` });
    assert.equal(refused.status, 200);
    const unknownBase = await get(handler, "snapshot", { "a-im": "abd1", "if-none-match": `"${"0".repeat(64)}"` });
    assert.equal(unknownBase.status, 200);
    const { deltas, snapshotRequests } = handler.stats();
    assert.equal(deltas.deltaResponses, 1);
    assert.equal(deltas.deltaBytes, deltaBytes.byteLength);
    assert.equal(deltas.fullFallbacks, 1, "only the request that accepted abd1 and named a base falls back");
    assert.ok(snapshotRequests >= 3);
  });

  test("HEAD: the headers without a body; POST: 405", async () => {
    const head = await handler(new Request(`${BASE}snapshot`, { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get("content-length")), v2.snapshot.size);
    assert.equal(head.body, null);
    const post = await handler(new Request(`${BASE}snapshot`, { method: "POST", body: "x" }));
    assert.equal(post.status, 405);
  });
});

describe("the existence API's limits and views", () => {
  const members = digestsAt(1).map(hexOf);
  let view = { catalogVersion: 1, has: (hex) => members.includes(hex) };
  const asked = [];
  const handler = createRequestHandler({
    catalog: (request) => {
      asked.push(request.catalogVersion);
      return view;
    },
    bodyBudgetBytes: 1000,
    stats: { path: "stats", shape: (counters) => ({ app: "test", ...counters }) },
    fallback: (request) => new Response(`fallback for ${new URL(request.url).pathname}`, { status: 418 }),
  });

  test("a findMissing that would pass the shared budget while another is buffered → 503 with Retry-After", async () => {
    const held = heldFindMissing(handler);
    const json = JSON.stringify({ catalogVersion: 1, digests: [members[0]] });
    held.send(json.slice(0, -1) + " ".repeat(600));
    // Let the handler read what was sent.
    for (let round = 0; round < 100 && handler.stats().bodyBudget.bufferedBytes === 0; round += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(handler.stats().bodyBudget.bufferedBytes > 600);
    const second = heldFindMissing(handler);
    second.send(json.slice(0, -1) + " ".repeat(600));
    second.send("}");
    second.end();
    const refused = await second.answer;
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((await refused.json()).error, "serverBusy");
    held.send("}");
    held.end();
    const answered = await held.answer;
    assert.equal(answered.status, 200);
    assert.deepEqual((await answered.json()).missing, []);
    const { bodyBudget } = handler.stats();
    assert.deepEqual(bodyBudget, { limitBytes: 1000, bufferedBytes: 0, peakBytes: bodyBudget.peakBytes, refusals: 1 });
  });

  test("an unavailable view: 503 with Retry-After, unmarked, never 404; the function hears the version asked", async () => {
    const complete = view;
    view = { ...complete, unavailable: "the list is still being written" };
    const answer = await handler(new Request(`${BASE}blobs/sha256/${"a".repeat(64)}?catalogVersion=1`, { method: "HEAD" }));
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get("retry-after"), "5");
    assert.equal(answer.headers.get("artifact-bloom-catalog-version"), null);
    view = complete;
    await handler(new Request(`${BASE}blobs/sha256/${members[0]}?catalogVersion=7`, { method: "HEAD" }));
    await handler(new Request(`${BASE}blobs/sha256/${members[0]}`, { method: "HEAD" }));
    assert.deepEqual(asked.slice(-2), [7, undefined]);
  });

  test("stats: the shaped counters at stats.path, digests counted in a bounded window; other paths → fallback", async () => {
    const stats = await (await get(handler, "stats")).json();
    assert.equal(stats.app, "test");
    assert.ok(stats.existenceRequests >= 3);
    assert.ok(stats.recentByDigest[members[0]] >= 1);
    assert.equal(stats.recentDigestLimit, 1024);
    const other = await get(handler, "index.html");
    assert.equal(other.status, 418);
    assert.equal(await other.text(), "fallback for /index.html");
  });

  test("bad options are TypeErrors", () => {
    const catalog = view;
    assert.throws(() => createRequestHandler({ catalog, bodyBudgetBytes: 0 }), TypeError);
    assert.throws(() => createRequestHandler({ catalog, snapshotPath: "snapshot" }), TypeError, "snapshotPath needs a store");
    assert.throws(() => createRequestHandler({ catalog, stats: { path: 1 } }), TypeError);
    assert.throws(() => createRequestHandler({ catalog, fallback: "index.html" }), TypeError);
  });
});
