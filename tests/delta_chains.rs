//! ABD1 chains and sizes through the public Rust API (docs/ABD1.md):
//! - composing A→B and B→C gives encode(A, C) byte for byte, and deltas that
//!   do not connect are `notChained`;
//! - the body of a realistic delta stays near the information bound;
//! - random catalogs round trip and compose, and random mutations never
//!   panic or yield a wrong target.

mod delta_support;

use artifact_bloom::delta::{self, BaseMismatch, Delta, DeltaError};
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use delta_support::*;
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};

#[test]
fn composing_two_deltas_equals_the_direct_delta() {
    let all = digests("member", 0..1200);
    let versions: Vec<ArtifactBloomFilter> =
        [800usize, 850, 1000, 1200].iter().map(|&n| filter(&all[..n * 32], &SPEC)).collect();
    let step = |i: usize| delta::encode(&versions[i], i as u64, &versions[i + 1], i as u64 + 1).unwrap();
    let mut composed = step(0);
    for i in 1..versions.len() - 1 {
        composed = delta::compose(&composed, &step(i)).unwrap();
        assert_eq!(composed, delta::encode(&versions[0], 0, &versions[i + 1], i as u64 + 1).unwrap(), "up to {i}");
    }
    let result = must_apply(&versions[0], 0, &composed);
    assert_eq!(file(&result.filter, 3), file(&versions[3], 3));
    // Out of order, or with a step left out, they do not chain.
    assert!(matches!(
        delta::compose(&step(1), &step(0)),
        Err(DeltaError::NotChained(BaseMismatch::CatalogVersion { .. }))
    ));
    // Version 2 of other bits than the ones step 2 starts from.
    let skipping = delta::encode(&versions[0], 0, &versions[1], 2).unwrap();
    assert!(matches!(
        delta::compose(&skipping, &step(2)),
        Err(DeltaError::NotChained(BaseMismatch::SetBitCount { .. }))
    ));
}

/// log2 C(zeros, count): the bits any encoding of `count` positions among
/// `zeros` candidates needs on average (the information bound).
fn information_bound_bits(zeros: u64, count: u64) -> f64 {
    (0..count).map(|i| ((zeros - i) as f64 / (count - i) as f64).log2()).sum()
}

#[test]
fn the_body_stays_within_two_percent_of_the_information_bound() {
    // Rice coding of geometric gaps costs at most ~3 % above their entropy at
    // these densities; the bound here adds 2 % plus one bit per 100
    // positions of slack. A varint encoding fails it by ~60 %.
    let spec = BloomSpec { expected_item_count: 120_000, target_false_positive_rate: 0.001 };
    let all = digests("member", 0..101_000);
    let base = filter(&all[..100_000 * 32], &spec);
    for added in [100u32, 1000] {
        let target = filter(&all[..(100_000 + added as usize) * 32], &spec);
        let bytes = delta::encode(&base, 1, &target, 2).unwrap();
        let header = Delta::parse(&bytes).unwrap().header().clone();
        let bound = information_bound_bits(header.base_zero_count(), header.position_count);
        let body_bits = (header.body_length * 8) as f64;
        assert!(
            body_bits <= bound * 1.02 + header.position_count as f64 / 100.0 + 8.0,
            "{added}: {body_bits} vs {bound}"
        );
    }
}

#[test]
fn random_catalogs_round_trip_and_compose() {
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[13; 32]);
    for case in 0..200 {
        let n = 1 + rng.next_u32() % 3000;
        let spec = BloomSpec {
            expected_item_count: u64::from(n),
            target_false_positive_rate: [0.5, 0.1, 0.01, 0.0001][case % 4],
        };
        let all = digests(&format!("case{case}"), 0..n);
        let cut = |rng: &mut TestRng, low: u32| low + rng.next_u32() % (n - low + 1);
        let a = cut(&mut rng, 0);
        let b = cut(&mut rng, a);
        let c = cut(&mut rng, b);
        let [fa, fb, fc] = [a, b, c].map(|i| filter(&all[..i as usize * 32], &spec));
        let ab = delta::encode(&fa, 10, &fb, 11).unwrap();
        let bc = delta::encode(&fb, 11, &fc, 12).unwrap();
        let ac = delta::encode(&fa, 10, &fc, 12).unwrap();
        assert_eq!(delta::compose(&ab, &bc).unwrap(), ac, "case {case}");
        assert_eq!(file(&must_apply(&fa, 10, &ab).filter, 11), file(&fb, 11), "case {case}");
        assert_eq!(file(&must_apply(&fa, 10, &ac).filter, 12), file(&fc, 12), "case {case}");
        // Random mutations never panic and never yield a wrong target.
        for _ in 0..20 {
            let mut mutated = ac.clone();
            let at = (rng.next_u64() % mutated.len() as u64) as usize;
            mutated[at] = rng.next_u32() as u8;
            let mutated = if rng.next_u32() % 2 == 0 { resealed(&mutated) } else { mutated };
            if let Ok(result) = delta::apply(&fa, 10, &mutated) {
                assert_eq!(file(&result.filter, 12), file(&fc, 12), "case {case}");
            }
        }
    }
}
