// The request handler's answers in one shape: JSON bodies `{ error,
// message }` for every refusal, and the CORS headers the `cors` option
// allows (an origin list is echoed with Vary: Origin, so a shared cache
// keeps one answer per origin).

/** Headers a page on an allowed origin may read. */
const EXPOSED = "ETag, Last-Modified, IM, Delta-Base, Retry-After, artifact-bloom-catalog-version";

/**
 * A JSON answer.
 *
 * @param {number} status
 * @param {unknown} value
 * @param {Record<string, string>} [headers]
 * @returns {Response}
 */
export function jsonResponse(status, value, headers = {}) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

/**
 * A refusal: `{ error, message }` (and `extra` fields).
 *
 * @param {number} status
 * @param {string} error a code to switch on
 * @param {string} message what was expected and what came
 * @param {Record<string, string>} [headers]
 * @param {Record<string, unknown>} [extra]
 * @returns {Response}
 */
export function errorResponse(status, error, message, headers = {}, extra = {}) {
  return jsonResponse(status, { error, message, ...extra }, headers);
}

/**
 * `response` with the CORS headers `cors` allows for the request's Origin
 * (none when it allows none, or the origin is not listed).
 *
 * @param {Request} request
 * @param {"*" | readonly string[] | undefined} cors
 * @param {Response} response
 * @returns {Response}
 */
export function withCors(request, cors, response) {
  if (cors === undefined) return response;
  const origin = request.headers.get("origin");
  const headers = new Headers(response.headers);
  if (cors !== "*") headers.append("vary", "Origin");
  const allowed = cors === "*" ? "*" : origin !== null && cors.includes(origin) ? origin : undefined;
  if (allowed === undefined) return new Response(response.body, { status: response.status, headers });
  headers.set("access-control-allow-origin", allowed);
  headers.set("access-control-expose-headers", EXPOSED);
  if (request.method === "OPTIONS") {
    headers.set("access-control-allow-methods", "GET, HEAD, POST");
    headers.set("access-control-allow-headers", "content-type, if-none-match, if-modified-since");
    headers.set("access-control-max-age", "86400");
  }
  return new Response(response.body, { status: response.status, headers });
}
