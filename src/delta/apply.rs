//! Applying a delta: [`Delta::check_base`] compares the base with what the
//! delta names, [`Delta::set_new_bits`] turns a copy of the base's bits into
//! the target's in place, and [`crate::abf1::from_bits`] runs the ABF1
//! loader's checks on the target header and those bits, the checksum last (a
//! delta can never produce a snapshot a full download would not);
//! [`diagnose`] names the cause when the checksum fails. [`apply`] is the
//! three in order. The JavaScript binding runs the same steps across its two
//! wasm modules: the base's bits are copied from the main module into the
//! delta module, rebuilt there, and copied back into a new filter of the main
//! module, whose checksum step is the final check.

use super::format::{DeltaHeader, SHA256_LENGTH};
use super::{payload_sha256, BaseMismatch, Delta, DeltaError};
use crate::abf1::{self, LoadError};
use crate::bits::BitArray;
use crate::filter::ArtifactBloomFilter;

/// The target snapshot: `base` (at `base_catalog_version`, untouched) with
/// the delta's bits set, checked as the ABF1 loader checks a file.
pub fn apply(
    base: &ArtifactBloomFilter,
    base_catalog_version: u64,
    delta: &[u8],
) -> Result<abf1::Snapshot, DeltaError> {
    let parsed = Delta::parse(delta)?;
    parsed.check_base(base.bits(), base_catalog_version, base.hash_count())?;
    let target = parsed.header().target.clone();
    let out_of_memory = DeltaError::OutOfMemory { bytes: target.payload_length };
    let mut bits = base.bits().try_clone().map_err(|_| out_of_memory)?;
    parsed.set_new_bits(&mut bits)?;
    let computed = abf1::checksum_of_bits(&target, &bits);
    abf1::from_bits(target, bits, computed).map_err(|error| match error {
        LoadError::ChecksumMismatch => diagnose(&payload_sha256(base.bits()), delta),
        other => DeltaError::TargetLoad(other),
    })
}

/// Load steps 1–10 and 12 with one pass over the positions: `bits`, a copy
/// of the base's bit array (at `base_catalog_version`, with `hash_count`
/// hashes), becomes the target's, not yet verified — the caller runs step 13
/// ([`crate::abf1::from_bits`]) on the target header this returns. The
/// errors and their order are [`apply`]'s up to step 10: a wrong base is
/// reported only after the positions checked, and a position error found
/// while setting leaves `bits` partly rebuilt (the caller drops them).
/// `hash` is step 8's SHA-256 of the bytes before the delta's trailer
/// ([`crate::hashing::sha256`], or a faster one of the host's).
pub fn rebuild_in_place(
    bits: &mut BitArray,
    base_catalog_version: u64,
    hash_count: u32,
    delta: &[u8],
    hash: impl FnOnce(&[u8]) -> [u8; SHA256_LENGTH],
) -> Result<DeltaHeader, DeltaError> {
    let parsed = Delta::parse_frame(delta, hash)?;
    if let Err(wrong_base) = parsed.check_layout(bits, base_catalog_version, hash_count) {
        parsed.check_positions()?;
        return Err(wrong_base);
    }
    // The set-bit count is checked by set_new_bits, on its way.
    parsed.set_new_bits(bits)?;
    Ok(parsed.header)
}

