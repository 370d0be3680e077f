// ABD1 snapshot deltas (docs/ABD1.md): the bits a newer ABF1 snapshot adds
// to an older one, so a client refresh costs what changed. This is the
// client side (apply, read a header); writing and joining deltas, which
// only servers do, is `artifact-bloom/delta` (./delta-encode.js).
//
// The format, its checks and the codes live in Rust (src/delta/). Here:
// argument checks, result shapes, and the last step of an apply, which is
// `loadSnapshot` of the rebuilt target file: its checksum step (node:crypto in
// Node) decides, so a delta never yields a snapshot a full download of the
// target would not. Results are `{ kind: "success", value }` or
// `{ kind: "failure", error, message }`; a wrong argument type throws.

import { diagnoseDelta, parseDeltaHeader, rebuildFromDelta, verifyDelta } from "../artifact_bloom.js";
import { checkInteger, load } from "./checks.js";
import { isUint8Array, typeError } from "./errors.js";
import { ArtifactBloomFilter } from "./filter.js";
import { toWasm } from "./memory.js";
import { loadSnapshot } from "./snapshot.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta, SnapshotResult } from "./types.js"
 * @import { SnapshotDeltaApplyError, SnapshotDeltaError, SnapshotDeltaHeader, SnapshotDeltaResult } from "./delta-types.js"
 */

/**
 * A snapshot argument: an object with a live ArtifactBloomFilter and an
 * integer catalogVersion (a TypeError / RangeError naming the parameter).
 * @param {string} parameter
 * @param {unknown} snapshot
 * @returns {asserts snapshot is ArtifactIndexSnapshot}
 */
function checkSnapshot(parameter, snapshot) {
  if (snapshot === null || typeof snapshot !== "object") {
    throw typeError(parameter, "a snapshot { catalogVersion, filter }", snapshot);
  }
  const { catalogVersion, filter } = /** @type {{ catalogVersion?: unknown, filter?: unknown }} */ (snapshot);
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError(`${parameter}.filter`, "an ArtifactBloomFilter", filter);
  }
  checkInteger(`${parameter}.catalogVersion`, catalogVersion, 0, Number.MAX_SAFE_INTEGER, "invalidCatalogVersion");
}

/**
 * @param {string} parameter
 * @param {unknown} value
 * @returns {asserts value is Uint8Array}
 */
function checkDelta(parameter, value) {
  if (!isUint8Array(value)) throw typeError(parameter, "a Uint8Array holding an ABD1 delta", value);
}

/**
 * Applies an ABD1 delta to the snapshot it was made from. Success is a new
 * snapshot of the target (the base is untouched, so its readers finish
 * undisturbed), exactly what `loadSnapshot` of the full target file gives.
 * Failure codes: every decode check of the delta, `wrongBase` (another
 * catalogVersion, layout or bit array than the delta names) and
 * `resultChecksumMismatch`.
 * @param {ArtifactIndexSnapshot} baseSnapshot
 * @param {Uint8Array} deltaBytes
 * @param {SnapshotMeta} [meta] copied onto the new snapshot, as loadSnapshot does
 * @returns {SnapshotResult | SnapshotDeltaResult<never, SnapshotDeltaApplyError>}
 */
export function applySnapshotDelta(baseSnapshot, deltaBytes, meta) {
  checkSnapshot("baseSnapshot", baseSnapshot);
  checkDelta("deltaBytes", deltaBytes);
  const base = baseSnapshot.filter._raw();
  /** @type {import("./variant-types.js").DecodeResult<Uint8Array, SnapshotDeltaApplyError>} */
  const rebuilt = load(() => rebuildFromDelta(base, baseSnapshot.catalogVersion, toWasm(deltaBytes)));
  if (rebuilt.kind === "failure") return rebuilt;
  const loaded = loadSnapshot(rebuilt.value, meta);
  if (loaded.kind === "success" || loaded.error !== "checksumMismatch") return loaded;
  // Which of the two it was: a base whose bits are not the named ones, or a
  // delta inconsistent with its own target header. diagnoseDelta always throws.
  /** @type {import("./variant-types.js").DecodeResult<void, SnapshotDeltaApplyError>} */
  const diagnosed = load(() => diagnoseDelta(base, toWasm(deltaBytes)));
  return diagnosed.kind === "failure" ? diagnosed : loaded;
}

/**
 * A delta's header. By default only its 200 fixed bytes are checked (load
 * steps 1–5: what a damaged file claims, for tools); `{ verify: true }` runs
 * every check that needs no base (length, checksum, positions).
 * @param {Uint8Array} bytes
 * @param {{ verify?: boolean }} [options]
 * @returns {SnapshotDeltaResult<SnapshotDeltaHeader, SnapshotDeltaError>}
 */
export function readSnapshotDeltaHeader(bytes, options) {
  checkDelta("bytes", bytes);
  const verify = options?.verify ?? false;
  if (typeof verify !== "boolean") throw typeError("options.verify", "a boolean", verify);
  return load(() => {
    const header = verify ? verifyDelta(toWasm(bytes)) : parseDeltaHeader(toWasm(bytes));
    Object.freeze(header.target);
    return Object.freeze(header);
  });
}
