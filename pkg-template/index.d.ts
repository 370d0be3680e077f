// Types of the artifact-bloom public API. The shapes (`BloomSpec`,
// `BloomError`, `Result<T>`) are the TypeScript reference's.

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
  mightContainMany(packed: Uint8Array): Uint8Array;
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
  serializeBits(): Uint8Array;
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
  digest(): Uint8Array;
  free(): void;
  [Symbol.dispose](): void;
}

/** One-shot SHA-256. */
export declare function sha256(bytes: Uint8Array): Uint8Array;

/** Size of the wasm linear memory in bytes (for leak checks). */
export declare function wasmMemoryBytes(): number;

/**
 * Instantiates the wasm module. Required once in browsers before any other
 * call (`await init()`); a no-op in Node, where loading is synchronous.
 */
export default function init(options?: unknown): Promise<unknown>;
export declare function init(options?: unknown): Promise<unknown>;
