#!/usr/bin/env node
// The browser benchmark (issue 15, deliverables 3–5), in Debian's Chromium
// via playwright-core (headless, --no-sandbox, --disable-gpu):
//
//   - snapshot load: fetchSnapshot of a 128 MiB ABF1 snapshot (2^30 bits,
//     the format's cap) next to its floor measured in the same page: the
//     time to receive the bytes (fetch + arrayBuffer) plus one WebCrypto
//     digest of them; and fetchSnapshot in a page without WebCrypto (as in
//     an insecure context: the streaming-wasm fallback);
//   - file hashing of 1 × 200 MiB and 500 × 256 KiB files on disk (picked
//     through an <input type=file>): the baseline (wasm Sha256 from
//     file.stream() in a pool of workers, no WebCrypto), hashFiles,
//     and the WebCrypto floor (file.arrayBuffer() + crypto.subtle.digest,
//     same concurrency, on the main thread);
//   - for each run: the main thread's longest task (PerformanceObserver
//     "longtask"), the longest gap between 10 ms timer ticks, the peak JS
//     heap of the page (CDP Performance.getMetrics JSHeapUsedSize, main
//     isolate only: ArrayBuffers and workers are outside it) and the peak
//     RSS of the renderer process (/proc, sampled every 50 ms; workers and
//     ArrayBuffers included).
//
// Each run gets a fresh browser context; runs of one row are interleaved
// with the other rows' (round robin) and the median is printed. Every digest
// is checked against node:crypto's.
//
// Usage: node bench/browser.mjs [--pkg DIR] [--before DIR] [--hash-only] [--reps N]
//   --pkg DIR     the built package to measure (default pkg/; give a build of
//                 an older commit for the "before" table)
//   --before DIR  also measure that build's hashFiles in the same run (rows
//                 "before"; the speedups are then also given against it)
//   --hash-only   skip the snapshot rows
//   --reps N      runs per row (default 3)
// Prints a markdown table and the targets with MET / MISSED.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { CHROMIUM, hasChromium, launchChromium } from "../js-tests/browser/chromium.mjs";
import { HUGE_BIT_COUNT, hugeSnapshotFile } from "../js-tests/helpers/huge-snapshot.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values: args } = parseArgs({
  options: {
    pkg: { type: "string", default: join(ROOT, "pkg") },
    before: { type: "string" },
    "hash-only": { type: "boolean", default: false },
    reps: { type: "string", default: "3" },
  },
});
const PKG = resolve(args.pkg);
const BEFORE = args.before === undefined ? undefined : resolve(args.before);
const REPS = Number(args.reps);
for (const dir of [PKG, BEFORE]) {
  if (dir !== undefined && !existsSync(join(dir, "web.js"))) {
    console.error(`bench/browser.mjs: no built package at ${dir}; run: node scripts/build.mjs`);
    process.exit(2);
  }
}
if (!hasChromium) {
  console.error(`bench/browser.mjs: ${CHROMIUM} is missing (bash scripts/setup.sh --browser installs it)`);
  process.exit(2);
}

const MiB = 2 ** 20;
const BIG_BYTES = 200 * MiB;
const SMALL_COUNT = 500;
const SMALL_BYTES = 256 * 1024;
const SNAPSHOT_BITS = HUGE_BIT_COUNT;

// --- fixtures ----------------------------------------------------------------

/** `count` files of `size` bytes of pseudo-random content under `dir`: their paths and SHA-256s. */
function writeFiles(dir, prefix, count, size) {
  mkdirSync(dir, { recursive: true });
  const block = Buffer.alloc(MiB);
  for (let offset = 0; offset < MiB; offset += 32)
    createHash("sha256").update(`${prefix} ${offset}`).digest().copy(block, offset);
  const paths = [];
  const hex = [];
  for (let i = 0; i < count; i += 1) {
    const content = Buffer.alloc(size);
    for (let offset = 0; offset < size; offset += MiB) block.copy(content, offset, 0, Math.min(MiB, size - offset));
    content.writeUInt32LE(i, 0); // every file distinct
    const path = join(dir, `${prefix}-${String(i).padStart(4, "0")}.bin`);
    writeFileSync(path, content);
    paths.push(path);
    hex.push(createHash("sha256").update(content).digest("hex"));
  }
  return { paths, hex, bytes: count * size };
}

// --- the server ----------------------------------------------------------------

const MIME = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const PAGE =
  '<!doctype html><title>bench</title><input type="file" id="files" multiple><script type="module" src="/bench/page.js"></script>';

