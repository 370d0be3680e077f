// SnapshotHolder: the seed's "currentSnapshot reference". A publisher builds
// and validates a complete snapshot, then swaps the reference in one
// assignment; a reader that already took the old snapshot keeps using it until
// it is done ("Reader A continues with 42, Reader B uses 43").
//
// The holder never serves an empty or half-loaded filter: a failed refresh
// keeps the previous snapshot and counts the failure. It never frees a
// replaced snapshot's filter either, because readers may still hold it; use
// the value `replace` returns, or `onReplace`, to free it once they are done.

import { describe, rangeError, typeError } from "./errors.js";
import { ArtifactBloomFilter } from "./filter.js";
import { adoptSnapshot } from "./metrics.js";
import { checkTimeout, DEFAULT_TIMEOUT_MS } from "./deadline.js";
import { checkStreamOptions, fetchSnapshot } from "./snapshot.js";

/**
 * @import {
 *   ArtifactIndexSnapshot,
 *   SnapshotHolderOptions,
 *   SnapshotLoaderResult,
 *   SnapshotPollingOptions,
 *   SnapshotRefreshResult,
 * } from "./types.js"
 */

/**
 * A listener `onReplace` registered.
 *
 * @typedef {(next: ArtifactIndexSnapshot, previous: ArtifactIndexSnapshot) => void} ReplaceListener
 */

/**
 * A loader `refreshFrom` runs.
 *
 * @typedef {(current: ArtifactIndexSnapshot) => SnapshotLoaderResult | Promise<SnapshotLoaderResult>} SnapshotLoader
 */

/**
 * A timer handle; Node's has `unref()` (a browser's is a number).
 *
 * @typedef {{ unref?: () => void } | undefined} NodeTimer
 */

/**
 * One `startPolling` run: its controller, the pending timer, and the
 * caller's signal with the listener that stops the session.
 *
 * @typedef {{
 *   controller: AbortController;
 *   timer: ReturnType<typeof setTimeout> | undefined;
 *   signal: AbortSignal | undefined;
 *   onAbort: () => void;
 * }} PollingSession
 */

/**
 * Internal: throws unless `snapshot` is `{ catalogVersion, filter }` with a
 * safe-integer catalogVersion ≥ 0 and a live (not freed) ArtifactBloomFilter.
 *
 * @param {unknown} snapshot
 * @param {string} [parameter] the argument's name, for the error
 * @returns {asserts snapshot is ArtifactIndexSnapshot}
 */
export function validateSnapshot(snapshot, parameter = "snapshot") {
  if (snapshot === null || typeof snapshot !== "object") {
    throw typeError(parameter, "an object { catalogVersion, filter }", snapshot);
  }
  const version = /** @type {{ catalogVersion?: unknown }} */ (snapshot).catalogVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0) {
    throw rangeError(`${parameter}.catalogVersion`, "an integer from 0 to 2^53 - 1", version);
  }
  const filter = /** @type {{ filter?: unknown }} */ (snapshot).filter;
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError(`${parameter}.filter`, "an ArtifactBloomFilter", filter);
  }
  if (filter.freed) throw rangeError(`${parameter}.filter`, "an ArtifactBloomFilter that is not freed", filter);
}

/**
 * @param {unknown} error
 * @returns {string}
 */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `value` when it is undefined or a function; else a TypeError naming `parameter`.
 *
 * @template {Function | undefined} T
 * @param {string} parameter
 * @param {T} value
 * @returns {T}
 */
function optionalFunction(parameter, value) {
  if (value !== undefined && typeof value !== "function") throw typeError(parameter, "a function", value);
  return value;
}

/**
 * The seed's atomically replaced "currentSnapshot reference". Publishes only
 * complete, validated snapshots (safe-integer catalogVersion ≥ 0, a filter
 * that is not freed) and, by default, only newer catalogVersions. A failed
 * refresh keeps the old snapshot in service — never an empty filter.
 *
 * The holder never frees a replaced snapshot's filter, because a reader may
 * still be using it: free it yourself once in-flight calls are done (e.g.
 * from `onReplace`, after a grace period), or let the GC reclaim it.
 *
 * @example
 * ```ts
 * const holder = new SnapshotHolder(initial);
 * holder.onReplace((next, previous) => setTimeout(() => previous.filter.free(), 60_000));
 * const result = await holder.refreshFrom(() => fetchSnapshot(url, { etag: holder.current().etag }));
 * if (result.outcome === "failure") log.warn(`snapshot refresh failed: ${result.message}`);
 * ```
 */
