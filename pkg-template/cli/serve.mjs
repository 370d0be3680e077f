// `artifact-bloom serve`: the demo catalog server. It serves the current ABF1
// snapshot (re-read when the file is atomically replaced), an exact existence
// API backed by the catalog's digest list, and the browser precheck page.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { setImmediate as yieldToRequests } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { readSnapshotHeader } from "../node.mjs";
import { EXIT_OK, UsageError, integerOption, isHexDigest, parseCommand, readHexDigests, readingInput } from "./common.mjs";
import { DEFAULT_DELTA_HISTORY, DELTA_HELP, DeltaHistory, answerSnapshot } from "./serve-deltas.mjs";
import { ReloadingFile } from "./serve-reload.mjs";
import { RECENT_DIGEST_LIMIT, RequestStats } from "./serve-stats.mjs";

/** The largest POST /blobs:findMissing body read (64 MiB); more → 413 and the connection closes. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * The most digests one POST /blobs:findMissing may ask about. 10,000 hex
 * digests are a 670 KB body, parsed and answered in tens of milliseconds, so
 * one request holds up the HEADs queued behind it only that long, and
 * leaves little garbage (100,000 per request measured 4× the HEAD latency and
 * twice the RSS growth: docs/reliability.md). The package's own client sends
 * 1,000 per request by default.
 */
export const MAX_DIGESTS_PER_REQUEST = 10_000;
// Each digest is a JSON string (two quotes); the object form adds two keys.
// Counting quotes as the body arrives rejects an oversized list before
// buffering or parsing it; the exact count is checked after parsing.
const MAX_QUOTES = 2 * (MAX_DIGESTS_PER_REQUEST + 2);
const LOWER_HEX_DIGEST = /^[0-9a-f]{64}$/;

export const HELP = `Usage: artifact-bloom serve --snapshot PATH --catalog PATH [--port N]
                           [--host H] [--www DIR] [--catalog-version V]
                           [--delta-history K]

Serves, on 127.0.0.1 by default (loopback only):
  GET  /snapshot                       the ABF1 bytes, with ETag and Last-Modified
                                       (If-None-Match → 304); an atomically
                                       replaced file is picked up on the next request;
                                       with A-IM: abd1 and If-None-Match naming an
                                       earlier version → 226 IM Used, an ABD1 delta
  HEAD /blobs/sha256/<hex>?catalogVersion=N
                                       200 present, 404 absent, 409 wrong version
  GET  /blobs/sha256/<hex>?catalogVersion=N   the same, as JSON
  POST /blobs:findMissing              content-type application/json (else 415),
                                       body {"catalogVersion": N, "digests": [hex…]}
                                       or a JSON list of hex digests →
                                       {"catalogVersion", "missing": [hex…]};
                                       at most ${MAX_DIGESTS_PER_REQUEST} digests and 64 MiB per request (else 413)
  GET  /stats                          request totals, reload counts and the last
                                       ${RECENT_DIGEST_LIMIT} distinct digests asked (JSON; fixed size)
  GET  /  and  /pkg/…                  the www precheck page and the package's browser build

  --snapshot PATH        the ABF1 file to serve
  --catalog PATH         the exact digest list (64 hex digits per line)
  --catalog-version V    version of that list (default: the current snapshot
                         header's; both files are re-read when they change —
                         replace the catalog list first, then the snapshot)
  --port N               0 picks a free port (default 8080)
  --host H               listen address (default 127.0.0.1: this machine only).
                         Any other address (0.0.0.0, ::, a LAN address) exposes
                         every route above to whoever can reach it, with no
                         authentication and no TLS: the snapshot, whether any
                         digest is in the catalog, and /stats (the digests
                         recently asked about)
  --www DIR              the page to serve at / (default: the page shipped in the package)
${DELTA_HELP}

Reloads: a replaced file is read once, in the background, while the loaded
one keeps answering; existence requests for the served catalogVersion never
wait for it. GET /snapshot and a request naming another catalogVersion wait
for that one read (shared by every request that needs it). A replacement that
does not load is reported on stderr and the previous contents keep serving.

Prints "listening on http://HOST:PORT/" once ready; runs until Ctrl-C.`;

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MIME = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml",
  ".png": "image/png", ".ico": "image/x-icon", ".ts": "text/plain; charset=utf-8", ".md": "text/plain; charset=utf-8",
};

