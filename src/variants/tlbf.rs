//! TLBF: the Bloom filter byte-compatible with
//! `tl_ds::bloom::Bloom` and the Python dedup implementation.
//!
//! Probes are FNV-1a 64 plus the SplitMix64 finalizer (Kirsch–Mitzenmacher
//! double hashing, wrapping mod 2^64, then mod m). Bit g is byte g/8, bit g%8,
//! LSB first — exactly the shared [`BitArray`]'s little-endian byte form, so
//! the filter keeps its bits there and only trims the serialized tail to
//! `ceil(m/8)` bytes (m need not be a multiple of 64).
//!
//! Beyond the seed's rejections, `from_bytes` also refuses (each documented
//! on [`TlbfError`]): m above 2^30 bits (checked before any allocation),
//! k above [`MAXIMUM_HASH_COUNT`], and set bits in the unused high end of the
//! last byte. The seed requires writers to leave those bits 0; refusing them
//! keeps `from_bytes(b)?.to_bytes() == b` for every accepted input.

use crate::bits::{BitArray, WORD_BITS, WORD_BYTES};
use crate::bytes::{read_u32, read_u64};
use crate::error::coded_errors;
use crate::fallible::{self, OutOfMemory};
use crate::layout::MAXIMUM_BIT_COUNT;
use crate::variants::sizing::{checked_optimal_params, SizingError, MAXIMUM_HASH_COUNT};

/// The first four bytes of every TLBF file.
pub const MAGIC: [u8; 4] = *b"TLBF";
/// The only format version.
pub const VERSION: u32 = 1;
/// Bytes before the bit array.
pub const HEADER_LENGTH: usize = 32;

const VERSION_OFFSET: usize = 4;
const M_OFFSET: usize = 8;
const K_OFFSET: usize = 16;
const RESERVED_OFFSET: usize = 20;
const COUNT_OFFSET: usize = 24;

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

coded_errors! {
    /// Every way building, merging or decoding a TLBF can fail. `from_bytes`
    /// checks in this order, from `truncated` on.
    pub enum TlbfError in "tlbf" {
        InvalidExpectedItemCount => "invalidExpectedItemCount",
        InvalidFalsePositiveRate => "invalidFalsePositiveRate",
        IncompatibleFilters => "incompatibleFilters",
        Truncated => "truncated",
        BadMagic => "badMagic",
        UnsupportedVersion => "unsupportedVersion",
        ZeroBitCount => "zeroBitCount",
        ZeroHashCount => "zeroHashCount",
        NonZeroReserved => "nonZeroReserved",
        FilterTooLarge => "filterTooLarge",
        HashCountTooLarge => "hashCountTooLarge",
        LengthMismatch => "lengthMismatch",
        NonZeroPadding => "nonZeroPadding",
        OutOfMemory => "outOfMemory",
    }
}

impl From<OutOfMemory> for TlbfError {
    fn from(_: OutOfMemory) -> Self {
        TlbfError::OutOfMemory
    }
}

impl From<SizingError> for TlbfError {
    fn from(error: SizingError) -> Self {
        match error {
            SizingError::InvalidExpectedItemCount => TlbfError::InvalidExpectedItemCount,
            SizingError::InvalidFalsePositiveRate => TlbfError::InvalidFalsePositiveRate,
            SizingError::FilterTooLarge => TlbfError::FilterTooLarge,
        }
    }
}

/// FNV-1a 64 of `data`.
pub fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(FNV_OFFSET_BASIS, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

/// The SplitMix64 finalizer.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The k positions `((h1 + i·h2) mod 2^64) mod m` of `item`, in order.
/// Adding h2 with wrapping each step equals `h1 + i·h2 mod 2^64`.
fn probe_walk(item: &[u8], m: u64, k: u32) -> impl Iterator<Item = u64> {
    let h1 = fnv1a64(item);
    let h2 = mix64(h1) | 1;
    (0..u64::from(k)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % m)
}

/// `ceil(m / 8)`: bytes of the serialized bit array.
fn byte_length(m: u64) -> u64 {
    m.div_ceil(8)
}

/// A TLBF Bloom filter: m bits, k probes, and the count of insert calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlBloom {
    m: u64,
    k: u32,
    n_inserted: u64,
    /// `ceil(m/64)` words; bits at positions ≥ m are always 0.
    bits: BitArray,
}

impl TlBloom {
    /// Sizes for n items at false-positive rate p (the TLBF format's "Sizing").
    pub fn with_rate(n: u64, p: f64) -> Result<Self, TlbfError> {
        let (m, k) = checked_optimal_params(n, p)?;
        Self::empty(m, k)
    }

    /// An empty filter; the caller has bounded `m` by 2^30 and made it non-zero.
    fn empty(m: u64, k: u32) -> Result<Self, TlbfError> {
        let words = m.div_ceil(WORD_BITS) as usize;
        Ok(TlBloom { m, k, n_inserted: 0, bits: BitArray::zeroed(words)? })
    }

    /// Bits in the filter.
    pub fn m(&self) -> u64 {
        self.m
    }

    /// Probes per item.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Insert calls so far (union adds both counts, saturating at 2^64 − 1).
    pub fn n_inserted(&self) -> u64 {
        self.n_inserted
    }

    /// The positions g_0 .. g_{k-1} that `item` sets or tests.
    pub fn probes(&self, item: &[u8]) -> Vec<u64> {
        probe_walk(item, self.m, self.k).collect()
    }

    /// Sets the k bits of `item` and counts the call.
    pub fn insert(&mut self, item: &[u8]) {
        for bit in probe_walk(item, self.m, self.k) {
            self.bits.set(bit);
        }
        self.n_inserted = self.n_inserted.saturating_add(1);
    }

