// Every registry answer is read up to a limit for what it is (issue 21, D4):
// a manifest or index 4 MiB (the distribution spec's limit), a tag page
// 32 MiB, a token answer 1 MiB — more is an OciRegistryError `tooLarge`
// naming the URL and the limit, whether Content-Length says so up front or
// the body just keeps coming. An error body is read up to 16 KiB for its
// message and the rest is not read: the status is the error.
//
// The hostile bodies are 256 MiB, streamed lazily by a scripted server on
// 127.0.0.1 that counts what it got to write before the client hung up: a
// client that stops at the limit leaves most of it unwritten (kernel and
// client buffers hold a few MiB), one that reads it all does not.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import { OCI_MANIFEST, sendJson, sendManifest, startScriptedServer, streamBody, tinyManifest } from "./helpers/fake-registry.mjs";
import { publishFromRegistry } from "./helpers/oci-steps.mjs";

const MIB = 1024 * 1024;
const HOSTILE = 256 * MIB;
const UNREAD = 64 * MIB; // well above the limits plus every buffer between server and client
const WRITER_WAIT_MS = 30_000; // bounded wait for the server to see the client go
let dir;
const servers = [];

before(async () => {
  dir = await tempDir("oci-limits");
});
after(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await dir?.remove();
});

const at = (name) => join(dir.path, name);

/**
 * A registry with one tag "a" whose `kind` answer ("manifest", "error",
 * "tags" or "token") is `answer(res)`; the rest answers normally.
 */
async function registryAnswering(kind, answer) {
  const manifest = tinyManifest("limits");
  const server = await startScriptedServer((req, res, url) => {
    req.resume();
    if (kind === "token") {
      if (url.pathname === "/token") return answer(res);
      if (req.headers.authorization === undefined) {
        return sendJson(
          res,
          401,
          { errors: [{ code: "UNAUTHORIZED", message: "token" }] },
          {
            "www-authenticate": `Bearer realm="http://${req.headers.host}/token",service="limits"`,
          },
        );
      }
    }
    if (url.pathname === "/v2/app/tags/list")
      return kind === "tags" ? answer(res) : sendJson(res, 200, { name: "app", tags: ["a"] });
    if (url.pathname === "/v2/app/manifests/a")
      return kind === "manifest" || kind === "error" ? answer(res) : sendManifest(res, manifest);
    return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
  });
  servers.push(server);
  return server;
}

/** Runs publish against a registry streaming HOSTILE bytes as its `kind` answer → { run, written }. */
async function publishAgainstHuge(kind, { status = 200, declareLength = false } = {}) {
  let written;
  const registry = await registryAnswering(kind, (res) => {
    written = streamBody(res, status, HOSTILE, {
      declareLength,
      contentType: kind === "manifest" ? OCI_MANIFEST : "application/json",
    });
  });
  const { run } = await publishFromRegistry(registry.url, "app", at(`${kind}-${status}-${declareLength}.abf1`));
  assert.ok(written !== undefined, `the ${kind} answer was asked for: ${run.stderr}`);
  const bytes = await Promise.race([written, new Promise((resolve) => setTimeout(resolve, WRITER_WAIT_MS, Infinity))]);
  return { run, written: bytes, registry };
}

describe("manifests: 4 MiB", () => {
  for (const declareLength of [true, false]) {
    test(`a 256 MiB manifest (Content-Length ${declareLength ? "declared" : "absent"}) is tooLarge, and not read to its end`, async () => {
      const { run, written, registry } = await publishAgainstHuge("manifest", { declareLength });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /tooLarge \(HTTP 200\): GET \S+\/v2\/app\/manifests\/a: .*4 MiB.*manifest/);
      assert.ok(run.stderr.includes(registry.url), run.stderr);
      assert.ok(written < UNREAD, `the server wrote ${written} bytes before the client hung up`);
    });
  }

  test("exactly 4 MiB is read; one byte more is tooLarge", async () => {
    const padded = (bytes) => {
      const json = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: OCI_MANIFEST,
          config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: `sha256:${"1".repeat(64)}`, size: 2 },
          layers: [],
        }),
      );
      const body = Buffer.concat([json, Buffer.alloc(bytes - json.length, 0x20)]); // JSON allows trailing spaces
      return { bytes: body, digest: `sha256:${createHash("sha256").update(body).digest("hex")}` };
    };
    const atLimit = await registryAnswering("manifest", (res) => sendManifest(res, padded(4 * MIB)));
    const fits = await publishFromRegistry(atLimit.url, "app", at("at-limit.abf1"));
    assert.equal(fits.run.code, 0, fits.run.stderr);
    assert.equal(fits.summary.registry.manifests, 1);
    const over = await registryAnswering("manifest", (res) => sendManifest(res, padded(4 * MIB + 1)));
    const refused = await publishFromRegistry(over.url, "app", at("over-limit.abf1"));
    assert.equal(refused.run.code, 3, refused.run.stderr);
    assert.match(refused.run.stderr, /tooLarge/);
  });
});

describe("error bodies: read for the message, the rest not read", () => {
  for (const declareLength of [true, false]) {
    test(`a 404 with a 256 MiB body (Content-Length ${declareLength ? "declared" : "absent"}) is notFound, with a short message`, async () => {
      const { run, written } = await publishAgainstHuge("error", { status: 404, declareLength });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /notFound \(HTTP 404\): GET \S+\/v2\/app\/manifests\/a answered 404/);
      assert.ok(run.stderr.length < 4096, `stderr is ${run.stderr.length} characters`);
      assert.ok(written < UNREAD, `the server wrote ${written} bytes before the client hung up`);
    });
  }
});

describe("tag pages: 32 MiB; token answers: 1 MiB", () => {
  test("a 256 MiB tag page is tooLarge, naming tags/list and the limit", async () => {
    const { run, written } = await publishAgainstHuge("tags");
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /tooLarge \(HTTP 200\): GET \S+\/v2\/app\/tags\/list\?n=100: .*32 MiB.*tag/);
    assert.ok(written < UNREAD, `the server wrote ${written} bytes before the client hung up`);
  });

  test("a 256 MiB token answer is tooLarge, naming the realm and the limit", async () => {
    const { run, written } = await publishAgainstHuge("token", { declareLength: true });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /tooLarge \(HTTP 200\): GET \S+\/token\?service=limits: .*1 MiB.*token/);
    assert.ok(written < UNREAD, `the server wrote ${written} bytes before the client hung up`);
  });
});

describe("a tag page of 200 000 entries (D7)", () => {
  // Spreading a page into a call (push(...tags)) overflowed the stack at
  // ~125k tags. The entries repeat two tags, so the enumeration stays two
  // manifest GETs: what is tested is reading the page.
  test("is read without a stack overflow; repeated tags are enumerated once", async () => {
    const manifest = tinyManifest("many-tags");
    const tags = Array.from({ length: 200_000 }, (_, index) => (index % 2 === 0 ? "a" : "b"));
    const server = await startScriptedServer((req, res, url) => {
      req.resume();
      if (url.pathname === "/v2/app/tags/list") return sendJson(res, 200, { name: "app", tags });
      if (/^\/v2\/app\/manifests\/[ab]$/.test(url.pathname)) return sendManifest(res, manifest);
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });
    servers.push(server);
    const { run, summary } = await publishFromRegistry(server.url, "app", at("many-tags.abf1"));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.registry.tags, 2);
    assert.equal(server.requests.filter((entry) => entry.path.includes("/manifests/")).length, 2);
  });
});
