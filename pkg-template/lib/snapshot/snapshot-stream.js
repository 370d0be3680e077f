// ABF1 snapshots loaded as they arrive: from a Response, a ReadableStream
// or an (async) iterable of chunks, with size, idle and abort limits.

import { RawSnapshotDecoder } from "../../artifact_bloom.js";
import { load } from "../core/checks.js";
import { failure, success } from "../core/results.js";
import { checkTimeout, checkTimers, startTimer } from "../core/deadline.js";
import { isUint8Array, rangeError, typeError } from "../core/errors.js";
import { toWasm } from "../wasm/main-memory.js";
import { isShared, keyedSnapshot, nativeSha256 } from "./snapshot-core.js";
import { checkKey } from "./snapshot-key.js";
import { hashCovered, webCryptoHasher } from "./snapshot-checksum.js";

/**
 * @import { RawFilter } from "../../artifact_bloom.js"
 * @import { DecodeResult } from "../core/results.js"
 * @import { SnapshotHeader, SnapshotLoadError, SnapshotResult, SnapshotSource, SnapshotStreamOptions } from "../types.js"
 * @import { Timers } from "../client-types.js"
 * @import { NativeHasher } from "./snapshot-core.js"
 */

/**
 * The chunks of a snapshot source, read one at a time.
 *
 * @typedef {{
 *   next(): IteratorResult<Uint8Array> | Promise<IteratorResult<Uint8Array>>;
 *   return?(): unknown;
 * }} ChunkIterator
 */

/**
 * A source that may be an (async) iterable: checked before use.
 *
 * @typedef {Partial<AsyncIterable<Uint8Array> & Iterable<Uint8Array>>} MaybeIterable
 */

/**
 * Turns a Response, ReadableStream or (async) iterable into an iterator of chunks.
 *
 * @param {SnapshotSource} source checked here: anything else throws a TypeError
 * @returns {ChunkIterator}
 */
function chunksOf(source) {
  if (typeof Response !== "undefined" && source instanceof Response) {
    return source.body === null ? emptyChunks() : readerChunks(source.body);
  }
  if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) return readerChunks(source);
  // What is left should be an (async) iterable; a caller's JavaScript may pass anything.
  if (source != null && typeof (/** @type {MaybeIterable} */ (source)[Symbol.asyncIterator]) === "function") {
    return /** @type {AsyncIterable<Uint8Array>} */ (source)[Symbol.asyncIterator]();
  }
  if (source != null && typeof (/** @type {MaybeIterable} */ (source)[Symbol.iterator]) === "function" && !isUint8Array(source)) {
    return /** @type {Iterable<Uint8Array>} */ (source)[Symbol.iterator]();
  }
  throw typeError("source", "a ReadableStream, a Response or an (async) iterable of Uint8Array chunks", source);
}

/** @returns {AsyncGenerator<Uint8Array, void, undefined>} */
async function* emptyChunks() {}

// A plain iterator over a stream reader (not an async generator): `return()`
// must cancel the stream at once — closing the HTTP connection — even while
// a read is pending, which a suspended generator cannot do.
/**
 * @param {ReadableStream<Uint8Array>} stream
 * @returns {ChunkIterator}
 */
function readerChunks(stream) {
  const reader = stream.getReader();
  const release = () => {
    try {
      reader.releaseLock();
    } catch {
      // Old engines refuse while a read is pending; the stream is cancelled anyway.
    }
  };
  return {
    next: async () => {
      const result = await reader.read();
      if (result.done) release();
      return result;
    },
    return: async () => {
      const cancelled = reader.cancel();
      release();
      await cancelled.catch(() => {});
      return { done: true, value: undefined };
    },
  };
}

/** What `nextOrAbort` answers when no chunk came within the idle limit. */
const IDLE = Symbol("idle");

/**
 * The next chunk; a rejection with the signal's reason as soon as it aborts;
 * or IDLE when `idle.ms` pass first (the timer is cleared on every path).
 *
 * @param {ChunkIterator} iterator
 * @param {AbortSignal | undefined} signal
 * @param {{ ms: number; timers: Timers }} idle
 * @returns {Promise<IteratorResult<Uint8Array> | typeof IDLE>}
 */
