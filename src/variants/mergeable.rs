//! The mergeable Bloom filter (MBLF): a state-based CRDT whose join is
//! the bitwise OR of the shared [`BitArray`], with sparse deltas.
//!
//! Probes: `h1 = murmur3(x, 0)`, `h2 = murmur3(x, h1)`,
//! `g_i = (h1 + i·h2) mod m` in exact u64 arithmetic (i < k ≤ 4096 and
//! h1, h2 < 2^32, so nothing wraps). Items are byte strings; the contract's
//! string items are their UTF-8 bytes. Wire layout: `docs/mergeable-format.md`.

use std::cmp::Reverse;

use crate::bits::{BitArray, FromBytesError, WORD_BITS, WORD_BYTES};
use crate::bytes::{read_u32, read_u64};
use crate::error::coded_errors;
use crate::fallible::{self, OutOfMemory};
use crate::layout::{align_to_word, MAXIMUM_BIT_COUNT};
use crate::variants::murmur3::hash_pair;
use crate::variants::sizing::{checked_optimal_params, SizingError, MAXIMUM_HASH_COUNT};

/// The first four bytes of every encoded state or delta.
pub const MAGIC: [u8; 4] = *b"MBLF";
/// The only format version.
pub const VERSION: u16 = 1;
/// Bytes before the body.
pub const HEADER_LENGTH: usize = 24;
/// The SHA-256 trailer over everything before it.
pub const CHECKSUM_LENGTH: usize = 32;
/// Bytes per sparse entry: u32 word index, u64 word value.
pub const SPARSE_ENTRY_LENGTH: usize = 12;

const VERSION_OFFSET: usize = 4;
const KIND_OFFSET: usize = 6;
const RESERVED_OFFSET: usize = 7;
const BIT_COUNT_OFFSET: usize = 8;
const HASH_COUNT_OFFSET: usize = 16;
const ENTRY_COUNT_OFFSET: usize = 20;

const KIND_DENSE: u8 = 1;
const KIND_SPARSE: u8 = 2;
const KIND_DELTA: u8 = 3;

coded_errors! {
    /// Every way creating, merging or decoding can fail.
    pub enum MergeableError in "mergeable" {
        InvalidExpectedItemCount => "invalidExpectedItemCount",
        InvalidFalsePositiveRate => "invalidFalsePositiveRate",
        FilterTooLarge => "filterTooLarge",
        IncompatibleFilters => "incompatibleFilters",
        Truncated => "truncated",
        BadMagic => "badMagic",
        UnsupportedVersion => "unsupportedVersion",
        ChecksumMismatch => "checksumMismatch",
        UnknownKind => "unknownKind",
        UnexpectedKind => "unexpectedKind",
        NonZeroReserved => "nonZeroReserved",
        InvalidBitCount => "invalidBitCount",
        ZeroHashCount => "zeroHashCount",
        HashCountTooLarge => "hashCountTooLarge",
        LengthMismatch => "lengthMismatch",
        EntryCountMismatch => "entryCountMismatch",
        WordIndexOutOfRange => "wordIndexOutOfRange",
        WordIndicesNotIncreasing => "wordIndicesNotIncreasing",
        ZeroWordValue => "zeroWordValue",
        NonCanonicalEncoding => "nonCanonicalEncoding",
        OutOfMemory => "outOfMemory",
    }
}

impl From<OutOfMemory> for MergeableError {
    fn from(_: OutOfMemory) -> Self {
        MergeableError::OutOfMemory
    }
}

impl From<SizingError> for MergeableError {
    fn from(error: SizingError) -> Self {
        match error {
            SizingError::InvalidExpectedItemCount => MergeableError::InvalidExpectedItemCount,
            SizingError::InvalidFalsePositiveRate => MergeableError::InvalidFalsePositiveRate,
            SizingError::FilterTooLarge => MergeableError::FilterTooLarge,
        }
    }
}

/// The k positions of `item` over `bit_count` bits, in probe order.
pub fn probe_positions(item: &[u8], bit_count: u64, hash_count: u32) -> impl Iterator<Item = u64> {
    let (h1, h2) = hash_pair(item);
    (0..u64::from(hash_count)).map(move |i| (u64::from(h1) + i * u64::from(h2)) % bit_count)
}

/// The words one `add` changed, as `(wordIndex, wordValue)` pairs with
/// strictly increasing indices and non-zero values, plus the shape of the
/// filter it came from so it is only applied to a compatible one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delta {
    bit_count: u64,
    hash_count: u32,
    words: Vec<(u32, u64)>,
}

