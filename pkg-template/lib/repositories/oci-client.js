// One HTTP client for one repository of an OCI distribution registry, shared
// by OciRegistryRepository (HEAD blob) and the CLI (enumeration, push).
// fetch only, so it runs in Node ≥ 20 and in browsers alike.
//
// Auth follows the distribution token spec: a request is sent with the
// credentials known so far; a 401 carrying `WWW-Authenticate: Bearer
// realm=…,service=…,scope=…` fetches a token from the realm (with Basic
// credentials when given), caches it per realm/service/scope until it
// expires, and retries the request once. A `Basic` challenge is answered
// with the configured username/password. A second 401 is an error.
//
// Origins: every request goes to the registry's origin (scheme, host,
// port), and so does every credential. A URL the registry hands back (a
// tag-list Link, an upload Location) on another origin is refused with code
// `crossOrigin` before anything is sent there, and redirects are never
// followed: another host is not the registry, so neither its answers nor our
// credentials belong there. The one exception is by design of the token
// spec: the Bearer realm may be another host. It gets the token request;
// the Basic credentials go with it only when the realm is the registry's
// origin or one the user named (`tokenRealms`), since a registry could
// otherwise name any host and collect them.
//
// Every answer that is not the one a caller expects becomes an
// OciRegistryError with `status` (the HTTP status; undefined when no HTTP
// answer came) and a stable `code` — never a guess.

import { checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS, startDeadline } from "../core/deadline.js";
import { typeError } from "../core/errors.js";
import { TokenCache, basicAuthorization, parseChallenge, parseTokenAnswer, realmOrigins, tokenRequest } from "./oci-auth.js";
import { OciRegistryError, statusError, timeoutFailure, transportFailure } from "./oci-errors.js";
import { RESPONSE_LIMITS, readLimited } from "./oci-limits.js";

export { OciRegistryError } from "./oci-errors.js";
export { RESPONSE_LIMITS } from "./oci-limits.js";

// The distribution spec's repository-name grammar (path components of
// lowercase alphanumerics joined by separators).
const NAME_PATTERN = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;

/**
 * @typedef {import("../client-types.js").RegistryCredentials} RegistryCredentials
 * @typedef {import("../client-types.js").RegistryRequestCounts} RegistryRequestCounts
 * @typedef {import("../client-types.js").Timers} Timers
 */

/**
 * @typedef {object} RegistryClientOptions
 * @property {typeof fetch} [fetch] a fetch implementation (default: globalThis.fetch)
 * @property {RegistryCredentials} [credentials] none: anonymous
 * @property {number} [timeoutMs] per request, body included (default 30 000; Infinity: no limit)
 * @property {Timers} [timers] timer functions for the limit (tests)
 * @property {() => number} [now] clock in epoch ms, for token expiry (default Date.now)
 * @property {readonly (string | URL)[]} [tokenRealms] Bearer realms on other origins that may receive the Basic credentials
 */

/**
 * Checks a repository name against the distribution spec's grammar.
 * @param {string} name
 * @returns {string}
 */
export function checkRepositoryName(name) {
  if (typeof name !== "string" || name.length > 255 || !NAME_PATTERN.test(name)) {
    throw typeError("repository", 'a repository name such as "team/app" (lowercase a-z 0-9, separators . _ __ -, path /)', name);
  }
  return name;
}

/**
 * @typedef {object} RegistryRequest
 * @property {Record<string, string>} [headers]
 * @property {Uint8Array | StreamedBody} [body] bytes, or a streamed body; either can be sent again after a 401
 * @property {AbortSignal} [signal]
 * @property {boolean} [readBody] read the body within the timeout (default: GET only)
 * @property {keyof typeof RESPONSE_LIMITS} [limit] what the body is, for its size limit (default "manifest")
 */

/**
 * A body streamed from its source (a blob on disk): called once per attempt
 * (so a 401 retry re-opens it) with `progress`, which the stream calls as
 * bytes go out; each call restarts the time limit, so for a streamed body
 * the limit is on silence, not on the whole upload. Sent with `duplex:
 * "half"`, as fetch requires for a stream.
 * @typedef {(progress: () => void) => ReadableStream<Uint8Array>} StreamedBody
 */

