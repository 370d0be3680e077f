// An ArtifactRepository that asks the demo server's existence API over HTTP
// (browsers and Node's global fetch). It is the exact, authoritative answer
// that a Bloom "maybe" must be confirmed with, so it never guesses: only the
// repository's own 200 or 404 is an answer, and "its own" is checked: every
// answer of the existence API carries the header EXISTENCE_VERSION_HEADER
// naming the catalogVersion it answered for. A static host, a wrong base
// path or a framework's catch-all answers 404 (or 200) without it, and that
// is an error (code "notExistenceApi"), never "absent". A redirect is refused, not
// followed (a 302 to a login page must not read as "exists", nor a 301 to a
// missing page as "absent"), every other status rejects with `status` and
// `code`, a request that does not finish within `timeoutMs` rejects with
// code "timeout", and one that gets no HTTP answer (a refused or reset
// connection) with code "networkError" and the cause's `causeCode`.

import { checkSignal, checkTimeout, checkTimers, DEFAULT_TIMEOUT_MS, startDeadline } from "../core/deadline.js";
import { digestError, httpError, isUint8Array, typeError } from "../core/errors.js";
import { isNetworkFailure, networkError } from "../core/network-errors.js";
import { toHex } from "../core/text-codec.js";
import { checkCatalogVersion, DIGEST_LENGTH } from "../wasm/format-rules.js";

/**
 * @import { HttpArtifactRepositoryOptions, Timers } from "../client-types.js"
 * @import { CatalogVersion } from "../types.js"
 */

/**
 * The response header with which the existence API (`artifact-bloom serve`)
 * marks each of its answers — 200, 404, 409 and findMissing's 200 — with the
 * catalogVersion it answered for. An answer without it did not come from the
 * existence API (a static host's or a router's 404), so it is no answer.
 */
export const EXISTENCE_VERSION_HEADER = "artifact-bloom-catalog-version";

/**
 * The catalogVersion `response` is marked with (EXISTENCE_VERSION_HEADER),
 * or undefined when it is unmarked.
 *
 * @param {Response} response
 * @returns {string | undefined}
 */
function markOf(response) {
  return response.headers?.get?.(EXISTENCE_VERSION_HEADER)?.trim() ?? undefined;
}

/**
 * The error for an unmarked answer: whatever its status, it did not come
 * from the existence API, so it is neither "exists" nor "absent".
 *
 * @param {string} request e.g. "HEAD http://…"
 * @param {Response} response
 * @param {CatalogVersion} catalogVersion
 * @returns {Error & { status: number, code: string }}
 */
function notExistenceApiError(request, response, catalogVersion) {
  return httpError(
    response.status,
    "notExistenceApi",
    `${request} answered ${response.status} without the ${EXISTENCE_VERSION_HEADER} header: the URL does not look like an`
      + ` artifact-bloom existence API (a static host, a wrong base path or a catch-all page?); expected an answer marked`
      + ` ${EXISTENCE_VERSION_HEADER}: ${catalogVersion}, so this is no answer (not "absent")`,
  );
}

/**
 * Checks that `response` is the existence API's own answer for
 * `catalogVersion`: marked with EXISTENCE_VERSION_HEADER naming that version.
 *
 * @param {string} request e.g. "HEAD http://…"
 * @param {Response} response
 * @param {CatalogVersion} catalogVersion
 * @returns {void}
 * @throws {Error & { status: number, code: string }} "notExistenceApi" (unmarked) or "versionMismatch"
 */
function checkMarked(request, response, catalogVersion) {
  const marked = markOf(response);
  if (marked === undefined) {
    discard(response);
    throw notExistenceApiError(request, response, catalogVersion);
  }
  if (marked !== String(catalogVersion)) {
    discard(response);
    throw httpError(
      response.status,
      "versionMismatch",
      `${request} answered ${response.status} for catalogVersion ${JSON.stringify(marked)}; expected an answer for ${catalogVersion}`,
    );
  }
}

/**
 * The error for a response that is not `expected`: a redirect (a 3xx, or the
 * status-0 "opaqueredirect" a browser gives for `redirect: "manual"`), an
 * unmarked 404 or 405 (another server's: "notExistenceApi"), the
 * existence API's 409 for the version it holds instead ("versionMismatch"),
 * or any other status.
 *
 * @param {string} request e.g. "HEAD http://…"
 * @param {Response} response
 * @param {CatalogVersion} catalogVersion the version asked
 * @param {string} expected what would have been an answer
 * @returns {Error & { status: number, code: string }}
 */
