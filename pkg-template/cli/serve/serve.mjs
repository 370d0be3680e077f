// `artifact-bloom serve`: the demo catalog server, a thin shell over the
// library. It watches the snapshot file and the exact catalog list as one
// unit (serve-unit.mjs), publishes each unit it serves into an in-memory
// layout with publishToLayout (serve-store.mjs), and answers every request
// through createRequestHandler (artifact-bloom/server, docs/server.md)
// mounted with toNodeListener on node:http: GET /snapshot with its deltas,
// the existence API, /stats, the layout's own files; the browser page and
// the sidecar come through the handler's `fallback` (serve-static.mjs).
// The library is imported by the package's own name, after the arguments
// are read, so `serve --help` loads no wasm.
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT_OK, UsageError, errorCode, errorMessage, integerOption, parseCommand, readingInput } from "../common.mjs";
import { EXIT_CODES_HELP } from "../exit-codes.mjs";
import { KEY_OPTIONS } from "../option-groups.mjs";
import { helpText } from "../option-table.mjs";

/** The largest findMissing body read (64 MiB); more → 413. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The most digests one findMissing may ask about (the library's MAX_DIGESTS_PER_REQUEST). */
export const MAX_DIGESTS_PER_REQUEST = 10_000;
/** Default total of findMissing body bytes buffered at once, all connections together (MiB). */
export const DEFAULT_BODY_BUDGET_MIB = 64;
/** Default number of earlier versions a delta is offered from (the library's DEFAULT_DELTA_HISTORY). */
export const DEFAULT_DELTA_HISTORY = 8;
/** The most: the layout manifest's bound (LAYOUT_MANIFEST_MAX_DELTAS). */
const MAX_DELTA_HISTORY = 64;
/** Where --layout DIR is served. */
const LAYOUT_PREFIX = "/layout/";
/** ABD1's fixed part (a 200-byte header and a 32-byte checksum): a delta file may be this much over the largest ABF1. */
const DELTA_FIXED_BYTES = 232;
/**
 * How long a request for a catalogVersion other than the served one waits
 * for the reload that may bring it (and GET /snapshot for a replaced file)
 * before it is answered from what is served: 409 for another version.
 */
const DEFAULT_RELOAD_WAIT_MS = 10_000;

