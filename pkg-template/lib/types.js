// The shared types of the public API, as JSDoc typedefs only (no runtime
// code): scripts/emit-types.mjs has tsc emit lib/types.d.ts from this file,
// and the package's index.d.ts re-exports every type. The shapes
// (`BloomSpec`, `BloomError`, `Result<T>`) are the TypeScript reference's.
// The HTTP clients' types are in client-types.js, the other filters' in
// variant-types.js.
//
// Readonly object types are written as type literals (`readonly` needs
// them), so their fields are documented in the type's own comment; mutable
// ones use `@property`, which documents each field.

/** @import { ArtifactBloomFilter } from "./filter/filter.js" */
/** @import { Timers } from "./client-types.js" */

// ==== The reference filter ===================================================

/**
 * What a filter is built for.
 *
 * - `expectedItemCount`: upper bound on inserted digests, an integer from 1 to 2^30.
 * - `targetFalsePositiveRate`: design false-positive rate, strictly between 0 and 1.
 *
 * @typedef {{
 *   readonly expectedItemCount: number;
 *   readonly targetFalsePositiveRate: number;
 * }} BloomSpec
 */

/**
 * The reference's build errors, then `outOfMemory` (not the reference's):
 * WebAssembly memory, which grows to 4 GiB at most and never shrinks, had no
 * room for the digests' copy or the bit array.
 *
 * @typedef {"invalidExpectedItemCount"
 *   | "invalidFalsePositiveRate"
 *   | "capacityExceeded"
 *   | "filterTooLarge"
 *   | "invalidDigest"
 *   | "outOfMemory"} BloomError
 */

/**
 * The reference's result shape: plain objects, compared with `deepEqual`.
 * Only an `outOfMemory` failure carries a `message` (the bytes it could not
 * reserve).
 *
 * @template TValue
 * @template {string} [TError=BloomError]
 * @typedef {{ readonly kind: "success"; readonly value: TValue }
 *   | { readonly kind: "failure"; readonly error: TError; readonly message?: string }} Result
 */

// ==== ABF1 snapshots =========================================================

/**
 * Every field of the ABF1 header (the ABF1 spec), as loaded. `checksum` is the
 * SHA-256 of header bytes [0, 64) and the payload, lowercase hex.
 *
 * @typedef {{
 *   readonly formatVersion: number;
 *   readonly hashProtocolVersion: number;
 *   readonly catalogVersion: number;
 *   readonly bitCount: number;
 *   readonly hashCount: number;
 *   readonly reserved: number;
 *   readonly expectedItemCount: number;
 *   readonly insertedItemCount: number;
 *   readonly targetFpp: number;
 *   readonly payloadLength: number;
 *   readonly checksum: string;
 * }} SnapshotHeader
 */

/**
 * ABF1 load failures, in the order the loader checks them, plus the
 * stream/HTTP ones:
 *
 * - `tooLarge`: `loadSnapshotStream` got more than `maxBytes` (decided from
 *   the header, before anything is reserved).
 * - `outOfMemory`: WebAssembly memory (4 GiB at most, never shrinking) had
 *   no room for the file's copy or the bit array.
 * - `httpError`: `fetchSnapshot` got a non-2xx answer (the failure carries `status`).
 * - `notModified`: `fetchSnapshot` with `etag`: the server answered 304.
 * - `timeout`: `fetchSnapshot` got no response headers within `timeoutMs`,
 *   or no body bytes for that long; `loadSnapshotStream` got no chunk for
 *   `idleTimeoutMs`. The source is cancelled (the connection dropped).
 *
 * `fetchSnapshot` adds `networkError` and `versionConflict` (see `FetchSnapshotResult`).
 *
 * @typedef {"truncated"
 *   | "badMagic"
 *   | "unsupportedFormatVersion"
 *   | "unsupportedHashProtocol"
 *   | "invalidHeader"
 *   | "lengthMismatch"
 *   | "checksumMismatch"
 *   | "keyRequired"
 *   | "wrongKey"
 *   | "notKeyed"
 *   | "tooLarge"
 *   | "outOfMemory"
 *   | "httpError"
 *   | "notModified"
 *   | "timeout"} SnapshotLoadError
 */

