// The contenders of bench/run.mjs. Each one's `run(ctx)` does one repetition
// — build, then (if it answers queries) a timed single-query loop and a timed
// batch call — and returns nanosecond timings; `finish(ctx)` reports the
// untimed extras (FPR, size) and frees what it kept.
//
// Every query loop is written out per contender rather than shared through a
// callback, so each call site stays monomorphic and the loop measures the
// contender, not a polymorphic dispatch. Hit counts go into `sink` and are
// checked against the number of member queries (a Bloom filter has no false
// negatives), which also proves the loops ran.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BloomFilter as JasonBloom } from "bloomfilter";
import bloomFilters from "bloom-filters";
import { ReferenceBloomFilter } from "./reference.mjs";
import { log, median, nowNs, sink, timeNs } from "./util.mjs";

const MinierBloom = bloomFilters.BloomFilter;
/** Timed query passes per repetition (after one untimed warm-up pass); run.mjs reports the median. */
export const PASSES = 3;

function checkHits(name, hits, queries) {
  if (hits < queries.members) throw new Error(`${name}: ${hits} hits < ${queries.members} member queries`);
  sink.value += hits;
}

/** Times a loop of single queries; returns ns per query. */
function perQuery(ns, count) {
  return ns / count;
}

/**
 * One untimed warm-up pass, then `passes` timed ones; returns [median ns,
 * hits]. The warm-up matters: run.mjs forces a full GC before each build, and
 * the first pass after it ran 2–5× slower than the steady state in our
 * trials (cold caches, V8's post-GC sweeping on the same 2 CPUs), which would
 * measure the GC rather than the filter.
 */
function timedPasses(loop, passes) {
  let hits = loop();
  const times = [];
  for (let pass = 0; pass < passes; pass += 1) {
    const [ns, result] = timeNs(loop);
    times.push(ns);
    hits = result;
  }
  return [median(times), hits];
}

/** Untimed building before each repetition's first timed build (at least one build). */
export const BUILD_WARMUP_NS = 300e6;
/** Timed building per repetition: builds until this much time or BUILD_SAMPLES builds (at least one). */
export const BUILD_SAMPLE_NS = 200e6;
export const BUILD_SAMPLES = 9;

/**
 * Times `build` in its steady state and returns [median ns, last result];
 * every other result goes to `discard`. run.mjs forces a full GC before
 * each contender, and the builds right after it compete with V8's
 * concurrent sweeping of the corpus (over a million objects) for the 2
 * CPUs: on this machine a 100K `create(digests[])` takes 20–80 ms for its
 * first few hundred milliseconds and ≈ 5 ms after. One untimed build covers
 * that only for builds longer than the sweeping, so the warm-up is measured
 * in time: untimed builds for BUILD_WARMUP_NS. Then builds are timed back
 * to back until BUILD_SAMPLE_NS or BUILD_SAMPLES, and the median is the
 * repetition's sample, so one preempted build does not become the result.
 * A build longer than both budgets (the reference at 1M) is built once
 * untimed and timed once. The native side also warms up before timing
 * (examples/native_bench.rs, the median of its builds per process).
 */
function warmTimedBuild(build, discard) {
  const warmupStart = nowNs();
  do discard(build());
  while (nowNs() - warmupStart < BUILD_WARMUP_NS);
  const times = [];
  let result;
  let timed = 0;
  while (times.length === 0 || (timed < BUILD_SAMPLE_NS && times.length < BUILD_SAMPLES)) {
    if (result !== undefined) discard(result);
    const [ns, value] = timeNs(build);
    times.push(ns);
    timed += ns;
    result = value;
  }
  return [median(times), result];
}

