// The server side of ABD1 snapshot deltas (docs/ABD1.md): writing a delta
// from two snapshots and joining two chained deltas. `artifact-bloom/delta`
// exports these from their own wasm module (../artifact_bloom_delta.js), so
// a browser that only applies deltas (`fetchSnapshot(url, { base })`,
// `applySnapshotDelta` of the main entry) never downloads the encoder.
//
// The delta module cannot read the main module's memory: the snapshots
// reach it as ABF1 files, written by the main entry's `encodeSnapshot` and
// loaded again there. The format, its checks and the codes live in Rust
// (src/delta/). Results are `{ kind: "success", value }` or
// `{ kind: "failure", error, message }`; a wrong argument type throws.

// The main entry first: its instance must exist before its lib modules load.
import { ArtifactBloomFilter, encodeSnapshot } from "./delta-main.js";
import { composeDeltas, encodeDeltaOfFiles, inputBuffer, wasmMemory } from "../artifact_bloom_delta.js";
import { checkInteger, load } from "./checks.js";
import { isUint8Array, typeError } from "./errors.js";
import { stagingFor } from "./staging.js";

/**
 * @import { ArtifactIndexSnapshot } from "./types.js"
 * @import { SnapshotDeltaComposeError, SnapshotDeltaEncodeError, SnapshotDeltaResult } from "./delta-types.js"
 */

const { stageInput } = stagingFor(inputBuffer, wasmMemory);

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
 * Stages two inputs back to back in the delta module (one input is staged
 * at a time) and returns the first one's length.
 * @param {Uint8Array} first
 * @param {Uint8Array} second
 * @returns {[number, number]} the staged length and the first's length
 */
function stageBoth(first, second) {
  const staged = stageInput(first.byteLength + second.byteLength);
  staged.set(first);
  staged.set(second, first.byteLength);
  return [staged.byteLength, first.byteLength];
}

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
    // memory, encodeSnapshot the main module's.
    const baseFile = encodeSnapshot(base.filter, { catalogVersion: base.catalogVersion });
    const targetFile = encodeSnapshot(target.filter, { catalogVersion: target.catalogVersion });
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
