//! Native `std::time` benchmark of the artifact-bloom core: the yardstick the
//! JavaScript/wasm numbers in `bench/run.mjs` are divided by.
//!
//!   CARGO_TARGET_DIR=/tmp/target-bench cargo build --release --example native_bench
//!   /tmp/target-bench/release/examples/native_bench            # full grid
//!   native_bench --n 1000000 --p 0.001 --reps 3 --queries 200000 --fpr 1000000
//!
//! Prints one JSON line per (n, p): medians over `reps` of build_ms
//! (`create_packed`), query_ns (a naive loop of single `might_contain` calls)
//! and batch_ns (`might_contain_packed`, per digest). `--windows W` adds the
//! fastest W-query window of each (`query_window_ns`, `batch_window_ns` via
//! `count_maybe`) and the fastest build (`build_min_ms`), the steadier
//! figures on a shared machine that bench/steady-state.mjs compares with.
//!
//! The inputs are defined exactly like bench/run.mjs so both sides hash the
//! same digests: members are SHA-256("member:i") for i < n; query j is
//! SHA-256("member:" + (j/2 mod n)) when j is even and SHA-256("probe:" + j/2)
//! when odd (half members, half non-members: members walk all k probes,
//! non-members usually stop after one or two, so the mix matters); `--fpr F`
//! counts maybes among SHA-256("probe:i"), i < F, to cross-check that the
//! wasm build answers bit for bit the same.

use std::hint::black_box;
use std::time::Instant;

use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use sha2::{Digest, Sha256};

struct Options {
    sizes: Vec<u64>,
    rates: Vec<f64>,
    reps: usize,
    queries: usize,
    fpr_probes: usize,
    windows: usize,
}

