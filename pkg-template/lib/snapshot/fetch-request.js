// One GET of fetchSnapshot and what it reads from the answer, shared by the
// direct-URL path (snapshot-fetch.js) and the manifest path
// (manifest-fetch.js, docs/layout.md): the request with its validators and
// time limits, the response's facts (ETag, Last-Modified), a full ABF1 body
// loaded through loadSnapshotStream, and a body cut off mid-way as the
// failure networkError.

import { isNetworkFailure, networkFailure } from "../core/network-errors.js";
import { failure, success } from "../core/results.js";
import { startDeadline } from "../core/deadline.js";
import { typeError } from "../core/errors.js";
import { loadSnapshotStream } from "./snapshot-stream.js";
import { versionConflictFailure, versionConflictMessage } from "./version-conflict.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta } from "../types.js"
 * @import { FetchSnapshotDeltaOptions, FetchSnapshotResult } from "../delta-types.js"
 * @import { Timers } from "../client-types.js"
 */

/**
 * The instance manipulation a client asks for and accepts (RFC 3229 `A-IM`
 * / `IM`) for an ABD1 delta in answer to a conditional GET of a snapshot:
 * a server that offers deltas answers 226 with `IM: abd1`.
 */
export const DELTA_IM = "abd1";

/**
 * The Last-Modified dates this module read that are weak validators
 * (metaOf): `modifiedSince` never sends them.
 * @type {WeakSet<Date>}
 */
const WEAK_DATES = new WeakSet();

/**
 * Whether requests made here pass through a browser's HTTP cache (a page or
 * a web worker), which revalidates on its own: the manifest is then asked
 * for with `cache: "no-cache"` and no header of ours, so another origin needs
 * no preflight. Node, Deno, Bun and Workers have no such cache: there the
 * request carries the validators itself.
 */
const BROWSER_HTTP_CACHE =
  typeof globalThis.document !== "undefined" || typeof (/** @type {any} */ (globalThis).importScripts) === "function";

/**
 * The `lastModified` option as an HTTP date (a Date is formatted; a string is
 * sent as the host gave it, so a host comparing dates exactly matches it).
 *
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function modifiedSince(value) {
  if (value === undefined) return undefined;
  if (value instanceof Date && WEAK_DATES.has(value)) return undefined;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toUTCString();
  if (typeof value === "string" && value !== "" && !Number.isNaN(Date.parse(value))) return value;
  throw typeError("lastModified", "an HTTP date string or a valid Date", value);
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
 * @param {"conditional" | "manifest" | "file"} [plain] "manifest": in a browser, no validator
 *   of ours and `cache: "no-cache"` (the browser's cache revalidates); "file": an immutable
 *   layout file, no validator at all
 * @returns {Promise<{ kind: "response"; response: Response } | Extract<FetchSnapshotResult, { kind: "failure" }>>}
 */
export async function send(
  { url, options, fetchImpl, timeoutMs, timers, signal },
  etag,
  baseTag,
  askDelta,
  since,
  plain = "conditional",
) {
  /** @type {Record<string, string>} */
  const requestHeaders = { ...options.headers };
  const ownValidators = plain === "conditional" || (plain === "manifest" && !BROWSER_HTTP_CACHE);
  const tags = [...new Set([etag, baseTag].filter((tag) => typeof tag === "string" && tag !== ""))];
  if (ownValidators && tags.length > 0) requestHeaders["If-None-Match"] = tags.join(", ");
  else if (ownValidators && since !== undefined) requestHeaders["If-Modified-Since"] = since;
  if (askDelta) requestHeaders["A-IM"] = DELTA_IM;
  // The limit covers the wait for the response headers; the body gets an
  // idle limit (a large snapshot may take longer than timeoutMs).
  const deadline = startDeadline(signal, timeoutMs, timers, `GET ${url}`);
  try {
    return {
      kind: "response",
      response: await fetchImpl(url, {
        headers: requestHeaders,
        signal: deadline.signal,
        ...(plain === "manifest" && BROWSER_HTTP_CACHE ? { cache: "no-cache" } : {}),
      }),
    };
  } catch (error) {
    if (deadline.expired) return failure("timeout", /** @type {Error} */ (deadline.reason).message);
    if (signal?.aborted || !isNetworkFailure(error)) throw error;
    return networkFailure(`GET ${url}`, error);
  } finally {
    deadline.clear();
  }
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
export function metaOf(settings, response) {
  const header = response.headers.get("last-modified");
  const lastModified = header ? new Date(header) : undefined;
  const date = Date.parse(response.headers.get("date") ?? "");
  // RFC 9110 §8.8.2, "Comparison": a Last-Modified less than a second before the
  // answer's Date is weak. The file may change again within that second
  // keeping its date, so If-Modified-Since with it could be answered 304
  // for a newer file (a manifest rewritten by two publishes in one
  // second): such a date is kept for the snapshot's age, never sent.
  if (lastModified !== undefined && !(date - lastModified.getTime() >= 1000)) WEAK_DATES.add(lastModified);
  return { etag: response.headers.get("etag") ?? undefined, lastModified, source: String(settings.url) };
}

/**
 * A response that should carry the full ABF1 file (or a 304, or an error status).
 *
 * @param {FetchSettings} settings
 * @param {Response} response
 * @param {string | undefined} etag
 * @param {SnapshotMeta} [meta] what the loaded snapshot carries (default: this response's facts)
 * @returns {Promise<FetchSnapshotResult>}
 */
export async function loadResponse(settings, response, etag, meta = metaOf(settings, response)) {
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
      meta,
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
export async function bodyRead(settings, read) {
  try {
    return await read();
  } catch (error) {
    if (settings.signal?.aborted || !isNetworkFailure(error)) throw error;
    return networkFailure(`GET ${settings.url} (reading the body)`, error);
  }
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
export function againstBase(settings, base, result) {
  if (result.kind === "failure") return result;
  const conflict = versionConflictMessage(base, result.value, settings.url);
  return conflict === undefined ? result : versionConflictFailure(conflict, result.value, result.transfer);
}

/**
 * @param {FetchSnapshotResult} result
 * @param {number} deltaBytes what the unusable delta cost
 * @param {string} code why it was not used
 * @returns {FetchSnapshotResult}
 */
export function withDeltaFailure(result, deltaBytes, code) {
  if (result.kind === "failure") return result;
  const { transfer } = result;
  return { ...result, transfer: { ...transfer, bytes: transfer.bytes + deltaBytes, deltaFailure: code } };
}
