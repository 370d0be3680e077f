// What `push` and `publish --from-registry` share: image references,
// credentials, the client, and how a registry failure is reported.
import { DEFAULT_TIMEOUT_MS, OciRegistryError, RegistryClient } from "artifact-bloom/oci";
import { UsageError, integerOption, errorMessage } from "../common.mjs";
import { credentialHint, lookupCredentials } from "./registry-credentials.mjs";
import { fetchForTlsOptions } from "./registry-tls.mjs";

export { checkReferenceName, parseImageReference } from "./image-reference.mjs";

/** The credential lookup behind each client, for the 401 message. */
const lookups = new WeakMap();

/** Reads all of standard input as text (for --password-stdin). */
async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Hosts already warned about (once per host and process). */
const warnedPlainHttp = new Set();

/**
 * Says once per host, on stderr, that a username and password would cross
 * plain HTTP (--plain-http): a Basic header (or the token request's) is
 * readable by anyone on the path. Never prints the credentials.
 * @param {string} url
 * @param {string} host
 * @param {{ username?: string, password?: string } | undefined} credentials
 */
function warnPlainHttpCredentials(url, host, credentials) {
  if (credentials?.password === undefined || !url.startsWith("http:") || warnedPlainHttp.has(host)) return;
  warnedPlainHttp.add(host);
  process.stderr.write(
    `warning: credentials for ${host} go over plain HTTP (--plain-http) when the registry asks for them:`
      + " anyone on the network path can read them; use TLS for a registry that needs a password\n",
  );
}

/**
 * A RegistryClient for `url` + `name` from the parsed options. It loads the
 * library: every registry step after it (and describeFailure) uses its names.
 * @param {string} url registry root URL
 * @param {string} name repository
 * @param {Record<string, string | boolean | (string | boolean)[] | undefined>} values parsed options
 */
export async function clientFromOptions(url, name, values) {
  /** @type {import("../../lib/repositories/oci-client.js").RegistryClientOptions} */
  const options = {};
  if (values["timeout-ms"] !== undefined) options.timeoutMs = integerOption(values, "timeout-ms", 1, 3_600_000);
  let explicit;
  if (values.username !== undefined) {
    const password = values["password-stdin"] ? await readStdin() : process.env.ARTIFACT_BLOOM_REGISTRY_PASSWORD;
    if (password === undefined) {
      throw new UsageError("--username needs a password: set ARTIFACT_BLOOM_REGISTRY_PASSWORD or use --password-stdin");
    }
    explicit = { username: String(values.username), password };
  } else if (values["password-stdin"]) {
    throw new UsageError("--password-stdin needs --username");
  }
  const host = URL.canParse(url) ? new URL(url).host : "";
  const lookup = await lookupCredentials(host, name, { explicit, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  if (lookup.credentials !== undefined) options.credentials = lookup.credentials;
  warnPlainHttpCredentials(url, host, lookup.credentials);
  const realms = /** @type {string[] | undefined} */ (/** @type {unknown} */ (values["token-realm"]));
  if (realms !== undefined) {
    for (const realm of realms) {
      if (!URL.canParse(realm) || !/^https?:$/.test(new URL(realm).protocol)) {
        throw new UsageError(`--token-realm must be an http(s) URL such as https://auth.example, got "${realm}"`);
      }
    }
    options.tokenRealms = realms;
  }
  const tlsFetch = await fetchForTlsOptions(values);
  if (tlsFetch !== undefined) options.fetch = tlsFetch;
  let client;
  try {
    client = new RegistryClient(url, name, options);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  lookups.set(client, lookup);
  return client;
}

/**
 * "CODE (HTTP STATUS): MESSAGE", how the commands print a described failure.
 * @param {{ code: string, status?: number, message: string }} failure describeFailure's
 */
export function failureLine({ code, status, message }) {
  return `${code}${status === undefined ? "" : ` (HTTP ${status})`}: ${message}`;
}

/**
 * The one-line description of a failure: the registry's (with its code and
 * status) or any other error's message. For a refusal of `client`'s
 * credentials it adds where they were looked for and how to give them.
 * @param {unknown} error
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} [client]
 * @returns {{ code: string, status?: number, message: string }}
 */
export function describeFailure(error, client) {
  if (error instanceof OciRegistryError) {
    const hint = error.code === "unauthorized" && client !== undefined ? credentialHint(lookups.get(client)) : "";
    const message = hint === "" ? error.message : `${error.message}; ${hint}`;
    return { code: error.code, ...(error.status === undefined ? {} : { status: error.status }), message };
  }
  const found = /** @type {{ code?: unknown, message?: string } | null | undefined} */ (error);
  const code = typeof found?.code === "string" ? found.code : "error";
  return { code, message: found?.message ?? String(error) };
}
