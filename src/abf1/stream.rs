//! Streaming ABF1 loader: push chunks of any size as they arrive (a `fetch`
//! body, a file read in pieces) without first buffering the whole file.
//!
//! It decides load steps 1–5 as soon as 96 bytes are in, so a bad or hostile
//! header fails before any payload is downloaded or reserved; a caller's size
//! limit (`with_max_length`, JS `maxBytes`) is checked right then too. Nothing
//! is reserved for the payload when the header is accepted: the bit array
//! grows with the bytes that arrive (see [`capacity_for`]), fallibly, so a
//! stream that stalls after its header pins no memory, and one that stalls
//! later pins at most twice what it delivered until 1/32 of the payload is
//! in, the whole payload after that. Bytes are hashed as they arrive and
//! packed straight into words, so the peak is one payload plus at most a
//! sixteenth, not two payloads.
//!
//! The result always matches `decode()` on the concatenated input: the same
//! success, or the same error code (a decoder with a limit may answer
//! `tooLarge` instead, and either may answer `outOfMemory`). Truncation and trailing bytes exclude each
//! other, so reporting trailing bytes early cannot change which step fails.

use sha2::{Digest, Sha256};

use super::header::parse_header;
use super::{assemble, verify_checksum, Header, LoadError, Snapshot};
use super::{CHECKSUMMED_HEADER_LENGTH, CHECKSUM_LENGTH, HEADER_LENGTH};
use crate::bits::{BitArray, WORD_BYTES};
use crate::fallible;

/// Payloads up to this many words (1 MiB) are reserved whole once their
/// first byte arrives: growing them in steps would save nothing worth a copy.
const WHOLE_PAYLOAD_WORDS: usize = (1 << 20) / WORD_BYTES;
/// The first reservation of a larger payload, in words (64 KiB).
const FIRST_STEP_WORDS: usize = (64 << 10) / WORD_BYTES;
/// Once this fraction of a payload is needed, the rest is reserved at once.
const WHOLE_PAYLOAD_FRACTION: usize = 32;

/// Incremental ABF1 decoder. Once `push` has failed, every later `push` and
/// `finish` return that same error.
pub struct StreamDecoder {
    /// All bytes pushed so far, including any rejected ones.
    received: u64,
    /// The first error, replayed on every later call.
    failure: Option<LoadError>,
    stage: Stage,
    /// False when the caller computes step 8's SHA-256 itself (Node hashes
    /// with node:crypto) and hands it to [`StreamDecoder::finish_with_checksum`].
    hash_internally: bool,
    /// The largest file the caller accepts (`tooLarge` beyond it).
    max_length: u64,
}

enum Stage {
    /// Collecting the fixed-size header; nothing is allocated yet.
    Header { buf: [u8; HEADER_LENGTH], filled: usize },
    /// Header validated; collecting exactly `payloadLength` bytes.
    Payload { header: Header, sink: PayloadSink },
}

