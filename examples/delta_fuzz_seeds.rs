//! Writes the seed corpus of the `delta_apply` fuzz target: valid deltas with
//! their bases, in the target's input format (u32 LE base length, the base's
//! ABF1 file, the ABD1 delta).
//!
//!   cargo run --example delta_fuzz_seeds -- fuzz/corpus/seed-delta_apply
//!
//! The inputs are deterministic (members are SHA-256("seed:i")), so a rerun
//! rewrites the committed files byte for byte.

use artifact_bloom::{abf1, delta, ArtifactBloomFilter, BloomSpec};
use sha2::{Digest, Sha256};

fn filter(count: u32, spec: &BloomSpec) -> ArtifactBloomFilter {
    let packed: Vec<u8> = (0..count).flat_map(|i| Sha256::digest(format!("seed:{i}").as_bytes())).collect();
    ArtifactBloomFilter::create_packed(&packed, spec).expect("a valid spec with room")
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: delta_fuzz_seeds DIR");
    std::fs::create_dir_all(&dir).expect("create the corpus directory");
    // (expectedItemCount, fpp, base items, target items): empty and small
    // deltas, one from an empty base, one nearly full.
    let cases =
        [(8, 0.1, 4, 8), (200, 0.01, 100, 100), (200, 0.01, 150, 160), (200, 0.01, 0, 200), (1000, 0.05, 990, 1000)];
    for (n, p, from, to) in cases {
        let spec = BloomSpec { expected_item_count: n, target_false_positive_rate: p };
        let (base, target) = (filter(from, &spec), filter(to, &spec));
        let base_file = abf1::encode(&base, 41).expect("a valid base");
        let bytes = delta::encode(&base, 41, &target, 42).expect("a superset");
        let mut input = (base_file.len() as u32).to_le_bytes().to_vec();
        input.extend_from_slice(&base_file);
        input.extend_from_slice(&bytes);
        let name = format!("{dir}/n{n}-p{p}-from{from}-to{to}.bin");
        std::fs::write(&name, &input).expect("write a seed");
        println!("{name}: {} bytes (delta {} bytes)", input.len(), bytes.len());
    }
}