impl Delta {
    /// bitCount of the filter the delta belongs to.
    pub fn bit_count(&self) -> u64 {
        self.bit_count
    }

    /// hashCount of the filter the delta belongs to.
    pub fn hash_count(&self) -> u32 {
        self.hash_count
    }

    /// The `(wordIndex, wordValue)` pairs, indices strictly increasing.
    pub fn words(&self) -> &[(u32, u64)] {
        &self.words
    }

    /// True when the add changed nothing (the item's bits were all set).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The wire form (kind 3, see `docs/mergeable-format.md`).
    pub fn encode(&self) -> Result<Vec<u8>, MergeableError> {
        let mut out = header(KIND_DELTA, self.bit_count, self.hash_count, self.words.len())?;
        write_sparse(&mut out, self.words.iter().copied());
        Ok(seal(out))
    }

    /// Parses and fully validates a delta's wire form.
    pub fn decode(bytes: &[u8]) -> Result<Delta, MergeableError> {
        let frame = Frame::parse(bytes)?;
        if frame.kind != KIND_DELTA {
            return Err(MergeableError::UnexpectedKind);
        }
        let words = frame.sparse_entries()?;
        Ok(Delta { bit_count: frame.bit_count, hash_count: frame.hash_count, words })
    }
}

/// A mergeable Bloom filter; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeableBloomFilter {
    bits: BitArray,
    hash_count: u32,
}

impl MergeableBloomFilter {
    /// The contract's `create`: bitCount is the optimum m rounded up to whole
    /// 64-bit words, hashCount is `max(1, round(m/n · ln 2))` of the unrounded
    /// optimum. Replicas created with equal arguments can be pieced.
    pub fn create(expected_elements: u64, false_positive_rate: f64) -> Result<Self, MergeableError> {
        let (m, k) = checked_optimal_params(expected_elements, false_positive_rate)?;
        // m ≤ 2^30, a multiple of 64, so the aligned count stays within the cap.
        let words = (align_to_word(m) / WORD_BITS) as usize;
        Ok(MergeableBloomFilter { bits: BitArray::zeroed(words)?, hash_count: k })
    }

    /// Bits in the filter (a multiple of 64).
    pub fn bit_count(&self) -> u64 {
        self.bits.bit_count()
    }

    /// Probes per item.
    pub fn hash_count(&self) -> u32 {
        self.hash_count
    }

    /// 64-bit words in the filter.
    pub fn word_count(&self) -> usize {
        self.bits.word_count()
    }

    /// Words with at least one bit set (what the sparse encoding carries).
    pub fn non_zero_word_count(&self) -> usize {
        self.bits.non_zero_word_count()
    }

    /// Set bits over all bits.
    pub fn fill_ratio(&self) -> f64 {
        self.bits.fill_ratio()
    }

    /// The words, least significant bit first.
    pub fn words(&self) -> &[u64] {
        self.bits.words()
    }

    /// Sets the item's bits and returns the words that changed. The delta
    /// holds at most hashCount ≤ 4096 entries (64 KiB), a bound of the format
    /// rather than of the caller, so it is allocated the ordinary way.
    pub fn add(&mut self, item: &[u8]) -> Delta {
        let mut words: Vec<(u32, u64)> = probe_positions(item, self.bit_count(), self.hash_count)
            .filter_map(|bit| self.bits.set_reporting(bit))
            // Word indices are below 2^24 because bitCount ≤ 2^30.
            .map(|(index, value)| (index as u32, value))
            .collect();
        // Two probes in one word report it twice, the later value a superset
        // of the earlier: keep the largest, which is the word's final value.
        words.sort_unstable_by_key(|&(index, value)| (index, Reverse(value)));
        words.dedup_by_key(|entry| entry.0);
        Delta { bit_count: self.bit_count(), hash_count: self.hash_count, words }
    }

    /// `false`: never added (here or in anything pieced in). `true`: maybe.
    pub fn might_contain(&self, item: &[u8]) -> bool {
        probe_positions(item, self.bit_count(), self.hash_count).all(|bit| self.bits.get(bit))
    }

    /// Joins another replica's state into this one (bitwise OR).
    pub fn piece(&mut self, other: &MergeableBloomFilter) -> Result<(), MergeableError> {
        self.check_shape(other.bit_count(), other.hash_count)?;
        self.bits.or_assign(&other.bits);
        Ok(())
    }

