//! The 96-byte ABF1 header: reading, validating (load steps 1–5) and writing.
//!
//! Validation looks only at these 96 bytes, so a header that declares an
//! absurd payload is rejected before anything is read or reserved for it.

use serde::Serializer;

use super::error::LoadError;
use super::*;
use crate::error::Value;
use crate::keyed::KEYED_HASH_PROTOCOL_VERSION;
use crate::layout::{MAXIMUM_BIT_COUNT, MAXIMUM_EXPECTED_ITEM_COUNT, MAXIMUM_HASH_COUNT, MINIMUM_BIT_COUNT};

/// The decoded header. Serialized (for JS) with camelCase names; every u64
/// field of a valid header is ≤ 2^53 − 1, so it becomes a plain JS number.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub format_version: u16,
    pub hash_protocol_version: u16,
    #[serde(serialize_with = "serialize_count")]
    pub catalog_version: u64,
    #[serde(serialize_with = "serialize_count")]
    pub bit_count: u64,
    pub hash_count: u32,
    pub reserved: u32,
    #[serde(serialize_with = "serialize_count")]
    pub expected_item_count: u64,
    #[serde(serialize_with = "serialize_count")]
    pub inserted_item_count: u64,
    pub target_fpp: f64,
    #[serde(serialize_with = "serialize_count")]
    pub payload_length: u64,
    /// Lowercase hex in JS: a 32-byte array would arrive as 32 numbers.
    #[serde(serialize_with = "serialize_hex")]
    pub checksum: [u8; CHECKSUM_LENGTH],
}

impl Header {
    /// `96 + payloadLength`: the exact file length this header declares.
    /// Saturates so an unvalidated header cannot overflow.
    pub fn total_length(&self) -> u64 {
        (HEADER_LENGTH as u64).saturating_add(self.payload_length)
    }

    /// The header's byte form, checksum included as stored in `self`.
    pub fn to_bytes(&self) -> [u8; HEADER_LENGTH] {
        let mut out = [0u8; HEADER_LENGTH];
        put(&mut out, OFFSET_MAGIC, &MAGIC);
        put(&mut out, OFFSET_FORMAT_VERSION, &self.format_version.to_le_bytes());
        put(&mut out, OFFSET_HASH_PROTOCOL_VERSION, &self.hash_protocol_version.to_le_bytes());
        put(&mut out, OFFSET_CATALOG_VERSION, &self.catalog_version.to_le_bytes());
        put(&mut out, OFFSET_BIT_COUNT, &self.bit_count.to_le_bytes());
        put(&mut out, OFFSET_HASH_COUNT, &self.hash_count.to_le_bytes());
        put(&mut out, OFFSET_RESERVED, &self.reserved.to_le_bytes());
        put(&mut out, OFFSET_EXPECTED_ITEM_COUNT, &self.expected_item_count.to_le_bytes());
        put(&mut out, OFFSET_INSERTED_ITEM_COUNT, &self.inserted_item_count.to_le_bytes());
        put(&mut out, OFFSET_TARGET_FPP, &self.target_fpp.to_bits().to_le_bytes());
        put(&mut out, OFFSET_PAYLOAD_LENGTH, &self.payload_length.to_le_bytes());
        put(&mut out, OFFSET_CHECKSUM, &self.checksum);
        out
    }
}

/// Load steps 1–5 from the first 96 bytes of `bytes` (which may be longer).
// Not inlined: the loaders, the header reader and a delta target share one copy
// in the main module, whose size every page pays.
#[inline(never)]
pub fn parse_header(bytes: &[u8]) -> Result<Header, LoadError> {
    // Step 1: every read below is then in bounds, but the helpers still check.
    if bytes.len() < HEADER_LENGTH {
        return Err(LoadError::Truncated { needed: HEADER_LENGTH as u64, got: bytes.len() as u64 });
    }
    // Step 2.
    let magic: [u8; MAGIC_LENGTH] = read_array(bytes, OFFSET_MAGIC)?;
    if magic != MAGIC {
        return Err(LoadError::BadMagic { found: magic });
    }
    // Steps 3 and 4: a newer writer's file is "unsupported", not "invalid".
    let format_version = u16::from_le_bytes(read_array(bytes, OFFSET_FORMAT_VERSION)?);
    if format_version != FORMAT_VERSION {
        return Err(LoadError::UnsupportedFormatVersion(format_version));
    }
    let hash_protocol_version = u16::from_le_bytes(read_array(bytes, OFFSET_HASH_PROTOCOL_VERSION)?);
    if hash_protocol_version != HASH_PROTOCOL_VERSION && hash_protocol_version != KEYED_HASH_PROTOCOL_VERSION {
        return Err(LoadError::UnsupportedHashProtocol(hash_protocol_version));
    }
    let header = Header {
        format_version,
        hash_protocol_version,
        catalog_version: read_u64(bytes, OFFSET_CATALOG_VERSION)?,
        bit_count: read_u64(bytes, OFFSET_BIT_COUNT)?,
        hash_count: u32::from_le_bytes(read_array(bytes, OFFSET_HASH_COUNT)?),
        reserved: u32::from_le_bytes(read_array(bytes, OFFSET_RESERVED)?),
        expected_item_count: read_u64(bytes, OFFSET_EXPECTED_ITEM_COUNT)?,
        inserted_item_count: read_u64(bytes, OFFSET_INSERTED_ITEM_COUNT)?,
        target_fpp: f64::from_bits(read_u64(bytes, OFFSET_TARGET_FPP)?),
        payload_length: read_u64(bytes, OFFSET_PAYLOAD_LENGTH)?,
        checksum: read_array(bytes, OFFSET_CHECKSUM)?,
    };
    // Step 5.
    validate_fields(&header)?;
    Ok(header)
}

