// fetchSnapshot of a layout manifest (docs/layout.md "What a client does on
// each poll"): the manifest, then nothing more when it names the checksum
// held, else the delta from the held checksum (one plain GET, applied and
// checked against the manifest's checksum), else the full snapshot (one
// plain GET, checked the same way). The snapshot and delta files are
// immutable and named by checksum, so those GETs carry no validator and no
// header of ours: a browser on another origin needs only
// `Access-Control-Allow-Origin: *`, and its HTTP cache may keep them.
//
// Every answer is proved by the bytes, never by the manifest alone: the
// loaded snapshot's ABF1 checksum (which covers its header) must equal the
// manifest's, or the load fails. A manifest can make a client download
// something it did not need, never hold a snapshot other than the one named.

import { failure, success } from "../core/results.js";
import { LAYOUT_MANIFEST_MAX_BYTES, parseLayoutManifest } from "../layout/manifest.js";
import { againstBase, bodyRead, loadResponse, metaOf, send, withDeltaFailure } from "./fetch-request.js";
import { readWholeBody } from "./snapshot-stream.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta } from "../types.js"
 * @import { FetchSnapshotResult } from "../delta-types.js"
 * @import { FetchSettings } from "./fetch-request.js"
 * @import { ApplyDelta } from "./snapshot-fetch.js"
 * @import { LayoutDeltaEntry, LayoutManifest } from "../layout/manifest.js"
 */

/**
 * Whether `url` names a manifest by its path (`…/manifest.json`, any `.json`):
 * such a URL is asked for as a manifest from the first request on.
 *
 * @param {string | URL} url
 * @returns {boolean}
 */