function statusError(request, response, catalogVersion, expected) {
  const { status } = response;
  const came = `${status}${response.statusText ? ` ${response.statusText}` : ""}`;
  if (response.type === "opaqueredirect" || (status >= 300 && status < 400 && status !== 304)) {
    const location = response.headers?.get?.("location");
    return httpError(
      status,
      "redirect",
      `${request} answered a redirect (${response.type === "opaqueredirect" ? "opaque" : came}`
        + `${location ? ` to ${location}` : ""}); expected ${expected} from the repository itself (redirects are not followed)`,
    );
  }
  const marked = markOf(response);
  // An unmarked 404 (no such path) or 405 (a static host refusing POST) is
  // another server's: the existence API answers neither on its routes.
  if ((status === 404 || status === 405) && marked === undefined) return notExistenceApiError(request, response, catalogVersion);
  if (status === 409 && marked !== undefined && marked !== String(catalogVersion)) {
    return httpError(
      status,
      "versionMismatch",
      `${request} answered ${came}: the existence API holds catalogVersion ${JSON.stringify(marked)}, not ${catalogVersion}`
        + " (load that version's snapshot to ask it)",
    );
  }
  return httpError(status, "unexpectedStatus", `${request} answered ${came}; expected ${expected}`);
}

/**
 * Drops a body we will not read, so the connection is released.
 *
 * @param {Response} response
 * @returns {void}
 */
function discard(response) {
  response.body?.cancel().catch(() => {});
}

/**
 * An ArtifactRepository backed by the `artifact-bloom serve` existence API:
 * `HEAD /blobs/sha256/<hex>?catalogVersion=N` and `POST /blobs:findMissing`.
 * Only the repository's own 200/404 is an answer: marked with the
 * `artifact-bloom-catalog-version` header naming the version asked.
 * Anything else — an unmarked 404 or 200 (code "notExistenceApi"), an
 * answer for another version or the API's 409 naming the version it holds
 * ("versionMismatch"), a redirect, another
 * status, a malformed body, a timeout, a broken connection — rejects with an
 * `HttpClientError` (`code`, `status`), never "absent" or "exists".
 * The base URL is a directory: "http://host/api" and "http://host/api/"
 * both ask "http://host/api/blobs/…".
 *
 * @example
 * ```ts
 * const repository = new HttpArtifactRepository("http://127.0.0.1:8080/", { timeoutMs: 5_000 });
 * try {
 *   await repository.existsAtVersionAsync(digest, 43);
 * } catch (error) {
 *   if ((error as HttpClientError).code === "timeout") retryLater();
 * }
 * ```
 */
export class HttpArtifactRepository {
  /** @type {URL} */
  #base;
  /** @type {typeof fetch} */
  #fetch;
  /** @type {number} */
  #timeoutMs;
  /** @type {Timers} */
  #timers;
  /**
   * Requests sent so far, by kind (for summaries; the server counts too).
   *
   * @readonly
   * @type {{ exists: number; findMissing: number }}
   */
  requests = { exists: 0, findMissing: 0 };

