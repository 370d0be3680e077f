// The existence API of `artifact-bloom serve`, over the app's own catalog
// (docs/server.md): `HEAD|GET blobs/sha256/<hex>?catalogVersion=N` (200 or
// 404) and `POST blobs:findMissing` ({ catalogVersion, digests } →
// { catalogVersion, missing }). Every answer is marked with the version it
// answers for (`artifact-bloom-catalog-version: N`): HttpArtifactRepository
// takes no unmarked answer, so a router's or a static host's 404 is never
// read as "absent".
//
// The version rules (docs/server.md "Versions"): "exists at N" is answered
// exactly when N is the catalog's version. For an older N it is answered
// only where the answer is certain — the catalog never deletes
// (`appendOnly`) and the digest is absent now, so it was absent at N too;
// a digest present now may have arrived after N, so any such question is
// refused with 409 and the versions that can be answered. A newer N (a
// client ahead of this server) is refused the same way.

import { typeError } from "../core/errors.js";
import { EXISTENCE_VERSION_HEADER as MARK } from "../repositories/http-repository.js";
import { readBoundedBody } from "./bounded-body.js";
import { errorResponse, jsonResponse } from "./http-answers.js";

/** @import { BodyBudget, HandlerStats } from "./handler-stats.js" */

/** The most digests one findMissing may ask about (as serve). */
export const MAX_DIGESTS_PER_REQUEST = 10_000;
/** The existence routes, below the handler's basePath. */
export const EXISTENCE_PATHS = [/^blobs\/sha256\/[^/]*$/, /^blobs:findMissing$/];
const DIGEST = /^[0-9a-f]{64}$/;

/**
 * The catalog the existence API answers from, complete for `catalogVersion`:
 * `has(hex)` says whether a digest (64 lowercase hex digits) is in it;
 * `hasMany(hexes)`, when given, answers a findMissing in one call. Either
 * may return a promise (a database query). `unavailable`, when set, says
 * why the view cannot answer now (its list is still incomplete, say): every
 * existence request is then answered 503 with Retry-After, unmarked — never
 * "absent" for a digest the list lacks.
 *
 * @typedef {{
 *   readonly catalogVersion: number;
 *   readonly unavailable?: string;
 *   has(hex: string): boolean | Promise<boolean>;
 *   hasMany?(hexes: readonly string[]): readonly boolean[] | Promise<readonly boolean[]>;
 * }} CatalogView
 */
/**
 * The `catalog` option: a view, or a function returning the current one
 * (each request asks once, so a swap between versions is atomic per request).
 * The function is told the catalogVersion the request names (undefined when
 * it names none), so a source that is loading that version may wait for it.
 *
 * @typedef {CatalogView | ((asked: { catalogVersion: number | undefined }) => CatalogView | Promise<CatalogView>)} CatalogOption
 */
/**
 * @typedef {{ catalog: CatalogOption; appendOnly: boolean; maxBodyBytes: number; budget: BodyBudget | undefined;
 *   stats: HandlerStats }} ExistenceSettings
 */

/**
 * @param {unknown} catalog
 * @returns {void}
 */
export function checkCatalogOption(catalog) {
  if (typeof catalog === "function") return;
  checkView(catalog);
}

/**
 * @param {unknown} view
 * @returns {asserts view is CatalogView}
 */
function checkView(view) {
  const candidate = /** @type {{ catalogVersion?: unknown; has?: unknown }} */ (view);
  if (view === null || typeof view !== "object" || typeof candidate.has !== "function") {
    throw typeError("catalog", "{ catalogVersion, has(hex) } or a function returning one", view);
  }
  if (!Number.isSafeInteger(candidate.catalogVersion) || /** @type {number} */ (candidate.catalogVersion) < 0) {
    throw typeError("catalog.catalogVersion", "an integer from 0 to 2^53 - 1", candidate.catalogVersion);
  }
}

/**
 * Answers an existence route (`path` matched EXISTENCE_PATHS).
 *
 * @param {Request} request
 * @param {URL} url
 * @param {string} path
 * @param {ExistenceSettings} settings
 * @returns {Promise<Response>}
 */
export async function answerExistence(request, url, path, settings) {
  if (path === "blobs:findMissing") return findMissing(request, settings);
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse(405, "methodNotAllowed", `${request.method} is not allowed here`, { allow: "GET, HEAD" });
  }
  settings.stats.existenceRequests += 1;
  const hex = path.slice("blobs/sha256/".length).toLowerCase();
  if (!DIGEST.test(hex)) return errorResponse(400, "invalidDigest", `expected 64 hex digits, got "${hex.slice(0, 80)}"`);
  settings.stats.countDigests([hex]);
  const asked = url.searchParams.get("catalogVersion") ?? "";
  // Digits only: Number("") would read a missing version as 0.
  const version = /^\d{1,16}$/.test(asked) && Number.isSafeInteger(Number(asked)) ? Number(asked) : undefined;
  const view = await currentView(settings.catalog, version);
  if (view.unavailable !== undefined) return unavailable(view);
  const verdict = await decide(view, [hex], version, settings.appendOnly);
  if (verdict === undefined) return mismatch(view, version);
  const exists = verdict[0];
  const marked = { [MARK]: String(version), "cache-control": "no-store" };
  if (request.method === "HEAD") return new Response(null, { status: exists ? 200 : 404, headers: marked });
  // The absent answer names its code as the OCI distribution spec does.
  const unknown = exists
    ? {}
    : { errors: [{ code: "BLOB_UNKNOWN", message: `blob unknown to catalogVersion ${version}`, detail: { digest: hex } }] };
  return jsonResponse(exists ? 200 : 404, { digest: hex, catalogVersion: version, exists, ...unknown }, marked);
}

