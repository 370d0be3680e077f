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
pub fn rebuild(base: &ArtifactBloomFilter, base_catalog_version: u64, delta: &[u8]) -> Result<Vec<u8>, DeltaError> {
    let delta = Delta::parse(delta)?;
    let header = delta.header();
    check_base(base, base_catalog_version, header)?;
    let mut out = reserve((abf1::HEADER_LENGTH as u64).saturating_add(header.target.payload_length))?;
    out.extend_from_slice(&header.target.to_bytes());
    // The base's bits in one pass (a plain copy on little-endian machines)...
    let words = base.bits().words();
    for word in words {
        out.extend_from_slice(&word.to_le_bytes());
    }
    // ...then each rank's bit: walk the words by their zero counts to the one
    // holding that zero, and select it there.
    let payload = out.get_mut(abf1::OFFSET_PAYLOAD..).unwrap_or_default();
    let mut ranks = delta.ranks();
    let (mut index, mut zeros_before, mut decoded) = (0usize, 0u64, 0u64);
    while let Some(rank) = ranks.next_rank()? {
        let out_of_range =
            || DeltaError::PositionOutOfRange { index: decoded, rank, zero_count: header.base_zero_count() };
        // Unreachable errors: parse bounded every rank by bitCount −
        // baseSetBitCount, which check_base made the base's zero count.
        let mut word = *words.get(index).ok_or_else(out_of_range)?;
        while rank - zeros_before >= u64::from(word.count_zeros()) {
            zeros_before += u64::from(word.count_zeros());
            index += 1;
            word = *words.get(index).ok_or_else(out_of_range)?;
        }
        let mut free = !word;
        for _ in 0..rank - zeros_before {
            free &= free - 1;
        }
        let position = index * 64 + free.trailing_zeros() as usize;
        *payload.get_mut(position / 8).ok_or_else(out_of_range)? |= 1 << (position % 8);
        decoded += 1;
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
fn check_base(base: &ArtifactBloomFilter, base_catalog_version: u64, header: &DeltaHeader) -> Result<(), DeltaError> {
    let wrong = |mismatch| Err(DeltaError::WrongBase(mismatch));
    if base_catalog_version != header.base_catalog_version {
        return wrong(BaseMismatch::CatalogVersion {
            expected: header.base_catalog_version,
            got: base_catalog_version,
        });
    }
    if (base.bit_count(), base.hash_count()) != (header.target.bit_count, header.target.hash_count) {
        return wrong(BaseMismatch::Layout {
            expected_bit_count: header.target.bit_count,
            expected_hash_count: header.target.hash_count,
            got_bit_count: base.bit_count(),
            got_hash_count: base.hash_count(),
        });
    }
    let set = base.bits().count_ones();
    if set != header.base_set_bit_count {
        return wrong(BaseMismatch::SetBitCount { expected: header.base_set_bit_count, got: set });
    }
    Ok(())
}