impl Default for StreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder {
            received: 0,
            failure: None,
            stage: Stage::Header { buf: [0; HEADER_LENGTH], filled: 0 },
            hash_internally: true,
            max_length: u64::MAX,
        }
    }

    /// The same decoder, refusing with `tooLarge` a header that declares more
    /// than `max_length` bytes in all — decided once the header has passed
    /// steps 1–5, before anything is reserved for the payload.
    pub fn with_max_length(self, max_length: u64) -> Self {
        StreamDecoder { max_length, ..self }
    }

    /// A decoder that does not hash: the caller computes the SHA-256 of
    /// bytes [0, 64) and [96, end) and passes it to
    /// [`StreamDecoder::finish_with_checksum`]; the comparison stays here.
    /// `finish()` on such a decoder is `checksumMismatch` (nothing verified).
    pub fn with_external_checksum() -> Self {
        StreamDecoder { hash_internally: false, ..Self::new() }
    }

    /// Accepts the next chunk (any size, empty too). Fails as soon as the
    /// input is known to be bad: a header error (or `tooLarge`) once 96
    /// bytes are in, `lengthMismatch` once a byte beyond `96 + payloadLength`
    /// arrives, `outOfMemory` when the bit array cannot grow.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), LoadError> {
        if let Some(error) = &self.failure {
            return Err(error.clone());
        }
        self.received = self.received.saturating_add(chunk.len() as u64);
        let result = self.consume(chunk);
        if let Err(error) = &result {
            self.failure = Some(error.clone());
        }
        result
    }

    /// The validated header, once 96 bytes have arrived and passed steps 1–5.
    pub fn header(&self) -> Option<&Header> {
        match &self.stage {
            Stage::Payload { header, .. } => Some(header),
            Stage::Header { .. } => None,
        }
    }

    /// `96 + payloadLength`, once the header has validated.
    pub fn total_length(&self) -> Option<u64> {
        self.header().map(Header::total_length)
    }

    pub fn bytes_received(&self) -> u64 {
        self.received
    }

    /// True when exactly the declared length has arrived and nothing failed
    /// (the checksum is still unchecked until `finish`).
    pub fn is_complete(&self) -> bool {
        self.failure.is_none() && self.total_length() == Some(self.received)
    }

    /// Ends the input: `truncated` if bytes are missing, else the checksum
    /// step, then the snapshot (steps 1–8: step 9, the key, is the caller's
    /// [`Snapshot::unlock`]; a keyed filter answers "maybe" until then).
    pub fn finish(self) -> Result<Snapshot, LoadError> {
        self.finish_inner(None)
    }

    /// `finish` for a decoder made by [`StreamDecoder::with_external_checksum`]:
    /// `computed` is the caller's SHA-256 of bytes [0, 64) and [96, end). A
    /// decoder that hashed internally ignores it and uses its own.
    pub fn finish_with_checksum(self, computed: [u8; CHECKSUM_LENGTH]) -> Result<Snapshot, LoadError> {
        self.finish_inner(Some(computed))
    }

    fn finish_inner(self, external: Option<[u8; CHECKSUM_LENGTH]>) -> Result<Snapshot, LoadError> {
        if let Some(error) = self.failure {
            return Err(error);
        }
        match self.stage {
            Stage::Header { .. } => Err(LoadError::Truncated { needed: HEADER_LENGTH as u64, got: self.received }),
            Stage::Payload { header, sink } => {
                if sink.received < sink.expected {
                    return Err(LoadError::Truncated { needed: header.total_length(), got: self.received });
                }
                let (internal, words) = sink.finish();
                // Nothing verified (no hash at all) is a mismatch, never a pass.
                let computed = internal.or(external).ok_or(LoadError::ChecksumMismatch)?;
                verify_checksum(&header, computed)?;
                Ok(assemble(header, BitArray::from_words(words)))
            }
        }
    }

    fn consume(&mut self, mut chunk: &[u8]) -> Result<(), LoadError> {
        if let Stage::Header { buf, filled } = &mut self.stage {
            let take = (HEADER_LENGTH - *filled).min(chunk.len());
            let (head, rest) = chunk.split_at(take);
            if let Some(slot) = buf.get_mut(*filled..*filled + take) {
                slot.copy_from_slice(head);
            }
            *filled += take;
            chunk = rest;
            if *filled < HEADER_LENGTH {
                return Ok(());
            }
            let buf = *buf;
            let header = parse_header(&buf)?;
            if header.total_length() > self.max_length {
                return Err(LoadError::TooLarge { declared: header.total_length(), limit: self.max_length });
            }
            let hashed_header = &buf[..CHECKSUMMED_HEADER_LENGTH];
            let sink = PayloadSink::new(&header, self.hash_internally.then_some(hashed_header))?;
            self.stage = Stage::Payload { header, sink };
        }
        if let Stage::Payload { header, sink } = &mut self.stage {
            let excess = sink.accept(chunk)?;
            if !excess.is_empty() {
                return Err(LoadError::LengthMismatch { expected: header.total_length(), got: self.received });
            }
        }
        Ok(())
    }
}

/// Receives the payload: hashes it and packs it into little-endian words.
struct PayloadSink {
    /// `None` when the caller hashes (see `with_external_checksum`).
    hasher: Option<Sha256>,
    /// Grown by [`PayloadSink::make_room`] before each chunk is packed, so
    /// a push never reallocates (an infallible growth would abort).
    words: Vec<u64>,
    /// `payloadLength / 8`: the final length of `words`.
    expected_words: usize,
    /// The bytes of a word split across chunks.
    partial: [u8; WORD_BYTES],
    partial_len: usize,
    received: u64,
    expected: u64,
}

impl PayloadSink {
    /// Called only with a header that passed step 5, so `payloadLength` is
    /// `bitCount / 8` ≤ 2^27 bytes and a multiple of 8. Reserves nothing.
    fn new(header: &Header, hashed_header: Option<&[u8]>) -> Result<Self, LoadError> {
        let expected_words = usize::try_from(header.bit_count / 64).map_err(|_| LoadError::InvalidHeader {
            field: "bitCount",
            expected: "a bit count that fits in memory on this platform",
            bound: None,
            got: crate::error::Value::Integer(header.bit_count),
        })?;
        let hasher = hashed_header.map(|bytes| {
            let mut hasher = Sha256::new();
            hasher.update(bytes);
            hasher
        });
        Ok(PayloadSink {
            hasher,
            words: Vec::new(),
            expected_words,
            partial: [0; WORD_BYTES],
            partial_len: 0,
            received: 0,
            expected: header.payload_length,
        })
    }

