#!/usr/bin/env node
// Measures every number in docs/tradeoffs.md (issue 7 item 6). Not a test.
//
//   node scripts/build.mjs && node bench/tradeoffs.mjs [--quick]
//
// Prints markdown to stdout (progress to stderr):
//   1. the overfill degradation curve — the model (1 − e^(−kx/m))^k and the
//      measured FPR when x = 0.5n … 3n items go into a filter designed for n;
//   2. bytes/item, FPR and throughput at n = 10K / 100K / 1M for the
//      package's filters and a JavaScript Set (the hash-set baseline);
//   3. literature space formulas for the structures the package does not ship
//      (counting, cuckoo, xor, binary fuse), clearly marked as formulas.
//
// Method. Items are 32-byte SHA-256 digests (`member:i`); non-members are
// digests of `probe:i`, disjoint from members, so every non-member "maybe" is
// a false positive. Overfill is measured on TlBloom and MergeableBloomFilter,
// which accept more than their design n (the rate degrades). The package's
// ArtifactBloomFilter refuses more digests than expectedItemCount
// (capacityExceeded) — by design it has no overfill curve — so it appears
// only at x ≤ n, where it must sit on the same model, and its refusal at
// x > n is shown. Timings: each repetition builds a fresh filter, then times
// member and non-member queries; medians over repetitions, after a forced GC
// and a discarded warm-up round of every contender.
// The machine is a shared VM: the load average is printed with the results.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(root, "pkg", "node.mjs"))) {
  process.stderr.write("pkg/ is missing: run node scripts/build.mjs first\n");
  process.exit(1);
}
const { ArtifactBloomFilter } = await import("../pkg/node.mjs");
const { MergeableBloomFilter, ScalableBloomFilter, TlBloom, alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } =
  await import("../pkg/variants/index.mjs");

const quick = process.argv.includes("--quick");
const NON_MEMBERS = quick ? 200_000 : 1_000_000;
const SCALES = [10_000, 100_000, 1_000_000];
const REPS = quick ? { 10000: 3, 100000: 1, 1000000: 1 } : { 10000: 15, 100000: 5, 1000000: 3 };
const RATES = quick ? [0.01] : [0.01, 0.001];
const CURVE_N = 100_000;
const CURVE_FRACTIONS = [0.5, 1, 1.25, 1.5, 2, 3];

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const log = (message) => process.stderr.write(`${message}\n`);
let sink = 0;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function timeNs(fn) {
  const started = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - started);
}

/** `count` digests of `prefix:i` as one packed buffer and a list of 32-byte views. */
function corpus(prefix, count) {
  const packed = new Uint8Array(count * 32);
  for (let i = 0; i < count; i += 1) packed.set(createHash("sha256").update(`${prefix}:${i}`).digest(), i * 32);
  const list = Array.from({ length: count }, (_, i) => packed.subarray(i * 32, i * 32 + 32));
  return { packed, list };
}

const fmt = (x, digits = 3) => {
  if (x === undefined || Number.isNaN(x)) return "—";
  if (typeof x === "string") return x;
  const abs = Math.abs(x);
  if (abs === 0) return "0";
  if (abs >= 100) return x.toFixed(0);
  if (abs >= 10) return x.toFixed(1);
  if (abs >= 1) return x.toFixed(2);
  return x.toPrecision(digits);
};
const pct = (x) => (x === undefined ? "—" : `${(x * 100).toPrecision(3)} %`);
const table = (header, rows) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
const short = (n) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}K` : String(n));

function countMaybes(answer, items) {
  let maybes = 0;
  for (const item of items) if (answer(item)) maybes += 1;
  return maybes;
}

// ---- environment -------------------------------------------------------------

const loadAtStart = os.loadavg()[0];
let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" }).trim() !== "";
  if (dirty) commit += " (+ uncommitted changes)";
} catch {
  // not a checkout
}

log(`corpus: ${short(SCALES.at(-1))} members, ${short(NON_MEMBERS)} non-members …`);
const members = corpus("member", Math.max(SCALES.at(-1), 3 * CURVE_N));
const strangers = corpus("probe", NON_MEMBERS);

const out = [];
out.push("# artifact-bloom: trade-off measurements");
out.push("");
out.push(`Command: \`node bench/tradeoffs.mjs${quick ? " --quick" : ""}\` · ${new Date().toISOString()} · commit ${commit}`);
out.push(
  `Node ${process.version} · ${os.cpus()[0]?.model ?? "unknown CPU"} × ${os.cpus().length} · load average at start ${loadAtStart.toFixed(2)}`,
);
out.push(
  `Items: 32-byte SHA-256 digests of \`member:i\`; non-members: ${NON_MEMBERS.toLocaleString("en")} digests of \`probe:i\`.`,
);
out.push("");

