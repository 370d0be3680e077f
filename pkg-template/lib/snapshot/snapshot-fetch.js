// ABF1 snapshots fetched from a URL (browsers and Node's global fetch), as
// the full file or, given a `base` the caller holds, as an ABD1 delta from it
// (RFC 3229 delta encoding; docs/ABD1.md "HTTP").
//
// The main entry's fetchSnapshot asks for no delta (it carries no ABD1
// code); `artifact-bloom/delta`'s does: ./delta-fetch.js makes it with
// `_fetchSnapshotWith(applySnapshotDelta)`, so this module never imports the
// delta module.
//
// The delta path can only save bytes, never change the answer: the server
// names what it sends (`226 IM Used`, `IM: abd1`), applySnapshotDelta checks
// the result against the target's ABF1 checksum, and anything else — a
// server that ignores A-IM, another instance manipulation, a delta that does
// not apply — ends in the full snapshot.

import { checkSignal, checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS } from "../core/deadline.js";
import { typeError } from "../core/errors.js";
import { failure, success } from "../core/results.js";
import { againstBase, bodyRead, DELTA_IM, loadResponse, metaOf, modifiedSince, send, withDeltaFailure } from "./fetch-request.js";
import { followManifest, isManifestResponse, isManifestUrl } from "./manifest-fetch.js";
import { ABF1_HEADER_LENGTH } from "./snapshot-core.js";
import { checkSnapshot } from "./snapshot-checks.js";
import { checkStreamOptions, readWholeBody } from "./snapshot-stream.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta, SnapshotResult } from "../types.js"
 * @import { FetchSnapshotDeltaOptions, FetchSnapshotResult } from "../delta-types.js"
 * @import { FetchSettings } from "./fetch-request.js"
 */

/**
 * The entity tag that names `base` to a server: the ETag it was fetched with
 * (the server's own name for that version), else its ABF1 checksum (what
 * `artifact-bloom serve` uses as ETag, so a snapshot loaded from a file can
 * be named too); undefined when it has neither.
 *
 * @param {ArtifactIndexSnapshot & { header?: { checksum?: unknown } }} base
 * @returns {string | undefined}
 */
function baseTagOf(base) {
  if (typeof base.etag === "string" && base.etag !== "") return base.etag;
  const checksum = base.header?.checksum;
  return typeof checksum === "string" ? `"${checksum}"` : undefined;
}

/**
 * @param {string | null} header the response's IM header
 * @returns {boolean}
 */
function usedDelta(header) {
  return (header ?? "").split(",").some((token) => token.trim().toLowerCase() === DELTA_IM);
}

