// The docker credential-helper protocol, client side: `docker-credential-NAME
// get` with the server address on standard input answers
// {"ServerURL","Username","Secret"} on standard output, or exits non-zero
// with "credentials not found" when it has none. A Username of "<token>"
// means Secret is an identity token (an OAuth2 refresh token), not a
// password. The helper is a program the user installed; it gets a time
// limit, and neither its answer nor the secret ever reaches a message.
import { spawn } from "node:child_process";
import { UsageError, errorCode } from "../common.mjs";

/** The most a helper may print before it is stopped (an answer is a few hundred bytes). */
const MAX_OUTPUT_BYTES = 64 * 1024;
const HELPER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * @typedef {import("../../index.d.ts").RegistryCredentials} RegistryCredentials
 */

/**
 * The helper's program name for a credHelpers / credsStore value.
 * @param {unknown} name
 * @param {string} where e.g. `credHelpers["127.0.0.1:5000"] in /home/u/.docker/config.json`
 * @returns {string}
 */
export function helperProgram(name, where) {
  if (typeof name !== "string" || !HELPER_NAME.test(name)) {
    throw new UsageError(
      `${where}: expected a credential helper name such as "pass" or "desktop"`
        + ` (run as docker-credential-NAME), got ${JSON.stringify(name)}`,
    );
  }
  return `docker-credential-${name}`;
}

/**
 * Asks a credential helper for the credentials of `serverAddress`.
 * @param {string} program e.g. "docker-credential-pass"
 * @param {string} serverAddress what the helper stored them under (the registry host)
 * @param {{ timeoutMs: number, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<RegistryCredentials | undefined>} undefined: the helper has none
 */
export async function askCredentialHelper(program, serverAddress, { timeoutMs, env = process.env }) {
  const { code, stdout, stderr, failure } = await runHelper(program, serverAddress, timeoutMs, env);
  if (failure === "ENOENT") {
    throw new UsageError(
      `credential helper ${program} is not on PATH (named by a docker or containers config);`
        + " install it, or give credentials with --username",
    );
  }
  if (failure === "timeout") {
    throw new UsageError(`credential helper ${program} did not answer within ${timeoutMs} ms (--timeout-ms); it was stopped`);
  }
  if (failure === "tooLarge") {
    throw new UsageError(`credential helper ${program} printed more than ${MAX_OUTPUT_BYTES} bytes; expected one JSON answer`);
  }
  if (failure !== undefined) throw new UsageError(`credential helper ${program} could not be run: ${failure}`);
  if (code !== 0) {
    // A failing helper's stdout is never echoed: one that prints its answer
    // and then fails would print the secret. By the protocol "credentials
    // not found" comes on stdout; that alone is looked for there.
    if (/credentials not found/i.test(stdout) || /credentials not found/i.test(stderr)) return undefined;
    const said = printable(stderr);
    throw new UsageError(
      `credential helper ${program} get failed (exit ${code})${said ? `; its stderr: ${said}` : "; it printed nothing on stderr"}`,
    );
  }
  let answer;
  try {
    answer = JSON.parse(stdout);
  } catch {
    throw new UsageError(
      `credential helper ${program} get answered something that is not JSON; expected {"Username": …, "Secret": …}`,
    );
  }
  const { Username: username, Secret: secret } = answer ?? {};
  if (typeof username !== "string" || typeof secret !== "string") {
    throw new UsageError(`credential helper ${program} get answered JSON without string "Username" and "Secret" fields`);
  }
  if (secret === "") return undefined;
  return username === "<token>" ? { identityToken: secret } : { username, password: secret };
}

/**
 * The first line of a helper's stderr, at most 200 characters, control
 * characters dropped: enough to say why, never a wall of output.
 * @param {string} text
 */
function printable(text) {
  const line = text.trim().split("\n")[0] ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping them is the point
  return line.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 200);
}

/** How long the pipes may stay open after the helper exited (a grandchild holding them) before they are cut. */
const PIPE_GRACE_MS = 1000;

/**
 * Runs `program get`, bounded in time and output → { code, stdout, stderr, failure? }.
 * The helper runs in its own process group, and the whole group is killed
 * when it is stopped and once it exited: a helper that is a shell script
 * around another program (`sleep`, `yes`) leaves no orphan, and a grandchild
 * that keeps the pipes open cannot hold the answer past PIPE_GRACE_MS.
 * @param {string} program
 * @param {string} input
 * @param {number} timeoutMs
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, failure?: string }>}
 */
function runHelper(program, input, timeoutMs, env) {
  return new Promise((resolve) => {
    /** @type {import("node:child_process").ChildProcessWithoutNullStreams} */
    let child;
    try {
      child = spawn(program, ["get"], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      resolve({ code: null, stdout: "", stderr: "", failure: errorCode(error) ?? String(error) });
      return;
    }
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    let size = 0;
    /** @type {string | undefined} */
    let failure;
    /** @type {number | null} */
    let exitCode = null;
    let settled = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let grace;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is gone already, or could not be signalled
      }
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        code: exitCode,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        failure,
      });
    };
    const stop = (/** @type {string} */ why) => {
      failure ??= why;
      settle();
    };
    const collect = (/** @type {Buffer[]} */ into) => (/** @type {Buffer} */ chunk) => {
      size += chunk.byteLength;
      if (size > MAX_OUTPUT_BYTES) stop("tooLarge");
      else into.push(chunk);
    };
    child.stdout.on("data", collect(out));
    child.stderr.on("data", collect(err));
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    child.once("error", (/** @type {NodeJS.ErrnoException} */ error) => {
      failure ??= error?.code === "ENOENT" ? "ENOENT" : (error?.message ?? String(error));
      if (child.pid === undefined) settle(); // never started: no exit or close follows
    });
    child.once("exit", (code) => {
      exitCode = code;
      // The output is complete once the pipes close; a grandchild that
      // holds them open gets PIPE_GRACE_MS, then the group is killed.
      grace = setTimeout(settle, PIPE_GRACE_MS);
    });
    child.once("close", (code) => {
      exitCode ??= code;
      settle();
    });
    child.stdin.on("error", () => {}); // a helper may exit without reading its input
    child.stdin.end(input); // as docker sends it: the address alone, no newline
  });
}