function startServer(snapshot) {
  const benchFiles = { "/bench/page.js": "browser-page.js", "/bench/baseline-worker.js": "browser-baseline-worker.js" };
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://localhost").pathname;
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html" });
      return response.end(PAGE);
    }
    if (path === "/snapshot.abf1") {
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": snapshot.length,
        "cache-control": "no-store",
      });
      let offset = 0; // 1 MiB writes: the body arrives in many chunks, as from a real server
      const pump = () => {
        while (offset < snapshot.length) {
          const end = Math.min(offset + MiB, snapshot.length);
          const more = response.write(snapshot.subarray(offset, end));
          offset = end;
          if (!more) return response.once("drain", pump);
        }
        response.end();
      };
      return pump();
    }
    let file;
    if (benchFiles[path]) file = join(ROOT, "bench", benchFiles[path]);
    else if (path.startsWith("/pkg/")) file = normalize(join(PKG, decodeURIComponent(path.slice(5))));
    else if (BEFORE !== undefined && path.startsWith("/pkg-before/"))
      file = normalize(join(BEFORE, decodeURIComponent(path.slice(12))));
    const allowed = [PKG, BEFORE, join(ROOT, "bench")].filter((dir) => dir !== undefined);
    if (file === undefined || !allowed.some((dir) => file.startsWith(dir + sep)) || !existsSync(file)) {
      response.writeHead(404);
      return response.end();
    }
    response.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  return new Promise((ready) => server.listen(0, "127.0.0.1", () => ready(server)));
}

// --- memory sampling -----------------------------------------------------------

/** Pids of renderer processes descended from this process (our Chromium's, not another run's). */
function rendererPids() {
  const parent = new Map();
  const renderer = new Set();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("--type=renderer")) renderer.add(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  const ours = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 20; p = parent.get(p) ?? 0, hops += 1) if (p === process.pid) return true;
    return false;
  };
  return [...renderer].filter(ours);
}

function rssBytes(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples the page's JS heap (CDP) and its renderer's RSS every 50 ms until
 * stopped; returns the peaks and the RSS when sampling began.
 */
async function sampleMemory(page, pids) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const rssNow = () => pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const startRss = rssNow();
  let heap = 0;
  let rss = startRss;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { metrics } = await cdp.send("Performance.getMetrics").catch(() => ({ metrics: [] }));
      heap = Math.max(heap, metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0);
      rss = Math.max(rss, rssNow());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await cdp.detach().catch(() => {});
    return { heap, rss, startRss };
  };
}

// --- runs ----------------------------------------------------------------------

async function openPage(browser, url, { files, noWebCrypto = false } = {}) {
  const before = new Set(rendererPids());
  const context = await browser.newContext();
  // As in a page served over plain http from another host: no crypto.subtle.
  if (noWebCrypto) await context.addInitScript(() => Object.defineProperty(Crypto.prototype, "subtle", { get: () => undefined }));
  const page = await context.newPage();
  page.setDefaultTimeout(300_000);
  await page.goto(url);
  await page.waitForSelector("body[data-ready]");
  if (files) await page.setInputFiles("#files", files);
  // A new context gets a renderer process of its own: the pids that are new.
  const fresh = rendererPids().filter((pid) => !before.has(pid));
  return { page, pids: fresh.length > 0 ? fresh : rendererPids(), close: () => context.close() };
}

