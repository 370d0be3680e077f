// Where `push` and `publish --from-registry` find registry credentials, in
// the order docker, skopeo, podman and oras users expect:
//
//   1. --username with ARTIFACT_BLOOM_REGISTRY_PASSWORD or --password-stdin
//   2. $REGISTRY_AUTH_FILE, else ${XDG_RUNTIME_DIR}/containers/auth.json
//      (without XDG_RUNTIME_DIR: /run/containers/UID/auth.json)
//   3. ${XDG_CONFIG_HOME:-$HOME/.config}/containers/auth.json
//   4. $DOCKER_CONFIG/config.json, else $HOME/.docker/config.json
//
// 2–4 are containers-auth.json(5)'s search order (docker's file is its
// fallback too); the first file with credentials for the registry wins. In
// each file, as docker does: credHelpers[HOST], then credsStore (both run
// `docker-credential-NAME get`), then the `auths` entry — the most specific
// key first (HOST/NAME/…, then HOST), keys with a scheme (docker's
// "https://HOST/v1/") reduced to their host. An entry holds `auth`
// (base64 user:password) or `identitytoken` (a refresh token for the Bearer
// realm). A missing file is skipped; a file that is not such JSON is an
// error naming it. No credential is ever part of a message: what is
// reported is where they were looked for and where they came from.
import { homedir } from "node:os";
import { join } from "node:path";
import { SMALL_FILE_LIMIT, readBoundedText } from "../bounded-file.mjs";
import { UsageError, errorCode, errorMessage } from "../common.mjs";
import { askCredentialHelper, helperProgram } from "./credential-helper.mjs";

/** @typedef {import("../../index.d.ts").RegistryCredentials} RegistryCredentials */

/**
 * @typedef {object} CredentialLookup
 * @property {string} host the registry host the lookup was for
 * @property {RegistryCredentials} [credentials] none: anonymous
 * @property {string} [source] where they came from,
 *   e.g. "$DOCKER_CONFIG/config.json (/tmp/d/config.json) auths[\"127.0.0.1:5000\"]"
 * @property {string[]} searched every place looked at, with what was there
 */

const DOCKER_HUB = ["docker.io", "index.docker.io", "registry-1.docker.io"];

/**
 * The credential files, in search order → [{ label, path }].
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ label: string, path: string }[]}
 */
function credentialFiles(env) {
  const home = env.HOME || homedir();
  const files = [];
  if (env.REGISTRY_AUTH_FILE) files.push({ label: "$REGISTRY_AUTH_FILE", path: env.REGISTRY_AUTH_FILE });
  else if (env.XDG_RUNTIME_DIR) {
    files.push({ label: "$XDG_RUNTIME_DIR/containers/auth.json", path: join(env.XDG_RUNTIME_DIR, "containers", "auth.json") });
  } else if (typeof process.getuid === "function") {
    files.push({ label: "containers auth.json", path: `/run/containers/${process.getuid()}/auth.json` });
  }
  files.push(
    env.XDG_CONFIG_HOME
      ? { label: "$XDG_CONFIG_HOME/containers/auth.json", path: join(env.XDG_CONFIG_HOME, "containers", "auth.json") }
      : { label: "~/.config/containers/auth.json", path: join(home, ".config", "containers", "auth.json") },
  );
  files.push(
    env.DOCKER_CONFIG
      ? { label: "$DOCKER_CONFIG/config.json", path: join(env.DOCKER_CONFIG, "config.json") }
      : { label: "~/.docker/config.json", path: join(home, ".docker", "config.json") },
  );
  return files;
}

/**
 * An `auths` key as docker and containers/image compare it: a key with a
 * scheme (docker's "https://HOST:PORT/v1/") is its host alone; one without
 * is HOST or HOST/NAMESPACE… as written. Hosts compare case-insensitively.
 * @param {string} key
 * @returns {string}
 */
