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
import { fileURLToPath, pathToFileURL } from "node:url";

const ENTRY = new URL("../pkg/node.mjs", import.meta.url);
if (!existsSync(ENTRY)) {
  console.error("bench/snapshot-load.mjs: pkg/ is not built; run: node scripts/build.mjs");
  process.exit(2);
}
const HUGE = new URL("../../shared/vectors/abf1/huge-bitcount.abf1", import.meta.url);
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
const sha = typeof oneShotHash === "function"
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

/** Runs a tiny ES module in a fresh node; returns its JSON line. */
function child(path, mode) {
  const script = `
    import { readFileSync } from "node:fs";
    import { loadSnapshot, loadSnapshotStream, wasmMemoryBytes } from ${JSON.stringify(ENTRY.href)};
    const bytes = new Uint8Array(readFileSync(${JSON.stringify(path)}));
    let kind = "not loaded", error;
    if (${JSON.stringify(mode)} === "load") {
      const r = loadSnapshot(bytes); kind = r.kind; error = r.error;
    } else if (${JSON.stringify(mode)} === "stream") {
      async function* c() { for (let o = 0; o < bytes.length; o += 65536) yield bytes.subarray(o, o + 65536); }
      const r = await loadSnapshotStream(c()); kind = r.kind; error = r.error;
    }
    console.log(JSON.stringify({ kind, error, maxRssKiB: process.resourceUsage().maxRSS, wasm: wasmMemoryBytes() }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1));
}

// Each child is run 3 times; the median of maxRSS damps allocator noise.
function rss(path, mode) {
  const runs = [child(path, mode), child(path, mode), child(path, mode)];
  return { ...runs[0], maxRssKiB: median(runs.map((r) => r.maxRssKiB)) };
}

const hugePath = fileURLToPath(HUGE);
const rssBaseline = rss(bigPath, "none");
const rssLoad = rss(bigPath, "load");
const rssStream = rss(bigPath, "stream");
const rssHuge = existsSync(hugePath) ? rss(hugePath, "load") : undefined;
const rssHugeStream = existsSync(hugePath) ? rss(hugePath, "stream") : undefined;
rmSync(dir, { recursive: true, force: true });

// --- report ----------------------------------------------------------------
const ms = (t) => `${t.median.toFixed(3)} ms (min ${t.min.toFixed(3)}, max ${t.max.toFixed(3)})`;
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
const delta = (r) => `${mib(r.maxRssKiB)} (+${((r.maxRssKiB - rssBaseline.maxRssKiB) / 1024).toFixed(1)} MiB over import+read), wasm memory ${(r.wasm / 2 ** 20).toFixed(1)} MiB, result: ${r.kind}${r.error ? ` ${r.error}` : ""}`;

const rows = [
  ["snapshot", `1,000,000 digests, p = 0.001: bitCount 14,377,664, k = 10, ${bytes.byteLength.toLocaleString("en-US")} bytes`],
  [`loadSnapshot(bytes), median of ${RUNS} after ${WARMUP} warm-up`, ms(load)],
  ["loadSnapshotStream, 64 KiB chunks", ms(stream)],
  ["floor: SHA-256 (node:crypto) + bytes.slice()", ms(floor)],
  ["ratio loadSnapshot / floor", (load.median / floor.median).toFixed(2)],
  ["ratio loadSnapshotStream / floor", (stream.median / floor.median).toFixed(2)],
  ["peak RSS, child: import + read file, no load", `${mib(rssBaseline.maxRssKiB)}, wasm memory ${(rssBaseline.wasm / 2 ** 20).toFixed(1)} MiB`],
  ["peak RSS, child: loadSnapshot(1M snapshot)", delta(rssLoad)],
  ["peak RSS, child: loadSnapshotStream(1M snapshot)", delta(rssStream)],
];
if (rssHuge) {
  rows.push(["peak RSS, child: loadSnapshot(huge-bitcount.abf1, declares 2^40 bits)", delta(rssHuge)]);
  rows.push(["peak RSS, child: loadSnapshotStream(huge-bitcount.abf1)", delta(rssHugeStream)]);
}

console.log(`Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log("| measurement | value |\n|---|---|");
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
if (rssHuge && (rssHuge.kind !== "failure" || rssHuge.error !== "invalidHeader")) {
  console.error("\nhuge-bitcount.abf1 did not fail as invalidHeader");
  process.exitCode = 1;
}
if (sink === 0.5) console.log(sink); // keeps the floor's work observable
