// The CLI's fetch transport over node:https (cli/registry/https-fetch.mjs), which
// --ca-file and --tls-verify=false use instead of global fetch: against
// local node:https / node:http servers on 127.0.0.1, it must behave as
// fetch does where the library's clients look — manual redirects, aborts,
// streamed request bodies with backpressure, and network failures shaped
// like undici's (TypeError "fetch failed" with the socket's error as cause),
// so the library names a TLS failure the same way for both.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { tempDir } from "./helpers/cli.mjs";
import { makeTestCertificates } from "./helpers/tls-certs.mjs";

const { createNodeFetch } = await import(
  fileURLToPath(new URL("node_modules/artifact-bloom/cli/registry/https-fetch.mjs", import.meta.url))
);
const { fetchSnapshot } = await import("artifact-bloom");

let dir;
let certs;
let ca;
const servers = [];

/** Starts a server on 127.0.0.1:0 → its origin. `tls`: { certificate, key } paths, or none for plain HTTP. */
async function serve(handler, tls) {
  const server =
    tls === undefined
      ? createHttpServer(handler)
      : createHttpsServer({ cert: await readFile(tls.certificate), key: await readFile(tls.key) }, handler);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `${tls === undefined ? "http" : "https"}://127.0.0.1:${server.address().port}`;
}

/** A request's body, hashed → { bytes, sha256 }. */
async function hashBody(request) {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of request) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

let origin;
let authorizationSeen;
let stalled;

before(async () => {
  dir = await tempDir("https-fetch");
  certs = await makeTestCertificates(dir.path);
  ca = [certs.caPem];
  const other = await serve((request, response) => {
    authorizationSeen = request.headers.authorization ?? null;
    response.end("other origin");
  });
  origin = await serve(async (request, response) => {
    const { pathname } = new URL(request.url, "https://127.0.0.1");
    if (pathname === "/hello") return response.writeHead(200, { "x-test": "1", "content-type": "text/plain" }).end("hello");
    if (pathname === "/moved") return response.writeHead(302, { location: "/hello" }).end("moved");
    if (pathname === "/loop") return response.writeHead(307, { location: "/loop" }).end();
    if (pathname === "/elsewhere") return response.writeHead(302, { location: `${other}/x` }).end();
    if (pathname === "/empty") return response.writeHead(204).end();
    if (pathname === "/never") return undefined; // headers never come
    if (pathname === "/half") {
      response.writeHead(200, { "content-length": "1000" });
      response.write("0123456789");
      return pathname; // the rest never comes, unless the test cuts it
    }
    if (pathname === "/cut") {
      response.writeHead(200, { "content-length": "1000" });
      response.write("0123456789", () => setImmediate(() => response.socket.destroy()));
      return undefined;
    }
    if (pathname === "/upload") {
      // "stalled": the request body is not read until the test says so.
      if (request.headers["x-stall"] === "1")
        await new Promise((resolve) => {
          stalled = resolve;
        });
      return response.end(
        JSON.stringify({
          ...(await hashBody(request)),
          method: request.method,
          length: request.headers["content-length"] ?? null,
        }),
      );
    }
    return response.writeHead(404).end();
  }, certs.server);
});
after(async () => {
  for (const server of servers) {
    server.closeAllConnections?.();
    server.close();
  }
  await dir?.remove();
});

