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

import { checkSignal, checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS, startDeadline } from "../core/deadline.js";
import { typeError } from "../core/errors.js";
import { isNetworkFailure, networkFailure } from "../core/network-errors.js";
import { failure, success } from "../core/results.js";
import { ABF1_HEADER_LENGTH } from "./snapshot-core.js";
import { checkSnapshot } from "./snapshot-checks.js";
import { checkStreamOptions, loadSnapshotStream, readWholeBody } from "./snapshot-stream.js";
import { versionConflictFailure, versionConflictMessage } from "./version-conflict.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta, SnapshotResult } from "../types.js"
 * @import { FetchSnapshotDeltaOptions, FetchSnapshotResult } from "../delta-types.js"
 * @import { Timers } from "../client-types.js"
 */

/**
 * The instance manipulation asked for and accepted (RFC 3229 `A-IM` / `IM`);
 * `artifact-bloom serve` offers the same token (node-entry.js `_DELTA_IM`).
 * @internal
 */
export const DELTA_IM = "abd1";

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
 * The `lastModified` option as an HTTP date (a Date is formatted; a string is
 * sent as the host gave it, so a host comparing dates exactly matches it).
 *
 * @param {unknown} value
 * @returns {string | undefined}
 */
function modifiedSince(value) {
  if (value === undefined) return undefined;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toUTCString();
  if (typeof value === "string" && value !== "" && !Number.isNaN(Date.parse(value))) return value;
  throw typeError("lastModified", "an HTTP date string or a valid Date", value);
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
  // A base's checksum as If-None-Match helps only `artifact-bloom serve`
  // (its ETag is the checksum); a static host never matches it, and any
  // If-None-Match makes a host ignore If-Modified-Since (RFC 9110
  // §13.1.3). So with a Last-Modified from the host and no ETag, the
  // request is conditional on that date alone: a host that sends no ETag
  // is not serve, which always does.
  const baseTag = base === undefined || (etag === undefined && since !== undefined) ? undefined : baseTagOf(base);
  const askDelta = applyDelta !== undefined && baseTag !== undefined;
  const answered = await send(settings, etag, baseTag, askDelta, since);
  if (answered.kind === "failure") return answered;
  const { response } = answered;
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
 * A full snapshot loaded while the caller holds `base`: the failure
 * `versionConflict` when it has base's catalogVersion but another checksum.
 *
 * @param {FetchSettings} settings
 * @param {ArtifactIndexSnapshot} base
 * @param {FetchSnapshotResult} result
 * @returns {FetchSnapshotResult}
 */
function againstBase(settings, base, result) {
  if (result.kind === "failure") return result;
  const conflict = versionConflictMessage(base, result.value, settings.url);
  return conflict === undefined ? result : versionConflictFailure(conflict, result.value, result.transfer);
}

/**
 * @typedef {{
 *   url: string | URL;
 *   options: FetchSnapshotDeltaOptions;
 *   fetchImpl: typeof fetch;
 *   timeoutMs: number;
 *   timers: Timers;
 *   signal: AbortSignal | undefined;
 * }} FetchSettings
 */

/**
 * One GET: `{ kind: "response" }`, or the timeout or networkError failure
 * (a caller's abort rejects with its reason).
 *
 * @param {FetchSettings} settings
 * @param {string | undefined} etag
 * @param {string | undefined} baseTag the base's tag: the request is conditional on it too
 * @param {boolean} askDelta asks for a delta from the instance with that tag
 * @param {string} [since] an HTTP date sent as If-Modified-Since when no tag is sent
 * @returns {Promise<{ kind: "response"; response: Response } | Extract<FetchSnapshotResult, { kind: "failure" }>>}
 */
async function send({ url, options, fetchImpl, timeoutMs, timers, signal }, etag, baseTag, askDelta, since) {
  /** @type {Record<string, string>} */
  const requestHeaders = { ...options.headers };
  const tags = [...new Set([etag, baseTag].filter((tag) => typeof tag === "string" && tag !== ""))];
  if (tags.length > 0) requestHeaders["If-None-Match"] = tags.join(", ");
  else if (since !== undefined) requestHeaders["If-Modified-Since"] = since;
  if (askDelta) requestHeaders["A-IM"] = DELTA_IM;
  // The limit covers the wait for the response headers; the body gets an
  // idle limit (a large snapshot may take longer than timeoutMs).
  const deadline = startDeadline(signal, timeoutMs, timers, `GET ${url}`);
  try {
    return { kind: "response", response: await fetchImpl(url, { headers: requestHeaders, signal: deadline.signal }) };
  } catch (error) {
    if (deadline.expired) return failure("timeout", /** @type {Error} */ (deadline.reason).message);
    if (signal?.aborted || !isNetworkFailure(error)) throw error;
    return networkFailure(`GET ${url}`, error);
  } finally {
    deadline.clear();
  }
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
 * @param {FetchSnapshotResult} result
 * @param {number} deltaBytes what the unusable delta cost
 * @param {string} code why it was not used
 * @returns {FetchSnapshotResult}
 */
function withDeltaFailure(result, deltaBytes, code) {
  if (result.kind === "failure") return result;
  const { transfer } = result;
  return { ...result, transfer: { ...transfer, bytes: transfer.bytes + deltaBytes, deltaFailure: code } };
}

/**
 * What a 304 matched, for its message.
 *
 * @param {Response} response
 * @param {string | undefined} etag
 * @returns {string}
 */
function validatorOf(response, etag) {
  const tag = etag ?? response.headers.get("etag");
  if (tag) return `ETag ${tag}`;
  const date = response.headers.get("last-modified");
  return date ? `Last-Modified ${date}` : "no validator named";
}

/**
 * The snapshot's facts from the response headers.
 *
 * @param {FetchSettings} settings
 * @param {Response} response
 * @returns {{ etag: string | undefined; lastModified: Date | undefined; source: string }}
 */
function metaOf(settings, response) {
  const lastModified = response.headers.get("last-modified");
  return {
    etag: response.headers.get("etag") ?? undefined,
    lastModified: lastModified ? new Date(lastModified) : undefined,
    source: String(settings.url),
  };
}

/**
 * A response that should carry the full ABF1 file (or a 304, or an error status).
 *
 * @param {FetchSettings} settings
 * @param {Response} response
 * @param {string | undefined} etag
 * @returns {Promise<FetchSnapshotResult>}
 */
async function loadResponse(settings, response, etag) {
  const { url, options, timeoutMs, timers, signal } = settings;
  if (response.status === 304) {
    await response.body?.cancel();
    return failure("notModified", `the snapshot at ${url} has not changed (${validatorOf(response, etag)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    return failure("httpError", `GET ${url} answered ${response.status} ${response.statusText}`, { status: response.status });
  }
  const declared = Number(response.headers.get("content-length"));
  const onProgress = options.onProgress;
  let received = 0;
  const loaded = await bodyRead(settings, () =>
    loadSnapshotStream(response, {
      ...options,
      meta: metaOf(settings, response),
      signal,
      idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
      timers,
      onProgress: (p) => {
        received = p.bytes;
        // Before the header arrives, the Content-Length is the best total we have.
        onProgress?.({ bytes: p.bytes, total: p.total ?? (declared || undefined) });
      },
    }),
  );
  if (loaded.kind === "failure") return loaded;
  return success(loaded.value, { transfer: { bytes: received, delta: false, fullBytes: received } });
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

/**
 * Reads a response body with `read`: a connection that breaks mid-body
 * (fetch's body stream errors with a TypeError, e.g. "terminated" with an
 * ECONNRESET cause) is the failure `networkError`, not a rejection. The
 * stream options were checked before the request, so no other TypeError
 * comes from `read`; a caller's abort still rejects.
 *
 * @template T
 * @param {FetchSettings} settings
 * @param {() => Promise<T>} read
 * @returns {Promise<T | ReturnType<typeof networkFailure>>}
 */
async function bodyRead(settings, read) {
  try {
    return await read();
  } catch (error) {
    if (settings.signal?.aborted || !isNetworkFailure(error)) throw error;
    return networkFailure(`GET ${settings.url} (reading the body)`, error);
  }
}
