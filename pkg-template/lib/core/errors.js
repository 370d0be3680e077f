// Every error the package throws is made here (network failures next door, in
// network-errors.js), so messages share one shape:
// what the parameter had to be, and what actually came. That includes the
// wasm's errors: the Rust core keeps a code and numbers (`Coded`,
// src/error.rs) and the binding (src/wasm/error.rs) calls `codedError` below,
// which builds the sentence, so the wasm carries no message text.

import { failure, success } from "./results.js";

/**
 * A short, human description of any value, for error messages.
 *
 * @param {unknown} value
 * @returns {string}
 */
export function describe(value) {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") return `a string of length ${value.length}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "bigint") return `the bigint ${value}n`;
  if (typeof value === "boolean") return `the boolean ${value}`;
  if (typeof value === "symbol" || typeof value === "function") return `a ${typeof value}`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) {
    const name = typedArrayName(value) ?? "DataView";
    return `a ${name} of ${value.byteLength} bytes`;
  }
  if (value instanceof ArrayBuffer) return `an ArrayBuffer of ${value.byteLength} bytes`;
  if (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer) {
    return `a SharedArrayBuffer of ${value.byteLength} bytes`;
  }
  const name = /** @type {{ constructor?: { name?: string } }} */ (value)?.constructor?.name;
  return name && name !== "Object" ? `a ${name}` : "an object";
}

// The %TypedArray%.prototype[Symbol.toStringTag] getter names a typed array
// even across realms (iframes, vm contexts) and returns undefined otherwise.
const typedArrayTag = /** @type {{ get: (this: unknown) => string | undefined }} */ (
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)
).get;

/**
 * The typed-array kind of `value` ("Uint8Array", …) or undefined.
 *
 * @param {unknown} value
 * @returns {string | undefined}
 */
function typedArrayName(value) {
  return typedArrayTag.call(value);
}

/**
 * True for any Uint8Array, Node Buffer included, from any realm.
 *
 * @param {unknown} value
 * @returns {value is Uint8Array}
 */
export function isUint8Array(value) {
  return typedArrayTag.call(value) === "Uint8Array";
}

/**
 * A RangeError for a query digest that is not 32 bytes.
 *
 * @param {string} parameter
 * @param {unknown} value
 * @returns {RangeError}
 */
export function digestError(parameter, value) {
  return new RangeError(`${parameter} must be a 32-byte SHA-256 digest as a Uint8Array, got ${describe(value)}`);
}

/**
 * A TypeError for a value of the wrong type.
 *
 * @param {string} parameter
 * @param {string} expected
 * @param {unknown} value
 * @returns {TypeError}
 */
export function typeError(parameter, expected, value) {
  return new TypeError(`${parameter} must be ${expected}, got ${describe(value)}`);
}

/**
 * A RangeError for a value of the right type outside its range.
 *
 * @param {string} parameter
 * @param {string} expected
 * @param {unknown} value
 * @returns {RangeError}
 */
export function rangeError(parameter, expected, value) {
  return new RangeError(`${parameter} must be ${expected}, got ${describe(value)}`);
}

/**
 * An Error for a method called after `free()`.
 *
 * @param {string} className
 * @returns {Error}
 */
export function freedError(className) {
  return new Error(`this ${className} was freed; its wasm memory is gone`);
}

/**
 * The `code` of an error thrown by the wasm layer, or undefined.
 *
 * @param {unknown} error
 * @returns {string | undefined}
 */
export function codeOf(error) {
  const coded = /** @type {{ code?: unknown }} */ (error);
  return error !== null && typeof error === "object" && typeof coded.code === "string" ? coded.code : undefined;
}

/**
 * An Error thrown by an HTTP client for an answer it must not interpret: a
 * redirect, an unexpected status, a malformed body. `status` is the HTTP
 * status that came (0 for a browser's opaque redirect); `code` is a stable
 * camelCase word ("redirect", "unexpectedStatus", "malformedResponse").
 *
 * @param {number} status
 * @param {string} code
 * @param {string} message
 * @returns {Error & { status: number, code: string }}
 */
export function httpError(status, code, message) {
  return Object.assign(new Error(message), { status, code });
}

/**
 * An Error for a request (or a stream) that got no answer within its time
 * limit: `code` "timeout", `name` "TimeoutError" (as AbortSignal.timeout's).
 *
 * @param {string} what what was waited for, e.g. "HEAD http://…"
 * @param {number} timeoutMs the limit that passed
 * @returns {Error & { code: "timeout", timeoutMs: number }}
 */
