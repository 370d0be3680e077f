// The streamed upload body works through ANY fetch-compatible function, not
// only Node's built-in fetch (the CLI passes its own transport, e.g. for
// --ca-file): here a minimal fetch over node:http, written below, carries a
// blob to the real registry. It sees a web ReadableStream body with
// duplex "half" and redirect "error" (see oci-client.js: "manual" makes
// Node's fetch keep a copy of the whole body), and the registry stores the
// blob under its digest.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import { deterministicBytes } from "./helpers/oci-layout.mjs";
import { requestTable, startRegistry } from "./helpers/registry.mjs";

const pkg = (path) => new URL(`./node_modules/artifact-bloom/${path}`, import.meta.url).href;
const { RegistryClient } = await import(pkg("lib/repositories/oci-client.js"));
const { uploadBlob } = await import(pkg("cli/registry/oci-upload.mjs"));
const { PIECE_BYTES } = await import(pkg("cli/registry/upload-stream.mjs"));

let registry;
let dir;
before(async () => {
  registry = await startRegistry("oci-upload-transport");
  dir = await tempDir("oci-upload-transport");
});
after(async () => {
  await registry?.stop();
  await dir?.remove();
});

/** fetch over node:http: the body stream is written piece by piece, honouring backpressure. */
function httpFetch(seen) {
  return (url, init) =>
    new Promise((resolve, reject) => {
      seen.push({
        method: init.method,
        duplex: init.duplex,
        redirect: init.redirect,
        stream: init.body instanceof ReadableStream,
      });
      const req = httpRequest(url, { method: init.method, headers: init.headers, signal: init.signal }, (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) headers.set(name, String(value));
        const body = new ReadableStream({
          start(controller) {
            res.on("data", (chunk) => controller.enqueue(new Uint8Array(chunk)));
            res.on("end", () => controller.close());
            res.on("error", (error) => controller.error(error));
          },
        });
        resolve(
          new Response(res.statusCode === 204 || init.method === "HEAD" ? null : body, { status: res.statusCode, headers }),
        );
      });
      req.on("error", reject);
      (async () => {
        if (init.body instanceof ReadableStream) {
          for await (const piece of init.body) {
            if (!req.write(piece)) await new Promise((drained) => req.once("drain", drained));
          }
        } else if (init.body !== undefined) {
          req.write(init.body);
        }
        req.end();
      })().catch((error) => req.destroy(error));
    });
}

test("a blob of several pieces streams through a fetch over node:http, in one PUT, and is stored", async () => {
  const bytes = deterministicBytes("transport", 3 * PIECE_BYTES + 17);
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  const path = join(dir.path, "blob");
  await writeFile(path, bytes);
  const seen = [];
  const client = new RegistryClient(registry.url, "transport", { fetch: httpFetch(seen) });
  await registry.settle();
  const mark = registry.mark();
  const sent = [];
  const result = await uploadBlob(client, path, { digest, size: bytes.byteLength }, { onProgress: (done) => sent.push(done) });
  assert.deepEqual(result, { chunks: 0, readBacks: 0 });
  const put = seen.find((entry) => entry.method === "PUT");
  assert.deepEqual(put, { method: "PUT", duplex: "half", redirect: "error", stream: true });
  assert.deepEqual(sent, [PIECE_BYTES, 2 * PIECE_BYTES, 3 * PIECE_BYTES, bytes.byteLength], "progress per piece handed over");
  await registry.settle();
  assert.deepEqual(requestTable(registry.since(mark)), { "POST upload": 1, "PUT upload": 1 });
  const stored = new Uint8Array(await (await fetch(`${registry.url}/v2/transport/blobs/${digest}`)).arrayBuffer());
  assert.deepEqual(stored, bytes);
});

test("a redirect answering a streamed PUT is not followed: code redirect, nothing sent to its target", async () => {
  const { startScriptedServer } = await import("./helpers/fake-registry.mjs");
  const elsewhere = await startScriptedServer((_req, res) => res.writeHead(201).end());
  const redirecting = await startScriptedServer((req, res) => {
    req.resume();
    if (req.method === "POST") res.writeHead(202, { location: "/v2/app/blobs/uploads/session-1" }).end();
    else res.writeHead(307, { location: `${elsewhere.url}/v2/app/blobs/uploads/session-1` }).end();
  });
  try {
    const bytes = deterministicBytes("redirected", 1000);
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const path = join(dir.path, "redirected");
    await writeFile(path, bytes);
    const client = new RegistryClient(redirecting.url, "app");
    await assert.rejects(uploadBlob(client, path, { digest, size: bytes.byteLength }, {}), (error) => {
      assert.equal(error.code, "redirect", error.message);
      assert.match(error.message, /PUT .*session-1.* answered a redirect; redirects are not followed/);
      return true;
    });
    assert.deepEqual(elsewhere.requests, []);
  } finally {
    await redirecting.stop();
    await elsewhere.stop();
  }
});