// Building the catalog's Set yields to the event loop this often, so a
// reload of a large catalog never blocks the requests answered meanwhile.
const CATALOG_YIELD_EVERY = 16_384;

/** An error answered with `status` and `{ error: code, message }`. */
function httpError(status, code, message, close = false) {
  return Object.assign(new Error(message), { status, code, close });
}

const tooManyDigests = (detail) => httpError(413, "tooManyDigests",
  `at most ${MAX_DIGESTS_PER_REQUEST} digests per request, ${detail}; split the list into several requests`);

/**
 * The snapshot file: its bytes, an ETag and Last-Modified. The ETag is the
 * ABF1 checksum, so a client can name any snapshot it holds (however it got
 * it) when asking for a delta; a file whose header does not load gets a hash
 * of its bytes.
 */
async function loadSnapshotFile(path, info) {
  const bytes = await readFile(path);
  const header = readSnapshotHeader(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const etag = header.kind === "success" ? `"${header.value.checksum}"`
    : `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`;
  return { bytes, etag, lastModified: info.mtime.toUTCString() };
}

/** The snapshot header's catalogVersion (cached per file), or undefined if it does not load. */
function versionOf(file) {
  if (!("version" in file)) {
    const header = readSnapshotHeader(new Uint8Array(file.bytes));
    file.version = header.kind === "success" ? header.value.catalogVersion : undefined;
  }
  return file.version;
}

/** The catalog's exact digest set (lowercase hex strings). */
async function loadCatalog(path) {
  const { packed } = await readHexDigests(createReadStream(path));
  const present = new Set();
  const count = packed.byteLength / 32;
  for (let index = 0; index < count; index += 1) {
    present.add(Buffer.from(packed.buffer, packed.byteOffset + index * 32, 32).toString("hex"));
    if (index % CATALOG_YIELD_EVERY === CATALOG_YIELD_EVERY - 1) await yieldToRequests();
  }
  return present;
}

/** Resolves a URL path inside `root`, or undefined when it would escape it. */
function inside(root, urlPath) {
  const full = normalize(join(root, decodeURIComponent(urlPath)));
  return full === root || full.startsWith(root + sep) ? full : undefined;
}

/** How many `"` bytes a chunk holds. */
function countQuotes(chunk) {
  let count = 0;
  for (let at = chunk.indexOf(0x22); at !== -1; at = chunk.indexOf(0x22, at + 1)) count += 1;
  return count;
}

/**
 * The findMissing body as text. Over MAX_BODY_BYTES → 413 at once (and the
 * connection closes); more strings than MAX_DIGESTS_PER_REQUEST digests could
 * need → the rest is read and dropped, then 413 (so the client, still
 * sending, gets the answer instead of a reset).
 */
function readFindMissingBody(request) {
  return new Promise((done, fail) => {
    const chunks = [];
    let size = 0;
    let quotes = 0;
    let tooMany = false;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.off("data", onData).pause();
        fail(httpError(413, "bodyTooLarge", `the request body exceeds ${MAX_BODY_BYTES} bytes (64 MiB)`, true));
        return;
      }
      if (tooMany) return;
      quotes += countQuotes(chunk);
      if (quotes > MAX_QUOTES) {
        tooMany = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => (tooMany ? fail(tooManyDigests("this body holds more")) : done(Buffer.concat(chunks).toString("utf8"))));
    request.once("error", fail);
    request.once("close", () => fail(httpError(400, "incompleteBody", "the client closed the connection mid-body")));
  });
}

/** The digests in lowercase, or undefined if one is not a 64-hex-digit string. */
function lowercaseDigests(digests) {
  const lower = new Array(digests.length);
  for (let index = 0; index < digests.length; index += 1) {
    const digest = digests[index];
    if (typeof digest !== "string") return undefined;
    if (LOWER_HEX_DIGEST.test(digest)) lower[index] = digest;
    else if (isHexDigest(digest)) lower[index] = digest.toLowerCase();
    else return undefined;
  }
  return lower;
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType) {
  return (contentType ?? "").split(";")[0].trim().toLowerCase() === "application/json";
}