export function timeoutError(what, timeoutMs) {
  const error = Object.assign(new Error(`${what}: no answer within ${timeoutMs} ms (timeoutMs)`), {
    code: /** @type {const} */ ("timeout"),
    timeoutMs,
  });
  error.name = "TimeoutError";
  return error;
}

/**
 * The data of a coded wasm error: numbers (a BigInt above 2^53 − 1), words,
 * magic bytes, nested coded errors (`inner`, `mismatch`).
 *
 * @typedef {{ [name: string]: number | bigint | string | Uint8Array | CodedFields | undefined }} CodedFields
 */

/** @param {unknown} bytes */
const spacedHex = (bytes) => Array.from(/** @type {Uint8Array} */ (bytes), (b) => b.toString(16).padStart(2, "0")).join(" ");

/**
 * The out-of-memory sentence every domain shares (`purpose`: what the memory was for).
 * @param {CodedFields} f
 */
export const memoryMessage = (f) =>
  `${f.requested === undefined ? "not enough memory" : `could not reserve ${f.requested} bytes`} ${f.purpose}: `
  + "WebAssembly memory grows to 4 GiB at most and never shrinks (free() filters that are no longer needed)";

/** @param {CodedFields} f */
export const magic = (f) =>
  `expected magic "${String.fromCharCode(.../** @type {Uint8Array} */ (f.expected))}" (${spacedHex(f.expected)}), `
  + `found ${spacedHex(f.got)}`;

/**
 * The sentence of each code, per domain (the same code reads differently for
 * a snapshot and a delta); `*` covers every code of a domain.
 *
 * @type {Record<string, Record<string, (f: CodedFields, code: string) => string>>}
 */
const MESSAGES = {
  snapshot: {
    truncated: (f) =>
      `the snapshot is truncated: expected at least ${f.expected} bytes `
      + `(${f.headerLength}-byte header + payloadLength), got ${f.got}`,
    badMagic: magic,
    unsupportedFormatVersion: (f) => `formatVersion ${f.got} is not supported (expected ${f.expected})`,
    unsupportedHashProtocol: (f) =>
      `hashProtocolVersion ${f.got} is not supported (expected ${f.expected}${f.keyed === undefined ? "" : `, or ${f.keyed} for a keyed snapshot`})`,
    invalidHeader: (f) =>
      `invalid header field ${f.field}: must be ${f.rule}${f.bound === undefined ? "" : ` = ${f.bound}`}, got ${f.got}`,
    lengthMismatch: (f) =>
      `the snapshot must be exactly ${f.expected} bytes (${f.headerLength}-byte header + payloadLength), got ${f.got}`,
    checksumMismatch: () => "the SHA-256 checksum does not match header bytes [0, 64) followed by the payload",
    tooLarge: (f) => `the header declares ${f.declared} bytes, more than maxBytes (${f.limit})`,
    outOfMemory: memoryMessage,
    // Step 9 (keyed snapshots). No key material in any of them.
    keyRequired: () =>
      "the snapshot is keyed (hashProtocolVersion 3): load it with the key it was published with (the key option)",
    wrongKey: () =>
      "the key does not match the snapshot's key check: it was published with another key (after a key rotation, load it with the new key)",
    notKeyed: () =>
      "a key was given, but the snapshot is not keyed (hashProtocolVersion 1): its publisher wrote it without a key;"
      + " load it without the key option only if an unkeyed snapshot is intended",
    invalidKey: (f) => `the key must be ${f.minimum} to ${f.maximum} bytes, got ${f.got}`,
  },
  encode: {
    catalogVersionOutOfRange: (f) => `catalogVersion must be an integer from 0 to ${f.limit} (2^53 - 1), got ${f.got}`,
    invalidFilter: (f) => `the filter cannot be written as ABF1: ${nestedMessage(f.inner)}`,
    outOfMemory: memoryMessage,
  },
  layout: {
    invalidExpectedItemCount: () => "expectedItemCount must be an integer from 1 to 2^30",
    invalidFalsePositiveRate: () => "targetFalsePositiveRate must be a finite number strictly between 0 and 1",
    capacityExceeded: () => "more digests were given than expectedItemCount",
    filterTooLarge: () => "no layout with at most 2^30 bits and 32 hashes meets the target rate",
    invalidDigest: () => "every digest must be a 32-byte Uint8Array",
    outOfMemory: memoryMessage,
  },
  memory: { outOfMemory: (f) => memoryMessage({ purpose: "in wasm memory", ...f }) },
  // The delta domains' sentences ride with the delta module
  // (lib/delta/delta-messages.js adds them), not with the main entry.
  binding: {
    outOfMemory: memoryMessage,
    digestLength: (f) => `${f.parameter} must be a 32-byte SHA-256 digest, got ${f.got} bytes`,
    packedLength: (f) => `${f.parameter} must hold whole 32-byte digests (a length that is a multiple of 32), got ${f.got} bytes`,
    invalidCatalogVersion: (f) => `${f.parameter} must be an integer from 0 to 2^53 - 1, got ${f.got}`,
    decoderFinished: () => "this decoder already finished; create a new one",
    hasherFinished: () => "this Sha256 already returned its digest; create a new one",
    builderFinished: () => "this build already finished; start a new one",
    unsortedInput: (f) =>
      `digest ${f.index} of the stream is below the one before it: a sorted source must be in ascending byte order`
      + " (pass sorted: false to have it sorted)",
    inputNotStaged: (f) => `the raw call expected ${f.expected} input bytes, more than inputBuffer() staged (${f.got})`,
    incompatibleFilters: (f) =>
      `filters must have the same bitCount, hashCount and hashing (unkeyed, or keyed with the same key): `
      + `${f.bitCount}/${f.hashCount} vs ${f.otherBitCount}/${f.otherHashCount}`,
    capacityExceeded: (f) =>
      `the union would hold ${f.count} digests, more than expectedItemCount ${f.expectedItemCount}`
      + " (identical filters count once, others add up)",
  },
  // The other filters' sentences ride with artifact-bloom/variants
  // (lib/variants/variant-messages.js adds them), not with the main entry.
};

