// Access control around createRequestHandler (docs/security.md), as a
// wrapper of the same shape — a Web `Request` in, a `Response` out — so it
// runs wherever the handler runs (Node, Deno, Bun, Workers):
// - withAccessControl(handler, …): one catalog behind an `authorize` hook;
// - createTenantHandler({ tenants, … }): several, one handler each, at
//   `<basePath><tenant>/…` (the tenant's handler sees the path without the
//   prefix, so it is made with the default basePath "/").
// Each request goes: CORS preflight (allow-list) → authorize (scope "read"
// or "existence", the path's tenant) → the tenant looked up → the rate
// limit (existence routes, counted in digests) → the handler. Every refusal
// before the handler is decided without touching a store or a catalog, so
// it cannot depend on a digest's presence; an unknown tenant is refused
// exactly as a forbidden one (the authorizer is asked first), so names
// cannot be enumerated.

import { typeError } from "../core/errors.js";
import {
  checkOrigins,
  finishAnswer,
  forbiddenAnswer,
  limitedAnswer,
  preflightAnswer,
  unauthenticatedAnswer,
} from "./access-answers.js";
import { EXISTENCE_PATHS } from "./existence-api.js";
import { BodyBudget } from "./handler-stats.js";
import { errorResponse } from "./http-answers.js";
import { existenceCost } from "./request-cost.js";

/**
 * @import { AccessDecision, AccessScope, Authorizer } from "./bearer-tokens.js"
 * @import { RateLimiter } from "./rate-limit.js"
 */

/**
 * @typedef {(request: Request) => Promise<Response>} FetchHandler
 */
/**
 * The `rateLimit` option: a limiter (createRateLimiter; one may serve
 * several handlers) and, optionally, the key a request is counted under —
 * by default the authorizer's `client` (a token's name), else the shared
 * key "anonymous" (give `clientKey` for public existence routes, e.g. from
 * the address your proxy forwards).
 *
 * @typedef {{
 *   limiter: RateLimiter;
 *   clientKey?: (request: Request, decision: AccessDecision & { kind: "allow" }) => string;
 * }} RateLimitOption
 */
/**
 * Options of withAccessControl: `authorize` (bearerTokenAuthorizer or your
 * own), `basePath` (where the handler's routes start, as given to
 * createRequestHandler; default "/"), `cors` (the origins whose pages may
 * read the answers; give it here, not to the wrapped handler), `rateLimit`,
 * `maxBodyBytes` (the largest findMissing body read to count its digests;
 * default 1 MiB, as the handler's), `adminPaths` (routes below the base, or
 * below a tenant, that need the "admin" scope; default `["stats"]`, the
 * path `artifact-bloom serve` gives its counters, which list the digests
 * other clients asked about: give your handler's `stats.path` if it is
 * another), `onError` (told what an authorizer, a tenant lookup or a
 * handler threw, for your logs: the client gets a 500 without it),
 * `bodyBudgetBytes` (with `rateLimit`: findMissing body bytes the guard
 * buffers at once, all requests together, before the handler reads them
 * again; past it 503 with Retry-After, as the handler's own option).
 *
 * @typedef {{
 *   authorize: Authorizer;
 *   basePath?: string;
 *   cors?: readonly string[];
 *   rateLimit?: RateLimitOption;
 *   maxBodyBytes?: number;
 *   adminPaths?: readonly string[];
 *   onError?: (error: unknown) => void;
 *   bodyBudgetBytes?: number;
 * }} AccessControlOptions
 */
/**
 * The tenants: names (1–64 of A-Z a-z 0-9 . _ -, starting with a letter or
 * digit) to handlers, or a function looking one up (called only with a
 * well-formed name, after the caller is authorized for it).
 *
 * @typedef {Readonly<Record<string, FetchHandler>>
 *   | ReadonlyMap<string, FetchHandler>
 *   | ((tenant: string) => FetchHandler | undefined | Promise<FetchHandler | undefined>)} TenantsOption
 */