function nextOrAbort(iterator, signal, idle) {
  const pending = Promise.resolve(iterator.next());
  if (signal === undefined && idle.ms === Infinity) return pending;
  return new Promise((resolve, reject) => {
    let stopTimer = () => {};
    const onAbort = () => settle(reject, abortReason(/** @type {AbortSignal} */ (signal)));
    /** @type {<T>(how: (value: T) => void, value: T) => void} */
    const settle = (how, value) => {
      stopTimer();
      signal?.removeEventListener("abort", onAbort);
      how(value);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    // Kept alive: the source may hold no I/O (a stalled generator), and the
    // caller awaits this load; an unref()ed timer would let the process exit
    // with the load unanswered instead of answering `timeout`.
    stopTimer = startTimer(idle.timers, idle.ms, () => settle(resolve, IDLE), { keepAlive: true });
    pending.then(
      (value) => settle(resolve, value),
      (error) => settle(reject, error),
    );
  });
}

/**
 * @param {AbortSignal} signal
 * @returns {unknown}
 */
function abortReason(signal) {
  return signal.reason ?? new DOMException("The snapshot load was aborted", "AbortError");
}

/**
 * The stream options' checks, shared with fetchSnapshot (which must refuse
 * bad options before it sends a request) and SnapshotHolder.startPolling.
 *
 * @internal
 * @param {SnapshotStreamOptions | undefined} options
 * @returns {void}
 * @throws {TypeError | RangeError} for a bad option
 */
export function checkStreamOptions(options) {
  const { maxBytes = Infinity, onProgress, idleTimeoutMs, timers, checksumWorkerMinBytes = 0 } = options ?? {};
  checkTimeout("idleTimeoutMs", idleTimeoutMs, Infinity);
  if (typeof checksumWorkerMinBytes !== "number" || !(checksumWorkerMinBytes >= 0)) {
    throw rangeError(
      "checksumWorkerMinBytes",
      "a non-negative number of bytes (Infinity: never a worker)",
      checksumWorkerMinBytes,
    );
  }
  checkTimers(timers);
  checkKey(options?.key);
  if (typeof maxBytes !== "number" || !(maxBytes >= 0)) {
    throw rangeError("maxBytes", "a non-negative number", maxBytes);
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw typeError("onProgress", "a function", onProgress);
  }
}

/**
 * Loads an ABF1 file as it arrives. Bad headers, and headers declaring more
 * than `maxBytes`, are rejected as soon as 96 bytes are in, before anything
 * is reserved; the bit array grows as the payload arrives (`outOfMemory` if
 * it cannot); the checksum is computed incrementally. Options: `maxBytes`
 * (refuse larger files: `tooLarge`), `onProgress({ bytes, total })`,
 * `signal` (rejects with its reason), `idleTimeoutMs` (no chunk for that
 * long: failure `timeout`, the source is cancelled; default none, since a
 * caller's own stream may pause by design — fetchSnapshot passes its
 * `timeoutMs`; while a load waits for a chunk, this timer keeps a Node
 * process alive, so a stalled source answers `timeout` even when nothing
 * else is pending; without it, a source that never yields and holds no I/O
 * leaves the promise unsettled and Node may exit), `timers` (injectable for
 * tests).
 *
 * @example
 * ```ts
 * const loaded = await loadSnapshotStream(fs.createReadStream("catalog.abf1"), {
 *   onProgress: ({ bytes, total }) => console.log(bytes, total),
 * });
 * ```
 *
 * @param {SnapshotSource} source
 * @param {SnapshotStreamOptions} [options]
 * @returns {Promise<SnapshotResult>}
 */
export async function loadSnapshotStream(source, options = {}) {
  const { maxBytes = Infinity, onProgress, signal, meta } = options ?? {};
  checkStreamOptions(options);
  const idle = { ms: checkTimeout("idleTimeoutMs", options?.idleTimeoutMs, Infinity), timers: checkTimers(options?.timers) };
  signal?.throwIfAborted();
  const iterator = chunksOf(source);
  // The checksum is hashed here natively where possible — node:crypto in
  // Node, else WebCrypto once the whole payload is in (both several times
  // faster than wasm); the decoder still compares it. Without either (an
  // insecure browser context) the decoder hashes in wasm as bytes arrive.
  /** @type {NativeHasher | import("./snapshot-checksum.js").ChecksumHasher | undefined} */
  const hasher = nativeSha256() ?? webCryptoHasher(() => decoder.totalLength(), options?.checksumWorkerMinBytes);
  // The decoder compares a valid header's total length with maxBytes itself.
  /** @type {RawSnapshotDecoder} */
  const decoder = hasher === undefined ? new RawSnapshotDecoder(maxBytes) : RawSnapshotDecoder.withExternalChecksum(maxBytes);
  let bytes = 0;
  let finished = false;
  try {
    for (;;) {
      const next = await nextOrAbort(iterator, signal, idle);
      signal?.throwIfAborted();
      if (next === IDLE) {
        return failure("timeout", `no snapshot bytes arrived for ${idle.ms} ms (idleTimeoutMs) after ${bytes} bytes`);
      }
      if (next.done) break;
      let chunk = next.value;
      if (!isUint8Array(chunk)) {
        throw typeError("source chunk", "a Uint8Array", chunk);
      }
      // Hash and decode the same bytes: a shared buffer could change between.
      if (hasher !== undefined && isShared(chunk)) chunk = chunk.slice();
      if (bytes + chunk.byteLength > maxBytes) {
        return failure("tooLarge", `the snapshot exceeds maxBytes (${maxBytes}); ${bytes + chunk.byteLength} bytes arrived`);
      }
      const pushed = /** @type {DecodeResult<void, SnapshotLoadError>} */ (load(() => decoder.push(toWasm(chunk))));
      if (pushed.kind === "failure") return pushed;
      if (hasher !== undefined) hashCovered(hasher, chunk, bytes);
      bytes += chunk.byteLength;
      onProgress?.({ bytes, total: decoder.totalLength() });
    }
    finished = true;
    // Undefined also when the file ended early: the decoder reports how.
    const computed = await hasher?.digest();
    signal?.throwIfAborted(); // an abort during WebCrypto's digest still counts
    const result = /** @type {DecodeResult<{ header: SnapshotHeader; filter: RawFilter }, SnapshotLoadError>} */ (
      load(() => (computed === undefined ? decoder.finish() : decoder.finishWithChecksum(computed)))
    );
    return result.kind === "success" ? keyedSnapshot(result.value, meta, options?.key) : result;
  } finally {
    decoder.free();
    hasher?.close?.();
    // Stop a producer we no longer read from (failure, abort, or exception).
    // Not awaited: a stalled async generator only finishes its return() after
    // its pending step settles, and the caller must not wait for that.
    if (!finished) Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/**
 * Internal: a whole body of at most `maxBytes` bytes (an ABD1 delta), read
 * with the same abort and idle limit as a snapshot load. `tooLarge` as soon
 * as more arrives, so nothing is kept beyond the bound.
 *
 * @internal
 * @param {SnapshotSource} source
 * @param {{ maxBytes: number; signal?: AbortSignal; idleTimeoutMs: number; timers: Timers }} limits
 * @returns {Promise<DecodeResult<Uint8Array, SnapshotLoadError>>}
 */
export async function readWholeBody(source, { maxBytes, signal, idleTimeoutMs, timers }) {
  const iterator = chunksOf(source);
  const idle = { ms: idleTimeoutMs, timers };
  /** @type {Uint8Array[]} */
  const chunks = [];
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const next = await nextOrAbort(iterator, signal, idle);
      signal?.throwIfAborted();
      if (next === IDLE) return failure("timeout", `no bytes arrived for ${idle.ms} ms (idleTimeoutMs) after ${total} bytes`);
      if (next.done) break;
      const chunk = next.value;
      if (!isUint8Array(chunk)) throw typeError("source chunk", "a Uint8Array", chunk);
      total += chunk.byteLength;
      if (total > maxBytes) return failure("tooLarge", `the body exceeds ${maxBytes} bytes; ${total} arrived`);
      chunks.push(chunk);
    }
    finished = true;
  } finally {
    if (!finished) Promise.resolve(iterator.return?.()).catch(() => {});
  }
  if (chunks.length === 1) return success(chunks[0]);
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return success(whole);
}
