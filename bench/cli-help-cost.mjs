#!/usr/bin/env node
// What does a command's --help cost a fresh process? CPU time (user + sys,
// from bash's `time`) of N fresh `artifact-bloom COMMAND --help` runs per
// command against the dispatcher's own `artifact-bloom --help` (which loads
// no command module), the cases interleaved round by round. A command that
// loaded the library (node.cjs and its wasm) before parsing its arguments
// paid for it here; issue 22: "each command loads only what it uses".
//
// Printed: per package and command, the median and range, and the median
// over the dispatcher's --help. --pkg may be given more than once (two
// builds, e.g. before and after a change, in the same interleaved rounds).
//
// Usage: node bench/cli-help-cost.mjs [--runs N] [--node PATH] [--pkg DIR]...
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    node: { type: "string", default: process.execPath },
    pkg: { type: "string", multiple: true },
  },
});
const runs = Number(values.runs);
const node = resolve(values.node);
const packages = (values.pkg ?? [fileURLToPath(new URL("../pkg", import.meta.url))]).map((dir) => resolve(dir));
const COMMANDS = ["(dispatcher)", "check", "inspect", "publish", "merge", "serve", "push"];

/** CPU ms (user + sys) of one fresh `node BIN ...args`; throws if it failed. */
function cpuMs(bin, args) {
  const ran = spawnSync(
    "bash",
    ["-c", 'TIMEFORMAT="%3U %3S"; { time "$0" "$@" >/dev/null 2>/dev/null; } 2>&1', node, bin, ...args],
    { encoding: "utf8" },
  );
  const [user, sys] = ran.stdout.trim().split("\n").pop().split(" ").map(Number);
  if (ran.status !== 0 || !Number.isFinite(user + sys))
    throw new Error(`${bin} ${args.join(" ")} failed: ${ran.stdout}${ran.stderr}`);
  return (user + sys) * 1000;
}

const jobs = packages.flatMap((pkg) =>
  COMMANDS.map((command) => ({
    pkg,
    command,
    bin: join(pkg, "bin", "artifact-bloom.mjs"),
    args: command === "(dispatcher)" ? ["--help"] : [command, "--help"],
    samples: [],
  })),
);
for (const job of jobs) cpuMs(job.bin, job.args); // warm-up (disk cache), not counted
for (let round = 0; round < runs; round++) {
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[(i + round) % jobs.length];
    job.samples.push(cpuMs(job.bin, job.args));
  }
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
for (const pkg of packages) {
  const table = jobs.filter((job) => job.pkg === pkg);
  const bare = median(table[0].samples);
  console.log(`\nNode ${version}, ${runs} fresh processes per case (interleaved), CPU time user+sys; package: ${pkg}\n`);
  console.log("| --help of | median CPU | range | over the dispatcher's --help | ratio |");
  console.log("|---|---:|---:|---:|---:|");
  for (const { command, samples } of table) {
    const over = median(samples) - bare;
    console.log(
      `| ${command} | ${median(samples).toFixed(0)} ms | ${Math.min(...samples).toFixed(0)}–${Math.max(...samples).toFixed(0)} ms | `
        + `${command === "(dispatcher)" ? "—" : `${over < 0 ? "−" : "+"}${Math.abs(over).toFixed(0)} ms`} | ${(median(samples) / bare).toFixed(2)}× |`,
    );
  }
}
