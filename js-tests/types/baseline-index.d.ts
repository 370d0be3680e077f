// Not shipped, not compiled by tsconfig.json here: the hand-written
// declarations the package had before scripts/emit-types.mjs emitted
// pkg/index.d.ts (and .d.cts) from the JSDoc of lib/*.js. It is the baseline
// api-parity.test.mjs holds the emitted declarations to (no name, member or
// type alias lost): add a declaration for every new public export here too.
//
// Types of the artifact-bloom public API. The shapes (`BloomSpec`,
// `BloomError`, `Result<T>`) are the TypeScript reference's.

/** What a filter is built for. */
export type BloomSpec = Readonly<{
  /** Upper bound on inserted digests, an integer from 1 to 2^30. */
  expectedItemCount: number;
  /** Design false-positive rate, strictly between 0 and 1. */
  targetFalsePositiveRate: number;
}>;

/**
 * The reference's build errors, then `outOfMemory` (not the reference's):
 * WebAssembly memory, which grows to 4 GiB at most and never shrinks, had no
 * room for the digests' copy or the bit array.
 */
export type BloomError =
  | "invalidExpectedItemCount"
  | "invalidFalsePositiveRate"
  | "capacityExceeded"
  | "filterTooLarge"
  | "invalidDigest"
  | "outOfMemory";

/**
 * The reference's result shape: plain objects, compared with `deepEqual`.
 * Only an `outOfMemory` failure carries a `message` (the bytes it could not
 * reserve).
 */
export type Result<TValue, TError extends string = BloomError> =
  | Readonly<{ kind: "success"; value: TValue }>
  | Readonly<{ kind: "failure"; error: TError; message?: string }>;

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
   * `digests` not an array); then `outOfMemory` (with a `message`) when wasm
   * memory has no room for the bit array.
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
  ): Result<ArtifactBloomFilter, "incompatibleFilters" | "outOfMemory">;
  /**
   * `false`: definitely absent. `true`: maybe present — never an answer.
   * @throws {RangeError} when `digest` is not a 32-byte `Uint8Array`.
   */
  mightContain(digest: Uint8Array): boolean;
  /**
   * Answers N packed digests in one call: a `Uint8Array` of N flags
   * (1 = maybe, 0 = definitely absent).
   * @throws {RangeError} when the length is not a multiple of 32.
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room
   *   for the batch's copy or the flags.
   */
  mightContainMany(packed: Uint8Array): Uint8Array;
  /**
   * How many of N packed digests answer "maybe".
   * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for the batch's copy.
   */
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
  serializeBits(): Uint8Array;
  /** True after `free()`. */
  readonly freed: boolean;
  /**
   * Releases the wasm memory now, for the next filter to reuse (the memory
   * itself never shrinks). A FinalizationRegistry does it otherwise, but only
   * between tasks: a synchronous loop that drops filters without `free()`
   * (or `using`) keeps every one of them until it yields.
   */
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
  digest(): Uint8Array;
  free(): void;
  [Symbol.dispose](): void;
}

/** One-shot SHA-256. */
export declare function sha256(bytes: Uint8Array): Uint8Array;

/**
 * Size of the wasm linear memory in bytes (for leak checks). It only grows
 * (to 4 GiB at most): freed memory is reused inside it, never returned.
 */
export declare function wasmMemoryBytes(): number;

/** `hashFiles`' default `wholeFileLimit`: 256 MiB. */
export declare const DEFAULT_WHOLE_FILE_LIMIT: number;

/**
 * One file's outcome in `hashFiles`: its 32-byte SHA-256, or why there is
 * none — `readFailed` (the file vanished or became unreadable; `message`
 * has the browser's error) or `workerFailed` (the `workerUrl` given could
 * not start, or a hashing worker stopped while it hashed the file).
 */
export type HashFileResult =
  | Readonly<{ kind: "success"; value: Uint8Array }>
  | Readonly<{ kind: "failure"; error: "readFailed" | "workerFailed"; message: string }>;

/**
 * Where a file was hashed: `workers` (the package's module workers, or the
 * `workerUrl` given), `blob-workers` (workers made from source the page
 * already holds, where hash-worker.js could not start), `calling-thread`.
 */
export type HashFilesRunner = "workers" | "blob-workers" | "calling-thread";

export type HashFilesProgress = Readonly<{
  /** Bytes processed so far over all files (never decreases; read bytes for files read whole). */
  bytes: number;
  /** The sum of the files' sizes, once all are known (undefined until then). */
  total: number | undefined;
  /** The file that advanced: its position in `files`. */
  index: number;
  /** That file's bytes processed so far. */
  fileBytes: number;
  /** Where that file is hashed. */
  runner: HashFilesRunner;
}>;

