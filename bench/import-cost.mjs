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
//   require, first query / import, first query
//             the same, then ArtifactBloomFilter.create of one digest and
//             one mightContain: the main wasm module is compiled on first
//             use, so these show what a process that queries pays in all
//
// Printed: the median and the range per case, the median over bare, and
// the ratio to bare. The package is resolved by name, through its exports
// map, from a temporary project whose node_modules/artifact-bloom links to
// --pkg (default pkg/), so two builds can be compared. Issue 22's target:
// require and import each ≤ 20 ms over bare, on Node 20 and on Node 24.
// --node and --pkg may each be given more than once: every Node runs every
// package, all in the same interleaved rounds, one table per Node and package.
// --both-nodes is --node for this Node and for tools/node-runtimes' Node 24.
//
// Usage: node bench/import-cost.mjs [--runs N] [--node PATH]... [--both-nodes] [--pkg DIR]...
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
    node: { type: "string", multiple: true },
    "both-nodes": { type: "boolean", default: false },
    pkg: { type: "string", multiple: true },
  },
});
const runs = Number(values.runs);
const NODE24 = fileURLToPath(new URL("../tools/node-runtimes/node_modules/node24/bin/node", import.meta.url));
const nodes = values["both-nodes"]
  ? [process.execPath, NODE24]
  : (values.node ?? [process.execPath]).map((path) => resolve(path));
const packages = (values.pkg ?? [fileURLToPath(new URL("../pkg", import.meta.url))]).map((dir) => resolve(dir));

/** One filter of one digest and one query, failing the process if either is wrong. */
const FIRST_QUERY = [
  "const digest = new Uint8Array(32).fill(1);",
  "const built = ArtifactBloomFilter.create([digest], { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 });",
  "if (built.kind !== 'success' || !built.value.mightContain(digest)) process.exit(1);",
].join(" ");
const CASES = {
  bare: ["-e", "0"],
  // What the ES-module loader costs with no package at all.
  "bare ESM": ["--input-type=module", "-e", "0"],
  require: ["-e", 'require("artifact-bloom")'],
  import: ["--input-type=module", "-e", 'import "artifact-bloom"'],
  "require, first query": ["-e", `const { ArtifactBloomFilter } = require("artifact-bloom");${FIRST_QUERY}`],
  "import, first query": ["--input-type=module", "-e", `import { ArtifactBloomFilter } from "artifact-bloom";${FIRST_QUERY}`],
};

// One temporary project per package, each resolving artifact-bloom by name.
const projects = packages.map((dir) => {
  const project = mkdtempSync(join(tmpdir(), "import-cost-"));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(dir, join(project, "node_modules", "artifact-bloom"), "dir");
  return project;
});

/** CPU ms (user + sys) of one fresh `node ...args` in `project`; throws if it failed. */
function cpuMs(node, project, args) {
  const ran = spawnSync("bash", ["-c", 'TIMEFORMAT="%3U %3S"; { time "$0" "$@" >/dev/null 2>/dev/null; } 2>&1', node, ...args], {
    cwd: project,
    encoding: "utf8",
  });
  const [user, sys] = ran.stdout.trim().split("\n").pop().split(" ").map(Number);
  if (ran.status !== 0 || !Number.isFinite(user + sys))
    throw new Error(`node ${args.join(" ")} failed: ${ran.stdout}${ran.stderr}`);
  return (user + sys) * 1000;
}

// Every (Node, package, case), each with its samples.
const jobs = nodes.flatMap((node) =>
  packages.flatMap((pkg, p) =>
    Object.entries(CASES).map(([name, args]) => ({
      node,
      pkg,
      project: projects[p],
      name,
      args,
      samples: [],
    })),
  ),
);
try {
  // One warm-up round (disk cache), not counted.
  for (const job of jobs) cpuMs(job.node, job.project, job.args);
  for (let round = 0; round < runs; round++) {
    // Each round in a rotated order: no case always runs right after another.
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[(i + round) % jobs.length];
      job.samples.push(cpuMs(job.node, job.project, job.args));
    }
  }
} finally {
  for (const project of projects) rmSync(project, { recursive: true, force: true });
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
for (const node of nodes) {
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  for (const pkg of packages) {
    const table = jobs.filter((job) => job.node === node && job.pkg === pkg);
    const bare = median(table.find((job) => job.name === "bare").samples);
    console.log(`\nNode ${version}, ${runs} fresh processes per case (interleaved), CPU time user+sys; package: ${pkg}\n`);
    console.log("| case | median CPU | range | over bare | ratio to bare |");
    console.log("|---|---:|---:|---:|---:|");
    for (const { name, samples: list } of table) {
      const over = median(list) - bare;
      console.log(
        `| ${name} | ${median(list).toFixed(0)} ms | ${Math.min(...list).toFixed(0)}–${Math.max(...list).toFixed(0)} ms | `
          + `${name === "bare" ? "—" : `${over < 0 ? "−" : "+"}${Math.abs(over).toFixed(0)} ms`} | ${(median(list) / bare).toFixed(2)}× |`,
      );
    }
  }
}