  /**
   * @param {string | URL} baseUrl the server root, e.g. "http://127.0.0.1:8080/"
   * @param {HttpArtifactRepositoryOptions} [options] `fetch` (default
   *   globalThis.fetch); `timeoutMs` per request, body included (default
   *   30 000; Infinity for none); `timers` ({ setTimeout, clearTimeout }, for tests)
   * @throws {TypeError | RangeError} for a bad baseUrl, fetch, timeoutMs or timers.
   */
  constructor(baseUrl, options) {
    if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
      throw typeError("baseUrl", "a URL or a URL string", baseUrl);
    }
    try {
      this.#base = new URL(baseUrl, globalThis.location?.href);
    } catch {
      throw typeError("baseUrl", "a valid absolute URL (or a path, in a page)", baseUrl);
    }
    // The base names the API's directory: without a trailing slash, URL
    // resolution would drop its last segment ("http://host/api" + "blobs/…"
    // → "http://host/blobs/…"), asking another server path entirely.
    if (!this.#base.pathname.endsWith("/")) this.#base.pathname += "/";
    this.#base.search = "";
    this.#base.hash = "";
    const fetchImpl = options?.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof fetchImpl !== "function") throw typeError("options.fetch", "a fetch function", fetchImpl);
    this.#fetch = fetchImpl;
    this.#timeoutMs = checkTimeout("options.timeoutMs", options?.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.#timers = checkTimers(options?.timers);
  }

  /**
   * Runs `exchange(signal)` under the time limit: a timeout rejects with
   * code "timeout", a caller's abort with the caller's reason, a network
   * failure (fetch's TypeError, before or during the body) with code
   * "networkError".
   *
   * @template T
   * @param {string} request e.g. "HEAD http://…", for the timeout message
   * @param {AbortSignal | undefined} signal the caller's
   * @param {(signal: AbortSignal) => Promise<T>} exchange
   * @returns {Promise<T>}
   */
  async #limited(request, signal, exchange) {
    const deadline = startDeadline(signal, this.#timeoutMs, this.#timers, request);
    try {
      return await exchange(deadline.signal);
    } catch (error) {
      if (deadline.expired) throw deadline.reason;
      if (signal?.aborted || !isNetworkFailure(error)) throw error;
      throw networkError(request, error);
    } finally {
      deadline.clear();
    }
  }

  /**
   * HEAD /blobs/sha256/<hex>?catalogVersion=N → true (200) / false (404),
   * each marked with the catalogVersion asked.
   *
   * @param {Uint8Array} digest
   * @param {CatalogVersion} catalogVersion
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean>}
   */
  async existsAtVersionAsync(digest, catalogVersion, signal) {
    if (!isUint8Array(digest) || digest.byteLength !== DIGEST_LENGTH) throw digestError("digest", digest);
    checkCatalogVersion("catalogVersion", catalogVersion);
    const callerSignal = checkSignal(signal);
    callerSignal?.throwIfAborted();
    this.requests.exists += 1;
    const url = new URL(`blobs/sha256/${toHex(digest)}`, this.#base);
    url.searchParams.set("catalogVersion", String(catalogVersion));
    const request = `HEAD ${url}`;
    return this.#limited(request, callerSignal, async (limited) => {
      const response = await this.#fetch(url, { method: "HEAD", redirect: "manual", signal: limited });
      if (response.status === 200 || response.status === 404) {
        checkMarked(request, response, catalogVersion);
        return response.status === 200;
      }
      discard(response);
      // Anything else is not an answer: never turn it into "absent" or "exists".
      throw statusError(request, response, catalogVersion, "200 (exists) or 404 (absent)");
    });
  }

  /**
   * POST /blobs:findMissing → one boolean (exists) per digest, in order.
   *
   * @param {readonly Uint8Array[]} digests
   * @param {CatalogVersion} catalogVersion
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean[]>}
   */
  async existsManyAtVersionAsync(digests, catalogVersion, signal) {
    if (!Array.isArray(digests)) throw typeError("digests", "an array of 32-byte Uint8Array", digests);
    // Validate before anything is sent: a wrong-length or non-Uint8Array
    // element must never come back as "absent".
    digests.forEach((digest, index) => {
      if (!isUint8Array(digest) || digest.byteLength !== DIGEST_LENGTH) throw digestError(`digests[${index}]`, digest);
    });
    checkCatalogVersion("catalogVersion", catalogVersion);
    const callerSignal = checkSignal(signal);
    callerSignal?.throwIfAborted();
    this.requests.findMissing += 1;
    const hexes = digests.map(toHex);
    // "./" keeps "blobs:" from parsing as a URL scheme.
    const url = new URL("./blobs:findMissing", this.#base);
    const request = `POST ${url}`;
    const body = await this.#limited(request, callerSignal, async (limited) => {
      const response = await this.#fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ catalogVersion, digests: hexes }),
        redirect: "manual",
        signal: limited,
      });
      if (response.status !== 200) {
        discard(response);
        throw statusError(request, response, catalogVersion, "200 with { catalogVersion, missing }");
      }
      checkMarked(request, response, catalogVersion);
      const text = await response.text(); // inside the limit: a stalled body times out too
      try {
        return JSON.parse(text);
      } catch {
        throw httpError(200, "malformedResponse", `${request} answered a malformed body (not JSON: ${text.length} characters)`);
      }
    });
    // A malformed answer must never read as "everything exists": that would
    // skip uploads of blobs the repository lacks.
    if (
      body?.catalogVersion !== catalogVersion
      || !Array.isArray(body.missing)
      || !body.missing.every((/** @type {unknown} */ hex) => typeof hex === "string")
    ) {
      throw httpError(
        200,
        "malformedResponse",
        `${request} answered a malformed body (expected { catalogVersion: ${catalogVersion}, missing: [hex…] })`,
      );
    }
    const absent = new Set(body.missing.map((/** @type {string} */ hex) => hex.toLowerCase()));
    return hexes.map((hex) => !absent.has(hex));
  }
}
