// The reference's result shape, built in one place: `{ kind: "success",
// value }` and `{ kind: "failure", error }`. The reference's failures carry
// no text; where the library has a sentence for the caller (snapshot loads,
// out-of-memory, hashing), the failure adds `message`. Failures without one
// have no `message` key at all, so they compare equal to the reference's.

/**
 * @template TValue
 * @param {TValue} value
 * @returns {{ kind: "success", value: TValue }}
 */
export function success(value) {
  return { kind: "success", value };
}

/**
 * @template {string} TError
 * @overload
 * @param {TError} error
 * @returns {{ kind: "failure", error: TError }}
 */
/**
 * @template {string} TError
 * @overload
 * @param {TError} error
 * @param {string} message
 * @returns {{ kind: "failure", error: TError, message: string }}
 */
/**
 * @param {string} error
 * @param {string} [message]
 * @returns {{ kind: "failure", error: string, message?: string }}
 */
export function failure(error, message) {
  return message === undefined ? { kind: "failure", error } : { kind: "failure", error, message };
}