function normalizeAuthKey(key) {
  const schemeless = key.replace(/^https?:\/\//i, "");
  const slash = schemeless.indexOf("/");
  if (schemeless !== key) return (slash < 0 ? schemeless : schemeless.slice(0, slash)).toLowerCase();
  const host = slash < 0 ? schemeless : schemeless.slice(0, slash);
  return `${host.toLowerCase()}${slash < 0 ? "" : schemeless.slice(slash).replace(/\/+$/, "")}`;
}

/**
 * The keys that can hold credentials for HOST/NAME, most specific first:
 * HOST/a/b, HOST/a, HOST (and Docker Hub's other names for its host).
 * @param {string} host
 * @param {string} name
 * @returns {string[]}
 */
function candidateKeys(host, name) {
  const lower = host.toLowerCase();
  const parts = name.split("/");
  const keys = [];
  for (let length = parts.length; length > 0; length -= 1) keys.push(`${lower}/${parts.slice(0, length).join("/")}`);
  keys.push(lower);
  if (DOCKER_HUB.includes(lower)) keys.push(...DOCKER_HUB.filter((other) => other !== lower));
  return keys;
}

/**
 * Reads one credential file → its JSON object, or undefined when absent.
 * @param {string} path
 * @param {string} label
 */
async function readConfig(path, label) {
  let text;
  try {
    // Capped: a path naming /dev/zero or a pipe must not grow memory without end.
    text = await readBoundedText(path, SMALL_FILE_LIMIT, label);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw new UsageError(`cannot read ${label} ${path}: ${errorMessage(error)}`);
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${label} ${path} is not valid JSON (${errorMessage(error)});`
        + ' expected {"auths": {"HOST": {"auth": "base64(user:password)"}}}',
    );
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new UsageError(
      `${label} ${path}: expected a JSON object such as {"auths": {…}}, got ${Array.isArray(json) ? "an array" : typeof json}`,
    );
  }
  for (const field of ["auths", "credHelpers"]) {
    const value = json[field];
    if (value !== undefined && (value === null || typeof value !== "object" || Array.isArray(value))) {
      throw new UsageError(`${label} ${path}: "${field}" must be an object keyed by registry, got ${JSON.stringify(value)}`);
    }
  }
  return json;
}

/**
 * The credentials of one `auths` entry, or undefined for an empty one
 * (docker leaves {} when a credsStore holds the secret).
 * @param {unknown} entry
 * @param {string} where names the file and key (never the value)
 * @returns {RegistryCredentials | undefined}
 */
function entryCredentials(entry, where) {
  if (entry === null || typeof entry !== "object") {
    throw new UsageError(`${where}: expected an object with "auth" or "identitytoken"`);
  }
  const { auth, identitytoken: identityToken } = /** @type {Record<string, unknown>} */ (entry);
  if (identityToken !== undefined && identityToken !== "") {
    if (typeof identityToken !== "string") throw new UsageError(`${where}: "identitytoken" must be a string`);
    return { identityToken };
  }
  if (auth === undefined || auth === "") return undefined;
  if (typeof auth !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(auth)) {
    throw new UsageError(`${where}: "auth" must be base64 of USER:PASSWORD`);
  }
  const decoded = Buffer.from(auth, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw new UsageError(`${where}: "auth" must be base64 of USER:PASSWORD (it decodes to no "USER:")`);
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Looks for credentials for the registry `host` (and repository `name`) in
 * the files, in order. `explicit` (from the flags) wins without reading any.
 * @param {string} host e.g. "127.0.0.1:5000"
 * @param {string} name e.g. "team/app"
 * @param {{ explicit?: RegistryCredentials, env?: NodeJS.ProcessEnv, timeoutMs: number }} options
 * @returns {Promise<CredentialLookup>}
 */
export async function lookupCredentials(host, name, { explicit, env = process.env, timeoutMs }) {
  if (explicit !== undefined) return { host, credentials: explicit, source: "--username", searched: ["--username"] };
  const searched = ["--username (not given)"];
  const keys = candidateKeys(host, name);
  const serverAddress = DOCKER_HUB.includes(host.toLowerCase()) ? "https://index.docker.io/v1/" : host;
  for (const { label, path } of credentialFiles(env)) {
    const config = await readConfig(path, label);
    const file = `${label} ${path}`;
    if (config === undefined) {
      searched.push(`${file} (absent)`);
      continue;
    }
    const helpers = [];
    const helperName = config.credHelpers?.[host] ?? config.credHelpers?.[host.toLowerCase()];
    if (helperName !== undefined) {
      helpers.push({ program: helperProgram(helperName, `${file} credHelpers["${host}"]`), field: `credHelpers["${host}"]` });
    }
    if (config.credsStore !== undefined && config.credsStore !== "") {
      helpers.push({ program: helperProgram(config.credsStore, `${file} credsStore`), field: "credsStore" });
    }
    for (const { program, field } of helpers) {
      const credentials = await askCredentialHelper(program, serverAddress, { timeoutMs, env });
      if (credentials !== undefined) {
        searched.push(`${file} ${field}: ${program}`);
        return { host, credentials, source: `${file} ${field} (${program})`, searched };
      }
      searched.push(`${file} ${field}: ${program} has none for ${serverAddress}`);
    }
    const auths = new Map(Object.entries(config.auths ?? {}).map(([key, entry]) => [normalizeAuthKey(key), { key, entry }]));
    const match = keys.map((key) => auths.get(key)).find((found) => found !== undefined);
    const credentials = match === undefined ? undefined : entryCredentials(match.entry, `${file} auths["${match.key}"]`);
    if (credentials !== undefined) {
      searched.push(`${file} auths["${/** @type {{ key: string }} */ (match).key}"]`);
      return { host, credentials, source: `${file} auths["${/** @type {{ key: string }} */ (match).key}"]`, searched };
    }
    searched.push(`${file} (no entry for ${host})`);
  }
  return { host, searched };
}

/**
 * What the 401 message adds: where credentials were looked for or came
 * from, and how to give them.
 * @param {CredentialLookup | undefined} lookup
 * @returns {string}
 */
export function credentialHint(lookup) {
  if (lookup === undefined) return "";
  const how =
    "give them with --username NAME and ARTIFACT_BLOOM_REGISTRY_PASSWORD (or --password-stdin), "
    + `or log in with docker login / skopeo login / podman login ${lookup.host}`;
  if (lookup.credentials !== undefined) {
    const before = lookup.searched.slice(0, -1).filter((place) => !place.startsWith("--username"));
    const first = before.length === 0 ? "" : ` (looked first in: ${before.join("; ")})`;
    return `the credentials used came from ${lookup.source}${first}; ${how}`;
  }
  return `no credentials for ${lookup.host} were found; looked in: ${lookup.searched.join("; ")}; ${how}`;
}