describe("responses", () => {
  test("a GET over https with --ca-file's CA: status, headers, body, url", async () => {
    const response = await createNodeFetch({ ca })(`${origin}/hello`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-test"), "1");
    assert.equal(await response.text(), "hello");
    assert.equal(response.url, `${origin}/hello`);
    assert.equal(response.redirected, false);
  });

  test("HEAD and 204 have no body", async () => {
    const fetchImpl = createNodeFetch({ ca });
    assert.equal((await fetchImpl(`${origin}/hello`, { method: "HEAD" })).body, null);
    assert.equal((await fetchImpl(`${origin}/empty`)).body, null);
  });

  test('redirect: "manual" hands back the 3xx itself; "follow" (the default) follows it', async () => {
    const fetchImpl = createNodeFetch({ ca });
    const manual = await fetchImpl(`${origin}/moved`, { redirect: "manual" });
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.get("location"), "/hello");
    assert.equal(await manual.text(), "moved");
    const followed = await fetchImpl(`${origin}/moved`);
    assert.equal(followed.status, 200);
    assert.equal(await followed.text(), "hello");
    assert.equal(followed.redirected, true);
    await assert.rejects(
      fetchImpl(`${origin}/moved`, { redirect: "error" }),
      (error) => error instanceof TypeError && error.message === "fetch failed",
    );
  });

  test("a redirect loop fails as undici's does (the library's causeCode redirectCountExceeded)", async () => {
    const result = await fetchSnapshot(`${origin}/loop`, { fetch: createNodeFetch({ ca }) });
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "networkError", result.message);
    assert.equal(result.causeCode, "redirectCountExceeded");
  });

  test("a redirect to another origin drops the Authorization header", async () => {
    authorizationSeen = undefined;
    const response = await createNodeFetch({ ca })(`${origin}/elsewhere`, { headers: { authorization: "Basic c2VjcmV0" } });
    assert.equal(await response.text(), "other origin");
    assert.equal(authorizationSeen, null);
  });
});

describe("aborts", () => {
  test("an aborted signal rejects before anything is sent, with its reason", async () => {
    const controller = new AbortController();
    controller.abort(new Error("changed my mind"));
    await assert.rejects(createNodeFetch({ ca })(`${origin}/hello`, { signal: controller.signal }), /changed my mind/);
  });

  test("abort while waiting for the headers rejects with an AbortError", async () => {
    const controller = new AbortController();
    const pending = createNodeFetch({ ca })(`${origin}/never`, { signal: controller.signal });
    setImmediate(() => controller.abort());
    await assert.rejects(pending, (error) => error.name === "AbortError");
  });

  test("abort in the middle of the body errors the body stream with the reason", async () => {
    const controller = new AbortController();
    const response = await createNodeFetch({ ca })(`${origin}/half`, { signal: controller.signal });
    const reader = response.body.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "0123456789");
    controller.abort(new Error("enough"));
    await assert.rejects(reader.read(), /enough/);
  });
});

describe("request bodies", () => {
  test("bytes and strings are sent with their Content-Length", async () => {
    const fetchImpl = createNodeFetch({ ca });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const sent = await (await fetchImpl(`${origin}/upload`, { method: "PUT", body: bytes })).json();
    assert.deepEqual(sent, { bytes: 4, sha256: createHash("sha256").update(bytes).digest("hex"), method: "PUT", length: "4" });
    const text = await (await fetchImpl(`${origin}/upload`, { method: "POST", body: "héllo" })).json();
    assert.equal(text.length, String(Buffer.byteLength("héllo")));
  });

  test('a web ReadableStream needs duplex: "half", as global fetch says', async () => {
    const attempt = (fetchImpl) => fetchImpl(`${origin}/upload`, { method: "PUT", body: new ReadableStream() });
    const ours = await attempt(createNodeFetch({ ca })).catch((error) => error);
    const theirs = await attempt(fetch).catch((error) => error);
    assert.ok(ours instanceof TypeError);
    assert.equal(ours.message, theirs.message);
  });

  test("a streamed body is read only as fast as the server takes it, and arrives whole", async () => {
    const chunk = 64 * 1024;
    const total = 64 * 1024 * 1024;
    let produced = 0;
    const hash = createHash("sha256");
    const body = new ReadableStream(
      {
        pull(controller) {
          if (produced >= total) return controller.close();
          const bytes = new Uint8Array(chunk).fill((produced / chunk) % 251);
          hash.update(bytes);
          produced += chunk;
          controller.enqueue(bytes);
          return undefined;
        },
      },
      { highWaterMark: 1 },
    );
    const pending = createNodeFetch({ ca })(`${origin}/upload`, {
      method: "PUT",
      body,
      duplex: "half",
      headers: { "x-stall": "1" },
    });
    // The server reads nothing yet: once the socket's buffers are full the
    // producer must stop being pulled, far short of the whole body.
    let last = -1;
    let still = 0;
    for (let round = 0; round < 500 && still < 10; round += 1) {
      await sleep(20);
      still = produced === last ? still + 1 : 0;
      last = produced;
    }
    assert.ok(produced < total, `only what the buffers hold is read while the server waits: ${produced} of ${total} bytes`);
    stalled();
    const answer = await (await pending).json();
    assert.equal(answer.bytes, total);
    assert.equal(answer.sha256, hash.digest("hex"));
    assert.equal(answer.length, null, "no Content-Length: sent chunked");
  });

  test("a body stream that errors fails the fetch with that error as the cause (as undici does)", async () => {
    const mine = new Error("the file changed");
    const body = new ReadableStream({ pull: (controller) => controller.error(mine) });
    await assert.rejects(
      createNodeFetch({ ca })(`${origin}/upload`, { method: "PUT", body, duplex: "half" }),
      (error) => error instanceof TypeError && error.message === "fetch failed" && error.cause === mine,
    );
  });
});

