//! The ABD1 body: sorted zero-bit ranks as Golomb–Rice coded gaps.
//!
//! Rank `r` means "the base's `r`-th zero bit" (counting from bit 0). The
//! ranks are strictly increasing; each is stored as `d = r − previous − 1`
//! (the first as `d = r`), so an unsorted or repeated list cannot be written.
//! A code with parameter `k` is `d >> k` zero bits, a one bit, then the `k`
//! low bits of `d`, least significant first. The stream is LSB-first: bit `j`
//! is bit `j & 7` of byte `j >> 3`, as in the ABF1 payload.

use super::error::DeltaError;
use super::format::MAX_RICE_PARAMETER;

/// The Rice parameter whose body is smallest for these gaps (the smallest
/// such `k` on a tie), and that body's length in bits. `sum_of_quotients[k]`
/// is `Σ d >> k` over the `count` gaps.
pub fn best_parameter(count: u64, sum_of_quotients: &[u64; PARAMETERS]) -> (u8, u64) {
    let mut best = (0u8, u64::MAX);
    for (k, quotients) in (0u8..).zip(sum_of_quotients) {
        let bits = count.saturating_mul(u64::from(k) + 1).saturating_add(*quotients);
        if bits < best.1 {
            best = (k, bits);
        }
    }
    best
}

/// Every parameter an encoder considers: 0 ..= 30.
pub const PARAMETERS: usize = MAX_RICE_PARAMETER as usize + 1;

/// Collects `Σ d >> k` for every k in one pass over the gaps.
#[derive(Default)]
pub struct GapStatistics {
    pub count: u64,
    pub sum_of_quotients: [u64; PARAMETERS],
}

impl GapStatistics {
    pub fn add(&mut self, gap: u64) {
        self.count += 1;
        for (k, sum) in self.sum_of_quotients.iter_mut().enumerate() {
            *sum = sum.saturating_add(gap >> k);
        }
    }
}

/// Turns strictly increasing ranks into the stored gaps.
#[derive(Default)]
pub struct Gaps {
    next: u64,
}

impl Gaps {
    /// The stored `d` of the next rank; the caller keeps ranks increasing.
    pub fn of(&mut self, rank: u64) -> u64 {
        let gap = rank - self.next;
        self.next = rank + 1;
        gap
    }
}

/// Appends Rice codes to a buffer reserved by the caller (the length is
/// known before writing, so nothing here reallocates).
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    pending: u64,
    pending_bits: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter { out, pending: 0, pending_bits: 0 }
    }

    /// `count` (≤ 32) low bits of `value`, least significant first.
    fn put_bits(&mut self, value: u64, count: u32) {
        self.pending |= value << self.pending_bits;
        self.pending_bits += count;
        while self.pending_bits >= 8 {
            self.out.push(self.pending as u8);
            self.pending >>= 8;
            self.pending_bits -= 8;
        }
    }

    pub fn put(&mut self, gap: u64, k: u8) {
        let mut quotient = gap >> k;
        while quotient >= 32 {
            self.put_bits(0, 32);
            quotient -= 32;
        }
        // `quotient` zeros and the stop bit in one write.
        self.put_bits(1 << quotient, quotient as u32 + 1);
        let low = gap & ((1u64 << k) - 1);
        self.put_bits(low, u32::from(k));
    }

    /// Flushes the last partial byte (zero padded).
    pub fn finish(self) {
        if self.pending_bits > 0 {
            self.out.push(self.pending as u8);
        }
    }
}

/// Reads the ranks back, checking every rule of the body: the count, the
/// range (`rank < zero_count`) and the padding. Allocates nothing.
///
/// Bits come through a 64-bit buffer refilled a word at a time: `buffer`
/// holds the next `available` unread bits, least significant first, and is
/// zero above them.
#[derive(Clone)]
pub struct RankDecoder<'a> {
    body: &'a [u8],
    k: u8,
    zero_count: u64,
    count: u64,
    decoded: u64,
    next_rank: u64,
    buffer: u64,
    available: u32,
    /// Next body byte not yet in `buffer`.
    loaded: usize,
}

impl<'a> RankDecoder<'a> {
    pub fn new(body: &'a [u8], k: u8, count: u64, zero_count: u64) -> Self {
        RankDecoder { body, k, zero_count, count, decoded: 0, next_rank: 0, buffer: 0, available: 0, loaded: 0 }
    }

    /// Tops `buffer` up to at least 57 bits, or to the end of the body.
    fn refill(&mut self) {
        if let Some(chunk) = self.body.get(self.loaded..self.loaded + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            // Whole bytes that fit above the `available` bits (at most 63 in all).
            let bytes = (63 - self.available) / 8;
            let filled = self.available + 8 * bytes;
            let fresh = (u64::from_le_bytes(word) << self.available) & ((1u64 << filled) - 1);
            self.buffer |= fresh;
            self.available = filled;
            self.loaded += bytes as usize;
        } else {
            while self.available <= 56 {
                let Some(&byte) = self.body.get(self.loaded) else {
                    break;
                };
                self.buffer |= u64::from(byte) << self.available;
                self.available += 8;
                self.loaded += 1;
            }
        }
    }

    /// Drops `bits` (≤ `available` < 64) consumed bits.
    fn consume(&mut self, bits: u32) {
        self.buffer = self.buffer.checked_shr(bits).unwrap_or(0);
        self.available -= bits;
    }

    fn truncated(&self) -> DeltaError {
        DeltaError::PositionsTruncated { decoded: self.decoded, expected: self.count }
    }

