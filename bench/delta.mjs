#!/usr/bin/env node
// What does a refresh cost with ABD1 deltas (docs/ABD1.md)?
//
// The 1M-digest catalog at p = 0.001, sized with headroom for 1.2M digests
// (members SHA-256("member:i")), grown by 0.1 %, 1 % and 10 %:
//   1. the delta's bytes as a fraction of the full target snapshot, against
//      the information bound log2 C(Z, N) (N new bits among the base's Z zero
//      bits), and what other codings of the same positions would take (Rice
//      over bit positions, Elias–Fano, LEB128 varints), computed here from
//      the two bit arrays;
//   2. applySnapshotDelta(base, delta) against loadSnapshot(full target), in
//      this one process: median CPU time of RUNS after WARMUP, each result
//      freed, and their ratio (target: apply ≤ 2× the full load);
//   3. a client polling across ten 1 % versions: bytes transferred with full
//      snapshots, with one delta per version, and — 10 versions behind — a
//      chain of ten deltas against one composed delta (and apply times);
//   4. the same ten versions through HTTP: a real `serve` (127.0.0.1, port
//      0) and fetchSnapshot — the body bytes a client polling every version
//      receives with deltas (`base`) and without, as its `transfer` reports,
//      and what a client 10 versions behind gets from the server's history.
//
// Usage: node bench/delta.mjs [--http-only] [--pkg DIR]
//   (needs pkg/: node scripts/build.mjs; --pkg measures another build of the
//   package, e.g. an older commit's, with this same script)
// Prints markdown tables.
import { createHash, hash as oneShotHash } from "node:crypto";
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const pkgFlag = process.argv.indexOf("--pkg");
const PKG = pkgFlag === -1 ? new URL("../pkg/", import.meta.url) : pathToFileURL(`${resolve(process.argv[pkgFlag + 1] ?? "")}/`);
const ENTRY = new URL("node.mjs", PKG);
if (!existsSync(ENTRY)) {
  console.error(`bench/delta.mjs: no package at ${PKG.pathname}; run: node scripts/build.mjs`);
  process.exit(2);
}
const { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } = await import(ENTRY);
// Deltas, both sides and the delta-asking fetchSnapshot, are their own entry (their own wasm module).
const { applySnapshotDelta, composeSnapshotDeltas, encodeSnapshotDelta, fetchSnapshot, readSnapshotDeltaHeader } = await import(
  new URL("delta/index.mjs", PKG)
);
const { startServer } = await import(new URL("cli/serve/serve.mjs", PKG));
const HTTP_ONLY = process.argv.includes("--http-only");

const BASE_COUNT = 1_000_000;
const SPEC = { expectedItemCount: 1_200_000, targetFalsePositiveRate: 0.001 };
const GROWTHS = [0.001, 0.01, 0.1];
const POLL_VERSIONS = 10;
const POLL_GROWTH = 0.01;
const WARMUP = 3;
const RUNS = 15;

const sha =
  typeof oneShotHash === "function"
    ? (text) => oneShotHash("sha256", text, "buffer")
    : (text) => createHash("sha256").update(text).digest();
const maxCount = BASE_COUNT * (1 + Math.max(Math.max(...GROWTHS), POLL_VERSIONS * POLL_GROWTH));
const packed = new Uint8Array(maxCount * 32);
for (let i = 0; i < maxCount; i += 1) packed.set(sha(`member:${i}`), i * 32);

function must(result) {
  if (result.kind !== "success") throw new Error(`${result.error}: ${result.message}`);
  return result.value;
}

/** `{ catalogVersion, filter }` of the first `count` members. */
function snapshot(count, catalogVersion) {
  return { catalogVersion, filter: must(ArtifactBloomFilter.createPacked(packed.subarray(0, count * 32), SPEC)) };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Median CPU milliseconds (user + system, process.cpuUsage) of `fn`, which
 * frees what it makes. CPU time rather than wall time: the machine this runs
 * on is shared, and a descheduled run would otherwise count its wait.
 */
function time(fn) {
  for (let i = 0; i < WARMUP; i += 1) fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.cpuUsage();
    fn();
    const { user, system } = process.cpuUsage(start);
    times.push((user + system) / 1e3);
  }
  return median(times);
}

/**
 * `time` of two functions, interleaved run by run, so that a busy spell of
 * the shared machine weighs on both medians alike (their ratio is the figure).
 */