/**
 * Fetches and loads a snapshot (browsers and Node's global fetch). Options
 * are loadSnapshotStream's plus `etag` (sent as If-None-Match: a 304 answers
 * `{ kind: "failure", error: "notModified" }`), `headers`, `fetch` and
 * `timeoutMs` (default 30 000; Infinity for none): no response headers within
 * it, or no body bytes for that long (unless `idleTimeoutMs` says otherwise),
 * answers `{ kind: "failure", error: "timeout" }` and drops the connection.
 * A slow download that keeps sending is not cut off; bound the whole load
 * with `signal: AbortSignal.timeout(…)` if that is wanted. Redirects are
 * followed: unlike an existence answer, the file proves itself (magic,
 * checksum, catalogVersion). The snapshot carries `etag` and `lastModified`
 * from the response; an `httpError` failure carries the `status`. A request
 * that gets no HTTP answer (connection refused or reset, a redirect loop, a
 * body cut off) answers `{ kind: "failure", error: "networkError", causeCode }`
 * (e.g. "ECONNRESET", "UND_ERR_SOCKET", "redirectCountExceeded"; absent
 * where the platform gives none); a caller's abort still rejects.
 *
 * With `base` (a loaded snapshot), the request is conditional on it too
 * (its ETag, else its checksum, joins If-None-Match: a 304 answers
 * `notModified`), but asks for no ABD1 delta: the main entry carries no delta
 * code. `fetchSnapshot` of `artifact-bloom/delta` takes the same arguments
 * and also asks for a delta from `base` (`A-IM: abd1`). A success's
 * `transfer` says how many bytes came (`delta` is false here). A server
 * snapshot with base's catalogVersion but another checksum is not a success
 * but the failure `versionConflict` (someone republished that version with
 * other digests): it carries the server's verified snapshot as `snapshot`
 * (adopt it, as SnapshotHolder does, or free it).
 *
 * A URL that answers with a layout manifest (docs/layout.md; a path ending
 * in `.json`, or a JSON answer) is followed: the manifest is asked for
 * conditionally on `etag` / `lastModified` (in a browser with
 * `cache: "no-cache"` and no header of the package's own, so another origin
 * needs only `Access-Control-Allow-Origin: *`); with `base`, a manifest that
 * names base's checksum answers `notModified` and one naming an older
 * version `stale` (both carry the manifest's new `etag` and `lastModified`),
 * else the delta the manifest lists from base is fetched and applied (the
 * delta entry's fetchSnapshot and SnapshotHolder), else the full snapshot.
 * Either must carry the manifest's checksum. The snapshot's `etag` and
 * `lastModified` are the manifest's: pass them back on the next call.
 *
 * @example
 * ```ts
 * const loaded = await fetchSnapshot("/snapshot", { base: current });
 * if (loaded.kind === "failure" && loaded.error === "notModified") console.log("still current");
 * ```
 *
 * @param {string | URL} url
 * @param {FetchSnapshotDeltaOptions} [options]
 * @returns {Promise<FetchSnapshotResult>}
 */
export function fetchSnapshot(url, options = {}) {
  return fetchWith(undefined, url, options);
}

/**
 * How a delta-capable fetch applies a `226 IM Used` body: `applySnapshotDelta`'s signature.
 *
 * It may answer through a promise: SnapshotHolder loads the delta module
 * only when the first `226` arrives (a dynamic import), so a page that
 * never receives a delta never downloads the delta code.
 *
 * @typedef {(base: ArtifactIndexSnapshot, deltaBytes: Uint8Array, meta: SnapshotMeta) =>
 *   SnapshotResult | { kind: "failure"; error: string; message: string }
 *   | Promise<SnapshotResult | { kind: "failure"; error: string; message: string }>} ApplyDelta
 */

/**
 * A fetchSnapshot that asks for ABD1 deltas from `base` and applies them
 * with `applyDelta` (internal: `artifact-bloom/delta` makes its fetchSnapshot
 * with it, so the main entry's modules never import the delta module).
 *
 * @internal
 * @param {ApplyDelta} applyDelta
 * @returns {(url: string | URL, options?: FetchSnapshotDeltaOptions) => Promise<FetchSnapshotResult>}
 */
export function _fetchSnapshotWith(applyDelta) {
  return (url, options = {}) => fetchWith(applyDelta, url, options);
}

/**
 * fetchSnapshot, asking for a delta when `applyDelta` is given.
 *
 * @param {ApplyDelta | undefined} applyDelta
 * @param {string | URL} url
 * @param {FetchSnapshotDeltaOptions} options
 * @returns {Promise<FetchSnapshotResult>}
 */