/** This package, reference API: `create(digests[])`, `mightContain`, `mightContainMany`. */
export function packageDigests(api) {
  let filter;
  return {
    id: "pkg",
    label: () => "artifact-bloom `create(digests[])` + `mightContain` / `mightContainMany`",
    release() {
      filter?.free();
      filter = undefined;
    },
    run(ctx) {
      const [buildNs, result] = warmTimedBuild(
        () => api.ArtifactBloomFilter.create(ctx.list, ctx.spec),
        (r) => r.value?.free(),
      );
      if (result.kind !== "success") throw new Error(`create failed: ${result.error}`);
      filter = result.value;
      const queries = ctx.queries.list;
      const [queryNs, hits] = timedPasses(() => {
        let maybe = 0;
        for (let i = 0; i < queries.length; i += 1) if (filter.mightContain(queries[i])) maybe += 1;
        return maybe;
      }, PASSES);
      checkHits("pkg mightContain", hits, ctx.queries);
      const [batchNs, flags] = timedPasses(() => filter.mightContainMany(ctx.queries.packed), PASSES);
      let batchHits = 0;
      for (let i = 0; i < flags.length; i += 1) batchHits += flags[i];
      checkHits("pkg mightContainMany", batchHits, ctx.queries);
      return { build: buildNs, query: perQuery(queryNs, queries.length), batch: perQuery(batchNs, flags.length) };
    },
    finish(ctx) {
      // FPR on 1M non-members: countMaybe is one wasm call, so this is cheap.
      const maybes = filter.countMaybe(ctx.fprProbes.packed);
      const info = {
        m: filter.getBitCount(),
        k: filter.getHashCount(),
        bytesPerItem: filter.getBitCount() / 8 / ctx.n,
        fpr: maybes / (ctx.fprProbes.packed.length / 32),
        fprModel: filter.estimateFalsePositiveRate(),
        fprQueries: ctx.fprProbes.packed.length / 32,
        maybes,
        bits: filter.serializeBits(),
      };
      this.release();
      return info;
    },
  };
}

/** This package, fast build path: `createPacked(N × 32 bytes)` (queries are the same call as above). */
export function packagePacked(api) {
  return {
    id: "pkgPacked",
    label: () => "artifact-bloom `createPacked` (queries: same `mightContain`)",
    run(ctx) {
      const [buildNs, result] = warmTimedBuild(
        () => api.ArtifactBloomFilter.createPacked(ctx.packed, ctx.spec),
        (r) => r.value?.free(),
      );
      if (result.kind !== "success") throw new Error(`createPacked failed: ${result.error}`);
      sink.value += result.value.getInsertedItemCount();
      result.value.free();
      return { build: buildNs };
    },
    finish: () => ({}),
  };
}

/** The seed's TypeScript reference, ported to plain JS (bench/reference.mjs). */
export function reference() {
  let filter;
  return {
    id: "ref",
    label: () => "seed reference (JS port, BigInt probe)",
    release() {
      filter = undefined;
    },
    run(ctx) {
      const [buildNs, result] = warmTimedBuild(
        () => ReferenceBloomFilter.create(ctx.list, ctx.spec),
        () => {},
      );
      if (result.kind !== "success") throw new Error(`reference create failed: ${result.error}`);
      filter = result.value;
      const queries = ctx.queries.list;
      const [queryNs, hits] = timedPasses(() => {
        let maybe = 0;
        for (let i = 0; i < queries.length; i += 1) if (filter.mightContain(queries[i])) maybe += 1;
        return maybe;
      }, PASSES);
      checkHits("reference", hits, ctx.queries);
      return { build: buildNs, query: perQuery(queryNs, queries.length) };
    },
    finish(ctx) {
      const info = { bytesPerItem: filter.getBitCount() / 8 / ctx.n, bits: filter.serializeBits() };
      this.release();
      return info;
    },
  };
}

/** npm `bloomfilter` (FNV-1a over strings): same m and k, hex-string keys (hex precomputed, untimed). */
export function jasonBloom() {
  let filter;
  return {
    id: "bloomfilter",
    label: () => "npm `bloomfilter` 1.1.0 (hex keys, same m, k)",
    release() {
      filter = undefined;
    },
    run(ctx) {
      const keys = ctx.hex;
      const [buildNs] = warmTimedBuild(
        () => {
          filter = new JasonBloom(ctx.m, ctx.k);
          for (let i = 0; i < keys.length; i += 1) filter.add(keys[i]);
        },
        () => {},
      );
      const queries = ctx.queries.hex;
      const [queryNs, hits] = timedPasses(() => {
        let maybe = 0;
        for (let i = 0; i < queries.length; i += 1) if (filter.test(queries[i])) maybe += 1;
        return maybe;
      }, PASSES);
      checkHits("bloomfilter", hits, ctx.queries);
      return { build: buildNs, query: perQuery(queryNs, queries.length) };
    },
    finish(ctx) {
      // 200K non-members: ~1 µs each, so the FPR costs a fraction of a second.
      const probes = ctx.fprProbes.hex.slice(0, 200_000);
      let maybes = 0;
      for (const key of probes) if (filter.test(key)) maybes += 1;
      const info = { bytesPerItem: filter.buckets.byteLength / ctx.n, fpr: maybes / probes.length, fprQueries: probes.length };
      this.release();
      return info;
    },
  };
}