// ---- 1. overfill degradation -------------------------------------------------------

for (const p of RATES) {
  const n = CURVE_N;
  const tl = TlBloom.withRate(n, p);
  const mg = MergeableBloomFilter.create(n, p);
  const sc = new ScalableBloomFilter({ initialCapacity: n, targetFalsePositiveRate: p });
  const { m, k } = optimalParams(n, p);
  const alert = alertFillRatio(p, k);
  // x at which the expected fill reaches the alert line: 1 − e^(−kx/m) = alert.
  const xAlert = (-m / k) * Math.log1p(-alert);
  log(`overfill curve n = ${n}, p = ${p} …`);
  const rows = [];
  let inserted = 0;
  for (const fraction of CURVE_FRACTIONS) {
    const x = Math.round(fraction * n);
    for (; inserted < x; inserted += 1) {
      const item = members.list[inserted];
      tl.insert(item);
      mg.add(item);
      sc.add(item);
    }
    const model = fppFromFillRatio(expectedFillRatio(x, m, k), k);
    const tlFpr = countMaybes((d) => tl.contains(d), strangers.list) / NON_MEMBERS;
    const mgFpr = countMaybes((d) => mg.mightContain(d), strangers.list) / NON_MEMBERS;
    const scFpr = countMaybes((d) => sc.mightContain(d), strangers.list) / NON_MEMBERS;
    let abf = "refused: capacityExceeded";
    const built = ArtifactBloomFilter.createPacked(members.packed.subarray(0, x * 32), {
      expectedItemCount: n,
      targetFalsePositiveRate: p,
    });
    if (built.kind === "success") {
      abf = pct(built.value.countMaybe(strangers.packed) / NON_MEMBERS);
      built.value.free();
    } else if (built.error !== "capacityExceeded") {
      abf = built.error;
    }
    rows.push([
      `${fraction} n (${x.toLocaleString("en")})`,
      fmt(tl.fillRatio, 4),
      pct(model),
      pct(fppFromFillRatio(tl.fillRatio, k)),
      pct(tlFpr),
      pct(mgFpr),
      abf,
      `${pct(scFpr)} (${sc.stageCount} st., ${fmt(sc.bitCount / 8 / x, 3)} B/item)`,
    ]);
  }
  out.push(`## Overfill: a filter designed for n = ${n.toLocaleString("en")}, p = ${p} (m = ${m}, k = ${k})`);
  out.push("");
  out.push(
    `Alert fill ratio (2p)^(1/k) = ${fmt(alert, 4)}, reached in the model at x = ${Math.round(xAlert).toLocaleString("en")} (${fmt(xAlert / n, 3)} n).`,
  );
  out.push("");
  out.push(
    table(
      [
        "inserted x",
        "TLBF fill",
        "model (1−e^(−kx/m))^k",
        "fill^k (TLBF)",
        "TlBloom measured",
        "Mergeable measured",
        "ArtifactBloomFilter measured",
        "Scalable (c0 = n) measured",
      ],
      rows,
    ),
  );
  out.push("");
  tl.free();
  mg.free();
  sc.free();
}