export type HashFilesOptions = {
  /** Called as bytes are processed (throttled per file; the last call has `bytes === total`). */
  onProgress?: (progress: HashFilesProgress) => void;
  /** Called once per file as soon as its result is known; `ms` from the start of its hashing. */
  onFile?: (file: Readonly<{ index: number; result: HashFileResult; ms: number; runner: HashFilesRunner }>) => void;
  /** Aborting rejects with the signal's reason and stops every worker at once. */
  signal?: AbortSignal;
  /** Files hashed at once (and the most workers): default `navigator.hardwareConcurrency`, at most 8 (4 when unknown); in browsers up to 4 times as many files of at most 1 MiB. */
  concurrency?: number;
  /**
   * Files up to this many bytes are read whole and digested by WebCrypto;
   * larger ones stream through SHA-256 in wasm. The files held whole at any
   * moment total at most this many bytes. Default `DEFAULT_WHOLE_FILE_LIMIT`.
   */
  wholeFileLimit?: number;
  /**
   * A module worker script that speaks `lib/hashing/hash-worker.js`'s protocol.
   * Default: that file, and where it cannot start (a bundler that does not
   * emit it), a Blob-URL worker or the calling thread. A `workerUrl` given
   * that cannot start is not replaced: its files fail with `workerFailed`.
   */
  workerUrl?: string | URL;
};

/**
 * The SHA-256 of each file, in the order given, using the machine: in
 * browsers files up to `wholeFileLimit` (256 MiB) are read whole and
 * digested by WebCrypto (native code), larger ones — and every file where
 * WebCrypto is missing, i.e. outside a secure context — stream through
 * SHA-256 in wasm; files over 1 MiB are hashed in a pool of module workers
 * sized from `navigator.hardwareConcurrency`, so the page's main thread
 * only hands over Blob handles. Memory: at most `wholeFileLimit` bytes held
 * whole at once (WebCrypto copies them once more while it digests), plus
 * one stream chunk per streamed file. In Node (no workers) files stream
 * through node:crypto in the calling thread.
 *
 * One unreadable file fails alone; the promise rejects only for bad
 * arguments (TypeError, RangeError), an abort (the signal's reason) or a
 * callback that throws.
 *
 * @example
 * ```ts
 * const results = await hashFiles(input.files, {
 *   onFile: ({ index, result }) => {
 *     if (result.kind === "success") decide(index, result.value);
 *   },
 * });
 * ```
 */
export declare function hashFiles(
  files: Iterable<Blob> | ArrayLike<Blob>,
  options?: HashFilesOptions,
): Promise<HashFileResult[]>;

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
  /** `loadSnapshotStream`: more than `maxBytes` (decided from the header, before anything is reserved). */
  | "tooLarge"
  /** WebAssembly memory (4 GiB at most, never shrinking) had no room for the file's copy or the bit array. */
  | "outOfMemory"
  /** `fetchSnapshot`: a non-2xx answer (the failure carries `status`). */
  | "httpError"
  /** `fetchSnapshot` with `etag`: the server answered 304. */
  | "notModified"
  /**
   * `fetchSnapshot`: no response headers within `timeoutMs`, or no body bytes
   * for that long; `loadSnapshotStream`: no chunk for `idleTimeoutMs`. The
   * source is cancelled (the connection dropped).
   */
  | "timeout";

/** A load result: the snapshot, or the spec's error code and a message. */
export type SnapshotResult =
  | Readonly<{ kind: "success"; value: ArtifactIndexSnapshot & { header: SnapshotHeader } }>
  | Readonly<{
    kind: "failure";
    error: SnapshotLoadError;
    message: string;
    /** The HTTP status that came, on an `httpError` failure. */
    status?: number;
  }>;

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
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for the output.
 */
export declare function encodeSnapshot(filter: ArtifactBloomFilter, options: { catalogVersion: number }): Uint8Array;

/**
 * The timer functions a time limit uses (default: the global `setTimeout` /
 * `clearTimeout`). Inject them to drive time limits in tests without waiting
 * on the clock; they are called as methods of this object.
 */
