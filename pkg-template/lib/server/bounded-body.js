// A findMissing body read within limits — `limit` bytes for the request,
// and a `budget` of bytes buffered at once across all requests — shared by
// the existence API (existence-api.js) and the access guard, which reads the
// body once to count its digests (request-cost.js): one reader, one pair of
// refusals (413, 503 + Retry-After).

import { errorResponse } from "./http-answers.js";

/** @import { BodyBudget } from "./handler-stats.js" */

/** The Retry-After (seconds) of a 503 for a spent body budget. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * The body's bytes, reserved from `budget` (the caller releases
 * `bytes.byteLength` once done with them); or the answer that refuses it:
 * 413 past `limit` (a declared length over it is refused before anything is
 * read; a stream stops there), 503 when the bytes do not fit in `budget` —
 * the rest is then read and dropped (up to `limit`), so a client still
 * sending gets the answer, not a reset.
 *
 * @param {Request} request
 * @param {number} limit
 * @param {BodyBudget | undefined} budget
 * @returns {Promise<{ bytes: Uint8Array<ArrayBuffer> } | { response: Response }>}
 */
export async function readBoundedBody(request, limit, budget) {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await request.body?.cancel();
    return { response: tooLarge(limit) };
  }
  if (request.body === null) return { bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  let reserved = 0;
  let refused = false;
  let kept = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        return { response: tooLarge(limit) };
      }
      if (refused) continue;
      if (budget !== undefined && !budget.reserve(value.byteLength)) {
        budget.refusals += 1;
        refused = true;
        chunks.length = 0;
        budget.release(reserved);
        reserved = 0;
        continue;
      }
      reserved += value.byteLength;
      chunks.push(value);
    }
    if (refused) return { response: busy(/** @type {BodyBudget} */ (budget).limit) };
    const whole = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.byteLength;
    }
    kept = true;
    return { bytes: whole };
  } finally {
    if (!kept) budget?.release(reserved);
  }
}

/** @param {number} limit */
const tooLarge = (limit) => errorResponse(413, "bodyTooLarge", `the request body exceeds ${limit} bytes`);

/** @param {number} limit */
const busy = (limit) =>
  errorResponse(
    503,
    "serverBusy",
    `the server is buffering its limit of ${limit} request-body bytes (all findMissing requests together); retry after ${BUSY_RETRY_AFTER_SECONDS} s`,
    { "retry-after": String(BUSY_RETRY_AFTER_SECONDS) },
  );
