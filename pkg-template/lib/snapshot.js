// ABF1 snapshots: load (bytes, streams, URLs) and encode.
//
// A load returns the reference's result shape. On failure, `error` is the
// spec's code (truncated, badMagic, unsupportedFormatVersion,
// unsupportedHashProtocol, invalidHeader, lengthMismatch, checksumMismatch)
// and `message` says what was wrong. No partially usable filter ever escapes.

import {
  RawSnapshotDecoder,
  decodeSnapshot,
  decodeSnapshotPrehashed,
  encodeSnapshot as rawEncodeSnapshot,
  parseSnapshotHeader,
} from "../artifact_bloom.js";
import { load } from "./checks.js";
import { checkSignal, checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS, startDeadline, startTimer } from "./deadline.js";
import { isUint8Array, rangeError, typeError } from "./errors.js";
import { ArtifactBloomFilter } from "./filter.js";
import { toWasm } from "./memory.js";
import { hashCovered, webCryptoHasher } from "./snapshot-checksum.js";

/**
 * @import { RawFilter } from "../artifact_bloom.js"
 * @import { DecodeResult } from "./variant-types.js"
 * @import {
 *   CatalogVersion,
 *   FetchSnapshotOptions,
 *   SnapshotHeader,
 *   SnapshotHeaderResult,
 *   SnapshotLoadError,
 *   SnapshotMeta,
 *   SnapshotResult,
 *   SnapshotSource,
 *   SnapshotStreamOptions,
 * } from "./types.js"
 * @import { Timers } from "./client-types.js"
 */

/**
 * A streaming SHA-256 (node:crypto's, in Node).
 *
 * @typedef {{ update(bytes: Uint8Array): unknown; digest(): Uint8Array; close?: () => void }} NativeHasher
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

/** Size of the fixed ABF1 header in bytes (96). */
export const ABF1_HEADER_LENGTH = 96;

/**
 * @param {SnapshotLoadError} error
 * @param {string} message
 * @returns {{ kind: "failure"; error: SnapshotLoadError; message: string }}
 */
function loadFailure(error, message) {
  return { kind: "failure", error, message };
}


/**
 * `{ catalogVersion, filter, header }` from the raw `{ header, filter }`.
 *
 * @param {{ header: SnapshotHeader; filter: RawFilter }} raw what the raw decoders return (the filter still unwrapped)
 * @param {SnapshotMeta | undefined} meta
 * @returns {Extract<SnapshotResult, { kind: "success" }>["value"]}
 */
function toSnapshot(raw, meta) {
  /** @type {{ catalogVersion: CatalogVersion; filter: ArtifactBloomFilter; header: SnapshotHeader; lastModified?: Date; etag?: string; source?: string }} */
  const snapshot = {
    catalogVersion: raw.header.catalogVersion,
    // filter.js is still typed in legacy-types.d.ts, which does not declare its internal `_wrap`.
    filter: /** @type {typeof ArtifactBloomFilter & { _wrap(raw: RawFilter): ArtifactBloomFilter }} */ (
      ArtifactBloomFilter)._wrap(raw.filter),
    header: Object.freeze(raw.header),
  };
  // Only the documented facts are copied: nothing in `meta` can override
  // what the checksummed file says (catalogVersion, filter, header).
  if (meta?.lastModified instanceof Date && !Number.isNaN(meta.lastModified.getTime())) {
    snapshot.lastModified = meta.lastModified;
  }
  if (typeof meta?.etag === "string") snapshot.etag = meta.etag;
  if (typeof meta?.source === "string") snapshot.source = meta.source;
  return Object.freeze(snapshot);
}

// A native SHA-256 (node:crypto), registered by the Node entry point as a
// factory of `{ update(bytes), digest() }`. The browser build leaves it unset
// and hashes in wasm.
/** @type {(() => NativeHasher) | undefined} */
let nativeHasher;

/**
 * Internal: registers the native SHA-256 factory (the Node entry point does).
 *
 * @internal
 * @param {() => NativeHasher} factory
 * @returns {void}
 */
export function _useNativeSha256(factory) {
  nativeHasher = factory;
}

/**
 * @param {Uint8Array} bytes
 * @returns {boolean}
 */
