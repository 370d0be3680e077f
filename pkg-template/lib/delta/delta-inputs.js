// What both halves of the delta module's JavaScript — ./delta-apply.js
// (apply, read a header) and ./delta-encode.js (encode, compose) — check and stage
// the same way: snapshot and delta arguments, and two inputs staged back to
// back in the delta module (one staging state for the module, as the main
// entry has one for its own).

import { _checkSnapshot } from "./delta-main.js";
import "./delta-messages.js";
// The delta module's instantiation handed to its glue, which calls it on
// first use (see ../../web.js): every module of lib/delta/ that reaches into
// the delta module imports this one, so each path to it (the delta entry,
// SnapshotHolder's import of ./delta-apply.js, the server's sorted build)
// brings the instantiation along. Most processes that load this code never
// call into it (SnapshotHolder applies a delta only when a poll gets one):
// they compile nothing.
import "../../artifact_bloom_delta_instance.js";
import { inputBuffer, wasmMemory } from "../../artifact_bloom_delta.js";
import { isUint8Array, typeError } from "../core/errors.js";
import { stagingFor } from "../wasm/staging.js";

/**
 * @import { ArtifactIndexSnapshot } from "../types.js"
 */

export const { stageInput, toWasm } = stagingFor(inputBuffer, wasmMemory);

/**
 * A snapshot argument: an object with a live ArtifactBloomFilter and a
 * catalogVersion in range (a TypeError / RangeError naming the parameter),
 * checked as the main entry checks snapshots (../snapshot/snapshot-checks.js).
 * @param {string} parameter
 * @param {unknown} snapshot
 * @returns {asserts snapshot is ArtifactIndexSnapshot}
 */
export function checkSnapshot(parameter, snapshot) {
  _checkSnapshot(parameter, snapshot);
}

/**
 * @param {string} parameter
 * @param {unknown} value
 * @returns {asserts value is Uint8Array}
 */
export function checkDelta(parameter, value) {
  if (!isUint8Array(value)) throw typeError(parameter, "a Uint8Array holding an ABD1 delta", value);
}

/**
 * Stages two inputs back to back in the delta module (one input is staged
 * at a time).
 * @param {Uint8Array} first
 * @param {Uint8Array} second
 * @returns {[number, number]} the staged length and the first's length
 */
export function stageBoth(first, second) {
  const staged = stageInput(first.byteLength + second.byteLength);
  staged.set(first);
  staged.set(second, first.byteLength);
  return [staged.byteLength, first.byteLength];
}
