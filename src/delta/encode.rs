//! Writing deltas: [`encode`] from two snapshots, [`compose`] from two
//! chained deltas. Both go through [`write_delta`], so the same positions
//! always give the same bytes.

use super::format::{bytes_for_bits, DeltaHeader, FORMAT_VERSION, POSITION_ENCODING_RICE, SHA256_LENGTH};
use super::rice::{best_parameter, BitWriter, GapStatistics, Gaps, RankDecoder};
use super::{payload_sha256, reserve, BaseMismatch, Delta, DeltaError};
use crate::abf1;
use crate::bits::BitArray;
use crate::filter::ArtifactBloomFilter;
use crate::hashing;

/// Everything in a delta's header except what the positions decide.
struct Frame {
    base_catalog_version: u64,
    base_set_bit_count: u64,
    base_payload_sha256: [u8; SHA256_LENGTH],
    target_payload_sha256: [u8; SHA256_LENGTH],
    target: abf1::Header,
}

/// A sink for strictly increasing zero-bit ranks.
type Sink<'s> = &'s mut dyn FnMut(u64);

/// The delta from `base` (at `base_catalog_version`) to `target`: the bits
/// `target` sets that `base` does not. Fails when there is no such delta:
/// `incompatibleLayout`, `notNewer`, the ABF1 encoder's own codes for a
/// target it would not write, `notSuperset`.
pub fn encode(
    base: &ArtifactBloomFilter,
    base_catalog_version: u64,
    target: &ArtifactBloomFilter,
    target_catalog_version: u64,
) -> Result<Vec<u8>, DeltaError> {
    if base.bit_count() != target.bit_count() || base.hash_count() != target.hash_count() {
        return Err(DeltaError::IncompatibleLayout {
            base_bit_count: base.bit_count(),
            base_hash_count: base.hash_count(),
            target_bit_count: target.bit_count(),
            target_hash_count: target.hash_count(),
        });
    }
    if target_catalog_version <= base_catalog_version {
        return Err(DeltaError::NotNewer { base_catalog_version, target_catalog_version });
    }
    // The target header exactly as the ABF1 encoder writes it, checksum included.
    let target_file = abf1::encode(target, target_catalog_version).map_err(DeltaError::Encode)?;
    let target_header = abf1::parse_header(&target_file).map_err(DeltaError::InvalidTargetHeader)?;
    let target_payload_sha256 = hashing::sha256(target_file.get(abf1::OFFSET_PAYLOAD..).unwrap_or_default());
    drop(target_file);
    let (base_bits, target_bits) = (base.bits(), target.bits());
    check_superset(base_bits, target_bits)?;
    let frame = Frame {
        base_catalog_version,
        base_set_bit_count: base_bits.count_ones(),
        base_payload_sha256: payload_sha256(base_bits),
        target_payload_sha256,
        target: target_header,
    };
    write_delta(frame, &mut |sink| {
        new_ranks(base_bits, target_bits, sink);
        Ok(())
    })
}

/// `notSuperset` when `target` clears any bit of `base` (same word count).
fn check_superset(base: &BitArray, target: &BitArray) -> Result<(), DeltaError> {
    let mut removed_bits = 0u64;
    let mut first_position = None;
    for (index, (b, t)) in (0u64..).zip(base.words().iter().zip(target.words())) {
        let removed = b & !t;
        if removed != 0 {
            removed_bits += u64::from(removed.count_ones());
            first_position.get_or_insert(index * 64 + u64::from(removed.trailing_zeros()));
        }
    }
    match first_position {
        Some(first_position) => Err(DeltaError::NotSuperset { removed_bits, first_position }),
        None => Ok(()),
    }
}

/// Each bit set in `target` but not in `base`, as its rank among the zero
/// bits of `base`, in increasing order.
fn new_ranks(base: &BitArray, target: &BitArray, sink: Sink<'_>) {
    let mut zeros_before = 0u64;
    for (&b, &t) in base.words().iter().zip(target.words()) {
        let mut added = t & !b;
        while added != 0 {
            let below = (1u64 << added.trailing_zeros()) - 1;
            sink(zeros_before + u64::from((!b & below).count_ones()));
            added &= added - 1;
        }
        zeros_before += u64::from((!b).count_ones());
    }
}

