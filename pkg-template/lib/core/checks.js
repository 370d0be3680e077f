// Argument checks and raw-call wrappers shared by the capabilities that call
// wasm with caller input: the variants (tlbf.js, mergeable.js, scalable.js,
// sizing.js), snapshots and deltas (`load`).
//
// Error policy (index.d.ts repeats it):
//   - builders (`TlBloom.withRate`, `MergeableBloomFilter.create`,
//     `new ScalableBloomFilter`) and the sizing helpers THROW for invalid
//     arguments: a TypeError for a wrong type, a RangeError for a number out
//     of range, both with a `code` property (the core's camelCase code);
//   - loaders (`TlBloom.fromBytes`, `MergeableBloomFilter.decode`,
//     `MergeableDelta.decode`, `ScalableBloomFilter.decode`) throw a TypeError
//     only when `bytes` is not a Uint8Array, and otherwise RETURN
//     `{ kind: "success", value } | { kind: "failure", error: code, message }`
//     like `loadSnapshot`;
//   - `union` / `piece` of different shapes throw the wasm layer's Error with
//     code "incompatibleFilters"; a TypeError for a wrong argument type;
//   - items are a Uint8Array or a string (its UTF-8 bytes); anything else is a
//     TypeError naming `item`;
//   - any method after `free()` throws (resource.js).

import { codeOf, failureOf, isUint8Array, rangeError, typeError } from "./errors.js";
import { success } from "./results.js";
import { encodeUtf8 } from "./text-codec.js";

/**
 * @import { DecodeResult } from "./results.js"
 * @import { SystemsArgumentError } from "../variant-types.js"
 */

/**
 * Attaches the machine-readable code to an error made by errors.js.
 *
 * @template {Error} TError
 * @param {TError} error
 * @param {string} code
 * @returns {TError & { code: string }}
 */
export function withCode(error, code) {
  const coded = /** @type {TError & { code: string }} */ (error);
  coded.code = code;
  return coded;
}

/**
 * An item's bytes: a Uint8Array as is, a string as UTF-8.
 *
 * @param {unknown} item a `BloomItem`, checked here
 * @returns {Uint8Array}
 */
export function itemBytes(item) {
  if (typeof item === "string") return encodeUtf8(item);
  if (isUint8Array(item)) return item;
  throw typeError("item", "a Uint8Array or a string", item);
}

/**
 * A loader's `bytes` argument must be a Uint8Array (holding `what`).
 *
 * @param {unknown} bytes
 * @param {string} what
 * @returns {asserts bytes is Uint8Array}
 */
export function checkBytes(bytes, what) {
  if (!isUint8Array(bytes)) throw typeError("bytes", `a Uint8Array holding ${what}`, bytes);
}

/**
 * The words for "an integer in [min, max]" in an error message.
 *
 * @param {number} min
 * @param {number} max
 * @returns {string}
 */
export function integerRange(min, max) {
  return `an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "2^53 - 1" : max}`;
}

/**
 * A safe integer in [min, max], else a coded TypeError / RangeError.
 *
 * @param {string} parameter
 * @param {unknown} value
 * @param {number} min
 * @param {number} max
 * @param {SystemsArgumentError} code
 * @returns {asserts value is number}
 */
export function checkInteger(parameter, value, min, max, code) {
  const expected = integerRange(min, max);
  if (typeof value !== "number") throw withCode(typeError(parameter, expected, value), code);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw withCode(rangeError(parameter, expected, value), code);
  }
}

/**
 * A safe integer ≥ min.
 *
 * @param {string} parameter
 * @param {unknown} value
 * @param {number} min
 * @param {SystemsArgumentError} code
 * @returns {asserts value is number}
 */
export function checkCount(parameter, value, min, code) {
  checkInteger(parameter, value, min, Number.MAX_SAFE_INTEGER, code);
}

/**
 * A finite number strictly between 0 and 1.
 *
 * @param {string} parameter
 * @param {unknown} value
 * @param {SystemsArgumentError} code
 * @returns {asserts value is number}
 */
export function checkRate(parameter, value, code) {
  const expected = "a finite number strictly between 0 and 1";
  if (typeof value !== "number") throw withCode(typeError(parameter, expected, value), code);
  if (!(value > 0 && value < 1)) throw withCode(rangeError(parameter, expected, value), code);
}

/**
 * Runs a raw builder whose arguments were validated; a coded wasm error
 * (in practice only `filterTooLarge`) becomes a coded RangeError. An
 * `outOfMemory` Error is thrown as it is: no argument was out of range.
 *
 * @template TValue
 * @param {string} parameter
 * @param {unknown} value
 * @param {() => TValue} call
 * @returns {TValue}
 */
export function build(parameter, value, call) {
  try {
    return call();
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined || code === "outOfMemory") throw error;
    const expected =
      code === "filterTooLarge"
        ? "small enough (with the rate) that the filter needs at most 2^30 bits"
        : `valid (${/** @type {Error} */ (error).message})`;
    throw withCode(rangeError(parameter, expected, value), code);
  }
}

/**
 * Runs a raw loader: the value, or the coded failure with its message.
 * `TError` is the loader's documented code union (types.js): the wasm layer
 * throws only those codes, which TypeScript cannot see.
 *
 * @template TValue
 * @template {string} [TError=string]
 * @param {() => TValue} call
 * @returns {DecodeResult<TValue, TError>}
 */
export function load(call) {
  try {
    return success(call());
  } catch (error) {
    const failure = failureOf(/** @type {unknown} */ (error));
    if (failure === undefined) throw error;
    return /** @type {{ kind: "failure", error: TError, message: string }} */ (failure);
  }
}
