// Issue 21, D9: a request that gets no HTTP answer — a connection reset, a
// redirect loop, a body cut off mid-way — is a typed failure with the cause's
// code, not a bare `TypeError: fetch failed`. fetchSnapshot answers
// `{ kind: "failure", error: "networkError", causeCode }`;
// HttpArtifactRepository rejects with `code: "networkError"`; a polling
// SnapshotHolder records it as that failure. Servers listen on 127.0.0.1.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, HttpArtifactRepository, SnapshotHolder, encodeSnapshot, fetchSnapshot } from "artifact-bloom";
import { fetchSnapshot as fetchSnapshotDelta } from "artifact-bloom/delta";
import { sha256 } from "./helpers/abf1.mjs";

const WAIT_MS = 60_000; // the bound on any wait below: generous, never a timing assertion
const listen = (server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`)));
const close = (server) => new Promise((resolve) => server.close(resolve));

function snapshotBytes() {
  const filter = ArtifactBloomFilter.create([sha256("one")], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 }).value;
  try {
    return encodeSnapshot(filter, { catalogVersion: 1 });
  } finally {
    filter.free();
  }
}

let resetServer; // resets every connection as soon as the request arrives
let loopServer; // redirects every request to another path of itself
let cutServer; // sends the headers and part of the body, then resets
const urls = {};
before(async () => {
  resetServer = createTcpServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
  loopServer = createServer((request, response) => {
    response.writeHead(302, { location: `/again${request.url.length}` });
    response.end();
  });
  const bytes = snapshotBytes();
  cutServer = createServer((_request, response) => {
    response.writeHead(200, { "content-length": bytes.byteLength });
    response.write(bytes.subarray(0, 100), () => response.socket.resetAndDestroy());
  });
  urls.reset = await listen(resetServer);
  urls.loop = await listen(loopServer);
  urls.cut = await listen(cutServer);
});
after(async () => {
  for (const server of [resetServer, loopServer, cutServer]) {
    server.closeAllConnections?.();
    await close(server);
  }
});

describe("fetchSnapshot", () => {
  for (const [name, fetchImpl] of [
    ["main entry", fetchSnapshot],
    ["delta entry", fetchSnapshotDelta],
  ]) {
    test(`${name}: a reset connection → networkError with causeCode ECONNRESET`, async () => {
      const result = await fetchImpl(`${urls.reset}/snapshot`);
      assert.equal(result.kind, "failure");
      assert.equal(result.error, "networkError");
      assert.equal(result.causeCode, "ECONNRESET");
      assert.match(
        result.message,
        /^GET http:\/\/127\.0\.0\.1:\d+\/snapshot: no HTTP answer: the connection failed \(ECONNRESET/,
      );
    });
  }

  test("a redirect loop → networkError with causeCode redirectCountExceeded", async () => {
    const result = await fetchSnapshot(`${urls.loop}/snapshot`);
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "networkError");
    assert.equal(result.causeCode, "redirectCountExceeded");
  });

  test("a body cut off mid-way → networkError naming the cause", async () => {
    const result = await fetchSnapshot(`${urls.cut}/snapshot`);
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "networkError");
    assert.match(result.causeCode, /^(ECONNRESET|UND_ERR_SOCKET)$/);
  });

  test("a caller's bad URL or header is not a network failure: it still throws a TypeError naming it", async () => {
    await assert.rejects(fetchSnapshot("not a url"), (error) => error instanceof TypeError && /URL/.test(error.message));
    await assert.rejects(
      fetchSnapshot(`${urls.reset}/snapshot`, { headers: { "x-bad": "a\nb" } }),
      (error) => error instanceof TypeError && /header/.test(error.message),
    );
  });

  test("a caller's abort still rejects with its reason", async () => {
    const reason = new Error("caller gave up");
    await assert.rejects(
      fetchSnapshot(`${urls.reset}/snapshot`, { signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
  });
});

describe("HttpArtifactRepository", () => {
  const digest = sha256("asked");

  test("a reset connection rejects with code networkError and causeCode ECONNRESET (HEAD and findMissing)", async () => {
    const repository = new HttpArtifactRepository(`${urls.reset}/`);
    for (const call of [
      () => repository.existsAtVersionAsync(digest, 1),
      () => repository.existsManyAtVersionAsync([digest], 1),
    ]) {
      await assert.rejects(call(), (error) => {
        assert.equal(error.code, "networkError");
        assert.equal(error.causeCode, "ECONNRESET");
        assert.ok(error.cause instanceof TypeError, "fetch's error is the cause");
        assert.match(error.message, /^(HEAD|POST) http:\/\/127\.0\.0\.1:\d+\/blobs.*: no HTTP answer/);
        return true;
      });
    }
  });
});

describe("SnapshotHolder polling", () => {
  test("a poll of a server that resets is the counted failure networkError, not loaderThrew", async () => {
    const filter = ArtifactBloomFilter.create([sha256("held")], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 }).value;
    const holder = new SnapshotHolder({ catalogVersion: 1, filter });
    let timer;
    const result = await Promise.race([
      new Promise((resolve) =>
        holder.startPolling(`${urls.reset}/snapshot`, { intervalMs: 3_600_000, immediate: true, onRefresh: resolve }),
      ),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no poll within ${WAIT_MS} ms`)), WAIT_MS);
      }),
    ]).finally(() => {
      clearTimeout(timer);
      holder.stopPolling();
    });
    assert.equal(result.outcome, "failure");
    assert.equal(result.error, "networkError");
    assert.equal(holder.loadFailureCount, 1);
    assert.equal(holder.current().filter, filter, "the snapshot in service is kept");
    filter.free();
  });
});
