// OciRegistryRepository in Chromium, from a page on another origin than the
// registry: with the CORS headers docs/oci-registry.md gives for the
// registry's http.headers, HEAD answers come through (also with an
// Authorization header, which needs the preflight); without them the browser
// hides the answer and the repository rejects (networkError), never "absent";
// and the Bearer token flow works when WWW-Authenticate is exposed.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OciLayoutBuilder } from "../helpers/oci-layout.mjs";
import { uploadBlobDirect } from "../helpers/oci-steps.mjs";
import { startProxy } from "../helpers/registry-proxy.mjs";
import { startRegistry } from "../helpers/registry.mjs";
import { CHROMIUM, launchChromium } from "./chromium.mjs";

const PKG = join(fileURLToPath(new URL("../../", import.meta.url)), "pkg");
const MIME = { ".js": "text/javascript", ".wasm": "application/wasm" };
const noTools = !existsSync(CHROMIUM) ? `${CHROMIUM} is missing (scripts/setup.sh --browser)` : false;

/** The registry CORS settings of docs/oci-registry.md. */
const CORS_HEADERS = {
  "Access-Control-Allow-Origin": ["*"],
  "Access-Control-Allow-Methods": ["HEAD", "GET", "OPTIONS"],
  "Access-Control-Allow-Headers": ["Authorization", "Accept"],
  "Access-Control-Expose-Headers": ["Docker-Content-Digest", "WWW-Authenticate", "Link", "Location", "Range"],
};

describe("OciRegistryRepository in Chromium, cross-origin", { skip: noTools }, () => {
  let withCors;
  let withoutCors;
  let bearer;
  let server;
  let browser;
  let present;
  const absent = `sha256:${"ab".repeat(32)}`;

  before(async () => {
    withCors = await startRegistry("browser-cors", { headers: CORS_HEADERS });
    withoutCors = await startRegistry("browser-no-cors");
    bearer = await startProxy(withoutCors.url, { auth: "bearer", cors: true });
    const builder = new OciLayoutBuilder();
    present = builder.layer("browser-layer", 1000).descriptor.digest;
    for (const registry of [withCors, withoutCors]) await uploadBlobDirect(registry.url, "web", present, builder.bytes(present));
    server = createServer((request, response) => {
      const path = new URL(request.url, "http://localhost").pathname;
      if (path === "/") {
        response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>oci</title>");
        return;
      }
      const file = normalize(join(PKG, decodeURIComponent(path)));
      if (!file.startsWith(PKG + sep) || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    await bearer?.stop();
    await withCors?.stop();
    await withoutCors?.stop();
  });

  /** Runs existsManyAtVersionAsync in the page → { answers } or { error: { name, code, status } }. */
  async function inPage(registryUrl, credentials) {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    // The page is on localhost, the registry on 127.0.0.1: another origin.
    await page.goto(`http://localhost:${server.address().port}/`);
    const result = await page.evaluate(
      async ({ registryUrl, credentials, digests }) => {
        const pkg = await import("/web.js");
        await pkg.default();
        const hexToBytes = (digest) => Uint8Array.from(digest.slice(7).match(/../g), (pair) => parseInt(pair, 16));
        const repository = new pkg.OciRegistryRepository(registryUrl, "web", credentials === undefined ? {} : { credentials });
        try {
          return {
            answers: await repository.existsManyAtVersionAsync(digests.map(hexToBytes), 0),
            requests: repository.requests,
          };
        } catch (error) {
          return { error: { name: error.name, code: error.code, status: error.status, message: error.message } };
        }
      },
      { registryUrl, credentials, digests: [present, absent] },
    );
    await page.close();
    return result;
  }

  test("with the documented CORS headers: 200 → true, 404 → false, with or without an Authorization header", async () => {
    assert.deepEqual((await inPage(withCors.url)).answers, [true, false]);
    const authorized = await inPage(withCors.url, { token: "any" }); // the registry has no auth: it ignores the header
    assert.deepEqual(authorized.answers, [true, false], JSON.stringify(authorized.error));
  });

  test("without CORS headers the browser hides the answer: networkError, never 'absent'", async () => {
    const { answers, error } = await inPage(withoutCors.url);
    assert.equal(answers, undefined);
    assert.equal(error.name, "OciRegistryError");
    assert.equal(error.code, "networkError");
    assert.equal(error.status, undefined);
  });

  test("the Bearer challenge flow works in the browser when the registry and realm expose WWW-Authenticate", async () => {
    const { answers, requests, error } = await inPage(bearer.url);
    assert.deepEqual(answers, [true, false], JSON.stringify(error));
    assert.equal(requests.token, 1);
  });
});
