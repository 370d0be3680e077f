// Registry auth pieces (the distribution token spec): parsing a
// `WWW-Authenticate` challenge, the Basic header, and a cache of bearer
// tokens per realm/service/scope that concurrent 401s share.

import { typeError } from "../core/errors.js";
import { OciRegistryError } from "./oci-errors.js";

/**
 * Parses one `WWW-Authenticate` challenge: its scheme and parameters.
 * @param {string | null} header e.g. `Bearer realm="https://auth.example/token",service="registry",scope="repository:app:pull"`
 * @returns {{ scheme: string, params: Record<string, string> } | undefined}
 */
export function parseChallenge(header) {
  if (!header) return undefined;
  const match = /^\s*([A-Za-z][\w-]*)\s*(.*)$/s.exec(header);
  if (match === null) return undefined;
  /** @type {Record<string, string>} */
  const params = {};
  const pair = /([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?\s*/gy;
  const rest = match[2] ?? "";
  for (let found = pair.exec(rest); found !== null && found[0] !== ""; found = pair.exec(rest)) {
    params[(found[1] ?? "").toLowerCase()] = found[2] !== undefined ? found[2].replace(/\\(.)/g, "$1") : (found[3] ?? "");
  }
  return { scheme: (match[1] ?? "").toLowerCase(), params };
}

/**
 * `Basic base64(username:password)`, UTF-8 encoded.
 * @param {string} username
 * @param {string | undefined} password
 * @returns {string}
 */
export function basicAuthorization(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password ?? ""}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/**
 * The token request URL: realm?service=…&scope=… (one scope parameter per
 * space-separated scope).
 * @param {Record<string, string>} params the challenge's parameters
 * @param {URL} base the registry root, for a relative realm
 * @returns {URL}
 */
function tokenUrl(params, base) {
  let realm;
  try {
    realm = new URL(params.realm ?? "", base);
  } catch {
    throw new OciRegistryError(`the Bearer challenge's realm is not a URL: ${params.realm}`, { code: "badResponse" });
  }
  if (realm.protocol !== "http:" && realm.protocol !== "https:") {
    throw new OciRegistryError(`the Bearer challenge's realm is not an http(s) URL: ${params.realm}`, { code: "badResponse" });
  }
  if (params.service) realm.searchParams.set("service", params.service);
  for (const scope of (params.scope ?? "").split(" ").filter(Boolean)) realm.searchParams.append("scope", scope);
  return realm;
}

/**
 * The OAuth2 refresh-token request a Bearer realm accepts for an identity
 * token (what `docker login` stores as `identitytoken`): a form POST of
 * grant_type=refresh_token with the challenge's service and scopes.
 * @param {Record<string, string>} params the challenge's parameters
 * @param {string} identityToken
 * @returns {{ method: "POST", headers: Record<string, string>, body: string }}
 */
function refreshTokenRequest(params, identityToken) {
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: identityToken, client_id: "artifact-bloom" });
  if (params.service) form.set("service", params.service);
  const scopes = (params.scope ?? "").split(" ").filter(Boolean);
  if (scopes.length > 0) form.set("scope", scopes.join(" "));
  return { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() };
}

/**
 * The token request for a Bearer challenge: GET realm?service=…&scope=…,
 * with Basic credentials, or the refresh-token POST for an identity token.
 * Credentials go only to the registry's origin or a realm the user named
 * (`tokenRealms`): any other realm gets the request without them, or, when
 * credentials are configured, a `crossOrigin` refusal before anything is sent.
 * @param {Record<string, string>} params the challenge's parameters
 * @param {URL} base the registry's URL
 * @param {{ username?: string, password?: string, identityToken?: string }} credentials
 * @param {Set<string>} tokenRealms origins the user allows credentials to go to
 * @returns {{ realm: URL, init: { method: string, headers: Record<string, string>, body?: string } }}
 */