/** @typedef {AccessControlOptions & { tenants: TenantsOption }} TenantHandlerOptions */
/**
 * Where a request goes: the tenant named (undefined without tenants), the
 * route below the base (decoded; undefined when not valid percent-encoding),
 * and the handler and URL it is forwarded to, looked up only once authorized.
 *
 * @typedef {{ tenant: string | undefined; route: string | undefined; target: () => Promise<{ handler: FetchHandler; url: string } | undefined> }} Destination
 */

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DECISIONS = ["allow", "unauthenticated", "forbidden"];

/**
 * `handler` behind an authorizer, a CORS allow-list and a rate limit.
 *
 * @example
 * ```ts
 * const inner = createRequestHandler({ store, catalog, basePath: "/catalog/" });
 * const authorize = bearerTokenAuthorizer([{ token: secret, scopes: ["read", "existence"] }]);
 * const handler = withAccessControl(inner, { authorize, basePath: "/catalog/", cors: ["https://app.example"] });
 * ```
 *
 * @param {FetchHandler} handler what createRequestHandler returned (made without `cors`)
 * @param {AccessControlOptions} options
 * @returns {FetchHandler}
 * @throws {TypeError} for a bad option.
 */
export function withAccessControl(handler, options) {
  if (typeof handler !== "function") throw typeError("handler", "a (request) => Promise<Response> function", handler);
  const settings = checkSettings(options);
  return guarded(settings, (url) => ({
    tenant: undefined,
    route: url.pathname.startsWith(settings.base) ? decoded(url.pathname.slice(settings.base.length)) : "",
    target: async () => ({ handler, url: url.href }),
  }));
}

/**
 * One entry point for several catalogs: `<basePath><tenant>/manifest.json`,
 * `<basePath><tenant>/blobs:findMissing`, … each answered by its tenant's
 * own handler, behind one authorizer that is told the tenant.
 *
 * @example
 * ```ts
 * const handler = createTenantHandler({
 *   tenants: { "team-a": createRequestHandler({ store: storeA, catalog: catalogA }),
 *              "team-b": createRequestHandler({ store: storeB, catalog: catalogB }) },
 *   authorize: bearerTokenAuthorizer(tokensFromYourFile),
 *   basePath: "/catalogs/",
 * });
 * ```
 *
 * @param {TenantHandlerOptions} options
 * @returns {FetchHandler}
 * @throws {TypeError} for a bad option or tenant name.
 */
export function createTenantHandler(options) {
  const settings = checkSettings(options);
  const find = tenantFinder(options.tenants);
  return guarded(settings, (url) => {
    if (!url.pathname.startsWith(settings.base)) return undefined;
    const rest = url.pathname.slice(settings.base.length);
    const slash = rest.indexOf("/");
    if (slash <= 0) return undefined;
    const tenant = rest.slice(0, slash);
    const below = rest.slice(slash);
    return {
      tenant,
      route: decoded(below.slice(1)),
      target: async () => {
        const handler = TENANT_NAME.test(tenant) ? await find(tenant) : undefined;
        if (handler === undefined) return undefined;
        // Set as a path, never parsed as a URL: "//host/…" stays a path on this origin.
        const forwarded = new URL(url.href);
        forwarded.pathname = below;
        return { handler, url: forwarded.href };
      },
    };
  });
}

/**
 * @param {ReturnType<typeof checkSettings>} settings
 * @param {(url: URL) => Destination | undefined} locate
 * @returns {FetchHandler}
 */