impl Delta<'_> {
    /// Step 10, the cheap base checks, in order: catalogVersion, layout
    /// (`bits`' length and `hash_count` against the target header), set bits.
    ///
    /// The base's payload SHA-256 is compared only by [`diagnose`], because a
    /// result that passes the target checksum proves the base: every rank
    /// names a zero bit of the base, so base = target minus the delta's bits,
    /// exactly.
    pub fn check_base(&self, bits: &BitArray, base_catalog_version: u64, hash_count: u32) -> Result<(), DeltaError> {
        self.check_layout(bits, base_catalog_version, hash_count)?;
        self.check_set_bits(bits.count_ones())
    }

    /// [`Delta::check_base`] without the set bits, which take a pass over the
    /// base: catalogVersion and layout.
    fn check_layout(&self, bits: &BitArray, base_catalog_version: u64, hash_count: u32) -> Result<(), DeltaError> {
        let header: &DeltaHeader = self.header();
        let wrong = |mismatch| Err(DeltaError::WrongBase(mismatch));
        if base_catalog_version != header.base_catalog_version {
            return wrong(BaseMismatch::CatalogVersion {
                expected: header.base_catalog_version,
                got: base_catalog_version,
            });
        }
        if (bits.bit_count(), hash_count) != (header.target.bit_count, header.target.hash_count) {
            return wrong(BaseMismatch::Layout {
                expected_bit_count: header.target.bit_count,
                expected_hash_count: header.target.hash_count,
                got_bit_count: bits.bit_count(),
                got_hash_count: hash_count,
            });
        }
        Ok(())
    }

    /// The last base check: `set` bits in the base.
    fn check_set_bits(&self, set: u64) -> Result<(), DeltaError> {
        let expected = self.header().base_set_bit_count;
        if set != expected {
            return Err(DeltaError::WrongBase(BaseMismatch::SetBitCount { expected, got: set }));
        }
        Ok(())
    }

    /// Step 12: sets the bit of every rank in `bits`, a copy of the base's
    /// bits whose catalogVersion and layout passed [`Delta::check_base`].
    /// Reads the positions with their step-9 checks, and counts the base's
    /// zero bits on the way (the walk to each rank counts them anyway), so
    /// the base's set-bit count is checked without a pass of its own: a base
    /// with other than `baseSetBitCount` set bits is `wrongBase` — after the
    /// positions, whose errors come first — and its `bits` are no target.
    /// Allocates nothing.
    pub fn set_new_bits(&self, bits: &mut BitArray) -> Result<(), DeltaError> {
        let zero_count = self.header().base_zero_count();
        let mut ranks = self.ranks();
        // Walk the words by their zero counts to the one holding each rank's
        // zero, and select it there. `word` is the current word as the base
        // has it: ranks count the base's zeros, not the ones set meanwhile,
        // and the words past it are still the base's.
        let (mut index, mut zeros_before, mut decoded) = (0usize, 0u64, 0u64);
        let mut word = bits.words().first().copied().unwrap_or(u64::MAX);
        // Ranks decoded a batch at a time, then set: two tight loops rather
        // than one that interleaves the decoder's branches with the walk's.
        let mut batch = [0u64; RANKS_PER_BATCH];
        loop {
            let count = ranks.fill(&mut batch)?;
            for &rank in &batch[..count] {
                while rank - zeros_before >= u64::from(word.count_zeros()) {
                    zeros_before += u64::from(word.count_zeros());
                    index += 1;
                    let Some(&next) = bits.words().get(index) else {
                        // The base has fewer zero bits than the delta's
                        // ranks need, so not the named number of set bits:
                        // the rest of the positions first, then that.
                        while ranks.next_rank()?.is_some() {}
                        self.check_set_bits(bits.count_ones() - decoded)?;
                        return Err(DeltaError::PositionOutOfRange { index: decoded, rank, zero_count });
                    };
                    word = next;
                }
                // Below count_zeros(word) ≤ 64 by the loop above.
                let bit = nth_zero(word, (rank - zeros_before) as u32);
                bits.or_word(index, 1 << bit);
                decoded += 1;
            }
            if count < RANKS_PER_BATCH {
                break;
            }
        }
        // The base's zeros: those before the current word, its own (as the
        // base has it), and the untouched words after it.
        let after: u64 =
            bits.words().get(index + 1..).unwrap_or_default().iter().map(|w| u64::from(w.count_zeros())).sum();
        let base_zeros = zeros_before + u64::from(word.count_zeros()) + after;
        self.check_set_bits(bits.bit_count() - base_zeros)
    }
}

/// Ranks decoded before they are set (2 KiB of stack).
const RANKS_PER_BATCH: usize = 256;