/**
 * Starts the server; resolves to `{ url, catalogVersion, stats, close() }`
 * (`stats` is a fresh copy of the counters on each read). Exported for tests
 * and embedding; the CLI command below wraps it.
 */
export async function startServer({
  snapshot, catalog, catalogVersion, port = 0, host = "127.0.0.1", www, onReloadFailure, deltaHistory = DEFAULT_DELTA_HISTORY,
}) {
  const reportFailure = (path) => (error) => (onReloadFailure ?? (() => {}))(path, error);
  const deltas = new DeltaHistory(deltaHistory);
  // Each version read becomes the current one of the delta history.
  const loadServedSnapshot = async (path, info) => {
    const file = await loadSnapshotFile(path, info);
    deltas.advance(new Uint8Array(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), file.etag);
    return file;
  };
  const snapshotFile = new ReloadingFile(resolve(snapshot), loadServedSnapshot, reportFailure(resolve(snapshot)));
  const first = await readingInput(snapshot, () => snapshotFile.start());
  const fixedVersion = catalogVersion;
  if (fixedVersion === undefined && versionOf(first) === undefined) {
    const header = readSnapshotHeader(new Uint8Array(first.bytes));
    throw new UsageError(`--catalog-version is needed: the snapshot header does not load (${header.error})`);
  }
  // The version the existence API answers for: fixed by the flag, else the
  // current snapshot's (so a republished snapshot and its catalog list are
  // picked up together; replace the catalog file first, then the snapshot).
  let lastVersion = fixedVersion ?? versionOf(first);
  /** The served version; `fresh` waits for a replaced snapshot file to be read. */
  const servedVersion = async (fresh) => {
    if (fixedVersion !== undefined) return fixedVersion;
    lastVersion = versionOf(await (fresh ? snapshotFile.fresh() : snapshotFile.current())) ?? lastVersion;
    return lastVersion;
  };
  const catalogFile = new ReloadingFile(resolve(catalog), loadCatalog, reportFailure(resolve(catalog)));
  await readingInput(catalog, () => catalogFile.start());
  /**
   * The served version and catalog for a request that names `asked`. A
   * request for the version being served never waits for a reload (the
   * loaded catalog answers while a replaced file is read); a request for
   * another version waits for both files, since only they can answer it.
   */
  const versionFor = async (asked) => {
    const version = await servedVersion(false);
    if (asked === version) return { version, present: await catalogFile.current() };
    if (asked === undefined || fixedVersion !== undefined) return { version };
    const now = await servedVersion(true);
    return asked === now ? { version: now, present: await catalogFile.fresh() } : { version: now };
  };
  const wwwRoot = resolve(www ?? join(PACKAGE_DIR, "www"));
  const stats = new RequestStats();
  const statsNow = () => stats.snapshot({
    snapshotLoads: snapshotFile.loads, catalogLoads: catalogFile.loads, reloadFailures: snapshotFile.failures + catalogFile.failures,
    deltas: deltas.stats(),
  });

  const send = (response, status, body, headers = {}) => {
    if (status >= 400 && status < 500 && status !== 404) stats.rejectedRequests += 1;
    response.writeHead(status, { "cache-control": "no-store", ...headers });
    response.end(body);
  };
  const json = (response, status, value, headers = {}) =>
    send(response, status, JSON.stringify(value), { "content-type": "application/json", ...headers });
  const mismatch = (response, catalogVersion) => json(response, 409, {
    error: "catalogVersionMismatch", catalogVersion, message: `this server holds catalogVersion ${catalogVersion}`,
  });

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, "http://localhost");
      const path = url.pathname;
      if (path === "/snapshot" && (request.method === "GET" || request.method === "HEAD")) {
        stats.snapshotRequests += 1;
        // The answer IS the file: wait for a replaced one to be read (one
        // read, shared by every request that arrives meanwhile).
        const file = await snapshotFile.fresh();
        return answerSnapshot(request, response, file, deltas, send);
      }
      const blob = /^\/blobs\/sha256\/([^/]+)$/.exec(path);
      if (blob && (request.method === "HEAD" || request.method === "GET")) {
        stats.existenceRequests += 1;
        const hex = blob[1].toLowerCase();
        if (!isHexDigest(hex)) return json(response, 400, { error: "invalidDigest", message: "expected 64 hex digits" });
        stats.countDigests([hex]);
        const askedText = url.searchParams.get("catalogVersion") ?? "";
        // Digits only: Number("") would read a missing version as 0.
        const { version, present } = await versionFor(/^\d+$/.test(askedText) ? Number(askedText) : undefined);
        if (present === undefined) return mismatch(response, version);
        const exists = present.has(hex);
        return request.method === "HEAD"
          ? send(response, exists ? 200 : 404)
          : json(response, exists ? 200 : 404, { digest: hex, catalogVersion: version, exists });
      }
      if (path === "/blobs:findMissing" && request.method === "POST") {
        stats.findMissingRequests += 1;
        // A cross-origin page can POST text/plain without a preflight; only
        // JSON (which needs one, and this server answers no CORS) is read.
        if (!isJson(request.headers["content-type"])) {
          return json(response, 415, {
            error: "unsupportedMediaType",
            message: `expected content-type application/json, got ${request.headers["content-type"] ?? "none"}`,
          });
        }
        let body;
        try {
          body = JSON.parse(await readFindMissingBody(request));
        } catch (error) {
          if (error instanceof SyntaxError) throw httpError(400, "invalidJson", `the body is not JSON: ${error.message}`);
          throw error;
        }
        // Parsing a large body held the event loop: let the requests that
        // arrived meanwhile through (the stat calls below yield again before
        // the lookups).
        await yieldToRequests();
        const digests = Array.isArray(body) ? body : body?.digests;
        if (Array.isArray(digests) && digests.length > MAX_DIGESTS_PER_REQUEST) throw tooManyDigests(`got ${digests.length}`);
        const lower = Array.isArray(digests) ? lowercaseDigests(digests) : undefined;
        if (lower === undefined) {
          return json(response, 400, { error: "invalidDigest", message: "expected a list of 64-hex-digit digests" });
        }
        stats.countDigests(lower);
        const asked = Array.isArray(body) ? await servedVersion(false) : body?.catalogVersion;
        const { version, present } = await versionFor(Number.isSafeInteger(asked) ? asked : undefined);
        if (present === undefined) return mismatch(response, version);
        const missing = [];
        for (let index = 0; index < lower.length; index += 1) if (!present.has(lower[index])) missing.push(digests[index]);
        return json(response, 200, { catalogVersion: version, missing });
      }
      if (path === "/stats" && request.method === "GET") {
        return json(response, 200, { catalogVersion: await servedVersion(false), ...statsNow() });
      }
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
      if (!response.headersSent) {
        json(response, error.status ?? 500, { error: error.code ?? "serverError", message: error.message },
          error.close ? { connection: "close" } : {});
      }
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
    get stats() {
      return statsNow();
    },
    close: () => new Promise((done) => { server.closeAllConnections?.(); server.close(() => done()); }),
  };
}

