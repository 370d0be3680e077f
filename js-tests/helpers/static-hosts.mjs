// Real static hosts and caches for the hosting tests and bench/hosting.mjs:
// Debian's nginx (its own config, as a child process with `daemon off;`),
// varnish (`varnishd -F`, default VCL + one backend) and Python's
// `http.server`, each on 127.0.0.1 and a free port with its config, pid,
// logs and temp paths in a temp dir, stopped (and the dir removed) by
// `stop()`. Plus a counting TCP proxy: the bytes on the wire, both ways.
//
// A port is found by binding port 0 and releasing it; a host that then
// fails to start (another process took the port meanwhile) is started again
// on a new port. Readiness is a bounded poll of a path only this instance
// answers (a random token), so an answer never comes from another process.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { accessSync, constants } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { nginxConfig } from "./nginx-config.mjs";

/** The bound on a host's startup (VCL compilation takes a few seconds on a busy machine). */
export const HOST_START_MS = 30_000;
const START_ATTEMPTS = 5;
const STOP_GRACE_MS = 10_000;
// nginx and varnishd live in /usr/sbin, which a non-root PATH may lack.
const EXTRA_BIN_DIRS = ["/usr/sbin", "/sbin", "/usr/local/sbin"];

/** The absolute path of an executable on PATH (or in the sbin dirs), or undefined. */
export function findBinary(name) {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...EXTRA_BIN_DIRS].filter((dir) => dir !== "");
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A node:test `skip` value for a host's tests: false when the binary is
 * there, or in CI (CI=true), where a missing host must fail the run rather
 * than skip it; else the reason.
 * @param {"nginx" | "varnishd" | "python3"} name
 */
export function skipWithout(name) {
  if (findBinary(name) !== undefined || process.env.CI === "true") return false;
  const installer = name === "python3" ? "install python3" : "bash scripts/setup.sh --hosting installs it";
  return `${name} is not installed (${installer}): skipped`;
}

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

/**
 * Spawns `command args` and waits until GET http://127.0.0.1:PORT`path`
 * answers with `token` in its status text or body, or the process exits, or
 * HOST_START_MS passes. → { ok: true, stop } or { ok: false, reason }.
 */
async function launch(command, args, { port, path, token, cwd }) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], cwd });
  let output = "";
  const keep = (text) => {
    output = (output + text).slice(-8192);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  let exited = false;
  const exit = new Promise((resolve) => {
    child.once("error", (error) => {
      exited = true;
      keep(error.message);
      resolve();
    });
    child.once("exit", (code, signal) => {
      exited = true;
      keep(` (exit ${code ?? signal})`);
      resolve();
    });
  });
  const stop = async () => {
    if (!exited) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exit;
      clearTimeout(killer);
    }
  };
  const deadline = Date.now() + HOST_START_MS;
  while (Date.now() < deadline && !exited) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) });
      const body = await response.text();
      if (response.statusText.includes(token) || body.includes(token)) return { ok: true, stop, output: () => output };
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  await stop();
  return { ok: false, reason: exited ? output.trim() : `no answer within ${HOST_START_MS} ms: ${output.trim()}` };
}

/**
 * Starts a host on fresh ports until one start succeeds: `build(ports, token)`
 * writes the config and returns `{ command, args, readyPort, readyPath }`.
 * @param {string} label
 * @param {number} portCount
 * @param {(dir: string, ports: number[], token: string) => Promise<{ command: string, args: string[], readyPath: string }>} build
 */
