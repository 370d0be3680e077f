// The one error type of the registry client: every answer a caller did not
// expect, and every transport failure, becomes an OciRegistryError with a
// stable `code` and, when an HTTP answer came, its `status`.

import { describe, typeError } from "../core/errors.js";
import { SPEAKS_TLS, answeredPlainOnTls, tlsProblemOf } from "../core/tls-causes.js";

/** @typedef {import("../client-types.js").OciRegistryErrorCode} OciRegistryErrorCode */
/** @import { TlsProblemKind } from "../client-types.js" */

/** An HTTP or transport failure talking to a registry. */
export class OciRegistryError extends Error {
  /**
   * @param {string} message what was asked and what came
   * @param {{ code: OciRegistryErrorCode, status?: number, registryCode?: string, tlsProblem?: TlsProblemKind, cause?: unknown }} details
   */
  constructor(message, details) {
    if (details === null || typeof details !== "object" || typeof details.code !== "string") {
      throw typeError("details", "{ code, status?, registryCode?, cause? } with a string code", details);
    }
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "OciRegistryError";
    /** @type {OciRegistryErrorCode} */
    this.code = details.code;
    /** @type {number | undefined} the HTTP status, when an HTTP answer came */
    this.status = details.status;
    /** @type {string | undefined} the registry's own error code, e.g. "BLOB_UNKNOWN" */
    this.registryCode = details.registryCode;
    /** @type {TlsProblemKind | undefined} what a TLS or scheme mix-up was, when it was one */
    this.tlsProblem = details.tlsProblem;
  }
}

/**
 * The code for an HTTP status that was not the expected one.
 * @param {number} status
 * @returns {OciRegistryErrorCode}
 */
function codeForStatus(status) {
  if (status === 0 || (status >= 300 && status < 400)) return "redirect"; // 0: a browser's opaque redirect
  if (status === 401) return "unauthorized";
  if (status === 403) return "denied";
  if (status === 404) return "notFound";
  if (status === 429) return "tooManyRequests";
  if (status >= 500) return "serverError";
  return "unexpectedStatus";
}

/**
 * The registry's JSON error (`{ errors: [{ code, message }] }`), if any.
 * @param {Uint8Array} body
 * @returns {{ code: string, message: string } | undefined}
 */
function registryErrorOf(body) {
  try {
    const first = JSON.parse(new TextDecoder().decode(body))?.errors?.[0];
    if (typeof first?.code === "string") return { code: first.code, message: String(first.message ?? "") };
  } catch {
    // not JSON: the status alone says it
  }
  return undefined;
}

/**
 * An OciRegistryError for an answer with an unexpected status.
 * @param {string} method
 * @param {URL | string} url
 * @param {{ status: number, body: Uint8Array }} response
 * @param {string} expectation what was expected, e.g. "expected 201"
 * @returns {OciRegistryError}
 */
export function statusError(method, url, response, expectation) {
  const registry = registryErrorOf(response.body);
  const said = registry === undefined ? "" : ` (${registry.code}: ${registry.message})`;
  const plainOnTls = answeredPlainOnTls(url, response.status, response.body);
  const message = plainOnTls
    ? `${method} ${url} answered ${response.status} ("Client sent an HTTP request to an HTTPS server"): `
      + `${SPEAKS_TLS}, so the URL must be https://`
    : `${method} ${url} answered ${response.status}${said}; ${expectation}`;
  return new OciRegistryError(message, {
    code: codeForStatus(response.status),
    status: response.status,
    ...(registry === undefined ? {} : { registryCode: registry.code }),
    ...(plainOnTls ? { tlsProblem: /** @type {const} */ ("tlsServer") } : {}),
  });
}

/**
 * The OciRegistryError for a request that got no complete answer within
 * its time limit (code "timeout").
 * @param {string} method
 * @param {URL | string} url
 * @param {number} timeoutMs
 * @param {unknown} error what the aborted request rejected with
 * @returns {OciRegistryError}
 */
export function timeoutFailure(method, url, timeoutMs, error) {
  return new OciRegistryError(`${method} ${url}: no complete answer within ${timeoutMs} ms`, { code: "timeout", cause: error });
}

/**
 * The OciRegistryError for a request that got no HTTP answer: a redirect
 * fetch refused to follow (code "redirect"), a failed TLS handshake (its
 * reason) or any other network failure (the cause's code), code
 * "networkError".
 * @param {string} method
 * @param {URL | string} url
 * @param {unknown} error what fetch rejected with
 * @returns {OciRegistryError}
 */
export function transportFailure(method, url, error) {
  const cause = /** @type {{ cause?: { code?: string, message?: string } }} */ (error)?.cause;
  if (/redirect/i.test(String(cause?.message ?? ""))) {
    return new OciRegistryError(`${method} ${url} answered a redirect; redirects are not followed`, {
      code: "redirect",
      cause: error,
    });
  }
  const tls = tlsProblemOf(error);
  const why =
    tls === undefined
      ? ` (${cause?.code ?? cause?.message ?? /** @type {Error} */ (error)?.message ?? describe(error)})`
      : `: ${tls.text}`;
  return new OciRegistryError(`${method} ${url}: the registry could not be reached${why}`, {
    code: "networkError",
    cause: error,
    ...(tls === undefined ? {} : { tlsProblem: tls.kind }),
  });
}