/** @type {import("../option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "serve",
  usage: [""],
  about: `Serves, on 127.0.0.1 by default (loopback only):
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
                                       body {"catalogVersion": N, "digests": [hex…]} →
                                       {"catalogVersion", "missing": [hex…]}, marked;
                                       at most 10000 digests and 64 MiB per request (else 413);
                                       503 + Retry-After while --body-budget is spent
  GET  /stats                          request totals, reload counts, refused
                                       versions (versionRefusals), the body budget and the last
                                       1024 distinct digests asked (JSON; fixed size)
  GET  /manifest.json, /snapshots/…, /deltas/…
                                       the same versions as the static layout
                                       (docs/layout.md): what serve publishes
  GET  /  and  /pkg/…                  the www precheck page and the package's browser build

Every route is answered by the library's handler (artifact-bloom/server,
docs/server.md): serve publishes each version it serves into an in-memory
layout with publishToLayout and mounts createRequestHandler on node:http.`,
  options: {
    snapshot: { type: "string", arg: "PATH", required: true, help: "the ABF1 file to serve" },
    catalog: { type: "string", arg: "PATH", required: true, help: "the exact digest list (64 hex digits per line)" },
    "catalog-version": {
      type: "string",
      arg: "V",
      help:
        "version of that list (default: the snapshot header's, following republished versions, see below). With "
        + "the flag the list is fixed: a changed list is refused (restart serve to serve another version)",
    },
    port: { type: "string", arg: "N", default: "8080", help: "0 picks a free port (default 8080)" },
    host: {
      type: "string",
      arg: "H",
      default: "127.0.0.1",
      help:
        "listen address (default 127.0.0.1: this machine only). Any other address (0.0.0.0, ::, a LAN address) "
        + "exposes every route above to whoever can reach it (no TLS; without --token-file no authentication): the "
        + "snapshot, whether any digest is in the catalog, and /stats (the digests recently asked about)",
    },
    www: { type: "string", arg: "DIR", help: "the page to serve at / (default: the page shipped in the package)" },
    "body-budget": {
      type: "string",
      arg: "MIB",
      default: String(DEFAULT_BODY_BUDGET_MIB),
      help: `findMissing body bytes buffered at once, all connections together (1 .. 4096, default ${DEFAULT_BODY_BUDGET_MIB}); a request that would pass it gets 503 with Retry-After: 1. Peak memory for bodies is about three times this (bytes, text, parse)`,
    },
    layout: {
      type: "string",
      arg: "DIR",
      help: `also serve the static layout publish --layout DIR writes (docs/layout.md) under ${LAYOUT_PREFIX}: clients given ${LAYOUT_PREFIX}manifest.json follow it (one conditional GET per poll, deltas as plain files), and a cache in front needs no setting (docs/hosting.md)`,
    },
    ...KEY_OPTIONS,
    "token-file": {
      type: "string",
      arg: "FILE",
      help:
        'bearer tokens (docs/security.md): a JSON array of { "token", "scopes": ["read", "existence", "admin"], "name" }; '
        + "read: the snapshot, deltas, layout and page; existence: HEAD and findMissing; admin: /stats. A missing or "
        + "wrong token is 401, another scope 403, the same answer whether a digest exists or not; tokens are "
        + "compared in constant time and never printed",
    },
    "public-read": {
      type: "boolean",
      default: false,
      help: "with --token-file: reads (snapshot, deltas, layout, page) need no token; existence queries still do",
    },
    "cors-origin": {
      type: "string",
      multiple: true,
      arg: "ORIGIN",
      help: "a page origin (https://app.example) whose scripts may read the answers and send Authorization; repeatable",
    },
    "rate-limit": {
      type: "string",
      arg: "N",
      help:
        "existence queries per token (or, without tokens, for everyone together) counted in digests: N per second, "
        + "a burst of max(N, 10000); past it 429 with Retry-After",
    },
    "delta-history": {
      type: "string",
      arg: "K",
      default: String(DEFAULT_DELTA_HISTORY),
      help: `earlier snapshot versions a delta is offered from (0 .. ${MAX_DELTA_HISTORY}, default ${DEFAULT_DELTA_HISTORY}; 0: never a delta)`,
    },
  },
  notes: [
    `Deltas (RFC 3229, docs/ABD1.md "HTTP"): the ETag is the ABF1 checksum. A GET
/snapshot with "A-IM: abd1" and "If-None-Match" holding the ETag of one of
the last K versions this server served is answered "226 IM Used", "IM: abd1",
with the ABD1 delta from that version to the current one (publishToLayout
writes one from each of the last K versions). Kept, in memory: the layout's
files, the last K + 1 snapshots and their deltas. Unknown or too old a version,
a delta not smaller than the file, or a republish that is no delta away
(another layout, a removed digest) → the full snapshot (200).`,
    `Versions: the snapshot and the catalog list are served as ONE unit: an
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
not load is reported on stderr and the previous unit keeps serving.`,
    `Prints "listening on http://HOST:PORT/" once ready; runs until Ctrl-C.`,
    `${EXIT_CODES_HELP}
For serve: 0 after Ctrl-C or SIGTERM; 2 bad arguments, or anything that
stops it from starting (an unreadable file, a port that cannot be bound).`,
  ],
};

const HELP = helpText(COMMAND);

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The library, by the package's own name (Node resolves it through the
 * "exports" of the package this file is in): the main entry and the server
 * entry; and serve's modules that import it (through bounded-file.mjs), so
 * that `serve --help` and refused arguments load none of it.
 */
async function importLibrary() {
  const [main, server, unit, store, pages] = await Promise.all([
    import("artifact-bloom"),
    import("artifact-bloom/server"),
    import("./serve-unit.mjs"),
    import("./serve-store.mjs"),
    import("./serve-static.mjs"),
  ]);
  return { main, server, unit, store, pages, snapshotLimit: main.MAXIMUM_SNAPSHOT_BYTES + DELTA_FIXED_BYTES };
}