async function fetchWith(applyDelta, url, options) {
  options ??= {};
  const { etag, headers = {}, fetch: fetchImpl = globalThis.fetch, base } = options;
  if (typeof fetchImpl !== "function") throw typeError("fetch", "a fetch function", fetchImpl);
  if (headers === null || typeof headers !== "object") throw typeError("headers", "an object of header strings", headers);
  checkStreamOptions(options);
  if (base !== undefined) checkSnapshot("base", base);
  const timeoutMs = checkTimeout("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const timers = checkTimers(options.timers);
  const signal = checkSignal(options.signal);
  const settings = { url, options, fetchImpl, timeoutMs, timers, signal };
  const since = modifiedSince(options.lastModified);
  // A URL ending in .json names a layout manifest (docs/layout.md): asked
  // for with its own validator only (none of ours in a browser), never a
  // delta by RFC 3229. Another URL whose answer turns out to be a manifest
  // is followed too.
  const manifestUrl = isManifestUrl(url);
  // A base's checksum as If-None-Match helps only `artifact-bloom serve`
  // (its ETag is the checksum); a static host never matches it, and any
  // If-None-Match makes a host ignore If-Modified-Since (RFC 9110
  // §13.1.3). So with a Last-Modified from the host and no ETag, the
  // request is conditional on that date alone: a host that sends no ETag
  // is not serve, which always does.
  const baseTag = base === undefined || manifestUrl || (etag === undefined && since !== undefined) ? undefined : baseTagOf(base);
  const askDelta = applyDelta !== undefined && baseTag !== undefined;
  const answered = await send(settings, etag, baseTag, askDelta, since, manifestUrl ? "manifest" : "conditional");
  if (answered.kind === "failure") return answered;
  const { response } = answered;
  if (response.ok && response.status !== 226 && (manifestUrl || isManifestResponse(response))) {
    return followManifest(settings, response, base, applyDelta);
  }
  if (base === undefined) return loadResponse(settings, response, etag);
  if (!askDelta || response.status !== 226) return againstBase(settings, base, await loadResponse(settings, response, etag));
  if (!usedDelta(response.headers.get("im"))) {
    await response.body?.cancel();
    return againstBase(settings, base, withDeltaFailure(await fullAgain(settings, etag), 0, "unexpectedInstanceManipulation"));
  }
  const delta = await readDelta(settings, response, base, applyDelta);
  // An applied delta's target is newer than its base (the format requires it): no conflict possible.
  if (delta.kind === "success") return delta;
  // The delta cost its bytes and was no use: the full file, once.
  return againstBase(settings, base, withDeltaFailure(await fullAgain(settings, etag), delta.bytes, delta.error));
}

/**
 * The full snapshot, asked for again without A-IM.
 *
 * @param {FetchSettings} settings
 * @param {string | undefined} etag
 * @returns {Promise<FetchSnapshotResult>}
 */
async function fullAgain(settings, etag) {
  const answered = await send(settings, etag, undefined, false, modifiedSince(settings.options.lastModified));
  return answered.kind === "failure" ? answered : loadResponse(settings, answered.response, etag);
}

/**
 * A `226 IM Used` body: the ABD1 delta from `base`, applied. At most the
 * size of the base's own file is read (a useful delta is smaller than the
 * full snapshot, whose layout is the base's), and at most `maxBytes`.
 *
 * @param {FetchSettings} settings
 * @param {Response} response
 * @param {ArtifactIndexSnapshot & { header?: { payloadLength?: unknown } }} base
 * @param {ApplyDelta} applyDelta
 * @returns {Promise<Extract<FetchSnapshotResult, { kind: "success" }>
 *   | { kind: "failure"; error: string; message: string; bytes: number }>}
 */
async function readDelta(settings, response, base, applyDelta) {
  const { options, timeoutMs, timers, signal } = settings;
  const payloadLength = base.header?.payloadLength;
  const fullBytes = typeof payloadLength === "number" ? ABF1_HEADER_LENGTH + payloadLength : Infinity;
  const body = await bodyRead(settings, () =>
    readWholeBody(response, {
      maxBytes: Math.min(options.maxBytes ?? Infinity, fullBytes),
      signal,
      idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
      timers,
    }),
  );
  if (body.kind === "failure") return { ...body, bytes: 0 };
  const bytes = body.value.byteLength;
  options.onProgress?.({ bytes, total: bytes });
  const applied = await applyDelta(base, body.value, metaOf(settings, response));
  if (applied.kind === "failure") {
    return failure(applied.error, applied.message, { bytes });
  }
  const target = applied.value.header;
  return success(applied.value, { transfer: { bytes, delta: true, fullBytes: ABF1_HEADER_LENGTH + target.payloadLength } });
}
