// Who may ask (docs/security.md): the `authorize` hook of withAccessControl
// and createTenantHandler, and a ready-made one for bearer tokens given as
// data (the CLI reads them from a file). A token is a secret: it is hashed
// once at construction, a presented one is hashed and compared with every
// configured digest in constant time (constant-time.js), and no message,
// log line or client key ever contains it — a client is named by the
// entry's `name`, or by its index when it has none.

import { typeError } from "../core/errors.js";
import { constantTimeEqual, sha256OfText } from "./constant-time.js";

/**
 * What a request asks for: `"read"` the layout (manifest.json, snapshots,
 * deltas — and any other path, so nothing is answered unasked),
 * `"existence"` (HEAD/GET `blobs/sha256/<hex>`, POST `blobs:findMissing`),
 * or `"admin"`: the guard's `adminPaths` (default the `stats` route, whose
 * counters list the digests other clients asked about recently).
 *
 * @typedef {"read" | "existence" | "admin"} AccessScope
 */
/**
 * What the authorizer is told besides the request: the scope the route
 * needs and, behind createTenantHandler, the tenant named in the path
 * (whether it exists or not: the answer must not tell).
 *
 * @typedef {{ readonly scope: AccessScope; readonly tenant: string | undefined }} AccessContext
 */
/**
 * The authorizer's verdict:
 * - `{ kind: "allow" }`: served. `client` names the caller for rate limits
 *   (never the token itself); `tenants`, when given, is the only tenants it
 *   may reach (checked again by the handler: an authorizer may say "allow,
 *   as tenant A" without comparing names itself); `public: true` says no
 *   credential was needed, so shared caches may keep the answer.
 * - `{ kind: "unauthenticated" }`: no credential, or an unknown one → 401.
 * - `{ kind: "forbidden" }`: a known credential, not for this tenant or
 *   scope → 403.
 *
 * @typedef {{ kind: "allow"; client?: string; tenants?: readonly string[]; public?: boolean }
 *   | { kind: "unauthenticated"; presented?: boolean }
 *   | { kind: "forbidden" }} AccessDecision
 */
/**
 * The `authorize` hook: decides from the request (its headers; the body is
 * not read yet) and the context. It must answer the same for a tenant that
 * does not exist as for one the caller may not reach.
 *
 * @typedef {(request: Request, context: AccessContext) => AccessDecision | Promise<AccessDecision>} Authorizer
 */
/**
 * One bearer token: the secret, the scopes it opens, the tenants it may
 * reach (`"*"`: all; omitted: only a handler without tenants,
 * withAccessControl), and a `name` for rate limits and metrics (default
 * `token#<index>`).
 *
 * @typedef {{
 *   token: string;
 *   scopes: readonly AccessScope[];
 *   tenants?: "*" | readonly string[];
 *   name?: string;
 * }} BearerTokenEntry
 */

const SCOPES = /** @type {const} */ (["read", "existence", "admin"]);
/** RFC 6750's b64token: what may follow "Bearer " in a header. */
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]+=*$/;
/** The shortest token taken: 16 characters of a random source carry at least 96 bits. */
export const MIN_TOKEN_LENGTH = 16;
/** A longer Authorization header is refused unread (no token is that long). */
const MAX_TOKEN_LENGTH = 4096;

/**
 * An authorizer for `Authorization: Bearer <token>`, the tokens given as
 * data. Scopes listed in `publicScopes` need no token (e.g. `["read"]`: the
 * snapshots are public, the existence API is not).
 *
 * @example
 * ```ts
 * const authorize = bearerTokenAuthorizer([
 *   { token: process.env.CI_TOKEN, scopes: ["read", "existence"], tenants: ["team-a"], name: "ci-a" },
 * ]);
 * const handler = createTenantHandler({ tenants: { "team-a": handlerA }, authorize });
 * ```
 *
 * @param {readonly BearerTokenEntry[]} tokens
 * @param {{ publicScopes?: readonly AccessScope[] }} [options]
 * @returns {Authorizer}
 * @throws {TypeError} for a malformed entry (the message names the entry by index, never the token).
 */
