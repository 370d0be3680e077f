// A real OCI distribution registry for the tests and the demo: Debian's
// `docker-registry serve CONFIG.yml` on 127.0.0.1 with filesystem storage in
// a temp dir and the access log on (one line per request, on stdout). The
// port is found by binding port 0 and releasing it; if the registry then
// fails to bind (another process took the port meanwhile) it is started
// again on a new port, so a busy port never fails a test. Readiness is a
// bounded poll of GET /v2/.
//
// Also: skopeo with its own HOME, blob-info cache and tmp dir per call.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { get as httpsGet } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const READY_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 5;

/** A port that was free a moment ago (bind 0, read, release). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const ACCESS_LINE = /^(\S+) \S+ \S+ \[[^\]]*\] "(\S+) (\S+) [^"]*" (\d{3}) (\S+)/;

/** Parses the registry's access log (Apache combined format) → [{ method, path, status }]. */
export function parseAccessLog(text) {
  const entries = [];
  for (const line of text.split("\n")) {
    const match = ACCESS_LINE.exec(line);
    if (match) entries.push({ method: match[2], path: match[3], status: Number(match[4]) });
  }
  return entries;
}

/** http.headers lines for the config (e.g. the CORS headers of docs/oci-registry.md). */
function headersYaml(headers) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return [];
  return [
    "  headers:",
    ...entries.map(([name, values]) => `    ${name}: [${values.map((value) => JSON.stringify(value)).join(", ")}]`),
  ];
}

/** auth.htpasswd lines for the config (Basic auth against an htpasswd file). */
function htpasswdYaml(path) {
  if (path === undefined) return [];
  return ["auth:", "  htpasswd:", "    realm: artifact-bloom-test", `    path: ${path}`];
}

/** An htpasswd file (bcrypt, from apache2-utils' `htpasswd -Bbn`) for `users` { name: password }. */
async function writeHtpasswd(path, users) {
  const lines = [];
  for (const [user, password] of Object.entries(users)) {
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn("htpasswd", ["-Bbn", user, password], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.setEncoding("utf8").on("data", (text) => {
        out += text;
      });
      child.stderr.setEncoding("utf8").on("data", (text) => {
        err += text;
      });
      child.once("error", reject);
      child.once("close", (exit) => resolve({ code: exit, stdout: out, stderr: err }));
    });
    if (code !== 0) throw new Error(`htpasswd -Bbn ${user} failed (${code}): ${stderr}`);
    lines.push(stdout.trim());
  }
  await writeFile(path, `${lines.join("\n")}\n`);
}

/** http.tls lines: the registry then speaks only HTTPS on its port. */
function tlsYaml(tls) {
  if (tls === undefined) return [];
  return ["  tls:", `    certificate: ${tls.certificate}`, `    key: ${tls.key}`];
}

