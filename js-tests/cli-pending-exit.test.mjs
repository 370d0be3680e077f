// A CLI command never exits 0 with its work unfinished. The library's request
// limits are unref()ed (a library must not hold a process open); when Node
// 20's fetch missed a connection reset at accept, nothing was left holding
// the process, which then exited 0 silently — `publish --from-registry`
// "succeeded" without a snapshot (7 of 120 runs against a build of 692e70e;
// the bin now holds the process until the command settles).
//
// The bound: 60 runs against a server that resets every connection as it is
// accepted must all exit 3. At the ≈ 6 % rate measured before, 60 runs all
// ending 3 by chance has probability ≈ 0.94^60 ≈ 2.5 %: the test catches the
// regression, and cannot fail on a correct build (any exit 0 is wrong).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CLI, tempDir } from "./helpers/cli.mjs";

const RUNS = 60;
const PARALLEL = 4;
let dir;
let server;
let url;
before(async () => {
  dir = await tempDir("cli-pending-exit");
  server = createServer((socket) => socket.resetAndDestroy());
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await dir?.remove();
});

/** One `publish --from-registry` against the resetting server → its exit code (killed at a generous 60 s). */
function publishOnce(index) {
  const out = join(dir.path, `out-${index}.abf1`);
  const args = ["publish", "--catalog-version", "1", "--expected-items", "100", "--fpp", "0.01", "--out", out];
  args.push("--from-registry", url, "--repository", "app", "--json", "--allow-empty", "--timeout-ms", "2000");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? code);
    });
  });
}

test(`${RUNS} publishes against a registry that resets every connection all exit 3`, async () => {
  /** @type {Record<string, number>} */
  const codes = {};
  for (let start = 0; start < RUNS; start += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, RUNS - start) }, (_, i) => publishOnce(start + i));
    for (const code of await Promise.all(batch)) codes[code] = (codes[code] ?? 0) + 1;
  }
  assert.deepEqual(codes, { 3: RUNS });
});