/**
 * A load result: the snapshot, or the spec's error code and a message; an
 * `httpError` failure carries the HTTP `status` that came.
 *
 * @typedef {{ readonly kind: "success"; readonly value: ArtifactIndexSnapshot & { header: SnapshotHeader } }
 *   | {
 *     readonly kind: "failure";
 *     readonly error: SnapshotLoadError;
 *     readonly message: string;
 *     readonly status?: number;
 *   }} SnapshotResult
 */

/**
 * `readSnapshotHeader`'s result: the header, or the first failed check's
 * code and a message.
 *
 * @typedef {{ readonly kind: "success"; readonly value: SnapshotHeader }
 *   | { readonly kind: "failure"; readonly error: SnapshotLoadError; readonly message: string }} SnapshotHeaderResult
 */

/**
 * Facts about where a snapshot came from, copied onto the loaded snapshot.
 * `lastModified` drives `artifact_bloom.snapshot.age_seconds`: pass the
 * file's mtime when loading from disk (`fetchSnapshot` fills it from the
 * Last-Modified header).
 *
 * @example
 * ```ts
 * const { mtime } = await stat(path);
 * const loaded = loadSnapshot(new Uint8Array(await readFile(path)), { lastModified: mtime, source: path });
 * ```
 *
 * @typedef {{
 *   readonly lastModified?: Date;
 *   readonly etag?: string;
 *   readonly source?: string;
 * }} SnapshotMeta
 */

/**
 * What `onProgress` receives: bytes so far, and the file's total length once
 * 96 bytes arrived (`fetchSnapshot` uses Content-Length before that).
 *
 * @typedef {object} SnapshotProgress
 * @property {number} bytes Bytes received so far.
 * @property {number | undefined} total The file's length, when known.
 */

/**
 * Options of `loadSnapshotStream` (and `fetchSnapshot`).
 *
 * @typedef {object} SnapshotStreamOptions
 * @property {number} [maxBytes] Refuse files larger than this (failure `tooLarge`): checked from the
 *   header, before anything is reserved for the payload.
 * @property {number} [idleTimeoutMs] No chunk for this many milliseconds: failure `timeout`, and the
 *   source is cancelled. Default: no limit for a stream you pass in (your source may pause by
 *   design); `fetchSnapshot` uses its `timeoutMs`. A positive number (Infinity: no limit);
 *   anything else throws a RangeError. While a load waits for a chunk, the idle timer keeps a
 *   Node process alive, so a stalled source answers `timeout` even with no other I/O pending.
 * @property {Timers} [timers] Timer functions for the idle limit (tests).
 * @property {number} [checksumWorkerMinBytes] Browsers: from this many checksummed bytes on (default
 *   8 MiB), the WebCrypto digest runs in a worker (lib/snapshot/checksum-worker.js) so the page's thread is not
 *   blocked; below it, on the calling thread. 0: always a worker; Infinity: never. The worker file is
 *   emitted by bundlers that follow `new URL(…, import.meta.url)` (Vite, webpack); with esbuild or
 *   Rollup it is not, and a large snapshot's worker request fails (then the digest runs in-thread).
 * @property {(progress: SnapshotProgress) => void} [onProgress] Called after each chunk; `total` is known once 96 bytes arrived.
 * @property {AbortSignal} [signal] Aborting rejects the load with the signal's reason.
 * @property {SnapshotMeta} [meta] Copied onto the snapshot (e.g. the file's mtime as `lastModified`).
 * @property {Uint8Array} [key] The secret of a keyed snapshot (ABF1 hashProtocolVersion 2): 16 to 1024
 *   bytes (32 random bytes recommended), the key it was published with. A keyed snapshot loaded
 *   without it is the failure `keyRequired`, with another key `wrongKey`; a key given for an
 *   unkeyed snapshot is `notKeyed`. The key is checked before any request (a TypeError or
 *   RangeError naming its length, never its bytes), copied into wasm, and never kept on the
 *   snapshot, in a message or in a URL.
 */

