// What an existence request costs under a rate limit (rate-limit.js), in
// digests, read from the request itself and never from a header the client
// could lie in: a HEAD/GET of one digest costs 1, a findMissing the length
// of its `digests` list. The findMissing body is read here once, bounded
// like the handler reads it (`maxBodyBytes`, and a shared `budget` of bytes
// buffered at once, as the handler's bodyBudgetBytes), and handed on as
// bytes in a new Request, so the handler's own checks (content type, JSON,
// digest syntax, at most MAX_DIGESTS_PER_REQUEST) still decide its answer.

import { MAX_DIGESTS_PER_REQUEST } from "./existence-api.js";
import { errorResponse } from "./http-answers.js";

/** @import { BodyBudget } from "./handler-stats.js" */

/** The Retry-After (seconds) of a 503 for a spent budget, as the handler's. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * The request's cost, the request to hand on (a findMissing rebuilt over its
 * read body) and the budget bytes it holds until the handler is done — or
 * the refusal: 413 for a body over `maxBodyBytes`, 503 for a spent budget.
 *
 * @param {Request} request
 * @param {string} path the route below the handler's basePath, decoded
 * @param {number} maxBodyBytes
 * @param {BodyBudget | undefined} budget
 * @returns {Promise<{ cost: number; request: Request; reserved: number } | { response: Response }>}
 */
export async function existenceCost(request, path, maxBodyBytes, budget) {
  const isJson = /^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "");
  // Anything else is refused by the handler (405, 415) for one unit.
  if (path !== "blobs:findMissing" || request.method !== "POST" || !isJson) return { cost: 1, request, reserved: 0 };
  const bytes = await boundedBytes(request, maxBodyBytes, budget);
  if (bytes === TOO_LARGE) {
    return { response: errorResponse(413, "bodyTooLarge", `the request body exceeds ${maxBodyBytes} bytes`) };
  }
  if (bytes === BUSY) {
    const limit = /** @type {BodyBudget} */ (budget).limit;
    return {
      response: errorResponse(
        503,
        "serverBusy",
        `the server is buffering its limit of ${limit} request-body bytes (all findMissing requests together); retry after ${BUSY_RETRY_AFTER_SECONDS} s`,
        { "retry-after": String(BUSY_RETRY_AFTER_SECONDS) },
      ),
    };
  }
  let digests;
  try {
    digests = JSON.parse(new TextDecoder().decode(bytes))?.digests;
  } catch {
    // Not JSON: the handler says so (400) from the same bytes.
  }
  // Over the handler's maximum it is refused whole (413): charged as the maximum.
  const count = Array.isArray(digests) ? Math.min(digests.length, MAX_DIGESTS_PER_REQUEST) : 1;
  const headers = new Headers(request.headers);
  headers.set("content-length", String(bytes.byteLength));
  const rebuilt = new Request(request.url, { method: "POST", headers, body: bytes, signal: request.signal });
  return { cost: Math.max(1, count), request: rebuilt, reserved: budget === undefined ? 0 : bytes.byteLength };
}

/** boundedBytes's answers other than the bytes. */
const TOO_LARGE = Symbol("tooLarge");
const BUSY = Symbol("busy");

/**
 * The body's bytes; TOO_LARGE past `limit` (a declared length over it is
 * refused before anything is read; a stream stops there); BUSY when they do
 * not fit in `budget` — the rest is then read and dropped (up to `limit`),
 * so a client still sending gets the answer, not a reset. The bytes
 * returned stay reserved in `budget`: the caller releases them.
 *
 * @param {Request} request
 * @param {number} limit
 * @param {BodyBudget | undefined} budget
 * @returns {Promise<Uint8Array<ArrayBuffer> | typeof TOO_LARGE | typeof BUSY>}
 */
async function boundedBytes(request, limit, budget) {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await request.body?.cancel();
    return TOO_LARGE;
  }
  if (request.body === null) return new Uint8Array(0);
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
        return TOO_LARGE;
      }
      if (refused) continue;
      if (budget !== undefined && !budget.reserve(value.byteLength)) {
        budget.refusals += 1;
        refused = true;
        chunks.length = 0;
        continue;
      }
      reserved += value.byteLength;
      chunks.push(value);
    }
    if (refused) return BUSY;
    const whole = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.byteLength;
    }
    kept = true;
    return whole;
  } finally {
    if (!kept) budget?.release(reserved);
  }
}