    fn out_of_range(&self, rank: u64) -> DeltaError {
        DeltaError::PositionOutOfRange { index: self.decoded, rank, zero_count: self.zero_count }
    }

    /// The next rank, `None` after the last one, or the first broken rule.
    pub fn next_rank(&mut self) -> Result<Option<u64>, DeltaError> {
        if self.decoded == self.count {
            return self.check_padding().map(|()| None);
        }
        // Unary part. A quotient this large already puts the rank out of
        // range: stop there rather than scan a long run of zeros.
        let limit = self.zero_count >> self.k;
        let mut quotient = 0u64;
        loop {
            if self.available < 57 {
                self.refill();
            }
            if self.buffer != 0 {
                let zeros = self.buffer.trailing_zeros();
                quotient += u64::from(zeros);
                self.consume(zeros + 1);
                break;
            }
            if self.available == 0 {
                return Err(self.truncated());
            }
            quotient += u64::from(self.available);
            self.consume(self.available);
            if quotient > limit {
                return Err(self.out_of_range(quotient << self.k));
            }
        }
        if quotient > limit {
            return Err(self.out_of_range(quotient << self.k));
        }
        let k = u32::from(self.k);
        if self.available < k {
            self.refill();
            if self.available < k {
                return Err(self.truncated());
            }
        }
        let low = self.buffer & ((1u64 << k) - 1);
        self.consume(k);
        // quotient ≤ 2^30 and k ≤ 30: no overflow.
        let rank = self.next_rank + ((quotient << k) | low);
        if rank >= self.zero_count {
            return Err(self.out_of_range(rank));
        }
        self.decoded += 1;
        self.next_rank = rank + 1;
        Ok(Some(rank))
    }

    /// Decodes up to `out.len()` ranks into `out` and returns how many: fewer
    /// only after the last one (whose padding is then checked).
    pub fn fill(&mut self, out: &mut [u64]) -> Result<usize, DeltaError> {
        let mut filled = 0;
        while let Some(slot) = out.get_mut(filled) {
            match self.next_rank()? {
                Some(rank) => *slot = rank,
                None => break,
            }
            filled += 1;
        }
        Ok(filled)
    }

    /// After the last code: only zero bits up to the end of its byte.
    fn check_padding(&mut self) -> Result<(), DeltaError> {
        self.refill();
        let body_bits = self.body.len() as u64 * 8;
        let unread = (self.body.len() - self.loaded) as u64 * 8 + u64::from(self.available);
        if unread >= 8 || self.buffer != 0 {
            return Err(DeltaError::NonCanonicalPositions { used_bits: body_bits - unread, body_bits });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(ranks: &[u64], k: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = BitWriter::new(&mut out);
        let mut gaps = Gaps::default();
        for &rank in ranks {
            writer.put(gaps.of(rank), k);
        }
        writer.finish();
        out
    }

    fn decode(body: &[u8], k: u8, count: u64, zero_count: u64) -> Result<Vec<u64>, DeltaError> {
        let mut decoder = RankDecoder::new(body, k, count, zero_count);
        let mut ranks = Vec::new();
        while let Some(rank) = decoder.next_rank()? {
            ranks.push(rank);
        }
        Ok(ranks)
    }

    #[test]
    fn codes_round_trip_for_every_parameter() {
        let ranks = [0, 1, 2, 40, 41, 1000, 5000, 70_000, 70_001];
        for k in 0..=MAX_RICE_PARAMETER {
            let body = encode(&ranks, k);
            assert_eq!(decode(&body, k, ranks.len() as u64, 80_000).unwrap(), ranks, "k = {k}");
        }
    }

    #[test]
    fn the_first_code_is_lsb_first() {
        // rank 5 with k = 1: quotient 2 → bits 0, 0, 1, then low bit 1.
        assert_eq!(encode(&[5], 1), vec![0b1100]);
    }

    #[test]
    fn the_best_parameter_minimizes_the_body() {
        let mut statistics = GapStatistics::default();
        for gap in [100u64, 90, 110, 95] {
            statistics.add(gap);
        }
        let (k, bits) = best_parameter(statistics.count, &statistics.sum_of_quotients);
        for other in 0..=MAX_RICE_PARAMETER {
            let other_bits: u64 =
                [100u64, 90, 110, 95].iter().map(|g| (g >> other) + 1 + u64::from(other)).sum::<u64>();
            assert!(bits <= other_bits);
        }
        assert_eq!(bits, [100u64, 90, 110, 95].iter().map(|g| (g >> k) + 1 + u64::from(k)).sum::<u64>());
    }

    #[test]
    fn body_rules_are_checked() {
        let body = encode(&[3, 9], 2);
        assert!(matches!(decode(&body, 2, 3, 100), Err(DeltaError::PositionsTruncated { decoded: 2, expected: 3 })));
        assert!(matches!(decode(&body, 2, 2, 9), Err(DeltaError::PositionOutOfRange { index: 1, rank: 9, .. })));
        let mut padded = body.clone();
        padded.push(0);
        assert!(matches!(decode(&padded, 2, 2, 100), Err(DeltaError::NonCanonicalPositions { .. })));
        let mut dirty = body.clone();
        *dirty.last_mut().unwrap() |= 0x80;
        assert!(matches!(decode(&dirty, 2, 2, 100), Err(DeltaError::NonCanonicalPositions { .. })));
        // A long unary run stops at the range bound instead of scanning on.
        let zeros = vec![0u8; 4096];
        assert!(matches!(decode(&zeros, 0, 1, 100), Err(DeltaError::PositionOutOfRange { .. })));
    }
}
