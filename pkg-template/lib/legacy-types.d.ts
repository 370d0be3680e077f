// Hand-written declarations of the modules whose JSDoc is not complete yet:
// lib/filter.js, lib/snapshot.js, lib/holder.js and lib/http-repository.js.
// scripts/emit-types.mjs emits every other lib/*.d.ts from the JSDoc of its
// .js file with tsc; for each module listed in tsconfig.types.json
// "exclude" it writes a lib/<module>.d.ts that re-exports that module's
// export names from this file instead.
//
// To retire a module from here: give its .js file full JSDoc (the typedefs
// are in types.js), delete its section below, and remove it from "exclude"
// in tsconfig.types.json. When no section is left, delete this file.

import type { WasmResource } from "./resource.js";
import type {
  ArtifactIndexSnapshot,
  ArtifactRepository,
  BloomSpec,
  CatalogVersion,
  FetchSnapshotOptions,
  Result,
  SnapshotHeaderResult,
  SnapshotHolderOptions,
  SnapshotLoaderResult,
  SnapshotMeta,
  SnapshotPollingOptions,
  SnapshotRefreshResult,
  SnapshotResult,
  SnapshotSource,
  SnapshotStreamOptions,
} from "./types.js";

// ==== lib/filter.js ==========================================================

/** Internal: a success result. */
export declare function success<TValue>(value: TValue): { kind: "success"; value: TValue };
/** Internal: a failure result. */
export declare function failure<TError extends string>(error: TError): { kind: "failure"; error: TError };

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
export declare class ArtifactBloomFilter extends WasmResource<"ArtifactBloomFilter"> {
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
  static union(a: ArtifactBloomFilter, b: ArtifactBloomFilter): Result<ArtifactBloomFilter, "incompatibleFilters" | "outOfMemory">;
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
  mightContainMany(packed: Uint8Array): Uint8Array<ArrayBuffer>;
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
  serializeBits(): Uint8Array<ArrayBuffer>;
}

/** Unique digests (first-seen order) of N × 32 packed bytes, and the duplicate count. */
export declare function dedupePacked(packed: Uint8Array): { unique: Uint8Array<ArrayBuffer>; duplicates: number };

// ==== lib/snapshot.js ========================================================

/** Size of the fixed ABF1 header in bytes (96). */
export declare const ABF1_HEADER_LENGTH: number;

/** Internal: registers the native SHA-256 factory (the Node entry point does). */
export declare function _useNativeSha256(factory: () => { update(bytes: Uint8Array): unknown; digest(): Uint8Array }): void;

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

/** Load steps 1–5 only: what a (possibly corrupted) file's header claims. */
export declare function readSnapshotHeader(bytes: Uint8Array): SnapshotHeaderResult;

/**
 * Encodes a filter and its catalog version as ABF1 bytes.
 * @throws {RangeError} when catalogVersion is not an integer in 0..2^53−1.
 * @throws {Error} with `code: "invalidFilter"` when the filter could not be
 *   loaded back — e.g. a `union` whose summed insertedItemCount exceeds
 *   expectedItemCount (ABF1 requires inserted ≤ expected).
 */
export declare function encodeSnapshot(
  filter: ArtifactBloomFilter,
  options: { catalogVersion: CatalogVersion },
): Uint8Array<ArrayBuffer>;

/** Internal: the stream options' checks (throws for a bad option). */
export declare function checkStreamOptions(options: SnapshotStreamOptions | undefined): void;

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
export declare function loadSnapshotStream(source: SnapshotSource, options?: SnapshotStreamOptions): Promise<SnapshotResult>;

/**
 * `fetch` + `loadSnapshotStream`. The snapshot carries `etag` and
 * `lastModified` from the response; passing `etag` sends If-None-Match.
 *
 * @example
 * ```ts
 * const loaded = await fetchSnapshot("/snapshot", { onProgress: ({ bytes, total }) => {} });
 * ```
 */
export declare function fetchSnapshot(url: string | URL, options?: FetchSnapshotOptions): Promise<SnapshotResult>;

// ==== lib/holder.js ==========================================================

/**
 * Internal: throws unless `snapshot` is `{ catalogVersion, filter }` with a
 * safe-integer catalogVersion ≥ 0 and a live (not freed) ArtifactBloomFilter.
 */
export declare function validateSnapshot(snapshot: unknown, parameter?: string): asserts snapshot is ArtifactIndexSnapshot;

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
  startPolling(url: string | URL, options: SnapshotPollingOptions): void;
  /** Stops polling and aborts a fetch in flight; a no-op when not polling. */
  stopPolling(): void;
  /** True while `startPolling` is active. */
  readonly polling: boolean;
  /** Swaps that happened (replace and successful refreshes). */
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

// ==== lib/http-repository.js =================================================

/**
 * An ArtifactRepository backed by the `artifact-bloom serve` existence API:
 * `HEAD /blobs/sha256/<hex>?catalogVersion=N` and `POST /blobs:findMissing`.
 * Any answer other than 200/404 rejects (it is never "absent").
 */
export declare class HttpArtifactRepository implements ArtifactRepository {
  /**
   * @param baseUrl the server root, e.g. "http://127.0.0.1:8080/"
   * @param options.fetch a fetch implementation (default: globalThis.fetch)
   */
  constructor(baseUrl: string | URL, options?: { fetch?: typeof fetch });
  /** Requests sent so far, by kind (for summaries; the server counts too). */
  readonly requests: { exists: number; findMissing: number };
  /** HEAD /blobs/sha256/<hex>?catalogVersion=N → true (200) / false (404). */
  existsAtVersionAsync(digest: Uint8Array, catalogVersion: CatalogVersion, signal?: AbortSignal): Promise<boolean>;
  /** POST /blobs:findMissing → one boolean (exists) per digest, in order. */
  existsManyAtVersionAsync(
    digests: readonly Uint8Array[],
    catalogVersion: CatalogVersion,
    signal?: AbortSignal,
  ): Promise<boolean[]>;
}
