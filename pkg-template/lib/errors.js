// Every error the JavaScript layer throws is made here, so messages share one
// shape: what the parameter had to be, and what actually came.

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
const typedArrayTag = /** @type {{ get: (this: unknown) => string | undefined }} */ (Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
)).get;

/**
 * The typed-array kind of `value` ("Uint8Array", …) or undefined.
 *
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function typedArrayName(value) {
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
  return new RangeError(
    `${parameter} must be a 32-byte SHA-256 digest as a Uint8Array, got ${describe(value)}`,
  );
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
  return error !== null && typeof error === "object" && typeof coded.code === "string"
    ? coded.code
    : undefined;
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
