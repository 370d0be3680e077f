//! ABF1: the published snapshot of one `ArtifactBloomFilter` for one catalog
//! version (docs/ABF1.md).
//!
//! Layout: a 96-byte little-endian header, then `payloadLength` bytes of bit
//! array. The checksum covers header bytes [0, 64) and the payload, so a
//! flipped `catalogVersion` is caught as well as a flipped payload bit.
//!
//! The loader checks in the spec's order and returns the first failure:
//! truncated → badMagic → unsupportedFormatVersion → unsupportedHashProtocol →
//! invalidHeader → truncated → lengthMismatch → checksumMismatch. Nothing is
//! allocated from a length field until the header has validated, which bounds
//! the payload by 2^30 bits (128 MiB), and every allocation is fallible: a
//! refusal is `outOfMemory`, never an abort.

mod error;
mod header;
mod stream;
#[cfg(test)]
mod tests;

use sha2::{Digest, Sha256};

use crate::bits::{BitArray, FromBytesError, WORD_BYTES};
use crate::fallible;
use crate::filter::ArtifactBloomFilter;
use crate::keyed::{Hashing, SnapshotKey, KEYED_HASH_PROTOCOL_VERSION};
use crate::layout::BloomSpec;

pub use error::{EncodeError, LoadError};
pub use header::{parse_header, Header};
pub(crate) use header::{serialize_count, to_hex};
pub use stream::StreamDecoder;

/// The first four bytes of every ABF1 file.
pub const MAGIC: [u8; MAGIC_LENGTH] = *b"ABF1";
pub const MAGIC_LENGTH: usize = 4;
/// The only format version this loader reads.
pub const FORMAT_VERSION: u16 = 1;
/// The probe rule of docs/ABF1.md "Bits"; another protocol would place bits
/// elsewhere, so its files must not load as this one.
pub const HASH_PROTOCOL_VERSION: u16 = 1;
/// 2^53 − 1: the largest catalog version JS can hold exactly.
pub const MAX_CATALOG_VERSION: u64 = (1 << 53) - 1;

pub const OFFSET_MAGIC: usize = 0;
pub const OFFSET_FORMAT_VERSION: usize = 4;
pub const OFFSET_HASH_PROTOCOL_VERSION: usize = 6;
pub const OFFSET_CATALOG_VERSION: usize = 8;
pub const OFFSET_BIT_COUNT: usize = 16;
pub const OFFSET_HASH_COUNT: usize = 24;
pub const OFFSET_RESERVED: usize = 28;
pub const OFFSET_EXPECTED_ITEM_COUNT: usize = 32;
pub const OFFSET_INSERTED_ITEM_COUNT: usize = 40;
pub const OFFSET_TARGET_FPP: usize = 48;
pub const OFFSET_PAYLOAD_LENGTH: usize = 56;
pub const OFFSET_CHECKSUM: usize = 64;
/// SHA-256 output size.
pub const CHECKSUM_LENGTH: usize = 32;
/// Header bytes [0, 64) — everything before the checksum — are hashed.
pub const CHECKSUMMED_HEADER_LENGTH: usize = OFFSET_CHECKSUM;
pub const HEADER_LENGTH: usize = 96;
pub const OFFSET_PAYLOAD: usize = HEADER_LENGTH;

// The table's offsets must tile the header exactly.
const _: () = assert!(OFFSET_CHECKSUM + CHECKSUM_LENGTH == HEADER_LENGTH);
const _: () = assert!(OFFSET_PAYLOAD_LENGTH + 8 == OFFSET_CHECKSUM);

/// A loaded snapshot: the validated header (the catalog version is
/// `header.catalog_version`) and the filter it describes.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub header: Header,
    pub filter: ArtifactBloomFilter,
}

/// Loads a complete ABF1 file without a key, checking all 9 steps in the
/// spec's order: a keyed (protocol-3) file is `keyRequired`.
pub fn decode(bytes: &[u8]) -> Result<Snapshot, LoadError> {
    decode_keyed(bytes, None)
}

/// Loads a complete ABF1 file with the key a caller holds (or none): steps
/// 1–8, then step 9 ([`Snapshot::unlock`]).
pub fn decode_keyed(bytes: &[u8], key: Option<&SnapshotKey>) -> Result<Snapshot, LoadError> {
    decode_with(bytes, checksum_of)?.unlock(key)
}