export function isManifestUrl(url) {
  const path = url instanceof URL ? url.pathname : String(url).split(/[?#]/, 1)[0];
  return path.toLowerCase().endsWith(".json");
}

/**
 * Whether a 2xx answer is JSON (`application/json`, `application/…+json`):
 * a manifest served under another name is followed too.
 *
 * @param {Response} response
 * @returns {boolean}
 */
export function isManifestResponse(response) {
  const type = (response.headers.get("content-type") ?? "").trim().toLowerCase();
  return /^application\/(?:[\w.-]+\+)?json(?:$|[;\s])/.test(type);
}

/**
 * @param {ArtifactIndexSnapshot} snapshot
 * @returns {unknown}
 */
function checksumOf(snapshot) {
  return /** @type {{ header?: { checksum?: unknown } }} */ (snapshot).header?.checksum;
}

/**
 * The manifest's validators, carried by a notModified or stale answer so
 * that a poller conditions its next request on them.
 *
 * @param {SnapshotMeta} meta
 */
function validatorsOf(meta) {
  return { etag: meta.etag, lastModified: meta.lastModified };
}

/**
 * `reference` resolved against the manifest's URL (after redirects), or undefined.
 *
 * @param {string} reference
 * @param {Response} response
 * @param {string | URL} url
 * @returns {string | undefined}
 */
function resolveAgainst(reference, response, url) {
  try {
    const where = new URL(response.url || String(url), /** @type {any} */ (globalThis).location?.href);
    return new URL(reference, where).href;
  } catch {
    return undefined;
  }
}

/**
 * Why `snapshot` is not the one `manifest` names, or undefined when it is.
 *
 * @param {ArtifactIndexSnapshot} snapshot
 * @param {LayoutManifest} manifest
 * @param {string} url where it came from
 * @returns {{ error: "checksumMismatch" | "invalidManifest"; message: string } | undefined}
 */
function mismatch(snapshot, manifest, url) {
  const checksum = checksumOf(snapshot);
  if (checksum !== manifest.snapshot.checksum) {
    return {
      error: "checksumMismatch",
      message: `${url} holds the snapshot with checksum ${checksum}, not the ${manifest.snapshot.checksum} its manifest names`,
    };
  }
  if (snapshot.catalogVersion !== manifest.catalogVersion) {
    return {
      error: "invalidManifest",
      message: `the manifest names catalogVersion ${manifest.catalogVersion}, but its snapshot ${url} has ${snapshot.catalogVersion}`,
    };
  }
  return undefined;
}

/**
 * Follows a manifest that `response` (a 2xx) carries.
 *
 * @param {FetchSettings} settings
 * @param {Response} response
 * @param {ArtifactIndexSnapshot | undefined} base
 * @param {ApplyDelta | undefined} applyDelta
 * @returns {Promise<FetchSnapshotResult>}
 */
export async function followManifest(settings, response, base, applyDelta) {
  const { url, options, timeoutMs, timers, signal } = settings;
  const idleTimeoutMs = options.idleTimeoutMs ?? timeoutMs;
  const body = await bodyRead(settings, () =>
    readWholeBody(response, { maxBytes: LAYOUT_MANIFEST_MAX_BYTES, signal, idleTimeoutMs, timers }),
  );
  if (body.kind === "failure") {
    return body.error === "tooLarge" ? failure("invalidManifest", `the manifest at ${url}: ${body.message}`) : body;
  }
  const parsed = parseLayoutManifest(body.value);
  if (parsed.kind === "failure") return failure(parsed.error, `the manifest at ${url}: ${parsed.message}`);
  const manifest = parsed.value;
  const manifestBytes = body.value.byteLength;
  const meta = metaOf(settings, response);
  const held = base === undefined ? undefined : checksumOf(base);
  if (base !== undefined && held === manifest.snapshot.checksum) {
    const message = `the manifest at ${url} names the snapshot held (catalogVersion ${manifest.catalogVersion})`;
    return failure("notModified", message, validatorsOf(meta));
  }
  if (base !== undefined && manifest.catalogVersion < base.catalogVersion) {
    const message = `the manifest at ${url} names catalogVersion ${manifest.catalogVersion}, older than the ${base.catalogVersion} held`;
    return failure("stale", message, validatorsOf(meta));
  }
  let deltaCost = 0;
  /** @type {string | undefined} */
  let deltaFailure;
  const entry =
    base === undefined || applyDelta === undefined ? undefined : manifest.deltas.find((delta) => delta.baseChecksum === held);
  if (base !== undefined && applyDelta !== undefined && entry !== undefined) {
    const delta = await fetchDelta(settings, response, { entry, base, applyDelta, meta, manifest });
    if (delta.kind === "success") {
      return success(delta.value, {
        transfer: { bytes: manifestBytes + delta.bytes, delta: true, fullBytes: manifest.snapshot.size },
      });
    }
    deltaCost = delta.bytes;
    deltaFailure = delta.error;
  }
  const full = await fetchFull(settings, response, manifest, meta);
  if (full.kind === "failure") return full;
  /** @type {FetchSnapshotResult} */
  let result = success(full.value, {
    transfer: { bytes: manifestBytes + full.transfer.bytes, delta: false, fullBytes: full.transfer.bytes },
  });
  if (deltaFailure !== undefined) result = withDeltaFailure(result, deltaCost, deltaFailure);
  return base === undefined ? result : againstBase(settings, base, result);
}

/**
 * The delta the manifest lists from the held snapshot: read whole (at most
 * its listed size), applied to `base`, and checked against the manifest.
 * A failure says what it cost (`bytes`), so the full download that follows
 * is counted with it.
 *
 * @param {FetchSettings} settings
 * @param {Response} manifestResponse
 * @param {{ entry: LayoutDeltaEntry; base: ArtifactIndexSnapshot; applyDelta: ApplyDelta; meta: SnapshotMeta;
 *   manifest: LayoutManifest }} step
 * @returns {Promise<{ kind: "success"; value: ArtifactIndexSnapshot & { header: any }; bytes: number }
 *   | { kind: "failure"; error: string; message: string; bytes: number }>}
 */
async function fetchDelta(settings, manifestResponse, { entry, base, applyDelta, meta, manifest }) {
  const deltaUrl = resolveAgainst(entry.url, manifestResponse, settings.url);
  if (deltaUrl === undefined) return failure("invalidManifest", `the delta URL ${entry.url} does not resolve`, { bytes: 0 });
  const request = { ...settings, url: deltaUrl };
  const answered = await send(request, undefined, undefined, false, undefined, "file");
  if (answered.kind === "failure") return { ...answered, bytes: 0 };
  const { response } = answered;
  if (!response.ok) {
    await response.body?.cancel();
    return failure("httpError", `GET ${deltaUrl} answered ${response.status} ${response.statusText}`, { bytes: 0 });
  }
  const { options, timeoutMs, timers, signal } = settings;
  const body = await bodyRead(request, () =>
    readWholeBody(response, {
      maxBytes: Math.min(options.maxBytes ?? Infinity, entry.size),
      signal,
      idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
      timers,
    }),
  );
  if (body.kind === "failure") return { ...body, bytes: 0 };
  const bytes = body.value.byteLength;
  if (bytes !== entry.size) {
    return failure("lengthMismatch", `${deltaUrl} has ${bytes} bytes, not the ${entry.size} its manifest lists`, { bytes });
  }
  options.onProgress?.({ bytes, total: bytes });
  const applied = await applyDelta(base, body.value, meta);
  if (applied.kind === "failure") return failure(applied.error, applied.message, { bytes });
  const wrong = mismatch(applied.value, manifest, deltaUrl);
  if (wrong !== undefined) {
    applied.value.filter.free();
    return failure(wrong.error, wrong.message, { bytes });
  }
  return { kind: "success", value: applied.value, bytes };
}

/**
 * The snapshot the manifest names: at most its listed size, loaded, checked.
 *
 * @param {FetchSettings} settings
 * @param {Response} manifestResponse
 * @param {LayoutManifest} manifest
 * @param {SnapshotMeta} meta
 * @returns {Promise<FetchSnapshotResult>}
 */
async function fetchFull(settings, manifestResponse, manifest, meta) {
  const snapshotUrl = resolveAgainst(manifest.snapshot.url, manifestResponse, settings.url);
  if (snapshotUrl === undefined) return failure("invalidManifest", `the snapshot URL ${manifest.snapshot.url} does not resolve`);
  const maxBytes = Math.min(settings.options.maxBytes ?? Infinity, manifest.snapshot.size);
  const request = { ...settings, url: snapshotUrl, options: { ...settings.options, maxBytes } };
  const answered = await send(request, undefined, undefined, false, undefined, "file");
  if (answered.kind === "failure") return answered;
  const loaded = await loadResponse(request, answered.response, undefined, meta);
  if (loaded.kind === "failure") return loaded;
  const wrong = mismatch(loaded.value, manifest, snapshotUrl);
  if (wrong === undefined) return loaded;
  loaded.value.filter.free();
  return failure(wrong.error, wrong.message);
}
