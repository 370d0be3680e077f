// The types of the ABD1 delta API (lib/delta.js, lib/delta/; docs/ABD1.md), as JSDoc
// typedefs only: scripts/emit-types.mjs emits them into the public .d.ts.

/**
 * @import { ArtifactIndexSnapshot, FetchSnapshotOptions, SnapshotHeader, SnapshotLoadError, SnapshotPollingOptions,
 *   SnapshotResult } from "./types.js"
 * @import { Timers, TlsProblemKind } from "./client-types.js"
 */

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

/**
 * What a `fetchSnapshot` download cost. `bytes`: body bytes received (the
 * delta's, or the full file's; after a delta that could not be used, both).
 * `delta`: the snapshot was rebuilt from an ABD1 delta (RFC 3229
 * `226 IM Used`). `fullBytes`: the size of the full ABF1 file of the
 * snapshot obtained, so `fullBytes - bytes` is what the delta saved.
 * `deltaFailure`: the code of a delta the server sent that could not be
 * applied (the full snapshot was fetched instead).
 *
 * @typedef {Readonly<{
 *   bytes: number;
 *   delta: boolean;
 *   fullBytes: number;
 *   deltaFailure?: string;
 * }>} SnapshotTransfer
 */

/**
 * `fetchSnapshot`'s result: `SnapshotResult`, whose success also says what
 * the download cost, and failures of its own:
 *
 * - `networkError`: no HTTP answer (connection refused or reset, a redirect
 *   loop, a body cut off); `causeCode` names the cause when the platform
 *   does ("ECONNRESET", "UND_ERR_SOCKET", "redirectCountExceeded").
 * - `invalidManifest`, `unsupportedManifest`: the URL answered with a
 *   layout manifest (docs/layout.md) that breaks its rules or has a newer
 *   `formatVersion`, or whose snapshot is not the one it names.
 * - `stale` (with `base`, from a manifest): the manifest names an older
 *   catalogVersion than base's; nothing was downloaded. It and a
 *   manifest's `notModified` carry the manifest's `etag` and `lastModified`.
 * - `versionConflict` (with `base`): the server's snapshot has base's
 *   catalogVersion but another checksum, i.e. that version was republished
 *   with other digests. It carries the server's verified `snapshot` and the
 *   `transfer`: adopt it (SnapshotHolder does) or free it.
 *
 * @typedef {Readonly<{ kind: "success"; value: ArtifactIndexSnapshot & { header: SnapshotHeader }; transfer: SnapshotTransfer }>
 *   | Extract<SnapshotResult, { kind: "failure" }>
 *   | Readonly<{ kind: "failure"; error: "networkError"; message: string; causeCode?: string; tlsProblem?: TlsProblemKind; status?: undefined }>
 *   | Readonly<{
 *     kind: "failure";
 *     error: "notModified" | "stale";
 *     message: string;
 *     etag: string | undefined;
 *     lastModified: Date | undefined;
 *     status?: undefined;
 *   }>
 *   | Readonly<{ kind: "failure"; error: "invalidManifest" | "unsupportedManifest"; message: string; status?: undefined }>
 *   | Readonly<{
 *     kind: "failure";
 *     error: "versionConflict";
 *     message: string;
 *     snapshot: ArtifactIndexSnapshot & { header: SnapshotHeader };
 *     transfer: SnapshotTransfer;
 *     status?: undefined;
 *   }>} FetchSnapshotResult
 */

/**
 * Options of `fetchSnapshot`: `FetchSnapshotOptions`, plus `base`, a loaded
 * snapshot the caller holds. With it the request asks for an ABD1 delta from
 * that snapshot (`A-IM: abd1`, `If-None-Match` naming the base by its ABF1
 * checksum, docs/ABD1.md "HTTP"); the answer is applied to `base` (which is
 * left untouched) and verified against the target's checksum. Any other
 * answer, or a delta that does not apply, gets the full snapshot.
 *
 * @typedef {FetchSnapshotOptions & { base?: ArtifactIndexSnapshot }} FetchSnapshotDeltaOptions
 */

/**
 * Options of `SnapshotHolder.startPolling`: `SnapshotPollingOptions`, plus
 * `delta` (default true: each poll passes the snapshot in service as
 * `fetchSnapshot`'s `base`; false: always the full snapshot) and `timers`
 * (the functions that schedule polls, default the global setTimeout /
 * clearTimeout; tests inject them to trigger polls by hand).
 *
 * @typedef {SnapshotPollingOptions & { readonly delta?: boolean; readonly timers?: Timers }} SnapshotDeltaPollingOptions
 */

export {};