/// [`decode`] with the step-8 SHA-256 supplied by the caller: `hash` gets
/// header bytes [0, 64) and the payload and returns their SHA-256. Node's
/// binding passes node:crypto here (about 10× faster than SHA-256 in wasm);
/// the comparison itself stays in [`verify_checksum`]. Steps 1–8 only: a
/// keyed file's filter answers "maybe" to everything until the caller runs
/// step 9 ([`Snapshot::unlock`]), as the JS binding does.
pub fn decode_with(
    bytes: &[u8],
    hash: impl FnOnce(&[u8], &[u8]) -> [u8; CHECKSUM_LENGTH],
) -> Result<Snapshot, LoadError> {
    // Steps 1–5.
    let header = parse_header(bytes)?;
    // Steps 6 and 7: the file is exactly header + payload.
    let total = header.total_length();
    let got = bytes.len() as u64;
    if got < total {
        return Err(LoadError::Truncated { needed: total, got });
    }
    if got > total {
        return Err(LoadError::LengthMismatch { expected: total, got });
    }
    let (Some(hashed_header), Some(payload)) = (bytes.get(..CHECKSUMMED_HEADER_LENGTH), bytes.get(OFFSET_PAYLOAD..))
    else {
        // Unreachable after step 6; kept as an error rather than a panic.
        return Err(LoadError::Truncated { needed: total, got });
    };
    // Step 8.
    verify_checksum(&header, hash(hashed_header, payload))?;
    // The only allocation sized by the file, after every check passed.
    let bits = bits_from_payload(&header, payload)?;
    Ok(assemble(header, bits))
}

/// Writes `filter` as ABF1 for `catalog_version`. The result decodes back to
/// an equal filter, and re-encoding a decoded file reproduces it byte for byte.
/// The payload is written straight into the one output buffer (no second copy
/// of the bit array).
pub fn encode(filter: &ArtifactBloomFilter, catalog_version: u64) -> Result<Vec<u8>, EncodeError> {
    let mut out = encode_unsealed(filter, catalog_version)?;
    let (head, payload) = out.split_at_mut(HEADER_LENGTH);
    let checksum = checksum_of(&head[..CHECKSUMMED_HEADER_LENGTH], payload);
    head[OFFSET_CHECKSUM..].copy_from_slice(&checksum);
    Ok(out)
}

/// [`encode`] without step 8's input: the checksum field is left zero and
/// the payload is not hashed. Only for handing a filter this process holds
/// to code that trusts it — the delta module's encoder, which hashes what the
/// delta names itself — so an encode does not hash both snapshots for
/// nothing. Every loader rejects the result (`checksumMismatch`), so it
/// cannot be published.
pub fn encode_unsealed(filter: &ArtifactBloomFilter, catalog_version: u64) -> Result<Vec<u8>, EncodeError> {
    let header = header_of(filter, catalog_version)?;
    let bits = filter.bits();
    let mut out = fallible::with_capacity(HEADER_LENGTH.saturating_add(bits.byte_count()))?;
    // The header with a zero checksum, then the payload; `encode` fills the
    // checksum in (it covers bytes [0, 64) of the header and the payload).
    out.extend_from_slice(&header.to_bytes());
    bits.write_le_bytes(&mut out)?;
    Ok(out)
}

/// The sealed header (checksum filled in) of the file [`encode`] would
/// write, without writing the file: for a caller that copies the payload
/// out of the filter's own words itself (the sorted builder's binding, so
/// a 128 MiB filter is not held twice in wasm memory). The payload is the
/// bit array's words as little-endian bytes.
pub fn sealed_header(filter: &ArtifactBloomFilter, catalog_version: u64) -> Result<[u8; HEADER_LENGTH], EncodeError> {
    let mut header = header_of(filter, catalog_version)?;
    header.checksum = checksum_of_bits(&header, filter.bits());
    Ok(header.to_bytes())
}