function isShared(bytes) {
  return typeof SharedArrayBuffer !== "undefined" && bytes.buffer instanceof SharedArrayBuffer;
}

/**
 * Step 8's SHA-256 computed natively, or undefined to hash in wasm.
 *
 * @param {Uint8Array} bytes
 * @returns {Uint8Array | undefined}
 */
function prehash(bytes) {
  // A shared buffer could change between hashing here and the copy into
  // wasm; only private memory takes the native path.
  if (nativeHasher === undefined || bytes.byteLength < ABF1_HEADER_LENGTH || isShared(bytes)) return undefined;
  const hasher = nativeHasher();
  hashCovered(hasher, bytes, 0);
  return hasher.digest();
}

/**
 * Loads a complete ABF1 file from memory. Never returns a partially usable filter.
 *
 * @example
 * ```ts
 * const loaded = loadSnapshot(new Uint8Array(await readFile("catalog.abf1")));
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * const { catalogVersion, filter } = loaded.value;
 * ```
 *
 * @param {Uint8Array} bytes the whole file
 * @param {SnapshotMeta} [meta] copied onto the snapshot (e.g. the file's mtime as `lastModified`)
 * @returns {SnapshotResult}
 */
export function loadSnapshot(bytes, meta) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array holding an ABF1 file", bytes);
  // Steps 1–5 from the first 96 bytes alone: a bad header — or a buffer far
  // longer than its header declares — is decided without hashing or copying
  // the whole input into wasm memory (which never shrinks again).
  const header = /** @type {DecodeResult<SnapshotHeader, SnapshotLoadError>} */ (
    load(() => parseSnapshotHeader(bytes.subarray(0, ABF1_HEADER_LENGTH))));
  if (header.kind === "failure") return header;
  const total = ABF1_HEADER_LENGTH + header.value.payloadLength;
  if (bytes.byteLength > total) {
    return loadFailure(
      "lengthMismatch",
      `the snapshot must be exactly ${total} bytes (96-byte header + payloadLength), got ${bytes.byteLength}`,
    );
  }
  const digest = prehash(bytes);
  // toWasm: a file that does not fit in wasm memory is `outOfMemory`, not a trap.
  const result = /** @type {DecodeResult<{ header: SnapshotHeader; filter: RawFilter }, SnapshotLoadError>} */ (
    load(() => (digest === undefined ? decodeSnapshot(toWasm(bytes)) : decodeSnapshotPrehashed(toWasm(bytes), digest))));
  return result.kind === "success" ? { kind: "success", value: toSnapshot(result.value, meta) } : result;
}

/**
 * Reads just the header (load steps 1–5) — for tools that show what a
 * (possibly corrupted) file's header claims. Returns the usual result shape.
 *
 * @param {Uint8Array} bytes the file, or at least its first 96 bytes
 * @returns {SnapshotHeaderResult}
 */
export function readSnapshotHeader(bytes) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array holding an ABF1 file", bytes);
  return /** @type {SnapshotHeaderResult} */ (
    load(() => Object.freeze(parseSnapshotHeader(bytes.subarray(0, ABF1_HEADER_LENGTH)))));
}

/**
 * Encodes a filter and its catalog version as ABF1 bytes.
 *
 * @param {ArtifactBloomFilter} filter
 * @param {{ catalogVersion: CatalogVersion }} options
 * @returns {Uint8Array<ArrayBuffer>}
 * @throws {RangeError} when catalogVersion is not an integer in 0..2^53−1.
 * @throws {Error} with `code: "invalidFilter"` when the filter could not be
 *   loaded back — e.g. a `union` whose summed insertedItemCount exceeds
 *   expectedItemCount (ABF1 requires inserted ≤ expected).
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for the output.
 */
