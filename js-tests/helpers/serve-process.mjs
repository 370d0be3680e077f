// `artifact-bloom serve` as a child process (the real CLI, as an operator
// runs it), so a server that hangs fails the test at a generous bound
// instead of hanging the test runner.
import { spawn } from "node:child_process";
import { CLI } from "./cli.mjs";

/** The bound on any wait for the server: generous, never a timing assertion. */
export const SERVE_WAIT_MS = 30_000;

/** Starts `serve --snapshot … --catalog … --port 0 [extra…]` → `{ base, child, stderr() }`. */
export async function startServe(snapshot, catalog, extra = []) {
  const child = spawn(process.execPath, [CLI, "serve", "--snapshot", snapshot, "--catalog", catalog, "--port", "0", ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const base = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}${stderr}`)), SERVE_WAIT_MS);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+?)\/?\s/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
  return { base, child, stderr: () => stderr };
}

/** Kills a server started by startServe (if it still runs) and waits for it to exit. */
export async function stopServe(server) {
  if (server === undefined || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGKILL");
  await exited;
}