function guarded({ authorize, origins, rateLimit, maxBodyBytes, budget, adminPaths, onError }, locate) {
  return async (request) => {
    if (request.method === "OPTIONS" && origins !== undefined) return preflightAnswer(request, origins);
    const url = new URL(request.url);
    const destination = locate(url);
    if (destination === undefined) {
      return finishAnswer(request, origins, false, errorResponse(404, "notFound", `nothing at ${url.pathname}`));
    }
    const { tenant, route } = destination;
    const scope = scopeOf(route, adminPaths);
    let response;
    let shared = false;
    try {
      const decision = checkDecision(await authorize(request, { scope, tenant }));
      if (decision.kind === "unauthenticated") {
        response = unauthenticatedAnswer(decision.presented ?? request.headers.has("authorization"));
      } else if (decision.kind === "forbidden" || !reachable(decision, tenant)) response = forbiddenAnswer(scope);
      else {
        shared = decision.public === true;
        response = await forward(request, destination, scope, decision, { rateLimit, maxBodyBytes, budget });
      }
    } catch (error) {
      // The authorizer's or the handler's failure: no answer rather than a wrong
      // one, and no detail (an authorizer's message may hold what it checked).
      try {
        onError?.(error);
      } catch {
        // A failing logger changes nothing of the answer.
      }
      response = errorResponse(500, "internalError", "could not answer: the server failed");
      shared = false;
    }
    return finishAnswer(request, origins, shared, response);
  };
}

/**
 * The scope a route needs: anything not named is "read", so no path is
 * answered without a credential that could read the layout.
 *
 * @param {string | undefined} route below the base (or the tenant), decoded
 * @param {readonly string[]} adminPaths
 * @returns {AccessScope}
 */
function scopeOf(route, adminPaths) {
  if (route === undefined) return "read";
  if (adminPaths.includes(route)) return "admin";
  return EXISTENCE_PATHS.some((pattern) => pattern.test(route)) ? "existence" : "read";
}

/**
 * The authorized request, past the tenant lookup and the rate limit, to its handler.
 *
 * @param {Request} request
 * @param {Destination} destination
 * @param {AccessScope} scope
 * @param {AccessDecision & { kind: "allow" }} decision
 * @param {{ rateLimit: RateLimitOption | undefined; maxBodyBytes: number; budget: BodyBudget | undefined }} limits
 * @returns {Promise<Response>}
 */
async function forward(request, destination, scope, decision, { rateLimit, maxBodyBytes, budget }) {
  const target = await destination.target();
  if (target === undefined) return errorResponse(404, "notFound", `nothing at ${new URL(request.url).pathname}`);
  if (scope !== "existence" || rateLimit === undefined) return target.handler(requestAt(request, target.url));
  const counted = await existenceCost(request, destination.route ?? "", maxBodyBytes, budget);
  if ("response" in counted) return counted.response;
  try {
    const key = rateLimit.clientKey?.(request, decision) ?? decision.client ?? "anonymous";
    if (typeof key !== "string") throw new TypeError("rateLimit.clientKey: expected a string");
    const verdict = rateLimit.limiter.take(key, counted.cost);
    // (Narrowed by its field: a refusal is the verdict with retryAfterSeconds.)
    if ("retryAfterSeconds" in verdict) return limitedAnswer(counted.cost, verdict, rateLimit.limiter.burst);
    // The handler has read the body when its answer comes (findMissing answers after parsing).
    return await target.handler(requestAt(counted.request, target.url));
  } finally {
    budget?.release(counted.reserved);
  }
}

/**
 * The same request at another URL (its method, headers, body and signal);
 * the request itself when the URL is its own.
 *
 * @param {Request} request
 * @param {string} url
 * @returns {Request}
 */