/// The header of `filter` at `catalog_version` with a zero checksum, after
/// the checks every loader makes.
fn header_of(filter: &ArtifactBloomFilter, catalog_version: u64) -> Result<Header, EncodeError> {
    if catalog_version > MAX_CATALOG_VERSION {
        return Err(EncodeError::CatalogVersionOutOfRange(catalog_version));
    }
    let spec = filter.spec();
    // Protocol 1 with reserved 0, or protocol 3 with the key check there.
    let (hash_protocol_version, reserved) = filter.hashing().header_fields();
    let header = Header {
        format_version: FORMAT_VERSION,
        hash_protocol_version,
        catalog_version,
        bit_count: filter.bit_count(),
        hash_count: filter.hash_count(),
        reserved,
        expected_item_count: spec.expected_item_count,
        inserted_item_count: filter.inserted_item_count(),
        target_fpp: spec.target_false_positive_rate,
        payload_length: filter.bit_count() / 8,
        checksum: [0; CHECKSUM_LENGTH],
    };
    // Refuse to publish what every loader would reject.
    header::validate_fields(&header).map_err(EncodeError::InvalidFilter)?;
    Ok(header)
}

/// SHA-256 of header bytes [0, 64) followed by the payload.
pub fn checksum_of(hashed_header: &[u8], payload: &[u8]) -> [u8; CHECKSUM_LENGTH] {
    let mut hasher = Sha256::new();
    hasher.update(hashed_header);
    crate::hashing::update_in_pieces(&mut hasher, payload);
    hasher.finalize().into()
}

/// [`checksum_of`] the file `header` and `bits` would make, without writing
/// it: header bytes [0, 64), then the bits' payload form.
pub fn checksum_of_bits(header: &Header, bits: &BitArray) -> [u8; CHECKSUM_LENGTH] {
    let mut hasher = Sha256::new();
    hasher.update(&header.to_bytes()[..CHECKSUMMED_HEADER_LENGTH]);
    hash_payload_of(&mut hasher, bits);
    hasher.finalize().into()
}

/// Feeds the payload form of `bits` (its words as little-endian bytes) to
/// `hasher`, 8 KiB at a time: short calls, so V8 tiers the wasm hash up (see
/// `hashing::update_in_pieces`), and no payload-sized copy.
pub fn hash_payload_of(hasher: &mut Sha256, bits: &BitArray) {
    const WORDS_PER_PIECE: usize = 1024;
    let mut piece = [0u8; WORDS_PER_PIECE * WORD_BYTES];
    for words in bits.words().chunks(WORDS_PER_PIECE) {
        for (slot, word) in piece.chunks_exact_mut(WORD_BYTES).zip(words) {
            slot.copy_from_slice(&word.to_le_bytes());
        }
        hasher.update(&piece[..words.len() * WORD_BYTES]);
    }
}

/// What [`decode`] gives for the file of `header` and `bits`, without the
/// file: a delta's target, whose bits are rebuilt in place and whose header
/// the delta carries. The same steps on the same bytes — the header's rules
/// (step 5, for a header not parsed from bytes), its length against the bits
/// (step 7) and the checksum (step 8, on `computed`: the SHA-256 of header
/// bytes [0, 64) and the payload, e.g. [`checksum_of_bits`]) — so the
/// snapshot is exactly the one a full download of that file loads.
pub fn from_bits(header: Header, bits: BitArray, computed: [u8; CHECKSUM_LENGTH]) -> Result<Snapshot, LoadError> {
    header::validate_fields(&header)?;
    if bits.bit_count() != header.bit_count {
        let got = (HEADER_LENGTH as u64).saturating_add(bits.byte_count() as u64);
        return Err(LoadError::LengthMismatch { expected: header.total_length(), got });
    }
    from_checked_bits(header, bits, computed)
}

/// [`from_bits`] for a header from [`parse_header`] and bits of its bitCount
/// (the main module's binding reserves them so): step 8 and the snapshot.
pub(crate) fn from_checked_bits(
    header: Header,
    bits: BitArray,
    computed: [u8; CHECKSUM_LENGTH],
) -> Result<Snapshot, LoadError> {
    verify_checksum(&header, computed)?;
    Ok(assemble(header, bits))
}

/// Step 8 on its own. A plain comparison is enough: the checksum guards
/// against corruption, not forgery (anyone can recompute it), so timing
/// leaks nothing.
pub(crate) fn verify_checksum(header: &Header, computed: [u8; CHECKSUM_LENGTH]) -> Result<(), LoadError> {
    if computed == header.checksum {
        Ok(())
    } else {
        Err(LoadError::ChecksumMismatch)
    }
}