function timeBoth(first, second) {
  for (let i = 0; i < WARMUP; i += 1) {
    first();
    second();
  }
  const times = [[], []];
  for (let i = 0; i < RUNS; i += 1) {
    for (const [index, fn] of [first, second].entries()) {
      const start = process.cpuUsage();
      fn();
      const { user, system } = process.cpuUsage(start);
      times[index].push((user + system) / 1e3);
    }
  }
  return times.map(median);
}

/** ln(n!) (Stirling's series; exact sum for small n). */
function lnFactorial(n) {
  if (n < 20) {
    let sum = 0;
    for (let i = 2; i <= n; i += 1) sum += Math.log(i);
    return sum;
  }
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n ** 3);
}

const log2Choose = (z, n) => (lnFactorial(z) - lnFactorial(n) - lnFactorial(z - n)) / Math.LN2;

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, b) => {
  let count = 0;
  for (let x = b; x !== 0; x &= x - 1) count += 1;
  return count;
});

/** New bits of `target` over `base`: bit positions and zero-bit ranks of the base. */
function newBits(baseBits, targetBits) {
  const positions = [];
  const ranks = [];
  let zerosBefore = 0;
  for (let i = 0; i < baseBits.length; i += 1) {
    const b = baseBits[i];
    let added = targetBits[i] & ~b & 0xff;
    while (added !== 0) {
      const bit = 31 - Math.clz32(added & -added);
      positions.push(i * 8 + bit);
      ranks.push(zerosBefore + POPCOUNT[~b & ((1 << bit) - 1) & 0xff]);
      added &= added - 1;
    }
    zerosBefore += 8 - POPCOUNT[b];
  }
  return { positions, ranks, zeros: zerosBefore };
}

/** Stored gaps d_i = v_i − v_(i−1) − 1 (d_0 = v_0), as ABD1 stores ranks. */
function gapsOf(values) {
  return values.map((v, i) => (i === 0 ? v : v - values[i - 1] - 1));
}

/** Bits of the best Golomb–Rice code (k in 0..30) of `gaps`. */
function riceBits(gaps) {
  let best = Infinity;
  for (let k = 0; k <= 30; k += 1) {
    let bits = gaps.length * (k + 1);
    for (const d of gaps) bits += Math.floor(d / 2 ** k);
    best = Math.min(best, bits);
  }
  return best;
}

/** Bits of LEB128 varints (7 bits per byte) of `gaps`. */
function varintBits(gaps) {
  let bytes = 0;
  for (const d of gaps) bytes += d < 2 ** 7 ? 1 : d < 2 ** 14 ? 2 : d < 2 ** 21 ? 3 : d < 2 ** 28 ? 4 : 5;
  return bytes * 8;
}

