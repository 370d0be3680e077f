#!/usr/bin/env node
// What does a poll cost on the hosts teams already run? Issue 33's table:
// bytes on the wire (both ways, headers included, through a counting TCP
// proxy) per idle poll, per 1 % update, two versions behind, and after a
// byte-identical republish, for a SnapshotHolder started from fetchSnapshot
// against each host — in direct-URL mode (the single file publish --out
// writes) and in layout mode (publish --layout's manifest, docs/layout.md).
// One run, not a timing.
//
// The catalog: --items digests (default 1 000 000) at p = 0.001, sized for
// 1.2× that, +1 % per version, four versions (js-tests/helpers/hosting-scenario.mjs).
// Hosts (js-tests/helpers/hosting-hosts.mjs): serve, nginx default, gzip on,
// etag off, two origins behind a balancer, python3 -m http.server, an nginx
// micro-cache (1 s, ignoring Vary and Cache-Control) and varnish's default
// VCL in front of serve. Needs nginx and varnish (bash scripts/setup.sh --hosting).
//
// Usage: node bench/hosting.mjs [--items N] [--pkg DIR] [--json]
//   (--pkg measures another build of the package, e.g. an older commit's
//   pkg/, with this same script; a build without publish --layout gets its
//   direct rows only)
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HOSTS, startHosts } from "../js-tests/helpers/hosting-hosts.mjs";
import { measurePollCosts, publishedTree } from "../js-tests/helpers/hosting-scenario.mjs";
import { findBinary } from "../js-tests/helpers/static-hosts.mjs";

const { values } = parseArgs({
  options: { items: { type: "string", default: "1000000" }, pkg: { type: "string" }, json: { type: "boolean", default: false } },
});
const items = Number(values.items);
if (!Number.isSafeInteger(items) || items < 1000) {
  console.error(`bench/hosting.mjs: --items must be an integer ≥ 1000, got ${values.items}`);
  process.exit(2);
}
const pkgDir = resolve(values.pkg ?? fileURLToPath(new URL("../pkg", import.meta.url)));
if (!existsSync(join(pkgDir, "node.mjs"))) {
  console.error(`bench/hosting.mjs: no package at ${pkgDir}; run: node scripts/build.mjs`);
  process.exit(2);
}
const pkg = await import(pathToFileURL(join(pkgDir, "node.mjs")).href);
const cli = join(pkgDir, "bin", "artifact-bloom.mjs");
const publishHelp = spawnSync(process.execPath, [cli, "publish", "--help"], { encoding: "utf8" }).stdout;
const layout = publishHelp.includes("--layout");

const names = Object.keys(HOSTS).filter((name) => HOSTS[name].binary === undefined || findBinary(HOSTS[name].binary));
const missing = Object.keys(HOSTS).filter((name) => !names.includes(name));
if (missing.length > 0) console.error(`bench/hosting.mjs: not installed, skipped: ${missing.join(", ")}`);

const scratch = await mkdtemp(join(tmpdir(), "artifact-bloom-bench-hosting-"));
let rows;
try {
  const root = join(scratch, "tree");
  const tree = await publishedTree(root, { cli, items, layout });
  await tree.publish(1);
  const running = await startHosts(names, {
    root,
    scratch,
    serveModule: join(pkgDir, "cli", "serve", "serve.mjs"),
    catalog: tree.catalog,
  });
  try {
    rows = await measurePollCosts({ pkg, tree, hosts: running.hosts });
  } finally {
    await running.stop();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

if (values.json) {
  console.log(JSON.stringify({ items, pkg: pkgDir, rows }, null, 2));
} else {
  const number = (value) => (value === undefined ? "–" : value.toLocaleString("en-US"));
  const share = (value, full) => (value === undefined ? "" : ` (${((100 * value) / full).toFixed(2)} %)`);
  console.log(
    `${items.toLocaleString("en-US")} digests, p = 0.001, sized for 1.2×, +1 % per version; bytes on the wire per poll\n`,
  );
  console.log(
    "| host | mode | idle poll | 1 % update | two versions behind | byte-identical republish (1st / 2nd / 3rd poll) | correct |",
  );
  console.log("|---|---|---:|---:|---:|---:|---|");
  for (const row of rows) {
    if (row.note !== undefined) {
      console.log(`| ${row.host} | ${row.mode} | – | – | – | – | not measured: ${row.note.slice(0, 80)} |`);
      continue;
    }
    const cells = [
      number(row.idle),
      `${number(row.update)}${share(row.update, row.full)}`,
      `${number(row.twoBehind)}${share(row.twoBehind, row.full)}`,
      row.republish.map(number).join(" / "),
      row.correct ? "yes" : "**no**",
    ];
    const failures = row.failures === undefined ? "" : ` (failed polls: ${row.failures.join(", ")})`;
    console.log(`| ${row.host} | ${row.mode} | ${cells.join(" | ")}${failures} |`);
  }
  console.log(`\nfull file: ${number(rows.find((row) => row.full !== undefined)?.full)} B`);
}