/// The payload as words. The header guarantees its length is `bitCount / 8`,
/// a multiple of 8; a mismatch would be a bug, reported rather than panicking.
fn bits_from_payload(header: &Header, payload: &[u8]) -> Result<BitArray, LoadError> {
    let mismatch =
        LoadError::LengthMismatch { expected: header.total_length(), got: (HEADER_LENGTH + payload.len()) as u64 };
    match BitArray::from_le_bytes(payload) {
        Ok(bits) if bits.bit_count() == header.bit_count => Ok(bits),
        Ok(_) | Err(FromBytesError::PartialWord) => Err(mismatch),
        Err(FromBytesError::OutOfMemory(error)) => Err(error.into()),
    }
}

/// The filter a validated header and its bits describe.
pub(crate) fn assemble(header: Header, bits: BitArray) -> Snapshot {
    let spec =
        BloomSpec { expected_item_count: header.expected_item_count, target_false_positive_rate: header.target_fpp };
    // from_parts needs non-empty bits and 1..=32 hashes: step 5 checked both.
    let filter = ArtifactBloomFilter::from_parts(bits, header.hash_count, header.inserted_item_count, spec);
    // A keyed file's filter answers only once `unlock` has given it its key.
    let filter = if header.hash_protocol_version == KEYED_HASH_PROTOCOL_VERSION {
        filter.with_hashing(Hashing::Keyed { key_check: header.reserved, key: None })
    } else {
        filter
    };
    Snapshot { header, filter }
}

impl Snapshot {
    /// Step 9 (docs/ABF1.md, "Keyed snapshots"): the key a caller holds
    /// against the file's protocol. A protocol-3 file needs `key`
    /// (`keyRequired`) whose key check is the header's (`wrongKey`); a
    /// protocol-1 file refuses one (`notKeyed`: a client that expects a
    /// keyed snapshot must notice a publisher that stopped keying). The
    /// filter of a keyed file answers from here on.
    pub fn unlock(mut self, key: Option<&SnapshotKey>) -> Result<Snapshot, LoadError> {
        check_key(self.filter.hashing(), key)?;
        if let Some(key) = key {
            self.filter.set_key(key.clone());
        }
        Ok(self)
    }
}

/// Step 9's rule on a filter's hashing (a snapshot's, or a delta base's).
pub fn check_key(hashing: &Hashing, key: Option<&SnapshotKey>) -> Result<(), LoadError> {
    match (hashing, key) {
        (Hashing::Plain, None) => Ok(()),
        (Hashing::Plain, Some(_)) => Err(LoadError::NotKeyed),
        (Hashing::Keyed { .. }, None) => Err(LoadError::KeyRequired),
        (Hashing::Keyed { key_check, .. }, Some(key)) if *key_check == key.key_check() => Ok(()),
        (Hashing::Keyed { .. }, Some(_)) => Err(LoadError::WrongKey),
    }
}

/// The valid ABF1 file `file` with another hashing's header fields
/// (`hashProtocolVersion` and the key check in `reserved`) and the checksum
/// that follows; the payload is unchanged. For a publisher whose bits were
/// built by protocol 1 over the digests' MACs (the sorted build): `hashing`
/// must be what placed those bits. `file` must load (steps 1–8) first.
pub fn with_hashing(file: &[u8], hashing: &Hashing) -> Result<Vec<u8>, LoadError> {
    let mut header = parse_header(file)?;
    let total = header.total_length();
    if (file.len() as u64) != total {
        let got = file.len() as u64;
        return Err(if got < total {
            LoadError::Truncated { needed: total, got }
        } else {
            LoadError::LengthMismatch { expected: total, got }
        });
    }
    let (Some(hashed_header), Some(payload)) = (file.get(..CHECKSUMMED_HEADER_LENGTH), file.get(OFFSET_PAYLOAD..))
    else {
        return Err(LoadError::Truncated { needed: total, got: file.len() as u64 });
    };
    verify_checksum(&header, checksum_of(hashed_header, payload))?;
    (header.hash_protocol_version, header.reserved) = hashing.header_fields();
    let mut out = fallible::with_capacity(file.len())?;
    let head = header.to_bytes();
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    let checksum = checksum_of(&head[..CHECKSUMMED_HEADER_LENGTH], payload);
    if let Some(slot) = out.get_mut(OFFSET_CHECKSUM..HEADER_LENGTH) {
        slot.copy_from_slice(&checksum);
    }
    Ok(out)
}
