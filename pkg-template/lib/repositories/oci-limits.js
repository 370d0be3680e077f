// How much of a registry answer the client reads: each kind of answer has a
// limit, checked on Content-Length before reading and again while streaming
// (a lying or absent Content-Length), so a hostile registry costs at most
// the limit in memory, never the body's size.

import { OciRegistryError } from "./oci-errors.js";

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * How much of an answer is read, by what it is. More is a `tooLarge` error
 * (checked on Content-Length first, then while streaming), except for error
 * bodies: those are read up to their limit for the message, the rest is
 * not read (the status is the error).
 */
export const RESPONSE_LIMITS = Object.freeze({
  /** The distribution spec's limit for manifests and indexes. */
  manifest: { bytes: 4 * MIB, what: "a manifest or index" },
  /** ≥ 250k tags of the longest form (128 characters) in one page. */
  tagPage: { bytes: 32 * MIB, what: "a tag-list page" },
  /** A token answer is a JWT or so: a few KiB. */
  token: { bytes: 1 * MIB, what: "a token answer" },
  errorBody: { bytes: 16 * KIB, what: "an error body" },
});

/** @param {number} bytes */
const sizeText = (bytes) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes / KIB} KiB`);

/**
 * Reads a fetch Response's body up to `limit.bytes`. With `truncate`, the
 * rest is cancelled unread; without, more is an OciRegistryError tooLarge.
 * @param {Response} response
 * @param {{ bytes: number, what: string }} limit
 * @param {string} method
 * @param {URL | string} url
 * @param {boolean} truncate
 * @returns {Promise<Uint8Array>}
 */
export async function readLimited(response, limit, method, url, truncate) {
  const tooLarge = (/** @type {string} */ came) =>
    new OciRegistryError(`${method} ${url}: expected at most ${sizeText(limit.bytes)} (the limit for ${limit.what}), ${came}`, {
      code: "tooLarge",
      status: response.status,
    });
  const declared = Number(response.headers.get("content-length") ?? "");
  if (!truncate && Number.isFinite(declared) && declared > limit.bytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(`Content-Length says ${declared} bytes`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  /** @type {Uint8Array[]} */
  const chunks = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > limit.bytes) {
      await reader.cancel().catch(() => {});
      if (!truncate) throw tooLarge(`more than ${limit.bytes} bytes came`);
      chunks.push(value.subarray(0, limit.bytes - length));
      length = limit.bytes;
      break;
    }
    chunks.push(value);
    length += value.byteLength;
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