/**
 * GET /stats's counters as the library's handler keeps them (its HandlerStatsSnapshot), before serve adds its own.
 * @typedef {ReturnType<ReturnType<typeof import("artifact-bloom/server").createRequestHandler>["stats"]>} HandlerCounters
 */

/**
 * Starts the server; resolves to `{ url, catalogVersion, stats, close() }`
 * (`stats` is a fresh copy of the counters on each read, as GET /stats
 * answers them). Exported for tests and embedding; the CLI command below
 * wraps it. `onNotice(message, kind)` hears of reloads that fail or are
 * refused and of snapshots waiting for their catalog list (kind
 * "reloadFailure", "refusal" or "waiting").
 * @param {{
 *   snapshot: string, catalog: string, catalogVersion?: number, port?: number, host?: string, www?: string,
 *   onNotice?: (message: string, kind: string) => void, deltaHistory?: number, bodyBudgetBytes?: number,
 *   reloadWaitMs?: number, layout?: string, key?: Uint8Array,
 *   access?: NonNullable<Awaited<ReturnType<typeof import("./serve-access.mjs").accessRequest>>>,
 * }} options `key`: the secret of keyed snapshots (loads and publishes with it);
 *   `access`: tokens, CORS origins and a rate limit (serve-access.mjs)
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
  key,
  access,
}) {
  const keyed = key === undefined ? {} : { key };
  const {
    main,
    server: library,
    unit: { ServedUnit },
    store: { memoryLayoutStore, publishAsIs },
    pages: { staticFiles },
    snapshotLimit,
  } = await importLibrary();
  const { createRequestHandler, directoryLayoutStore, publishToLayout, toNodeListener } = library;
  // What serve serves, published as a layout: GET /snapshot and its deltas come from it.
  const store = memoryLayoutStore();
  /**
   * Why the delta chain last broke (a base no delta could be written from), and the versions deltas come from: for /stats.
   * @type {string | null}
   */
  let lastBreak = null;
  /** @type {number[]} */
  let kept = [];
  /** @param {import("./serve-unit.mjs").Unit} unit */
  const publish = async ({ version, snapshot: file }) => {
    // pruneAfterMs 0: no client reads this layout's files by name between versions but serve's own handler.
    const published = await publishToLayout(store, file.bytes, { deltaHistory, pruneAfterMs: 0, ...keyed });
    if (published.kind === "failure" && published.error === "invalidSnapshot") {
      await publishAsIs(store, file, version, library);
      kept = [];
      return;
    }
    if (published.kind === "failure") throw new Error(`cannot serve ${resolve(snapshot)}: ${published.message}`);
    lastBreak = published.value.skippedBases[0]?.error ?? lastBreak;
    kept = published.value.manifest.deltas.map((delta) => delta.baseCatalogVersion).sort((a, b) => a - b);
  };
  const served = new ServedUnit({
    snapshot: resolve(snapshot),
    catalog: resolve(catalog),
    fixedVersion: catalogVersion,
    library: {
      loadSnapshot: (/** @type {Uint8Array} */ bytes) => main.loadSnapshot(bytes, keyed),
      readSnapshotHeader: main.readSnapshotHeader,
      snapshotLimit,
    },
    onSwap: publish,
    report: (kind, message) => onNotice?.(message, kind),
  });
  try {
    await served.start(readingInput);
  } catch (error) {
    if (errorCode(error) !== "headerDoesNotLoad") throw error;
    throw new UsageError(`--catalog-version is needed: the snapshot header does not load (${errorMessage(error)})`);
  }
  if (layout !== undefined) await checkDirectory(layout);

  /**
   * The existence API's catalog: the served unit. The served version never
   * waits for a reload (the loaded unit answers while replaced files are
   * read); another version waits, bounded, for the one reload that may bring
   * it. A unit started from an incomplete list answers 503 until it is complete.
   * @param {{ catalogVersion: number | undefined }} request the version the request names, if any
   */
  const catalogView = async ({ catalogVersion: asked }) => {
    const current = await served.current();
    const unit =
      asked === undefined || asked === current.version || catalogVersion !== undefined
        ? current
        : await served.fresh(reloadWaitMs);
    return {
      catalogVersion: unit.version,
      unavailable: unit.incomplete ? (served.pending?.message ?? "the catalog list is incomplete") : undefined,
      has: (/** @type {string} */ hex) => unit.present.has(hex),
    };
  };
  const layoutHandler =
    layout === undefined ? undefined : createRequestHandler({ store: directoryLayoutStore(layout), basePath: LAYOUT_PREFIX });
  const pages = staticFiles({
    wwwRoot: resolve(www ?? join(PACKAGE_DIR, "www")),
    packageDir: PACKAGE_DIR,
    snapshotPath: resolve(snapshot),
  });
  /** @param {HandlerCounters} counters */
  const shape = (counters) => ({
    catalogVersion: served.unit.version,
    ...counters,
    snapshotLoads: served.snapshotLoads,
    catalogLoads: served.catalogLoads,
    reloadFailures: served.reloadFailures,
    versionRefusals: served.versionRefusals,
    pending: served.pending ?? null,
    deltas: { ...counters.deltas, historyLimit: deltaHistory, keptVersions: kept, lastBreak },
  });
  const handler = createRequestHandler({
    store,
    catalog: catalogView,
    snapshotPath: "snapshot",
    stats: { path: "stats", shape },
    maxBodyBytes: MAX_BODY_BYTES,
    bodyBudgetBytes,
    fallback: (request) =>
      layoutHandler !== undefined && new URL(request.url).pathname.startsWith(LAYOUT_PREFIX)
        ? layoutHandler(request)
        : pages(request),
  });
  const guarded =
    access === undefined
      ? handler
      : (await import("./serve-access.mjs")).guardHandler(handler, access, library, {
          maxBodyBytes: MAX_BODY_BYTES,
          bodyBudgetBytes,
          maxDigests: MAX_DIGESTS_PER_REQUEST,
        });
  /** @param {Request} request */
  const answer = async (request) => {
    // GET /snapshot's answer IS the file: wait for a replaced one to be read
    // (one read, shared by every request that arrives meanwhile).
    if (new URL(request.url).pathname === "/snapshot") await served.fresh(reloadWaitMs);
    return guarded(request);
  };

  const server = createServer(toNodeListener(answer));
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
      return shape(handler.stats());
    },
    close: () => {
      /** @type {Promise<void>} */
      const closed = new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      });
      return closed;
    },
  };
}