/** One measured run: a fresh page, memory sampled around `fn(page)`. */
async function measure(browser, url, pageOptions, fn) {
  const { page, pids, close } = await openPage(browser, url, pageOptions);
  try {
    const stop = await sampleMemory(page, pids);
    const result = await fn(page);
    return { ...result, memory: await stop() };
  } finally {
    await close();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const mb = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;

function check(label, got, expected) {
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    console.error(
      `bench/browser.mjs: ${label}: wrong result\n  got      ${JSON.stringify(got).slice(0, 300)}\n  expected ${JSON.stringify(expected).slice(0, 300)}`,
    );
    process.exit(1);
  }
}

/** The snapshot-load rows: the floor, fetchSnapshot, and fetchSnapshot without WebCrypto. */
function snapshotRows(row, browser, url, snapshot) {
  row("snapshot", "floor: receive the bytes + one WebCrypto digest", snapshot.file.length, () =>
    measure(browser, url, {}, async (page) => {
      const r = await page.evaluate((u) => window.bench.snapshotFloor(u), `${url}snapshot.abf1`);
      check("snapshot floor", r.bytes, snapshot.file.length);
      return r;
    }),
  );
  row("snapshot", "`fetchSnapshot`", snapshot.file.length, () =>
    measure(browser, url, {}, async (page) => {
      const r = await page.evaluate((u) => window.bench.snapshotLoad(u), `${url}snapshot.abf1`);
      check("fetchSnapshot", [r.kind, r.checksum, r.bitCount], ["success", snapshot.checksum, SNAPSHOT_BITS]);
      return r;
    }),
  );
  row("snapshot", "`fetchSnapshot`, no WebCrypto (insecure-context fallback: wasm streaming)", snapshot.file.length, () =>
    measure(browser, url, { noWebCrypto: true }, async (page) => {
      const r = await page.evaluate((u) => window.bench.snapshotLoad(u), `${url}snapshot.abf1`);
      check("fetchSnapshot without WebCrypto", [r.kind, r.checksum], ["success", snapshot.checksum]);
      return r;
    }),
  );
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-bench-browser-"));
  const snapshot = hugeSnapshotFile(7);
  const big = writeFiles(join(tmp, "big"), "big", 1, BIG_BYTES);
  const small = writeFiles(join(tmp, "small"), "small", SMALL_COUNT, SMALL_BYTES);
  const server = await startServer(snapshot.file);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launchChromium();
  const loadStart = loadavg()[0];
  const started = Date.now();
  try {
    const probe = await openPage(browser, url);
    const { hardwareConcurrency, hasHashFiles } = await probe.page.evaluate(() => window.bench);
    const version = browser.version();
    await probe.close();
    // The "before" build in the same run: the page imports it instead of /pkg/.
    const beforeUrl = `${url}?pkg=/pkg-before/`;
    let beforeHasHashFiles = false;
    if (BEFORE !== undefined) {
      const beforeProbe = await openPage(browser, beforeUrl);
      beforeHasHashFiles = await beforeProbe.page.evaluate(() => window.bench.hasHashFiles);
      await beforeProbe.close();
    }

    const rows = [];
    const row = (group, path, bytes, run) => rows.push({ group, path, bytes, run, runs: [] });
    if (!args["hash-only"]) snapshotRows(row, browser, url, snapshot);
    for (const [group, set] of [
      ["1 × 200 MiB", big],
      ["500 × 256 KiB", small],
    ]) {
      const hashRun =
        (label, expression, arg, pageUrl = url) =>
        () =>
          measure(browser, pageUrl, { files: set.paths }, async (page) => {
            const r = await page.evaluate(expression, arg);
            check(`${group} ${label}`, r.digests, set.hex);
            return r;
          });
      row(
        group,
        "baseline: wasm `Sha256` from `file.stream()` in workers",
        set.bytes,
        hashRun("baseline", () => window.bench.hashBaseline()),
      );
      if (beforeHasHashFiles) {
        row(
          group,
          `before: \`hashFiles\` (defaults) of ${BEFORE}`,
          set.bytes,
          hashRun("hashFiles before", () => window.bench.hashFiles(), undefined, beforeUrl),
        );
      }
      if (hasHashFiles)
        row(
          group,
          "`hashFiles` (defaults)",
          set.bytes,
          hashRun("hashFiles", () => window.bench.hashFiles()),
        );
      const floorConcurrency = Math.min(set.paths.length, hardwareConcurrency);
      row(
        group,
        `floor: \`file.arrayBuffer()\` + WebCrypto digest, main thread, ${floorConcurrency} at a time`,
        set.bytes,
        hashRun("floor", (c) => window.bench.hashFloor(c), floorConcurrency),
      );
    }

    for (let rep = 0; rep < REPS; rep += 1) {
      for (const r of rows) r.runs.push(await r.run());
    }

    const stat = (r, key) => median(r.runs.map((x) => x[key]));
    const peak = (r, key) => Math.max(...r.runs.map((x) => x.memory[key]));
    const loadEnd = loadavg()[0];
    console.log(
      `Machine: ${cpus()[0]?.model ?? "?"}, ${cpus().length} logical CPUs (navigator.hardwareConcurrency ${hardwareConcurrency}), Chromium ${version} headless, Node ${process.version}, package ${PKG}, ${new Date().toISOString()}`,
    );
    console.log(
      `\nContention: 1-min load average ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end; ${REPS} runs per row, interleaved; ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
    );
    console.log(
      "| workload | path | median ms | throughput | longest main-thread task (tasks ≥ 50 ms per run) | longest 10 ms-timer gap | peak JS heap (main) | peak renderer RSS (at start) |",
    );
    console.log("|---|---|---:|---:|---:|---:|---:|---:|");
    for (const r of rows) {
      const ms = stat(r, "ms");
      const rate =
        r.group === "snapshot"
          ? `${(r.bytes / MiB / (ms / 1000)).toFixed(0)} MiB/s`
          : `${(r.bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
      // The floors' split: receive/read vs digest (for many files: summed over files, so above the wall time).
      const detail =
        r.runs[0].receiveMs !== undefined
          ? ` (${r.group === "snapshot" ? "receive" : "read"} ${fmt(stat(r, "receiveMs"))} + digest ${fmt(stat(r, "digestMs"))}${r.group === "snapshot" || r.group.startsWith("1 ×") ? "" : ", summed"})`
          : "";
      const longTask = Math.max(...r.runs.map((x) => x.longTaskMs));
      const counts = r.runs.map((x) => x.longTasks).join(", ");
      console.log(
        `| ${r.group === "snapshot" ? "128 MiB snapshot" : r.group} | ${r.path} | ${fmt(ms)}${detail} | ${rate} | ${longTask === 0 ? "none ≥ 50 ms" : `${fmt(longTask)} ms (${counts})`} | ${fmt(Math.max(...r.runs.map((x) => x.gapMs)))} ms | ${mb(peak(r, "heap"))} | ${mb(peak(r, "rss"))} (${mb(median(r.runs.map((x) => x.memory.startRss)))}) |`,
      );
    }

    // Targets (issue 15).
    const find = (group, prefix) => rows.find((r) => r.group === group && r.path.startsWith(prefix));
    const verdict = (ok) => (ok ? "MET" : "MISSED");
    console.log("\nTargets:\n");
    const load = find("snapshot", "`fetchSnapshot`");
    const floor = find("snapshot", "floor");
    if (load && floor) {
      const loadRatio = stat(load, "ms") / stat(floor, "ms");
      console.log(
        `- ${verdict(loadRatio <= 1.5)}: fetchSnapshot of 128 MiB ${fmt(stat(load, "ms"))} ms vs receive + one WebCrypto digest ${fmt(stat(floor, "ms"))} ms: ${loadRatio.toFixed(2)}× (target ≤ 1.5×)`,
      );
    }
    if (!hasHashFiles) {
      console.log("- hashing targets: this package has no hashFiles: the baseline only");
    }
    for (const group of ["1 × 200 MiB", "500 × 256 KiB"]) {
      const baseline = find(group, "baseline:");
      const next = find(group, "`hashFiles`");
      if (!next) continue;
      const speedup = stat(baseline, "ms") / stat(next, "ms");
      const longTask = Math.max(...next.runs.map((x) => x.longTaskMs));
      console.log(
        `- ${verdict(speedup >= 2)}: ${group}: hashFiles ${fmt(stat(next, "ms"))} ms vs the baseline ${fmt(stat(baseline, "ms"))} ms: ${speedup.toFixed(2)}× the throughput (target ≥ 2×)`,
      );
      console.log(
        `- ${verdict(longTask <= 50)}: ${group}: longest main-thread task during hashFiles ${longTask === 0 ? "none ≥ 50 ms (longtask reports tasks of 50 ms or more)" : `${fmt(longTask)} ms`} (target ≤ 50 ms)`,
      );
      console.log(
        `- reported: ${group}: hashFiles peak renderer RSS ${mb(peak(next, "rss"))} (baseline ${mb(peak(baseline, "rss"))}), peak main JS heap ${mb(peak(next, "heap"))}`,
      );
      const old = find(group, "before:");
      if (old) {
        const oldSpeedup = stat(baseline, "ms") / stat(old, "ms");
        console.log(
          `- reported: ${group}: the before build's hashFiles ${fmt(stat(old, "ms"))} ms: ${oldSpeedup.toFixed(2)}× the baseline (this build ${(stat(old, "ms") / stat(next, "ms")).toFixed(2)}× the before build); peak renderer RSS ${mb(peak(old, "rss"))}`,
        );
      }
      const ground = find(group, "floor:");
      console.log(
        `- reported: ${group}: the floor ${fmt(stat(ground, "ms"))} ms: ${(stat(baseline, "ms") / stat(ground, "ms")).toFixed(2)}× the baseline`,
      );
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