export function bearerTokenAuthorizer(tokens, options = {}) {
  if (!Array.isArray(tokens)) throw typeError("tokens", "an array of { token, scopes, tenants?, name? }", tokens);
  const publicScopes = options?.publicScopes ?? [];
  if (!Array.isArray(publicScopes) || !publicScopes.every((scope) => SCOPES.includes(scope))) {
    throw typeError("options.publicScopes", 'a list of "read", "existence" and "admin"', publicScopes);
  }
  const entries = tokens.map((entry, index) => checkEntry(entry, index));
  const texts = new Set(entries.map((entry) => entry.token));
  if (texts.size !== entries.length) throw new TypeError("tokens: two entries have the same token");
  // Hashed once; the texts are dropped, so only digests stay in memory.
  const ready = Promise.all(
    entries.map(async ({ token, scopes, tenants, name }) => ({ digest: await sha256OfText(token), scopes, tenants, name })),
  );

  return async (request, context) => {
    if (publicScopes.includes(context.scope)) return { kind: "allow", public: true };
    const presented = bearerTokenOf(request);
    if (presented === undefined) return { kind: "unauthenticated", presented: request.headers.has("authorization") };
    const digest = await sha256OfText(presented);
    const known = await ready;
    // Every entry is compared, the match kept without stopping: the time
    // does not tell which entry (or whether any) matched.
    let matched = -1;
    for (const [index, entry] of known.entries()) {
      const same = constantTimeEqual(digest, entry.digest);
      matched = same ? index : matched;
    }
    const entry = known[matched];
    if (entry === undefined) return { kind: "unauthenticated", presented: true };
    if (!entry.scopes.includes(context.scope)) return { kind: "forbidden" };
    if (!reaches(entry.tenants, context.tenant)) return { kind: "forbidden" };
    return { kind: "allow", client: entry.name };
  };
}

/**
 * @param {"*" | readonly string[] | undefined} tenants the entry's
 * @param {string | undefined} tenant the path's (undefined: no tenants)
 * @returns {boolean}
 */
function reaches(tenants, tenant) {
  if (tenants === "*") return true;
  if (tenant === undefined) return tenants === undefined;
  return tenants?.includes(tenant) === true;
}

/**
 * The token of `Authorization: Bearer <token>`, or undefined (no header,
 * another scheme, a malformed or oversized value).
 *
 * @param {Request} request
 * @returns {string | undefined}
 */
function bearerTokenOf(request) {
  const header = request.headers.get("authorization");
  if (header === null || header.length > MAX_TOKEN_LENGTH) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(header);
  if (match === null || !TOKEN_CHARACTERS.test(match[1])) return undefined;
  return match[1];
}

/**
 * @param {unknown} entry
 * @param {number} index
 * @returns {{ token: string; scopes: readonly AccessScope[]; tenants: "*" | readonly string[] | undefined; name: string }}
 */
function checkEntry(entry, index) {
  const at = `tokens[${index}]`;
  if (entry === null || typeof entry !== "object") throw typeError(at, "{ token, scopes, tenants?, name? }", entry);
  const { token, scopes, tenants, name } = /** @type {Record<string, unknown>} */ (entry);
  // typeError describes a string by its length only: the token never reaches a message.
  if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH) {
    throw typeError(`${at}.token`, `a string of ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} characters`, token);
  }
  if (!TOKEN_CHARACTERS.test(token)) {
    throw new TypeError(`${at}.token: expected the characters of a bearer token (A-Z a-z 0-9 - . _ ~ + / and trailing =)`);
  }
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((scope) => SCOPES.includes(scope))) {
    throw typeError(`${at}.scopes`, 'a non-empty list of "read", "existence" and "admin"', scopes);
  }
  if (tenants !== undefined && tenants !== "*") {
    if (!Array.isArray(tenants) || !tenants.every((tenant) => typeof tenant === "string")) {
      throw typeError(`${at}.tenants`, '"*" or a list of tenant names', tenants);
    }
  }
  if (name !== undefined && (typeof name !== "string" || name.length === 0 || name.length > 200)) {
    throw typeError(`${at}.name`, "a string of 1 to 200 characters", name);
  }
  return {
    token,
    scopes: /** @type {AccessScope[]} */ (scopes),
    tenants: /** @type {"*" | string[] | undefined} */ (tenants),
    name: typeof name === "string" ? name : `token#${index}`,
  };
}