/**
 * --layout names a directory (its manifest may come later: until then /layout/ answers 404).
 * @param {string} dir
 */
async function checkDirectory(dir) {
  const { stat } = await import("node:fs/promises");
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--layout: expected a directory (publish --layout writes one), got ${dir}`);
}

/** @param {string[]} argv */
export async function serve(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  if (!values.snapshot || !values.catalog) throw new UsageError(`--snapshot and --catalog are required\n\n${HELP}`);
  const port = integerOption(values, "port", 0, 65535);
  const deltaHistory = integerOption(values, "delta-history", 0, MAX_DELTA_HISTORY);
  const bodyBudgetBytes = integerOption(values, "body-budget", 1, 4096) * 1024 * 1024;
  const catalogVersion =
    values["catalog-version"] === undefined ? undefined : integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  // After parsing: these read files through the library's size rules.
  const access = await (await import("./serve-access.mjs")).accessRequest(values);
  if (!["127.0.0.1", "localhost", "::1"].includes(values.host) && access?.tokens === undefined) {
    process.stderr.write(
      `serve: warning: listening on ${values.host}, not loopback, with no --token-file: anyone who reaches it may ask\n`,
    );
  }
  const onNotice = (/** @type {string} */ message) => process.stderr.write(`serve: ${message}\n`);
  // After parsing: key-file.mjs reads through the library's size rules.
  const key = await (await import("../key-file.mjs")).readKeyFile(values);
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
    ...(key === undefined ? {} : { key }),
    ...(access === undefined ? {} : { access }),
  });
  process.stdout.write(`listening on ${running.url}\n`);
  const stop = () => running.close().then(() => process.exit(0));
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return undefined;
}
