#!/usr/bin/env node
// Steady-state figures at n = 1M, p = 0.001: the fastest of many short
// windows, for the package's paths and for the native core, alternated over
// a few rounds. On a shared machine these move far less than run.mjs's
// medians (which stay the benchmark of record); use them to compare builds:
//
//   node bench/steady-state.mjs [--rounds 3] [PKG_DIR ...]   (default: pkg/)
//
// Each package directory (a built pkg/, e.g. a copy of the previous
// commit's) is measured in its own child process per round, with the
// benchmark's workload: 200K queries, half members, half not, each its own
// Uint8Array. Native: examples/native_bench.rs --windows (same windows).
// Not a test.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as contenders from "./contenders.mjs";

const N = 1_000_000;
const QUERIES = 200_000;
const WINDOW = 5000;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** One child's measurement of the package in `dir`: fastest windows, as JSON on stdout. */
async function measure(dir) {
  const api = await import(pathToFileURL(join(dir, "node.mjs")).href);
  const sha = (text) => createHash("sha256").update(text).digest();
  const packed = new Uint8Array(N * 32);
  for (let i = 0; i < N; i += 1) packed.set(sha(`member:${i}`), i * 32);
  const members = Array.from({ length: N }, (_, i) => packed.slice(i * 32, i * 32 + 32));
  const strangers = Array.from({ length: QUERIES / 2 }, (_, i) => new Uint8Array(sha(`probe:${i}`)));
  const queries = Array.from({ length: QUERIES }, (_, j) => (j % 2 ? strangers[j >> 1] : members[(j >> 1) % N]));
  const batch = new Uint8Array(QUERIES * 32);
  queries.forEach((d, i) => {
    batch.set(d, i * 32);
  });
  const spec = { expectedItemCount: N, targetFalsePositiveRate: 0.001 };
  const filter = api.ArtifactBloomFilter.createPacked(packed, spec).value;
  let sink = 0;
  /** Fastest of `rounds` × windows of `loop(start)`, per item. */
  const fastest = (rounds, perCall, loop) => {
    let best = Infinity;
    for (let round = 0; round < rounds + 2; round += 1) {
      for (let start = 0; start < QUERIES; start += perCall) {
        const began = process.hrtime.bigint();
        sink += loop(start);
        if (round >= 2) best = Math.min(best, Number(process.hrtime.bigint() - began));
      }
    }
    return best;
  };
  const out = {
    single:
      fastest(20, WINDOW, (s) => {
        let c = 0;
        for (let i = s; i < s + WINDOW; i += 1) if (filter.mightContain(queries[i])) c += 1;
        return c;
      }) / WINDOW,
    countWindow: fastest(20, WINDOW, (s) => filter.countMaybe(batch.subarray(s * 32, (s + WINDOW) * 32))) / WINDOW,
    many: fastest(20, QUERIES, () => filter.mightContainMany(batch)[0]) / QUERIES,
    createPackedMs:
      fastest(8, QUERIES, () => {
        const f = api.ArtifactBloomFilter.createPacked(packed, spec).value;
        f.free();
        return 1;
      }) / 1e6,
    createMs:
      fastest(8, QUERIES, () => {
        const f = api.ArtifactBloomFilter.create(members, spec).value;
        f.free();
        return 1;
      }) / 1e6,
  };
  process.stdout.write(`${JSON.stringify({ ...out, sink })}\n`);
}

if (process.argv[2] === "--child") {
  await measure(process.argv[3]);
} else {
  const args = process.argv.slice(2);
  const at = args.indexOf("--rounds");
  const rounds = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
  const dirs = args.length > 0 ? args.map((d) => resolve(d)) : [join(root, "pkg")];
  const native = contenders.nativeBinary(root, { rebuild: false });
  const results = dirs.map(() => []);
  const natives = [];
  for (let round = 0; round < rounds; round += 1) {
    const line = execFileSync(
      native,
      ["--n", String(N), "--p", "0.001", "--reps", "5", "--queries", String(QUERIES), "--windows", String(WINDOW)],
      { encoding: "utf8" },
    );
    natives.push(JSON.parse(line.trim().split("\n").at(-1)));
    for (const [d, dir] of dirs.entries()) {
      const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", dir], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
      });
      results[d].push(JSON.parse(output.trim()));
    }
    process.stderr.write(`round ${round + 1}/${rounds}\n`);
  }
  const min = (values) => Math.min(...values);
  const nat = {
    single: min(natives.map((r) => r.query_window_ns)),
    batch: min(natives.map((r) => r.batch_window_ns)),
    build: min(natives.map((r) => r.build_min_ms)),
  };
  const cells = (key) => results.map((rs) => min(rs.map((r) => r[key])));
  const row = (label, key, nativeValue, digits = 1) =>
    `| ${label} | ${cells(key)
      .map((v) => `${v.toFixed(digits)} (${(v / nativeValue).toFixed(2)}×)`)
      .join(" | ")} | ${nativeValue.toFixed(digits)} |`;
  console.log(`Fastest windows, n = 1M, p = 0.001, ${rounds} rounds; ratio to native in parentheses.\n`);
  console.log(`| path | ${dirs.join(" | ")} | native |`);
  console.log(`|---|${dirs.map(() => "---:").join("|")}|---:|`);
  console.log(row("single `mightContain`, ns", "single", nat.single));
  console.log(row(`\`countMaybe\` of ${WINDOW} digests (native \`count_maybe\`), ns/q`, "countWindow", nat.batch));
  console.log(row(`\`mightContainMany\` of ${QUERIES / 1000}K (vs native naive loop), ns/q`, "many", nat.single));
  console.log(row("`createPacked`, ms", "createPackedMs", nat.build));
  console.log(row("`create(digests[])`, ms", "createMs", nat.build));
}
