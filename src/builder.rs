//! A filter built from a digest stream in ascending byte order, the seed's
//! "deduplicate from a sorted digest stream; provide an exact unique count":
//! memory is the bit array plus one piece, however long the stream. Equal
//! neighbours (within a piece or across two) count once; a digest below
//! the one before is refused (`Unsorted`), so an unsorted source can never
//! be counted wrong. The result is bit-identical to
//! [`ArtifactBloomFilter::create_packed`] of the same unique digests.

use crate::fallible::{self, OutOfMemory};
use crate::filter::ArtifactBloomFilter;
use crate::layout::{BloomError, BloomSpec};
use crate::probe::DIGEST_LENGTH;

/// Why a piece was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A spec, capacity (more unique digests than expectedItemCount),
    /// length (not whole 32-byte records) or memory failure.
    Bloom(BloomError),
    /// The digest at `index` (counted over the whole stream) is below the one before it.
    Unsorted { index: u64 },
}

impl From<BloomError> for BuildError {
    fn from(error: BloomError) -> Self {
        BuildError::Bloom(error)
    }
}

impl From<OutOfMemory> for BuildError {
    fn from(_: OutOfMemory) -> Self {
        BuildError::Bloom(BloomError::OutOfMemory)
    }
}

/// The build in progress.
#[derive(Debug)]
pub struct SortedBuilder {
    filter: ArtifactBloomFilter,
    expected_item_count: u64,
    last: Option<[u8; DIGEST_LENGTH]>,
    unique: u64,
    seen: u64,
    /// The piece's new digests, inserted together (the packed path's blocks).
    fresh: Vec<u8>,
}

impl SortedBuilder {
    /// An empty build for `spec` (its layout checks, then the bit array).
    pub fn new(spec: &BloomSpec) -> Result<Self, BloomError> {
        Ok(SortedBuilder {
            filter: ArtifactBloomFilter::empty(spec)?,
            expected_item_count: spec.expected_item_count,
            last: None,
            unique: 0,
            seen: 0,
            fresh: Vec::new(),
        })
    }

    /// A build that continues `filter` (a published version of a store
    /// that only grows): its bits and count are kept, and the pieces add
    /// the digests that arrived since — the caller vouches that they are
    /// new (they are sorted and counted among themselves; a Bloom filter
    /// cannot tell whether one was already in it). Capacity is the
    /// filter's own expectedItemCount.
    pub fn continuing(filter: ArtifactBloomFilter) -> Self {
        let spec = *filter.spec();
        SortedBuilder {
            unique: filter.inserted_item_count(),
            filter,
            expected_item_count: spec.expected_item_count,
            last: None,
            seen: 0,
            fresh: Vec::new(),
        }
    }

    /// Adds the next piece: whole 32-byte records, ascending, continuing the
    /// previous piece. Returns how many were new. A refused piece adds
    /// nothing (the build stays as it was before it).
    pub fn push(&mut self, packed: &[u8]) -> Result<u64, BuildError> {
        if packed.len() % DIGEST_LENGTH != 0 {
            return Err(BloomError::InvalidDigest.into());
        }
        self.fresh.clear();
        fallible::try_reserve_exact(&mut self.fresh, packed.len()).map_err(|_| OutOfMemory::of::<u8>(packed.len()))?;
        let mut last = self.last;
        for (offset, record) in packed.chunks_exact(DIGEST_LENGTH).enumerate() {
            if let Some(previous) = &last {
                match record.cmp(previous.as_slice()) {
                    std::cmp::Ordering::Less => {
                        return Err(BuildError::Unsorted { index: self.seen + offset as u64 });
                    }
                    std::cmp::Ordering::Equal => continue,
                    std::cmp::Ordering::Greater => {}
                }
            }
            let mut digest = [0u8; DIGEST_LENGTH];
            digest.copy_from_slice(record);
            last = Some(digest);
            self.fresh.extend_from_slice(record);
        }
        let added = (self.fresh.len() / DIGEST_LENGTH) as u64;
        if self.unique + added > self.expected_item_count {
            return Err(BloomError::CapacityExceeded.into());
        }
        self.filter.insert_packed(&self.fresh);
        self.unique += added;
        self.seen += (packed.len() / DIGEST_LENGTH) as u64;
        self.last = last;
        Ok(added)
    }

    /// Unique digests so far.
    pub fn unique_count(&self) -> u64 {
        self.unique
    }

    /// The filter, its insertedItemCount the exact unique count.
    pub fn finish(self) -> ArtifactBloomFilter {
        self.filter.with_inserted_item_count(self.unique)
    }
}

