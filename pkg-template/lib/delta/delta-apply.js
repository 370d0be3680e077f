// ABD1 snapshot deltas (docs/ABD1.md): the bits a newer ABF1 snapshot adds
// to an older one, so a client refresh costs what changed. This is the
// client side (apply, read a header), exported by `artifact-bloom/delta`
// beside the encoder and the composer (./delta-encode.js), in the delta wasm
// module: the main entry carries no ABD1 code.
//
// The delta module cannot read the main module's memory: the base reaches
// it as the ABF1 file the main entry writes (unsealed: no checksum), and the
// rebuilt target comes back as an ABF1 file that the main entry's
// `loadSnapshot` loads: its checksum step (node:crypto in Node) decides, so
// a delta never yields a snapshot a full download of the target would not.
// The format, its checks and the codes live in Rust (src/delta/). Here:
// argument checks, result shapes. Results are `{ kind: "success", value }`
// or `{ kind: "failure", error, message }`; a wrong argument type throws.

// The main entry first: its instance must exist before its lib modules load.
import { _encodeSnapshotUnsealed, loadSnapshot } from "./delta-main.js";
// The delta module is instantiated by delta-inputs.js on first use.
import { diagnoseDelta, parseDeltaHeader, rebuildFromDelta, verifyDelta } from "../../artifact_bloom_delta.js";
import { load } from "../core/checks.js";
import { checkDelta, checkSnapshot, stageBoth, toWasm } from "./delta-inputs.js";
import { typeError } from "../core/errors.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta, SnapshotResult } from "../types.js"
 * @import { SnapshotDeltaApplyError, SnapshotDeltaError, SnapshotDeltaHeader, SnapshotDeltaResult } from "../delta-types.js"
 */

/**
 * Applies an ABD1 delta to the snapshot it was made from. Success is a new
 * snapshot of the target (the base is untouched, so its readers finish
 * undisturbed), exactly what `loadSnapshot` of the full target file gives.
 * Failure codes: every decode check of the delta, `wrongBase` (another
 * catalogVersion, layout or bit array than the delta names) and
 * `resultChecksumMismatch`. (Exported by `artifact-bloom/delta`, no longer by
 * the main entry.)
 * @param {ArtifactIndexSnapshot} baseSnapshot
 * @param {Uint8Array} deltaBytes
 * @param {SnapshotMeta} [meta] copied onto the new snapshot, as loadSnapshot does
 * @returns {SnapshotResult | SnapshotDeltaResult<never, SnapshotDeltaApplyError>}
 */
export function applySnapshotDelta(baseSnapshot, deltaBytes, meta) {
  checkSnapshot("baseSnapshot", baseSnapshot);
  checkDelta("deltaBytes", deltaBytes);
  /** @type {import("../variant-types.js").DecodeResult<Uint8Array, SnapshotDeltaApplyError>} */
  // The base as ABF1 without its checksum: the delta module checks a base by
  // catalogVersion, layout and set bits, and the target by loadSnapshot below.
  const written = load(() => _encodeSnapshotUnsealed(baseSnapshot.filter, baseSnapshot.catalogVersion));
  if (written.kind === "failure") return written;
  const baseFile = written.value;
  /** @type {import("../variant-types.js").DecodeResult<Uint8Array, SnapshotDeltaApplyError>} */
  const rebuilt = load(() => rebuildFromDelta(...stageBoth(baseFile, deltaBytes)));
  if (rebuilt.kind === "failure") return rebuilt;
  const loaded = loadSnapshot(rebuilt.value, meta);
  if (loaded.kind === "success" || loaded.error !== "checksumMismatch") return loaded;
  // Which of the two it was: a base whose bits are not the named ones, or a
  // delta inconsistent with its own target header. diagnoseDelta always throws.
  /** @type {import("../variant-types.js").DecodeResult<void, SnapshotDeltaApplyError>} */
  const diagnosed = load(() => diagnoseDelta(...stageBoth(baseFile, deltaBytes)));
  return diagnosed.kind === "failure" ? diagnosed : loaded;
}

/**
 * A delta's header. By default only its 200 fixed bytes are checked (load
 * steps 1–5: what a damaged file claims, for tools); `{ verify: true }` runs
 * every check that needs no base (length, checksum, positions).
 * (Exported by `artifact-bloom/delta`, no longer by the main entry.)
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
