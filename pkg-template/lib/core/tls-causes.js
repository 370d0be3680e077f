// What a failed TLS handshake means, in the words a user needs: Node (and
// undici) report it as `TypeError: fetch failed` whose `cause` carries
// OpenSSL's verification code (UNABLE_TO_VERIFY_LEAF_SIGNATURE, …), which
// reads as noise unless it is named. The HTTP clients put these phrases in
// their networkError messages; the CLI adds how to fix it (--ca-file).
//
// Also the two scheme mix-ups: an https:// request to a plain-HTTP server
// (OpenSSL's "wrong version number") and an http:// request to a TLS server
// (Go's servers, docker-registry among them, answer it with a 400 whose body
// says so).

/** Verification codes that mean "no trusted root vouches for this certificate". */
const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
]);

/** The body Go's net/http sends for a plain HTTP request on a TLS port. */
const GO_PLAIN_ON_TLS = /Client sent an HTTP request to an HTTPS server/i;

/** The phrase a message carries when the server turned out to speak TLS (the CLI looks for it). */
export const SPEAKS_TLS = "the server speaks TLS";

/** The phrase a message carries when an https:// request reached a plain-HTTP server. */
export const SPEAKS_PLAIN_HTTP = "the server speaks plain HTTP, not TLS";

/** @import { TlsProblemKind } from "../client-types.js" */
/**
 * @typedef {{ kind: TlsProblemKind, code: string, text: string }} TlsProblem
 */

/**
 * The TLS problem behind a network failure, if it is one: the cause chain
 * (fetch's TypeError → the socket's Error) is searched for a known code.
 *
 * @param {unknown} error what fetch (or a body read) rejected with
 * @returns {TlsProblem | undefined}
 */
export function tlsProblemOf(error) {
  /** @type {any} */
  let cause = error;
  for (let depth = 0; depth < 5 && cause !== null && typeof cause === "object"; depth += 1) {
    const problem = problemOfCause(cause);
    if (problem !== undefined) return problem;
    cause = cause.cause;
  }
  return undefined;
}

/**
 * @param {{ code?: unknown, message?: unknown, host?: unknown }} cause
 * @returns {TlsProblem | undefined}
 */
function problemOfCause(cause) {
  const code = typeof cause.code === "string" ? cause.code : "";
  const message = typeof cause.message === "string" ? cause.message : "";
  if (UNTRUSTED.has(code)) return { kind: "untrusted", code, text: `certificate not trusted (${code})` };
  if (code === "CERT_HAS_EXPIRED") return { kind: "expired", code, text: `certificate expired (${code})` };
  if (code === "CERT_NOT_YET_VALID") return { kind: "notYetValid", code, text: `certificate not yet valid (${code})` };
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    const host = typeof cause.host === "string" ? cause.host : "the host asked for";
    return { kind: "wrongName", code, text: `certificate does not name ${host} (${code})` };
  }
  // Node 20+ says ERR_SSL_WRONG_VERSION_NUMBER; older OpenSSL builds EPROTO with the text.
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || (code === "EPROTO" && /wrong version number/i.test(message))) {
    return { kind: "plainHttpServer", code, text: `${SPEAKS_PLAIN_HTTP} (${code})` };
  }
  return undefined;
}

/**
 * Whether an answer to an http:// request says the server wanted TLS.
 *
 * @param {URL | string} url
 * @param {number} status
 * @param {Uint8Array} body the start of the answer's body
 * @returns {boolean}
 */
export function answeredPlainOnTls(url, status, body) {
  if (status !== 400 || !String(url).startsWith("http:")) return false;
  return GO_PLAIN_ON_TLS.test(new TextDecoder().decode(body.subarray(0, 512)));
}
