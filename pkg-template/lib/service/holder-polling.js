// SnapshotHolder.startPolling's loop, apart from the holder's swap logic:
// its option checks, and one polling session (fetch, refresh, schedule the
// next poll). Each poll passes the snapshot in service as fetchSnapshot's
// `base`, so a server that offers ABD1 deltas (docs/ABD1.md "HTTP") sends
// only what changed; the holder counts what each refresh cost. The fetch is
// the main entry's, asking for deltas; the delta module (its wasm and the
// apply) is loaded by a dynamic import() when the first delta arrives, so a
// page importing SnapshotHolder bundles no delta code up front. In Node the
// build maps that import to the delta entry's own bundle (delta/index.cjs),
// so the delta module is embedded and instantiated once.

import { checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS, startTimer } from "../core/deadline.js";
import { rangeError, typeError } from "../core/errors.js";
import { optionalFunction } from "./holder-checks.js";
import { _fetchSnapshotWith } from "../snapshot/snapshot-fetch.js";
import { checkStreamOptions } from "../snapshot/snapshot-stream.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotLoaderResult, SnapshotRefreshResult } from "../types.js"
 * @import { SnapshotDeltaPollingOptions, SnapshotTransfer } from "../delta-types.js"
 * @import { Timers } from "../client-types.js"
 */

/**
 * applySnapshotDelta, loaded on first use.
 *
 * @type {import("../snapshot/snapshot-fetch.js").ApplyDelta}
 */
async function applyDeltaLazily(base, deltaBytes, meta) {
  const { applySnapshotDelta } = await import("../delta/delta-apply.js");
  return applySnapshotDelta(base, deltaBytes, meta);
}

const fetchSnapshot = _fetchSnapshotWith(applyDeltaLazily);

/** ETags kept for the snapshot in service: one per origin behind a balancer, a few origins. */
const MAX_HELD_ETAGS = 4;

/**
 * One `startPolling` run: its controller, the pending timer's cancel, and
 * the caller's signal with the listener that stops the session.
 *
 * @typedef {{
 *   controller: AbortController;
 *   cancelTimer: () => void;
 *   signal: AbortSignal | undefined;
 *   onAbort: () => void;
 * }} PollingSession
 */

/**
 * What a session needs from its holder: the snapshot in service (the next
 * fetch's base), and where each fetch's result or throw goes. A poll runs
 * one way, session to holder: the holder hands the session nothing to call
 * back into it but these.
 *
 * @typedef {{
 *   current: () => ArtifactIndexSnapshot;
 *   settle: (result: SnapshotLoaderResult, how: { owned: boolean; freeReplacedAfterMs?: number; freeReplaced?: boolean }) => SnapshotRefreshResult;
 *   loaderThrew: (error: unknown) => SnapshotRefreshResult;
 *   report: (error: unknown) => void;
 *   stopped: (session: PollingSession) => void;
 * }} PollingHooks
 */

/**
 * startPolling's checks, up front: a bad option must fail at the call, not
 * as a download-then-fail on every poll.
 *
 * @param {unknown} url
 * @param {SnapshotDeltaPollingOptions} options
 * @returns {asserts url is string | URL}
 */
