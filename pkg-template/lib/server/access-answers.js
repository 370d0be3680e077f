// The answers of the access guard (access-guard.js) that are not the
// wrapped handler's: 401/403/429 with fixed JSON bodies, the CORS
// allow-list with its preflight, and the one rewrite every guarded answer
// gets — `Cache-Control: public` becomes `private` unless no credential was
// needed, so a CDN in front never hands an authorized snapshot to the next
// anonymous caller (RFC 9111 §3.5 lets a shared cache store a response to
// an authorized request exactly when it says `public`).
//
// A refusal's status, headers and body depend on the credential and the
// route's scope only, never on the tenant's existence or a digest's: they
// are decided before the wrapped handler, its store or its catalog is
// touched.

import { typeError } from "../core/errors.js";
import { errorResponse } from "./http-answers.js";

/** Headers a page on an allowed origin may read (http-answers.js's, and the challenge). */
const EXPOSED = "ETag, Last-Modified, IM, Delta-Base, Retry-After, WWW-Authenticate, artifact-bloom-catalog-version";
const PREFLIGHT_HEADERS = {
  "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, if-none-match, if-modified-since",
  "access-control-max-age": "600",
};
const REALM = 'Bearer realm="artifact-bloom"';

/**
 * @param {unknown} origins
 * @returns {readonly string[] | undefined}
 */
export function checkOrigins(origins) {
  if (origins === undefined) return undefined;
  if (!Array.isArray(origins)) throw typeError("cors", 'a list of origins such as "https://app.example"', origins);
  for (const [index, origin] of origins.entries()) {
    // An origin is scheme://host[:port], as a browser sends it: no path, no trailing slash.
    const valid = typeof origin === "string" && /^https?:\/\/[^/?#\s]+$/.test(origin) && new URL(origin).origin === origin;
    if (!valid) throw typeError(`cors[${index}]`, 'an origin such as "https://app.example" (scheme://host[:port])', origin);
  }
  return origins;
}

/**
 * The preflight's answer: 204 with the methods and headers (Authorization
 * among them) for an allowed origin, 403 for any other.
 *
 * @param {Request} request
 * @param {readonly string[]} origins
 * @returns {Response}
 */
export function preflightAnswer(request, origins) {
  const origin = request.headers.get("origin");
  if (origin === null || !origins.includes(origin)) {
    return errorResponse(403, "originNotAllowed", "this origin is not in the server's CORS allow-list", { vary: "Origin" });
  }
  return new Response(null, {
    status: 204,
    headers: { vary: "Origin", "access-control-allow-origin": origin, ...PREFLIGHT_HEADERS },
  });
}

/**
 * `response` as the guard sends it: CORS for an allowed origin only (the
 * wrapped handler's own CORS headers dropped, the allow-list decides), and
 * `public` caching made `private` unless `shared`.
 *
 * @param {Request} request
 * @param {readonly string[] | undefined} origins
 * @param {boolean} shared whether the answer needed no credential
 * @param {Response} response
 * @returns {Response}
 */
export function finishAnswer(request, origins, shared, response) {
  const headers = new Headers(response.headers);
  const cacheControl = headers.get("cache-control");
  if (!shared && cacheControl !== null && /\bpublic\b/i.test(cacheControl)) {
    headers.set("cache-control", cacheControl.replace(/\bpublic\b/i, "private"));
  }
  if (origins !== undefined) {
    /** @type {string[]} */
    const inner = [];
    headers.forEach((_, name) => {
      if (name.startsWith("access-control-")) inner.push(name);
    });
    for (const name of inner) headers.delete(name);
    const origin = request.headers.get("origin");
    if (!(headers.get("vary") ?? "").toLowerCase().includes("origin")) headers.append("vary", "Origin");
    if (origin !== null && origins.includes(origin)) {
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-expose-headers", EXPOSED);
    }
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * 401: no token, or one that is not accepted (RFC 6750's challenge).
 *
 * @param {boolean} presented whether a credential came
 * @returns {Response}
 */
export function unauthenticatedAnswer(presented) {
  return presented
    ? errorResponse(401, "unauthorized", "the bearer token was not accepted", {
        "www-authenticate": `${REALM}, error="invalid_token"`,
      })
    : errorResponse(401, "unauthorized", "this route needs a bearer token: send Authorization: Bearer <token>", {
        "www-authenticate": REALM,
      });
}

/**
 * 403: a known credential, not for this scope or tenant. The message names
 * the scope only: an unknown tenant gets these very bytes.
 *
 * @param {import("./bearer-tokens.js").AccessScope} scope
 * @returns {Response}
 */
export function forbiddenAnswer(scope) {
  const what = { read: "read this layout", existence: "query this existence API", admin: "use this administrative route" }[scope];
  return errorResponse(403, "forbidden", `this credential may not ${what}`);
}

/**
 * 429 (or 413 when the request alone exceeds the bucket: waiting would not help).
 *
 * @param {number} cost digests asked
 * @param {import("./rate-limit.js").RateLimitVerdict & { allowed: false }} verdict
 * @param {number} burst the limiter's
 * @returns {Response}
 */
export function limitedAnswer(cost, verdict, burst) {
  if (verdict.overBurst) {
    return errorResponse(
      413,
      "tooManyDigests",
      `at most ${burst} digests per request under this server's rate limit, got ${cost}: split the request`,
    );
  }
  const seconds = verdict.retryAfterSeconds;
  return errorResponse(
    429,
    "rateLimited",
    `this client's existence-query budget is spent (${cost} digests asked): retry after ${seconds} s`,
    { "retry-after": String(seconds) },
    { retryAfterSeconds: seconds },
  );
}
