//! Applying a delta: [`rebuild`] writes the target's ABF1 file from the base
//! and the delta; [`apply`] then loads it with the ABF1 loader, whose
//! checksum step is the final check (a delta can never produce a snapshot a
//! full download would not); [`diagnose`] names the cause when it fails.

use super::format::DeltaHeader;
use super::{payload_sha256, reserve, BaseMismatch, Delta, DeltaError};
use crate::abf1::{self, LoadError};
use crate::filter::ArtifactBloomFilter;

/// The target snapshot: `base` (at `base_catalog_version`, untouched) with
/// the delta's bits set, loaded through [`abf1::decode`].
pub fn apply(
    base: &ArtifactBloomFilter,
    base_catalog_version: u64,
    delta: &[u8],
) -> Result<abf1::Snapshot, DeltaError> {
    let file = rebuild(base, base_catalog_version, delta)?;
    abf1::decode(&file).map_err(|error| match error {
        LoadError::ChecksumMismatch => diagnose(base, delta),
        other => DeltaError::TargetLoad(other),
    })
}

/// The target's complete ABF1 file (header from the delta, payload = base
/// bits with the delta's bits set), NOT yet verified: the caller must load it
/// with the ABF1 loader ([`apply`] does; the JS binding uses `loadSnapshot`)
/// and call [`diagnose`] if its checksum fails.
///
/// The base is checked by catalogVersion, layout and number of set bits
/// here; its payload SHA-256 only by [`diagnose`], because a result that
/// passes the target checksum proves the base: every rank names a zero bit of
/// the base, so base = target minus the delta's bits, exactly.
pub fn rebuild(
    base: &ArtifactBloomFilter,
    base_catalog_version: u64,
    delta: &[u8],
) -> Result<Vec<u8>, DeltaError> {
    let delta = Delta::parse(delta)?;
    let header = delta.header();
    check_base(base, base_catalog_version, header)?;
    let mut out =
        reserve((abf1::HEADER_LENGTH as u64).saturating_add(header.target.payload_length))?;
    out.extend_from_slice(&header.target.to_bytes());
    let mut ranks = delta.ranks();
    let mut next = ranks.next_rank()?;
    let mut zeros_before = 0u64;
    for &word in base.bits().words() {
        let zeros_here = u64::from(word.count_zeros());
        let mut result = word;
        // Zero bits of `word` not yet passed, and how many were passed.
        let mut free = !word;
        let mut passed = 0u64;
        while let Some(rank) = next.filter(|&rank| rank < zeros_before + zeros_here) {
            for _ in passed..rank - zeros_before {
                free &= free - 1;
            }
            result |= free & free.wrapping_neg();
            free &= free - 1;
            passed = rank - zeros_before + 1;
            next = ranks.next_rank()?;
        }
        out.extend_from_slice(&result.to_le_bytes());
        zeros_before += zeros_here;
    }
    // Unreachable: parse bounded every rank by bitCount − baseSetBitCount,
    // which check_base made the base's zero count.
    if let Some(rank) = next {
        return Err(DeltaError::PositionOutOfRange {
            index: header.position_count,
            rank,
            zero_count: zeros_before,
        });
    }
    Ok(out)
}

/// Why the file [`rebuild`] wrote failed its checksum: a base whose bit array
/// is not the one the delta names (`wrongBase`), otherwise
/// `resultChecksumMismatch` (a delta inconsistent with its own header).
pub fn diagnose(base: &ArtifactBloomFilter, delta: &[u8]) -> DeltaError {
    match Delta::parse(delta) {
        Err(error) => error,
        Ok(delta) if payload_sha256(base.bits()) != delta.header().base_payload_sha256 => {
            DeltaError::WrongBase(BaseMismatch::PayloadChecksum)
        }
        Ok(_) => DeltaError::ResultChecksumMismatch,
    }
}

/// The cheap base checks, in order: catalogVersion, layout, set bits.
fn check_base(
    base: &ArtifactBloomFilter,
    base_catalog_version: u64,
    header: &DeltaHeader,
) -> Result<(), DeltaError> {
    let wrong = |mismatch| Err(DeltaError::WrongBase(mismatch));
    if base_catalog_version != header.base_catalog_version {
        return wrong(BaseMismatch::CatalogVersion {
            expected: header.base_catalog_version,
            got: base_catalog_version,
        });
    }
    if (base.bit_count(), base.hash_count()) != (header.target.bit_count, header.target.hash_count)
    {
        return wrong(BaseMismatch::Layout {
            expected_bit_count: header.target.bit_count,
            expected_hash_count: header.target.hash_count,
            got_bit_count: base.bit_count(),
            got_hash_count: base.hash_count(),
        });
    }
    let set = base.bits().count_ones();
    if set != header.base_set_bit_count {
        return wrong(BaseMismatch::SetBitCount {
            expected: header.base_set_bit_count,
            got: set,
        });
    }
    Ok(())
}