/**
 * @typedef {object} RegistryResponse
 * @property {number} status
 * @property {Headers} headers
 * @property {URL} url the URL that was asked
 * @property {Uint8Array} body empty unless read
 */

export class RegistryClient {
  #base;
  #name;
  #fetch;
  #credentials;
  #timeoutMs;
  /** @type {Timers} */
  #timers;
  #now;
  /** @type {string | undefined} the Authorization header that worked last */
  #authorization;
  /** When #authorization stops being worth sending (a bearer token's expiry). */
  #authorizationExpiresAt = Infinity;
  #tokens;
  /** @type {Set<string>} origins of token realms the user named: they may receive the Basic credentials */
  #tokenRealms;
  /** @type {RegistryRequestCounts} */
  #counts = { head: 0, get: 0, post: 0, patch: 0, put: 0, delete: 0, token: 0 };
  /**
   * The first request that reads (HEAD, GET) and the first that writes go
   * alone, while the others wait: its answer teaches the auth the rest need
   * (a Basic challenge, a Bearer token of the pull or push scope), so N
   * concurrent first requests cost one 401, not N.
   * @type {{ read: boolean, write: boolean }}
   */
  #learned = { read: false, write: false };
  /** @type {{ read?: Promise<unknown>, write?: Promise<unknown> }} */
  #learning = {};

