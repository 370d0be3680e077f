// A request that got no HTTP answer at all (a refused or reset connection, a
// redirect loop, a body cut off mid-way): fetch rejects with a bare
// `TypeError: fetch failed` (or `terminated`) and hides the reason in
// `cause`. The HTTP clients turn it into the code "networkError" with the
// cause's code, so a caller can tell a reset (retry) from a redirect loop (a
// misconfigured server) without parsing text.

import { failure } from "./results.js";
import { tlsProblemOf } from "./tls-causes.js";

/** @import { TlsProblemKind } from "../client-types.js" */

// What browsers say for a network failure (they give no `cause`): Chromium,
// Firefox, Safari; and Chromium's for a body cut off.
const BROWSER_NETWORK_MESSAGES = new Set([
  "Failed to fetch",
  "NetworkError when attempting to fetch resource.",
  "Load failed",
  "network error",
]);

/**
 * Whether `error` is how `fetch` (or a body read) reports a network failure:
 * a TypeError (the spec's), with a cause (Node's undici: "fetch failed",
 * "terminated") or a browser's network-failure message. A TypeError for a
 * caller's bad argument — an invalid URL (undici's cause code
 * ERR_INVALID_URL) or header — is not one, and still throws; so does
 * anything else a caller's own `fetch` throws.
 *
 * @param {unknown} error
 * @returns {error is TypeError}
 */
export function isNetworkFailure(error) {
  if (!(error instanceof TypeError)) return false;
  const cause = /** @type {{ cause?: { code?: unknown } | null }} */ (error).cause;
  if (cause === undefined || cause === null) return BROWSER_NETWORK_MESSAGES.has(error.message);
  return !/^ERR_INVALID_/.test(String(cause.code ?? ""));
}

/**
 * The cause's code: Node's errno / undici code ("ECONNRESET",
 * "UND_ERR_SOCKET", …), "redirectCountExceeded" for a redirect loop (undici
 * gives that one no code), or undefined (a browser says nothing more).
 *
 * @param {unknown} error
 * @returns {string | undefined}
 */
function networkCauseCode(error) {
  /** @type {{ code?: unknown; message?: unknown; cause?: unknown } | undefined} */
  let cause = /** @type {{ cause?: any }} */ (error)?.cause;
  // The innermost code names the failure best (undici wraps socket errors).
  for (let depth = 0; depth < 4 && cause !== null && typeof cause === "object"; depth += 1) {
    if (typeof cause.code === "string") return cause.code;
    if (typeof cause.message === "string" && /redirect count exceeded/i.test(cause.message)) return "redirectCountExceeded";
    cause = /** @type {{ cause?: any }} */ (cause).cause;
  }
  return undefined;
}

/**
 * The sentence for a network failure of `request` ("GET http://…").
 *
 * @param {string} request
 * @param {unknown} error what fetch or the body read rejected with
 * @returns {string}
 */
function networkErrorMessage(request, error) {
  const tls = tlsProblemOf(error);
  if (tls !== undefined) return `${request}: no HTTP answer: the TLS handshake failed: ${tls.text}`;
  const code = networkCauseCode(error);
  const cause = /** @type {{ cause?: { message?: unknown } }} */ (error)?.cause;
  const detail = typeof cause?.message === "string" ? cause.message : /** @type {Error} */ (error)?.message;
  return `${request}: no HTTP answer: the connection failed (${code ?? "no cause given"}${detail ? `: ${detail}` : ""})`;
}

/**
 * The failure result for fetchSnapshot: `{ kind: "failure", error:
 * "networkError", message, causeCode? }`.
 *
 * @param {string} request
 * @param {unknown} error
 * @returns {{ kind: "failure"; error: "networkError"; message: string; causeCode?: string; tlsProblem?: TlsProblemKind }}
 */
export function networkFailure(request, error) {
  return failure("networkError", networkErrorMessage(request, error), causeFields(error));
}

/**
 * The coded facts of a network failure: the cause's code, and the TLS
 * problem's kind when the handshake failed (so a caller switches on codes,
 * never on message text).
 *
 * @param {unknown} error
 * @returns {{ causeCode?: string; tlsProblem?: TlsProblemKind }}
 */
function causeFields(error) {
  const causeCode = networkCauseCode(error);
  const tlsProblem = tlsProblemOf(error)?.kind;
  return {
    ...(causeCode === undefined ? {} : { causeCode }),
    ...(tlsProblem === undefined ? {} : { tlsProblem }),
  };
}

/**
 * The Error HttpArtifactRepository rejects with: code "networkError",
 * `causeCode`, and the original error as `cause`.
 *
 * @param {string} request
 * @param {unknown} error
 * @returns {Error & { code: "networkError"; causeCode?: string; tlsProblem?: TlsProblemKind }}
 */
export function networkError(request, error) {
  const thrown = Object.assign(new Error(networkErrorMessage(request, error), { cause: error }), {
    code: /** @type {const} */ ("networkError"),
  });
  return Object.assign(thrown, causeFields(error));
}
