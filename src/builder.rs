//! A filter built from a digest stream in ascending byte order, the seed's
//! "deduplicate from a sorted digest stream; provide an exact unique count":
//! memory is the bit array plus one piece, however long the stream. Equal
//! neighbours (within a piece or across two) count once; a digest below
//! the one before is refused (`Unsorted`), so an unsorted source can never
//! be counted wrong. The result is bit-identical to
//! [`ArtifactBloomFilter::create_packed`] of the same unique digests.

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

/// The build in progress.
#[derive(Debug)]
pub struct SortedBuilder {
    filter: ArtifactBloomFilter,
    expected_item_count: u64,
    last: Option<[u8; DIGEST_LENGTH]>,
    unique: u64,
    seen: u64,
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
        }
    }

    /// Adds the next piece: whole 32-byte records, ascending, continuing the
    /// previous piece. Returns how many were new. A refused piece adds
    /// nothing (the build stays as it was before it): the piece is checked
    /// whole before a bit is set, then its runs of new digests go to
    /// `insert_packed` straight from `packed` (no copy of the piece).
    pub fn push(&mut self, packed: &[u8]) -> Result<u64, BuildError> {
        if packed.len() % DIGEST_LENGTH != 0 {
            return Err(BloomError::InvalidDigest.into());
        }
        let added = self.count_new(packed)?;
        if self.unique + added > self.expected_item_count {
            return Err(BloomError::CapacityExceeded.into());
        }
        // Runs of strictly ascending digests are inserted whole (the packed
        // path's pipelined probes); a duplicate of its predecessor ends one.
        let mut run_start = 0;
        for (position, record) in packed.chunks_exact(DIGEST_LENGTH).enumerate() {
            let offset = position * DIGEST_LENGTH;
            if self.last.as_ref().is_some_and(|last| record == last.as_slice()) {
                self.filter.insert_packed(&packed[run_start..offset]);
                run_start = offset + DIGEST_LENGTH;
            } else {
                let mut digest = [0u8; DIGEST_LENGTH];
                digest.copy_from_slice(record);
                self.last = Some(digest);
            }
        }
        self.filter.insert_packed(&packed[run_start..]);
        self.unique += added;
        self.seen += (packed.len() / DIGEST_LENGTH) as u64;
        Ok(added)
    }

    /// The digests of `packed` that differ from their predecessor, or
    /// `Unsorted` naming the first one below it. Changes nothing.
    fn count_new(&self, packed: &[u8]) -> Result<u64, BuildError> {
        let mut previous: Option<&[u8]> = self.last.as_ref().map(|last| last.as_slice());
        let mut added = 0;
        for (offset, record) in packed.chunks_exact(DIGEST_LENGTH).enumerate() {
            match previous.map(|previous| record.cmp(previous)) {
                Some(std::cmp::Ordering::Less) => {
                    return Err(BuildError::Unsorted { index: self.seen + offset as u64 })
                }
                Some(std::cmp::Ordering::Equal) => {}
                _ => added += 1,
            }
            previous = Some(record);
        }
        Ok(added)
    }

    /// Unique digests so far.
    pub fn unique_count(&self) -> u64 {
        self.unique
    }

    /// Digests pushed so far, duplicates included (the index `Unsorted` counts in).
    pub fn seen_count(&self) -> u64 {
        self.seen
    }

    /// The filter, its insertedItemCount the exact unique count.
    pub fn finish(self) -> ArtifactBloomFilter {
        self.filter.with_inserted_item_count(self.unique)
    }
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

    /// The build of `digests` (sorted here, duplicates kept) pushed in pieces of `piece` digests.
    fn build_in_pieces(digests: &mut [[u8; DIGEST_LENGTH]], piece: usize, spec: &BloomSpec) -> ArtifactBloomFilter {
        digests.sort_unstable();
        let mut builder = SortedBuilder::new(spec).unwrap();
        for chunk in digests.concat().chunks(piece * DIGEST_LENGTH) {
            builder.push(chunk).unwrap();
        }
        assert_eq!(builder.seen_count(), digests.len() as u64);
        builder.finish()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        #[test]
        fn equals_create_packed_over_a_small_alphabet(
            mut digests in proptest::collection::vec(proptest::array::uniform32(0u8..4), 0..300),
            piece in 1usize..40,
        ) {
            // Bytes from 0..4: long runs of equal digests, within and across pieces.
            let built = build_in_pieces(&mut digests, piece, &SPEC);
            let mut unique = digests.clone();
            unique.dedup();
            proptest::prop_assert_eq!(built, ArtifactBloomFilter::create_packed(&unique.concat(), &SPEC).unwrap());
        }

        #[test]
        fn equals_create_packed_for_random_digests_with_repeats(
            distinct in proptest::collection::vec(proptest::array::uniform32(proptest::prelude::any::<u8>()), 1..400),
            repeats in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..100),
            piece in 1usize..64,
        ) {
            let spec = BloomSpec { expected_item_count: 400, target_false_positive_rate: 0.001 };
            let mut digests = distinct.clone();
            digests.extend(repeats.iter().map(|at| distinct[at.index(distinct.len())]));
            let built = build_in_pieces(&mut digests, piece, &spec);
            let mut unique = distinct;
            unique.sort_unstable();
            unique.dedup();
            proptest::prop_assert_eq!(built.inserted_item_count(), unique.len() as u64);
            proptest::prop_assert_eq!(built, ArtifactBloomFilter::create_packed(&unique.concat(), &spec).unwrap());
        }
    }

    #[test]
    fn a_refused_piece_adds_nothing_even_after_runs_and_duplicates() {
        // The refusal comes after new digests and a duplicate in the same
        // piece: none of them may have set a bit.
        let unique = sorted_unique(0..8);
        let mut builder = SortedBuilder::new(&SPEC).unwrap();
        builder.push(&unique[..2].concat()).unwrap();
        let piece = [unique[1], unique[2], unique[2], unique[3], unique[0]].concat();
        assert_eq!(builder.push(&piece), Err(BuildError::Unsorted { index: 6 }));
        let spec = BloomSpec { expected_item_count: 4, ..SPEC };
        let mut full = SortedBuilder::new(&spec).unwrap();
        full.push(&unique[..2].concat()).unwrap();
        let over = [unique[2], unique[2], unique[3], unique[4]].concat();
        assert_eq!(full.push(&over), Err(BuildError::Bloom(BloomError::CapacityExceeded)));
        assert_eq!((builder.unique_count(), builder.seen_count()), (2, 2));
        let two = ArtifactBloomFilter::create_packed(&unique[..2].concat(), &SPEC).unwrap();
        assert_eq!(builder.finish(), two);
        assert_eq!(full.finish(), ArtifactBloomFilter::create_packed(&unique[..2].concat(), &spec).unwrap());
    }

    #[test]
    fn an_empty_build_is_create_packed_of_nothing() {
        let mut builder = SortedBuilder::new(&SPEC).unwrap();
        assert_eq!(builder.push(&[]), Ok(0));
        let filter = builder.finish();
        assert_eq!(filter.inserted_item_count(), 0);
        assert_eq!(filter, ArtifactBloomFilter::create_packed(&[], &SPEC).unwrap());
    }
}