/**
 * Options of `fetchSnapshot`: the stream options, plus `etag` (sent as
 * If-None-Match: a 304 answers the failure `notModified`), extra request
 * `headers`, a `fetch` implementation (default `globalThis.fetch`) and
 * `timeoutMs`: the wait for the response headers, and (unless
 * `idleTimeoutMs` is given) the longest pause between body chunks; past it,
 * failure `timeout`. Default 30 000; Infinity for none. A download that
 * keeps sending is not cut off — bound the whole load with
 * `signal: AbortSignal.timeout(ms)`. Redirects are followed (the file proves
 * itself: magic, checksum, catalogVersion).
 *
 * `lastModified` (the `Last-Modified` the host sent last time, a string or
 * Date) is sent as If-Modified-Since when there is no `etag`; a 304 answers
 * `notModified` too.
 *
 * @typedef {SnapshotStreamOptions & {
 *   etag?: string;
 *   lastModified?: string | Date;
 *   headers?: Record<string, string>;
 *   fetch?: typeof fetch;
 *   timeoutMs?: number;
 * }} FetchSnapshotOptions
 */

/**
 * What `loadSnapshotStream` reads: a web stream, a `Response`, or any
 * (async) iterable of byte chunks (a Node `Readable` is one).
 *
 * @typedef {ReadableStream<Uint8Array> | Response | AsyncIterable<Uint8Array> | Iterable<Uint8Array>} SnapshotSource
 */

// ==== The existence service ==================================================

/**
 * A catalog version: an integer from 0 to 2^53 − 1.
 *
 * @typedef {number} CatalogVersion
 */

/**
 * A filter and the catalogVersion it was built from — the reference's
 * `ArtifactIndexSnapshot`. `loadSnapshot`/`fetchSnapshot` return one (with
 * `header`, and `etag`/`lastModified` from HTTP); a plain
 * `{ catalogVersion, filter }` works too. Treated as immutable.
 *
 * - `header`: the ABF1 header fields, when loaded from a file.
 * - `etag`: the HTTP ETag it was served with; polling sends it as If-None-Match.
 * - `lastModified`: when the catalog was published; `snapshot.age_seconds` counts from it.
 * - `source`: where it was loaded from (a URL or path).
 *
 * @typedef {{
 *   readonly catalogVersion: CatalogVersion;
 *   readonly filter: ArtifactBloomFilter;
 *   readonly header?: SnapshotHeader;
 *   readonly etag?: string;
 *   readonly lastModified?: Date;
 *   readonly source?: string;
 * }} ArtifactIndexSnapshot
 */

/**
 * The authoritative store. Only asked about Bloom "maybe" digests, always
 * with the catalogVersion of the snapshot that answered "maybe".
 *
 * @example
 * ```ts
 * const repository: ArtifactRepository = {
 *   async existsAtVersionAsync(digest, catalogVersion, signal) {
 *     const response = await fetch(`${base}/v${catalogVersion}/${hex(digest)}`, { method: "HEAD", signal });
 *     if (response.status === 404) return false;
 *     if (!response.ok) throw new Error(`HEAD answered ${response.status}`); // never "absent"
 *     return true;
 *   },
 * };
 * ```
 *
 * @typedef {object} ArtifactRepository
 * @property {(digest: Uint8Array, catalogVersion: CatalogVersion, signal?: AbortSignal) => Promise<boolean>} existsAtVersionAsync
 *   Whether `digest` exists at `catalogVersion`; rejects (never answers `false`) when it cannot tell.
 * @property {(digests: readonly Uint8Array[], catalogVersion: CatalogVersion, signal?: AbortSignal)
 *   => Promise<readonly boolean[]>} [existsManyAtVersionAsync]
 *   Optional batch lookup: one boolean per digest, in order.
 */

/**
 * Options of `new ArtifactExistenceService`.
 *
 * - `batchSize`: digests per `existsManyAtVersionAsync` call (default 1000).
 * - `concurrency`: repository calls in flight at once during `findMissingAsync` (default 16).
 * - `now`: clock in epoch milliseconds, for `snapshot.age_seconds` (default `Date.now`).
 * - `key`: the secret of a keyed layout (16 to 1024 bytes). The service's
 *   filters hash with the key they were loaded with; this only asserts, at
 *   construction, that the snapshot in service is keyed with this key (an
 *   Error with code `wrongKey`, `keyRequired` or `notKeyed` otherwise). Not kept.
 *
 * @typedef {{
 *   readonly batchSize?: number;
 *   readonly concurrency?: number;
 *   readonly now?: () => number;
 *   readonly key?: Uint8Array;
 * }} ArtifactExistenceServiceOptions
 */