export async function serve(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    options: {
      snapshot: { type: "string" }, catalog: { type: "string" }, "catalog-version": { type: "string" },
      port: { type: "string", default: "8080" }, host: { type: "string", default: "127.0.0.1" }, www: { type: "string" },
      "delta-history": { type: "string", default: String(DEFAULT_DELTA_HISTORY) },
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  if (!values.snapshot || !values.catalog) throw new UsageError(`--snapshot and --catalog are required\n\n${HELP}`);
  const port = integerOption(values, "port", 0, 65535);
  const deltaHistory = integerOption(values, "delta-history", 0, 1024);
  const catalogVersion = values["catalog-version"] === undefined ? undefined
    : integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!["127.0.0.1", "localhost", "::1"].includes(values.host)) {
    process.stderr.write(`serve: warning: listening on ${values.host}, not loopback; this demo server has no authentication\n`);
  }
  const onReloadFailure = (path, error) => {
    process.stderr.write(`serve: cannot reload ${path}: ${error.message}; still serving its previous contents\n`);
  };
  const running = await startServer({
    snapshot: values.snapshot, catalog: values.catalog, catalogVersion, port, host: values.host, www: values.www, onReloadFailure, deltaHistory,
  });
  process.stdout.write(`listening on ${running.url}\n`);
  const stop = () => running.close().then(() => process.exit(0));
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return undefined;
}