export function checkPolling(url, options) {
  if (typeof url !== "string" && !(typeof URL !== "undefined" && url instanceof URL)) {
    throw typeError("url", "a string or URL", url);
  }
  const {
    intervalMs,
    fetch,
    signal,
    headers,
    maxBytes,
    onRefresh,
    freeReplacedAfterMs,
    freeReplaced,
    timeoutMs,
    delta = true,
  } = options ?? {};
  checkStreamOptions({ maxBytes, key: options?.key });
  checkTimeout("timeoutMs", timeoutMs, DEFAULT_TIMEOUT_MS);
  checkTimers(options?.timers);
  if (headers !== undefined && (headers === null || typeof headers !== "object")) {
    throw typeError("headers", "an object of header strings", headers);
  }
  if (
    freeReplacedAfterMs !== undefined
    && (typeof freeReplacedAfterMs !== "number" || !Number.isFinite(freeReplacedAfterMs) || freeReplacedAfterMs < 0)
  ) {
    throw rangeError("freeReplacedAfterMs", "a non-negative number of milliseconds", freeReplacedAfterMs);
  }
  if (freeReplaced !== undefined && typeof freeReplaced !== "boolean") throw typeError("freeReplaced", "a boolean", freeReplaced);
  if (freeReplaced === true && freeReplacedAfterMs !== undefined) {
    throw typeError("freeReplaced", "not together with freeReplacedAfterMs (one way to free)", freeReplaced);
  }
  if (typeof intervalMs !== "number" || !Number.isFinite(intervalMs) || intervalMs <= 0) {
    throw rangeError("intervalMs", "a positive number of milliseconds", intervalMs);
  }
  if (typeof delta !== "boolean") throw typeError("delta", "a boolean", delta);
  optionalFunction("onRefresh", onRefresh);
  if (typeof (fetch ?? globalThis.fetch) !== "function") throw typeError("fetch", "a fetch function", fetch);
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw typeError("signal", "an AbortSignal", signal);
}

/**
 * Starts one session (options already checked): the first poll after
 * `intervalMs` (or at once with `immediate`), each next one `intervalMs`
 * after the previous ended, until the session's controller aborts.
 *
 * @param {string | URL} url
 * @param {SnapshotDeltaPollingOptions} options
 * @param {PollingHooks} hooks
 * @returns {PollingSession}
 */
