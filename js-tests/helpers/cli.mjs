// Running the real `artifact-bloom` binary, as an npm user's `npx` would:
// the package's `bin` entry, through js-tests/node_modules/artifact-bloom
// (a symlink to pkg/), with the same Node that runs the tests.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../node_modules/artifact-bloom/bin/artifact-bloom.mjs", import.meta.url));

// Registry credentials are looked up in these places (cli/registry/registry-credentials.mjs);
// every run points them into a directory that does not exist, so no test
// reads this machine's docker or containers login. A test sets its own.
const NO_CREDENTIALS_DIR = join(tmpdir(), `artifact-bloom-no-credentials-${process.pid}-absent`);
const NO_CREDENTIAL_FILES = {
  DOCKER_CONFIG: join(NO_CREDENTIALS_DIR, "docker"),
  REGISTRY_AUTH_FILE: join(NO_CREDENTIALS_DIR, "auth.json"),
  XDG_RUNTIME_DIR: join(NO_CREDENTIALS_DIR, "run"),
  XDG_CONFIG_HOME: join(NO_CREDENTIALS_DIR, "config"),
};

/**
 * `publish`'s sizing flags — `--catalog-version V --expected-items N --fpp P`,
 * which nearly every publish in the tests gives — spelled once.
 */
export function publishSizing(version, expected, fpp) {
  return ["--catalog-version", String(version), "--expected-items", String(expected), "--fpp", String(fpp)];
}

/**
 * Runs the CLI to completion → `{ code, signal, stdout, stderr }`.
 * `input` (string or bytes) is written to stdin; stdin is closed either way,
 * so a command that reads standard input by default never waits forever.
 */
export function runCli(args, { input, env, cwd, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, ...NO_CREDENTIAL_FILES, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`artifact-bloom ${args.join(" ")} did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.on("error", () => {}); // the command may exit before reading it all
    child.stdin.end(input);
  });
}

/** A fresh directory under the OS temp dir, and a function that removes it. */
export async function tempDir(label) {
  const path = await mkdtemp(join(tmpdir(), `artifact-bloom-${label}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Writes digests (32-byte Uint8Arrays or hex strings) one per line. */
export async function writeHexList(path, digests, { header = [] } = {}) {
  const lines = digests.map((d) => (typeof d === "string" ? d : Buffer.from(d).toString("hex")));
  await writeFile(path, `${[...header, ...lines].join("\n")}\n`);
}

/** Names in a directory, sorted (for "no other files appeared" checks). */
export async function listDir(path) {
  return (await readdir(path)).sort();
}

/** The publish temp-file names for `out` in its directory (`.out.tmp-*`). */
export function isTempOf(name, outName) {
  return name.startsWith(`.${outName}.tmp-`);
}
