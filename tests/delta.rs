//! ABD1 deltas through the public Rust API (docs/ABD1.md):
//! - apply(base, encode(base, target)) loads as the target, and re-encodes
//!   to the target's ABF1 file byte for byte;
//! - every single-bit flip and every truncation of a delta is rejected, and a
//!   flip with the trailer recomputed is either rejected or still yields
//!   exactly the target (the result is always checked against the target
//!   header's checksum);
//! - a wrong base, a removal (`notSuperset`), a layout change and chains that
//!   do not connect are reported with their codes;
//! - composing A→B and B→C gives encode(A, C) byte for byte.

use artifact_bloom::abf1::{self, Snapshot};
use artifact_bloom::bits::BitArray;
use artifact_bloom::delta::{self, BaseMismatch, Delta, DeltaError, Limit};
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use sha2::{Digest, Sha256};

const SPEC: BloomSpec = BloomSpec {
    expected_item_count: 1200,
    target_false_positive_rate: 0.01,
};

/// Digests `prefix:i` for i in `range`, packed.
fn digests(prefix: &str, range: std::ops::Range<u32>) -> Vec<u8> {
    range
        .flat_map(|i| Sha256::digest(format!("{prefix}:{i}").as_bytes()))
        .collect()
}

fn filter(packed: &[u8], spec: &BloomSpec) -> ArtifactBloomFilter {
    ArtifactBloomFilter::create_packed(packed, spec).expect("a valid spec with room")
}

/// Base: items 0..base; target: items 0..target (a superset), same spec.
fn pair(base: u32, target: u32) -> (ArtifactBloomFilter, ArtifactBloomFilter) {
    let all = digests("member", 0..target);
    (
        filter(&all[..base as usize * 32], &SPEC),
        filter(&all, &SPEC),
    )
}

fn file(filter: &ArtifactBloomFilter, version: u64) -> Vec<u8> {
    abf1::encode(filter, version).expect("a valid filter")
}

fn must_apply(base: &ArtifactBloomFilter, version: u64, bytes: &[u8]) -> Snapshot {
    delta::apply(base, version, bytes).unwrap_or_else(|e| panic!("apply failed: {e}"))
}

/// The trailer recomputed over the (mutated) bytes before it.
fn resealed(bytes: &[u8]) -> Vec<u8> {
    let split = bytes.len() - 32;
    let mut out = bytes.to_vec();
    let checksum = Sha256::digest(&bytes[..split]);
    out[split..].copy_from_slice(&checksum);
    out
}

#[test]
fn apply_rebuilds_the_target_file_byte_for_byte() {
    for (base_items, target_items) in [
        (0, 0),
        (0, 1),
        (1000, 1000),
        (1000, 1001),
        (1000, 1010),
        (500, 1200),
        (0, 1200),
    ] {
        let (base, target) = pair(base_items, target_items);
        let bytes = delta::encode(&base, 7, &target, 9).unwrap();
        let parsed = Delta::parse(&bytes).unwrap();
        let expected_new = target.bits().count_ones() - base.bits().count_ones();
        assert_eq!(parsed.header().position_count, expected_new);
        let result = must_apply(&base, 7, &bytes);
        let target_file = file(&target, 9);
        assert_eq!(
            file(&result.filter, result.header.catalog_version),
            target_file
        );
        assert_eq!(result.header, abf1::parse_header(&target_file).unwrap());
        assert_eq!(result.filter, target);
        // The base is untouched (a reader of it is undisturbed).
        assert_eq!(base, pair(base_items, target_items).0);
    }
}

#[test]
fn a_catalog_growth_whose_bits_were_all_set_is_an_empty_delta() {
    // Same items, only a new version and insertedItemCount: no position.
    let packed = digests("member", 0..300);
    let base = filter(&packed, &SPEC);
    let mut twice = packed.clone();
    twice.extend_from_slice(&packed[..32]);
    let target = filter(&twice, &SPEC);
    let bytes = delta::encode(&base, 1, &target, 2).unwrap();
    assert_eq!(bytes.len(), delta::HEADER_LENGTH + delta::CHECKSUM_LENGTH);
    let result = must_apply(&base, 1, &bytes);
    assert_eq!(result.filter.inserted_item_count(), 301);
    assert_eq!(file(&result.filter, 2), file(&target, 2));
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let (base, target) = pair(1000, 1010);
    let bytes = delta::encode(&base, 3, &target, 4).unwrap();
    assert!(
        bytes.len() > delta::HEADER_LENGTH + 32,
        "the delta has a body"
    );
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let error = delta::apply(&base, 3, &flipped).expect_err("a flipped bit must be rejected");
        assert!(Delta::parse(&flipped).is_err(), "bit {bit}: {error}");
    }
}

