// A test server for the browser build: a blank page at /, the built package
// at /pkg/ (from a private copy, so a rebuild during the run cannot pull
// files away), and whatever extra files a test adds. It listens on
// 127.0.0.1 (port 0) and also answers as an HTTP proxy, which gives the
// tests a second, *insecure* origin: a context opened with `insecureContext`
// reaches the same files at http://artifact-bloom.test/, a plain-http
// origin that is not localhost, where browsers expose no crypto.subtle (in
// the page and in its workers alike).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../../pkg/", import.meta.url));
const MIME = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

/** The insecure origin's name: resolved only through this server as a proxy. */
export const INSECURE_ORIGIN = "http://artifact-bloom.test";

/**
 * Starts the server. `extra` maps a path ("/x.abf1") to a Buffer or string;
 * `route(path, response)`, if given, sees each request first and answers
 * it itself by returning true (say, a package file made to 404).
 * Returns `{ url, insecureContext(browser), close() }`.
 */
export async function startPackageServer(extra = {}, { route } = {}) {
  if (!existsSync(join(PKG, "web.js"))) throw new Error(`${PKG} is not built: run node scripts/build.mjs`);
  const copy = mkdtempSync(join(tmpdir(), "artifact-bloom-pkg-"));
  cpSync(PKG, copy, { recursive: true });
  const server = createServer((request, response) => {
    // A proxied request names the whole URL; a direct one only the path.
    const path = new URL(request.url, "http://127.0.0.1").pathname;
    if (route?.(path, response)) return;
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html" });
      return response.end('<!doctype html><title>test</title><input type="file" id="files" multiple>');
    }
    if (Object.hasOwn(extra, path)) {
      response.writeHead(200, { "content-type": MIME[extname(path)] ?? "application/octet-stream", "cache-control": "no-store" });
      return response.end(extra[path]);
    }
    const file = path.startsWith("/pkg/") ? normalize(join(copy, decodeURIComponent(path.slice(5)))) : undefined;
    if (file === undefined || !file.startsWith(copy + sep) || !existsSync(file)) {
      response.writeHead(404);
      return response.end();
    }
    response.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  const proxy = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${proxy}/`,
    insecureUrl: `${INSECURE_ORIGIN}/`,
    /** A browser context whose requests go through this server (for INSECURE_ORIGIN). */
    insecureContext: (browser) => browser.newContext({ proxy: { server: proxy } }),
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => {
          rmSync(copy, { recursive: true, force: true });
          done();
        });
      }),
  };
}
