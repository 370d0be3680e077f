// Pieces of the consumers test: pack and install the package as a user
// does, serve files on 127.0.0.1, run Node programs and Chromium pages with
// bounded waits, and collect what each consumer answered.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/**
 * Where a test process builds its consumer projects: a temp directory, since
 * tests never write inside the checkout. Its node_modules is a link to the
 * repository's, so the projects below it resolve the bundlers, TypeScript and
 * the frameworks by parent lookup as they would inside the repository. One
 * per process (node --test runs each file in its own), removed at exit (the
 * link, not what it points at).
 */
export const CONSUMER_ROOT = consumerRoot();
export const WORK = join(CONSUMER_ROOT, "consumers");

/**
 * A temp root for consumer projects (see CONSUMER_ROOT), removed at exit.
 * `realNodeModules`: its node_modules is a tree of hard links to the
 * repository's files (a copy where the two are on different file systems)
 * instead of one link, for a bundler that refuses packages whose real path
 * lies outside its project root (Turbopack: "Could not find the Next.js
 * package").
 * @param {{ realNodeModules?: boolean }} [options]
 */
export function consumerRoot({ realNodeModules = false } = {}) {
  const root = mkdtempSync(join(tmpdir(), "artifact-bloom-consumers-"));
  process.on("exit", () => rmSync(root, { recursive: true, force: true }));
  // The repository's lockfile marks the root as the workspace root, as the
  // repository was (Turbopack takes its project root from the topmost
  // lockfile and refuses packages outside it).
  cpSync(join(REPO, "package-lock.json"), join(root, "package-lock.json"));
  const source = join(REPO, "node_modules");
  const target = join(root, "node_modules");
  if (!realNodeModules) symlinkSync(source, target, "dir");
  else {
    try {
      execFileSync("cp", ["-al", source, target], { stdio: "pipe" });
    } catch {
      rmSync(target, { recursive: true, force: true });
      execFileSync("cp", ["-a", source, target], { stdio: "pipe" });
    }
  }
  return root;
}
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
export const BIN = join(REPO, "node_modules", ".bin");

/** Every child process and every page wait is bounded by this (ms). */
export const TIMEOUT_MS = 120_000;

/**
 * Runs a command; resolves `{ code, stdout, stderr }` (never rejects for a
 * non-zero exit), and kills it after `timeout` ms.
 */
export function run(command, args, { cwd = REPO, timeout = TIMEOUT_MS, env = {} } = {}) {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, timeout, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : `${error.signal ?? error.code ?? "failed"}`) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * `npm pack` of pkg/ into `work` (WORK unless a test file that runs beside
 * consumers.test.mjs needs its own); returns the tarball's path and its file list.
 */
export async function packPackage(work = WORK) {
  mkdirSync(work, { recursive: true });
  const packed = await run("npm", ["pack", join(REPO, "pkg"), "--pack-destination", work, "--json", "--loglevel=error"]);
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout);
  return { tarball: join(work, info.filename), files: info.files.map((file) => file.path) };
}

/**
 * A fresh project at work/name with the tarball installed by npm (offline:
 * the package has no dependencies) and the given files copied in.
 */
export async function freshProject(name, tarball, { type = "module", files = {}, work = WORK } = {}) {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: `consumer-${name}`,
    private: true,
    type,
    dependencies: { "artifact-bloom": `file:${relative(dir, tarball)}` },
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const installed = await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir });
  if (installed.code !== 0) throw new Error(`npm install in ${name} failed: ${installed.stderr}`);
  for (const [to, from] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    if (typeof from === "string") cpSync(join(FIXTURES, from), join(dir, to));
    else writeFileSync(join(dir, to), from.text);
  }
  return dir;
}

/** index.html for a page whose module script is `script`, with extra `<head>` markup. */
export function pageHtml(script, head = "") {
  return readFileSync(join(FIXTURES, "index.html"), "utf8").replace("SCRIPT", script).replace("<!--HEAD-->", head);
}

/** The CSP every served page gets: only its own scripts, plus what WebAssembly needs. */
export function contentSecurityPolicy({ wasm = true, inlineScripts = [] } = {}) {
  const hashes = inlineScripts.map((text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`);
  return [
    "default-src 'self'",
    "img-src 'self' data:",
    `script-src 'self' ${wasm ? "'wasm-unsafe-eval' " : ""}${hashes.join(" ")}`.trim(),
  ].join("; ");
}

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

/** Serves `root` on 127.0.0.1 (port 0) with `headers` on every answer; resolves `{ url, close }`. */
export function serveStatic(root, headers = {}) {
  const server = createServer((request, response) => {
    let path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
    if (path.endsWith("/")) path += "index.html";
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep) || !existsSync(file)) {
      response.writeHead(404, headers);
      response.end();
      return;
    }
    response.writeHead(200, {
      ...headers,
      "content-type": MIME[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-store",
    });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

/**
 * Runs a Node consumer (`node file url`) that prints one JSON outcome line.
 * Resolves `{ ok, result | error }`.
 */
export async function nodeOutcome(file, url, cwd) {
  const ran = await run(process.execPath, [file, url], { cwd });
  const line = ran.stdout.trim().split("\n").pop();
  try {
    return JSON.parse(line);
  } catch {
    return { ok: false, error: `exit ${ran.code}: ${(ran.stderr || ran.stdout).trim().split("\n").slice(0, 6).join(" | ")}` };
  }
}

/**
 * Opens `url` in a new page and waits (bounded) until the page reports
 * `globalThis.consumerOutcome` or throws. Console errors, page errors and
 * failed requests are collected: a consumer that "works" has none.
 */
export async function pageOutcome(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("requestfailed", (request) => {
    // net::ERR_ABORTED is a cancel on the page's side, and Chromium reports
    // one now and then for a fetch whose whole body the page already read
    // (seen on ~2 in 25 loads of the same page; nothing in the console, the
    // answers are right). Every other failure counts.
    const reason = request.failure()?.errorText;
    if (reason !== "net::ERR_ABORTED") problems.push(`request failed: ${request.url()} ${reason}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    await page.goto(url, { timeout: TIMEOUT_MS });
    const deadline = Date.now() + 30_000;
    let outcome;
    while (outcome === undefined && problems.length === 0 && Date.now() < deadline) {
      outcome = await page.evaluate(() => globalThis.consumerOutcome);
      if (outcome === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    outcome ??= { ok: false, error: problems.length > 0 ? problems[0] : "no outcome within 30 s" };
    // A copy: closing the page aborts requests Playwright has not yet seen
    // finish, which would otherwise be added after the answer came.
    return { ...outcome, problems: [...problems] };
  } finally {
    await page.close();
  }
}