export function tokenRequest(params, base, credentials, tokenRealms) {
  const realm = tokenUrl(params, base);
  const { username, password, identityToken } = credentials;
  if (typeof username !== "string" && typeof identityToken !== "string") return { realm, init: { method: "GET", headers: {} } };
  if (realm.origin !== base.origin && !tokenRealms.has(realm.origin)) {
    throw new OciRegistryError(
      `the registry's Bearer token realm ${realm.origin} is another origin than the registry (${base.origin}); `
        + `the credentials go there only to a realm you name: --token-realm ${realm.origin} (CLI) `
        + "or options.tokenRealms (API)",
      { code: "crossOrigin" },
    );
  }
  if (typeof identityToken === "string") {
    // service and scope go in the form body beside the refresh token, not in the query.
    realm.searchParams.delete("service");
    realm.searchParams.delete("scope");
    return { realm, init: refreshTokenRequest(params, identityToken) };
  }
  return {
    realm,
    init: { method: "GET", headers: { authorization: basicAuthorization(/** @type {string} */ (username), password) } },
  };
}

/**
 * The token and its lifetime from a token realm's 200 answer.
 * @param {Uint8Array} body `{ token | access_token, expires_in? }`
 * @param {URL} realm for messages
 * @returns {{ value: string, seconds: number }}
 */
export function parseTokenAnswer(body, realm) {
  /** @type {{ token?: unknown, access_token?: unknown, expires_in?: unknown }} */
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new OciRegistryError(`GET ${realm} answered 200 without JSON; expected { "token": … }`, {
      code: "badResponse",
      status: 200,
    });
  }
  const value = typeof json?.token === "string" ? json.token : json?.access_token;
  if (typeof value !== "string" || value === "") {
    throw new OciRegistryError(`GET ${realm} answered JSON without a "token"`, { code: "badResponse", status: 200 });
  }
  // The token spec's default lifetime when expires_in is absent.
  const seconds = typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in : 60;
  return { value, seconds };
}

/**
 * @typedef {{ value: string, expiresAt: number }} BearerToken
 */

/** Bearer tokens per realm/service/scope, until they expire. */
export class TokenCache {
  /** @type {Map<string, BearerToken>} */
  #tokens = new Map();
  /** @type {Map<string, Promise<BearerToken>>} fetches in flight, shared by concurrent 401s */
  #pending = new Map();
  #now;

  /** @param {() => number} now clock in epoch ms */
  constructor(now) {
    this.#now = now;
  }

  /**
   * A token for the challenge: the cached one unless it expired or is the
   * one just refused (`sent`), else one fresh `fetchToken()`.
   * @param {Record<string, string>} params the challenge's parameters
   * @param {string | undefined} sent the Authorization header the 401 answered
   * @param {() => Promise<{ value: string, seconds: number }>} fetchToken
   * @returns {Promise<BearerToken>}
   */
  get(params, sent, fetchToken) {
    const key = `${params.realm}\n${params.service ?? ""}\n${params.scope ?? ""}`;
    const cached = this.#tokens.get(key);
    if (cached !== undefined && cached.expiresAt > this.#now() && sent !== `Bearer ${cached.value}`) {
      return Promise.resolve(cached);
    }
    this.#tokens.delete(key);
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      const issuedAt = this.#now();
      pending = fetchToken()
        .then(({ value, seconds }) => {
          const token = { value, expiresAt: issuedAt + seconds * 1000 };
          this.#tokens.set(key, token);
          return token;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }
}

/**
 * The origins of `tokenRealms` (absolute http(s) URLs).
 * @param {unknown} realms
 * @returns {Set<string>}
 */
export function realmOrigins(realms) {
  const expected = 'an array of absolute http(s) URLs such as ["https://auth.example"]';
  if (!Array.isArray(realms)) throw typeError("options.tokenRealms", expected, realms);
  const origins = new Set();
  for (const [index, realm] of realms.entries()) {
    let url;
    try {
      url = new URL(/** @type {string | URL} */ (realm));
    } catch {
      throw typeError(`options.tokenRealms[${index}]`, expected, realm);
    }
    if ((typeof realm !== "string" && !(realm instanceof URL)) || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw typeError(`options.tokenRealms[${index}]`, expected, realm);
    }
    origins.add(url.origin);
  }
  return origins;
}
