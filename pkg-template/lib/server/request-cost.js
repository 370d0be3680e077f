// What an existence request costs under a rate limit (rate-limit.js), in
// digests, read from the request itself and never from a header the client
// could lie in: a HEAD/GET of one digest costs 1, a findMissing the length
// of its `digests` list. The findMissing body is read here once, bounded
// like the handler reads it (`maxBodyBytes`, and a shared `budget` of bytes
// buffered at once, as the handler's bodyBudgetBytes), and handed on as
// bytes in a new Request, so the handler's own checks (content type, JSON,
// digest syntax, at most MAX_DIGESTS_PER_REQUEST) still decide its answer.

import { MAX_DIGESTS_PER_REQUEST } from "./existence-api.js";
import { readBoundedBody } from "./bounded-body.js";

/** @import { BodyBudget } from "./handler-stats.js" */

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
  const read = await readBoundedBody(request, maxBodyBytes, budget);
  if ("response" in read) return read;
  const { bytes } = read;
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
