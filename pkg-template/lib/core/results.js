// The reference's result shape, built in one place: `{ kind: "success",
// value }` and `{ kind: "failure", error }`. The reference's failures carry
// no text; where the library has a sentence for the caller (snapshot loads,
// out-of-memory, hashing), the failure adds `message`. Failures without one
// have no `message` key at all, so they compare equal to the reference's.
// Results that say more (fetchSnapshot's `transfer`, a delta failure's
// `bytes`, a network failure's `causeCode`) pass those fields as `extra`.

/**
 * A loader's result: the value, or the first failed check's code and a
 * message (the decoders' shape: snapshots, deltas, the variants; public as
 * artifact-bloom/variants' `DecodeResult`, which names this one).
 *
 * @template TValue
 * @template {string} TError
 * @typedef {{ readonly kind: "success"; readonly value: TValue }
 *   | { readonly kind: "failure"; readonly error: TError; readonly message: string }} DecodeResult
 */

/**
 * @template TValue
 * @template {object} [TExtra={}]
 * @param {TValue} value
 * @param {TExtra} [extra] fields the result carries besides `value`
 * @returns {{ kind: "success", value: TValue } & TExtra}
 */
export function success(value, extra) {
  const result = { kind: /** @type {const} */ ("success"), value };
  return /** @type {{ kind: "success", value: TValue } & TExtra} */ (
    extra === undefined ? result : { ...result, .../** @type {object} */ (extra) }
  );
}

/**
 * @template {string} TError
 * @overload
 * @param {TError} error
 * @returns {{ kind: "failure", error: TError }}
 */
/**
 * @template {string} TError
 * @template {object} [TExtra={}]
 * @overload
 * @param {TError} error
 * @param {string} message
 * @param {TExtra} [extra] fields the failure carries besides `error` and `message`
 * @returns {{ kind: "failure", error: TError, message: string } & TExtra}
 */
/**
 * @param {string} error
 * @param {string} [message]
 * @param {object} [extra]
 * @returns {{ kind: "failure", error: string, message?: string }}
 */
export function failure(error, message, extra) {
  if (message === undefined) return { kind: "failure", error };
  return extra === undefined ? { kind: "failure", error, message } : { kind: "failure", error, message, ...extra };
}
