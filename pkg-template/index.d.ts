// Types of the artifact-bloom public API (the main entry, "artifact-bloom";
// the other filters are in "artifact-bloom/variants"). The shapes
// (`BloomSpec`, `BloomError`, `Result<T>`) are the TypeScript reference's.
//
// scripts/build.mjs copies this file to index.d.cts, the CommonJS view of
// the same declarations.

// `Symbol.dispose` and `Disposable` for projects whose lib has no
// esnext.disposable and no @types/node (e.g. lib ES2022 + DOM): the same
// declarations as TypeScript's own lib, which merge with it where it is
// present, so `using filter = …` works wherever the compiler supports it.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
  interface Disposable {
    [Symbol.dispose](): void;
  }
}

/**
 * A byte result: always a fresh `Uint8Array` over its own `ArrayBuffer` —
 * `Uint8Array<ArrayBuffer>` on TypeScript ≥ 5.7 (so it fits `BlobPart`,
 * `BufferSource` and `fetch` bodies), a plain `Uint8Array` before.
 */
export type Bytes = ReturnType<typeof Uint8Array.from>;

/** What a filter is built for. */
export type BloomSpec = Readonly<{
  /** Upper bound on inserted digests, an integer from 1 to 2^30. */
  expectedItemCount: number;
  /** Design false-positive rate, strictly between 0 and 1. */
  targetFalsePositiveRate: number;
}>;

/** The reference's build errors. */
export type BloomError =
  | "invalidExpectedItemCount"
  | "invalidFalsePositiveRate"
  | "capacityExceeded"
  | "filterTooLarge"
  | "invalidDigest";

/** The reference's result shape: plain objects, compared with `deepEqual`. */
export type Result<TValue, TError extends string = BloomError> =
  | Readonly<{ kind: "success"; value: TValue }>
  | Readonly<{ kind: "failure"; error: TError }>;

/**
 * A Bloom filter over 32-byte SHA-256 artifact digests, bit-exact with the
 * reference `ArtifactBloomFilter` (layout rule and probe walk of ABF1
 * hash protocol 1). `mightContain` is a hint: `false` means *definitely
 * absent*; `true` means *maybe* — confirm with the repository at the same
 * catalogVersion. Immutable once built: no API clears bits.
 *
 * @example
 * ```ts
 * import { ArtifactBloomFilter } from "artifact-bloom";
 * const result = ArtifactBloomFilter.create(digests, {
 *   expectedItemCount: 1_000_000,
 *   targetFalsePositiveRate: 0.001,
 * });
 * if (result.kind === "failure") throw new Error(result.error);
 * using filter = result.value;          // or call filter.free() when done
 * if (!filter.mightContain(digest)) {
 *   // definitely absent: skip the remote lookup
 * }
 * ```
 */
