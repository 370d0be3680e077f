// The server side of ABD1 snapshot deltas (docs/ABD1.md): writing a delta
// from two snapshots and joining two chained deltas. `artifact-bloom/delta`
// exports these beside the client side (./delta-apply.js), all from the
// delta wasm module (../artifact_bloom_delta.js), so the main entry, which
// every page downloads, carries no ABD1 code.
//
// The delta module cannot read the main module's memory: the snapshots
// reach it as ABF1 files, written by the main entry (unsealed: the checksum
// field zero, the payload not hashed) and loaded again there. The format, its checks and the codes live in Rust
// (src/delta/). Results are `{ kind: "success", value }` or
// `{ kind: "failure", error, message }`; a wrong argument type throws.

import { _encodeSnapshotUnsealed } from "./delta-main.js";
import { composeDeltas, encodeDeltaOfFiles } from "../../artifact_bloom_delta.js";
import { load } from "../core/checks.js";
import { checkDelta, checkSnapshot, stageBoth } from "./delta-inputs.js";

/**
 * @import { ArtifactIndexSnapshot } from "../types.js"
 * @import { SnapshotDeltaComposeError, SnapshotDeltaEncodeError, SnapshotDeltaResult } from "../delta-types.js"
 */

/**
 * The ABD1 delta from `base` to `target`: the bits `target` sets that `base`
 * does not. A failure when there is none: the ABF1 encoder's code for a
 * snapshot it would not write, `incompatibleLayout` (bitCount or hashCount
 * differ), `notNewer` (target.catalogVersion ≤ base.catalogVersion),
 * `notSuperset` (the target clears a bit: something was removed).
 * @param {ArtifactIndexSnapshot} base
 * @param {ArtifactIndexSnapshot} target
 * @returns {SnapshotDeltaResult<Uint8Array, SnapshotDeltaEncodeError>}
 */
export function encodeSnapshotDelta(base, target) {
  checkSnapshot("base", base);
  checkSnapshot("target", target);
  return load(() => {
    // Both files are written before staging: staging reserves delta-module
    // memory, writing the main module's. Unsealed (no checksum): the delta
    // module hashes what the delta names itself.
    const baseFile = _encodeSnapshotUnsealed(base.filter, base.catalogVersion);
    const targetFile = _encodeSnapshotUnsealed(target.filter, target.catalogVersion);
    return encodeDeltaOfFiles(...stageBoth(baseFile, targetFile));
  });
}

/**
 * Joins the deltas A→B (`first`) and B→C (`second`) into A→C: byte for byte
 * what `encodeSnapshotDelta(A, C)` writes, and smaller than the two together.
 * `notChained` when `second` does not start where `first` ends.
 * @param {Uint8Array} first
 * @param {Uint8Array} second
 * @returns {SnapshotDeltaResult<Uint8Array, SnapshotDeltaComposeError>}
 */
export function composeSnapshotDeltas(first, second) {
  checkDelta("first", first);
  checkDelta("second", second);
  return load(() => composeDeltas(...stageBoth(first, second)));
}