    /// Joins a delta into this state (OR of its words).
    pub fn piece_delta(&mut self, delta: &Delta) -> Result<(), MergeableError> {
        self.check_shape(delta.bit_count, delta.hash_count)?;
        // A Delta only exists with indices below its own bitCount / 64, which
        // the shape check just made equal to ours.
        for &(index, value) in &delta.words {
            self.bits.or_word(index as usize, value);
        }
        Ok(())
    }

    fn check_shape(&self, bit_count: u64, hash_count: u32) -> Result<(), MergeableError> {
        if bit_count == self.bit_count() && hash_count == self.hash_count {
            Ok(())
        } else {
            Err(MergeableError::IncompatibleFilters)
        }
    }

    /// The wire form: sparse when it is strictly smaller than dense.
    pub fn encode(&self) -> Result<Vec<u8>, MergeableError> {
        let word_count = self.word_count();
        let non_zero = self.non_zero_word_count();
        if sparse_is_smaller(non_zero, word_count) {
            let mut out = header(KIND_SPARSE, self.bit_count(), self.hash_count, non_zero)?;
            let entries = self.words().iter().enumerate().filter(|(_, w)| **w != 0);
            write_sparse(&mut out, entries.map(|(i, w)| (i as u32, *w)));
            Ok(seal(out))
        } else {
            let mut out = header(KIND_DENSE, self.bit_count(), self.hash_count, word_count)?;
            self.bits.write_le_bytes(&mut out)?;
            Ok(seal(out))
        }
    }

    /// Parses and fully validates a state (dense or sparse) before allocating.
    pub fn decode(bytes: &[u8]) -> Result<MergeableBloomFilter, MergeableError> {
        let frame = Frame::parse(bytes)?;
        let word_count = (frame.bit_count / WORD_BITS) as usize;
        let bits = match frame.kind {
            KIND_DENSE => frame.dense_words(word_count)?,
            KIND_SPARSE => {
                let entries = frame.sparse_entries()?;
                if !sparse_is_smaller(entries.len(), word_count) {
                    return Err(MergeableError::NonCanonicalEncoding);
                }
                let mut bits = BitArray::zeroed(word_count)?;
                for (index, value) in entries {
                    bits.or_word(index as usize, value);
                }
                bits
            }
            _ => return Err(MergeableError::UnexpectedKind),
        };
        Ok(MergeableBloomFilter { bits, hash_count: frame.hash_count })
    }
}

/// The encoder's choice, which the decoder enforces: sparse iff smaller.
fn sparse_is_smaller(non_zero: usize, word_count: usize) -> bool {
    (non_zero as u64) * (SPARSE_ENTRY_LENGTH as u64) < (word_count as u64) * (WORD_BYTES as u64)
}

/// The 24-byte header, in a buffer sized for the body and checksum to follow
/// (so neither the body nor [`seal`] reallocates).
fn header(kind: u8, bit_count: u64, hash_count: u32, entries: usize) -> Result<Vec<u8>, OutOfMemory> {
    let body = entries * if kind == KIND_DENSE { WORD_BYTES } else { SPARSE_ENTRY_LENGTH };
    let mut out = fallible::with_capacity(HEADER_LENGTH + body + CHECKSUM_LENGTH)?;
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[kind, 0]);
    out.extend_from_slice(&bit_count.to_le_bytes());
    out.extend_from_slice(&hash_count.to_le_bytes());
    // Entries never exceed bitCount / 64 ≤ 2^24.
    out.extend_from_slice(&(entries as u32).to_le_bytes());
    Ok(out)
}

