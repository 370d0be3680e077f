// What an existence request costs under a rate limit (rate-limit.js), in
// digests, read from the request itself and never from a header the client
// could lie in: a HEAD/GET of one digest costs 1, a findMissing the length
// of its `digests` list. The findMissing body is read here once, bounded
// like the handler reads it (`maxBodyBytes`), and handed on as bytes in a
// new Request, so the handler's own checks (content type, JSON, digest
// syntax, at most MAX_DIGESTS_PER_REQUEST) still decide its answer.

import { MAX_DIGESTS_PER_REQUEST } from "./existence-api.js";
import { errorResponse } from "./http-answers.js";

/**
 * The request's cost, and the request to hand on (a findMissing rebuilt
 * over its read body), or the 413 for a body over `maxBodyBytes`.
 *
 * @param {Request} request
 * @param {string} path the route below the handler's basePath, decoded
 * @param {number} maxBodyBytes
 * @returns {Promise<{ cost: number; request: Request } | { response: Response }>}
 */
export async function existenceCost(request, path, maxBodyBytes) {
  const isJson = /^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "");
  // Anything else is refused by the handler (405, 415) for one unit.
  if (path !== "blobs:findMissing" || request.method !== "POST" || !isJson) return { cost: 1, request };
  const bytes = await boundedBytes(request, maxBodyBytes);
  if (bytes === undefined)
    return { response: errorResponse(413, "bodyTooLarge", `the request body exceeds ${maxBodyBytes} bytes`) };
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
  return { cost: Math.max(1, count), request: rebuilt };
}

/**
 * The body's bytes, or undefined past `limit` (a declared length over it is
 * refused before anything is read; a stream stops there).
 *
 * @param {Request} request
 * @param {number} limit
 * @returns {Promise<Uint8Array<ArrayBuffer> | undefined>}
 */
async function boundedBytes(request, limit) {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await request.body?.cancel();
    return undefined;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}
