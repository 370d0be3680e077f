// The server half as one Web-standard function, `(request) => Response`,
// that any app mounts (docs/server.md): the static layout's files
// (docs/layout.md) from a LayoutStore, with the headers a cache in front
// needs (docs/hosting.md), and the existence API of `artifact-bloom serve`
// (existence-api.js) over the app's own catalog. It imports nothing of
// Node: the same handler runs in Node (toNodeListener), Deno, Bun, a Worker
// or a Next.js route.

import { typeError } from "../core/errors.js";
import { LAYOUT_MANIFEST_MAX_BYTES } from "../layout/manifest.js";
import { answerCurrentSnapshot, EXPOSED_VALIDATORS } from "./current-snapshot.js";
import { answerExistence, checkCatalogOption, EXISTENCE_PATHS } from "./existence-api.js";
import { BodyBudget, HandlerStats } from "./handler-stats.js";
import { errorResponse, jsonResponse, withCors } from "./http-answers.js";

/**
 * @import { LayoutStore } from "./layout-store.js"
 * @import { CatalogOption } from "./existence-api.js"
 * @import { HandlerStatsSnapshot } from "./handler-stats.js"
 */

/** Cache-Control of a file named by its content: it never changes. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache-Control of manifest.json: a cache may keep it but must ask before each use. */
const REVALIDATE = "no-cache";
const HEX = "[0-9a-f]{64}";
const SNAPSHOT_NAME = new RegExp(`^snapshots/(${HEX})\\.abf1$`);
const DELTA_NAME = new RegExp(`^deltas/(${HEX})-(${HEX})\\.abd1$`);

/**
 * Options of `createRequestHandler`:
 * - `store`: the layout to serve (`directoryLayoutStore(dir)`,
 *   `bucketLayoutStore(bucket)`, or your own); without it no layout route.
 * - `catalog`: the existence API's catalog (see `CatalogOption`); without
 *   it no existence route.
 * - `basePath`: where the routes start (default "/"), e.g. "/catalog/".
 * - `cors`: "*" or a list of origins allowed to read the answers; default none.
 * - `appendOnly`: the catalog never deletes, so "absent now" proves "absent
 *   at every older version" (existence-api.js's version rules). Default false.
 * - `maxBodyBytes`: the largest findMissing body read (default 1 MiB).
 * - `bodyBudgetBytes`: findMissing body bytes buffered at once, all requests
 *   together; a body that would pass it is answered 503 with Retry-After.
 *   Default: no shared bound (each body is bounded by `maxBodyBytes`).
 * - `snapshotPath`: also serve the layout's current snapshot at this path
 *   below basePath (e.g. "snapshot"), with its checksum as ETag and the
 *   layout's deltas as "226 IM Used" to clients sending "A-IM: abd1" (needs
 *   `store`).
 * - `stats`: answer GET `stats.path` with the handler's counters as JSON
 *   (`HandlerStatsSnapshot`), shaped by `stats.shape` when given (to add the
 *   app's own fields). `handler.stats()` returns them in any case.
 * - `fallback`: answers the requests no route of the handler takes (instead
 *   of the JSON 404), e.g. an app's own pages.
 *
 * @typedef {{
 *   store?: LayoutStore;
 *   catalog?: CatalogOption;
 *   basePath?: string;
 *   cors?: "*" | readonly string[];
 *   appendOnly?: boolean;
 *   maxBodyBytes?: number;
 *   bodyBudgetBytes?: number;
 *   snapshotPath?: string;
 *   stats?: { path: string; shape?: (counters: HandlerStatsSnapshot) => unknown };
 *   fallback?: (request: Request) => Response | Promise<Response>;
 * }} RequestHandlerOptions
 */
/**
 * The handler: a Web `Request` in, a `Response` out, and its counters.
 *
 * @typedef {((request: Request) => Promise<Response>) & { stats(): HandlerStatsSnapshot }} RequestHandler
 */

/**
 * A request handler for the layout and the existence API: a Web `Request`
 * in, a `Response` out; anything else under `basePath` is a JSON 404, a
 * wrong method a 405 with `Allow`.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createRequestHandler, directoryLayoutStore, toNodeListener } from "artifact-bloom/server";
 * const handler = createRequestHandler({ store: directoryLayoutStore("public/catalog"), basePath: "/catalog/" });
 * createServer(toNodeListener(handler)).listen(8080);
 * ```
 *
 * @param {RequestHandlerOptions} options
 * @returns {RequestHandler}
 */
