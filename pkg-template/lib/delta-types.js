// The types of the ABD1 delta API (lib/delta.js; docs/ABD1.md), as JSDoc
// typedefs only: scripts/emit-types.mjs emits them into the public .d.ts.

/** @import { SnapshotHeader, SnapshotLoadError } from "./types.js" */

/**
 * Every field of an ABD1 delta's header, as read. `positionEncoding` 1:
 * Golomb–Rice coded gaps between zero-bit ranks of the base. The base the
 * delta applies to is named by its catalogVersion, set bits and bit-array
 * SHA-256 (hex); `targetPayloadSha256` is what a following delta names as its
 * base; `positionCount` is the bits the delta sets; `target` is the target's
 * complete ABF1 header, checksum included.
 *
 * @typedef {Readonly<{
 *   formatVersion: number;
 *   positionEncoding: number;
 *   riceParameter: number;
 *   baseCatalogVersion: number;
 *   baseSetBitCount: number;
 *   basePayloadSha256: string;
 *   targetPayloadSha256: string;
 *   positionCount: number;
 *   bodyLength: number;
 *   target: SnapshotHeader;
 * }>} SnapshotDeltaHeader
 */

/**
 * Why delta bytes do not decode, in the order the decoder checks (plus
 * allocation failure).
 *
 * @typedef {"truncated" | "badMagic" | "unsupportedFormatVersion" | "unsupportedPositionEncoding"
 *   | "invalidTargetHeader" | "invalidHeader" | "lengthMismatch" | "checksumMismatch"
 *   | "positionsTruncated" | "positionOutOfRange" | "nonCanonicalPositions" | "outOfMemory"} SnapshotDeltaError
 */

/**
 * `encodeSnapshotDelta` failures: no delta exists, or the target cannot be
 * written as ABF1.
 *
 * @typedef {"incompatibleLayout" | "notSuperset" | "notNewer" | "invalidFilter"
 *   | "catalogVersionOutOfRange" | "outOfMemory"} SnapshotDeltaEncodeError
 */

/**
 * `applySnapshotDelta` failures: decoding, the base, the rebuilt target's own load.
 *
 * @typedef {SnapshotDeltaError | SnapshotLoadError | "wrongBase" | "resultChecksumMismatch"} SnapshotDeltaApplyError
 */

/**
 * `composeSnapshotDeltas` failures.
 *
 * @typedef {SnapshotDeltaError | "notChained"} SnapshotDeltaComposeError
 */

/**
 * A delta operation's result.
 *
 * @template TValue
 * @template {string} TError
 * @typedef {Readonly<{ kind: "success"; value: TValue }>
 *   | Readonly<{ kind: "failure"; error: TError; message: string }>} SnapshotDeltaResult
 */

export {};
