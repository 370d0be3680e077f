// Time limits for the HTTP clients (fetchSnapshot, SnapshotHolder polling,
// HttpArtifactRepository) and the idle limit of loadSnapshotStream.
//
// A request that never answers must end as a coded failure, not as a
// promise that waits forever while the snapshot goes stale. The limit aborts
// the request through an AbortSignal combined with the caller's own, so a
// caller's abort still wins and keeps its reason. Timers are cleared as soon
// as the request settles. A request's limit is unref()ed in Node (its socket
// is what keeps the process alive); loadSnapshotStream's idle limit is not,
// since its source may be no I/O at all (a caller's generator that stalls),
// and a promise whose only timer is unref()ed never settles: the process
// would exit instead of answering `timeout`. `timers` can be injected so
// tests drive the clock instead of waiting on it.

import { rangeError, timeoutError, typeError } from "./errors.js";

/** The HTTP clients' default per-request limit: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

// Browsers and Node fire a timer at once when its delay exceeds 2^31 − 1 ms
// (≈ 24.8 days); a limit that long is the same as none.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The timer functions a time limit uses (default: the global ones).
 * @typedef {import("../client-types.js").Timers} Timers
 */

/** @type {Timers} */
const globalTimers = {
  // Looked up at each call (not captured at import) and called unbound:
  // browsers refuse window.setTimeout called on another object.
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(/** @type {number} */ (handle)),
};

/**
 * A time-limit option: undefined gives `fallback`; otherwise a positive
 * number of milliseconds (Infinity: no limit).
 *
 * @param {string} parameter the option's name, for the error
 * @param {unknown} value
 * @param {number} fallback
 * @returns {number}
 * @throws {RangeError} for anything else
 */
export function checkTimeout(parameter, value, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0)) {
    throw rangeError(parameter, "a positive number of milliseconds (Infinity for no limit)", value);
  }
  return value;
}

/**
 * The `timers` option: undefined gives the global timers.
 *
 * @param {unknown} value
 * @returns {Timers}
 * @throws {TypeError} unless an object with setTimeout and clearTimeout methods
 */
export function checkTimers(value) {
  if (value === undefined) return globalTimers;
  const timers = /** @type {Partial<Timers> | null} */ (value);
  if (
    timers === null
    || typeof timers !== "object"
    || typeof timers.setTimeout !== "function"
    || typeof timers.clearTimeout !== "function"
  ) {
    throw typeError("timers", "an object { setTimeout, clearTimeout }", value);
  }
  return /** @type {Timers} */ (timers);
}

/**
 * A caller's optional AbortSignal (null counts as none, as fetch accepts it).
 *
 * @param {unknown} value
 * @returns {AbortSignal | undefined}
 * @throws {TypeError} for anything but an AbortSignal, null or undefined
 */
export function checkSignal(value) {
  if (value === undefined || value === null) return undefined;
  if (!(value instanceof AbortSignal)) throw typeError("signal", "an AbortSignal", value);
  return value;
}

/**
 * Calls `callback` once after `ms` unless the returned `stop()` comes first.
 * A limit beyond what timers can express never fires. The timer is
 * unref()ed in Node unless `keepAlive` (then the process waits for it).
 *
 * @param {Timers} timers
 * @param {number} ms
 * @param {() => void} callback
 * @param {{ keepAlive?: boolean }} [how]
 * @returns {() => void} stop: clears the timer (idempotent)
 */
export function startTimer(timers, ms, callback, { keepAlive = false } = {}) {
  if (!(ms <= MAX_TIMER_MS)) return () => {};
  let active = true;
  const handle = timers.setTimeout(() => {
    active = false;
    callback();
  }, ms);
  if (!keepAlive) /** @type {{ unref?: () => void } | undefined} */ (handle)?.unref?.();
  return () => {
    if (active) timers.clearTimeout(handle);
    active = false;
  };
}

/**
 * @typedef {object} Deadline
 * @property {AbortSignal} signal aborts on the caller's abort (its reason) or
 *   when the limit passes (`reason`)
 * @property {boolean} expired true once the limit passed before any caller abort
 * @property {Error | undefined} reason the timeout error, once expired
 * @property {() => void} restart starts the limit over, unless it passed
 *   (progress on a long upload: the limit is then per stretch without progress)
 * @property {() => void} clear stops the timer; call it once the request settled
 */

/**
 * Starts a time limit on one request.
 *
 * @param {AbortSignal | undefined} callerSignal
 * @param {number} timeoutMs
 * @param {Timers} timers
 * @param {string} what what is waited for, for the timeout message
 * @returns {Deadline}
 */
export function startDeadline(callerSignal, timeoutMs, timers, what) {
  const controller = new AbortController();
  /** @type {Deadline} */
  const deadline = { signal: controller.signal, expired: false, reason: undefined, restart: () => {}, clear: () => {} };
  const expire = () => {
    // A caller's earlier abort is the cause; the limit passing after it is not.
    if (callerSignal?.aborted) return;
    deadline.expired = true;
    deadline.reason = timeoutError(what, timeoutMs);
    controller.abort(deadline.reason);
  };
  let stopTimer = startTimer(timers, timeoutMs, expire);
  deadline.restart = () => {
    if (deadline.expired) return;
    stopTimer();
    stopTimer = startTimer(timers, timeoutMs, expire);
  };
  let unlink = () => {};
  if (callerSignal !== undefined) {
    if (typeof AbortSignal.any === "function") {
      deadline.signal = AbortSignal.any([callerSignal, controller.signal]);
    } else {
      // Engines without AbortSignal.any: forward the caller's abort by hand.
      const forward = () => controller.abort(callerSignal.reason);
      if (callerSignal.aborted) forward();
      else callerSignal.addEventListener("abort", forward, { once: true });
      unlink = () => callerSignal.removeEventListener("abort", forward);
    }
  }
  deadline.clear = () => {
    stopTimer();
    unlink();
  };
  return deadline;
}
