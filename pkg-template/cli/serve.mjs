// `artifact-bloom serve`: the demo catalog server. It serves the current ABF1
// snapshot (re-read when the file is atomically replaced), an exact existence
// API backed by the catalog's digest list, and the browser precheck page.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readSnapshotHeader } from "../node.mjs";
import { EXIT_OK, UsageError, integerOption, isHexDigest, parseCommand, readHexDigests } from "./common.mjs";

export const HELP = `Usage: artifact-bloom serve --snapshot PATH --catalog PATH [--port N]
                           [--host H] [--www DIR] [--catalog-version V]

Serves, on 127.0.0.1 by default (loopback only):
  GET  /snapshot                       the ABF1 bytes, with ETag and Last-Modified
                                       (If-None-Match → 304); an atomically
                                       replaced file is picked up on the next request
  HEAD /blobs/sha256/<hex>?catalogVersion=N
                                       200 present, 404 absent, 409 wrong version
  GET  /blobs/sha256/<hex>?catalogVersion=N   the same, as JSON
  POST /blobs:findMissing              body {"catalogVersion": N, "digests": [hex…]}
                                       or a JSON list of hex digests →
                                       {"catalogVersion", "missing": [hex…]}
  GET  /stats                          request counters (JSON), for tests and the page
  GET  /  and  /pkg/…                  the www precheck page and the package's browser build

  --snapshot PATH        the ABF1 file to serve
  --catalog PATH         the exact digest list (64 hex digits per line)
  --catalog-version V    version of that list (default: the current snapshot
                         header's; both files are re-read when they change —
                         replace the catalog list first, then the snapshot)
  --port N               0 picks a free port (default 8080)
  --host H               listen address (default 127.0.0.1)
  --www DIR              the page to serve at / (default: the page shipped in the package)

Prints "listening on http://HOST:PORT/" once ready; runs until Ctrl-C.`;

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MIME = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml",
  ".png": "image/png", ".ico": "image/x-icon", ".ts": "text/plain; charset=utf-8", ".md": "text/plain; charset=utf-8",
};

/**
 * `load(path, info)` again whenever the file's identity (inode, size, mtime)
 * changes — an atomic replace makes a new inode — else the cached value.
 */
function reloading(path, load) {
  let cached;
  return async () => {
    const info = await stat(path);
    const identity = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (cached?.identity !== identity) cached = { identity, value: await load(path, info) };
    return cached.value;
  };
}

/** The snapshot file: its bytes, an ETag and Last-Modified. */
function snapshotFile(path) {
  return reloading(path, async (file, info) => {
    const bytes = await readFile(file);
    return {
      bytes,
      etag: `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`,
      lastModified: info.mtime.toUTCString(),
    };
  });
}

/** The snapshot header's catalogVersion (cached per file), or undefined if it does not load. */
function versionOf(file) {
  if (!("version" in file)) {
    const header = readSnapshotHeader(new Uint8Array(file.bytes));
    file.version = header.kind === "success" ? header.value.catalogVersion : undefined;
  }
  return file.version;
}

/** The catalog's exact digest set (hex strings). */
function catalogFile(path) {
  return reloading(path, async (file) => {
    const { packed } = await readHexDigests(createReadStream(file));
    const present = new Set();
    for (let offset = 0; offset < packed.byteLength; offset += 32) {
      present.add(Buffer.from(packed.subarray(offset, offset + 32)).toString("hex"));
    }
    return present;
  });
}

/** Resolves a URL path inside `root`, or undefined when it would escape it. */
function inside(root, urlPath) {
  const full = normalize(join(root, decodeURIComponent(urlPath)));
  return full === root || full.startsWith(root + sep) ? full : undefined;
}