function configYaml(port, storage, headers, instance, htpasswd, tls) {
  return [
    "version: 0.1",
    "log:",
    "  level: error",
    "  accesslog:",
    "    disabled: false",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${storage}`,
    "  delete:",
    "    enabled: true",
    "http:",
    `  addr: 127.0.0.1:${port}`,
    `  secret: ${randomUUID()}`,
    ...headersYaml({ ...headers, "X-Test-Instance": [instance] }),
    ...tlsYaml(tls),
    ...htpasswdYaml(htpasswd),
    "",
  ].join("\n");
}

/**
 * Starts a registry → { url, host, port, storage, log(), mark(), since(mark),
 * settle(), stop() }. `log()` is every parsed access-log entry so far.
 * `headers`: response headers for every answer (registry http.headers).
 * `htpasswd`: { user: password } — every request then needs Basic auth
 * (auth.htpasswd); settle() and readiness send the first user's.
 * `tls: { certificate, key, ca }` (PEM paths; `ca` is the PEM text that
 * signed the certificate, for the readiness poll): the registry speaks
 * HTTPS only, and `url` is https://.
 */
export async function startRegistry(label = "registry", { headers, htpasswd, tls } = {}) {
  const dir = await mkdtemp(join(tmpdir(), `artifact-bloom-${label}-`));
  const storage = join(dir, "storage");
  await mkdir(storage);
  let htpasswdPath;
  let authorization;
  if (htpasswd !== undefined) {
    htpasswdPath = join(dir, "htpasswd");
    await writeHtpasswd(htpasswdPath, htpasswd);
    const [user, password] = Object.entries(htpasswd)[0];
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  }
  const failures = [];
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt += 1) {
    const port = await freePort();
    const config = join(dir, "config.yml");
    // A header only this instance sends: readiness must come from our
    // process, not from whatever else may have taken the port meanwhile.
    const instance = randomUUID();
    await writeFile(config, configYaml(port, storage, headers, instance, htpasswdPath, tls));
    const access = { authorization, tls };
    const started = await launch(config, port, instance, access);
    if (started.ok) return registryHandle(started.state, dir, storage, port, access);
    failures.push(`port ${port}: ${started.reason}`);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`docker-registry did not start in ${START_ATTEMPTS} attempts:\n${failures.join("\n")}`);
}

/**
 * GET PATH → { status, instance } (the X-Test-Instance header), with the
 * first user's Basic credentials if any: global fetch for http, node:https
 * with the test CA for a TLS registry (global fetch takes no CA).
 */
async function getBase(port, { authorization, tls }, path = "/v2/", timeoutMs = 2000) {
  const headers = authorization === undefined ? {} : { authorization };
  if (tls === undefined) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, instance: response.headers.get("x-test-instance") };
  }
  return new Promise((resolve, reject) => {
    const request = httpsGet({ host: "127.0.0.1", port, path, headers, ca: tls.ca, timeout: timeoutMs }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode, instance: response.headers["x-test-instance"] }));
    });
    request.once("timeout", () => request.destroy(new Error("timeout")));
    request.once("error", reject);
  });
}

/** Spawns the registry and waits until GET /v2/ answers, or it exits. */
async function launch(config, port, instance, access) {
  const child = spawn("docker-registry", ["serve", config], { stdio: ["ignore", "pipe", "pipe"] });
  const state = { child, stdout: "", stderr: "", exited: false, exitInfo: "" };
  child.stdout.setEncoding("utf8").on("data", (text) => {
    state.stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text) => {
    state.stderr = (state.stderr + text).slice(-16_384);
  });
  const exited = new Promise((resolve) => {
    child.once("error", (error) => {
      state.exited = true;
      state.exitInfo = error.message;
      resolve();
    });
    child.once("exit", (code, signal) => {
      state.exited = true;
      state.exitInfo = `exit ${code ?? signal}`;
      resolve();
    });
  });
  state.exitedPromise = exited;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && !state.exited) {
    try {
      const response = await getBase(port, access);
      if (response.status === 200 && response.instance === instance) return { ok: true, state };
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  if (!state.exited) {
    child.kill("SIGKILL");
    await exited;
    return { ok: false, reason: `no answer on GET /v2/ within ${READY_TIMEOUT_MS} ms; stderr: ${state.stderr.trim()}` };
  }
  return { ok: false, reason: `${state.exitInfo}; stderr: ${state.stderr.trim().split("\n").pop()}` };
}

function registryHandle(state, dir, storage, port, access) {
  const host = `127.0.0.1:${port}`;
  const url = `${access.tls === undefined ? "http" : "https"}://${host}`;
  return {
    url,
    host,
    port,
    storage,
    /** Every access-log entry so far. */
    log: () => parseAccessLog(state.stdout),
    /** A position in the log, for since(). */
    mark: () => parseAccessLog(state.stdout).length,
    /** The entries after `mark`. */
    since: (mark) => parseAccessLog(state.stdout).slice(mark),
    /**
     * Sends a marker request and waits (bounded) until its line is logged:
     * every request answered before it is then in the log too.
     */
    async settle() {
      const marker = `/v2/?settle=${randomUUID()}`;
      await getBase(port, access, marker, READY_TIMEOUT_MS);
      const deadline = Date.now() + READY_TIMEOUT_MS;
      while (!state.stdout.includes(marker)) {
        if (Date.now() > deadline) throw new Error(`the registry's access log never showed ${marker}`);
        await sleep(10);
      }
    },
    /** The registry's stderr (its error log), for diagnostics. */
    stderr: () => state.stderr,
    async stop() {
      if (!state.exited) {
        state.child.kill("SIGTERM");
        const killer = setTimeout(() => state.child.kill("SIGKILL"), 10_000);
        await state.exitedPromise;
        clearTimeout(killer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Counts of log entries by "METHOD kind" (kind: blob, upload, manifest, tags, base). */
export function requestTable(entries) {
  const counts = {};
  for (const { method, path } of entries) {
    if (path.startsWith("/v2/?settle=")) continue;
    const kind = /\/blobs\/uploads\//.test(path)
      ? "upload"
      : /\/blobs\//.test(path)
        ? "blob"
        : /\/manifests\//.test(path)
          ? "manifest"
          : /\/tags\/list/.test(path)
            ? "tags"
            : "base";
    const key = `${method} ${kind}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The blob HEADs in `entries` for one "sha256:<hex>" digest. */
export function headsOf(entries, digest) {
  return entries.filter((entry) => entry.method === "HEAD" && entry.path.endsWith(`/blobs/${digest}`)).length;
}

/**
 * Every digest reachable from a repository's tags, read straight from the
 * registry's storage directory (tags → current link → manifest blob data →
 * children, configs, layers), independent of the HTTP API.
 */
export async function reachableInStorage(storage, repository) {
  const root = join(storage, "docker", "registry", "v2");
  const blobData = (hex) => readFile(join(root, "blobs", "sha256", hex.slice(0, 2), hex, "data"));
  const tagsDir = join(root, "repositories", repository, "_manifests", "tags");
  const seen = new Set();
  const walk = async (hex) => {
    if (seen.has(hex)) return;
    seen.add(hex);
    let json;
    try {
      json = JSON.parse((await blobData(hex)).toString("utf8"));
    } catch {
      return; // a layer (not JSON) or a config without children
    }
    // Only descriptors have a digest (an image config's own "config" has none).
    const children = [...(json?.manifests ?? []), json?.config, ...(json?.layers ?? [])];
    for (const child of children) if (typeof child?.digest === "string") await walk(child.digest.replace(/^sha256:/, ""));
  };
  let tags = [];
  try {
    tags = await readdir(tagsDir);
  } catch {
    return seen; // no tags: nothing reachable
  }
  for (const tag of tags) {
    const link = (await readFile(join(tagsDir, tag, "current", "link"), "utf8")).trim();
    await walk(link.replace(/^sha256:/, ""));
  }
  return seen;
}

/**
 * Runs skopeo with a private HOME, XDG dirs, tmp dir and blob-info cache, so
 * no cache from another run (as root: /var/lib/containers/cache) can add
 * mount attempts. The cache location follows containers/image: for a
 * non-root user it is $XDG_DATA_HOME/containers/cache, and
 * _CONTAINERS_ROOTLESS_UID makes a root process count as that user.
 * → { code, stdout, stderr, cacheDir }.
 */
export async function runSkopeo(args, { timeoutMs = 120_000 } = {}) {
  const home = await mkdtemp(join(tmpdir(), "artifact-bloom-skopeo-"));
  const tmp = join(home, "tmp");
  await mkdir(tmp);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_RUNTIME_DIR: join(home, "run"),
    TMPDIR: tmp,
    _CONTAINERS_ROOTLESS_UID: "1000",
  };
  await mkdir(env.XDG_RUNTIME_DIR);
  const [command, ...rest] = args;
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn("skopeo", ["--insecure-policy", "--tmpdir", tmp, command, ...rest], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (text) => {
        stdout += text;
      });
      child.stderr.setEncoding("utf8").on("data", (text) => {
        stderr += text;
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("close", async (code) => {
        clearTimeout(timer);
        const cacheDir = join(env.XDG_DATA_HOME, "containers", "cache");
        const cacheFiles = await readdir(cacheDir).catch(() => []);
        resolve({ code, stdout, stderr, cacheDir, cacheFiles });
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