  /**
   * @param {string | URL} registryUrl e.g. "https://registry.example:5000" (path ignored)
   * @param {string} repository e.g. "team/app"
   * @param {RegistryClientOptions} [options]
   */
  constructor(registryUrl, repository, options = {}) {
    if (typeof registryUrl !== "string" && !(registryUrl instanceof URL)) {
      throw typeError("registryUrl", 'a URL or URL string such as "https://registry.example"', registryUrl);
    }
    let url;
    try {
      url = new URL(registryUrl);
    } catch {
      throw typeError("registryUrl", "an absolute http(s) URL", registryUrl);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw typeError("registryUrl", "an http: or https: URL", registryUrl);
    }
    this.#base = new URL("/", url);
    this.#name = checkRepositoryName(repository);
    const {
      fetch: fetchImpl = globalThis.fetch?.bind(globalThis),
      credentials,
      timeoutMs,
      timers,
      now = Date.now,
      tokenRealms = [],
    } = options ?? {};
    if (typeof fetchImpl !== "function") throw typeError("options.fetch", "a fetch function", fetchImpl);
    this.#timeoutMs = checkTimeout("options.timeoutMs", timeoutMs, DEFAULT_TIMEOUT_MS);
    this.#timers = checkTimers(timers);
    if (typeof now !== "function") throw typeError("options.now", "a function returning epoch milliseconds", now);
    if (credentials !== undefined && (credentials === null || typeof credentials !== "object")) {
      throw typeError("options.credentials", "{ username, password }, { token } or { identityToken }", credentials);
    }
    this.#fetch = fetchImpl;
    this.#credentials = credentials ?? {};
    this.#now = now;
    this.#tokens = new TokenCache(now);
    this.#tokenRealms = realmOrigins(tokenRealms);
    if (typeof this.#credentials.token === "string") this.#authorization = `Bearer ${this.#credentials.token}`;
  }

  /** The repository name. */
  get name() {
    return this.#name;
  }

  /** Requests sent so far, by method (retries after a 401 included). */
  get requests() {
    return { ...this.#counts };
  }

  /**
   * A URL under /v2/<name>/.
   * @param {string} path e.g. "blobs/sha256:…"
   * @returns {URL}
   */
  url(path) {
    return new URL(`/v2/${this.#name}/${path}`, this.#base);
  }

  /**
   * A URL the registry handed back (a Link, a Location), resolved against
   * the answer it came in; refused (code `crossOrigin`) unless it is on the
   * registry's origin. `what` names it in the message, e.g. "the Link header
   * of GET …".
   * @param {string} href
   * @param {URL} base
   * @param {string} what
   * @returns {URL}
   */
  resolve(href, base, what) {
    let url;
    try {
      url = new URL(href, base);
    } catch {
      throw new OciRegistryError(`${what} is not a URL: ${JSON.stringify(href)}`, { code: "badResponse" });
    }
    this.#checkOrigin(url, what);
    return url;
  }

  /**
   * Sends one request, with auth and the timeout; returns any status (the
   * caller decides what it expected). Rejects with OciRegistryError for a
   * timeout, a transport failure or a refused 401, and with the signal's
   * reason when the caller aborts.
   * @param {string} method
   * @param {string | URL} target a path under /v2/<name>/, or an absolute URL (e.g. an upload Location)
   * @param {RegistryRequest} [request]
   * @returns {Promise<RegistryResponse>}
   */
  async send(method, target, request = {}) {
    const kind = method === "HEAD" || method === "GET" ? "read" : "write";
    // Each wait ends with a request in flight (its own time limit bounds it).
    while (!this.#learned[kind] && this.#learning[kind] !== undefined) await this.#learning[kind].catch(() => {});
    if (this.#learned[kind]) return this.#sendOnce(method, target, request);
    const attempt = this.#sendOnce(method, target, request);
    this.#learning[kind] = attempt;
    try {
      const response = await attempt;
      this.#learned[kind] = true;
      return response;
    } finally {
      if (this.#learning[kind] === attempt) this.#learning[kind] = undefined;
    }
  }

  /**
   * send() without the first-request gate.
   * @param {string} method
   * @param {string | URL} target
   * @param {RegistryRequest} request
   * @returns {Promise<RegistryResponse>}
   */
  async #sendOnce(method, target, request) {
    const url = target instanceof URL ? target : this.url(target);
    // The backstop of resolve(): whatever path a URL took, no request (and
    // so no credential) leaves the registry's origin.
    this.#checkOrigin(url, `${method} ${url}`);
    const sent = this.#currentAuthorization();
    let response = await this.#exchange(method, url, request, sent);
    if (response.status !== 401) return response;
    const { header, expiresAt } = await this.#answerChallenge(response, method, url, sent, request.signal);
    response = await this.#exchange(method, url, request, header);
    if (response.status === 401) {
      throw this.error(method, url, response, "the registry refused the credentials (401 after authenticating)");
    }
    this.#authorization = header;
    this.#authorizationExpiresAt = expiresAt;
    return response;
  }

  /**
   * Like send, but a status not in `expected` rejects with OciRegistryError.
   * @param {string} method
   * @param {string | URL} target
   * @param {number[]} expected
   * @param {RegistryRequest} [request]
   * @returns {Promise<RegistryResponse>}
   */
  async expect(method, target, expected, request = {}) {
    const response = await this.send(method, target, request);
    if (!expected.includes(response.status))
      throw this.error(method, response.url, response, `expected ${expected.join(" or ")}`);
    return response;
  }

  /**
   * An OciRegistryError for an unexpected answer, naming the request.
   * @param {string} method
   * @param {URL} url
   * @param {RegistryResponse} response
   * @param {string} expectation
   * @returns {OciRegistryError}
   */
  error(method, url, response, expectation) {
    return statusError(method, url, response, expectation);
  }

  /**
   * @param {URL} url
   * @param {string} what
   */
  #checkOrigin(url, what) {
    if (url.origin === this.#base.origin) return;
    throw new OciRegistryError(
      `${what}: ${url} is on another origin (${url.origin}) than the registry (${this.#base.origin}); `
        + "not followed, so nothing, and no credential, is sent there",
      { code: "crossOrigin" },
    );
  }

  /** The header to send before any challenge: the last one that worked, unless it expired. */
  #currentAuthorization() {
    return this.#authorizationExpiresAt > this.#now() ? this.#authorization : undefined;
  }

  /**
   * One fetch with the timeout; the body is read (GET, or readBody) or
   * drained, so the connection is free again when this resolves.
   * @param {string} method
   * @param {URL} url
   * @param {RegistryRequest} request
   * @param {string | undefined} authorization
   * @returns {Promise<RegistryResponse>}
   */
  async #exchange(method, url, request, authorization) {
    const key = /** @type {keyof RegistryRequestCounts} */ (method.toLowerCase());
    if (key in this.#counts) this.#counts[key] += 1;
    const headers = { ...request.headers };
    if (authorization !== undefined) headers.authorization = authorization;
    const readBody = request.readBody ?? method === "GET";
    return this.#timed(method, url, request.signal, async (signal, progress) => {
      /** @type {RequestInit & { duplex?: "half" }} */
      const init = { method, headers, redirect: "manual", signal };
      if (typeof request.body === "function") {
        init.body = request.body(progress);
        init.duplex = "half";
        // "manual" makes fetch keep a copy of the body in case it must
        // follow a redirect (Node's undici tees the stream: the whole blob
        // ends up in memory); "error" does not. A 3xx then rejects instead
        // of answering; #timed still names it a redirect.
        init.redirect = "error";
      } else if (request.body !== undefined) {
        init.body = /** @type {BodyInit} */ (request.body);
      }
      const response = await this.#fetch(url, init);
      // Error bodies are small JSON; read (the start of) them for the message.
      const failed = response.status >= 400;
      const wanted = (readBody || failed) && method !== "HEAD";
      const limit = RESPONSE_LIMITS[failed ? "errorBody" : (request.limit ?? "manifest")];
      const body = wanted ? await readLimited(response, limit, method, url, failed) : new Uint8Array(0);
      if (!wanted) await response.body?.cancel().catch(() => {});
      return { status: response.status, headers: response.headers, url, body };
    });
  }

  /**
   * Runs `work` with a signal that aborts on the caller's signal or after
   * timeoutMs; maps the failures to OciRegistryError.
   * @template T
   * @param {string} method
   * @param {URL | string} url
   * @param {AbortSignal | undefined} outer
   * @param {(signal: AbortSignal, progress: () => void) => Promise<T>} work `progress` restarts the time limit
   * @returns {Promise<T>}
   */
  async #timed(method, url, outer, work) {
    outer?.throwIfAborted();
    const deadline = startDeadline(outer, this.#timeoutMs, this.#timers, `${method} ${url}`);
    try {
      return await work(deadline.signal, deadline.restart);
    } catch (error) {
      if (error instanceof OciRegistryError) throw error;
      if (deadline.expired) throw timeoutFailure(method, url, this.#timeoutMs, error);
      if (outer?.aborted) throw outer.reason;
      throw transportFailure(method, url, error);
    } finally {
      deadline.clear();
    }
  }

  /**
   * The Authorization header that answers a 401's challenge.
   * @param {RegistryResponse} response
   * @param {string} method
   * @param {URL} url
   * @param {string | undefined} sent the Authorization header the 401 answered
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<{ header: string, expiresAt: number }>}
   */
  async #answerChallenge(response, method, url, sent, signal) {
    const challenge = parseChallenge(response.headers.get("www-authenticate"));
    const { username, password, token } = this.#credentials;
    const refuse = (/** @type {string} */ why) => this.error(method, url, response, why);
    if (typeof token === "string") throw refuse("the registry refused the configured bearer token");
    if (challenge?.scheme === "basic") {
      if (typeof this.#credentials.identityToken === "string" && typeof username !== "string") {
        throw refuse("the registry asks for Basic credentials; an identity token is only for a Bearer token realm");
      }
      if (typeof username !== "string") throw refuse("the registry needs credentials (Basic) and none were given");
      return { header: basicAuthorization(username, password), expiresAt: Infinity };
    }
    if (challenge?.scheme === "bearer" && challenge.params.realm) {
      const { value, expiresAt } = await this.#tokens.get(challenge.params, sent, () =>
        this.#fetchToken(challenge.params, signal),
      );
      return { header: `Bearer ${value}`, expiresAt };
    }
    throw refuse("the registry answered 401 without a Basic or Bearer challenge");
  }

  /**
   * GET realm?service=…&scope=… (with Basic credentials when configured).
   * @param {Record<string, string>} params
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<{ value: string, seconds: number }>}
   */
  async #fetchToken(params, signal) {
    const { realm, init } = tokenRequest(params, this.#base, this.#credentials, this.#tokenRealms);
    this.#counts.token += 1;
    const answer = await this.#timed(init.method, realm, signal, async (timed) => {
      const response = await this.#fetch(realm, { ...init, redirect: "manual", signal: timed });
      const failed = response.status !== 200;
      const body = await readLimited(response, RESPONSE_LIMITS[failed ? "errorBody" : "token"], init.method, realm, failed);
      return { status: response.status, headers: response.headers, url: realm, body };
    });
    if (answer.status !== 200) {
      const error = statusError(init.method, realm, answer, "the token realm should answer 200 with a token");
      if (answer.status === 401 || answer.status === 403) error.code = "unauthorized";
      throw error;
    }
    return parseTokenAnswer(answer.body, realm);
  }
}