function requestAt(request, url) {
  if (url === request.url) return request;
  /** @type {RequestInit & { duplex?: "half" }} */
  const init = { method: request.method, headers: request.headers, signal: request.signal };
  if (request.body !== null) {
    init.body = request.body;
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * @param {AccessDecision & { kind: "allow" }} decision
 * @param {string | undefined} tenant
 * @returns {boolean}
 */
function reachable(decision, tenant) {
  if (decision.tenants === undefined) return true;
  return tenant !== undefined && decision.tenants.includes(tenant);
}

/**
 * @param {unknown} decision
 * @returns {AccessDecision}
 */
function checkDecision(decision) {
  const kind = /** @type {{ kind?: unknown }} */ (decision)?.kind;
  if (typeof kind !== "string" || !DECISIONS.includes(kind)) {
    throw new TypeError('authorize: expected { kind: "allow" | "unauthenticated" | "forbidden" }');
  }
  const tenants = /** @type {{ tenants?: unknown }} */ (decision).tenants;
  if (tenants !== undefined && !Array.isArray(tenants)) throw new TypeError("authorize: expected tenants to be a list");
  return /** @type {AccessDecision} */ (decision);
}

/**
 * @param {TenantsOption} tenants
 * @returns {(tenant: string) => Promise<FetchHandler | undefined>}
 */
function tenantFinder(tenants) {
  if (typeof tenants === "function") {
    return async (tenant) => {
      const handler = await tenants(tenant);
      if (handler !== undefined && typeof handler !== "function") throw new TypeError("tenants: expected a handler or undefined");
      return handler;
    };
  }
  if (tenants === null || typeof tenants !== "object")
    throw typeError("tenants", "a map of names to handlers, or a function", tenants);
  // Own entries only: "constructor" or "__proto__" in a path never finds Object's.
  const map = new Map(tenants instanceof Map ? tenants : Object.entries(tenants));
  for (const [name, handler] of map) {
    if (typeof name !== "string" || !TENANT_NAME.test(name)) {
      throw typeError("tenants", "names of 1 to 64 characters A-Z a-z 0-9 . _ -, starting with a letter or digit", name);
    }
    if (typeof handler !== "function") throw typeError(`tenants["${name}"]`, "a (request) => Promise<Response> handler", handler);
  }
  return async (tenant) => map.get(tenant);
}

/**
 * @param {AccessControlOptions} options
 */
function checkSettings(options) {
  if (options === null || typeof options !== "object") throw typeError("options", "an object", options);
  const { authorize, basePath = "/", cors, rateLimit, maxBodyBytes = 1024 * 1024, adminPaths = ["stats"], onError } = options;
  const { bodyBudgetBytes } = options;
  if (bodyBudgetBytes !== undefined && (!Number.isSafeInteger(bodyBudgetBytes) || bodyBudgetBytes < 1)) {
    throw typeError("bodyBudgetBytes", "a positive integer", bodyBudgetBytes);
  }
  if (onError !== undefined && typeof onError !== "function") throw typeError("onError", "a function (error) => void", onError);
  if (typeof authorize !== "function") throw typeError("authorize", "a function (request, context) => decision", authorize);
  if (typeof basePath !== "string" || !basePath.startsWith("/"))
    throw typeError("basePath", 'a path starting with "/"', basePath);
  if (rateLimit !== undefined) {
    if (typeof rateLimit?.limiter?.take !== "function")
      throw typeError("rateLimit.limiter", "a createRateLimiter() limiter", rateLimit);
    if (rateLimit.clientKey !== undefined && typeof rateLimit.clientKey !== "function") {
      throw typeError("rateLimit.clientKey", "a function (request, decision) => string", rateLimit.clientKey);
    }
  }
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw typeError("maxBodyBytes", "a positive integer", maxBodyBytes);
  if (!Array.isArray(adminPaths) || !adminPaths.every((path) => typeof path === "string" && path !== "")) {
    throw typeError("adminPaths", 'a list of paths below the base, e.g. ["stats"]', adminPaths);
  }
  const base = basePath.endsWith("/") ? basePath : `${basePath}/`;
  const budget = bodyBudgetBytes === undefined ? undefined : new BodyBudget(bodyBudgetBytes);
  return { authorize, base, origins: checkOrigins(cors), rateLimit, maxBodyBytes, budget, adminPaths, onError };
}

/**
 * @param {string} text
 * @returns {string | undefined}
 */
function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