async function startHost(label, portCount, build) {
  const dir = await mkdtemp(join(tmpdir(), `artifact-bloom-${label}-`));
  const failures = [];
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt += 1) {
    const ports = [];
    for (let index = 0; index < portCount; index += 1) ports.push(await freePort());
    const token = randomUUID();
    const { command, args, readyPath } = await build(dir, ports, token);
    const started = await launch(command, args, { port: ports[0], path: readyPath, token, cwd: dir });
    if (started.ok) {
      return {
        url: `http://127.0.0.1:${ports[0]}`,
        ports,
        dir,
        output: started.output,
        /** A file the host wrote in its temp dir (nginx: "access.log", one line a request), "" if none yet. */
        readLog: (name) => readFile(join(dir, name), "utf8").catch(() => ""),
        async stop() {
          await started.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    failures.push(`ports ${ports.join(", ")}: ${started.reason}`);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`${label} did not start in ${START_ATTEMPTS} attempts:\n${failures.join("\n")}`);
}

/**
 * nginx with its own config (./nginx-config.mjs says what each option
 * writes) → { url, stop() }. The first port is the one clients use (the
 * balancer when `origins` is given).
 * @param {import("./nginx-config.mjs").NginxOptions} options
 */
export async function startNginx(options) {
  const nginx = findBinary("nginx");
  if (nginx === undefined) throw new Error("nginx is not installed (bash scripts/setup.sh --hosting)");
  const portCount = options.origins === undefined ? 1 : 1 + options.origins.length;
  return startHost("nginx", portCount, async (dir, ports, token) => {
    for (const sub of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi", "cache"])
      await mkdir(join(dir, sub), { recursive: true });
    const config = join(dir, "nginx.conf");
    await writeFile(config, nginxConfig({ ...options, dir, ports, token }));
    // -e: the error log before the config is read (else /var/log/nginx/error.log).
    return { command: nginx, args: ["-p", dir, "-c", config, "-e", join(dir, "error.log")], readyPath: "/__ready" };
  });
}

/**
 * varnishd in the foreground with the default VCL (the builtin subroutines
 * only) and one backend, `backend` ("http://127.0.0.1:PORT"). `vclRecv`: VCL
 * lines for a vcl_recv of its own, run before the builtin one (the one-line
 * settings docs/hosting.md names). `-j none`: no privilege separation, so
 * the temp dir (mode 0700) stays readable. → { url, stop() }.
 * @param {{ backend: string, vclRecv?: string }} options
 */
export async function startVarnish({ backend, vclRecv = "" }) {
  const varnishd = findBinary("varnishd");
  if (varnishd === undefined) throw new Error("varnishd is not installed (bash scripts/setup.sh --hosting)");
  const { hostname, port } = new URL(backend);
  return startHost("varnish", 1, async (dir, [listen], token) => {
    const vcl = join(dir, "default.vcl");
    await writeFile(
      vcl,
      [
        "vcl 4.1;",
        `backend default { .host = "${hostname}"; .port = "${port}"; }`,
        "sub vcl_recv {",
        `  if (req.url == "/__ready") { return (synth(200, "${token}")); }`,
        vclRecv,
        "}",
        "",
      ].join("\n"),
    );
    return {
      command: varnishd,
      args: ["-F", "-j", "none", "-a", `127.0.0.1:${listen}`, "-f", vcl, "-n", join(dir, "work"), "-s", "malloc,32m"],
      readyPath: "/__ready",
    };
  });
}

/** `python3 -m http.server` serving `root` → { url, stop() } (a token file in `root` proves readiness). */
export async function startPythonHttp({ root }) {
  const python = findBinary("python3");
  if (python === undefined) throw new Error("python3 is not installed");
  return startHost("python-http", 1, async (_dir, [port], token) => {
    await writeFile(join(root, `.ready-${token}`), token);
    return {
      command: python,
      args: ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root],
      readyPath: `/.ready-${token}`,
    };
  });
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` ("http://host:port"): every
 * byte both ways is counted, so a client pointed at `url` shows what it
 * costs on the wire (headers included). → { url, bytes(), stop() } with
 * bytes() = { sent: client → host, received: host → client, total }.
 * @param {string} target
 */
export async function startCountingProxy(target) {
  const { hostname, port } = new URL(target);
  let sent = 0;
  let received = 0;
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => {
      sent += chunk.byteLength;
    });
    upstream.on("data", (chunk) => {
      received += chunk.byteLength;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bytes: () => ({ sent, received, total: sent + received }),
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
