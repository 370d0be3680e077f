//! A fixed-size bit array stored as 64-bit words.
//!
//! Bit `i` lives in word `i >> 6` at position `i & 63`, which serializes to
//! byte `i >> 3`, bit `i & 7` when the words are written little-endian — the
//! LSB-first byte layout that the reference `serializeBits()` and the ABF1
//! payload use. Every filter in this crate (artifact, mergeable, scalable)
//! shares this type; TLBF keeps bytes because its length is not word aligned.

use crate::fallible::{self, OutOfMemory};

/// Bits in one storage word.
pub const WORD_BITS: u64 = 64;
/// Bytes in one storage word.
pub const WORD_BYTES: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitArray {
    words: Vec<u64>,
}

impl BitArray {
    /// An all-zero array of `word_count` words, or `OutOfMemory`. Callers
    /// check the size first: every public constructor in the crate bounds it
    /// by the 2^30-bit limit.
    pub fn zeroed(word_count: usize) -> Result<Self, OutOfMemory> {
        Ok(BitArray { words: fallible::zeroed_words(word_count)? })
    }

    /// Rebuilds an array from its LSB-first byte form. `bytes.len()` must be a
    /// multiple of 8 (the caller validated the length field it came from).
    pub fn from_le_bytes(bytes: &[u8]) -> Result<Self, FromBytesError> {
        if bytes.len() % WORD_BYTES != 0 {
            return Err(FromBytesError::PartialWord);
        }
        let mut words = fallible::with_capacity(bytes.len() / WORD_BYTES)?;
        words.extend(bytes.chunks_exact(WORD_BYTES).map(|chunk| {
            let mut word = [0u8; WORD_BYTES];
            word.copy_from_slice(chunk);
            u64::from_le_bytes(word)
        }));
        Ok(BitArray { words })
    }

    /// A copy, or `OutOfMemory` (`clone()` would abort instead).
    pub fn try_clone(&self) -> Result<Self, OutOfMemory> {
        Ok(BitArray { words: fallible::copy_of(&self.words)? })
    }

    pub fn from_words(words: Vec<u64>) -> Self {
        BitArray { words }
    }

    pub fn bit_count(&self) -> u64 {
        self.words.len() as u64 * WORD_BITS
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    #[inline(always)]
    pub fn set(&mut self, bit: u64) {
        self.words[(bit >> 6) as usize] |= 1u64 << (bit & 63);
    }

    #[inline(always)]
    pub fn get(&self, bit: u64) -> bool {
        self.words[(bit >> 6) as usize] & (1u64 << (bit & 63)) != 0
    }

    /// Sets one bit and returns the word index and the word's new value when
    /// the word changed (the sparse delta of the mergeable filter).
    #[inline]
    pub fn set_reporting(&mut self, bit: u64) -> Option<(usize, u64)> {
        let index = (bit >> 6) as usize;
        let before = self.words[index];
        let after = before | (1u64 << (bit & 63));
        self.words[index] = after;
        (after != before).then_some((index, after))
    }

    /// ORs a word in place (merge of equal-shape arrays, delta application).
    #[inline]
    pub fn or_word(&mut self, index: usize, value: u64) {
        self.words[index] |= value;
    }

    /// ORs another array of the same length into this one.
    pub fn or_assign(&mut self, other: &BitArray) {
        debug_assert_eq!(self.words.len(), other.words.len());
        for (mine, theirs) in self.words.iter_mut().zip(&other.words) {
            *mine |= *theirs;
        }
    }

    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    pub fn non_zero_word_count(&self) -> usize {
        self.words.iter().filter(|w| **w != 0).count()
    }

    /// Set bits divided by all bits; 0 for an empty array.
    pub fn fill_ratio(&self) -> f64 {
        let bits = self.bit_count();
        if bits == 0 {
            0.0
        } else {
            self.count_ones() as f64 / bits as f64
        }
    }

    /// The LSB-first byte form: each word written little-endian.
    pub fn to_le_bytes(&self) -> Result<Vec<u8>, OutOfMemory> {
        let mut bytes = fallible::with_capacity(self.byte_count())?;
        self.write_le_bytes(&mut bytes)?;
        Ok(bytes)
    }

    /// Bytes of the LSB-first form.
    pub fn byte_count(&self) -> usize {
        self.words.len().saturating_mul(WORD_BYTES)
    }

    /// Appends the LSB-first form to `out`, reserving room first (nothing
    /// when the caller already did).
    pub fn write_le_bytes(&self, out: &mut Vec<u8>) -> Result<(), OutOfMemory> {
        crate::fallible::try_reserve_exact(out, self.byte_count())
            .map_err(|_| OutOfMemory::of::<u8>(out.len().saturating_add(self.byte_count())))?;
        for word in &self.words {
            out.extend_from_slice(&word.to_le_bytes());
        }
        Ok(())
    }
}

/// Why [`BitArray::from_le_bytes`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FromBytesError {
    /// The length is not a whole number of 8-byte words.
    PartialWord,
    OutOfMemory(OutOfMemory),
}

impl From<OutOfMemory> for FromBytesError {
    fn from(error: OutOfMemory) -> Self {
        FromBytesError::OutOfMemory(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_i_is_byte_i_over_8_lsb_first() {
        let mut bits = BitArray::zeroed(2).unwrap();
        bits.set(0);
        bits.set(11);
        bits.set(127);
        let bytes = bits.to_le_bytes().unwrap();
        assert_eq!(bytes[0], 0b0000_0001);
        assert_eq!(bytes[1], 0b0000_1000);
        assert_eq!(bytes[15], 0b1000_0000);
        assert_eq!(bits.count_ones(), 3);
        assert_eq!(BitArray::from_le_bytes(&bytes).unwrap(), bits);
    }

    #[test]
    fn set_reporting_reports_only_changes() {
        let mut bits = BitArray::zeroed(1).unwrap();
        assert_eq!(bits.set_reporting(3), Some((0, 8)));
        assert_eq!(bits.set_reporting(3), None);
    }

    #[test]
    fn from_le_bytes_rejects_partial_words() {
        assert_eq!(BitArray::from_le_bytes(&[0u8; 7]), Err(FromBytesError::PartialWord));
    }
}
