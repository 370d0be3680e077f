// The public types of the package's HTTP clients (HttpArtifactRepository,
// OciRegistryRepository, the snapshot fetch's time limits), as JSDoc
// typedefs only (no runtime code). scripts/emit-types.mjs has tsc emit
// lib/client-types.d.ts from this file, and the package's index.d.ts
// re-exports every type. The modules that use them (deadline.js,
// http-repository.js, oci-*.js) alias these typedefs instead of restating
// them. Kept apart from types.js so each file stays readable.
//
// Readonly object types are written as type literals (`readonly` needs
// them), so their fields are documented in the type's own comment.

// ==== Time limits ============================================================

/**
 * The timer functions a time limit uses (default: the global `setTimeout` /
 * `clearTimeout`). Inject them to drive time limits in tests without waiting
 * on the clock; they are called as methods of this object.
 *
 * @typedef {{
 *   setTimeout(callback: () => void, ms: number): unknown;
 *   clearTimeout(handle: unknown): void;
 * }} Timers
 */

// ==== HttpArtifactRepository =================================================

/**
 * Why an `HttpArtifactRepository` call rejected:
 * - `redirect`: a 3xx (or a browser's opaque redirect, status 0). Redirects
 *   are never followed: an existence answer comes only from the repository.
 * - `unexpectedStatus`: any other status but 200/404 (HEAD) or 200 (findMissing).
 * - `notExistenceApi`: a 200, 404 or 405 without the `artifact-bloom-catalog-version`
 *   header: not the existence API's answer (a static host, a wrong base path,
 *   a framework's catch-all), so neither "exists" nor "absent".
 * - `versionMismatch`: an answer marked for another catalogVersion than asked,
 *   or the existence API's 409 naming the version it holds instead.
 * - `malformedResponse`: a findMissing 200 whose body is not
 *   `{ catalogVersion, missing: [hex…] }` for the version asked.
 * - `timeout`: no complete answer within `timeoutMs` (no `status`).
 * - `networkError`: no HTTP answer at all (connection refused or reset,
 *   a body cut off); `causeCode` names the cause when the platform does
 *   ("ECONNRESET", "UND_ERR_SOCKET", …), and `cause` is fetch's error.
 *
 * @typedef {"redirect"
 *   | "unexpectedStatus"
 *   | "notExistenceApi"
 *   | "versionMismatch"
 *   | "malformedResponse"
 *   | "timeout"
 *   | "networkError"} HttpClientErrorCode
 */

/**
 * The Error an `HttpArtifactRepository` call rejects with for a non-answer.
 * `status` is the HTTP status that came; absent on `timeout` and
 * `networkError`. `causeCode`: see `networkError`.
 *
 * @typedef {Error & {
 *   readonly code: HttpClientErrorCode;
 *   readonly status?: number;
 *   readonly causeCode?: string;
 * }} HttpClientError
 */

/**
 * Options of `new HttpArtifactRepository`.
 *
 * @typedef {object} HttpArtifactRepositoryOptions
 * @property {typeof fetch} [fetch] A fetch implementation (default `globalThis.fetch`).
 * @property {number} [timeoutMs] Per request, body included: past it the call rejects with code
 *   `timeout` (name "TimeoutError"). Default 30 000; Infinity for none. A caller's aborted
 *   `signal` still rejects with the caller's reason.
 * @property {Timers} [timers] Timer functions for the limit (tests).
 */

// ==== OciRegistryRepository ==================================================

/**
 * Registry credentials: none (anonymous), username/password, or a bearer token sent as is.
 *
 * - `username` / `password`: Basic auth, or sent (Basic) to the Bearer token
 *   realm when the realm is the registry's origin or named in `tokenRealms`.
 * - `token`: a ready bearer token, sent on every request; no challenge flow.
 * - `identityToken`: an OAuth2 refresh token (docker's `identitytoken`): the
 *   Bearer token realm gets `POST grant_type=refresh_token` with it instead of
 *   Basic credentials (same origin rule); a Basic challenge is refused.
 *
 * @typedef {{
 *   readonly username?: string;
 *   readonly password?: string;
 *   readonly token?: string;
 *   readonly identityToken?: string;
 * }} RegistryCredentials
 */

/**
 * Options of `new OciRegistryRepository`.
 *
 * - `fetch`: a fetch implementation (default: `globalThis.fetch`).
 * - `credentials`: none: anonymous.
 * - `timeoutMs`: per request, body included (default 30 000).
 * - `concurrency`: HEADs in flight in one `existsManyAtVersionAsync` /
 *   `findMissingAsync` call (default 8).
 * - `catalogVersion`: the only catalogVersion this repository may be asked
 *   about; others reject with code `catalogVersionMismatch`.
 * - `now`: clock in epoch milliseconds, for bearer-token expiry (default `Date.now`).
 * - `tokenRealms`: Bearer token realms on another origin than the registry
 *   (e.g. `["https://auth.docker.io"]`) that may receive the Basic
 *   credentials. Without it, credentials go only to the registry's origin: a
 *   realm elsewhere rejects with code `crossOrigin` (anonymous token
 *   requests go to any realm).
 *
 * @typedef {{
 *   readonly fetch?: typeof fetch;
 *   readonly credentials?: RegistryCredentials;
 *   readonly timeoutMs?: number;
 *   readonly concurrency?: number;
 *   readonly catalogVersion?: number;
 *   readonly now?: () => number;
 *   readonly tokenRealms?: readonly (string | URL)[];
 * }} OciRegistryRepositoryOptions
 */

/**
 * Requests an OciRegistryRepository sent, by method, plus token-realm requests (`token`).
 *
 * @typedef {object} RegistryRequestCounts
 * @property {number} head
 * @property {number} get
 * @property {number} post
 * @property {number} patch
 * @property {number} put
 * @property {number} delete
 * @property {number} token Requests to the token realm.
 */

/**
 * Why an `OciRegistryError` was thrown: a registry answer that was not the
 * expected one (by status), or no answer at all (`timeout`, `networkError`).
 *
 * - `crossOrigin`: the registry handed back a URL (Link, Location, token
 *   realm with credentials) on another origin; nothing was sent there.
 * - `tooLarge`: an answer larger than the limit for what it is (manifest,
 *   tag page, token); the message names the URL and the limit.
 * - `notStored`: the registry answered 201 to an upload without naming the
 *   digest, and reading it back found nothing.
 *
 * @typedef {"unauthorized"
 *   | "denied"
 *   | "notFound"
 *   | "redirect"
 *   | "tooManyRequests"
 *   | "serverError"
 *   | "unexpectedStatus"
 *   | "timeout"
 *   | "networkError"
 *   | "badResponse"
 *   | "digestMismatch"
 *   | "crossOrigin"
 *   | "tooLarge"
 *   | "notStored"} OciRegistryErrorCode
 */

/**
 * What a failed TLS handshake or a scheme mix-up was, as a code to switch
 * on (`tlsProblem` on a `networkError` failure, an OciRegistryError, or
 * HttpArtifactRepository's network Error): `untrusted` (no trusted root
 * vouches for the certificate), `expired`, `notYetValid`, `wrongName` (the
 * certificate does not name the host), `plainHttpServer` (an https://
 * request reached a plain-HTTP server), `tlsServer` (an http:// request
 * reached a TLS server, which said so).
 *
 * @typedef {"untrusted" | "expired" | "notYetValid" | "wrongName" | "plainHttpServer" | "tlsServer"} TlsProblemKind
 */

export {};