/**
 * @param {Request} request
 * @param {ExistenceSettings} settings
 * @returns {Promise<Response>}
 */
async function findMissing(request, { catalog, appendOnly, maxBodyBytes, budget, stats }) {
  if (request.method !== "POST")
    return errorResponse(405, "methodNotAllowed", `${request.method} is not allowed here`, { allow: "POST" });
  stats.findMissingRequests += 1;
  const type = request.headers.get("content-type") ?? "";
  // A page on another origin can POST text/plain without a preflight: only JSON is read.
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return errorResponse(415, "unsupportedMediaType", `expected content-type application/json, got ${type || "none"}`);
  }
  const read = await readBoundedBody(request, maxBodyBytes, budget);
  if ("response" in read) return read.response;
  let text;
  try {
    text = new TextDecoder().decode(read.bytes);
  } finally {
    budget?.release(read.bytes.byteLength);
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return errorResponse(400, "invalidJson", `the body is not JSON: ${/** @type {Error} */ (error).message}`);
  }
  const digests = body?.digests;
  if (!Array.isArray(digests)) return errorResponse(400, "invalidDigest", 'expected { "catalogVersion": N, "digests": [hex…] }');
  if (digests.length > MAX_DIGESTS_PER_REQUEST) {
    return errorResponse(413, "tooManyDigests", `at most ${MAX_DIGESTS_PER_REQUEST} digests per request, got ${digests.length}`);
  }
  const hexes = [];
  for (const [index, digest] of digests.entries()) {
    const hex = typeof digest === "string" ? digest.toLowerCase() : "";
    if (!DIGEST.test(hex)) return errorResponse(400, "invalidDigest", `digests[${index}]: expected 64 hex digits`);
    hexes.push(hex);
  }
  stats.countDigests(hexes);
  const version = Number.isSafeInteger(body.catalogVersion) && body.catalogVersion >= 0 ? body.catalogVersion : undefined;
  const view = await currentView(catalog, version);
  if (view.unavailable !== undefined) return unavailable(view);
  const verdict = await decide(view, hexes, version, appendOnly);
  if (verdict === undefined) return mismatch(view, version);
  const missing = hexes.filter((_, index) => !verdict[index]);
  return jsonResponse(200, { catalogVersion: version, missing }, { [MARK]: String(version) });
}

/**
 * Presence of each of `hexes` at `version`, or undefined when that cannot
 * be answered exactly (the version rules above).
 *
 * @param {CatalogView} view
 * @param {readonly string[]} hexes
 * @param {number | undefined} version
 * @param {boolean} appendOnly
 * @returns {Promise<readonly boolean[] | undefined>}
 */
async function decide(view, hexes, version, appendOnly) {
  if (version === undefined || version > view.catalogVersion) return undefined;
  if (version < view.catalogVersion && !appendOnly) return undefined;
  const present = view.hasMany === undefined ? await Promise.all(hexes.map((hex) => view.has(hex))) : await view.hasMany(hexes);
  if (!Array.isArray(present) || present.length !== hexes.length) {
    throw new TypeError(`catalog.hasMany answered ${present?.length} values for ${hexes.length} digests`);
  }
  // Present now, asked about an older version: it may have arrived since.
  if (version < view.catalogVersion && present.some(Boolean)) return undefined;
  return present.map((value) => value === true);
}

/**
 * @param {CatalogView} view
 * @param {number | undefined} asked
 * @returns {Response}
 */
function mismatch(view, asked) {
  const current = view.catalogVersion;
  const message =
    asked === undefined
      ? `name the catalogVersion (this server answers for ${current})`
      : `this server answers for catalogVersion ${current}, not ${asked}`;
  return errorResponse(
    409,
    "catalogVersionMismatch",
    message,
    { [MARK]: String(current) },
    {
      catalogVersion: current,
      availableVersions: [current],
    },
  );
}

/**
 * A view that cannot answer now: 503, not marked (it is no answer).
 *
 * @param {CatalogView} view
 * @returns {Response}
 */
function unavailable(view) {
  return errorResponse(503, "catalogUnavailable", `${view.unavailable}; try again later`, {
    "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });
}

/**
 * @param {CatalogOption} option
 * @param {number | undefined} asked the version the request names
 * @returns {Promise<CatalogView>}
 */
async function currentView(option, asked) {
  const view = typeof option === "function" ? await option({ catalogVersion: asked }) : option;
  checkView(view);
  return view;
}

/** The Retry-After (seconds) of a 503 for a view that cannot answer now. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