/**
 * `metrics()`: the `artifact_bloom.*` metrics, plus three ratios. Counters are this
 * service's queries since it was created; a query that threw on validation,
 * or was aborted before it started, counts nothing. Once the filter answered,
 * the answer is counted: a repository error or an abort during the lookup
 * counts the maybe but no false positive. Batch queries count per digest.
 *
 * - `artifact_bloom.fill_ratio`: set bits / all bits; computed once per
 *   snapshot (the filter is immutable).
 * - `artifact_bloom.estimated_fpp`: `(1 − e^(−kn/m))^k` for the inserted count.
 * - `artifact_bloom.negative.count`: queries answered "definitely absent"
 *   (no repository I/O).
 * - `artifact_bloom.maybe.count`: queries answered "maybe" (sent to the repository).
 * - `artifact_bloom.false_positive.count`: maybes the repository then answered absent.
 * - `artifact_bloom.snapshot.age_seconds`: seconds since the snapshot's
 *   `lastModified` when it has a valid one (`fetchSnapshot` sets it from
 *   Last-Modified), else since this package first saw the snapshot object
 *   (given to a service or SnapshotHolder). Never negative: a
 *   `lastModified` in the future reads 0.
 * - `artifact_bloom.snapshot.load_failure.count`: failed refreshes of the
 *   SnapshotHolder; always 0 for a plain snapshot.
 * - `negativeBypassRatio`: negative / (negative + maybe); 0 before any query.
 * - `observedFalsePositiveRate`: falsePositive / (negative + falsePositive);
 *   0 when both are 0.
 * - `falseDiscoveryRatio`: falsePositive / maybe; 0 before any maybe.
 *
 * @example
 * ```ts
 * const m = service.metrics();
 * if (m["artifact_bloom.fill_ratio"] > 0.6) alert("filter saturating: rebuild with a larger expectedItemCount");
 * if (m.observedFalsePositiveRate > 2 * m["artifact_bloom.estimated_fpp"]) alert("FPP above model");
 * ```
 *
 * @typedef {{
 *   "artifact_bloom.bit_count": number;
 *   "artifact_bloom.hash_count": number;
 *   "artifact_bloom.expected_item_count": number;
 *   "artifact_bloom.inserted_item_count": number;
 *   "artifact_bloom.fill_ratio": number;
 *   "artifact_bloom.estimated_fpp": number;
 *   "artifact_bloom.negative.count": number;
 *   "artifact_bloom.maybe.count": number;
 *   "artifact_bloom.false_positive.count": number;
 *   "artifact_bloom.catalog_version": number;
 *   "artifact_bloom.snapshot.age_seconds": number;
 *   "artifact_bloom.snapshot.load_failure.count": number;
 *   negativeBypassRatio: number;
 *   observedFalsePositiveRate: number;
 *   falseDiscoveryRatio: number;
 * }} ArtifactBloomMetrics
 */

// ==== SnapshotHolder =========================================================

/**
 * What a `SnapshotHolder.refreshFrom` loader returns: `loadSnapshot`'s result shape.
 *
 * @typedef {{ readonly kind: "success"; readonly value: ArtifactIndexSnapshot }
 *   | { readonly kind: "failure"; readonly error: string; readonly message?: string }} SnapshotLoaderResult
 */

