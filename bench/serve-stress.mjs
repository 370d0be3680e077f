#!/usr/bin/env node
// Can a local client hang or stall `artifact-bloom serve`? Two measurements
// (issue 11, section 2), against the real CLI in a child process on
// 127.0.0.1, port 0:
//
//   distinct  N distinct digests (default 10,000,000) sent through
//             POST /blobs:findMissing in posts of --batch (default 10,000,
//             the server's per-request cap), while a prober sends one HEAD
//             every 50 ms. Reports the server's RSS idle and after, its peak
//             RSS, the /stats size, and HEAD latency during and after.
//   reload    a --catalog-lines (default 200,000) catalog is atomically
//             replaced by a copy of itself, then --clients (default 200)
//             concurrent HEADs arrive. Reports how long until all were
//             answered (the stall), the slowest one, and a second round.
//
// Usage: node bench/serve-stress.mjs [distinct|reload|all] [--pkg DIR]
//          [--distinct N] [--batch N] [--clients N] [--catalog-lines N]
//          [--budget-s S]
// --pkg DIR runs DIR/bin/artifact-bloom.mjs (default: pkg/; point it at a
// copy of an older build to measure "before"). Every loop is bounded:
// requests give up after --budget-s (default 900) seconds, and the posting
// stops once that much time has passed.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pkg: { type: "string", default: fileURLToPath(new URL("../pkg", import.meta.url)) },
    distinct: { type: "string", default: "10000000" },
    batch: { type: "string", default: "10000" },
    clients: { type: "string", default: "200" },
    "catalog-lines": { type: "string", default: "200000" },
    "budget-s": { type: "string", default: "900" },
  },
});
const CLI = join(resolve(values.pkg), "bin", "artifact-bloom.mjs");
if (!existsSync(CLI)) {
  console.error(`bench/serve-stress.mjs: ${CLI} does not exist; run: node scripts/build.mjs`);
  process.exit(2);
}
const scenario = positionals[0] ?? "all";
const BUDGET_MS = Number(values["budget-s"]) * 1000;
const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-serve-stress-"));
const at = (name) => join(dir, name);
const sha256Hex = (text) => createHash("sha256").update(text).digest("hex");
const mib = (kib) => (kib / 1024).toFixed(0);

/** VmRSS and VmHWM (peak) of a process, in KiB (Linux /proc). */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)[1]);
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

function run(args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("exit", (code) => (code === 0 ? done() : fail(new Error(`${args[0]} exited ${code}: ${stderr}`))));
  });
}

async function startServe(snapshot, catalog) {
  const child = spawn(process.execPath, [CLI, "serve", "--snapshot", snapshot, "--catalog", catalog, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const base = await new Promise((done, fail) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+?)\/?\s/.exec(out);
      if (match) done(match[1]);
    });
    child.once("exit", (code) => fail(new Error(`serve exited ${code}`)));
  });
  return { child, base };
}

/** A catalog of `count` digests and its snapshot (catalogVersion 1). */
async function catalogOf(count, name) {
  const lines = Array.from({ length: count }, (_, i) => sha256Hex(`stress:${i}`));
  writeFileSync(at(`${name}.txt`), `${lines.join("\n")}\n`);
  await run([
    "publish",
    "--catalog-version",
    "1",
    "--expected-items",
    String(count),
    "--fpp",
    "0.01",
    "--input",
    at(`${name}.txt`),
    "--out",
    at(`${name}.abf1`),
  ]);
  return lines;
}

