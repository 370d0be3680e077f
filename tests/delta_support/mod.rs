//! Helpers shared by the ABD1 suites (tests/delta.rs, tests/delta_chains.rs).
#![allow(dead_code)]

use artifact_bloom::abf1::{self, Snapshot};
use artifact_bloom::delta;
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use sha2::{Digest, Sha256};

pub const SPEC: BloomSpec = BloomSpec { expected_item_count: 1200, target_false_positive_rate: 0.01 };

/// Digests `prefix:i` for i in `range`, packed.
pub fn digests(prefix: &str, range: std::ops::Range<u32>) -> Vec<u8> {
    range.flat_map(|i| Sha256::digest(format!("{prefix}:{i}").as_bytes())).collect()
}

pub fn filter(packed: &[u8], spec: &BloomSpec) -> ArtifactBloomFilter {
    ArtifactBloomFilter::create_packed(packed, spec).expect("a valid spec with room")
}

/// Base: items 0..base; target: items 0..target (a superset), same spec.
pub fn pair(base: u32, target: u32) -> (ArtifactBloomFilter, ArtifactBloomFilter) {
    let all = digests("member", 0..target);
    (filter(&all[..base as usize * 32], &SPEC), filter(&all, &SPEC))
}

pub fn file(filter: &ArtifactBloomFilter, version: u64) -> Vec<u8> {
    abf1::encode(filter, version).expect("a valid filter")
}

pub fn must_apply(base: &ArtifactBloomFilter, version: u64, bytes: &[u8]) -> Snapshot {
    delta::apply(base, version, bytes).unwrap_or_else(|e| panic!("apply failed: {e}"))
}

/// The trailer recomputed over the (mutated) bytes before it.
pub fn resealed(bytes: &[u8]) -> Vec<u8> {
    let split = bytes.len() - 32;
    let mut out = bytes.to_vec();
    let checksum = Sha256::digest(&bytes[..split]);
    out[split..].copy_from_slice(&checksum);
    out
}