    /// `false`: never inserted. `true`: probably inserted.
    pub fn contains(&self, item: &[u8]) -> bool {
        probe_walk(item, self.m, self.k).all(|bit| self.bits.get(bit))
    }

    /// ORs `other` into this filter and adds the counts.
    pub fn union(&mut self, other: &TlBloom) -> Result<(), TlbfError> {
        if self.m != other.m || self.k != other.k {
            return Err(TlbfError::IncompatibleFilters);
        }
        self.bits.or_assign(&other.bits);
        self.n_inserted = self.n_inserted.saturating_add(other.n_inserted);
        Ok(())
    }

    /// Set bits over m.
    pub fn fill_ratio(&self) -> f64 {
        self.bits.count_ones() as f64 / self.m as f64
    }

    /// The seed's byte layout: 32-byte header, then `ceil(m/8)` bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TlbfError> {
        let total = HEADER_LENGTH + byte_length(self.m) as usize;
        let mut out = fallible::with_capacity(HEADER_LENGTH + self.bits.byte_count())?;
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.m.to_le_bytes());
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.n_inserted.to_le_bytes());
        self.bits.write_le_bytes(&mut out)?;
        // The words' tail beyond ceil(m/8) bytes holds only zero bits.
        out.truncate(total);
        Ok(out)
    }

    /// Parses the seed's layout, refusing everything listed on [`TlbfError`].
    /// The header is fully checked before the bit array is allocated, and the
    /// allocation is bounded by the input's own length.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TlbfError> {
        let header = Header::parse(bytes)?;
        let body = &bytes[HEADER_LENGTH..];
        if body.len() as u64 != byte_length(header.m) {
            return Err(TlbfError::LengthMismatch);
        }
        let used_in_last = header.m % 8;
        if used_in_last != 0 && body.last().is_some_and(|&b| b >> used_in_last != 0) {
            return Err(TlbfError::NonZeroPadding);
        }
        let mut words = fallible::with_capacity(body.len().div_ceil(WORD_BYTES))?;
        words.extend(body.chunks(WORD_BYTES).map(|chunk| {
            let mut word = [0u8; WORD_BYTES];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        }));
        Ok(TlBloom { m: header.m, k: header.k, n_inserted: header.n_inserted, bits: BitArray::from_words(words) })
    }
}

/// The validated fixed header.
struct Header {
    m: u64,
    k: u32,
    n_inserted: u64,
}

impl Header {
    /// Checks, in order: length, magic, version, m ≠ 0, k ≠ 0, reserved,
    /// m ≤ 2^30, k ≤ [`MAXIMUM_HASH_COUNT`].
    fn parse(bytes: &[u8]) -> Result<Header, TlbfError> {
        if bytes.len() < HEADER_LENGTH {
            return Err(TlbfError::Truncated);
        }
        if bytes[..VERSION_OFFSET] != MAGIC {
            return Err(TlbfError::BadMagic);
        }
        if read_u32(bytes, VERSION_OFFSET) != VERSION {
            return Err(TlbfError::UnsupportedVersion);
        }
        let m = read_u64(bytes, M_OFFSET);
        let k = read_u32(bytes, K_OFFSET);
        if m == 0 {
            return Err(TlbfError::ZeroBitCount);
        }
        if k == 0 {
            return Err(TlbfError::ZeroHashCount);
        }
        if read_u32(bytes, RESERVED_OFFSET) != 0 {
            return Err(TlbfError::NonZeroReserved);
        }
        if m > MAXIMUM_BIT_COUNT {
            return Err(TlbfError::FilterTooLarge);
        }
        if k > MAXIMUM_HASH_COUNT {
            return Err(TlbfError::HashCountTooLarge);
        }
        Ok(Header { m, k, n_inserted: read_u64(bytes, COUNT_OFFSET) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_worked_example() {
        let mut filter = TlBloom::with_rate(4, 0.1).unwrap();
        assert_eq!((filter.m(), filter.k()), (20, 3));
        assert_eq!(filter.probes(b"cat"), vec![11, 14, 17]);
        assert_eq!(filter.probes(b"dog"), vec![13, 0, 3]);
        assert_eq!(filter.probes(b"bird"), vec![14, 7, 16]);
        filter.insert(b"cat");
        filter.insert(b"dog");
        assert!(!filter.contains(b"bird"));
        let bytes = filter.to_bytes().unwrap();
        assert_eq!(bytes.len(), 35);
        assert_eq!(bytes[32..], [0x09, 0x68, 0x02]);
        assert_eq!(TlBloom::from_bytes(&bytes).unwrap(), filter);
    }

    #[test]
    fn padding_bits_are_refused() {
        let mut bytes = TlBloom::with_rate(4, 0.1).unwrap().to_bytes().unwrap();
        bytes[34] = 0x10; // bit 20 = m: the first unused bit
        assert_eq!(TlBloom::from_bytes(&bytes), Err(TlbfError::NonZeroPadding));
        bytes[34] = 0x08; // bit 19: the last real bit
        assert!(TlBloom::from_bytes(&bytes).is_ok());
    }

    #[test]
    fn union_adds_counts_and_checks_shape() {
        let mut a = TlBloom::with_rate(4, 0.1).unwrap();
        let mut b = a.clone();
        a.insert(b"cat");
        b.insert(b"dog");
        a.union(&b).unwrap();
        assert!(a.contains(b"cat") && a.contains(b"dog"));
        assert_eq!(a.n_inserted(), 2);
        let other = TlBloom::with_rate(5, 0.1).unwrap();
        assert_eq!(a.union(&other), Err(TlbfError::IncompatibleFilters));
    }
}