// ---- 2. bytes/item, FPR, throughput -------------------------------------------------

/**
 * Contenders: build(n, p) → { size bytes, query(d) }, timed per item.
 * `size` is what the structure costs to keep: serialized bytes for filters,
 * measured heap bytes for the Set.
 */
const CONTENDERS = [
  {
    name: "TlBloom (TLBF)",
    build(n, p) {
      const filter = TlBloom.withRate(n, p);
      const ns = timeNs(() => {
        for (let i = 0; i < n; i += 1) filter.insert(members.list[i]);
      });
      return { ns, bytes: filter.toBytes().length, query: (d) => filter.contains(d), free: () => filter.free() };
    },
  },
  {
    name: "MergeableBloomFilter",
    build(n, p) {
      const filter = MergeableBloomFilter.create(n, p);
      const ns = timeNs(() => {
        for (let i = 0; i < n; i += 1) filter.add(members.list[i]);
      });
      return { ns, bytes: filter.encode().length, query: (d) => filter.mightContain(d), free: () => filter.free() };
    },
  },
  {
    name: "ScalableBloomFilter, c0 = n",
    build(n, p) {
      const filter = new ScalableBloomFilter({ initialCapacity: n, targetFalsePositiveRate: p });
      const ns = timeNs(() => {
        for (let i = 0; i < n; i += 1) filter.add(members.list[i]);
      });
      return {
        ns,
        bytes: filter.encode().length,
        query: (d) => filter.mightContain(d),
        free: () => filter.free(),
        note: `${filter.stageCount} st.`,
      };
    },
  },
  {
    name: "ScalableBloomFilter, c0 = n/16",
    build(n, p) {
      const filter = new ScalableBloomFilter({ initialCapacity: n / 16, targetFalsePositiveRate: p });
      const ns = timeNs(() => {
        for (let i = 0; i < n; i += 1) filter.add(members.list[i]);
      });
      return {
        ns,
        bytes: filter.encode().length,
        query: (d) => filter.mightContain(d),
        free: () => filter.free(),
        note: `${filter.stageCount} st.`,
      };
    },
  },
  {
    name: "ArtifactBloomFilter (createPacked, mightContain)",
    build(n, p) {
      let result;
      const ns = timeNs(() => {
        result = ArtifactBloomFilter.createPacked(members.packed.subarray(0, n * 32), {
          expectedItemCount: n,
          targetFalsePositiveRate: p,
        });
      });
      if (result.kind === "failure") throw new Error(result.error);
      const filter = result.value;
      // ABF1 snapshot = 96-byte header + the bit array.
      return { ns, bytes: 96 + filter.getBitCount() / 8, query: (d) => filter.mightContain(d), free: () => filter.free() };
    },
  },
  {
    name: "JS Set of hex digests (exact)",
    build(n) {
      gc();
      const before = process.memoryUsage().heapUsed;
      const set = new Set();
      const ns = timeNs(() => {
        for (let i = 0; i < n; i += 1)
          set.add(Buffer.from(members.list[i].buffer, members.list[i].byteOffset, 32).toString("hex"));
      });
      gc();
      const bytes = process.memoryUsage().heapUsed - before;
      return {
        ns,
        bytes,
        query: (d) => set.has(Buffer.from(d.buffer, d.byteOffset, 32).toString("hex")),
        free: () => set.clear(),
        note: "heap",
      };
    },
    exact: true,
  },
];