/// The delta A→C from the deltas A→B (`first`) and B→C (`second`); equal,
/// byte for byte, to [`encode`] of A and C. `notChained` when `second` does
/// not start from the snapshot `first` ends at.
pub fn compose(first: &[u8], second: &[u8]) -> Result<Vec<u8>, DeltaError> {
    let (a, b) = (Delta::parse(first)?, Delta::parse(second)?);
    let (ha, hb) = (a.header(), b.header());
    let broken = if hb.base_catalog_version != ha.target.catalog_version {
        Some(BaseMismatch::CatalogVersion { expected: ha.target.catalog_version, got: hb.base_catalog_version })
    } else if (hb.target.bit_count, hb.target.hash_count) != (ha.target.bit_count, ha.target.hash_count) {
        Some(BaseMismatch::Layout {
            expected_bit_count: ha.target.bit_count,
            expected_hash_count: ha.target.hash_count,
            got_bit_count: hb.target.bit_count,
            got_hash_count: hb.target.hash_count,
        })
    } else if hb.base_set_bit_count != ha.base_set_bit_count + ha.position_count {
        Some(BaseMismatch::SetBitCount {
            expected: ha.base_set_bit_count + ha.position_count,
            got: hb.base_set_bit_count,
        })
    } else if hb.base_payload_sha256 != ha.target_payload_sha256 {
        Some(BaseMismatch::PayloadChecksum)
    } else {
        None
    };
    if let Some(mismatch) = broken {
        return Err(DeltaError::NotChained(mismatch));
    }
    let frame = Frame {
        base_catalog_version: ha.base_catalog_version,
        base_set_bit_count: ha.base_set_bit_count,
        base_payload_sha256: ha.base_payload_sha256,
        target_payload_sha256: hb.target_payload_sha256,
        target: hb.target.clone(),
    };
    write_delta(frame, &mut |sink| merge(a.ranks(), b.ranks(), sink))
}

/// The union of A→B's ranks (over A's zeros) and B→C's ranks (over B's
/// zeros, i.e. A's zeros without the first list), all as ranks over A's
/// zeros: B-rank `r` is the A-rank `r + taken`, `taken` being how many of the
/// first list's ranks lie at or below it.
fn merge(mut first: RankDecoder<'_>, mut second: RankDecoder<'_>, sink: Sink<'_>) -> Result<(), DeltaError> {
    let mut pending = first.next_rank()?;
    let mut taken = 0u64;
    while let Some(rank) = second.next_rank()? {
        while let Some(earlier) = pending.filter(|&p| p <= rank + taken) {
            sink(earlier);
            taken += 1;
            pending = first.next_rank()?;
        }
        sink(rank + taken);
    }
    while let Some(earlier) = pending {
        sink(earlier);
        pending = first.next_rank()?;
    }
    Ok(())
}

/// Two passes over the ranks: the first picks the Rice parameter and sizes
/// the output exactly, the second writes into the one reservation. (`dyn`:
/// one copy of this function in the .wasm for both callers.)
fn write_delta(frame: Frame, ranks: &mut dyn FnMut(Sink<'_>) -> Result<(), DeltaError>) -> Result<Vec<u8>, DeltaError> {
    let mut statistics = GapStatistics::default();
    let mut gaps = Gaps::default();
    ranks(&mut |rank| statistics.add(gaps.of(rank)))?;
    let (k, body_bits) = best_parameter(statistics.count, &statistics.sum_of_quotients);
    let header = DeltaHeader {
        format_version: FORMAT_VERSION,
        position_encoding: POSITION_ENCODING_RICE,
        rice_parameter: k,
        base_catalog_version: frame.base_catalog_version,
        base_set_bit_count: frame.base_set_bit_count,
        base_payload_sha256: frame.base_payload_sha256,
        target_payload_sha256: frame.target_payload_sha256,
        position_count: statistics.count,
        body_length: bytes_for_bits(body_bits),
        target: frame.target,
    };
    let mut out = reserve(header.total_length())?;
    out.extend_from_slice(&header.to_bytes());
    let mut writer = BitWriter::new(&mut out);
    let mut gaps = Gaps::default();
    ranks(&mut |rank| writer.put(gaps.of(rank), k))?;
    writer.finish();
    let checksum = hashing::sha256(&out);
    out.extend_from_slice(&checksum);
    Ok(out)
}
