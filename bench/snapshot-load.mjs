#!/usr/bin/env node
// How fast and how lean is loading an ABF1 snapshot?
//
// For the published 1M-digest, p = 0.001 snapshot (bitCount 14,377,664,
// k = 10, 1,797,304 bytes) this measures:
//   - loadSnapshot(bytes): median of RUNS after WARMUP runs;
//   - loadSnapshotStream over 64 KiB chunks: same;
//   - the floor any loader pays: SHA-256 of the bytes (node:crypto, the
//     checksum) plus one copy (bytes.slice(), into the filter) — and the ratio
//     load / floor;
//   - peak RSS (process.resourceUsage().maxRSS) of a fresh child process that
//     only loads the snapshot, next to a child that imports the package and
//     reads the file without loading it (the difference is the load's own
//     cost), and a child that loads huge-bitcount.abf1 (declares 2^40 bits):
//     that must fail as invalidHeader without any large allocation.
//
// Usage: node bench/snapshot-load.mjs   (needs pkg/: node scripts/build.mjs)
// Prints a markdown table.
import { execFileSync } from "node:child_process";
import { createHash, hash as oneShotHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ENTRY = new URL("../pkg/node.mjs", import.meta.url);
if (!existsSync(ENTRY)) {
  console.error("bench/snapshot-load.mjs: pkg/ is not built; run: node scripts/build.mjs");
  process.exit(2);
}
const HUGE = new URL("../../shared/vectors/abf1/huge-bitcount.abf1", import.meta.url);
// A valid 104-byte snapshot: the control for the fixed cost of each code path.
const SMALL = new URL("../../shared/vectors/abf1/small-v42.abf1", import.meta.url);
const { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, loadSnapshotStream } = await import(ENTRY);

const COUNT = 1_000_000;
const WARMUP = 5;
const RUNS = 25;
const CHUNK = 64 * 1024;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timeIt(fn) {
  for (let i = 0; i < WARMUP; i += 1) await fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

// --- the 1M snapshot (same digests as js-tests/snapshot.test.mjs) ---------
const sha =
  typeof oneShotHash === "function"
    ? (text) => oneShotHash("sha256", text, "buffer")
    : (text) => createHash("sha256").update(text).digest();
const packed = new Uint8Array(COUNT * 32);
for (let i = 0; i < COUNT; i += 1) packed.set(sha(`big:${i}`), i * 32);
const built = ArtifactBloomFilter.createPacked(packed, { expectedItemCount: COUNT, targetFalsePositiveRate: 0.001 });
if (built.kind === "failure") throw new Error(built.error);
const bytes = encodeSnapshot(built.value, { catalogVersion: 1 });
built.value.free();

function mustSucceed(result) {
  if (result.kind !== "success") throw new Error(`load failed: ${result.error}: ${result.message}`);
  result.value.filter.free();
}

async function* chunks() {
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK) yield bytes.subarray(offset, offset + CHUNK);
}

const load = await timeIt(() => mustSucceed(loadSnapshot(bytes)));
const stream = await timeIt(async () => mustSucceed(await loadSnapshotStream(chunks())));
let sink = 0;
const floor = await timeIt(() => {
  const digest = createHash("sha256").update(bytes).digest();
  const copy = bytes.slice();
  sink ^= digest[0] ^ copy[copy.length - 1];
});

// --- peak RSS of fresh processes ------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-bench-"));
const bigPath = join(dir, "big-v1.abf1");
writeFileSync(bigPath, bytes);

/**
 * Runs a tiny ES module in a fresh node; returns its JSON line. Besides the
 * peak (maxRSS, which the package import alone — wasm compile and tier-up —
 * can set), it reports how much RSS grew across the load call itself.
 */
function child(path, mode) {
  const script = `
    import { readFileSync } from "node:fs";
    import { loadSnapshot, loadSnapshotStream, wasmMemoryBytes } from ${JSON.stringify(ENTRY.href)};
    const bytes = new Uint8Array(readFileSync(${JSON.stringify(path)}));
    let kind = "not loaded", error;
    const rssBefore = process.memoryUsage.rss();
    if (${JSON.stringify(mode)} === "load") {
      const r = loadSnapshot(bytes); kind = r.kind; error = r.error;
    } else if (${JSON.stringify(mode)} === "stream") {
      async function* c() { for (let o = 0; o < bytes.length; o += 65536) yield bytes.subarray(o, o + 65536); }
      const r = await loadSnapshotStream(c()); kind = r.kind; error = r.error;
    }
    const rssGrowth = process.memoryUsage.rss() - rssBefore;
    console.log(JSON.stringify({ kind, error, maxRssKiB: process.resourceUsage().maxRSS, rssGrowth, wasm: wasmMemoryBytes() }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1));
}

// Each child runs 3 times; medians damp allocator and tier-up noise.
function rss(path, mode) {
  const runs = [child(path, mode), child(path, mode), child(path, mode)];
  return { ...runs[0], maxRssKiB: median(runs.map((r) => r.maxRssKiB)), rssGrowth: median(runs.map((r) => r.rssGrowth)) };
}

const hugePath = fileURLToPath(HUGE);
const children = [
  ["import + read the 1M file, no load", rss(bigPath, "none")],
  ["loadSnapshot(1M snapshot)", rss(bigPath, "load")],
  ["loadSnapshotStream(1M snapshot, 64 KiB chunks)", rss(bigPath, "stream")],
];
const controls = {};
if (existsSync(hugePath)) {
  const smallPath = fileURLToPath(SMALL);
  controls.load = rss(smallPath, "load");
  controls.stream = rss(smallPath, "stream");
  children.push(["control: loadSnapshot(small-v42.abf1, 104 bytes)", controls.load]);
  children.push(["control: loadSnapshotStream(small-v42.abf1)", controls.stream]);
  children.push(["loadSnapshot(huge-bitcount.abf1: declares 2^40 bits)", rss(hugePath, "load")]);
  children.push(["loadSnapshotStream(huge-bitcount.abf1)", rss(hugePath, "stream")]);
}
rmSync(dir, { recursive: true, force: true });

// --- report ----------------------------------------------------------------
const ms = (t) => `${t.median.toFixed(3)} ms (min ${t.min.toFixed(3)}, max ${t.max.toFixed(3)})`;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

const rows = [
  ["snapshot", `1,000,000 digests, p = 0.001: bitCount 14,377,664, k = 10, ${bytes.byteLength.toLocaleString("en-US")} bytes`],
  [`loadSnapshot(bytes), median of ${RUNS} after ${WARMUP} warm-up`, ms(load)],
  ["loadSnapshotStream, 64 KiB chunks", ms(stream)],
  ["floor: SHA-256 (node:crypto) + bytes.slice()", ms(floor)],
  ["ratio loadSnapshot / floor", (load.median / floor.median).toFixed(2)],
  ["ratio loadSnapshotStream / floor", (stream.median / floor.median).toFixed(2)],
];
console.log(`Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log("| measurement | value |\n|---|---|");
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);

console.log("\nFresh child processes (median of 3 runs each):\n");
console.log("| child | result | peak RSS (maxRSS) | RSS growth across the load | wasm memory after |\n|---|---|---|---|---|");
for (const [name, r] of children) {
  const result = r.error ? `${r.kind} ${r.error}` : r.kind;
  console.log(`| ${name} | ${result} | ${mib(r.maxRssKiB * 1024)} | ${mib(r.rssGrowth)} | ${mib(r.wasm)} |`);
}

console.log(
  "\nRSS growth includes each code path's fixed cost (V8 finishing wasm tier-up and"
    + " compiling the async path during the awaits), hence the 104-byte controls.",
);
for (const [name, r] of children.filter(([label]) => label.includes("huge"))) {
  // "No large allocation": the failed load grows RSS at most 4 MiB more than
  // loading the valid 104-byte file the same way (the whole 1M snapshot is
  // 1.7 MiB), and the wasm memory stays at the baseline (no reservation).
  const control = name.startsWith("loadSnapshotStream") ? controls.stream : controls.load;
  const ok =
    r.kind === "failure"
    && r.error === "invalidHeader"
    && r.rssGrowth <= control.rssGrowth + 4 * 2 ** 20
    && r.wasm <= children[0][1].wasm;
  console.log(
    `${ok ? "ok  " : "FAIL"} ${name}: ${r.error}, RSS growth ${mib(r.rssGrowth)} vs control ${mib(control.rssGrowth)}, wasm ${mib(r.wasm)}`,
  );
  if (!ok) process.exitCode = 1;
}
if (sink === 0.5) console.log(sink); // keeps the floor's work observable