#[test]
fn a_flip_behind_a_recomputed_trailer_is_rejected_or_still_yields_the_target() {
    // A delta whose trailer was recomputed is no longer "corrupted" to the
    // checksum: the remaining checks must still never let a wrong result out.
    let (base, target) = pair(1000, 1010);
    let bytes = delta::encode(&base, 3, &target, 4).unwrap();
    let target_file = file(&target, 4);
    let mut accepted = 0;
    for bit in 0..(bytes.len() - 32) * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        if let Ok(result) = delta::apply(&base, 3, &resealed(&flipped)) {
            assert_eq!(
                file(&result.filter, result.header.catalog_version),
                target_file,
                "bit {bit}"
            );
            accepted += 1;
        }
    }
    // Only the two SHA-256 fields apply never needs (the base's is compared
    // only when the result fails, the target's only by compose): 512 bits.
    assert_eq!(accepted, 512);
}

#[test]
fn every_truncation_is_rejected_and_so_is_a_trailing_byte() {
    let (base, target) = pair(1000, 1010);
    let bytes = delta::encode(&base, 3, &target, 4).unwrap();
    for length in 0..bytes.len() {
        let error =
            delta::apply(&base, 3, &bytes[..length]).expect_err("a prefix must be rejected");
        assert_eq!(error.code(), "truncated", "length {length}: {error}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let total = bytes.len() as u64;
    assert_eq!(
        delta::apply(&base, 3, &longer).unwrap_err(),
        DeltaError::LengthMismatch {
            expected: total,
            got: total + 1
        }
    );
}

#[test]
fn a_wrong_base_is_rejected() {
    let (base, target) = pair(1000, 1010);
    let bytes = delta::encode(&base, 3, &target, 4).unwrap();
    let wrong = |error: DeltaError| match error {
        DeltaError::WrongBase(mismatch) => mismatch,
        other => panic!("expected wrongBase, got {other}"),
    };
    // Another version of the right bits.
    let mismatch = wrong(delta::apply(&base, 2, &bytes).unwrap_err());
    assert_eq!(
        mismatch,
        BaseMismatch::CatalogVersion {
            expected: 3,
            got: 2
        }
    );
    // Another catalog at the same version.
    let other = filter(&digests("other", 0..1000), &SPEC);
    assert!(matches!(
        wrong(delta::apply(&other, 3, &bytes).unwrap_err()),
        BaseMismatch::SetBitCount { .. }
    ));
    // Another layout.
    let small = filter(
        &digests("member", 0..10),
        &BloomSpec {
            expected_item_count: 10,
            ..SPEC
        },
    );
    assert!(matches!(
        wrong(delta::apply(&small, 3, &bytes).unwrap_err()),
        BaseMismatch::Layout { .. }
    ));
    // Same version, layout and number of set bits, one bit moved: only the
    // payload SHA-256 tells, after the result fails its checksum.
    let mut words = base.bits().words().to_vec();
    let set = (0..base.bit_count()).find(|&i| base.bits().get(i)).unwrap();
    let clear = (0..base.bit_count())
        .find(|&i| !base.bits().get(i))
        .unwrap();
    words[(set / 64) as usize] &= !(1 << (set % 64));
    words[(clear / 64) as usize] |= 1 << (clear % 64);
    let moved =
        ArtifactBloomFilter::from_parts(BitArray::from_words(words), base.hash_count(), 1000, SPEC);
    assert_eq!(
        wrong(delta::apply(&moved, 3, &bytes).unwrap_err()),
        BaseMismatch::PayloadChecksum
    );
}

#[test]
fn encode_refuses_what_is_not_a_delta() {
    let (base, target) = pair(1000, 1010);
    // A removal: the old catalog is not contained in the new one.
    let shrunk = filter(&digests("member", 1..1010), &SPEC);
    let error = delta::encode(&base, 3, &shrunk, 4).unwrap_err();
    let DeltaError::NotSuperset {
        removed_bits,
        first_position,
    } = error
    else {
        panic!("{error}")
    };
    let removed = base
        .bits()
        .words()
        .iter()
        .zip(shrunk.bits().words())
        .map(|(b, s)| (b & !s).count_ones() as u64)
        .sum();
    assert_eq!(removed_bits, removed);
    assert!(base.bits().get(first_position) && !shrunk.bits().get(first_position));
    assert_eq!(error.code(), "notSuperset");
    // A layout change.
    let resized = filter(
        &digests("member", 0..1010),
        &BloomSpec {
            expected_item_count: 5000,
            ..SPEC
        },
    );
    assert_eq!(
        delta::encode(&base, 3, &resized, 4).unwrap_err().code(),
        "incompatibleLayout"
    );
    // Not a newer version.
    assert_eq!(
        delta::encode(&base, 4, &target, 4).unwrap_err(),
        DeltaError::NotNewer {
            base_catalog_version: 4,
            target_catalog_version: 4
        }
    );
    // A target version ABF1 cannot carry.
    assert_eq!(
        delta::encode(&base, 3, &target, 1 << 53)
            .unwrap_err()
            .code(),
        "catalogVersionOutOfRange"
    );
}

#[test]
fn composing_two_deltas_equals_the_direct_delta() {
    let all = digests("member", 0..1200);
    let versions: Vec<ArtifactBloomFilter> = [800usize, 850, 1000, 1200]
        .iter()
        .map(|&n| filter(&all[..n * 32], &SPEC))
        .collect();
    let step =
        |i: usize| delta::encode(&versions[i], i as u64, &versions[i + 1], i as u64 + 1).unwrap();
    let mut composed = step(0);
    for i in 1..versions.len() - 1 {
        composed = delta::compose(&composed, &step(i)).unwrap();
        assert_eq!(
            composed,
            delta::encode(&versions[0], 0, &versions[i + 1], i as u64 + 1).unwrap(),
            "up to {i}"
        );
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

#[test]
fn header_bounds_are_checked_before_the_length() {
    let (base, target) = pair(1000, 1010);
    let bytes = delta::encode(&base, 3, &target, 4).unwrap();
    let header = Delta::parse(&bytes).unwrap().header().clone();
    let with = |offset: usize, value: u64| {
        let mut out = bytes.clone();
        out[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
        resealed(&out)
    };
    let zero_count = header.base_zero_count();
    // A body length no Rice code list of this size can take: rejected from
    // the header alone, whatever the input's real length.
    let huge = with(delta::OFFSET_BODY_LENGTH, u64::MAX / 2);
    assert!(matches!(
        delta::parse_header(&huge),
        Err(DeltaError::InvalidHeader {
            field: "bodyLength",
            limit: Limit::AtMost(_),
            ..
        })
    ));
    let error = delta::apply(
        &base,
        3,
        &with(delta::OFFSET_POSITION_COUNT, zero_count + 1),
    )
    .unwrap_err();
    assert_eq!(
        error,
        DeltaError::InvalidHeader {
            field: "positionCount",
            got: zero_count + 1,
            limit: Limit::AtMost(zero_count)
        }
    );
    let error = delta::apply(&base, 3, &with(delta::OFFSET_BASE_CATALOG_VERSION, 4)).unwrap_err();
    assert_eq!(
        error,
        DeltaError::InvalidHeader {
            field: "baseCatalogVersion",
            got: 4,
            limit: Limit::LessThan(4)
        }
    );
    let mut rice = bytes.clone();
    rice[delta::OFFSET_RICE_PARAMETER] = 31;
    assert_eq!(
        delta::parse_header(&rice).unwrap_err().code(),
        "invalidHeader"
    );
    let mut magic = bytes.clone();
    magic[delta::OFFSET_TARGET_HEADER] = b'X';
    assert_eq!(
        delta::parse_header(&magic).unwrap_err().code(),
        "invalidTargetHeader"
    );
    assert_eq!(
        delta::parse_header(&bytes[..199]).unwrap_err(),
        DeltaError::Truncated {
            needed: 200,
            got: 199
        }
    );
}

/// log2 C(zeros, count): the bits any encoding of `count` positions among
/// `zeros` candidates needs on average (the information bound).
fn information_bound_bits(zeros: u64, count: u64) -> f64 {
    (0..count)
        .map(|i| ((zeros - i) as f64 / (count - i) as f64).log2())
        .sum()
}

#[test]
fn the_body_stays_within_two_percent_of_the_information_bound() {
    // Rice coding of geometric gaps costs at most ~3 % above their entropy at
    // these densities; the bound here adds 2 % plus one bit per 100
    // positions of slack. A varint encoding fails it by ~60 %.
    let spec = BloomSpec {
        expected_item_count: 120_000,
        target_false_positive_rate: 0.001,
    };
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
        assert_eq!(
            file(&must_apply(&fa, 10, &ab).filter, 11),
            file(&fb, 11),
            "case {case}"
        );
        assert_eq!(
            file(&must_apply(&fa, 10, &ac).filter, 12),
            file(&fc, 12),
            "case {case}"
        );
        // Random mutations never panic and never yield a wrong target.
        for _ in 0..20 {
            let mut mutated = ac.clone();
            let at = (rng.next_u64() % mutated.len() as u64) as usize;
            mutated[at] = rng.next_u32() as u8;
            let mutated = if rng.next_u32() % 2 == 0 {
                resealed(&mutated)
            } else {
                mutated
            };
            if let Ok(result) = delta::apply(&fa, 10, &mutated) {
                assert_eq!(file(&result.filter, 12), file(&fc, 12), "case {case}");
            }
        }
    }
}