export function createRequestHandler(options) {
  if (options === null || typeof options !== "object") throw typeError("options", "an object", options);
  const { store, catalog, basePath = "/", cors, appendOnly = false, maxBodyBytes = 1024 * 1024 } = options;
  const { bodyBudgetBytes, snapshotPath, stats: statsRoute, fallback } = options;
  if (store !== undefined && (store === null || typeof store.read !== "function")) {
    throw typeError("store", "a LayoutStore (read, …)", store);
  }
  if (catalog !== undefined) checkCatalogOption(catalog);
  if (store === undefined && catalog === undefined) throw typeError("options", "a store, a catalog or both", options);
  if (typeof basePath !== "string" || !basePath.startsWith("/"))
    throw typeError("basePath", 'a path starting with "/"', basePath);
  if (cors !== undefined && cors !== "*" && !(Array.isArray(cors) && cors.every((origin) => typeof origin === "string"))) {
    throw typeError("cors", '"*" or a list of origins', cors);
  }
  if (typeof appendOnly !== "boolean") throw typeError("appendOnly", "a boolean", appendOnly);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw typeError("maxBodyBytes", "a positive integer", maxBodyBytes);
  if (bodyBudgetBytes !== undefined && (!Number.isSafeInteger(bodyBudgetBytes) || bodyBudgetBytes < 1)) {
    throw typeError("bodyBudgetBytes", "a positive integer", bodyBudgetBytes);
  }
  if (snapshotPath !== undefined && (typeof snapshotPath !== "string" || snapshotPath === "" || store === undefined)) {
    throw typeError("snapshotPath", "a non-empty path, with a store to read the snapshot from", snapshotPath);
  }
  if (
    statsRoute !== undefined
    && (typeof statsRoute?.path !== "string" || !["undefined", "function"].includes(typeof statsRoute.shape))
  ) {
    throw typeError("stats", "{ path, shape? }", statsRoute);
  }
  if (fallback !== undefined && typeof fallback !== "function") throw typeError("fallback", "a function", fallback);
  const base = basePath.endsWith("/") ? basePath : `${basePath}/`;
  const budget = bodyBudgetBytes === undefined ? undefined : new BodyBudget(bodyBudgetBytes);
  const stats = new HandlerStats(budget);
  const existence = catalog === undefined ? undefined : { catalog, appendOnly, maxBodyBytes, budget, stats };
  const routes = { store, existence, snapshotPath, statsRoute, stats, fallback };

  /** @param {Request} request */
  const handler = async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(base)) {
      const outside =
        fallback === undefined ? errorResponse(404, "notFound", `nothing at ${url.pathname}`) : await fallback(request);
      return withCors(request, cors, outside);
    }
    const path = decodeURIComponentSafe(url.pathname.slice(base.length));
    if (request.method === "OPTIONS" && cors !== undefined) return withCors(request, cors, new Response(null, { status: 204 }));
    let response;
    try {
      response = await route(request, url, path, routes);
    } catch (error) {
      // A store or catalog that failed: the request gets no answer, not a wrong one.
      response = errorResponse(500, "internalError", `could not answer: ${/** @type {Error} */ (error)?.message ?? error}`);
    }
    stats.countAnswer(response.status);
    return withCors(request, cors, response);
  };
  return Object.assign(handler, { stats: () => stats.snapshot() });
}

/**
 * @param {string} text
 * @returns {string | undefined}
 */
function decodeURIComponentSafe(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * @typedef {{
 *   store: LayoutStore | undefined;
 *   existence: import("./existence-api.js").ExistenceSettings | undefined;
 *   snapshotPath: string | undefined;
 *   statsRoute: RequestHandlerOptions["stats"];
 *   stats: HandlerStats;
 *   fallback: RequestHandlerOptions["fallback"];
 * }} Routes
 */

/**
 * @param {Request} request
 * @param {URL} url
 * @param {string | undefined} path below basePath, decoded
 * @param {Routes} routes
 * @returns {Promise<Response>}
 */
async function route(request, url, path, { store, existence, snapshotPath, statsRoute, stats, fallback }) {
  if (path === undefined) return errorResponse(400, "invalidPath", "the path is not valid percent-encoding");
  if (existence !== undefined && EXISTENCE_PATHS.some((pattern) => pattern.test(path))) {
    return answerExistence(request, url, path, existence);
  }
  if (store !== undefined && path === snapshotPath) {
    stats.snapshotRequests += 1;
    return answerCurrentSnapshot(request, store, stats);
  }
  if (statsRoute !== undefined && path === statsRoute.path) {
    if (request.method !== "GET") {
      return errorResponse(405, "methodNotAllowed", `${request.method} is not allowed here`, { allow: "GET" });
    }
    const counters = stats.snapshot();
    return jsonResponse(200, statsRoute.shape === undefined ? counters : statsRoute.shape(counters));
  }
  if (store !== undefined) {
    const snapshot = SNAPSHOT_NAME.exec(path);
    const delta = DELTA_NAME.exec(path);
    if (path === "manifest.json" || snapshot !== null || delta !== null) {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return errorResponse(405, "methodNotAllowed", `${request.method} is not allowed here`, { allow: "GET, HEAD" });
      }
      if (path === "manifest.json") return answerManifest(request, store);
      // The name is the content: its hex is the strong validator.
      const etag = snapshot !== null ? `"${snapshot[1]}"` : `"${delta?.[1]}-${delta?.[2]}"`;
      return answerImmutable(request, store, path, etag);
    }
  }
  return fallback === undefined ? errorResponse(404, "notFound", `nothing at ${url.pathname}`) : fallback(request);
}