fn write_sparse(out: &mut Vec<u8>, entries: impl Iterator<Item = (u32, u64)>) {
    for (index, value) in entries {
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// Appends the SHA-256 of everything so far (shared with the scalable format).
/// Callers reserve its 32 bytes with the rest, so the push never reallocates.
pub(crate) fn seal(mut out: Vec<u8>) -> Vec<u8> {
    let checksum = crate::hashing::sha256(&out);
    out.extend_from_slice(&checksum);
    out
}

/// The bytes before a valid SHA-256 trailer, or `None` when the trailer is
/// missing or does not match (shared with the scalable format).
pub(crate) fn verified_content(bytes: &[u8]) -> Option<&[u8]> {
    let split = bytes.len().checked_sub(CHECKSUM_LENGTH)?;
    let (content, checksum) = bytes.split_at(split);
    (crate::hashing::sha256(content).as_slice() == checksum).then_some(content)
}

/// A checked header and the body between it and the checksum.
struct Frame<'a> {
    kind: u8,
    bit_count: u64,
    hash_count: u32,
    entry_count: u32,
    body: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Length, magic, version, checksum, kind, reserved, bitCount, hashCount.
    fn parse(bytes: &'a [u8]) -> Result<Frame<'a>, MergeableError> {
        if bytes.len() < HEADER_LENGTH + CHECKSUM_LENGTH {
            return Err(MergeableError::Truncated);
        }
        if bytes[..VERSION_OFFSET] != MAGIC {
            return Err(MergeableError::BadMagic);
        }
        if u16::from_le_bytes([bytes[VERSION_OFFSET], bytes[VERSION_OFFSET + 1]]) != VERSION {
            return Err(MergeableError::UnsupportedVersion);
        }
        let content = verified_content(bytes).ok_or(MergeableError::ChecksumMismatch)?;
        let kind = bytes[KIND_OFFSET];
        if !(KIND_DENSE..=KIND_DELTA).contains(&kind) {
            return Err(MergeableError::UnknownKind);
        }
        if bytes[RESERVED_OFFSET] != 0 {
            return Err(MergeableError::NonZeroReserved);
        }
        let bit_count = read_u64(bytes, BIT_COUNT_OFFSET);
        if bit_count == 0 || bit_count % WORD_BITS != 0 {
            return Err(MergeableError::InvalidBitCount);
        }
        if bit_count > MAXIMUM_BIT_COUNT {
            return Err(MergeableError::FilterTooLarge);
        }
        let hash_count = read_u32(bytes, HASH_COUNT_OFFSET);
        if hash_count == 0 {
            return Err(MergeableError::ZeroHashCount);
        }
        if hash_count > MAXIMUM_HASH_COUNT {
            return Err(MergeableError::HashCountTooLarge);
        }
        let entry_count = read_u32(bytes, ENTRY_COUNT_OFFSET);
        Ok(Frame { kind, bit_count, hash_count, entry_count, body: &content[HEADER_LENGTH..] })
    }

    /// The body must be exactly entryCount entries: nothing missing or extra.
    fn check_body_length(&self, entry_length: usize) -> Result<(), MergeableError> {
        let expected = u64::from(self.entry_count) * entry_length as u64;
        (self.body.len() as u64 == expected).then_some(()).ok_or(MergeableError::LengthMismatch)
    }

    /// A dense body: exactly `word_count` words, canonical only when sparse
    /// would not be smaller.
    fn dense_words(&self, word_count: usize) -> Result<BitArray, MergeableError> {
        if self.entry_count as usize != word_count {
            return Err(MergeableError::EntryCountMismatch);
        }
        self.check_body_length(WORD_BYTES)?;
        let non_zero = self.body.chunks_exact(WORD_BYTES).filter(|w| w.iter().any(|b| *b != 0)).count();
        if sparse_is_smaller(non_zero, word_count) {
            return Err(MergeableError::NonCanonicalEncoding);
        }
        // The length is checked, so whole words only.
        BitArray::from_le_bytes(self.body).map_err(|error| match error {
            FromBytesError::PartialWord => MergeableError::LengthMismatch,
            FromBytesError::OutOfMemory(_) => MergeableError::OutOfMemory,
        })
    }

    /// A sparse body: entries with increasing in-range indices, non-zero values.
    fn sparse_entries(&self) -> Result<Vec<(u32, u64)>, MergeableError> {
        self.check_body_length(SPARSE_ENTRY_LENGTH)?;
        let word_count = self.bit_count / WORD_BITS;
        let mut previous: Option<u32> = None;
        for entry in self.body.chunks_exact(SPARSE_ENTRY_LENGTH) {
            let index = read_u32(entry, 0);
            if u64::from(index) >= word_count {
                return Err(MergeableError::WordIndexOutOfRange);
            }
            if previous.is_some_and(|p| index <= p) {
                return Err(MergeableError::WordIndicesNotIncreasing);
            }
            if read_u64(entry, 4) == 0 {
                return Err(MergeableError::ZeroWordValue);
            }
            previous = Some(index);
        }
        // Validated; the vector's size is bounded by the input's length.
        let mut entries = fallible::with_capacity(self.body.len() / SPARSE_ENTRY_LENGTH)?;
        entries.extend(self.body.chunks_exact(SPARSE_ENTRY_LENGTH).map(|e| (read_u32(e, 0), read_u64(e, 4))));
        Ok(entries)
    }
}