/// One run of an external sort: `packed`'s digests in ascending order,
/// each once (a copy; `packed` is the caller's). `InvalidDigest` for a
/// partial record, `OutOfMemory` when the copy cannot be reserved.
pub fn sort_unique_packed(packed: &[u8]) -> Result<Vec<u8>, BloomError> {
    if packed.len() % DIGEST_LENGTH != 0 {
        return Err(BloomError::InvalidDigest);
    }
    let count = packed.len() / DIGEST_LENGTH;
    let mut records: Vec<[u8; DIGEST_LENGTH]> = Vec::new();
    fallible::try_reserve_exact(&mut records, count).map_err(|_| BloomError::OutOfMemory)?;
    for record in packed.chunks_exact(DIGEST_LENGTH) {
        let mut digest = [0u8; DIGEST_LENGTH];
        digest.copy_from_slice(record);
        records.push(digest);
    }
    records.sort_unstable();
    records.dedup();
    let mut sorted = Vec::new();
    fallible::try_reserve_exact(&mut sorted, records.len() * DIGEST_LENGTH).map_err(|_| BloomError::OutOfMemory)?;
    for digest in &records {
        sorted.extend_from_slice(digest);
    }
    Ok(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(seed: u64) -> [u8; DIGEST_LENGTH] {
        crate::hashing::sha256(&seed.to_le_bytes())
    }

    fn sorted_unique(seeds: impl Iterator<Item = u64>) -> Vec<[u8; DIGEST_LENGTH]> {
        let mut digests: Vec<_> = seeds.map(digest).collect();
        digests.sort_unstable();
        digests.dedup();
        digests
    }

    const SPEC: BloomSpec = BloomSpec { expected_item_count: 5000, target_false_positive_rate: 0.01 };

    #[test]
    fn pieces_with_duplicates_build_create_packed_bit_for_bit() {
        let unique = sorted_unique(0..3000);
        // Every digest twice, split into pieces of odd sizes, so duplicates straddle pieces.
        let doubled: Vec<u8> = unique.iter().flat_map(|d| [d.as_slice(), d.as_slice()].concat()).collect();
        let mut builder = SortedBuilder::new(&SPEC).unwrap();
        for piece in doubled.chunks(32 * 37) {
            builder.push(piece).unwrap();
        }
        assert_eq!(builder.unique_count(), unique.len() as u64);
        let packed: Vec<u8> = unique.concat();
        assert_eq!(builder.finish(), ArtifactBloomFilter::create_packed(&packed, &SPEC).unwrap());
    }

    #[test]
    fn a_digest_below_its_predecessor_is_refused_with_its_index_and_adds_nothing() {
        let unique = sorted_unique(0..10);
        let mut builder = SortedBuilder::new(&SPEC).unwrap();
        builder.push(&unique[..4].concat()).unwrap();
        let mut piece = unique[4..8].concat();
        piece[64..96].copy_from_slice(&unique[0]);
        assert_eq!(builder.push(&piece), Err(BuildError::Unsorted { index: 6 }));
        assert_eq!(builder.unique_count(), 4);
        builder.push(&unique[4..].concat()).unwrap();
        assert_eq!(builder.finish(), ArtifactBloomFilter::create_packed(&unique.concat(), &SPEC).unwrap());
    }

    #[test]
    fn continuing_a_filter_with_the_new_digests_equals_the_full_build() {
        let unique = sorted_unique(0..4000);
        let (old, new): (Vec<_>, Vec<_>) = unique.iter().enumerate().partition(|(index, _)| index % 3 != 0);
        let old: Vec<[u8; DIGEST_LENGTH]> = old.into_iter().map(|(_, d)| *d).collect();
        let new: Vec<[u8; DIGEST_LENGTH]> = new.into_iter().map(|(_, d)| *d).collect();
        let mut first = SortedBuilder::new(&SPEC).unwrap();
        first.push(&old.concat()).unwrap();
        let mut next = SortedBuilder::continuing(first.finish());
        next.push(&new.concat()).unwrap();
        assert_eq!(next.finish(), ArtifactBloomFilter::create_packed(&unique.concat(), &SPEC).unwrap());
    }

    #[test]
    fn a_run_is_sorted_and_unique() {
        let unique = sorted_unique(0..500);
        let mut shuffled: Vec<[u8; DIGEST_LENGTH]> = unique.iter().rev().copied().collect();
        shuffled.extend_from_slice(&unique[..100]);
        assert_eq!(sort_unique_packed(&shuffled.concat()).unwrap(), unique.concat());
        assert_eq!(sort_unique_packed(&[0u8; 31]), Err(BloomError::InvalidDigest));
    }

    #[test]
    fn capacity_counts_unique_digests_and_a_partial_record_is_invalid() {
        let spec = BloomSpec { expected_item_count: 3, target_false_positive_rate: 0.01 };
        let unique = sorted_unique(0..4);
        let mut builder = SortedBuilder::new(&spec).unwrap();
        let same_three = [unique[0], unique[0], unique[1], unique[2], unique[2]].concat();
        assert_eq!(builder.push(&same_three), Ok(3));
        assert_eq!(builder.push(&unique[3]), Err(BuildError::Bloom(BloomError::CapacityExceeded)));
        assert_eq!(builder.push(&[0u8; 33]), Err(BuildError::Bloom(BloomError::InvalidDigest)));
        assert_eq!(builder.finish().inserted_item_count(), 3);
    }
}