export declare class ArtifactBloomFilter implements Disposable {
  private constructor();
  /**
   * Builds a filter. Checks, in the reference's order: the spec
   * (`invalidExpectedItemCount`, `invalidFalsePositiveRate`, `filterTooLarge`),
   * then `capacityExceeded` (more digests than `expectedItemCount`), then
   * `invalidDigest` (an element that is not a 32-byte `Uint8Array`, or
   * `digests` not an array).
   */
  static create(digests: readonly Uint8Array[], spec: BloomSpec): Result<ArtifactBloomFilter>;
  /**
   * Builds from one buffer of N × 32 packed digest bytes (the fast path).
   * A length that is not a multiple of 32 is `invalidDigest`.
   */
  static createPacked(packed: Uint8Array, spec: BloomSpec): Result<ArtifactBloomFilter>;
  /**
   * Bitwise OR of two filters with the same bitCount and hashCount (e.g.
   * partial filters over digest shards); inserted counts add up.
   */
  static union(
    a: ArtifactBloomFilter,
    b: ArtifactBloomFilter,
  ): Result<ArtifactBloomFilter, "incompatibleFilters">;
  /**
   * `false`: definitely absent. `true`: maybe present — never an answer.
   * @throws {RangeError} when `digest` is not a 32-byte `Uint8Array`.
   */
  mightContain(digest: Uint8Array): boolean;
  /**
   * Answers N packed digests in one call: a `Uint8Array` of N flags
   * (1 = maybe, 0 = definitely absent).
   * @throws {RangeError} when the length is not a multiple of 32.
   */
  mightContainMany(packed: Uint8Array): Bytes;
  /** How many of N packed digests answer "maybe". */
  countMaybe(packed: Uint8Array): number;
  getBitCount(): number;
  getHashCount(): number;
  /** Digests the filter was built from (duplicates counted as given). */
  getInsertedItemCount(): number;
  getExpectedItemCount(): number;
  getTargetFalsePositiveRate(): number;
  /** `(−expm1(−k·n/m))^k` for the inserted count n. */
  estimateFalsePositiveRate(): number;
  /** Set bits / all bits. */
  getFillRatio(): number;
  /** A copy of the bit array, LSB-first bytes (bit i in byte i >> 3). */
  serializeBits(): Bytes;
  /** True after `free()`. */
  readonly freed: boolean;
  /** Releases the wasm memory now (a FinalizationRegistry does it otherwise). */
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * Streaming SHA-256 in WebAssembly. In Node, `node:crypto` is faster for
 * large inputs; this class is for browsers and workers.
 *
 * @example
 * ```ts
 * const hasher = new Sha256();
 * for await (const chunk of file.stream()) hasher.update(chunk);
 * const digest = hasher.digest(); // 32 bytes
 * ```
 */
export declare class Sha256 implements Disposable {
  constructor();
  update(bytes: Uint8Array): this;
  /** The 32-byte digest; the hasher is finished afterwards. */
  digest(): Bytes;
  free(): void;
  [Symbol.dispose](): void;
}

/** One-shot SHA-256. */
export declare function sha256(bytes: Uint8Array): Bytes;

/** Size of the wasm linear memory in bytes (for leak checks). */
export declare function wasmMemoryBytes(): number;

/** Every field of the ABF1 header (docs/ABF1.md), as loaded. */
export type SnapshotHeader = Readonly<{
  formatVersion: number;
  hashProtocolVersion: number;
  catalogVersion: number;
  bitCount: number;
  hashCount: number;
  reserved: number;
  expectedItemCount: number;
  insertedItemCount: number;
  targetFpp: number;
  payloadLength: number;
  /** SHA-256 of header bytes [0, 64) and the payload, lowercase hex. */
  checksum: string;
}>;

/** ABF1 load failures, in the order the loader checks them, plus the stream/HTTP ones. */
export type SnapshotLoadError =
  | "truncated"
  | "badMagic"
  | "unsupportedFormatVersion"
  | "unsupportedHashProtocol"
  | "invalidHeader"
  | "lengthMismatch"
  | "checksumMismatch"
  /** `loadSnapshotStream`: more than `maxBytes`. */
  | "tooLarge"
  /** `fetchSnapshot`: a non-2xx answer. */
  | "httpError"
  /** `fetchSnapshot` with `etag`: the server answered 304. */
  | "notModified";

/** A load result: the snapshot, or the spec's error code and a message. */
export type SnapshotResult =
  | Readonly<{ kind: "success"; value: ArtifactIndexSnapshot & { header: SnapshotHeader } }>
  | Readonly<{ kind: "failure"; error: SnapshotLoadError; message: string }>;

/** Size of the fixed ABF1 header in bytes (96). */
export declare const ABF1_HEADER_LENGTH: number;

/**
 * Loads a complete ABF1 file. Never returns a partially usable filter.
 *
 * @example
 * ```ts
 * const loaded = loadSnapshot(new Uint8Array(await readFile("catalog.abf1")));
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * const { catalogVersion, filter } = loaded.value;
 * ```
 */
export declare function loadSnapshot(bytes: Uint8Array, meta?: SnapshotMeta): SnapshotResult;

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
 */
export type SnapshotMeta = Readonly<{ lastModified?: Date; etag?: string; source?: string }>;

/** Load steps 1–5 only: what a (possibly corrupted) file's header claims. */
export declare function readSnapshotHeader(
  bytes: Uint8Array,
): Readonly<{ kind: "success"; value: SnapshotHeader }> | Readonly<{ kind: "failure"; error: SnapshotLoadError; message: string }>;

/**
 * Encodes a filter and its catalog version as ABF1 bytes.
 * @throws {RangeError} when catalogVersion is not an integer in 0..2^53−1.
 * @throws {Error} with `code: "invalidFilter"` when the filter could not be
 *   loaded back — e.g. a `union` whose summed insertedItemCount exceeds
 *   expectedItemCount (ABF1 requires inserted ≤ expected).
 */
export declare function encodeSnapshot(filter: ArtifactBloomFilter, options: { catalogVersion: number }): Bytes;

export type SnapshotStreamOptions = {
  /** Refuse files larger than this (failure `tooLarge`), checked from the header. */
  maxBytes?: number;
  /** Called after each chunk; `total` is known once 96 bytes arrived. */
  onProgress?: (progress: { bytes: number; total: number | undefined }) => void;
  /** Aborting rejects the load with the signal's reason. */
  signal?: AbortSignal;
  /** Copied onto the snapshot (e.g. the file's mtime as `lastModified`). */
  meta?: SnapshotMeta;
};

/**
 * Loads an ABF1 file as it arrives: bad headers are rejected as soon as 96
 * bytes are in, the payload is reserved once, the checksum is incremental.
 *
 * @example
 * ```ts
 * const loaded = await loadSnapshotStream(fs.createReadStream("catalog.abf1"), {
 *   onProgress: ({ bytes, total }) => console.log(bytes, total),
 * });
 * ```
 */
export declare function loadSnapshotStream(
  source: ReadableStream<Uint8Array> | Response | AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options?: SnapshotStreamOptions,
): Promise<SnapshotResult>;

/**
 * `fetch` + `loadSnapshotStream`. The snapshot carries `etag` and
 * `lastModified` from the response; passing `etag` sends If-None-Match.
 *
 * @example
 * ```ts
 * const loaded = await fetchSnapshot("/snapshot", { onProgress: ({ bytes, total }) => {} });
 * ```
 */
export declare function fetchSnapshot(
  url: string | URL,
  options?: SnapshotStreamOptions & {
    etag?: string;
    headers?: Record<string, string>;
    fetch?: typeof fetch;
  },
): Promise<SnapshotResult>;

/** Unique digests (first-seen order) of N × 32 packed bytes, and the duplicate count. */
export declare function dedupePacked(packed: Uint8Array): { unique: Bytes; duplicates: number };

/**
 * An ArtifactRepository backed by the `artifact-bloom serve` existence API:
 * `HEAD /blobs/sha256/<hex>?catalogVersion=N` and `POST /blobs:findMissing`.
 * Any answer other than 200/404 rejects (it is never "absent").
 */
export declare class HttpArtifactRepository implements ArtifactRepository {
  constructor(baseUrl: string | URL, options?: { fetch?: typeof fetch });
  readonly requests: { exists: number; findMissing: number };
  existsAtVersionAsync(digest: Uint8Array, catalogVersion: number, signal?: AbortSignal): Promise<boolean>;
  existsManyAtVersionAsync(digests: readonly Uint8Array[], catalogVersion: number, signal?: AbortSignal): Promise<boolean[]>;
}

/** A catalog version: an integer from 0 to 2^53 − 1. */
export type CatalogVersion = number;

/**
 * A filter and the catalogVersion it was built from — the reference's
 * `ArtifactIndexSnapshot`. `loadSnapshot`/`fetchSnapshot` return one (with
 * `header`, and `etag`/`lastModified` from HTTP); a plain
 * `{ catalogVersion, filter }` works too. Treated as immutable.
 */
export type ArtifactIndexSnapshot = Readonly<{
  catalogVersion: CatalogVersion;
  filter: ArtifactBloomFilter;
  /** The ABF1 header fields, when loaded from a file. */
  header?: SnapshotHeader;
  /** The HTTP ETag it was served with; polling sends it as If-None-Match. */
  etag?: string;
  /** When the catalog was published; `snapshot.age_seconds` counts from it. */
  lastModified?: Date;
  /** Where it was loaded from (a URL or path). */
  source?: string;
}>;

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
 */
export type ArtifactRepository = {
  existsAtVersionAsync(digest: Uint8Array, catalogVersion: CatalogVersion, signal?: AbortSignal): Promise<boolean>;
  /** Optional batch lookup: one boolean per digest, in order. */
  existsManyAtVersionAsync?(
    digests: readonly Uint8Array[],
    catalogVersion: CatalogVersion,
    signal?: AbortSignal,
  ): Promise<readonly boolean[]>;
};

export type ArtifactExistenceServiceOptions = Readonly<{
  /** Digests per `existsManyAtVersionAsync` call (default 1000). */
  batchSize?: number;
  /** Repository calls in flight at once during `findMissingAsync` (default 16). */
  concurrency?: number;
  /** Clock in epoch milliseconds, for `snapshot.age_seconds` (default `Date.now`). */
  now?: () => number;
}>;

/**
 * `metrics()`: the `artifact_bloom.*` metric names, plus three ratios. Counters are this
 * service's queries since it was created; a query that threw on validation,
 * or was aborted before it started, counts nothing. Once the filter answered,
 * the answer is counted: a repository error or an abort during the lookup
 * counts the maybe but no false positive. Batch queries count per digest.
 *
 * @example
 * ```ts
 * const m = service.metrics();
 * if (m["artifact_bloom.fill_ratio"] > 0.6) alert("filter saturating: rebuild with a larger expectedItemCount");
 * if (m.observedFalsePositiveRate > 2 * m["artifact_bloom.estimated_fpp"]) alert("FPP above model");
 * ```
 */
export type ArtifactBloomMetrics = {
  "artifact_bloom.bit_count": number;
  "artifact_bloom.hash_count": number;
  "artifact_bloom.expected_item_count": number;
  "artifact_bloom.inserted_item_count": number;
  /** Set bits / all bits; computed once per snapshot (the filter is immutable). */
  "artifact_bloom.fill_ratio": number;
  /** `(1 − e^(−kn/m))^k` for the inserted count. */
  "artifact_bloom.estimated_fpp": number;
  /** Queries answered "definitely absent" (no repository I/O). */
  "artifact_bloom.negative.count": number;
  /** Queries answered "maybe" (sent to the repository). */
  "artifact_bloom.maybe.count": number;
  /** Maybes the repository then answered absent. */
  "artifact_bloom.false_positive.count": number;
  "artifact_bloom.catalog_version": number;
  /**
   * Seconds since the snapshot's `lastModified` when it has a valid one
   * (`fetchSnapshot` sets it from Last-Modified), else since this package
   * first saw the snapshot object (given to a service or SnapshotHolder).
   * Never negative: a `lastModified` in the future reads 0.
   */
  "artifact_bloom.snapshot.age_seconds": number;
  /** Failed refreshes of the SnapshotHolder; always 0 for a plain snapshot. */
  "artifact_bloom.snapshot.load_failure.count": number;
  /** negative / (negative + maybe); 0 before any query. */
  negativeBypassRatio: number;
  /** falsePositive / (negative + falsePositive); 0 when both are 0. */
  observedFalsePositiveRate: number;
  /** falsePositive / maybe; 0 before any maybe. */
  falseDiscoveryRatio: number;
};

/**
 * The absence-first lookup. A Bloom negative answers `false` without
 * I/O; a "maybe" is confirmed by the repository at the catalogVersion of the
 * snapshot that answered. Each call takes the snapshot once at its start, so
 * a `SnapshotHolder.replace` during the call does not affect it. Repository
 * errors propagate; they never become "absent".
 *
 * @example
 * ```ts
 * import { ArtifactExistenceService, SnapshotHolder, fetchSnapshot } from "artifact-bloom";
 * const loaded = await fetchSnapshot(url);
 * if (loaded.kind === "failure") throw new Error(loaded.message);
 * const holder = new SnapshotHolder(loaded.value);
 * holder.startPolling(url, { intervalMs: 60_000 });
 * const service = new ArtifactExistenceService(holder, repository);
 * if (await service.existsAsync(digest, request.signal)) { ... }
 * const missing = await service.findMissingAsync(digests); // upload only these
 * ```
 */
export declare class ArtifactExistenceService {
  /**
   * @throws {TypeError} when the repository has no `existsAtVersionAsync`.
   * @throws {TypeError | RangeError} for an invalid snapshot or option.
   */
  constructor(
    snapshotSource: ArtifactIndexSnapshot | SnapshotHolder,
    repository: ArtifactRepository,
    options?: ArtifactExistenceServiceOptions,
  );
  /** The snapshot a call starting now would use. */
  readonly snapshot: ArtifactIndexSnapshot;
  /**
   * Whether `digest` exists at the snapshot's catalogVersion.
   * Rejects with `RangeError` for a digest that is not a 32-byte
   * `Uint8Array` (never resolves `false` for it), with `signal.reason` if
   * `signal` already aborted (before any work), and with the repository's
   * error. `signal` is passed to the repository.
   */
  existsAsync(digest: Uint8Array, signal?: AbortSignal): Promise<boolean>;
  /**
   * Like REAPI FindMissingBlobs: the digests that do not exist — the same
   * objects, in input order. Bloom negatives need no I/O; one snapshot
   * serves the whole call. Maybes go to `existsManyAtVersionAsync` in
   * batches of `batchSize` when the repository has it, else to
   * `existsAtVersionAsync`; at most `concurrency` calls are in flight. The
   * repository gets a signal that aborts with `signal` or when a sibling
   * call fails (the first error rejects the call). Rejects with `RangeError`
   * naming the index (`digests[3] must be …`) for a bad digest, before any I/O.
   *
   * @example
   * ```ts
   * const missing = await service.findMissingAsync(blobDigests, AbortSignal.timeout(5_000));
   * await Promise.all(missing.map(upload));
   * ```
   */
  findMissingAsync<TDigest extends Uint8Array>(digests: readonly TDigest[], signal?: AbortSignal): Promise<TDigest[]>;
  /** The current metrics; cheap (filter statistics are cached per snapshot). */
  metrics(): ArtifactBloomMetrics;
  /** `renderPrometheus(this.metrics())`. */
  prometheus(): string;
}

/** What a `SnapshotHolder.refreshFrom` loader returns: `loadSnapshot`'s result shape. */
export type SnapshotLoaderResult =
  | Readonly<{ kind: "success"; value: ArtifactIndexSnapshot }>
  | Readonly<{ kind: "failure"; error: string; message?: string }>;

/**
 * What a refresh did. `failure` was counted in `loadFailureCount` (the
 * snapshot in service is unchanged); `notModified` (HTTP 304) and `stale` (a
 * snapshot no newer than the one in service) are not failures; `aborted`
 * only happens when polling is stopped mid-fetch.
 */
export type SnapshotRefreshResult =
  | Readonly<{ replaced: true; outcome: "replaced" }>
  | Readonly<{ replaced: false; outcome: "notModified" | "stale" | "aborted" }>
  | Readonly<{
    replaced: false;
    outcome: "failure";
    /** The load result's code (e.g. "checksumMismatch", "httpError"), or "loaderThrew", "invalidLoadResult", "invalidSnapshot". */
    error: string;
    message: string;
  }>;

export type SnapshotHolderOptions = Readonly<{
  /** Let `replace`/refreshes install a same or older catalogVersion (rollback). Default false. */
  allowSameOrOlder?: boolean;
  /** Clock in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** Receives exceptions thrown by `onReplace` listeners and `onRefresh`. */
  onError?: (error: unknown) => void;
}>;

export type SnapshotPollingOptions = Readonly<{
  /** Delay between the end of one poll and the start of the next. */
  intervalMs: number;
  /** Poll once right away instead of after `intervalMs`. Default false. */
  immediate?: boolean;
  /** A fetch implementation (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Aborting it stops polling (and aborts a fetch in flight). */
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Refuse snapshots larger than this (`tooLarge` failure). */
  maxBytes?: number;
  /** Called after each completed poll. */
  /**
   * Free a snapshot that polling loaded once a newer one replaced it, this
   * many milliseconds later (long enough for calls that started on it to
   * finish). Default: never — the FinalizationRegistry frees it when the GC
   * collects it, which can lag far behind wasm memory growth.
   */
  freeReplacedAfterMs?: number;
  onRefresh?: (result: SnapshotRefreshResult) => void;
}>;

/**
 * The atomically replaced "current snapshot" reference. Publishes only
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
export declare class SnapshotHolder {
  /** @throws {TypeError | RangeError} for an invalid snapshot or option. */
  constructor(initialSnapshot: ArtifactIndexSnapshot, options?: SnapshotHolderOptions);
  /** The snapshot in service. Take it once per query and use only that one. */
  current(): ArtifactIndexSnapshot;
  /**
   * Swaps in `snapshot` and returns the previous one (not freed).
   * @throws {RangeError} when its catalogVersion is not newer (unless
   * `allowSameOrOlder`), or it is invalid (the old snapshot stays).
   */
  replace(snapshot: ArtifactIndexSnapshot): ArtifactIndexSnapshot;
  /** Calls `callback(next, previous)` after each swap; returns an unsubscribe function. */
  onReplace(callback: (next: ArtifactIndexSnapshot, previous: ArtifactIndexSnapshot) => void): () => void;
  /**
   * Runs `loader(current)` and swaps in a newer snapshot. Never rejects for a
   * load problem (a failure result or a throw): see `SnapshotRefreshResult`.
   */
  refreshFrom(
    loader: (current: ArtifactIndexSnapshot) => SnapshotLoaderResult | Promise<SnapshotLoaderResult>,
  ): Promise<SnapshotRefreshResult>;
  /**
   * Polls `url` with `fetchSnapshot`, sending If-None-Match with the current
   * snapshot's etag; polls never overlap. Timers are `unref()`ed in Node, so
   * polling never keeps a process alive. Calling it again restarts polling.
   */
  startPolling(url: string | URL, options: SnapshotPollingOptions): void;
  /** Stops polling and aborts a fetch in flight; a no-op when not polling. */
  stopPolling(): void;
  readonly polling: boolean;
  readonly replaceCount: number;
  /** Failed refreshes (`artifact_bloom.snapshot.load_failure.count`). */
  readonly loadFailureCount: number;
  /** Refreshes that loaded a snapshot no newer than the one in service. */
  readonly staleCount: number;
  /** Refreshes answered HTTP 304. */
  readonly notModifiedCount: number;
  /** The last failed refresh, if any. */
  readonly lastFailure: Readonly<{ error: string; message: string; at: Date }> | undefined;
}

/**
 * Renders metrics in the Prometheus text exposition format (0.0.4): dots
 * become underscores (`artifact_bloom_fill_ratio`), the counts are
 * `counter`s, everything else (ratios included:
 * `artifact_bloom_negative_bypass_ratio`,
 * `artifact_bloom_observed_false_positive_rate`,
 * `artifact_bloom_false_discovery_ratio`) a `gauge`.
 * @throws {TypeError} when a metric is missing or not a number.
 *
 * @example
 * ```ts
 * http.createServer((req, res) => {
 *   res.setHeader("Content-Type", "text/plain; version=0.0.4");
 *   res.end(renderPrometheus(service.metrics()));
 * });
 * ```
 */
export declare function renderPrometheus(metrics: ArtifactBloomMetrics): string;

/**
 * Kept for code written for the earlier build that fetched the wasm file:
 * the module is now instantiated when the package is imported, everywhere,
 * so this resolves at once and ignores its argument.
 */
export default function init(options?: unknown): Promise<void>;
export declare function init(options?: unknown): Promise<void>;
/** Kept for the same code: a no-op (the embedded module is already instantiated). */
export declare function initSync(options?: unknown): void;