export type Timers = {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export type SnapshotStreamOptions = {
  /**
   * Refuse files larger than this (failure `tooLarge`): checked from the
   * header, before anything is reserved for the payload.
   */
  maxBytes?: number;
  /**
   * No chunk for this many milliseconds: failure `timeout`, and the source is
   * cancelled. Default: no limit for a stream you pass in (your source may
   * pause by design); `fetchSnapshot` uses its `timeoutMs`. A positive number
   * (Infinity: no limit); anything else throws a RangeError.
   */
  idleTimeoutMs?: number;
  /** Timer functions for the idle limit (tests). */
  timers?: Timers;
  /** Browsers: checksummed bytes from which the WebCrypto digest runs in a worker (default 8 MiB). */
  checksumWorkerMinBytes?: number;
  /** Called after each chunk; `total` is known once 96 bytes arrived. */
  onProgress?: (progress: { bytes: number; total: number | undefined }) => void;
  /** Aborting rejects the load with the signal's reason. */
  signal?: AbortSignal;
  /** Copied onto the snapshot (e.g. the file's mtime as `lastModified`). */
  meta?: SnapshotMeta;
};

/**
 * Loads an ABF1 file as it arrives: bad headers (and `maxBytes`) are decided
 * as soon as 96 bytes are in, the bit array grows as the payload arrives (a
 * stalled stream holds at most twice what it delivered until 1/32 of the
 * payload is in, then the whole payload), the checksum is incremental.
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
  options?: FetchSnapshotDeltaOptions,
): Promise<FetchSnapshotResult>;

/**
 * `fetchSnapshot`'s options: the stream options plus HTTP ones. Redirects are
 * followed (the file proves itself: magic, checksum, catalogVersion).
 */
export type FetchSnapshotOptions = SnapshotStreamOptions & {
  /** Sent as If-None-Match; a 304 answers failure `notModified`. */
  etag?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /**
   * The wait for the response headers, and (unless `idleTimeoutMs` is given)
   * the longest pause between body chunks: past it, failure `timeout`.
   * Default 30 000; Infinity for none. A download that keeps sending is not
   * cut off — bound the whole load with `signal: AbortSignal.timeout(ms)`.
   */
  timeoutMs?: number;
};

/** Unique digests (first-seen order) of N × 32 packed bytes, and the duplicate count. */
export declare function dedupePacked(packed: Uint8Array): { unique: Uint8Array; duplicates: number };

// ---- ABD1 snapshot deltas (docs/ABD1.md) ---------------------------------

/** Every field of an ABD1 delta's header, as read. */
export type SnapshotDeltaHeader = Readonly<{
  formatVersion: number;
  /** 1: Golomb–Rice coded gaps between zero-bit ranks of the base. */
  positionEncoding: number;
  riceParameter: number;
  /** The base the delta applies to: its catalogVersion, set bits and bit-array SHA-256 (hex). */
  baseCatalogVersion: number;
  baseSetBitCount: number;
  basePayloadSha256: string;
  /** SHA-256 (hex) of the target's bit array: what a following delta names as its base. */
  targetPayloadSha256: string;
  /** Bits the delta sets. */
  positionCount: number;
  bodyLength: number;
  /** The target's complete ABF1 header, checksum included. */
  target: SnapshotHeader;
}>;

/** Why delta bytes do not decode, in the order the decoder checks (plus allocation failure). */
export type SnapshotDeltaError =
  | "truncated"
  | "badMagic"
  | "unsupportedFormatVersion"
  | "unsupportedPositionEncoding"
  | "invalidTargetHeader"
  | "invalidHeader"
  | "lengthMismatch"
  | "checksumMismatch"
  | "positionsTruncated"
  | "positionOutOfRange"
  | "nonCanonicalPositions"
  | "outOfMemory";

/** `encodeSnapshotDelta` failures: no delta exists, or the target cannot be written as ABF1. */
export type SnapshotDeltaEncodeError =
  | "incompatibleLayout"
  | "notSuperset"
  | "notNewer"
  | "invalidFilter"
  | "catalogVersionOutOfRange"
  | "outOfMemory";

/** `applySnapshotDelta` failures: decoding, the base, the rebuilt target's own load. */
export type SnapshotDeltaApplyError = SnapshotDeltaError | SnapshotLoadError | "wrongBase" | "resultChecksumMismatch";

/** `composeSnapshotDeltas` failures. */
export type SnapshotDeltaComposeError = SnapshotDeltaError | "notChained";

/** A delta operation's result. */
export type SnapshotDeltaResult<TValue, TError extends string> =
  | Readonly<{ kind: "success"; value: TValue }>
  | Readonly<{ kind: "failure"; error: TError; message: string }>;

/**
 * The ABD1 delta from `base` to `target` (same bitCount and hashCount, newer
 * catalogVersion, every base bit still set): the publisher's side. Now
 * exported by "artifact-bloom/delta" (its own wasm module).
 * @throws {TypeError | RangeError} when an argument is not a snapshot with a live filter.
 *
 * @example
 * ```ts
 * const delta = encodeSnapshotDelta(previous, current);
 * if (delta.kind === "success") await writeFile("v41-v42.abd1", delta.value);
 * else console.log(`full snapshot only: ${delta.error}`); // e.g. notSuperset
 * ```
 */
export declare function encodeSnapshotDelta(
  base: ArtifactIndexSnapshot,
  target: ArtifactIndexSnapshot,
): SnapshotDeltaResult<Uint8Array, SnapshotDeltaEncodeError>;

/**
 * Applies a delta to the snapshot it was made from: a NEW snapshot of the
 * target, equal to `loadSnapshot` of the full target file (the base is left
 * as it was). Ends with the ABF1 checksum of the rebuilt target. Now
 * exported by "artifact-bloom/delta" (its own wasm module).
 * @throws {TypeError | RangeError} for a wrong argument type.
 *
 * @example
 * ```ts
 * const next = applySnapshotDelta(holder.current(), deltaBytes);
 * if (next.kind === "success") holder.replace(next.value);
 * ```
 */
export declare function applySnapshotDelta(
  baseSnapshot: ArtifactIndexSnapshot,
  deltaBytes: Uint8Array,
  meta?: SnapshotMeta,
): SnapshotResult | SnapshotDeltaResult<never, SnapshotDeltaApplyError>;

/**
 * Joins A→B and B→C into A→C (byte for byte `encodeSnapshotDelta(A, C)`):
 * what a server hands a client several versions behind. Now exported by
 * "artifact-bloom/delta".
 */
export declare function composeSnapshotDeltas(
  first: Uint8Array,
  second: Uint8Array,
): SnapshotDeltaResult<Uint8Array, SnapshotDeltaComposeError>;

/**
 * A delta's header: its 200 fixed bytes only by default (what a damaged file
 * claims); `{ verify: true }` also checks length, checksum and positions.
 * Now exported by "artifact-bloom/delta".
 */
export declare function readSnapshotDeltaHeader(
  bytes: Uint8Array,
  options?: { verify?: boolean },
): SnapshotDeltaResult<SnapshotDeltaHeader, SnapshotDeltaError>;

/**
 * What a `fetchSnapshot` download cost: body bytes, whether an ABD1 delta
 * was applied (`226 IM Used`), the full file's size, and why a delta the
 * server sent was not used.
 */
export type SnapshotTransfer = Readonly<{
  bytes: number;
  delta: boolean;
  fullBytes: number;
  deltaFailure?: string;
}>;

/**
 * `fetchSnapshot`'s result: `SnapshotResult` whose success carries
 * `transfer`, plus `networkError` (no HTTP answer; `causeCode`) and, with a
 * `base`, `versionConflict` (the same catalogVersion with another checksum;
 * the server's verified `snapshot` comes along).
 */
export type FetchSnapshotResult =
  | Readonly<{ kind: "success"; value: ArtifactIndexSnapshot & { header: SnapshotHeader }; transfer: SnapshotTransfer }>
  | Extract<SnapshotResult, { kind: "failure" }>
  | Readonly<{ kind: "failure"; error: "networkError"; message: string; causeCode?: string; status?: undefined }>
  | Readonly<{
    kind: "failure";
    error: "versionConflict";
    message: string;
    snapshot: ArtifactIndexSnapshot & { header: SnapshotHeader };
    transfer: SnapshotTransfer;
    status?: undefined;
  }>;

/** `fetchSnapshot`'s options plus `base`: ask for an ABD1 delta from that snapshot (docs/ABD1.md "HTTP"). */
export type FetchSnapshotDeltaOptions = FetchSnapshotOptions & { base?: ArtifactIndexSnapshot };

/** `startPolling`'s options plus `delta` (default true) and `timers` (schedule the polls; tests). */
export type SnapshotDeltaPollingOptions = SnapshotPollingOptions & { readonly delta?: boolean; readonly timers?: Timers };

/**
 * Why an `HttpArtifactRepository` call rejected:
 * - `redirect`: a 3xx (or a browser's opaque redirect, status 0). Redirects
 *   are never followed: an existence answer comes only from the repository.
 * - `unexpectedStatus`: any other status but 200/404 (HEAD) or 200 (findMissing).
 * - `malformedResponse`: a findMissing 200 whose body is not
 *   `{ catalogVersion, missing: [hex…] }` for the version asked.
 * - `timeout`: no complete answer within `timeoutMs` (no `status`).
 * - `networkError`: no HTTP answer at all (connection refused or reset, a
 *   body cut off); `causeCode` names the cause.
 */
export type HttpClientErrorCode = "redirect" | "unexpectedStatus" | "malformedResponse" | "timeout" | "networkError";

/** The Error an `HttpArtifactRepository` call rejects with for a non-answer. */
export type HttpClientError = Error & {
  readonly code: HttpClientErrorCode;
  /** The HTTP status that came; absent on `timeout` and `networkError`. */
  readonly status?: number;
  /** `networkError`: the cause's code ("ECONNRESET", "UND_ERR_SOCKET", …), when the platform gives one. */
  readonly causeCode?: string;
};

export type HttpArtifactRepositoryOptions = {
  /** A fetch implementation (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /**
   * Per request, body included: past it the call rejects with code
   * `timeout` (name "TimeoutError"). Default 30 000; Infinity for none. A
   * caller's aborted `signal` still rejects with the caller's reason.
   */
  timeoutMs?: number;
  /** Timer functions for the limit (tests). */
  timers?: Timers;
};

/**
 * An ArtifactRepository backed by the `artifact-bloom serve` existence API:
 * `HEAD /blobs/sha256/<hex>?catalogVersion=N` and `POST /blobs:findMissing`.
 * Only the repository's own 200/404 is an answer; anything else — a
 * redirect, another status, a malformed body, a timeout — rejects with an
 * `HttpClientError` (`code`, `status`), never "absent" or "exists".
 *
 * @example
 * ```ts
 * const repository = new HttpArtifactRepository("http://127.0.0.1:8080/", { timeoutMs: 5_000 });
 * try {
 *   await repository.existsAtVersionAsync(digest, 43);
 * } catch (error) {
 *   if ((error as HttpClientError).code === "timeout") retryLater();
 * }
 * ```
 */
export declare class HttpArtifactRepository implements ArtifactRepository {
  /** @throws {TypeError | RangeError} for a bad baseUrl, fetch, timeoutMs or timers. */
  constructor(baseUrl: string | URL, options?: HttpArtifactRepositoryOptions);
  readonly requests: { exists: number; findMissing: number };
  existsAtVersionAsync(digest: Uint8Array, catalogVersion: number, signal?: AbortSignal): Promise<boolean>;
  existsManyAtVersionAsync(digests: readonly Uint8Array[], catalogVersion: number, signal?: AbortSignal): Promise<boolean[]>;
}

/** Registry credentials: none (anonymous), username/password, or a bearer token sent as is. */
export type RegistryCredentials = Readonly<{
  /** Basic auth, or sent (Basic) to the Bearer token realm. */
  username?: string;
  password?: string;
  /** A ready bearer token: sent on every request; no challenge flow. */
  token?: string;
  /** An OAuth2 refresh token (docker's identitytoken), exchanged at the Bearer token realm. */
  identityToken?: string;
}>;

export type OciRegistryRepositoryOptions = Readonly<{
  /** A fetch implementation (default: `globalThis.fetch`). */
  fetch?: typeof fetch;
  credentials?: RegistryCredentials;
  /** Per request, body included (default 30 000). */
  timeoutMs?: number;
  /** HEADs in flight in one `existsManyAtVersionAsync` / `findMissingAsync` call (default 8). */
  concurrency?: number;
  /** The only catalogVersion this repository may be asked about; others reject with code `catalogVersionMismatch`. */
  catalogVersion?: number;
  /** Clock in epoch milliseconds, for bearer-token expiry (default `Date.now`). */
  now?: () => number;
  /** Bearer token realms on another origin that may receive the Basic credentials. */
  tokenRealms?: readonly (string | URL)[];
}>;

/** Requests an OciRegistryRepository sent, by method, plus token-realm requests. */
export type RegistryRequestCounts = {
  head: number;
  get: number;
  post: number;
  patch: number;
  put: number;
  delete: number;
  token: number;
};

export type OciRegistryErrorCode =
  | "unauthorized"
  | "denied"
  | "notFound"
  | "redirect"
  | "tooManyRequests"
  | "serverError"
  | "unexpectedStatus"
  | "timeout"
  | "networkError"
  | "badResponse"
  | "digestMismatch"
  | "crossOrigin"
  | "tooLarge"
  | "notStored";

/** A registry answer that was not the expected one, or no answer at all. */
export declare class OciRegistryError extends Error {
  constructor(
    message: string,
    details: { code: OciRegistryErrorCode; status?: number; registryCode?: string; cause?: unknown },
  );
  readonly name: "OciRegistryError";
  code: OciRegistryErrorCode;
  /** The HTTP status; undefined for `timeout` and `networkError`. */
  status: number | undefined;
  /** The registry's own error code from its JSON body, e.g. "BLOB_UNKNOWN". */
  registryCode: string | undefined;
}

/**
 * An ArtifactRepository backed by one repository of an OCI distribution
 * registry: `HEAD /v2/<repository>/blobs/sha256:<hex>`, 200 → true,
 * 404 → false, anything else (3xx included: redirects are not followed)
 * rejects with an `OciRegistryError`. Auth: anonymous, Basic, or the Bearer
 * token challenge flow (token cached per realm/service/scope, request
 * retried once on 401). fetch only: Node ≥ 20 and browsers (the registry
 * must allow CORS; see docs/oci-registry.md).
 *
 * A registry has no catalog versions: it answers for *now*, whatever
 * catalogVersion the service passes (validated only), unless
 * `options.catalogVersion` pins one.
 *
 * @example
 * ```ts
 * const repository = new OciRegistryRepository("https://registry.example", "team/app", {
 *   credentials: { username: "ci", password: token },
 * });
 * const service = new ArtifactExistenceService(snapshot, repository);
 * const toUpload = await service.findMissingAsync(layerDigests); // HEADs only for the maybes
 * ```
 */
export declare class OciRegistryRepository implements ArtifactRepository {
  /**
   * @throws {TypeError} for a registry URL that is not http(s) or a bad repository name.
   * @throws {RangeError} for a bad `timeoutMs`, `concurrency` or `catalogVersion`.
   */
  constructor(registryUrl: string | URL, repository: string, options?: OciRegistryRepositoryOptions);
  readonly repository: string;
  /** A copy of the counts so far. */
  readonly requests: RegistryRequestCounts;
  existsAtVersionAsync(digest: Uint8Array, catalogVersion: CatalogVersion, signal?: AbortSignal): Promise<boolean>;
  /** One HEAD per digest, at most `concurrency` in flight; the first failure rejects and stops the rest. */
  existsManyAtVersionAsync(digests: readonly Uint8Array[], catalogVersion: CatalogVersion, signal?: AbortSignal): Promise<boolean[]>;
  /** HEADs every digest (no snapshot) → the missing ones, same objects, input order. */
  findMissingAsync(digests: readonly Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[]>;
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
 * `metrics()`: the seed's metric names, plus three ratios. Counters are this
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
 * The seed's absence-first lookup. A Bloom negative answers `false` without
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
  findMissingAsync(digests: readonly Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[]>;
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
    replaced: true;
    outcome: "failure";
    /** The same catalogVersion with another checksum: counted, and the loaded snapshot adopted. */
    error: "versionConflict";
    message: string;
  }>
  | Readonly<{
    replaced: false;
    outcome: "failure";
    /** The load result's code (e.g. "checksumMismatch", "httpError", "timeout"), or "loaderThrew", "invalidLoadResult", "invalidSnapshot". */
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
  /**
   * `fetchSnapshot`'s `timeoutMs` for each poll (default 30 000; Infinity for
   * none): a poll that gets no headers, or no body bytes, for that long is a
   * failure `timeout` — counted in `loadFailureCount`, the snapshot in
   * service kept, polling goes on.
   */
  timeoutMs?: number;
  /**
   * Free a snapshot that polling loaded once a newer one replaced it, this
   * many milliseconds later (long enough for calls that started on it to
   * finish). Default: never — the FinalizationRegistry frees it when the GC
   * collects it, which can lag far behind wasm memory growth.
   */
  freeReplacedAfterMs?: number;
  /** Called after each completed poll. */
  onRefresh?: (result: SnapshotRefreshResult) => void;
}>;

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
  startPolling(url: string | URL, options: SnapshotDeltaPollingOptions): void;
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
  /** Refreshes that loaded the catalogVersion in service with another checksum (also in `loadFailureCount`). */
  readonly versionConflictCount: number;
  /** Downloads rebuilt from an ABD1 delta. */
  readonly deltaRefreshCount: number;
  /** Downloads of the full snapshot. */
  readonly fullRefreshCount: number;
  /** Body bytes of every counted download. */
  readonly bytesTransferred: number;
  /** Full-snapshot bytes minus transferred bytes, summed. */
  readonly bytesSaved: number;
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
 * Instantiates the wasm module. Required once in browsers before any other
 * call (`await init()`); a no-op in Node, where loading is synchronous.
 */
export default function init(options?: unknown): Promise<unknown>;
export declare function init(options?: unknown): Promise<unknown>;
/**
 * Instantiates the wasm module synchronously from its bytes or a compiled
 * module (browser build; a no-op in Node).
 */
export declare function initSync(options: { module: ArrayBuffer | ArrayBufferView | object }): unknown;

// ==== The other seed systems (lib/variants/tlbf.js, lib/variants/mergeable.js, lib/variants/scalable.js, lib/variants/sizing.js) ================================
// TlBloom (seed 002, TLBF bytes), MergeableBloomFilter + MergeableDelta (seed
// 003, MBLF, docs/mergeable-format.md), ScalableBloomFilter (seed 004 step 5,
// SBLF, docs/scalable-format.md) and the sizing helpers (seed 004 steps 4, 6).
//
// Error policy, the same for all of them:
// - Builders (`TlBloom.withRate`, `MergeableBloomFilter.create`,
//   `new ScalableBloomFilter`) and the sizing helpers THROW for invalid
//   arguments: a `TypeError` for a wrong type, a `RangeError` for a number out
//   of range, both carrying `code` (a `SystemsArgumentError`).
// - Loaders (`TlBloom.fromBytes`, `MergeableBloomFilter.decode`,
//   `MergeableDelta.decode`, `ScalableBloomFilter.decode`) throw a `TypeError`
//   only when `bytes` is not a `Uint8Array`; any byte content RETURNS a
//   `DecodeResult` (`{ kind: "success", value }` or
//   `{ kind: "failure", error, message }`), like `loadSnapshot`.
// - `union` / `piece` of different shapes throw an `Error` whose `code` is
//   `"incompatibleFilters"`; a wrong argument type is a `TypeError`.
// - Items are a `Uint8Array` or a `string` (hashed as its UTF-8 bytes, lone
//   surrogates as U+FFFD); anything else is a `TypeError` naming `item`.
// - Every method and getter except `freed` and `free()` throws once the
//   object was freed.
// - When WebAssembly memory (4 GiB at most, never shrinking) has no room for
//   a filter, an input's copy or an encoding, loaders return the failure
//   `outOfMemory` and everything else throws an `Error` whose `code` is
//   `"outOfMemory"` (not a TypeError/RangeError: no argument was wrong).

/** An item: raw bytes, or a string hashed as its UTF-8 bytes. */
export type BloomItem = Uint8Array | string;

/** The `code` on a `TypeError`/`RangeError` thrown for an invalid argument. */
export type SystemsArgumentError =
  | "invalidExpectedItemCount"
  | "invalidFalsePositiveRate"
  | "filterTooLarge"
  | "invalidInitialCapacity"
  | "invalidGrowthFactor"
  | "invalidTighteningRatio"
  | "invalidFillRatio"
  | "invalidHashCount"
  | "invalidItemCount"
  | "invalidBitCount";

/** A loader's result: the value, or the first failed check's code and a message. */
export type DecodeResult<TValue, TError extends string> =
  | Readonly<{ kind: "success"; value: TValue }>
  | Readonly<{ kind: "failure"; error: TError; message: string }>;

/** `TlBloom.fromBytes` failures, in the order they are checked. */
export type TlbfDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "zeroBitCount"
  | "zeroHashCount"
  | "nonZeroReserved"
  | "filterTooLarge"
  | "hashCountTooLarge"
  | "lengthMismatch"
  | "nonZeroPadding"
  | "outOfMemory";

/**
 * The TLBF filter of seed 002, byte-compatible with `tl_ds::bloom::Bloom` and
 * the Python dedup implementation (FNV-1a 64 + SplitMix64 double hashing).
 * `contains` false: never inserted; true: probably inserted. Inserting more
 * than the designed n is allowed — the rate degrades; watch `fillRatio`.
 *
 * @example
 * ```ts
 * using filter = TlBloom.withRate(4, 0.1);      // m = 20, k = 3
 * filter.insert("cat").insert("dog");
 * filter.contains("bird");                       // false
 * const bytes = filter.toBytes();                // 35 bytes
 * const loaded = TlBloom.fromBytes(bytes);
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * loaded.value.contains("cat");                  // true
 * ```
 */
export declare class TlBloom implements Disposable {
  private constructor();
  /**
   * Sized for `n` items at rate `p`: `m = ceil(−n·ln p / ln² 2)`,
   * `k = max(1, round(m/n · ln 2))`.
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`
   * (n not an integer ≥ 1), `invalidFalsePositiveRate` (p not in (0, 1)) or
   * `filterTooLarge` (m above 2^30).
   */
  static withRate(n: number, p: number): TlBloom;
  /**
   * Parses TLBF bytes. Beyond the seed's rejections it also refuses m above
   * 2^30, k above 4096 and set padding bits, so every accepted input
   * round-trips through `toBytes` byte for byte.
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static fromBytes(bytes: Uint8Array): DecodeResult<TlBloom, TlbfDecodeError>;
  /** Sets the item's k bits and counts the call; returns this. */
  insert(item: BloomItem): this;
  /** `false`: never inserted. `true`: maybe. */
  contains(item: BloomItem): boolean;
  /**
   * ORs `other` into this filter; the inserted counts add. Returns this.
   * @throws {Error} with `code` `"incompatibleFilters"` when m or k differ.
   * @throws {TypeError} when `other` is not a `TlBloom`.
   */
  union(other: TlBloom): this;
  /** The seed's layout: a 32-byte header, then `ceil(m / 8)` bit bytes. */
  toBytes(): Uint8Array;
  /** Bits. */
  readonly m: number;
  /** Probes per item. */
  readonly k: number;
  /** Insert calls so far (union adds); a loaded count above 2^53 is rounded. */
  readonly insertedCount: number;
  /** Set bits / m. The implied rate is `fppFromFillRatio(fillRatio, k)`. */
  readonly fillRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/** `MergeableBloomFilter.decode` / `MergeableDelta.decode` failures (docs/mergeable-format.md). */
export type MergeableDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "checksumMismatch"
  | "unknownKind"
  | "unexpectedKind"
  | "nonZeroReserved"
  | "invalidBitCount"
  | "filterTooLarge"
  | "zeroHashCount"
  | "hashCountTooLarge"
  | "lengthMismatch"
  | "entryCountMismatch"
  | "wordIndexOutOfRange"
  | "wordIndicesNotIncreasing"
  | "zeroWordValue"
  | "nonCanonicalEncoding"
  | "outOfMemory";

/** One changed 64-bit word: its index and its full value after the add. */
export type MergeableDeltaEntry = Readonly<{ wordIndex: number; wordValue: bigint }>;

/**
 * The sparse delta one `add` returns: the words it changed, each with its
 * full value, so applying it anywhere is an OR (idempotent, commutative,
 * associative). Held in JavaScript, not in wasm memory: ignoring it is free.
 *
 * @example
 * ```ts
 * const delta = replicaA.add("alice");
 * send(delta.encode());                                   // the wire form
 * const received = MergeableDelta.decode(bytesFromPeer);
 * if (received.kind === "success") replicaB.piece(received.value);
 * ```
 */
export declare class MergeableDelta implements Disposable {
  private constructor();
  /**
   * Parses a delta's wire form (kind 3).
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<MergeableDelta, MergeableDecodeError>;
  /** bitCount of the filter it came from. */
  readonly bitCount: number;
  /** hashCount of the filter it came from. */
  readonly hashCount: number;
  /** The changed words, `wordIndex` strictly increasing, `wordValue` non-zero (empty when nothing changed). */
  readonly entries: readonly MergeableDeltaEntry[];
  /** The wire form: header, 12-byte entries, SHA-256 trailer. */
  encode(): Uint8Array;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * The mergeable Bloom filter of seed 003: a state-based CRDT whose merge is
 * bitwise OR. Union-only (no removes). Probes: Kirsch–Mitzenmacher double
 * hashing with MurmurHash3_x86_32 (`h1 = murmur(x, 0)`, `h2 = murmur(x, h1)`).
 * Replicas created with the same arguments have the same shape.
 *
 * @example
 * ```ts
 * const replicaA = MergeableBloomFilter.create(1_000, 0.01);
 * const replicaB = MergeableBloomFilter.create(1_000, 0.01);
 * replicaA.piece(replicaA.add("alice"));
 * replicaB.piece(replicaB.add("bob"));
 * const merged = replicaA.piece(replicaB);      // in place; returns replicaA
 * merged.mightContain("alice") && merged.mightContain("bob"); // true
 * ```
 */
export declare class MergeableBloomFilter implements Disposable {
  private constructor();
  /**
   * `bitCount` = the optimum m rounded up to whole 64-bit words,
   * `hashCount = max(1, round(m/n · ln 2))`.
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
   * `invalidFalsePositiveRate` or `filterTooLarge`.
   */
  static create(expectedElements: number, falsePositiveRate: number): MergeableBloomFilter;
  /**
   * Parses a dense or sparse state (a delta is `unexpectedKind`).
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<MergeableBloomFilter, MergeableDecodeError>;
  /** Sets the item's bits; returns the delta of the words that changed. */
  add(item: BloomItem): MergeableDelta;
  /** `false`: never added here or in anything pieced in. `true`: maybe. */
  mightContain(item: BloomItem): boolean;
  /**
   * Joins a delta or another replica's state in place (bitwise OR); returns this.
   * @throws {Error} with `code` `"incompatibleFilters"` when bitCount or hashCount differ.
   * @throws {TypeError} when the argument is neither a `MergeableDelta` nor a `MergeableBloomFilter`.
   */
  piece(deltaOrFilter: MergeableDelta | MergeableBloomFilter): this;
  /** The wire form: sparse when strictly smaller than dense, so equal states have equal bytes. */
  encode(): Uint8Array;
  /** 64-bit words (`bitCount / 64`). */
  readonly wordCount: number;
  /** Words with at least one bit set (what the sparse form carries). */
  readonly nonZeroWordCount: number;
  readonly bitCount: number;
  readonly hashCount: number;
  /** Set bits / bitCount. */
  readonly fillRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/** Options of `new ScalableBloomFilter`. */
export type ScalableBloomFilterOptions = Readonly<{
  /** Items the first stage holds: an integer ≥ 1. */
  initialCapacity: number;
  /** Compound false-positive bound p, in (0, 1). */
  targetFalsePositiveRate: number;
  /** Capacity multiplier between stages: an integer from 1 to 2^32 − 1. Default 2. */
  growthFactor?: number;
  /** Rate multiplier r between stages, in (0, 1). Default 0.5. */
  tighteningRatio?: number;
}>;

/** `ScalableBloomFilter.decode` failures (docs/scalable-format.md). */
export type ScalableDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "checksumMismatch"
  | "nonZeroReserved"
  | "invalidInitialCapacity"
  | "invalidFalsePositiveRate"
  | "invalidGrowthFactor"
  | "invalidTighteningRatio"
  | "zeroStageCount"
  | "filterTooLarge"
  | "stageCapacityMismatch"
  | "itemCountExceedsCapacity"
  | "stageNotFull"
  | "emptyStage"
  | "invalidBitCount"
  | "zeroHashCount"
  | "hashCountTooLarge"
  | "lengthMismatch"
  | "outOfMemory";

/**
 * A scalable Bloom filter (Almeida et al. 2007; seed 004 step 5): a chain of
 * plain filters, stage i holding `initialCapacity · growthFactor^i` items at
 * rate `p·(1 − r)·r^i`, so the compound rate stays under p however many
 * items arrive (until the 2^30-bit / 256-stage limit). No deletes.
 *
 * @example
 * ```ts
 * using filter = new ScalableBloomFilter({ initialCapacity: 1_000, targetFalsePositiveRate: 0.01 });
 * for (const id of ids) filter.add(id);           // grows a stage when the newest is full
 * filter.stageCount;                               // e.g. 4 after 10,000 items
 * const copy = ScalableBloomFilter.decode(filter.encode());
 * ```
 */
export declare class ScalableBloomFilter implements Disposable {
  /**
   * @throws {TypeError | RangeError} with `code` `invalidInitialCapacity`,
   * `invalidFalsePositiveRate`, `invalidGrowthFactor`, `invalidTighteningRatio`
   * or `filterTooLarge` (the first stage alone exceeds 2^30 bits); a plain
   * `TypeError` when `options` is not an object.
   */
  constructor(options: ScalableBloomFilterOptions);
  /**
   * Parses an encoded chain.
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<ScalableBloomFilter, ScalableDecodeError>;
  /**
   * Adds an item (every call counts, duplicates included); returns this.
   * @throws {Error} with `code` `"filterTooLarge"` (chain unchanged) when a
   * new stage would exceed 2^30 bits in total or 256 stages.
   */
  add(item: BloomItem): this;
  /** `false`: never added. `true`: maybe. */
  mightContain(item: BloomItem): boolean;
  /** The wire form, SHA-256 sealed. */
  encode(): Uint8Array;
  readonly stageCount: number;
  /** Add calls so far, over all stages. */
  readonly itemCount: number;
  /** Bits over all stages. */
  readonly bitCount: number;
  /** `1 − Π(1 − fill_i^k_i)` from the stages' observed fill ratios. */
  readonly estimatedFalsePositiveRate: number;
  readonly initialCapacity: number;
  readonly targetFalsePositiveRate: number;
  readonly growthFactor: number;
  readonly tighteningRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * Seed 004's optimum for n items at rate p: `m = ceil(−n·ln p / ln² 2)` bits,
 * `k = max(1, round(m/n · ln 2))` (half away from zero).
 * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
 * `invalidFalsePositiveRate` or `filterTooLarge` (m above 2^30).
 *
 * @example
 * ```ts
 * optimalParams(1_000, 0.01); // { m: 9586, k: 7 }
 * ```
 */
export declare function optimalParams(n: number, p: number): { m: number; k: number };

/**
 * The false-positive rate implied by an observed fill ratio: `fill^k`.
 * @throws {TypeError | RangeError} with `code` `invalidFillRatio` (not in
 * [0, 1]) or `invalidHashCount` (k not an integer from 1 to 4096).
 *
 * @example
 * ```ts
 * fppFromFillRatio(filter.fillRatio, filter.k); // 0.0078125 at fill 0.5, k = 7
 * ```
 */
export declare function fppFromFillRatio(fill: number, k: number): number;

/**
 * The fill ratio at which `fill^k` reaches twice the target: `(2p)^(1/k)` —
 * the operator's alert line (≥ 1, so never reached, when p ≥ 0.5).
 * @throws {TypeError | RangeError} with `code` `invalidFalsePositiveRate` or `invalidHashCount`.
 *
 * @example
 * ```ts
 * if (filter.fillRatio >= alertFillRatio(0.01, filter.k)) alert("rebuild the filter"); // 0.5719 for k = 7
 * ```
 */
export declare function alertFillRatio(p: number, k: number): number;

/**
 * The expected fill after n inserts of k probes into m bits: `1 − e^(−kn/m)`.
 * @throws {TypeError | RangeError} with `code` `invalidItemCount` (n not an
 * integer ≥ 0), `invalidBitCount` (m not an integer ≥ 1) or `invalidHashCount`.
 *
 * @example
 * ```ts
 * const { m, k } = optimalParams(1_000, 0.01);
 * fppFromFillRatio(expectedFillRatio(2_000, m, k), k); // the model's rate at 2× the design n
 * ```
 */
export declare function expectedFillRatio(n: number, m: number, k: number): number;
// ==== end of the other seed systems ==========================================
