// Hand-written declarations of the module whose JSDoc is not complete yet:
// lib/filter.js.
// scripts/emit-types.mjs emits every other lib/*.d.ts from the JSDoc of its
// .js file with tsc; for each module listed in tsconfig.types.json
// "exclude" it writes a lib/<module>.d.ts that re-exports that module's
// export names from this file instead.
//
// To retire a module from here: give its .js file full JSDoc (the typedefs
// are in types.js), delete its section below, and remove it from "exclude"
// in tsconfig.types.json. When no section is left, delete this file.

import type { WasmResource } from "./resource.js";
import type { BloomSpec, Result } from "./types.js";

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