/** One HEAD → its latency in ms, or Infinity when it got no answer within the budget. */
async function timedHead(base, digest) {
  const started = performance.now();
  try {
    const response = await fetch(`${base}/blobs/sha256/${digest}?catalogVersion=1`, {
      method: "HEAD",
      signal: AbortSignal.timeout(BUDGET_MS),
    });
    await response.arrayBuffer();
    return performance.now() - started;
  } catch {
    return Infinity;
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const shown = (ms) => (ms === Infinity ? "no answer" : `${ms.toFixed(1)} ms`);

async function distinct() {
  const total = Number(values.distinct);
  const batch = Number(values.batch);
  const members = await catalogOf(1000, "small");
  const { child, base } = await startServe(at("small.abf1"), at("small.txt"));
  try {
    for (let i = 0; i < 20; i += 1) await timedHead(base, members[i]);
    const idle = memoryOf(child.pid);
    let posting = true;
    const during = [];
    const prober = (async () => {
      for (let i = 0; posting && i < 1_000_000; i += 1) {
        during.push(await timedHead(base, members[i % members.length]));
        await sleep(50);
      }
    })();
    const started = performance.now();
    let sent = 0;
    let failed;
    for (let post = 0; sent < total && post < Math.ceil(total / batch); post += 1) {
      if (performance.now() - started > BUDGET_MS) {
        failed = `the --budget-s ${values["budget-s"]} s ran out`;
        break;
      }
      const count = Math.min(batch, total - sent);
      const prefix = post.toString(16).padStart(8, "0");
      const digests = Array.from({ length: count }, (_, i) => `${prefix}${i.toString(16).padStart(56, "0")}`);
      try {
        const response = await fetch(`${base}/blobs:findMissing`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ catalogVersion: 1, digests }),
          signal: AbortSignal.timeout(BUDGET_MS),
        });
        await response.arrayBuffer();
        if (response.status !== 200) {
          failed = `post ${post} answered ${response.status}`;
          break;
        }
      } catch (error) {
        failed = `post ${post}: ${error.name} ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}`;
        break;
      }
      sent += count;
    }
    const postSeconds = (performance.now() - started) / 1000;
    posting = false;
    await prober;
    const afterPosts = memoryOf(child.pid);
    const after = [];
    for (let i = 0; i < 20; i += 1) after.push(await timedHead(base, members[i]));
    let statsBytes = "no answer";
    try {
      statsBytes = (await (await fetch(`${base}/stats`, { signal: AbortSignal.timeout(BUDGET_MS) })).arrayBuffer()).byteLength;
    } catch {
      /* reported as "no answer" */
    }
    during.sort((a, b) => a - b);
    after.sort((a, b) => a - b);
    console.log(`\n## distinct digests (${CLI})\n`);
    console.log("| measure | value |\n|---|---:|");
    console.log(
      `| distinct digests sent | ${sent.toLocaleString("en")} in ${postSeconds.toFixed(1)} s (batches of ${batch.toLocaleString("en")})${failed ? `; stopped: ${failed}` : ""} |`,
    );
    console.log(
      `| server RSS idle → after | ${mib(idle.rss)} → ${mib(afterPosts.rss)} MiB (+${mib(afterPosts.rss - idle.rss)}) |`,
    );
    console.log(`| server peak RSS (VmHWM) | ${mib(afterPosts.peak)} MiB |`);
    console.log(
      `| GET /stats size | ${typeof statsBytes === "number" ? `${statsBytes.toLocaleString("en")} bytes` : statsBytes} |`,
    );
    console.log(
      `| HEAD during the posts: n, median, p99, max | ${during.length}, ${shown(quantile(during, 0.5))}, ${shown(quantile(during, 0.99))}, ${shown(during.at(-1))} |`,
    );
    console.log(`| HEAD after: median, max of 20 | ${shown(quantile(after, 0.5))}, ${shown(after.at(-1))} |`);
  } finally {
    child.kill("SIGKILL");
  }
}

async function reload() {
  const lines = Number(values["catalog-lines"]);
  const clients = Number(values.clients);
  const members = await catalogOf(lines, "big");
  const { child, base } = await startServe(at("big.abf1"), at("big.txt"));
  try {
    for (let i = 0; i < 20; i += 1) await timedHead(base, members[i]);
    const round = async () => {
      const started = performance.now();
      const latencies = await Promise.all(Array.from({ length: clients }, (_, i) => timedHead(base, members[i])));
      return { wall: performance.now() - started, slowest: Math.max(...latencies) };
    };
    const baseline = await round();
    // An atomic replace with the same content: a new inode, nothing else.
    copyFileSync(at("big.txt"), at("big.txt.next"));
    renameSync(at("big.txt.next"), at("big.txt"));
    const first = await round();
    const second = await round();
    let loads = "n/a";
    try {
      const stats = await (await fetch(`${base}/stats`, { signal: AbortSignal.timeout(BUDGET_MS) })).json();
      loads = stats.catalogLoads ?? "n/a (not counted)";
    } catch {
      /* no answer */
    }
    console.log(`\n## catalog reload under ${clients} concurrent clients (${lines.toLocaleString("en")}-line catalog, ${CLI})\n`);
    console.log("| round | all answered after | slowest request |\n|---|---:|---:|");
    console.log(`| before the replace | ${shown(baseline.wall)} | ${shown(baseline.slowest)} |`);
    console.log(`| right after the replace | ${shown(first.wall)} | ${shown(first.slowest)} |`);
    console.log(`| the next round | ${shown(second.wall)} | ${shown(second.slowest)} |`);
    console.log(`\ncatalog loads counted by the server: ${loads}`);
  } finally {
    child.kill("SIGKILL");
  }
}

try {
  if (scenario === "distinct" || scenario === "all") await distinct();
  if (scenario === "reload" || scenario === "all") await reload();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