/**
 * Whether the request's validators match (If-None-Match overrides
 * If-Modified-Since, RFC 9110 §13.1.3; weak tags compare as strong).
 *
 * @param {Request} request
 * @param {string} etag
 * @param {Date | undefined} modified
 * @returns {boolean}
 */
function notModified(request, etag, modified) {
  const match = request.headers.get("if-none-match");
  if (match !== null) {
    const tags = match.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
    return tags.includes(etag) || tags.includes("*");
  }
  const since = Date.parse(request.headers.get("if-modified-since") ?? "");
  return modified !== undefined && Number.isFinite(since) && Math.floor(modified.getTime() / 1000) * 1000 <= since;
}

/**
 * @param {Request} request
 * @param {LayoutStore} store
 * @returns {Promise<Response>}
 */
async function answerManifest(request, store) {
  const stored = await store.read("manifest.json");
  if (stored === undefined) return errorResponse(404, "notFound", "no manifest.json published yet");
  // A copy over its own ArrayBuffer: what crypto.subtle and Response take.
  const bytes = new Uint8Array(stored);
  if (bytes.byteLength > LAYOUT_MANIFEST_MAX_BYTES) {
    return errorResponse(
      500,
      "invalidLayout",
      `manifest.json is ${bytes.byteLength} bytes, over the format's ${LAYOUT_MANIFEST_MAX_BYTES}`,
    );
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const etag = `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
  const modified = await store.modified?.("manifest.json");
  const headers = {
    "cache-control": REVALIDATE,
    etag,
    "access-control-expose-headers": EXPOSED_VALIDATORS,
    ...(modified === undefined ? {} : { "last-modified": modified.toUTCString() }),
  };
  if (notModified(request, etag, modified)) return new Response(null, { status: 304, headers });
  const body = request.method === "HEAD" ? null : bytes;
  return new Response(body, {
    status: 200,
    headers: { ...headers, "content-type": "application/json", "content-length": String(bytes.byteLength) },
  });
}

/**
 * A snapshot or delta file: streamed when the store can (`open`), else read whole.
 *
 * @param {Request} request
 * @param {LayoutStore} store
 * @param {string} path
 * @param {string} etag
 * @returns {Promise<Response>}
 */
async function answerImmutable(request, store, path, etag) {
  const type = path.endsWith(".abd1") ? "application/vnd.artifact-bloom.abd1" : "application/octet-stream";
  const file = store.open === undefined ? await wholeFile(store, path) : await store.open(path);
  if (file === undefined) return errorResponse(404, "notFound", `no ${path} in the layout`);
  const headers = {
    "cache-control": IMMUTABLE,
    etag,
    "access-control-expose-headers": EXPOSED_VALIDATORS,
    ...(file.modified === undefined ? {} : { "last-modified": file.modified.toUTCString() }),
  };
  if (notModified(request, etag, file.modified) || request.method === "HEAD") {
    await file.body.cancel();
    if (request.method === "HEAD" && !notModified(request, etag, file.modified)) {
      return new Response(null, {
        status: 200,
        headers: { ...headers, "content-type": type, "content-length": String(file.size) },
      });
    }
    return new Response(null, { status: 304, headers });
  }
  return new Response(file.body, {
    status: 200,
    headers: { ...headers, "content-type": type, "content-length": String(file.size) },
  });
}

/**
 * A store without `open`: the file read whole, as a one-chunk stream.
 *
 * @param {LayoutStore} store
 * @param {string} path
 * @returns {Promise<import("./layout-store.js").OpenedFile | undefined>}
 */
async function wholeFile(store, path) {
  const bytes = await store.read(path);
  if (bytes === undefined) return undefined;
  const modified = await store.modified?.(path);
  return {
    size: bytes.byteLength,
    modified,
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
  };
}
