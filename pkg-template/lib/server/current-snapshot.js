// The layout's current snapshot at one fixed URL (createRequestHandler's
// `snapshotPath`), for clients that fetch a snapshot URL rather than the
// manifest: `fetchSnapshot(url, { base })` and the browser page of
// `artifact-bloom serve`. The answer is the file the manifest names, with
// its ABF1 checksum as the ETag; a client naming an earlier version in
// If-None-Match with "A-IM: abd1" gets "226 IM Used" and the layout's delta
// from that version (RFC 3229, docs/ABD1.md "HTTP"), so a poll costs a 304
// or a delta, never a second full file. Everything comes from the store
// that the publisher (publishToLayout) wrote: no second copy of the history.

import { parseLayoutManifest } from "../layout/manifest.js";
import { DELTA_IM } from "../snapshot/fetch-request.js";
import { errorResponse } from "./http-answers.js";

/**
 * @import { LayoutStore } from "./layout-store.js"
 * @import { HandlerStats } from "./handler-stats.js"
 */

/**
 * The validators a page on another origin may read, on every snapshot and
 * layout answer: without ETag among them, a page cannot name the version it
 * holds. A proxy or host in front that adds Access-Control-Allow-Origin
 * (the handler's own `cors` option aside) then needs no other setting.
 */
export const EXPOSED_VALIDATORS = "ETag, Last-Modified, IM, Delta-Base";
/**
 * A 226 fits only the client whose If-None-Match named its base: replayed to
 * another, it cannot load (an outage until the cache entry expires). Vary
 * says so to a cache that honours it; these say it to caches set to ignore
 * Vary and Cache-Control: nginx still obeys X-Accel-Expires (0: do not store)
 * unless told to ignore it too, and CDNs obey Surrogate-Control.
 */
const NEVER_SHARED = { "cache-control": "private, no-store", "x-accel-expires": "0", "surrogate-control": "no-store" };

/**
 * GET/HEAD of the current snapshot: 304 when If-None-Match names it, 226
 * with a delta when A-IM accepts abd1 and If-None-Match names a version the
 * manifest has a delta from (and the delta is smaller than the file), else
 * the full file (200).
 *
 * @param {Request} request
 * @param {LayoutStore} store
 * @param {HandlerStats | undefined} stats
 * @returns {Promise<Response>}
 */
export async function answerCurrentSnapshot(request, store, stats) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse(405, "methodNotAllowed", `${request.method} is not allowed here`, { allow: "GET, HEAD" });
  }
  const manifestBytes = await store.read("manifest.json");
  if (manifestBytes === undefined) return errorResponse(404, "notFound", "no snapshot published yet");
  const parsed = parseLayoutManifest(manifestBytes);
  if (parsed.kind === "failure") {
    return errorResponse(500, "invalidLayout", `manifest.json does not read (${parsed.error}): ${parsed.message}`);
  }
  const manifest = parsed.value;
  const etag = `"${manifest.snapshot.checksum}"`;
  const modified = await store.modified?.(manifest.snapshot.url);
  // Vary: a cache must not answer one client's delta request with another's.
  /** @type {Record<string, string>} */
  const headers = {
    "cache-control": "no-store",
    etag,
    vary: "A-IM, If-None-Match",
    "access-control-expose-headers": EXPOSED_VALIDATORS,
    ...(modified === undefined ? {} : { "last-modified": modified.toUTCString() }),
  };
  const tags = entityTags(request.headers.get("if-none-match"));
  if (tags.includes(etag) || tags.includes("*")) return new Response(null, { status: 304, headers });
  if (acceptsDelta(request.headers.get("a-im"))) {
    // The first named version the manifest has a delta from; too far behind
    // (a delta not smaller than the file) is the full file.
    const entry = manifest.deltas.find(
      (delta) => tags.includes(`"${delta.baseChecksum}"`) && delta.size < manifest.snapshot.size,
    );
    const bytes = entry === undefined ? undefined : await store.read(entry.url);
    if (entry !== undefined && bytes !== undefined) {
      stats?.countDelta(bytes.byteLength);
      return new Response(request.method === "HEAD" ? null : new Uint8Array(bytes), {
        status: 226,
        headers: {
          ...headers,
          ...NEVER_SHARED,
          im: DELTA_IM,
          "delta-base": `"${entry.baseChecksum}"`,
          "content-type": "application/vnd.artifact-bloom.abd1",
          "content-length": String(bytes.byteLength),
        },
      });
    }
    if (tags.length > 0) stats?.countFullFallback();
  }
  const file = store.open === undefined ? await store.read(manifest.snapshot.url) : await store.open(manifest.snapshot.url);
  if (file === undefined) return errorResponse(404, "notFound", `no ${manifest.snapshot.url} in the layout`);
  const size = file instanceof Uint8Array ? file.byteLength : file.size;
  const fullHeaders = { ...headers, "content-type": "application/octet-stream", "content-length": String(size) };
  if (request.method === "HEAD") {
    if (!(file instanceof Uint8Array)) await file.body.cancel();
    return new Response(null, { status: 200, headers: fullHeaders });
  }
  return new Response(file instanceof Uint8Array ? new Uint8Array(file) : file.body, { status: 200, headers: fullHeaders });
}

/**
 * The entity tags of an If-None-Match header (`*` included as is; weak tags compare as strong).
 *
 * @param {string | null} header
 * @returns {string[]}
 */
function entityTags(header) {
  if (header === null) return [];
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .filter((tag) => tag !== "");
}

// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Whether an A-IM header accepts the ABD1 instance manipulation: an `abd1`
 * item whose weight, if any, is a qvalue above 0. `q=0`, `q=0.0`, `q=0.000`
 * (and, leniently, `q = 0`) mean "not acceptable"; a malformed weight is not
 * taken as acceptance either (the full file is always a correct answer).
 *
 * @param {string | null | undefined} header
 * @returns {boolean}
 */
export function acceptsDelta(header) {
  if (typeof header !== "string") return false;
  return header.split(",").some((item) => {
    const [name, ...params] = item.split(";").map((part) => part.trim().toLowerCase());
    if (name !== DELTA_IM) return false;
    const weight = params.map((param) => /^q\s*=\s*(.*)$/.exec(param)).find((match) => match !== null);
    if (weight === undefined) return true;
    return QVALUE.test(weight[1]) && Number(weight[1]) > 0;
  });
}