/**
 * Adds the sentences of a domain whose module ships in another entry.
 *
 * @param {string} domain
 * @param {Record<string, (f: CodedFields, code: string) => string>} table
 */
export function defineMessages(domain, table) {
  MESSAGES[domain] = table;
}

/** Binding codes that are a value of the right type but the wrong size: thrown as plain RangeErrors. */
const RANGE_CODES = new Set(["digestLength", "packedLength"]);

/**
 * The sentence for a coded error of `domain`: what was expected, what came.
 *
 * @param {string} domain
 * @param {string} code
 * @param {CodedFields} fields
 * @returns {string}
 */
function codedMessage(domain, code, fields) {
  const messages = MESSAGES[domain];
  const message = messages?.[code] ?? messages?.["*"];
  return message === undefined ? code : message(fields, code);
}

/** @param {unknown} nested a `{ domain, code, …fields }` object from the wasm */
export function nestedMessage(nested) {
  const fields = /** @type {CodedFields & { domain: string, code: string }} */ (nested);
  return codedMessage(fields.domain, fields.code, fields);
}

/**
 * The JS error for a failure of the wasm layer, called by the binding
 * (src/wasm/error.rs): an `ArtifactBloomError` with `code` and the fields as
 * properties, or a `RangeError` for a wrong size at query time.
 *
 * @param {string} domain
 * @param {string} code
 * @param {CodedFields} fields
 * @returns {Error}
 */
export function codedError(domain, code, fields) {
  const message = codedMessage(domain, code, fields);
  if (domain === "binding" && RANGE_CODES.has(code)) return new RangeError(message);
  const error = Object.assign(new Error(message), fields, { code });
  error.name = "ArtifactBloomError";
  return error;
}

/**
 * A coded error as the reference's failure result; undefined for any other
 * error (a bug, which the caller rethrows).
 *
 * @template {string} [TError=string]
 * @param {unknown} error
 * @returns {{ kind: "failure", error: TError, message: string } | undefined}
 */
export function failureOf(error) {
  const code = codeOf(error);
  if (code === undefined) return undefined;
  return failure(/** @type {TError} */ (code), /** @type {Error} */ (error).message);
}

/**
 * `call()` as a result: its value, or the failure of the coded error it
 * threw; any other error (a bug) is rethrown.
 *
 * @template T
 * @param {() => T} call
 * @returns {{ kind: "success"; value: T } | { kind: "failure"; error: string; message: string }}
 */
export function attempt(call) {
  try {
    return success(call());
  } catch (error) {
    const coded = failureOf(error);
    if (coded === undefined) throw error;
    return coded;
  }
}
