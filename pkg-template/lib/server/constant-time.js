// Secret comparison that takes the same time whatever the bytes are
// (docs/security.md): a bearer token is never compared as a string, whose
// `===` stops at the first differing character and so tells a prober, one
// timing at a time, how much of a guess was right. Both sides are first
// hashed to SHA-256 (fixed length, so not even the token's length shows),
// then every byte pair is XORed into one accumulator that is looked at once,
// at the end. WebCrypto only (crypto.subtle): the same code runs in Node,
// Deno, Bun and Workers, which have no node:crypto timingSafeEqual.

const encoder = new TextEncoder();

/**
 * Whether two byte arrays are equal, examining every byte whatever the
 * contents: no early exit, no branch on a byte. Arrays of different lengths
 * are unequal (the length is not secret here: compare digests, which all
 * have one length).
 *
 * @example
 * ```ts
 * const same = constantTimeEqual(await sha256Of(presented), expectedDigest);
 * ```
 *
 * @param {ArrayLike<number>} left
 * @param {ArrayLike<number>} right
 * @returns {boolean}
 * @throws {TypeError} when either is not array-like.
 */
export function constantTimeEqual(left, right) {
  if (left === null || typeof left !== "object" || typeof left.length !== "number") {
    throw new TypeError("constantTimeEqual: expected byte arrays (Uint8Array)");
  }
  if (right === null || typeof right !== "object" || typeof right.length !== "number") {
    throw new TypeError("constantTimeEqual: expected byte arrays (Uint8Array)");
  }
  const length = left.length;
  // A length difference is folded into the accumulator, and the loop still
  // runs over `left`'s bytes, so the time depends on one length only.
  let difference = length === right.length ? 0 : 1;
  for (let index = 0; index < length; index += 1) {
    difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  }
  return difference === 0;
}

/**
 * The SHA-256 of a string's UTF-8 bytes.
 *
 * @param {string} text
 * @returns {Promise<Uint8Array>}
 */
export async function sha256OfText(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}