async function readBody(request, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > limit) throw Object.assign(new Error("request body too large"), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Starts the server; resolves to `{ url, stats, close() }`. Exported for
 * tests and embedding; the CLI command below wraps it.
 */
export async function startServer({ snapshot, catalog, catalogVersion, port = 0, host = "127.0.0.1", www }) {
  const readSnapshot = snapshotFile(resolve(snapshot));
  const first = await readSnapshot();
  const fixedVersion = catalogVersion;
  if (fixedVersion === undefined && versionOf(first) === undefined) {
    const header = readSnapshotHeader(new Uint8Array(first.bytes));
    throw new UsageError(`--catalog-version is needed: the snapshot header does not load (${header.error})`);
  }
  // The version the existence API answers for: fixed by the flag, else the
  // current snapshot's (so a republished snapshot and its catalog list are
  // picked up together; replace the catalog file first, then the snapshot).
  let lastVersion = fixedVersion ?? versionOf(first);
  const currentVersion = async () => {
    if (fixedVersion !== undefined) return fixedVersion;
    lastVersion = versionOf(await readSnapshot()) ?? lastVersion;
    return lastVersion;
  };
  const readCatalog = catalogFile(resolve(catalog));
  await readCatalog();
  const wwwRoot = resolve(www ?? join(PACKAGE_DIR, "www"));
  const stats = { snapshotRequests: 0, existenceRequests: 0, findMissingRequests: 0, digestsAsked: 0, byDigest: {} };

  const send = (response, status, body, headers = {}) => {
    response.writeHead(status, { "cache-control": "no-store", ...headers });
    response.end(body);
  };
  const json = (response, status, value) => send(response, status, JSON.stringify(value), { "content-type": "application/json" });

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, "http://localhost");
      const path = url.pathname;
      if (path === "/snapshot" && (request.method === "GET" || request.method === "HEAD")) {
        stats.snapshotRequests += 1;
        const file = await readSnapshot();
        const headers = { etag: file.etag, "last-modified": file.lastModified, "content-type": "application/octet-stream" };
        if (request.headers["if-none-match"] === file.etag) return send(response, 304, undefined, headers);
        return send(response, 200, request.method === "HEAD" ? undefined : file.bytes, { ...headers, "content-length": file.bytes.length });
      }
      const blob = /^\/blobs\/sha256\/([^/]+)$/.exec(path);
      if (blob && (request.method === "HEAD" || request.method === "GET")) {
        stats.existenceRequests += 1;
        const hex = blob[1].toLowerCase();
        if (!isHexDigest(hex)) return json(response, 400, { error: "invalidDigest", message: "expected 64 hex digits" });
        stats.digestsAsked += 1;
        stats.byDigest[hex] = (stats.byDigest[hex] ?? 0) + 1;
        const [catalogVersion, present] = [await currentVersion(), await readCatalog()];
        const askedText = url.searchParams.get("catalogVersion") ?? "";
        // Digits only: Number("") would read a missing version as 0.
        if (!/^\d+$/.test(askedText) || Number(askedText) !== catalogVersion) {
          return json(response, 409, { error: "catalogVersionMismatch", catalogVersion, message: `this server holds catalogVersion ${catalogVersion}` });
        }
        const exists = present.has(hex);
        return request.method === "HEAD"
          ? send(response, exists ? 200 : 404)
          : json(response, exists ? 200 : 404, { digest: hex, catalogVersion, exists });
      }
      if (path === "/blobs:findMissing" && request.method === "POST") {
        stats.findMissingRequests += 1;
        const body = JSON.parse(await readBody(request, 64 * 1024 * 1024));
        const digests = Array.isArray(body) ? body : body?.digests;
        const [catalogVersion, present] = [await currentVersion(), await readCatalog()];
        const asked = Array.isArray(body) ? catalogVersion : body?.catalogVersion;
        if (!Array.isArray(digests) || !digests.every((d) => typeof d === "string" && isHexDigest(d))) {
          return json(response, 400, { error: "invalidDigest", message: "expected a list of 64-hex-digit digests" });
        }
        if (asked !== catalogVersion) {
          return json(response, 409, { error: "catalogVersionMismatch", catalogVersion });
        }
        stats.digestsAsked += digests.length;
        for (const d of digests) stats.byDigest[d.toLowerCase()] = (stats.byDigest[d.toLowerCase()] ?? 0) + 1;
        return json(response, 200, { catalogVersion, missing: digests.filter((d) => !present.has(d.toLowerCase())) });
      }
      if (path === "/stats" && request.method === "GET") return json(response, 200, { catalogVersion: await currentVersion(), ...stats });
      if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "method not allowed");
      const [root, rest] = path.startsWith("/pkg/") ? [PACKAGE_DIR, path.slice(5)] : [wwwRoot, path === "/" ? "index.html" : path];
      let file;
      try {
        file = inside(root, rest);
      } catch {
        return send(response, 400, "bad path"); // a malformed %-escape
      }
      if (file === undefined) return send(response, 404, "not found");
      const body = await readFile(file).catch(() => undefined);
      if (body === undefined) return send(response, 404, "not found");
      return send(response, 200, body, { "content-type": MIME[extname(file)] ?? "application/octet-stream" });
    } catch (error) {
      if (!response.headersSent) json(response, error.status ?? (error instanceof SyntaxError ? 400 : 500), { error: "serverError", message: error.message });
    }
  });
  await new Promise((ready, fail) => {
    server.once("error", fail);
    server.listen(port, host, ready);
  });
  const address = server.address();
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    catalogVersion: lastVersion,
    stats,
    close: () => new Promise((done) => { server.closeAllConnections?.(); server.close(() => done()); }),
  };
}

export async function serve(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    options: {
      snapshot: { type: "string" }, catalog: { type: "string" }, "catalog-version": { type: "string" },
      port: { type: "string", default: "8080" }, host: { type: "string", default: "127.0.0.1" }, www: { type: "string" },
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  if (!values.snapshot || !values.catalog) throw new UsageError(`--snapshot and --catalog are required\n\n${HELP}`);
  const port = integerOption(values, "port", 0, 65535);
  const catalogVersion = values["catalog-version"] === undefined ? undefined
    : integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!["127.0.0.1", "localhost", "::1"].includes(values.host)) {
    process.stderr.write(`serve: warning: listening on ${values.host}, not loopback; this demo server has no authentication\n`);
  }
  const running = await startServer({ snapshot: values.snapshot, catalog: values.catalog, catalogVersion, port, host: values.host, www: values.www });
  process.stdout.write(`listening on ${running.url}\n`);
  const stop = () => running.close().then(() => process.exit(0));
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return undefined;
}