/** One repetition: a fresh build, then member and non-member queries (ns per item), each after a forced GC. */
function measure(contender, n, p, nonMembers) {
  // Builds too cover at least 200,000 items (20 fresh filters at n = 10K): a
  // 10K build lasts a few ms, the scale of one scheduler slice on a shared VM.
  gc();
  const buildPasses = Math.ceil(200_000 / n);
  let buildNs = 0;
  let built;
  for (let pass = 0; pass < buildPasses; pass += 1) {
    built?.free();
    built = contender.build(n, p);
    buildNs += built.ns;
  }
  // At least 200,000 member queries (the first min(n, 200K) members, cycled),
  // so a one-off pause is amortized at small n too.
  const memberCount = Math.min(n, 200_000);
  const passes = Math.ceil(200_000 / memberCount);
  gc();
  const member =
    timeNs(() => {
      for (let pass = 0; pass < passes; pass += 1) {
        for (let i = 0; i < memberCount; i += 1)
          if (!built.query(members.list[i])) throw new Error(`${contender.name}: false negative`);
      }
    })
    / (memberCount * passes);
  let maybes = 0;
  gc();
  const stranger =
    timeNs(() => {
      maybes = countMaybes(built.query, nonMembers);
    }) / nonMembers.length;
  built.free();
  sink += maybes;
  return {
    build: buildNs / (n * buildPasses),
    member,
    stranger,
    bytes: built.bytes,
    note: built.note,
    fpr: maybes / nonMembers.length,
  };
}

// Warm-up (discarded): the very functions that are timed run first, so every
// contender is measured with optimized code, not while V8 is still tiering up.
log("warm-up …");
const warmStrangers = strangers.list.slice(0, 20_000);
for (let round = 0; round < 5; round += 1) {
  for (const contender of CONTENDERS) measure(contender, 10_000, 0.01, warmStrangers);
}

for (const p of RATES) {
  const rows = [];
  for (const n of SCALES) {
    const { m } = optimalParams(n, p);
    for (const contender of CONTENDERS) {
      log(`scale n = ${n}, p = ${p}: ${contender.name} …`);
      const runs = Array.from({ length: REPS[n] }, () => measure(contender, n, p, strangers.list));
      const { bytes, note, fpr } = runs.at(-1);
      const build = median(runs.map((r) => r.build));
      rows.push([
        `${short(n)} · ${contender.name}`,
        fmt(bytes / n, 3) + (note ? ` (${note})` : ""),
        contender.exact ? "0 (exact)" : pct(fpr),
        fmt(build, 3),
        fmt(1e3 / build, 3),
        fmt(median(runs.map((r) => r.member)), 3),
        fmt(median(runs.map((r) => r.stranger)), 3),
      ]);
    }
    rows.push([`${short(n)} · optimum m/8n = 1.44·log2(1/p)/8`, fmt(m / 8 / n, 3), pct(p), "", "", "", ""]);
  }
  out.push(`## Bytes/item, FPR and throughput at p = ${p}`);
  out.push("");
  out.push(
    table(
      [
        "n · structure",
        "bytes/item",
        "FPR (measured)",
        "add ns/item",
        "add M items/s",
        "query ns (member)",
        "query ns (non-member)",
      ],
      rows,
    ),
  );
  out.push("");
}

// ---- 3. formulas for structures the package does not ship ---------------------------

const log2 = Math.log2;
const formulaRows = [0.01, 0.001, 0.0001].map((p) => [
  String(p),
  fmt(1.44 * log2(1 / p), 3),
  fmt(4 * 1.44 * log2(1 / p), 3),
  fmt((log2(1 / p) + 3) / 0.955, 3),
  fmt(1.23 * log2(1 / p), 3),
  fmt(1.125 * log2(1 / p), 3),
  fmt(log2(1 / p), 3),
]);
out.push("## Bits/item by formula (literature; not measured here)");
out.push("");
out.push(
  table(
    [
      "p",
      "Bloom 1.44·log2(1/p)",
      "counting Bloom (4-bit) ×4",
      "cuckoo b=4, α=95 %: (log2(1/p)+3)/α",
      "xor 1.23·log2(1/p)",
      "binary fuse (3-wise) 1.125·log2(1/p)",
      "lower bound log2(1/p)",
    ],
    formulaRows,
  ),
);
out.push("");
out.push(`Load average at end ${os.loadavg()[0].toFixed(2)}. (sink ${sink})`);

process.stdout.write(`${out.join("\n")}\n`);
