//! ABD1 deltas through the public Rust API (docs/ABD1.md):
//! - apply(base, encode(base, target)) loads as the target, and re-encodes
//!   to the target's ABF1 file byte for byte;
//! - every single-bit flip and every truncation of a delta is rejected, and a
//!   flip with the trailer recomputed is either rejected or still yields
//!   exactly the target (the result is always checked against the target
//!   header's checksum);
//! - a wrong base, a removal (`notSuperset`), a layout change and header
//!   fields out of bound are reported with their codes.
//!
//! Chains (compose), the information bound and random catalogs:
//! tests/delta_chains.rs.

mod delta_support;

use artifact_bloom::abf1;
use artifact_bloom::bits::BitArray;
use artifact_bloom::delta::{self, BaseMismatch, Delta, DeltaError, Limit};
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use delta_support::*;

#[test]
fn apply_rebuilds_the_target_file_byte_for_byte() {
    for (base_items, target_items) in [(0, 0), (0, 1), (1000, 1000), (1000, 1001), (1000, 1010), (500, 1200), (0, 1200)]
    {
        let (base, target) = pair(base_items, target_items);
        let bytes = delta::encode(&base, 7, &target, 9).unwrap();
        let parsed = Delta::parse(&bytes).unwrap();
        let expected_new = target.bits().count_ones() - base.bits().count_ones();
        assert_eq!(parsed.header().position_count, expected_new);
        let result = must_apply(&base, 7, &bytes);
        let target_file = file(&target, 9);
        assert_eq!(file(&result.filter, result.header.catalog_version), target_file);
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
    assert!(bytes.len() > delta::HEADER_LENGTH + 32, "the delta has a body");
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
            assert_eq!(file(&result.filter, result.header.catalog_version), target_file, "bit {bit}");
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
        let error = delta::apply(&base, 3, &bytes[..length]).expect_err("a prefix must be rejected");
        assert_eq!(error.code(), "truncated", "length {length}: {error}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let total = bytes.len() as u64;
    assert_eq!(
        delta::apply(&base, 3, &longer).unwrap_err(),
        DeltaError::LengthMismatch { expected: total, got: total + 1 }
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
    assert_eq!(mismatch, BaseMismatch::CatalogVersion { expected: 3, got: 2 });
    // Another catalog at the same version.
    let other = filter(&digests("other", 0..1000), &SPEC);
    assert!(matches!(wrong(delta::apply(&other, 3, &bytes).unwrap_err()), BaseMismatch::SetBitCount { .. }));
    // Another layout.
    let small = filter(&digests("member", 0..10), &BloomSpec { expected_item_count: 10, ..SPEC });
    assert!(matches!(wrong(delta::apply(&small, 3, &bytes).unwrap_err()), BaseMismatch::Layout { .. }));
    // Same version, layout and number of set bits, one bit moved: only the
    // payload SHA-256 tells, after the result fails its checksum.
    let mut words = base.bits().words().to_vec();
    let set = (0..base.bit_count()).find(|&i| base.bits().get(i)).unwrap();
    let clear = (0..base.bit_count()).find(|&i| !base.bits().get(i)).unwrap();
    words[(set / 64) as usize] &= !(1 << (set % 64));
    words[(clear / 64) as usize] |= 1 << (clear % 64);
    let moved = ArtifactBloomFilter::from_parts(BitArray::from_words(words), base.hash_count(), 1000, SPEC);
    assert_eq!(wrong(delta::apply(&moved, 3, &bytes).unwrap_err()), BaseMismatch::PayloadChecksum);
}

#[test]
fn encode_refuses_what_is_not_a_delta() {
    let (base, target) = pair(1000, 1010);
    // A removal: the old catalog is not contained in the new one.
    let shrunk = filter(&digests("member", 1..1010), &SPEC);
    let error = delta::encode(&base, 3, &shrunk, 4).unwrap_err();
    let DeltaError::NotSuperset { removed_bits, first_position } = error else { panic!("{error}") };
    let removed =
        base.bits().words().iter().zip(shrunk.bits().words()).map(|(b, s)| (b & !s).count_ones() as u64).sum();
    assert_eq!(removed_bits, removed);
    assert!(base.bits().get(first_position) && !shrunk.bits().get(first_position));
    assert_eq!(error.code(), "notSuperset");
    // A layout change.
    let resized = filter(&digests("member", 0..1010), &BloomSpec { expected_item_count: 5000, ..SPEC });
    assert_eq!(delta::encode(&base, 3, &resized, 4).unwrap_err().code(), "incompatibleLayout");
    // Not a newer version.
    assert_eq!(
        delta::encode(&base, 4, &target, 4).unwrap_err(),
        DeltaError::NotNewer { base_catalog_version: 4, target_catalog_version: 4 }
    );
    // A target version ABF1 cannot carry.
    assert_eq!(delta::encode(&base, 3, &target, 1 << 53).unwrap_err().code(), "catalogVersionOutOfRange");
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
        Err(DeltaError::InvalidHeader { field: "bodyLength", limit: Limit::AtMost(_), .. })
    ));
    let error = delta::apply(&base, 3, &with(delta::OFFSET_POSITION_COUNT, zero_count + 1)).unwrap_err();
    assert_eq!(
        error,
        DeltaError::InvalidHeader { field: "positionCount", got: zero_count + 1, limit: Limit::AtMost(zero_count) }
    );
    let error = delta::apply(&base, 3, &with(delta::OFFSET_BASE_CATALOG_VERSION, 4)).unwrap_err();
    assert_eq!(error, DeltaError::InvalidHeader { field: "baseCatalogVersion", got: 4, limit: Limit::LessThan(4) });
    let mut rice = bytes.clone();
    rice[delta::OFFSET_RICE_PARAMETER] = 31;
    assert_eq!(delta::parse_header(&rice).unwrap_err().code(), "invalidHeader");
    let mut magic = bytes.clone();
    magic[delta::OFFSET_TARGET_HEADER] = b'X';
    assert_eq!(delta::parse_header(&magic).unwrap_err().code(), "invalidTargetHeader");
    assert_eq!(delta::parse_header(&bytes[..199]).unwrap_err(), DeltaError::Truncated { needed: 200, got: 199 });
}