/**
 * What a refresh did. `failure` was counted in `loadFailureCount` (the
 * snapshot in service is unchanged); `notModified` (HTTP 304, or a
 * download of the very snapshot in service: the same catalogVersion and
 * checksum, whose new validators polling adopts) and `stale` (a snapshot
 * with a lower catalogVersion) are not failures; `aborted` only happens when polling is stopped
 * mid-fetch. A failure's `error` is the load result's code (e.g.
 * "checksumMismatch", "httpError", "timeout", "networkError"), or
 * "loaderThrew", "invalidLoadResult", "invalidSnapshot". The failure
 * "versionConflict" (the same catalogVersion with another checksum) is
 * counted too, and is the one failure with `replaced: true`: the holder
 * adopted the server's snapshot (see `SnapshotHolder`).
 *
 * @typedef {{ readonly replaced: true; readonly outcome: "replaced" }
 *   | { readonly replaced: false; readonly outcome: "notModified" | "stale" | "aborted" }
 *   | {
 *     readonly replaced: true;
 *     readonly outcome: "failure";
 *     readonly error: "versionConflict";
 *     readonly message: string;
 *   }
 *   | {
 *     readonly replaced: false;
 *     readonly outcome: "failure";
 *     readonly error: string;
 *     readonly message: string;
 *   }} SnapshotRefreshResult
 */

/**
 * Options of `new SnapshotHolder`.
 *
 * - `allowSameOrOlder`: let `replace`/refreshes install a same or older
 *   catalogVersion (rollback). Default false.
 * - `now`: clock in epoch milliseconds (default `Date.now`).
 * - `onError`: receives exceptions thrown by `onReplace` listeners and `onRefresh`.
 * - `key`: the secret of a keyed layout (16 to 1024 bytes): the initial
 *   snapshot must be keyed with it (an Error with code `wrongKey`,
 *   `keyRequired` or `notKeyed` otherwise), and polling loads with it
 *   (unless `startPolling` names its own). Held privately: never in
 *   toJSON, inspect, a message or a URL.
 *
 * @typedef {{
 *   readonly allowSameOrOlder?: boolean;
 *   readonly now?: () => number;
 *   readonly onError?: (error: unknown) => void;
 *   readonly key?: Uint8Array;
 * }} SnapshotHolderOptions
 */

/**
 * Options of `SnapshotHolder.startPolling`.
 *
 * - `intervalMs`: delay between the end of one poll and the start of the next.
 * - `immediate`: poll once right away instead of after `intervalMs`. Default false.
 * - `fetch`: a fetch implementation (default `globalThis.fetch`).
 * - `signal`: aborting it stops polling (and aborts a fetch in flight).
 * - `headers`: extra request headers.
 * - `maxBytes`: refuse snapshots larger than this (`tooLarge` failure).
 * - `timeoutMs`: `fetchSnapshot`'s `timeoutMs` for each poll (default
 *   30 000; Infinity for none): a poll that gets no headers, or no body
 *   bytes, for that long is a failure `timeout` — counted in
 *   `loadFailureCount`, the snapshot in service kept, polling goes on.
 * - `freeReplacedAfterMs`: free a snapshot that polling loaded once a newer
 *   one replaced it, this many milliseconds later (long enough for calls
 *   that started on it to finish). Default: never — the
 *   FinalizationRegistry frees it when the GC collects it, which can lag far
 *   behind wasm memory growth.
 * - `freeReplaced`: free a snapshot that polling loaded as soon as it is
 *   replaced and no lease holds it (`holder.use(fn)`, `holder.lease()`):
 *   readers that lease never meet a freed filter, however long they take,
 *   and no memory waits for a fixed grace period. Not with
 *   `freeReplacedAfterMs`. Default false.
 * - `onRefresh`: called after each completed poll.
 * - `key`: the secret of a keyed layout (default: the holder's `key`); a
 *   delta's target is checked against its base's key.
 *
 * @typedef {{
 *   readonly intervalMs: number;
 *   readonly immediate?: boolean;
 *   readonly fetch?: typeof globalThis.fetch;
 *   readonly signal?: AbortSignal;
 *   readonly headers?: Record<string, string>;
 *   readonly maxBytes?: number;
 *   readonly timeoutMs?: number;
 *   readonly freeReplacedAfterMs?: number;
 *   readonly freeReplaced?: boolean;
 *   readonly onRefresh?: (result: SnapshotRefreshResult) => void;
 *   readonly key?: Uint8Array;
 * }} SnapshotPollingOptions
 */

/**
 * A byte result: always a fresh `Uint8Array` over its own `ArrayBuffer`, so
 * it fits `BlobPart`, `BufferSource` and `fetch` bodies (TypeScript ≥ 5.7).
 *
 * @typedef {Uint8Array<ArrayBuffer>} Bytes
 */

export {};
