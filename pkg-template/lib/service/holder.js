// SnapshotHolder: the reference to the snapshot in service. A publisher builds
// and validates a complete snapshot, then swaps the reference in one
// assignment; a reader that already took the old snapshot keeps using it until
// it is done ("Reader A continues with 42, Reader B uses 43").
//
// The holder never serves an empty or half-loaded filter: a failed refresh
// keeps the previous snapshot and counts the failure.

import { describe, rangeError, typeError } from "../core/errors.js";
import { ArtifactBloomFilter } from "../filter/filter.js";
import { adoptSnapshot } from "./metrics.js";
import { freeLater, messageOf, optionalFunction, sameContent } from "./holder-checks.js";
import { SnapshotLeases } from "./holder-leases.js";
import { checkPolling, startSession, stopSession, TransferCounts } from "./holder-polling.js";
import { checkSnapshot } from "../snapshot/snapshot-checks.js";
import { assertKeyOf, checkKey } from "../snapshot/snapshot-key.js";
import { conflictAsLoaded, versionConflictMessage } from "../snapshot/version-conflict.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotHolderOptions, SnapshotLoaderResult, SnapshotRefreshResult } from "../types.js"
 * @import { SnapshotDeltaPollingOptions, SnapshotTransfer } from "../delta-types.js"
 * @import { PollingSession } from "./holder-polling.js"
 * @import { ReplaceListener, SnapshotLoader } from "./holder-checks.js"
 */