fn parse_options() -> Options {
    let mut options = Options {
        sizes: vec![10_000, 100_000, 1_000_000],
        rates: vec![0.01, 0.001],
        reps: 7,
        queries: 200_000,
        fpr_probes: 0,
        windows: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).unwrap_or_else(|| panic!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--n" => options.sizes = value.split(',').map(|s| s.parse().expect("--n")).collect(),
            "--p" => options.rates = value.split(',').map(|s| s.parse().expect("--p")).collect(),
            "--reps" => options.reps = value.parse().expect("--reps"),
            "--queries" => options.queries = value.parse().expect("--queries"),
            "--fpr" => options.fpr_probes = value.parse().expect("--fpr"),
            "--windows" => options.windows = value.parse().expect("--windows"),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    assert!(options.reps >= 1, "--reps must be at least 1");
    options
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// `count` digests of `prefix:i`, packed back to back (N × 32 bytes).
fn packed_digests(prefix: &str, count: usize) -> Vec<u8> {
    let mut packed = Vec::with_capacity(count * 32);
    for i in 0..count {
        packed.extend_from_slice(&digest(&format!("{prefix}:{i}")));
    }
    packed
}

/// The half-member, half-non-member query mix shared with bench/run.mjs.
fn query_digests(n: usize, count: usize) -> Vec<[u8; 32]> {
    (0..count)
        .map(
            |j| {
                if j % 2 == 0 {
                    digest(&format!("member:{}", (j / 2) % n))
                } else {
                    digest(&format!("probe:{}", j / 2))
                }
            },
        )
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).expect("no NaN timings"));
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn bench_one(n: u64, p: f64, options: &Options) {
    let spec = BloomSpec { expected_item_count: n, target_false_positive_rate: p };
    let members = packed_digests("member", n as usize);
    let queries = query_digests(n as usize, options.queries);
    let queries_packed: Vec<u8> = queries.concat();

    // Warm-up: faults in the allocator's pages and the caches once, so the
    // first timed repetition is not the only one paying for them.
    let warm = ArtifactBloomFilter::create_packed(&members, &spec).expect("spec is valid");
    let mut sink = warm.bit_count();
    for q in &queries {
        sink += u64::from(warm.might_contain(q));
    }
    drop(warm);

    let (mut build_ms, mut query_ns, mut batch_ns) = (Vec::new(), Vec::new(), Vec::new());
    let mut filter = None;
    for _ in 0..options.reps {
        // black_box on the input and output keeps the optimizer from hoisting
        // or discarding the build.
        let started = Instant::now();
        let built = ArtifactBloomFilter::create_packed(black_box(&members), &spec).expect("spec is valid");
        let built = black_box(built);
        build_ms.push(started.elapsed().as_secs_f64() * 1e3);
        // Drop the previous filter outside the timed region.
        let f = filter.insert(built);

        let started = Instant::now();
        let mut hits = 0u64;
        for q in &queries {
            hits += u64::from(f.might_contain(black_box(q)));
        }
        query_ns.push(started.elapsed().as_nanos() as f64 / queries.len() as f64);
        sink += black_box(hits);

        let started = Instant::now();
        let flags =
            f.might_contain_packed(black_box(&queries_packed)).expect("whole digests").expect("memory for the flags");
        let flags = black_box(flags);
        batch_ns.push(started.elapsed().as_nanos() as f64 / queries.len() as f64);
        sink += flags.iter().map(|&b| u64::from(b)).sum::<u64>();
    }
    let f = filter.expect("at least one repetition");
    let windows = (options.windows > 0).then(|| fastest_windows(&f, &queries, options));

    // Cross-check data for run.mjs: maybes among non-members (not timed).
    let mut maybe_count = serde_json::Value::Null;
    if options.fpr_probes > 0 {
        let probes = packed_digests("probe", options.fpr_probes);
        maybe_count = f.count_maybe(&probes).expect("whole digests").into();
    }

    let line = serde_json::json!({
        "n": n,
        "p": p,
        "m": f.bit_count(),
        "k": f.hash_count(),
        "reps": options.reps,
        "queries": options.queries,
        "build_ms": median(&mut build_ms),
        "query_ns": median(&mut query_ns),
        "batch_ns": median(&mut batch_ns),
        "bytes_per_item": f.bit_count() as f64 / 8.0 / n as f64,
        "estimated_fpr": f.estimate_false_positive_rate(),
        "fpr_probes": options.fpr_probes,
        "maybe_count": maybe_count,
        "query_window_ns": windows.map(|w| w.0),
        "batch_window_ns": windows.map(|w| w.1),
        "build_min_ms": build_ms.iter().copied().fold(f64::INFINITY, f64::min),
        // Printed so the accumulated results are observably used.
        "sink": sink + windows.map_or(0, |w| w.2),
    });
    println!("{line}");
}

/// The fastest `options.windows`-query window of the single-call loop and of
/// `count_maybe` on the window's digests, over `reps` passes (ns per query),
/// and a checksum of the answers.
fn fastest_windows(f: &ArtifactBloomFilter, queries: &[[u8; 32]], options: &Options) -> (f64, f64, u64) {
    let (mut single, mut batch, mut sink) = (f64::INFINITY, f64::INFINITY, 0u64);
    for _ in 0..options.reps.max(10) {
        for window in queries.chunks_exact(options.windows) {
            let started = Instant::now();
            let mut hits = 0u64;
            for q in window {
                hits += u64::from(f.might_contain(black_box(q)));
            }
            single = single.min(started.elapsed().as_nanos() as f64 / window.len() as f64);
            let packed = window.concat();
            let started = Instant::now();
            let maybes = f.count_maybe(black_box(&packed)).expect("whole digests");
            batch = batch.min(started.elapsed().as_nanos() as f64 / window.len() as f64);
            sink += black_box(hits) + black_box(maybes);
        }
    }
    (single, batch, sink)
}

fn main() {
    let options = parse_options();
    for &n in &options.sizes {
        for &p in &options.rates {
            bench_one(n, p, &options);
        }
    }
}
