// Runs a command to completion and reports its peak RSS exactly: through
// GNU time (/usr/bin/time -f %M), which reads the child's ru_maxrss from
// wait4() — the kernel's high-water mark of the whole run, so no sampling
// can miss a short peak. Also the wall time (measured here) and the output.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../node_modules/artifact-bloom/bin/artifact-bloom.mjs", import.meta.url));

/**
 * → { code, stdout, stderr, peakMiB, wallSeconds }. Killed after timeoutMs.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, timeoutMs?: number }} [options]
 */
export async function runWithPeak(command, args, { env, timeoutMs = 600_000 } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "artifact-bloom-peak-"));
  const report = join(dir, "time.txt");
  try {
    const started = process.hrtime.bigint();
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn("/usr/bin/time", ["-f", "%M", "-o", report, command, ...args], {
        env: env ?? process.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const out = [];
      const err = [];
      child.stdout.on("data", (chunk) => out.push(chunk));
      child.stderr.on("data", (chunk) => err.push(chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("close", (exitCode) => {
        clearTimeout(timer);
        resolve({ code: exitCode, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
      });
    });
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const text = await readFile(report, "utf8");
    // time writes "Command exited with non-zero status N" first on failure.
    const kib = Number(text.trim().split("\n").pop());
    if (!Number.isFinite(kib) || kib <= 0) throw new Error(`/usr/bin/time gave no peak RSS: ${JSON.stringify(text)}`);
    return { code, stdout, stderr, peakMiB: kib / 1024, wallSeconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The CLI under Node, measured (see runWithPeak). */
export function runCliWithPeak(args, options) {
  return runWithPeak(process.execPath, [CLI, ...args], options);
}
