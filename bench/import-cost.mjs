#!/usr/bin/env node
// What does loading the package cost a fresh Node process? CPU time (user +
// sys, from bash's `time`, which reads the child's rusage) of N fresh
// processes per case, the cases interleaved round by round so a change in
// the machine's load hits all of them alike:
//
//   bare      node -e 0
//   bare ESM  node --input-type=module -e 0   (the ES-module loader alone)
//   require   node -e 'require("artifact-bloom")'
//   import    node --input-type=module -e 'import "artifact-bloom"'
//
// Printed: the median and the range per case, the median over bare, and
// the ratio to bare. The package is resolved by name, through its exports
// map, from a temporary project whose node_modules/artifact-bloom links to
// --pkg (default pkg/), so two builds can be compared. Issue 22's target:
// require and import each ≤ 20 ms over bare, on Node 20 and on Node 24.
//
// Usage: node bench/import-cost.mjs [--runs N] [--node PATH] [--pkg DIR]
//   (Node 24: --node tools/node-runtimes/node_modules/node24/bin/node)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    node: { type: "string", default: process.execPath },
    pkg: { type: "string", default: fileURLToPath(new URL("../pkg", import.meta.url)) },
  },
});
const runs = Number(values.runs);
const node = resolve(values.node);

const CASES = {
  bare: ["-e", "0"],
  // What the ES-module loader costs with no package at all.
  "bare ESM": ["--input-type=module", "-e", "0"],
  require: ["-e", 'require("artifact-bloom")'],
  import: ["--input-type=module", "-e", 'import "artifact-bloom"'],
};

const project = mkdtempSync(join(tmpdir(), "import-cost-"));
mkdirSync(join(project, "node_modules"));
symlinkSync(resolve(values.pkg), join(project, "node_modules", "artifact-bloom"), "dir");

/** CPU ms (user + sys) of one fresh `node ...args`; throws if it failed. */
function cpuMs(args) {
  const ran = spawnSync("bash", ["-c", 'TIMEFORMAT="%3U %3S"; { time "$0" "$@" >/dev/null 2>/dev/null; } 2>&1', node, ...args], {
    cwd: project,
    encoding: "utf8",
  });
  const [user, sys] = ran.stdout.trim().split("\n").pop().split(" ").map(Number);
  if (ran.status !== 0 || !Number.isFinite(user + sys)) throw new Error(`node ${args.join(" ")} failed: ${ran.stdout}${ran.stderr}`);
  return (user + sys) * 1000;
}

const samples = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]));
try {
  // One warm-up round (disk cache), not counted.
  for (const args of Object.values(CASES)) cpuMs(args);
  for (let round = 0; round < runs; round++) {
    // Each round in a rotated order: no case always runs right after another.
    const names = Object.keys(CASES);
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      samples[name].push(cpuMs(CASES[name]));
    }
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
const bare = median(samples.bare);
console.log(`\nNode ${version}, ${runs} fresh processes per case (interleaved), CPU time user+sys; package: ${resolve(values.pkg)}\n`);
console.log("| case | median CPU | range | over bare | ratio to bare |");
console.log("|---|---:|---:|---:|---:|");
for (const [name, list] of Object.entries(samples)) {
  const over = median(list) - bare;
  console.log(
    `| ${name} | ${median(list).toFixed(0)} ms | ${Math.min(...list).toFixed(0)}–${Math.max(...list).toFixed(0)} ms | `
      + `${name === "bare" ? "—" : `${over < 0 ? "−" : "+"}${Math.abs(over).toFixed(0)} ms`} | ${(median(list) / bare).toFixed(2)}× |`,
  );
}