/** Bits of an Elias–Fano list of `n` values below `universe`. */
function eliasFanoBits(n, universe) {
  const low = Math.max(0, Math.floor(Math.log2(universe / n)));
  return n * low + n + Math.ceil(universe / 2 ** low);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const pct = (part, whole) => `${((100 * part) / whole).toFixed(2)} %`;
const ms = (value) => `${value.toFixed(2)} ms`;

// --- 1 and 2: size and apply time per growth --------------------------------
const base = snapshot(BASE_COUNT, 1);
const fullBytes = encodeSnapshot(base.filter, { catalogVersion: 1 }).byteLength;
if (!HTTP_ONLY) {
  const baseBits = base.filter.serializeBits();
  const sizeRows = [];
  const codingRows = [];
  for (const growth of GROWTHS) {
    const target = snapshot(Math.round(BASE_COUNT * (1 + growth)), 2);
    const full = encodeSnapshot(target.filter, { catalogVersion: 2 });
    const encodeMs = time(() => must(encodeSnapshotDelta(base, target)));
    const delta = must(encodeSnapshotDelta(base, target));
    const header = must(readSnapshotDeltaHeader(delta, { verify: true }));
    const { positions, ranks, zeros } = newBits(baseBits, target.filter.serializeBits());
    if (positions.length !== header.positionCount || zeros !== target.filter.getBitCount() - header.baseSetBitCount) {
      throw new Error(
        `the bench disagrees with the delta header: ${positions.length} vs ${header.positionCount}, ${zeros} vs ${target.filter.getBitCount() - header.baseSetBitCount}`,
      );
    }
    const boundBytes = log2Choose(zeros, positions.length) / 8;
    const applied = must(applySnapshotDelta(base, delta));
    if (Buffer.compare(encodeSnapshot(applied.filter, { catalogVersion: 2 }), full) !== 0) throw new Error("apply ≠ target");
    applied.filter.free();
    const [applyMs, loadMs] = timeBoth(
      () => must(applySnapshotDelta(base, delta)).filter.free(),
      () => must(loadSnapshot(full)).filter.free(),
    );
    sizeRows.push(
      `| ${growth * 100} % | ${positions.length.toLocaleString("en")} | ${delta.byteLength.toLocaleString("en")} (${kb(delta.byteLength)}) | `
        + `${pct(delta.byteLength, full.byteLength)} | ${Math.round(boundBytes).toLocaleString("en")} | `
        + `${pct(header.bodyLength - boundBytes, boundBytes)} | k = ${header.riceParameter} | ${ms(applyMs)} | ${ms(loadMs)} | `
        + `${(applyMs / loadMs).toFixed(2)}× | ${ms(encodeMs)} |`,
    );
    const gapsOfPositions = gapsOf(positions);
    const cell = (bits) => `${Math.round(bits / 8).toLocaleString("en")} (${pct(bits / 8, full.byteLength)})`;
    codingRows.push(
      `| ${growth * 100} % | ${cell(boundBytes * 8)} | ${cell(header.bodyLength * 8)} | ${cell(riceBits(gapsOfPositions))} | `
        + `${cell(eliasFanoBits(positions.length, target.filter.getBitCount()))} | ${cell(varintBits(gapsOfPositions))} | ${cell(varintBits(gapsOf(ranks)))} |`,
    );
    target.filter.free();
  }

  console.log(
    `\n1M digests (member:i), p = 0.001 sized for ${SPEC.expectedItemCount.toLocaleString("en")} digests: bitCount ${base.filter.getBitCount().toLocaleString("en")}, hashCount ${base.filter.getHashCount()}, full snapshot ${fullBytes.toLocaleString("en")} bytes; node ${process.version}; times are medians of ${RUNS} runs after ${WARMUP} warm-up runs, CPU ms; package: ${PKG.pathname}\n`,
  );
  console.log(
    "| growth | new bits | delta bytes | of full | bound (bytes) | body above bound | Rice k | applySnapshotDelta | loadSnapshot (full target) | apply / full load | encodeSnapshotDelta |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of sizeRows) console.log(row);
  console.log("\nThe same positions in other codings (bytes of positions only, and of the full snapshot):\n");
  console.log(
    "| growth | information bound | Rice over zero-bit ranks (ABD1) | Rice over bit positions | Elias–Fano over bit positions | varint gaps of bit positions | varint gaps of ranks |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of codingRows) console.log(row);
}

// --- 3: polling across ten 1 % versions --------------------------------------
const step = Math.round(BASE_COUNT * POLL_GROWTH);
const versions = Array.from({ length: POLL_VERSIONS + 1 }, (_, i) => (i === 0 ? base : snapshot(BASE_COUNT + i * step, 1 + i)));
const fulls = versions.map((v) => encodeSnapshot(v.filter, { catalogVersion: v.catalogVersion }));
const steps = versions.slice(1).map((v, i) => must(encodeSnapshotDelta(versions[i], v)));
let composed = steps[0];
for (const next of steps.slice(1)) composed = must(composeSnapshotDeltas(composed, next));
const direct = must(encodeSnapshotDelta(versions[0], versions[POLL_VERSIONS]));
if (Buffer.compare(composed, direct) !== 0) throw new Error("composed ≠ direct delta");
const sum = (list) => list.reduce((total, bytes) => total + bytes.byteLength, 0);
const allFull = sum(fulls.slice(1));
if (!HTTP_ONLY) {
  const chainMs = time(() => {
    let current = versions[0];
    for (const delta of steps) {
      const next = must(applySnapshotDelta(current, delta));
      if (current !== versions[0]) current.filter.free();
      current = next;
    }
    if (Buffer.compare(encodeSnapshot(current.filter, { catalogVersion: current.catalogVersion }), fulls[POLL_VERSIONS]) !== 0) {
      throw new Error("chain ≠ target");
    }
    current.filter.free();
  });
  const composedMs = time(() => must(applySnapshotDelta(versions[0], composed)).filter.free());
  const fullLoadMs = time(() => must(loadSnapshot(fulls[POLL_VERSIONS])).filter.free());
  console.log(
    `\nA client polling across ${POLL_VERSIONS} versions of +${POLL_GROWTH * 100} % (${step.toLocaleString("en")} digests) each, from v1 (1M) to v${POLL_VERSIONS + 1}:\n`,
  );
  console.log("| client | transfers | bytes | of all-full | apply / load time |");
  console.log("|---|---|---:|---:|---:|");
  console.log(
    `| polls every version, no deltas | ${POLL_VERSIONS} full snapshots | ${allFull.toLocaleString("en")} | 100 % | ${POLL_VERSIONS} × ${ms(fullLoadMs)} |`,
  );
  console.log(
    `| polls every version, deltas | ${POLL_VERSIONS} one-step deltas | ${sum(steps).toLocaleString("en")} | ${pct(sum(steps), allFull)} | ${POLL_VERSIONS} × ~${ms(chainMs / POLL_VERSIONS)} |`,
  );
  console.log(
    `| ${POLL_VERSIONS} versions behind, full | 1 full snapshot | ${fulls[POLL_VERSIONS].byteLength.toLocaleString("en")} | ${pct(fulls[POLL_VERSIONS].byteLength, allFull)} | ${ms(fullLoadMs)} |`,
  );
  console.log(
    `| ${POLL_VERSIONS} versions behind, chain | ${POLL_VERSIONS} deltas | ${sum(steps).toLocaleString("en")} | ${pct(sum(steps), allFull)} | ${ms(chainMs)} |`,
  );
  console.log(
    `| ${POLL_VERSIONS} versions behind, composed | 1 composed delta | ${composed.byteLength.toLocaleString("en")} | ${pct(composed.byteLength, allFull)} | ${ms(composedMs)} |`,
  );
}

// --- 4: the same versions through serve + fetchSnapshot ---------------------
const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-bench-delta-"));
const snapshotPath = join(dir, "catalog.abf1");
const publishVersion = (index) => {
  writeFileSync(`${snapshotPath}.tmp`, fulls[index]);
  renameSync(`${snapshotPath}.tmp`, snapshotPath); // a new inode: serve re-reads it on the next request
};
writeFileSync(join(dir, "catalog.txt"), "");
publishVersion(0);
// History of POLL_VERSIONS (the default is 8) so the client 10 versions behind is still served a delta.
const server = await startServer({
  snapshot: snapshotPath,
  catalog: join(dir, "catalog.txt"),
  catalogVersion: 1,
  port: 0,
  deltaHistory: POLL_VERSIONS,
});
const url = `${server.url}snapshot`;
try {
  const first = await fetchSnapshot(url);
  must(first);
  const clients = { delta: { current: first, bytes: 0, deltas: 0 }, full: { current: first, bytes: 0, deltas: 0 } };
  const behind = must(await fetchSnapshot(url)); // the snapshot of a client that sleeps through every version
  for (let index = 1; index <= POLL_VERSIONS; index += 1) {
    publishVersion(index);
    for (const [name, client] of Object.entries(clients)) {
      const options =
        name === "delta" ? { base: client.current.value, etag: client.current.value.etag } : { etag: client.current.value.etag };
      const result = await fetchSnapshot(url, options);
      if (result.kind !== "success") throw new Error(`${name} poll ${index}: ${result.error}: ${result.message}`);
      if (result.value.header.checksum !== must(loadSnapshot(fulls[index])).header.checksum) throw new Error("wrong snapshot");
      client.bytes += result.transfer.bytes;
      client.deltas += result.transfer.delta ? 1 : 0;
      if (client.current !== first) client.current.value.filter.free();
      client.current = result;
    }
  }
  const late = await fetchSnapshot(url, { base: behind });
  const latest = must(late);
  const history = server.stats.deltas.historyLimit;
  console.log(
    `\nThrough HTTP: \`serve\` (delta history ${history}) and fetchSnapshot, body bytes as \`transfer\` reports them, ${POLL_VERSIONS} versions of +${POLL_GROWTH * 100} %:\n`,
  );
  console.log("| client | requests answered | bytes received | of no-delta polling |");
  console.log("|---|---|---:|---:|");
  const { delta, full } = clients;
  console.log(
    `| polls every version, no \`base\` | ${POLL_VERSIONS} × 200 (full) | ${full.bytes.toLocaleString("en")} | 100 % |`,
  );
  console.log(
    `| polls every version, \`base\` | ${delta.deltas} × 226 (delta), ${POLL_VERSIONS - delta.deltas} × 200 | ${delta.bytes.toLocaleString("en")} | ${pct(delta.bytes, full.bytes)} |`,
  );
  console.log(
    `| ${POLL_VERSIONS} versions behind, \`base\` | 1 × ${late.transfer.delta ? "226 (composed delta)" : "200 (full: beyond the history)"} | ${late.transfer.bytes.toLocaleString("en")} | ${pct(late.transfer.bytes, full.bytes)} |`,
  );
  latest.filter.free();
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
for (const v of versions) v.filter.free();