/// Step 5: the remaining rules of the layout table, in the table's order, so
/// the error names the first broken field. Shared with the encoder so it
/// never writes a file the loader would reject.
pub(crate) fn validate_fields(h: &Header) -> Result<(), LoadError> {
    let integer = Value::Integer;
    if h.catalog_version > MAX_CATALOG_VERSION {
        return invalid(
            "catalogVersion",
            "at most 2^53 - 1 (exact as a JS number)",
            Some(MAX_CATALOG_VERSION),
            integer(h.catalog_version),
        );
    }
    if h.bit_count % 64 != 0 {
        return invalid("bitCount", "a multiple of 64", None, integer(h.bit_count));
    }
    if !(MINIMUM_BIT_COUNT..=MAXIMUM_BIT_COUNT).contains(&h.bit_count) {
        const _: () = assert!(MINIMUM_BIT_COUNT == 64 && MAXIMUM_BIT_COUNT == 1 << 30);
        return invalid("bitCount", "from 64 to 2^30", Some(MAXIMUM_BIT_COUNT), integer(h.bit_count));
    }
    if !(1..=MAXIMUM_HASH_COUNT).contains(&h.hash_count) {
        const _: () = assert!(MAXIMUM_HASH_COUNT == 32);
        return invalid("hashCount", "from 1 to 32", None, integer(u64::from(h.hash_count)));
    }
    // Protocol 2 keeps its key check there (docs/ABF1.md, "Keyed snapshots").
    if h.reserved != 0 && h.hash_protocol_version != KEYED_HASH_PROTOCOL_VERSION {
        return invalid("reserved", "0", None, integer(u64::from(h.reserved)));
    }
    if !(1..=MAXIMUM_EXPECTED_ITEM_COUNT).contains(&h.expected_item_count) {
        const _: () = assert!(MAXIMUM_EXPECTED_ITEM_COUNT == 1 << 30);
        return invalid(
            "expectedItemCount",
            "from 1 to 2^30",
            Some(MAXIMUM_EXPECTED_ITEM_COUNT),
            integer(h.expected_item_count),
        );
    }
    if h.inserted_item_count > h.expected_item_count {
        return invalid(
            "insertedItemCount",
            "at most expectedItemCount",
            Some(h.expected_item_count),
            integer(h.inserted_item_count),
        );
    }
    let p = h.target_fpp;
    // Written so NaN fails: every comparison with NaN is false.
    if !(p.is_finite() && p > 0.0 && p < 1.0) {
        return invalid("targetFpp", "a finite number strictly between 0 and 1", None, Value::Number(p));
    }
    // bitCount is a validated multiple of 64 here, so the division is exact.
    if h.payload_length != h.bit_count / 8 {
        return invalid("payloadLength", "equal to bitCount / 8", Some(h.bit_count / 8), integer(h.payload_length));
    }
    Ok(())
}

/// Field `field` broke the rule `expected` (whose value is `bound`, when the
/// rule names one): `got` came.
fn invalid(field: &'static str, expected: &'static str, bound: Option<u64>, got: Value) -> Result<(), LoadError> {
    Err(LoadError::InvalidHeader { field, expected, bound, got })
}

/// `N` bytes at `offset`, or `Truncated` when the input is too short. Never
/// panics: the range is checked with `get`, and the length of the slice is
/// exactly `N`, so `try_into` cannot fail.
fn read_array<const N: usize>(bytes: &[u8], offset: usize) -> Result<[u8; N], LoadError> {
    let end = offset.saturating_add(N);
    let truncated = || LoadError::Truncated { needed: end as u64, got: bytes.len() as u64 };
    bytes.get(offset..end).ok_or_else(truncated)?.try_into().map_err(|_| truncated())
}

fn read_u64(bytes: &[u8], offset: usize) -> Result<u64, LoadError> {
    read_array(bytes, offset).map(u64::from_le_bytes)
}

/// Writes a field into the fixed-size header. Offsets are the module's
/// constants, all within 96 bytes, so the range is always in bounds.
fn put(out: &mut [u8; HEADER_LENGTH], offset: usize, field: &[u8]) {
    if let Some(slot) = out.get_mut(offset..offset + field.len()) {
        slot.copy_from_slice(field);
    }
}

/// Lowercase hex, without pulling in the `hex` crate for 32 bytes.
/// Digit by digit: `{:02x}` would link `core::fmt`'s hex formatting into the wasm.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// A count as a JS number: serde's `u64` path (a BigInt check whose error
/// formats the value) is never taken, so it links no `core::fmt` into the
/// wasm. Counts of a valid header are at most 2^53 − 1; natively a count
/// above `u32::MAX` is written as a float.
pub(crate) fn serialize_count<S: Serializer>(count: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    match u32::try_from(*count) {
        Ok(small) => serializer.serialize_u32(small),
        Err(_) => serializer.serialize_f64(*count as f64),
    }
}

fn serialize_hex<S: Serializer>(bytes: &[u8; CHECKSUM_LENGTH], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&to_hex(bytes))
}