describe("network failures have global fetch's shape", () => {
  /** → the rejection of both fetches for the same request. */
  async function both(url, ourOptions) {
    const ours = await createNodeFetch(ourOptions)(url).catch((error) => error);
    const theirs = await fetch(url).catch((error) => error);
    return { ours, theirs };
  }

  test("connection refused: TypeError fetch failed, cause ECONNREFUSED", async () => {
    const closed = createHttpServer();
    await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${closed.address().port}/`;
    await new Promise((resolve) => closed.close(resolve));
    const { ours, theirs } = await both(url, {});
    assert.ok(ours instanceof TypeError);
    assert.equal(ours.message, theirs.message);
    assert.equal(ours.cause?.code, "ECONNREFUSED");
    assert.equal(ours.cause?.code, theirs.cause?.code);
  });

  test("a body cut off errors the stream with TypeError terminated, a networkError for fetchSnapshot", async () => {
    const response = await createNodeFetch({ ca })(`${origin}/cut`);
    await assert.rejects(response.arrayBuffer(), (error) => error instanceof TypeError && error.message === "terminated");
    const result = await fetchSnapshot(`${origin}/cut`, { fetch: createNodeFetch({ ca }) });
    assert.equal(result.error, "networkError", result.message);
  });

  for (const [name, certificate, code, text, trustCa, kind] of [
    ["signed by an unknown CA", "server", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "certificate not trusted", false, "untrusted"],
    ["self-signed", "selfSigned", "DEPTH_ZERO_SELF_SIGNED_CERT", "certificate not trusted", false, "untrusted"],
    ["a chain up to an unknown root", "chain", "SELF_SIGNED_CERT_IN_CHAIN", "certificate not trusted", false, "untrusted"],
    ["expired", "expired", "CERT_HAS_EXPIRED", "certificate expired", true, "expired"],
    [
      "naming another host",
      "wrongName",
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "certificate does not name 127.0.0.1",
      true,
      "wrongName",
    ],
  ]) {
    test(`a certificate ${name}: ${code}, like global fetch, and the library says "${text} (${code})"`, async () => {
      const url = `${await serve((_request, response) => response.end("x"), certs[certificate])}/snapshot`;
      const options = trustCa ? { ca } : {};
      const { ours, theirs } = await both(url, options);
      assert.ok(ours instanceof TypeError);
      assert.equal(ours.message, "fetch failed");
      assert.equal(ours.cause?.code, code);
      if (!trustCa) assert.equal(theirs.cause?.code, code, "global fetch sees the same code");
      const result = await fetchSnapshot(url, { fetch: createNodeFetch(options) });
      assert.equal(result.error, "networkError");
      assert.equal(result.causeCode, code);
      // The kind is a code to switch on (the CLI's advice does), not only message text.
      assert.equal(result.tlsProblem, kind);
      assert.ok(result.message.includes(`the TLS handshake failed: ${text} (${code})`), result.message);
    });
  }

  test("rejectUnauthorized: false accepts a self-signed certificate and reports each https request", async () => {
    const url = `${await serve((_request, response) => response.end("unchecked"), certs.selfSigned)}/`;
    const seen = [];
    const response = await createNodeFetch({ rejectUnauthorized: false, onHttpsRequest: (target) => seen.push(target.host) })(
      url,
    );
    assert.equal(await response.text(), "unchecked");
    assert.deepEqual(seen, [new URL(url).host]);
  });
});