/**
 * The reference to the snapshot in service, replaced atomically. Publishes only
 * complete, validated snapshots (safe-integer catalogVersion ≥ 0, a filter
 * that is not freed) and, by default, only newer catalogVersions. A failed
 * refresh keeps the old snapshot in service — never an empty filter.
 *
 * The holder frees a replaced snapshot only when polling loaded it and
 * `startPolling`'s `freeReplaced` (after its last lease: `use`, `lease`)
 * or `freeReplacedAfterMs` says so; other snapshots are the caller's to free
 * (e.g. from `onReplace`), or the GC's.
 *
 * A refresh that loads the catalogVersion in service with another checksum
 * (the version was republished with other digests) is the failure
 * "versionConflict" (counted, in `lastFailure`), and the holder adopts the
 * loaded snapshot: the server checks "maybe" at that version against that
 * catalog, so the old filter's "absent" could be wrong (version-conflict.js).
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
  #versionConflictCount = 0;
  #transfers = new TransferCounts();
  /** @type {Readonly<{ error: string; message: string; at: Date }> | undefined} */
  #lastFailure;
  /** @type {PollingSession | undefined} */
  #polling;
  // Snapshots that polling loaded itself (no caller holds them but the holder).
  /** @type {WeakSet<ArtifactIndexSnapshot>} */
  #owned = new WeakSet();
  #leases = new SnapshotLeases();
  // The key of a keyed layout, for polling's loads. Private: toJSON, inspect
  // and spreads of the holder never see it.
  /** @type {Uint8Array | undefined} */
  #key;

  /**
   * @param {ArtifactIndexSnapshot} initialSnapshot
   * @param {SnapshotHolderOptions} [options]
   * @throws {TypeError | RangeError} for an invalid snapshot or option.
   */
  constructor(initialSnapshot, options = {}) {
    checkSnapshot("initialSnapshot", initialSnapshot);
    const { allowSameOrOlder = false, now = Date.now, onError, key } = options ?? {};
    if (typeof allowSameOrOlder !== "boolean") throw typeError("allowSameOrOlder", "a boolean", allowSameOrOlder);
    checkKey(key);
    // A copy: a caller that later zeroes or reuses its buffer changes nothing here.
    if (key !== undefined) {
      assertKeyOf("initialSnapshot", initialSnapshot.filter, key);
      this.#key = key.slice();
    }
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
   * Runs `use(snapshot)` with the snapshot in service, leased until the
   * promise it returns settles: with polling's `freeReplaced`, a replaced
   * snapshot is freed only after its last lease ends.
   *
   * @template T
   * @param {(snapshot: ArtifactIndexSnapshot) => T | Promise<T>} use
   * @returns {Promise<T>}
   */
  async use(use) {
    if (typeof use !== "function") throw typeError("use", "a function of the snapshot", use);
    const { snapshot, release } = this.lease();
    try {
      return await use(snapshot);
    } finally {
      release();
    }
  }

  /**
   * The snapshot in service and a lease on it; call `release()` once done
   * (`use` does both). A lease never released keeps that snapshot's memory.
   *
   * @returns {{ snapshot: ArtifactIndexSnapshot; release: () => void }}
   */
  lease() {
    const snapshot = this.#snapshot;
    return { snapshot, release: this.#leases.acquire(snapshot) };
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
    checkSnapshot("snapshot", snapshot);
    if (!this.#admits(snapshot)) {
      throw rangeError(
        "snapshot.catalogVersion",
        `newer than the catalogVersion in service (${this.#snapshot.catalogVersion})`,
        snapshot.catalogVersion,
      );
    }
    return this.#swap(snapshot);
  }

  /**
   * The one "is it newer" rule: whether `snapshot` may follow the one in
   * service (a greater catalogVersion, or any with `allowSameOrOlder`).
   *
   * @param {ArtifactIndexSnapshot} snapshot a checked snapshot
   * @returns {boolean}
   */
  #admits(snapshot) {
    return this.#allowSameOrOlder || snapshot.catalogVersion > this.#snapshot.catalogVersion;
  }

  /**
   * The swap itself, for a checked snapshot the caller admitted.
   *
   * @param {ArtifactIndexSnapshot} snapshot
   * @returns {ArtifactIndexSnapshot} the previous snapshot (not freed)
   */
  #swap(snapshot) {
    const previous = this.#snapshot;
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
    /** @type {SnapshotLoaderResult | undefined} */
    let result;
    try {
      result = await loader(this.#snapshot);
    } catch (error) {
      return this.#failed("loaderThrew", messageOf(error));
    }
    return this.#settle(result, { owned: false });
  }

  /**
   * A load's result: swapped in, or counted as what kept it out. `owned`: polling loaded it, so it frees what it declines.
   *
   * @param {SnapshotLoaderResult | undefined} result
   * @param {{ owned: boolean; freeReplacedAfterMs?: number; freeReplaced?: boolean }} how
   * @returns {SnapshotRefreshResult}
   */
  #settle(result, { owned, freeReplacedAfterMs, freeReplaced = false }) {
    if (result?.kind === "failure") {
      // A 304 means the snapshot in service is still current: not a failure.
      if (result.error === "notModified") {
        this.#notModifiedCount += 1;
        return { replaced: false, outcome: "notModified" };
      }
      // A manifest naming an older version than the one in service (a CDN
      // edge or an origin behind): nothing was downloaded, nothing changes.
      if (result.error === "stale") {
        this.#staleCount += 1;
        return { replaced: false, outcome: "stale" };
      }
      result = conflictAsLoaded(result);
      if (result.kind === "failure") return this.#failed(String(result.error), String(result.message ?? result.error));
    }
    if (result?.kind !== "success") {
      return this.#failed("invalidLoadResult", `the loader must return a snapshot load result, got ${describe(result)}`);
    }
    this.#transfers.count(/** @type {{ transfer?: SnapshotTransfer }} */ (result).transfer);
    const snapshot = result.value;
    // A snapshot the holder loaded itself and then declines has no other
    // owner: free it on every path that does not put it in service.
    const decline = () => {
      if (owned && snapshot?.filter instanceof ArtifactBloomFilter && snapshot.filter !== this.#snapshot.filter) {
        snapshot.filter.free();
      }
    };
    try {
      checkSnapshot("loaded snapshot", snapshot);
    } catch (error) {
      decline();
      return this.#failed("invalidSnapshot", /** @type {Error} */ (error).message);
    }
    const conflict = versionConflictMessage(this.#snapshot, snapshot, /** @type {{ source?: string }} */ (snapshot).source);
    if (conflict === undefined && !this.#admits(snapshot)) {
      decline();
      // The very snapshot in service (a byte-identical republish: polling adopts its validators), or an older one.
      const unchanged = sameContent(snapshot, this.#snapshot);
      if (unchanged) this.#notModifiedCount += 1;
      else this.#staleCount += 1;
      return { replaced: false, outcome: unchanged ? "notModified" : "stale" };
    }
    /** @type {ArtifactIndexSnapshot} */
    let previous;
    try {
      // Checked and admitted above (a conflict is adopted, see the class
      // comment), with no await since: swap without checking again.
      previous = this.#swap(snapshot);
    } catch (error) {
      decline();
      return this.#failed("invalidSnapshot", /** @type {Error} */ (error).message);
    }
    if (owned) this.#owned.add(snapshot);
    // Opt-in (polling): free a replaced snapshot that polling itself loaded,
    // once calls that started on it have had time to finish. Without it the
    // FinalizationRegistry frees it, whenever the GC gets to it.
    if (freeReplaced && this.#owned.delete(previous)) this.#leases.retire(previous);
    else if (freeReplacedAfterMs !== undefined && this.#owned.delete(previous)) freeLater(previous, freeReplacedAfterMs);
    if (conflict === undefined) return { replaced: true, outcome: "replaced" };
    this.#versionConflictCount += 1;
    this.#failed("versionConflict", conflict);
    return { replaced: true, outcome: "failure", error: "versionConflict", message: conflict };
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

  /** Swaps that happened (replace and successful refreshes). */
  get replaceCount() {
    return this.#replaceCount;
  }

  /**
   * Failed refreshes (`artifact_bloom.snapshot.load_failure.count`); the
   * previous snapshot stayed in service.
   */
  get loadFailureCount() {
    return this.#loadFailureCount;
  }

  /** Refreshes that loaded a snapshot older than the one in service. */
  get staleCount() {
    return this.#staleCount;
  }

  /**
   * Refreshes that loaded the catalogVersion in service with another
   * checksum (also counted in `loadFailureCount`): the version was
   * republished with other digests; the loaded snapshot was adopted.
   */
  get versionConflictCount() {
    return this.#versionConflictCount;
  }

  /** Refreshes that changed nothing: HTTP 304, or the snapshot in service downloaded again. */
  get notModifiedCount() {
    return this.#notModifiedCount;
  }

  /** Downloads rebuilt from an ABD1 delta (a `226 IM Used`, or a layout's delta file) that applied. */
  get deltaRefreshCount() {
    return this.#transfers.deltaRefreshes;
  }

  /** Downloads of the full snapshot (no delta offered, or one that did not apply). */
  get fullRefreshCount() {
    return this.#transfers.fullRefreshes;
  }

  /** Body bytes of every counted download (deltas and full snapshots). */
  get bytesTransferred() {
    return this.#transfers.bytesTransferred;
  }

  /** Bytes deltas saved: per download, the full snapshot's size minus what was transferred. */
  get bytesSaved() {
    return this.#transfers.bytesSaved;
  }

  /** @returns {Readonly<{ error: string; message: string; at: Date }> | undefined} the last failed refresh */
  get lastFailure() {
    return this.#lastFailure;
  }

  /** @returns {boolean} true while `startPolling` is active */
  get polling() {
    return this.#polling !== undefined;
  }

  /**
   * Refreshes from `url` with `fetchSnapshot` every `intervalMs` (measured
   * from the end of the previous poll, so polls never overlap), conditional
   * on the host's validators for the snapshot held. `url` may be a layout's
   * `manifest.json` (docs/layout.md: one conditional GET a poll, then the
   * delta file from the held checksum) or a snapshot URL (a server offering
   * RFC 3229 deltas sends only what changed). The delta code is imported on
   * the first delta. Timers are unref()ed in Node. A second call restarts
   * polling. A poll that gets no headers, or no body bytes, for `timeoutMs`
   * (default 30 s) is a load failure "timeout": counted, the snapshot in
   * service kept, polling goes on. `delta: false` never asks for deltas;
   * `deltaRefreshCount`, `fullRefreshCount`, `bytesTransferred` and
   * `bytesSaved` count the cost.
   *
   * @param {string | URL} url
   * @param {SnapshotDeltaPollingOptions} options
   * @returns {void}
   */
  startPolling(url, options) {
    checkPolling(url, options);
    this.stopPolling();
    if (options.signal?.aborted) return;
    const keyed = options.key === undefined && this.#key !== undefined ? { ...options, key: this.#key } : options;
    this.#polling = startSession(url, keyed, {
      current: () => this.#snapshot,
      settle: (result, how) => this.#settle(result, how),
      loaderThrew: (error) => this.#failed("loaderThrew", messageOf(error)),
      report: (error) => this.#report(error),
      // The caller's signal aborted: the session stopped itself.
      stopped: (session) => {
        if (this.#polling === session) this.#polling = undefined;
      },
    });
  }

  /**
   * Stops polling and aborts a fetch in flight. Safe to call when not polling.
   */
  stopPolling() {
    const session = this.#polling;
    this.#polling = undefined;
    if (session !== undefined) stopSession(session);
  }
}
