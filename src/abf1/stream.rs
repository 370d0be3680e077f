//! Streaming ABF1 loader: push chunks of any size as they arrive (a `fetch`
//! body, a file read in pieces) without first buffering the whole file.
//!
//! It decides load steps 1–5 as soon as 96 bytes are in, so a bad or hostile
//! header fails before any payload is downloaded or reserved. After that it
//! allocates the bit array exactly once (`payloadLength` bytes, already
//! bounded by 2^30 bits), hashes as bytes arrive, and packs them straight
//! into words, so the peak memory is one payload, not two.
//!
//! The result always matches `decode()` on the concatenated input: the same
//! success, or the same error code. Truncation and trailing bytes exclude each
//! other, so reporting trailing bytes early cannot change which step fails.

use sha2::{Digest, Sha256};

use super::header::parse_header;
use super::{assemble, verify_checksum, Header, LoadError, Snapshot};
use super::{CHECKSUMMED_HEADER_LENGTH, CHECKSUM_LENGTH, HEADER_LENGTH};
use crate::bits::{BitArray, WORD_BYTES};

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
}

enum Stage {
    /// Collecting the fixed-size header; nothing is allocated yet.
    Header {
        buf: [u8; HEADER_LENGTH],
        filled: usize,
    },
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
            stage: Stage::Header {
                buf: [0; HEADER_LENGTH],
                filled: 0,
            },
            hash_internally: true,
        }
    }

    /// A decoder that does not hash: the caller computes the SHA-256 of
    /// bytes [0, 64) and [96, end) and passes it to
    /// [`StreamDecoder::finish_with_checksum`]; the comparison stays here.
    /// `finish()` on such a decoder is `checksumMismatch` (nothing verified).
    pub fn with_external_checksum() -> Self {
        StreamDecoder { hash_internally: false, ..Self::new() }
    }

    /// Accepts the next chunk (any size, empty too). Fails as soon as the
    /// input is known to be bad: a header error once 96 bytes are in, or
    /// `lengthMismatch` once a byte beyond `96 + payloadLength` arrives.
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
    /// step, then the snapshot.
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
            Stage::Header { .. } => Err(LoadError::Truncated {
                needed: HEADER_LENGTH as u64,
                got: self.received,
            }),
            Stage::Payload { header, sink } => {
                if sink.received < sink.expected {
                    return Err(LoadError::Truncated {
                        needed: header.total_length(),
                        got: self.received,
                    });
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
            let hashed_header = &buf[..CHECKSUMMED_HEADER_LENGTH];
            let sink = PayloadSink::new(&header, self.hash_internally.then_some(hashed_header))?;
            self.stage = Stage::Payload { header, sink };
        }
        if let Stage::Payload { header, sink } = &mut self.stage {
            let excess = sink.accept(chunk);
            if !excess.is_empty() {
                return Err(LoadError::LengthMismatch {
                    expected: header.total_length(),
                    got: self.received,
                });
            }
        }
        Ok(())
    }
}

/// Receives the payload: hashes it and packs it into little-endian words.
struct PayloadSink {
    /// `None` when the caller hashes (see `with_external_checksum`).
    hasher: Option<Sha256>,
    /// Allocated once at full capacity; pushes never exceed it.
    words: Vec<u64>,
    /// The bytes of a word split across chunks.
    partial: [u8; WORD_BYTES],
    partial_len: usize,
    received: u64,
    expected: u64,
}

impl PayloadSink {
    /// Called only with a header that passed step 5, so `payloadLength` is
    /// `bitCount / 8` ≤ 2^27 bytes and a multiple of 8.
    fn new(header: &Header, hashed_header: Option<&[u8]>) -> Result<Self, LoadError> {
        let word_count =
            usize::try_from(header.bit_count / 64).map_err(|_| LoadError::InvalidHeader {
                field: "bitCount",
                reason: format!(
                    "{} bits do not fit in memory on this platform",
                    header.bit_count
                ),
            })?;
        let hasher = hashed_header.map(|bytes| {
            let mut hasher = Sha256::new();
            hasher.update(bytes);
            hasher
        });
        Ok(PayloadSink {
            hasher,
            words: Vec::with_capacity(word_count),
            partial: [0; WORD_BYTES],
            partial_len: 0,
            received: 0,
            expected: header.payload_length,
        })
    }

    /// Takes what the payload still needs from `chunk` and returns the rest
    /// (non-empty only when the input is longer than declared).
    fn accept<'a>(&mut self, chunk: &'a [u8]) -> &'a [u8] {
        let missing = self.expected.saturating_sub(self.received);
        let take = usize::try_from(missing).map_or(chunk.len(), |missing| missing.min(chunk.len()));
        let (mut mine, excess) = chunk.split_at(take);
        if let Some(hasher) = &mut self.hasher {
            crate::hashing::update_in_pieces(hasher, mine);
        }
        self.received += take as u64;

        // Complete a word begun by an earlier chunk.
        if self.partial_len > 0 {
            let fill = (WORD_BYTES - self.partial_len).min(mine.len());
            let (head, tail) = mine.split_at(fill);
            if let Some(slot) = self
                .partial
                .get_mut(self.partial_len..self.partial_len + fill)
            {
                slot.copy_from_slice(head);
            }
            self.partial_len += fill;
            mine = tail;
            if self.partial_len < WORD_BYTES {
                return excess;
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
        excess
    }

    /// The SHA-256 and the words. Called only when every byte arrived, so no
    /// partial word is pending (the length is a multiple of 8).
    fn finish(self) -> (Option<[u8; CHECKSUM_LENGTH]>, Vec<u64>) {
        (self.hasher.map(|hasher| hasher.finalize().into()), self.words)
    }
}
