// `artifact-bloom serve`: the demo catalog server. It serves the current ABF1
// snapshot (re-read when the file is atomically replaced), an exact existence
// API backed by the catalog's digest list, and the browser precheck page.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { setImmediate as yieldToRequests } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { EXIT_OK, UsageError, integerOption, isHexDigest, parseCommand, readingInput } from "../common.mjs";
import {
  BodyBudget,
  DEFAULT_BODY_BUDGET_MIB,
  MAX_BODY_BYTES,
  MAX_DIGESTS_PER_REQUEST,
  answerError,
  readFindMissingBody,
  tooManyDigests,
} from "./serve-body.mjs";
import { DEFAULT_DELTA_HISTORY, DELTA_HELP, DeltaHistory, answerSnapshot } from "./serve-deltas.mjs";
import { LAYOUT_HELP, LAYOUT_PREFIX, openLayout } from "./serve-layout.mjs";
import { RECENT_DIGEST_LIMIT, RequestStats } from "./serve-stats.mjs";
import { ServedUnit } from "./serve-unit.mjs";
import { EXIT_CODES_HELP } from "../exit-codes.mjs";
import { answerSidecar } from "../snapshot-sidecar.mjs";

export { MAX_BODY_BYTES, MAX_DIGESTS_PER_REQUEST };

const LOWER_HEX_DIGEST = /^[0-9a-f]{64}$/;
/**
 * How long a request for a catalogVersion other than the served one waits
 * for the reload that may bring it (and GET /snapshot for a replaced file)
 * before it is answered from what is served: 409 for another version.
 */
const DEFAULT_RELOAD_WAIT_MS = 10_000;

export const HELP = `Usage: artifact-bloom serve --snapshot PATH --catalog PATH [--port N]
                           [--host H] [--www DIR] [--catalog-version V]
                           [--delta-history K] [--body-budget MIB]
                           [--layout DIR]

Serves, on 127.0.0.1 by default (loopback only):
  GET  /snapshot                       the ABF1 bytes, with ETag and Last-Modified
                                       (If-None-Match → 304); an atomically
                                       replaced file is picked up on the next request;
                                       with A-IM: abd1 and If-None-Match naming an
                                       earlier version → 226 IM Used, an ABD1 delta
  GET  /snapshot.meta.json             the sidecar PATH.meta.json beside --snapshot
                                       (publish --from-registry writes it; 404 if none)
  HEAD /blobs/sha256/<hex>?catalogVersion=N
                                       200 present, 404 absent, 409 another version
                                       (JSON: availableVersions); every answer marked
                                       Artifact-Bloom-Catalog-Version: N (409: the N held;
                                       a 404 without it is not the existence API's)
  GET  /blobs/sha256/<hex>?catalogVersion=N   the same, as JSON; a 404's body has
                                       errors: [{ code: "BLOB_UNKNOWN" }]
  POST /blobs:findMissing              content-type application/json (else 415),
                                       body {"catalogVersion": N, "digests": [hex…]}
                                       or a JSON list of hex digests →
                                       {"catalogVersion", "missing": [hex…]}, marked;
                                       at most ${MAX_DIGESTS_PER_REQUEST} digests and 64 MiB per request (else 413);
                                       503 + Retry-After while --body-budget is spent
  GET  /stats                          request totals, reload counts, refused
                                       versions (versionRefusals), the body budget and the last
                                       ${RECENT_DIGEST_LIMIT} distinct digests asked (JSON; fixed size)
  GET  /  and  /pkg/…                  the www precheck page and the package's browser build

  --snapshot PATH        the ABF1 file to serve
  --catalog PATH         the exact digest list (64 hex digits per line)
  --catalog-version V    version of that list (default: the snapshot header's,
                         following republished versions, see below). With the
                         flag the list is fixed: a changed list is refused
                         (restart serve to serve another version)
  --port N               0 picks a free port (default 8080)
  --host H               listen address (default 127.0.0.1: this machine only).
                         Any other address (0.0.0.0, ::, a LAN address) exposes
                         every route above to whoever can reach it, with no
                         authentication and no TLS: the snapshot, whether any
                         digest is in the catalog, and /stats (the digests
                         recently asked about)
  --www DIR              the page to serve at / (default: the page shipped in the package)
  --body-budget MIB      findMissing body bytes buffered at once, all connections
                         together (1 .. 4096, default ${DEFAULT_BODY_BUDGET_MIB}); a request that
                         would pass it gets 503 with Retry-After: 1. Peak memory
                         for bodies is about three times this (bytes, text, parse)
${LAYOUT_HELP}
${DELTA_HELP}

Versions: the snapshot and the catalog list are served as ONE unit: an
answer labelled catalogVersion N comes from the list served with snapshot N.
To publish version N+1, replace the catalog list by an atomic rename (write
a temp file, then mv), then the snapshot (publish does it atomically). serve
switches to both together once both files have changed, the snapshot's
catalogVersion is higher, and the list is COMPLETE for it: exactly the
snapshot's insertedItemCount unique digests, every one "maybe" in it. An
empty, half-written or other version's list is never used: serve keeps
serving N, says why on stderr (once) and in /stats "pending", and switches
when the complete list is there. A list changed under the served snapshot
is judged too: not complete for it, it is never used (the list read with
the snapshot keeps answering, /stats "pending" says why) and waits for its
snapshot. Started from an incomplete list, serve
answers existence requests 503 (Retry-After) until the list is complete. A
snapshot whose catalogVersion is lower than the served one, or equal with
other content (another checksum; with --catalog-version: any other
content), is refused: one line on stderr, counted in /stats
versionRefusals, and N keeps serving. One catalogVersion names one catalog.

Reloads: a change is read once, in the background, while the loaded unit
keeps answering; existence requests for the served catalogVersion never wait
for it. GET /snapshot and a request naming another catalogVersion wait for
that one reload (shared by every request that needs it), at most
${DEFAULT_RELOAD_WAIT_MS / 1000} s, then get what is served (409 for another version). A file that does
not load is reported on stderr and the previous unit keeps serving.

Prints "listening on http://HOST:PORT/" once ready; runs until Ctrl-C.

${EXIT_CODES_HELP}
For serve: 0 after Ctrl-C or SIGTERM; 2 bad arguments, or anything that
stops it from starting (an unreadable file, a port that cannot be bound).`;

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
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