/// The position of the `n`-th zero bit of `word` (counting from 0 at the
/// least significant end); `n` is below the word's zero count. Broadword
/// selection, without a branch — which byte holds a random rank is a coin
/// toss, and mispredicted branches cost more than the arithmetic (wasm has
/// no bit-deposit instruction to select with): the bytes' zero counts, their
/// running sums (one multiplication), the byte whose sum first exceeds `n`
/// (one comparison per byte, all at once), then a binary search in that byte.
fn nth_zero(word: u64, n: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let free = !word;
    let mut counts = free - ((free >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: the zeros in bytes 0..=i (at most 64: no carry between bytes).
    let sums = counts.wrapping_mul(ONES);
    // A byte's high bit is set where its sum is ≤ n (128 + n − sum ≥ 128;
    // never below 0, so no borrow): the bytes wholly before the target.
    let byte = ((((u64::from(n) * ONES) | HIGHS) - sums) & HIGHS).count_ones() * 8;
    // Zeros before that byte: the previous byte's running sum (0 for byte 0).
    let mut n = n - (((sums << 8) >> byte) & 0xff) as u32;
    let mut free = (free >> byte) & 0xff;
    let mut position = byte;
    for width in [4, 2, 1] {
        let low = (free & ((1u64 << width) - 1)).count_ones();
        let upper = n >= low;
        n -= if upper { low } else { 0 };
        let step = if upper { width } else { 0 };
        free >>= step;
        position += step;
    }
    position
}

/// Why a rebuilt target failed its checksum, given the SHA-256 of the
/// base's payload: a base whose bit array is not the one the delta names
/// (`wrongBase`), otherwise `resultChecksumMismatch` (a delta inconsistent
/// with its own header).
pub fn diagnose(base_payload_sha256: &[u8; SHA256_LENGTH], delta: &[u8]) -> DeltaError {
    match Delta::parse(delta) {
        Err(error) => error,
        Ok(delta) if *base_payload_sha256 != delta.header().base_payload_sha256 => {
            DeltaError::WrongBase(BaseMismatch::PayloadChecksum)
        }
        Ok(_) => DeltaError::ResultChecksumMismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delta::encode;
    use crate::hashing::sha256;
    use crate::layout::BloomSpec;

    #[test]
    fn nth_zero_selects_as_counting_does() {
        for word in
            [0u64, 1, 0x8000_0000_0000_0000, 0x00ff_00ff_f0f0_0f0f, 0xffff_ffff_0000_0001, 0x5555_5555_5555_5555]
        {
            let zeros: Vec<u32> = (0..64).filter(|bit| word & (1 << bit) == 0).collect();
            for (n, &bit) in zeros.iter().enumerate() {
                assert_eq!(nth_zero(word, n as u32), bit, "word {word:#x}, zero {n}");
            }
        }
    }

    fn filter_of(count: u32) -> ArtifactBloomFilter {
        let spec = BloomSpec { expected_item_count: 64, target_false_positive_rate: 0.2 };
        let digests: Vec<[u8; 32]> = (0..count).map(|i| sha256(&i.to_le_bytes())).collect();
        ArtifactBloomFilter::create(&digests, &spec).unwrap()
    }

    #[test]
    fn rebuild_in_place_is_apply_in_one_pass() {
        // Dense: several new bits per word, so the select walks within words.
        let (base, target) = (filter_of(20), filter_of(60));
        let bytes = encode(&base, 1, &target, 2).unwrap();
        let mut bits = base.bits().clone();
        let header = rebuild_in_place(&mut bits, 1, base.hash_count(), &bytes, sha256).unwrap();
        let applied = apply(&base, 1, &bytes).unwrap();
        assert_eq!((header.target, &bits), (applied.header, applied.filter.bits()));
        assert_eq!(&bits, target.bits());

        // A wrong base after broken positions: the positions' error first.
        let mut broken = bytes.clone();
        let body_end = broken.len() - 32;
        broken[body_end - 1] ^= 0x80;
        let resealed = sha256(&broken[..body_end]);
        broken[body_end..].copy_from_slice(&resealed);
        let expected = Delta::parse(&broken).unwrap_err();
        let mut bits = base.bits().clone();
        assert_eq!(rebuild_in_place(&mut bits, 7, base.hash_count(), &broken, sha256), Err(expected));
        let mut bits = base.bits().clone();
        assert!(matches!(
            rebuild_in_place(&mut bits, 7, base.hash_count(), &bytes, sha256),
            Err(DeltaError::WrongBase(BaseMismatch::CatalogVersion { expected: 1, got: 7 }))
        ));
    }

    #[test]
    fn rebuild_in_place_counts_the_base_on_its_way() {
        let (base, target) = (filter_of(20), filter_of(60));
        let bytes = encode(&base, 1, &target, 2).unwrap();
        let set = base.bits().count_ones();
        let wrong = |bits: &BitArray| {
            let mut bits = bits.clone();
            match rebuild_in_place(&mut bits, 1, base.hash_count(), &bytes, sha256) {
                Err(DeltaError::WrongBase(BaseMismatch::SetBitCount { expected, got })) => (expected, got),
                other => panic!("expected a set-bit count mismatch, got {other:?}"),
            }
        };
        // One bit fewer: the walk completes and the count is off by one.
        let first_set = (0..base.bit_count()).find(|&bit| base.bits().get(bit)).unwrap();
        let mut cleared = base.bits().words().to_vec();
        cleared[(first_set / 64) as usize] &= !(1 << (first_set % 64));
        assert_eq!(wrong(&BitArray::from_words(cleared)), (set, set - 1));
        // Every bit set: no zero for the first rank, the walk runs off the end.
        let full = BitArray::from_words(vec![u64::MAX; base.bits().word_count()]);
        assert_eq!(wrong(&full), (set, base.bit_count()));
    }
}
