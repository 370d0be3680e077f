// What `artifact-bloom serve` answers besides the library's routes (the
// request handler's `fallback`): the browser precheck page (--www, default
// the package's own www/), the package's browser build under /pkg/ (the page
// imports it), and GET /snapshot.meta.json, the sidecar beside --snapshot.
// Web-standard Request → Response like the handler it completes; only files
// below their root are served, never a path that leaves it.
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { answerSidecar } from "../snapshot-sidecar.mjs";

/** @type {Record<string, string | undefined>} by file extension (undefined: another, served as application/octet-stream) */
const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
};

/**
 * A plain answer that no cache keeps (the page changes with the package).
 * @param {number} status
 * @param {BodyInit | null} body null for HEAD
 * @param {Record<string, string>} [headers]
 */
const plain = (status, body, headers = {}) =>
  new Response(body, { status, headers: { "cache-control": "no-store", ...headers } });

/**
 * Resolves a URL path inside `root`, or undefined when it would escape it.
 * @param {string} root
 * @param {string} urlPath percent-encoded, as in the request's URL
 * @returns {string | undefined}
 */
function inside(root, urlPath) {
  const full = normalize(join(root, decodeURIComponent(urlPath)));
  return full === root || full.startsWith(root + sep) ? full : undefined;
}

/**
 * The fallback handler.
 * @param {{ wwwRoot: string, packageDir: string, snapshotPath: string }} roots absolute paths
 * @returns {(request: Request) => Promise<Response>}
 */
export function staticFiles({ wwwRoot, packageDir, snapshotPath }) {
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return plain(405, "method not allowed");
    const path = new URL(request.url).pathname;
    const body = (/** @type {string | Uint8Array<ArrayBuffer>} */ bytes) => (request.method === "HEAD" ? null : bytes);
    if (path === "/snapshot.meta.json") {
      return answerSidecar(snapshotPath, (status, bytes, headers) => plain(status, body(bytes), headers));
    }
    const [root, rest] = path.startsWith("/pkg/") ? [packageDir, path.slice(5)] : [wwwRoot, path === "/" ? "index.html" : path];
    let file;
    try {
      file = inside(root, rest);
    } catch {
      return plain(400, "bad path"); // a malformed %-escape
    }
    if (file === undefined) return plain(404, "not found");
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes === undefined) return plain(404, "not found");
    return plain(200, body(bytes), { "content-type": MIME[extname(file)] ?? "application/octet-stream" });
  };
}