/** Resolves a URL path inside `root`, or undefined when it would escape it. */
function inside(root, urlPath) {
  const full = normalize(join(root, decodeURIComponent(urlPath)));
  return full === root || full.startsWith(root + sep) ? full : undefined;
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
 * and embedding; the CLI command below wraps it. `onNotice(message, kind)`
 * hears of reloads that fail or are refused and of snapshots waiting for
 * their catalog list (kind "reloadFailure", "refusal" or "waiting").
 * @param {{
 *   snapshot: string, catalog: string, catalogVersion?: number, port?: number, host?: string, www?: string,
 *   onNotice?: (message: string, kind: string) => void, deltaHistory?: number, bodyBudgetBytes?: number,
 *   reloadWaitMs?: number, layout?: string,
 * }} options
 */
export async function startServer({
  snapshot,
  catalog,
  catalogVersion,
  port = 0,
  host = "127.0.0.1",
  www,
  onNotice,
  deltaHistory = DEFAULT_DELTA_HISTORY,
  bodyBudgetBytes = DEFAULT_BODY_BUDGET_MIB * 1024 * 1024,
  reloadWaitMs = DEFAULT_RELOAD_WAIT_MS,
  layout,
}) {
  const { EXISTENCE_VERSION_HEADER } = await import("artifact-bloom/server");
  const deltas = new DeltaHistory(deltaHistory);
  const budget = new BodyBudget(bodyBudgetBytes);
  // The snapshot and the catalog list are one unit (serve-unit.mjs); each
  // unit served becomes the current version of the delta history.
  const served = new ServedUnit({
    snapshot: resolve(snapshot),
    catalog: resolve(catalog),
    fixedVersion: catalogVersion,
    onSwap: ({ snapshot: file }) => deltas.advance(file.bytes, file.etag),
    report: (kind, message) => onNotice?.(message, kind),
  });
  try {
    await served.start(readingInput);
  } catch (error) {
    if (error.code !== "headerDoesNotLoad") throw error;
    throw new UsageError(`--catalog-version is needed: the snapshot header does not load (${error.message})`);
  }
  /**
   * The unit that answers a request naming `asked`. The served version never
   * waits for a reload (the loaded unit answers while replaced files are
   * read); another version waits, bounded, for the one reload that may bring it.
   */
  const unitFor = async (asked) => {
    const unit = await served.current();
    return asked === undefined || asked === unit.version || catalogVersion !== undefined ? unit : served.fresh(reloadWaitMs);
  };
  const wwwRoot = resolve(www ?? join(PACKAGE_DIR, "www"));
  const servedLayout = layout === undefined ? undefined : await openLayout(layout);
  const stats = new RequestStats();
  const statsNow = () =>
    stats.snapshot({
      snapshotLoads: served.snapshotLoads,
      catalogLoads: served.catalogLoads,
      reloadFailures: served.reloadFailures,
      versionRefusals: served.versionRefusals,
      pending: served.pending ?? null,
      bodyBudget: { limitBytes: budget.limit, bufferedBytes: budget.used, peakBytes: budget.peak, refusals: budget.refusals },
      deltas: deltas.stats(),
    });

  const send = (response, status, body, headers = {}) => {
    if (status >= 400 && status < 500 && status !== 404) stats.rejectedRequests += 1;
    response.writeHead(status, { "cache-control": "no-store", ...headers });
    response.end(body);
  };
  const json = (response, status, value, headers = {}) =>
    send(response, status, JSON.stringify(value), { "content-type": "application/json", ...headers });
  // Every answer of the existence API is marked with the catalogVersion it
  // answers for, so a client tells it from a 404 of anything else (a wrong
  // path here, a static host, a router): an unmarked 404 is never "absent".
  const marked = (version) => ({ [EXISTENCE_VERSION_HEADER]: String(version) });
  // The only versions this server can answer for: the one unit it serves.
  const mismatch = (response, unit, asked) =>
    json(
      response,
      409,
      {
        error: "catalogVersionMismatch",
        catalogVersion: unit.version,
        availableVersions: [unit.version],
        message: `this server holds catalogVersion ${unit.version}${asked === undefined ? "" : `, not ${asked}`}`,
      },
      marked(unit.version),
    );

  // serve started from a catalog list that is not complete for its snapshot:
  // no existence answer until it is (the list's missing members would read
  // as "absent"). Not marked: it is no answer.
  const incomplete = (response) =>
    json(
      response,
      503,
      { error: "catalogIncomplete", message: `${served.pending?.message ?? "the catalog list is incomplete"}; try again later` },
      { "retry-after": "5" },
    );

  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, "http://localhost");
      const path = url.pathname;
      if (servedLayout !== undefined && path.startsWith(LAYOUT_PREFIX)) {
        return servedLayout.answer(request, response, path, send);
      }
      if (path === "/snapshot" && (request.method === "GET" || request.method === "HEAD")) {
        stats.snapshotRequests += 1;
        // The answer IS the file: wait for a replaced one to be read (one
        // read, shared by every request that arrives meanwhile).
        const { snapshot: file } = await served.fresh(reloadWaitMs);
        return answerSnapshot(request, response, file, deltas, send);
      }
      if (path === "/snapshot.meta.json" && (request.method === "GET" || request.method === "HEAD")) {
        return answerSidecar(resolve(snapshot), (status, body, headers) => send(response, status, body, headers));
      }
      const blob = /^\/blobs\/sha256\/([^/]+)$/.exec(path);
      if (blob && (request.method === "HEAD" || request.method === "GET")) {
        stats.existenceRequests += 1;
        const hex = blob[1].toLowerCase();
        if (!isHexDigest(hex)) return json(response, 400, { error: "invalidDigest", message: "expected 64 hex digits" });
        stats.countDigests([hex]);
        const askedText = url.searchParams.get("catalogVersion") ?? "";
        // Digits only: Number("") would read a missing version as 0.
        const asked = /^\d+$/.test(askedText) ? Number(askedText) : undefined;
        const unit = await unitFor(asked);
        if (asked !== unit.version) return mismatch(response, unit, asked);
        if (unit.incomplete) return incomplete(response);
        const { version, present } = unit;
        const exists = present.has(hex);
        if (request.method === "HEAD") return send(response, exists ? 200 : 404, undefined, marked(version));
        // The absent answer names its code as the OCI distribution spec does.
        const unknown = exists
          ? {}
          : { errors: [{ code: "BLOB_UNKNOWN", message: `blob unknown to catalogVersion ${version}`, detail: { digest: hex } }] };
        return json(response, exists ? 200 : 404, { digest: hex, catalogVersion: version, exists, ...unknown }, marked(version));
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
          body = JSON.parse(await readFindMissingBody(request, budget));
        } catch (error) {
          if (error instanceof SyntaxError) throw answerError(400, "invalidJson", `the body is not JSON: ${error.message}`);
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
        const named = Array.isArray(body) ? undefined : body?.catalogVersion;
        const asked = Number.isSafeInteger(named) ? named : undefined;
        const unit = await unitFor(asked);
        // A bare list asks about the served version; an object must name it.
        if (!Array.isArray(body) && asked !== unit.version) return mismatch(response, unit, asked);
        if (unit.incomplete) return incomplete(response);
        const { version, present } = unit;
        const missing = [];
        for (let index = 0; index < lower.length; index += 1) if (!present.has(lower[index])) missing.push(digests[index]);
        return json(response, 200, { catalogVersion: version, missing }, marked(version));
      }
      if (path === "/stats" && request.method === "GET") {
        return json(response, 200, { catalogVersion: served.unit.version, ...statsNow() });
      }
      if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "method not allowed");
      const [root, rest] = path.startsWith("/pkg/")
        ? [PACKAGE_DIR, path.slice(5)]
        : [wwwRoot, path === "/" ? "index.html" : path];
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
        json(
          response,
          error.status ?? 500,
          { error: error.code ?? "serverError", message: error.message },
          { ...error.headers, ...(error.close ? { connection: "close" } : {}) },
        );
      }
    }
  });
  await new Promise((ready, fail) => {
    server.once("error", fail);
    server.listen(port, host, /** @type {() => void} */ (ready));
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    catalogVersion: (await served.current()).version,
    get stats() {
      return statsNow();
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}

export async function serve(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    options: {
      snapshot: { type: "string" },
      catalog: { type: "string" },
      "catalog-version": { type: "string" },
      port: { type: "string", default: "8080" },
      host: { type: "string", default: "127.0.0.1" },
      www: { type: "string" },
      "delta-history": { type: "string", default: String(DEFAULT_DELTA_HISTORY) },
      "body-budget": { type: "string", default: String(DEFAULT_BODY_BUDGET_MIB) },
      layout: { type: "string" },
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  if (!values.snapshot || !values.catalog) throw new UsageError(`--snapshot and --catalog are required\n\n${HELP}`);
  const port = integerOption(values, "port", 0, 65535);
  const deltaHistory = integerOption(values, "delta-history", 0, 1024);
  const bodyBudgetBytes = integerOption(values, "body-budget", 1, 4096) * 1024 * 1024;
  const catalogVersion =
    values["catalog-version"] === undefined ? undefined : integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!["127.0.0.1", "localhost", "::1"].includes(values.host)) {
    process.stderr.write(`serve: warning: listening on ${values.host}, not loopback; this demo server has no authentication\n`);
  }
  const onNotice = (message) => process.stderr.write(`serve: ${message}\n`);
  const running = await startServer({
    snapshot: values.snapshot,
    catalog: values.catalog,
    catalogVersion,
    port,
    host: values.host,
    www: values.www,
    onNotice,
    deltaHistory,
    bodyBudgetBytes,
    layout: values.layout,
  });
  process.stdout.write(`listening on ${running.url}\n`);
  const stop = () => running.close().then(() => process.exit(0));
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return undefined;
}