/**
 * npm `bloom-filters` (XXH64 via a 64-bit-in-JS library, ~20–40 µs per
 * operation): same m and k, hex keys. Too slow for every repetition at large
 * n, so `maxReps` limits it and its queries use the first `slowQueries`.
 */
export function minierBloom({ slowQueries, maxRepsAt }) {
  let filter;
  return {
    id: "bloom-filters",
    label: () => `npm \`bloom-filters\` 3.0.4 (hex keys, same m, k; ${slowQueries / 1000}K queries)`,
    maxReps: maxRepsAt,
    release() {
      filter = undefined;
    },
    run(ctx) {
      const keys = ctx.hex;
      const [buildNs] = timeNs(() => {
        filter = new MinierBloom(ctx.m, ctx.k);
        for (let i = 0; i < keys.length; i += 1) filter.add(keys[i]);
      });
      const queries = ctx.queries.hex;
      const count = Math.min(slowQueries, queries.length);
      // One timed pass (~0.35 s) after the warm-up: its spread is far below
      // its distance from everyone else.
      const [queryNs, hits] = timedPasses(() => {
        let maybe = 0;
        for (let i = 0; i < count; i += 1) if (filter.has(queries[i])) maybe += 1;
        return maybe;
      }, 1);
      checkHits("bloom-filters", hits, { members: Math.ceil(count / 2) });
      return { build: buildNs, query: perQuery(queryNs, count) };
    },
    finish(ctx) {
      const probes = ctx.fprProbes.hex.slice(0, slowQueries);
      let maybes = 0;
      for (const key of probes) if (filter.has(key)) maybes += 1;
      const info = {
        bytesPerItem: filter._filter.array.byteLength / ctx.n,
        fpr: maybes / probes.length,
        fprQueries: probes.length,
      };
      this.release();
      return info;
    },
  };
}

/** Path of the native example binary; builds it with cargo when missing (or when asked). */
export function nativeBinary(root, { rebuild }) {
  const targetDir = process.env.CARGO_TARGET_DIR ?? "/tmp/target-bench";
  const binary = join(targetDir, "release", "examples", "native_bench");
  if (rebuild || !existsSync(binary)) {
    log(`building ${binary} (cargo build --release --example native_bench) …`);
    try {
      execFileSync("cargo", ["build", "--release", "--example", "native_bench"], {
        cwd: root,
        env: { ...process.env, CARGO_TARGET_DIR: targetDir },
        stdio: ["ignore", "inherit", "inherit"],
      });
    } catch (error) {
      if (!existsSync(binary)) throw error;
      log(`warning: cargo build failed; using the existing ${binary}`);
    }
  }
  return binary;
}

/**
 * The native Rust loop (examples/native_bench.rs), one child process per
 * repetition so it takes its turn in the round-robin like everyone else. The
 * child regenerates the same digests (untimed), warms up, and reports the
 * median of `innerReps`; run.mjs then takes the median across repetitions.
 */
export function native(binary, { innerReps }) {
  let last;
  return {
    id: "native",
    label: () => "native Rust (`create_packed`, `might_contain`, `might_contain_packed`)",
    run(ctx, rep) {
      const args = [
        "--n",
        String(ctx.n),
        "--p",
        String(ctx.p),
        "--reps",
        String(innerReps),
        "--queries",
        String(ctx.queries.count),
      ];
      // Only the first repetition counts maybes on the 1M non-members (a
      // cross-check that wasm and native answer bit for bit the same).
      if (rep === 0) args.push("--fpr", String(ctx.fprProbes.packed.length / 32));
      const output = execFileSync(binary, args, { encoding: "utf8" });
      const line = JSON.parse(output.trim().split("\n").at(-1));
      if (line.m !== ctx.m || line.k !== ctx.k) throw new Error(`native layout ${line.m}/${line.k} ≠ ${ctx.m}/${ctx.k}`);
      if (rep === 0) last = line;
      return { build: line.build_ms * 1e6, query: line.query_ns, batch: line.batch_ns };
    },
    finish(_ctx) {
      return { bytesPerItem: last.bytes_per_item, maybes: last.maybe_count, fpr: last.maybe_count / last.fpr_probes };
    },
  };
}
