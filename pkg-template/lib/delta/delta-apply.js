// ABD1 snapshot deltas (docs/ABD1.md): the bits a newer ABF1 snapshot adds
// to an older one, so a client refresh costs what changed. This is the
// client side (apply, read a header), exported by `artifact-bloom/delta`
// beside the encoder and the composer (./delta-encode.js), in the delta wasm
// module: the main entry carries no ABD1 code.
//
// The delta module cannot read the main module's memory, so an apply hands
// the base over once, as raw bits: they are copied from the main module's
// memory straight into a bit array of the delta module (`RawTargetBits`),
// which checks the base (catalogVersion, layout, set bits) and sets the
// delta's bits in place; the target's bits are then copied into a new filter
// of the main module with the target's ABF1 header (`_loadSnapshotOfBits`),
// whose checksum step (node:crypto in Node, as `loadSnapshot`'s) decides, so
// a delta never yields a snapshot a full download of the target would not.
// The format, its checks and the codes live in Rust (src/delta/). Here:
// argument checks, the two copies, result shapes. Results are
// `{ kind: "success", value }` or `{ kind: "failure", error, message }`; a
// wrong argument type throws.

import { _filterPayload, _loadSnapshotOfBits, _nativeDigest } from "./delta-main.js";
import "./delta-messages.js";
import {
  RawTargetBits,
  deltaTrailerLength,
  diagnoseDelta,
  parseDeltaHeader,
  verifyDelta,
  wasmMemory,
} from "../../artifact_bloom_delta.js";
import { load } from "../core/checks.js";
import { checkDelta, checkSnapshot, stageBoth, stageInput, toWasm } from "./delta-inputs.js";
import { typeError } from "../core/errors.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotMeta, SnapshotResult } from "../types.js"
 * @import { DecodeResult } from "../variant-types.js"
 * @import { SnapshotDeltaApplyError, SnapshotDeltaError, SnapshotDeltaHeader, SnapshotDeltaResult } from "../delta-types.js"
 */

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
  const { catalogVersion, filter } = baseSnapshot;
  const hashCount = filter.getHashCount();
  /** @type {DecodeResult<RawTargetBits, SnapshotDeltaApplyError>} */
  const copied = load(() => copyIntoDeltaModule(filter));
  if (copied.kind === "failure") return copied;
  const target = copied.value;
  /** @type {SnapshotResult | SnapshotDeltaResult<never, SnapshotDeltaApplyError>} */
  let loaded;
  try {
    /** @type {DecodeResult<Uint8Array, SnapshotDeltaApplyError>} */
    const rebuilt = load(() => {
      const [staged, digest] = stageDelta(deltaBytes);
      return target.rebuild(staged, catalogVersion, hashCount, digest);
    });
    if (rebuilt.kind === "failure") return rebuilt;
    loaded = _loadSnapshotOfBits(rebuilt.value, deltaMemory(target), () => target.checksum(), meta, filter);
  } finally {
    target.free();
  }
  if (loaded.kind === "success" || loaded.error !== "checksumMismatch") return loaded;
  // Which of the two it was: a base whose bits are not the named ones, or a
  // delta inconsistent with its own target header. diagnoseDelta always throws.
  /** @type {DecodeResult<void, SnapshotDeltaApplyError>} */
  const diagnosed = load(() => diagnoseDelta(...stageBoth(_filterPayload(filter), deltaBytes)));
  return diagnosed.kind === "failure" ? diagnosed : loaded;
}

/**
 * The base's one crossing: its bits copied from the main module's memory
 * into a new bit array of the delta module (throws a coded `outOfMemory`
 * when there is no room).
 * @param {ArtifactIndexSnapshot["filter"]} filter
 * @returns {RawTargetBits}
 */
function copyIntoDeltaModule(filter) {
  // A view of the main module's memory, which only a call into the main
  // module can grow (and so move): the calls until the copy are into the
  // delta module.
  const basePayload = _filterPayload(filter);
  const target = new RawTargetBits(basePayload.byteLength);
  deltaMemory(target).set(basePayload);
  return target;
}

/**
 * Stages a delta in the delta module for `RawTargetBits.rebuild`, with its
 * trailer's SHA-256 input hashed natively where the Node entry registered a
 * native hash (node:crypto is several times faster than SHA-256 in wasm), of
 * the staged copy: what is hashed is what the delta module parses.
 * @param {Uint8Array} deltaBytes
 * @returns {[number, Uint8Array | undefined]} the staged length and the digest, if hashed here
 */
function stageDelta(deltaBytes) {
  const trailer = deltaTrailerLength();
  // The view holds until the next call into the delta module.
  const staged = stageInput(deltaBytes.byteLength);
  staged.set(deltaBytes);
  const digest = staged.byteLength < trailer ? undefined : _nativeDigest(staged.subarray(0, staged.byteLength - trailer));
  return [staged.byteLength, digest];
}

/**
 * The bits `target` holds, as a view of the delta module's memory (valid
 * until that memory next grows).
 * @param {RawTargetBits} target
 * @returns {Uint8Array}
 */
function deltaMemory(target) {
  const memory = /** @type {WebAssembly.Memory} */ (wasmMemory());
  return new Uint8Array(memory.buffer, target.payloadAddress(), target.payloadLength());
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