export class SnapshotHolder {
  /** @type {ArtifactIndexSnapshot} */
  #snapshot;
  /** @type {boolean} */
  #allowSameOrOlder;
  /** @type {() => number} */
  #now;
  /** @type {((error: unknown) => void) | undefined} */
  #onError;
  /** @type {Set<ReplaceListener>} */
  #listeners = new Set();
  #replaceCount = 0;
  #loadFailureCount = 0;
  #staleCount = 0;
  #notModifiedCount = 0;
  /** @type {Readonly<{ error: string; message: string; at: Date }> | undefined} */
  #lastFailure;
  /** @type {PollingSession | undefined} */
  #polling;
  // Snapshots that polling loaded itself (no caller holds them but the holder).
  /** @type {WeakSet<ArtifactIndexSnapshot>} */
  #owned = new WeakSet();

  /**
   * @param {ArtifactIndexSnapshot} initialSnapshot
   * @param {SnapshotHolderOptions} [options]
   * @throws {TypeError | RangeError} for an invalid snapshot or option.
   */
  constructor(initialSnapshot, options = {}) {
    validateSnapshot(initialSnapshot, "initialSnapshot");
    const { allowSameOrOlder = false, now = Date.now, onError } = options ?? {};
    if (typeof allowSameOrOlder !== "boolean") throw typeError("allowSameOrOlder", "a boolean", allowSameOrOlder);
    this.#allowSameOrOlder = allowSameOrOlder;
    this.#now = optionalFunction("now", now);
    this.#onError = optionalFunction("onError", onError);
    adoptSnapshot(initialSnapshot, this.#now());
    this.#snapshot = initialSnapshot;
  }

  /**
   * The snapshot in service. Take it once per query and use only that one.
   *
   * @returns {ArtifactIndexSnapshot}
   */
  current() {
    return this.#snapshot;
  }

  /**
   * Swaps in a validated snapshot, by default only a newer catalogVersion.
   * Returns the previous snapshot (not freed). Throws, keeping the old one,
   * when the snapshot is invalid or not newer.
   *
   * @param {ArtifactIndexSnapshot} snapshot
   * @returns {ArtifactIndexSnapshot} the previous snapshot (not freed)
   * @throws {RangeError} when its catalogVersion is not newer (unless
   *   `allowSameOrOlder`), or it is invalid (the old snapshot stays).
   */
  replace(snapshot) {
    validateSnapshot(snapshot);
    const previous = this.#snapshot;
    if (!this.#allowSameOrOlder && snapshot.catalogVersion <= previous.catalogVersion) {
      throw rangeError(
        "snapshot.catalogVersion",
        `newer than the catalogVersion in service (${previous.catalogVersion})`,
        snapshot.catalogVersion,
      );
    }
    // Reads the filter's numbers before the swap, so a failure here keeps the old.
    adoptSnapshot(snapshot, this.#now());
    this.#snapshot = snapshot;
    this.#replaceCount += 1;
    for (const listener of [...this.#listeners]) {
      // A listener's bug must not undo or interrupt a completed swap.
      try {
        listener(snapshot, previous);
      } catch (error) {
        this.#report(error);
      }
    }
    return previous;
  }

  /**
   * Calls `callback(next, previous)` after every swap; returns an unsubscribe function.
   *
   * @param {ReplaceListener} callback
   * @returns {() => void} unsubscribes `callback`
   */
  onReplace(callback) {
    if (typeof callback !== "function") throw typeError("callback", "a function", callback);
    this.#listeners.add(callback);
    return () => {
      this.#listeners.delete(callback);
    };
  }

  /**
   * Runs `loader(currentSnapshot)` (a snapshot load result, or a throw) and
   * swaps in a newer snapshot. Never rejects for a load problem: it answers
   * `{ replaced, outcome, error?, message? }` (see `SnapshotRefreshResult`).
   *
   * @param {SnapshotLoader} loader
   * @returns {Promise<SnapshotRefreshResult>}
   */
  async refreshFrom(loader) {
    if (typeof loader !== "function") {
      throw typeError("loader", "an async function returning a snapshot load result", loader);
    }
    return this.#refresh(loader, { owned: false });
  }

  // `owned`: the holder loaded the snapshot itself (polling), so nobody else
  // can hold a snapshot it declines, and it frees it. `signal`: a throw after
  // this signal aborted is the holder's own stop, not a load failure.
  /**
   * @param {SnapshotLoader} loader
   * @param {{ owned: boolean; signal?: AbortSignal; freeReplacedAfterMs?: number }} how
   * @returns {Promise<SnapshotRefreshResult>}
   */
  async #refresh(loader, { owned, signal, freeReplacedAfterMs }) {
    /** @type {SnapshotLoaderResult | undefined} */
    let result;
    try {
      result = await loader(this.#snapshot);
    } catch (error) {
      if (signal?.aborted) return { replaced: false, outcome: "aborted" };
      return this.#failed("loaderThrew", messageOf(error));
    }
    if (result?.kind === "failure") {
      // A 304 means the snapshot in service is still current: not a failure.
      if (result.error === "notModified") {
        this.#notModifiedCount += 1;
        return { replaced: false, outcome: "notModified" };
      }
      return this.#failed(String(result.error), String(result.message ?? result.error));
    }
    if (result?.kind !== "success") {
      return this.#failed("invalidLoadResult", `the loader must return a snapshot load result, got ${describe(result)}`);
    }
    const snapshot = result.value;
    // A snapshot the holder loaded itself and then declines has no other
    // owner: free it on every path that does not put it in service.
    const decline = () => {
      if (owned && snapshot?.filter instanceof ArtifactBloomFilter && snapshot.filter !== this.#snapshot.filter) {
        snapshot.filter.free();
      }
    };
    try {
      validateSnapshot(snapshot, "loaded snapshot");
    } catch (error) {
      decline();
      return this.#failed("invalidSnapshot", /** @type {Error} */ (error).message);
    }
    if (!this.#allowSameOrOlder && snapshot.catalogVersion <= this.#snapshot.catalogVersion) {
      // E.g. two refreshes raced, or a mirror lags: keep the newer one in service.
      this.#staleCount += 1;
      decline();
      return { replaced: false, outcome: "stale" };
    }
    /** @type {ArtifactIndexSnapshot} */
    let previous;
    try {
      previous = this.replace(snapshot);
    } catch (error) {
      decline();
      return this.#failed("invalidSnapshot", /** @type {Error} */ (error).message);
    }
    if (owned) this.#owned.add(snapshot);
    // Opt-in (polling): free a replaced snapshot that polling itself loaded,
    // once calls that started on it have had time to finish. Without it the
    // FinalizationRegistry frees it, whenever the GC gets to it.
    if (freeReplacedAfterMs !== undefined && this.#owned.has(previous)) {
      this.#owned.delete(previous);
      const timer = setTimeout(() => previous.filter.free(), freeReplacedAfterMs);
      /** @type {NodeTimer} */ (/** @type {unknown} */ (timer))?.unref?.();
    }
    return { replaced: true, outcome: "replaced" };
  }

  /**
   * Counts and records a failed refresh.
   *
   * @param {string} error
   * @param {string} message
   * @returns {SnapshotRefreshResult}
   */
  #failed(error, message) {
    this.#loadFailureCount += 1;
    this.#lastFailure = Object.freeze({ error, message, at: new Date(this.#now()) });
    return { replaced: false, outcome: "failure", error, message };
  }

  /**
   * Hands `error` to `onError`, if any (never throws).
   *
   * @param {unknown} error
   * @returns {void}
   */
  #report(error) {
    try {
      this.#onError?.(error);
    } catch {
      // The error hook itself failed; there is nowhere left to report to.
    }
  }

  /**
   * Swaps that happened (replace and successful refreshes).
   *
   * @returns {number}
   */
  get replaceCount() {
    return this.#replaceCount;
  }

  /**
   * Failed refreshes (`artifact_bloom.snapshot.load_failure.count`); the
   * previous snapshot stayed in service.
   *
   * @returns {number}
   */
  get loadFailureCount() {
    return this.#loadFailureCount;
  }

  /**
   * Refreshes that loaded a snapshot no newer than the one in service.
   *
   * @returns {number}
   */
  get staleCount() {
    return this.#staleCount;
  }

  /**
   * Refreshes answered "not modified" (HTTP 304).
   *
   * @returns {number}
   */
  get notModifiedCount() {
    return this.#notModifiedCount;
  }

  /**
   * `{ error, message, at }` of the last failed refresh, or undefined.
   *
   * @returns {Readonly<{ error: string; message: string; at: Date }> | undefined}
   */
  get lastFailure() {
    return this.#lastFailure;
  }

  /**
   * True while `startPolling` is active.
   *
   * @returns {boolean}
   */
  get polling() {
    return this.#polling !== undefined;
  }

  /**
   * Refreshes from `url` with `fetchSnapshot` every `intervalMs` (measured
   * from the end of the previous poll, so polls never overlap), sending
   * If-None-Match with the current snapshot's etag. Timers are unref()ed in
   * Node. A second call restarts polling with the new settings. A poll that
   * gets no headers, or no body bytes, for `timeoutMs` (default 30 s) is a
   * load failure with code "timeout": counted, the snapshot in service kept,
   * and polling goes on.
   *
   * @param {string | URL} url
   * @param {SnapshotPollingOptions} options
   * @returns {void}
   */
  startPolling(url, options) {
    if (typeof url !== "string" && !(typeof URL !== "undefined" && url instanceof URL)) {
      throw typeError("url", "a string or URL", url);
    }
    const {
      intervalMs, fetch, signal, headers, maxBytes, immediate = false, onRefresh, freeReplacedAfterMs,
      timeoutMs = DEFAULT_TIMEOUT_MS,
    } = options ?? {};
    // The same checks fetchSnapshot makes, up front: a bad option must fail
    // here, not as a download-then-fail on every poll.
    checkStreamOptions({ maxBytes });
    checkTimeout("timeoutMs", timeoutMs, DEFAULT_TIMEOUT_MS);
    if (headers !== undefined && (headers === null || typeof headers !== "object")) {
      throw typeError("headers", "an object of header strings", headers);
    }
    if (freeReplacedAfterMs !== undefined
      && (typeof freeReplacedAfterMs !== "number" || !Number.isFinite(freeReplacedAfterMs) || freeReplacedAfterMs < 0)) {
      throw rangeError("freeReplacedAfterMs", "a non-negative number of milliseconds", freeReplacedAfterMs);
    }
    if (typeof intervalMs !== "number" || !Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw rangeError("intervalMs", "a positive number of milliseconds", intervalMs);
    }
    optionalFunction("onRefresh", onRefresh);
    if (typeof (fetch ?? globalThis.fetch) !== "function") throw typeError("fetch", "a fetch function", fetch);
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw typeError("signal", "an AbortSignal", signal);
    this.stopPolling();
    if (signal?.aborted) return;

    const controller = new AbortController();
    /** @type {PollingSession} */
    const session = { controller, timer: undefined, signal, onAbort: () => this.#stopSession(session) };
    signal?.addEventListener("abort", session.onAbort, { once: true });
    this.#polling = session;

    /** @type {(current: ArtifactIndexSnapshot) => Promise<SnapshotLoaderResult>} */
    const load = async (current) => {
      const result = await fetchSnapshot(url, {
        etag: current.etag, fetch, headers, maxBytes, timeoutMs, signal: controller.signal,
      });
      if (controller.signal.aborted) {
        // Stopped while the body arrived: free it and change nothing.
        if (result.kind === "success") result.value.filter.free();
        throw controller.signal.reason;
      }
      return result;
    };
    /** @param {number} delay */
    const schedule = (delay) => {
      session.timer = setTimeout(tick, delay);
      /** @type {NodeTimer} */ (/** @type {unknown} */ (session.timer))?.unref?.(); // Node: polling must never keep the process alive.
    };
    const tick = async () => {
      session.timer = undefined;
      try {
        const outcome = await this.#refresh(load, { owned: true, signal: controller.signal, freeReplacedAfterMs });
        if (controller.signal.aborted) return;
        onRefresh?.(outcome);
      } catch (error) {
        this.#report(error);
      }
      if (!controller.signal.aborted) schedule(intervalMs);
    };
    schedule(immediate ? 0 : intervalMs);
  }

  /**
   * Stops polling and aborts a fetch in flight. Safe to call when not polling.
   *
   * @returns {void}
   */
  stopPolling() {
    if (this.#polling !== undefined) this.#stopSession(this.#polling);
  }

  /**
   * @param {PollingSession} session
   * @returns {void}
   */
  #stopSession(session) {
    if (this.#polling === session) this.#polling = undefined;
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.timer = undefined;
    session.signal?.removeEventListener("abort", session.onAbort);
    session.controller.abort();
  }
}
