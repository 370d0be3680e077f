//! The probe walk of hash protocol 1 (spec/ABF1.md, "Bits").
//!
//! `first = BE u64 of d[0..8]`, `second = BE u64 of d[8..16]`,
//! `index = first mod m`, `step = (second | 1) mod m`, then k positions
//! `index, index + step, …` modulo m. With m a multiple of 64 and the step odd,
//! the k ≤ 32 positions are distinct.

/// Length of a SHA-256 artifact digest.
pub const DIGEST_LENGTH: usize = 32;

/// The double-hashing walk over `m` bits. `Iterator` yields exactly `k`
/// positions; the hot loops use [`Probe::start`] / [`Probe::advance`] directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub index: u64,
    pub step: u64,
    bit_count: u64,
}

impl Probe {
    /// Starts the walk for `digest` over `bit_count` bits (non-zero).
    #[inline(always)]
    pub fn start(digest: &[u8; DIGEST_LENGTH], bit_count: u64) -> Probe {
        let mut first = [0u8; 8];
        let mut second = [0u8; 8];
        first.copy_from_slice(&digest[0..8]);
        second.copy_from_slice(&digest[8..16]);
        Probe::from_words(u64::from_be_bytes(first), u64::from_be_bytes(second), bit_count)
    }

    /// Starts the walk from the two big-endian words the digest begins with
    /// (`d[0..8]`, `d[8..16]`); the other 16 bytes never affect the probe.
    #[inline(always)]
    pub fn from_words(first: u64, second: u64, bit_count: u64) -> Probe {
        Probe { index: first % bit_count, step: (second | 1) % bit_count, bit_count }
    }

    /// Moves to the next position without a division: both terms are < m.
    #[inline(always)]
    pub fn advance(&mut self) {
        self.index += self.step;
        if self.index >= self.bit_count {
            self.index -= self.bit_count;
        }
    }

    /// The first `hash_count` positions, in probe order.
    pub fn positions(digest: &[u8; DIGEST_LENGTH], bit_count: u64, hash_count: u32) -> Vec<u64> {
        let mut probe = Probe::start(digest, bit_count);
        (0..hash_count)
            .map(|_| {
                let at = probe.index;
                probe.advance();
                at
            })
            .collect()
    }
}

/// Borrows a slice as a digest, or `None` when it is not 32 bytes long.
pub fn as_digest(bytes: &[u8]) -> Option<&[u8; DIGEST_LENGTH]> {
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_reads_big_endian_words() {
        let mut digest = [0u8; 32];
        digest[7] = 200; // first = 200
        digest[15] = 6; // second = 6 → step = 7
        let probe = Probe::start(&digest, 64);
        assert_eq!((probe.index, probe.step), (200 % 64, 7));
        assert_eq!(Probe::positions(&digest, 64, 4), vec![8, 15, 22, 29]);
    }

    #[test]
    fn walk_wraps_modulo_bit_count() {
        let mut digest = [0u8; 32];
        digest[7] = 60;
        digest[15] = 9;
        assert_eq!(Probe::positions(&digest, 64, 3), vec![60, 5, 14]);
    }

    #[test]
    fn positions_are_distinct_for_every_step() {
        // m = 192 = 64·3: every odd step has a period of at least 64 > 32.
        for second in 0u64..400 {
            let mut digest = [0u8; 32];
            digest[8..16].copy_from_slice(&second.to_be_bytes());
            let mut seen = Probe::positions(&digest, 192, 32);
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 32, "second = {second}");
        }
    }

    #[test]
    fn as_digest_checks_length() {
        assert!(as_digest(&[0u8; 31]).is_none());
        assert!(as_digest(&[0u8; 33]).is_none());
        assert!(as_digest(&[0u8; 32]).is_some());
    }
}