export function encodeSnapshot(filter, options) {
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError("filter", "an ArtifactBloomFilter", filter);
  }
  const version = options?.catalogVersion;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 0) {
    throw rangeError("catalogVersion", "an integer from 0 to 2^53 - 1", version);
  }
  return /** @type {Uint8Array<ArrayBuffer>} */ (rawEncodeSnapshot(filter._raw(), version));
}

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
  if (source != null && typeof (/** @type {MaybeIterable} */ (source))[Symbol.asyncIterator] === "function") {
    return /** @type {AsyncIterable<Uint8Array>} */ (source)[Symbol.asyncIterator]();
  }
  if (source != null && typeof (/** @type {MaybeIterable} */ (source))[Symbol.iterator] === "function" && !isUint8Array(source)) {
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
    stopTimer = startTimer(idle.timers, idle.ms, () => settle(resolve, IDLE));
    pending.then((value) => settle(resolve, value), (error) => settle(reject, error));
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
    throw rangeError("checksumWorkerMinBytes", "a non-negative number of bytes (Infinity: never a worker)", checksumWorkerMinBytes);
  }
  checkTimers(timers);
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
 * `timeoutMs`), `timers` (injectable for tests).
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
  const hasher = nativeHasher?.() ?? webCryptoHasher(() => decoder.totalLength(), options?.checksumWorkerMinBytes);
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
        return loadFailure("timeout", `no snapshot bytes arrived for ${idle.ms} ms (idleTimeoutMs) after ${bytes} bytes`);
      }
      if (next.done) break;
      let chunk = next.value;
      if (!isUint8Array(chunk)) {
        throw typeError("source chunk", "a Uint8Array", chunk);
      }
      // Hash and decode the same bytes: a shared buffer could change between.
      if (hasher !== undefined && isShared(chunk)) chunk = chunk.slice();
      if (bytes + chunk.byteLength > maxBytes) {
        return loadFailure("tooLarge", `the snapshot exceeds maxBytes (${maxBytes}); ${bytes + chunk.byteLength} bytes arrived`);
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
      load(() => (computed === undefined ? decoder.finish() : decoder.finishWithChecksum(computed))));
    return result.kind === "success" ? { kind: "success", value: toSnapshot(result.value, meta) } : result;
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
 * from the response; an `httpError` failure carries the `status`.
 *
 * @example
 * ```ts
 * const loaded = await fetchSnapshot("/snapshot", { onProgress: ({ bytes, total }) => {} });
 * ```
 *
 * @param {string | URL} url
 * @param {FetchSnapshotOptions} [options]
 * @returns {Promise<SnapshotResult>}
 */
export async function fetchSnapshot(url, options = {}) {
  options ??= {};
  const { etag, headers = {}, fetch: fetchImpl = globalThis.fetch } = options;
  if (typeof fetchImpl !== "function") throw typeError("fetch", "a fetch function", fetchImpl);
  if (headers === null || typeof headers !== "object") throw typeError("headers", "an object of header strings", headers);
  checkStreamOptions(options);
  const timeoutMs = checkTimeout("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const timers = checkTimers(options.timers);
  const signal = checkSignal(options.signal);
  const requestHeaders = { ...headers };
  if (etag) requestHeaders["If-None-Match"] = etag;
  // The limit covers the wait for the response headers; the body gets an
  // idle limit below (a large snapshot may take longer than timeoutMs).
  const deadline = startDeadline(signal, timeoutMs, timers, `GET ${url}`);
  /** @type {Response} */
  let response;
  try {
    response = await fetchImpl(url, { headers: requestHeaders, signal: deadline.signal });
  } catch (error) {
    if (!deadline.expired) throw error;
    return loadFailure("timeout", /** @type {Error} */ (deadline.reason).message);
  } finally {
    deadline.clear();
  }
  if (response.status === 304) {
    await response.body?.cancel();
    return loadFailure("notModified", `the snapshot at ${url} has not changed (ETag ${etag})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    const failure = loadFailure("httpError", `GET ${url} answered ${response.status} ${response.statusText}`);
    return { ...failure, status: response.status };
  }
  const lastModified = response.headers.get("last-modified");
  const meta = {
    etag: response.headers.get("etag") ?? undefined,
    lastModified: lastModified ? new Date(lastModified) : undefined,
    source: String(url),
  };
  const declared = Number(response.headers.get("content-length"));
  const onProgress = options.onProgress;
  return loadSnapshotStream(response, {
    ...options,
    meta,
    signal,
    idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
    timers,
    // Before 96 bytes arrive, the Content-Length is the best total we have.
    onProgress: onProgress && ((p) => onProgress({ bytes: p.bytes, total: p.total ?? (declared || undefined) })),
  });
}
