// Runs a helper script under the repository's Node 22 (Miniflare 4 needs
// Node ≥ 22; the suite may run on Node 20) and hands back the last line it
// printed, parsed as JSON: the runners print one line of what they saw.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const NODE22 = join(
  fileURLToPath(new URL("../..", import.meta.url)),
  "tools",
  "node-runtimes",
  "node_modules",
  "node22",
  "bin",
  "node",
);

/**
 * @param {string[]} args the script and its arguments
 * @returns {Promise<any>} its last output line, parsed
 */
export async function runOnNode22(args) {
  const output = await new Promise((resolve, reject) => {
    const child = spawn(NODE22, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`runner exited ${code}: ${err}`))));
  });
  return JSON.parse(output.trim().split("\n").at(-1));
}