export function startSession(url, options, hooks) {
  const {
    intervalMs,
    fetch,
    signal,
    headers,
    maxBytes,
    immediate = false,
    onRefresh,
    freeReplacedAfterMs,
    freeReplaced = false,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    delta = true,
  } = options;
  /** @type {Timers} */
  const timers = checkTimers(options.timers);
  const controller = new AbortController();
  /** @type {PollingSession} */
  const session = { controller, cancelTimer: () => {}, signal, onAbort: () => {} };
  session.onAbort = () => {
    hooks.stopped(session);
    stopSession(session);
  };
  signal?.addEventListener("abort", session.onAbort, { once: true });

  // The host's validators for the snapshot in service. They start as the
  // snapshot's own (its ETag; its Last-Modified only when it came from an
  // http(s) URL, not a file's mtime), and follow every download that
  // carries the checksum held: a byte-identical republish on a static host
  // changes the validator, not the content, and dropping the new one would
  // make every later poll a full download. Up to MAX_HELD_ETAGS ETags
  // are kept for the one checksum, all sent in If-None-Match: origins
  // behind a balancer each give their own ETag for the same file, and
  // remembering only the last would make every other poll a download.
  const held = hooks.current();
  /** @type {{ checksum: unknown; etags: string[]; lastModified: Date | undefined }} */
  let validators = {
    checksum: checksumOf(held),
    etags: held.etag === undefined ? [] : [held.etag],
    lastModified: /^https?:/i.test(String(held.source ?? "")) ? held.lastModified : undefined,
  };
  /**
   * The validators after an answer that carries the checksum held.
   * @param {string | undefined} etag
   * @param {Date | undefined} lastModified
   */
  const adopt = (etag, lastModified) => {
    const etags = etag === undefined ? validators.etags : [etag, ...validators.etags.filter((tag) => tag !== etag)];
    validators = { ...validators, etags: etags.slice(0, MAX_HELD_ETAGS), lastModified };
  };
  /** @type {(current: ArtifactIndexSnapshot) => Promise<SnapshotLoaderResult>} */
  const load = async (current) => {
    if (checksumOf(current) !== validators.checksum) {
      // Swapped in by another path (refreshFrom): its own validators.
      validators = {
        checksum: checksumOf(current),
        etags: current.etag === undefined ? [] : [current.etag],
        lastModified: undefined,
      };
    }
    const etag = validators.etags.length === 0 ? undefined : validators.etags.join(", ");
    const result = await fetchSnapshot(url, {
      etag,
      lastModified: etag === undefined ? validators.lastModified : undefined,
      base: delta ? current : undefined,
      fetch,
      headers,
      maxBytes,
      timeoutMs,
      // A keyed layout's snapshots load with the key; a delta's target with its base's.
      key: options.key,
      signal: controller.signal,
    });
    if (controller.signal.aborted) {
      // Stopped while the body arrived: free it and change nothing.
      if (result.kind === "success") result.value.filter.free();
      if (result.kind === "failure" && "snapshot" in result) result.snapshot.filter.free();
      throw controller.signal.reason;
    }
    return result;
  };
  /** @param {number} delay */
  const schedule = (delay) => {
    // startTimer unref()s the timer in Node: polling must never keep the process alive.
    session.cancelTimer = startTimer(timers, delay, tick);
  };
  /** @returns {Promise<SnapshotRefreshResult>} */
  const poll = async () => {
    /** @type {SnapshotLoaderResult} */
    let result;
    try {
      result = await load(hooks.current());
    } catch (error) {
      // A throw after the session's own stop is no load failure.
      if (controller.signal.aborted) return { replaced: false, outcome: "aborted" };
      return hooks.loaderThrew(error);
    }
    const loaded = result.kind === "success" ? result.value : undefined;
    const outcome = hooks.settle(result, { owned: true, freeReplacedAfterMs, freeReplaced });
    if (loaded !== undefined && checksumOf(loaded) === checksumOf(hooks.current())) {
      if (validators.checksum !== checksumOf(loaded))
        validators = { checksum: checksumOf(loaded), etags: [], lastModified: undefined };
      adopt(loaded.etag, loaded.lastModified);
    } else if (result.kind === "failure" && "etag" in result && (result.error === "notModified" || result.error === "stale")) {
      // A manifest that changed but names the snapshot held (a republish)
      // or an older one: its new validators make the next poll a 304.
      const fresh = /** @type {{ etag?: string; lastModified?: Date }} */ (result);
      adopt(fresh.etag, fresh.lastModified);
    }
    return outcome;
  };
  const tick = async () => {
    session.cancelTimer = () => {};
    try {
      const outcome = await poll();
      if (controller.signal.aborted) return;
      onRefresh?.(outcome);
    } catch (error) {
      hooks.report(error);
    }
    if (!controller.signal.aborted) schedule(intervalMs);
  };
  schedule(immediate ? 0 : intervalMs);
  return session;
}

/**
 * @param {ArtifactIndexSnapshot} snapshot
 * @returns {unknown} its ABF1 checksum (hex)
 */
function checksumOf(snapshot) {
  return /** @type {{ header?: { checksum?: unknown } }} */ (snapshot).header?.checksum;
}

/**
 * Stops `session`: its timer, its listener on the caller's signal, and a
 * fetch in flight.
 *
 * @param {PollingSession} session
 * @returns {void}
 */
export function stopSession(session) {
  session.cancelTimer();
  session.signal?.removeEventListener("abort", session.onAbort);
  session.controller.abort();
}

/** What the holder's downloads cost: deltas against full snapshots, and bytes. */
export class TransferCounts {
  deltaRefreshes = 0;
  fullRefreshes = 0;
  bytesTransferred = 0;
  bytesSaved = 0;

  /**
   * Counts one successful download (fetchSnapshot's `transfer`; a caller's
   * own loader may return none, which is not counted).
   *
   * @param {SnapshotTransfer | undefined} transfer
   * @returns {void}
   */
  count(transfer) {
    if (transfer === null || typeof transfer !== "object" || typeof transfer.bytes !== "number") return;
    if (transfer.delta) this.deltaRefreshes += 1;
    else this.fullRefreshes += 1;
    this.bytesTransferred += transfer.bytes;
    if (typeof transfer.fullBytes === "number") this.bytesSaved += Math.max(0, transfer.fullBytes - transfer.bytes);
  }
}
