// What `push` and `publish --from-registry` share: image references,
// credentials, the client, and how a registry failure is reported.
import { RegistryClient, checkRepositoryName } from "../lib/oci-client.js";
import { OciRegistryError } from "../lib/oci-errors.js";
import { UsageError, integerOption } from "./common.mjs";
import { TLS_HELP, TLS_OPTIONS, fetchForTlsOptions } from "./registry-tls.mjs";

/** parseArgs options for credentials and the timeout. */
export const REGISTRY_OPTIONS = {
  username: { type: "string" },
  "password-stdin": { type: "boolean", default: false },
  "timeout-ms": { type: "string" },
  "token-realm": { type: "string", multiple: true },
  ...TLS_OPTIONS,
};

export const REGISTRY_HELP = `  --username NAME      authenticate as NAME (Basic, or at the Bearer token realm);
                       the password comes from ARTIFACT_BLOOM_REGISTRY_PASSWORD
                       or, with --password-stdin, from standard input
  --password-stdin     read the password from standard input
  --token-realm URL    a Bearer token realm on another host than the registry
                       (e.g. https://auth.docker.io) that may receive the
                       --username credentials; repeatable. Without it they go
                       only to the registry's own origin, and a realm elsewhere
                       fails with crossOrigin. Requests go only to the registry:
                       a Link or upload Location naming another origin fails
                       with crossOrigin, and redirects are not followed
  --timeout-ms N       per-request timeout (default 30000)
${TLS_HELP}`;

const TAG_PATTERN = /^[\w][\w.-]{0,127}$/;

/**
 * Splits HOST[:PORT]/NAME:TAG (NAME may have slashes) → { host, name, tag }.
 * @param {string} text
 * @returns {{ host: string, name: string, tag: string }}
 */
export function parseImageReference(text) {
  const slash = text.indexOf("/");
  if (slash <= 0) throw new UsageError(`expected HOST:PORT/NAME:TAG, got "${text}" (no registry host)`);
  const host = text.slice(0, slash);
  const rest = text.slice(slash + 1);
  const colon = rest.lastIndexOf(":");
  if (colon <= 0 || rest.includes("@")) throw new UsageError(`expected HOST:PORT/NAME:TAG, got "${text}" (no :TAG)`);
  const name = rest.slice(0, colon);
  const tag = rest.slice(colon + 1);
  try {
    checkRepositoryName(name);
  } catch (error) {
    throw new UsageError(`bad repository name "${name}": ${error.message}`);
  }
  if (!TAG_PATTERN.test(tag)) throw new UsageError(`bad tag "${tag}": expected [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`);
  if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(host)) {
    throw new UsageError(`bad registry host "${host}": expected HOST or HOST:PORT`);
  }
  return { host, name, tag };
}

/** Reads all of standard input as text (for --password-stdin). */
async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

/**
 * A RegistryClient for `url` + `name` from the parsed options.
 * @param {string} url registry root URL
 * @param {string} name repository
 * @param {Record<string, string | boolean | undefined>} values parsed options
 */
export async function clientFromOptions(url, name, values) {
  /** @type {import("../lib/oci-client.js").RegistryClientOptions} */
  const options = {};
  if (values["timeout-ms"] !== undefined) options.timeoutMs = integerOption(values, "timeout-ms", 1, 3_600_000);
  if (values.username !== undefined) {
    const password = values["password-stdin"] ? await readStdin() : process.env.ARTIFACT_BLOOM_REGISTRY_PASSWORD;
    if (password === undefined) {
      throw new UsageError("--username needs a password: set ARTIFACT_BLOOM_REGISTRY_PASSWORD or use --password-stdin");
    }
    options.credentials = { username: String(values.username), password };
  } else if (values["password-stdin"]) {
    throw new UsageError("--password-stdin needs --username");
  }
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
  try {
    return new RegistryClient(url, name, options);
  } catch (error) {
    throw new UsageError(error.message);
  }
}

/**
 * The one-line description of a failure: the registry's (with its code and
 * status) or any other error's message.
 * @param {unknown} error
 * @returns {{ code: string, status?: number, message: string }}
 */
export function describeFailure(error) {
  if (error instanceof OciRegistryError) {
    return { code: error.code, ...(error.status === undefined ? {} : { status: error.status }), message: error.message };
  }
  const code = typeof error?.code === "string" ? error.code : "error";
  return { code, message: error?.message ?? String(error) };
}