    /// Takes what the payload still needs from `chunk` and returns the rest
    /// (non-empty only when the input is longer than declared), or
    /// `outOfMemory` when the words cannot grow (nothing consumed then).
    fn accept<'a>(&mut self, chunk: &'a [u8]) -> Result<&'a [u8], LoadError> {
        let missing = self.expected.saturating_sub(self.received);
        let take = usize::try_from(missing).map_or(chunk.len(), |missing| missing.min(chunk.len()));
        let (mut mine, excess) = chunk.split_at(take);
        // Whole words once these bytes are in; `received + take` ≤ expected.
        let needed = (self.received + take as u64) / WORD_BYTES as u64;
        self.make_room(usize::try_from(needed).unwrap_or(usize::MAX))?;
        if let Some(hasher) = &mut self.hasher {
            crate::hashing::update_in_pieces(hasher, mine);
        }
        self.received += take as u64;

        // Complete a word begun by an earlier chunk.
        if self.partial_len > 0 {
            let fill = (WORD_BYTES - self.partial_len).min(mine.len());
            let (head, tail) = mine.split_at(fill);
            if let Some(slot) = self.partial.get_mut(self.partial_len..self.partial_len + fill) {
                slot.copy_from_slice(head);
            }
            self.partial_len += fill;
            mine = tail;
            if self.partial_len < WORD_BYTES {
                return Ok(excess);
            }
            self.words.push(u64::from_le_bytes(self.partial));
            self.partial_len = 0;
        }
        let mut whole = mine.chunks_exact(WORD_BYTES);
        for word in &mut whole {
            let mut bytes = [0u8; WORD_BYTES];
            bytes.copy_from_slice(word);
            self.words.push(u64::from_le_bytes(bytes));
        }
        let rest = whole.remainder();
        if let Some(slot) = self.partial.get_mut(..rest.len()) {
            slot.copy_from_slice(rest);
        }
        self.partial_len = rest.len();
        Ok(excess)
    }

    /// Ensures room for `needed` words in all. A larger buffer is a fresh
    /// fallible reservation into which the words so far are copied; the old
    /// one is then freed.
    fn make_room(&mut self, needed: usize) -> Result<(), LoadError> {
        if needed <= self.words.capacity() {
            return Ok(());
        }
        let capacity = capacity_for(needed, self.words.capacity(), self.expected_words);
        let mut grown = fallible::with_capacity(capacity)?;
        grown.extend_from_slice(&self.words);
        self.words = grown;
        Ok(())
    }

    /// The SHA-256 and the words. Called only when every byte arrived, so no
    /// partial word is pending (the length is a multiple of 8).
    fn finish(self) -> (Option<[u8; CHECKSUM_LENGTH]>, Vec<u64>) {
        (self.hasher.map(|hasher| hasher.finalize().into()), self.words)
    }
}

/// The capacity (in words) to grow to when `needed` words must fit, from
/// `current`, for a payload of `expected` words. Small payloads, and large
/// ones once a thirty-second has arrived, get exactly `expected`. Before that
/// the capacity doubles from 64 KiB up to 1/32 of the payload, so an
/// unfinished stream holds at most twice what it delivered (or 64 KiB), and a
/// complete load ends with one exact bit array, having freed earlier steps
/// that add up to at most a sixteenth of it.
fn capacity_for(needed: usize, current: usize, expected: usize) -> usize {
    let step_limit = expected / WHOLE_PAYLOAD_FRACTION;
    if expected <= WHOLE_PAYLOAD_WORDS || needed > step_limit {
        return expected;
    }
    needed.max(current.saturating_mul(2)).max(FIRST_STEP_WORDS).min(step_limit)
}

#[cfg(test)]
mod growth_tests {
    use super::*;

    #[test]
    fn small_payloads_are_reserved_whole() {
        assert_eq!(capacity_for(1, 0, 1000), 1000);
        assert_eq!(capacity_for(1, 0, WHOLE_PAYLOAD_WORDS), WHOLE_PAYLOAD_WORDS);
    }

    #[test]
    fn large_payloads_double_then_reserve_the_rest() {
        let expected = (128 << 20) / WORD_BYTES; // 2^30 bits
        assert_eq!(capacity_for(1, 0, expected), FIRST_STEP_WORDS);
        assert_eq!(capacity_for(FIRST_STEP_WORDS + 1, FIRST_STEP_WORDS, expected), 2 * FIRST_STEP_WORDS);
        // A chunk larger than the doubling gets exactly what it needs.
        assert_eq!(capacity_for(5 * FIRST_STEP_WORDS, FIRST_STEP_WORDS, expected), 5 * FIRST_STEP_WORDS);
        assert_eq!(capacity_for(expected / 32 + 1, expected / 64, expected), expected);
        assert_eq!(capacity_for(expected / 32, expected / 64, expected), expected / 32);
        assert_eq!(capacity_for(expected / 40, expected / 48, expected), expected / 32);
        // Every step before the whole one is at most twice the need (or 64 KiB).
        let mut capacity = 0;
        let mut steps_total = 0;
        for needed in (1..=expected).step_by(7919) {
            if needed > capacity {
                steps_total += capacity;
                capacity = capacity_for(needed, capacity, expected);
                assert!(capacity >= needed);
                assert!(capacity == expected || capacity <= (2 * needed).max(FIRST_STEP_WORDS));
            }
        }
        assert_eq!(capacity_for(expected, capacity, expected), expected);
        assert!(steps_total <= expected / 16, "freed steps {steps_total} of {expected}");
    }
}
