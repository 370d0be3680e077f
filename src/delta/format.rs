//! The ABD1 frame (docs/ABD1.md): the 200-byte header, its checks (load
//! steps 1–5) and its byte form. The body codec is in `rice.rs`.

use serde::Serializer;

use super::error::{DeltaError, Limit};
use crate::abf1;

/// The first four bytes of every ABD1 file.
pub const MAGIC: [u8; 4] = *b"ABD1";
/// The only format version this decoder reads.
pub const FORMAT_VERSION: u16 = 1;
/// positionEncoding 1: Golomb–Rice coded gaps between zero-bit ranks.
pub const POSITION_ENCODING_RICE: u8 = 1;
/// Ranks are below 2^30, so a larger Rice parameter never helps.
pub const MAX_RICE_PARAMETER: u8 = 30;

pub const OFFSET_MAGIC: usize = 0;
pub const OFFSET_FORMAT_VERSION: usize = 4;
pub const OFFSET_POSITION_ENCODING: usize = 6;
pub const OFFSET_RICE_PARAMETER: usize = 7;
pub const OFFSET_BASE_CATALOG_VERSION: usize = 8;
pub const OFFSET_BASE_SET_BIT_COUNT: usize = 16;
pub const OFFSET_BASE_PAYLOAD_SHA256: usize = 24;
pub const OFFSET_TARGET_PAYLOAD_SHA256: usize = 56;
pub const OFFSET_POSITION_COUNT: usize = 88;
pub const OFFSET_BODY_LENGTH: usize = 96;
pub const OFFSET_TARGET_HEADER: usize = 104;
pub const HEADER_LENGTH: usize = OFFSET_TARGET_HEADER + abf1::HEADER_LENGTH;
pub const OFFSET_BODY: usize = HEADER_LENGTH;
/// The trailer: SHA-256 of every byte before it.
pub const CHECKSUM_LENGTH: usize = 32;
pub const SHA256_LENGTH: usize = 32;

// The table's offsets must tile the header exactly.
const _: () = assert!(OFFSET_BASE_PAYLOAD_SHA256 + SHA256_LENGTH == OFFSET_TARGET_PAYLOAD_SHA256);
const _: () = assert!(OFFSET_TARGET_PAYLOAD_SHA256 + SHA256_LENGTH == OFFSET_POSITION_COUNT);
const _: () = assert!(OFFSET_BODY_LENGTH + 8 == OFFSET_TARGET_HEADER);
const _: () = assert!(HEADER_LENGTH == 200);

/// The decoded header. Serialized for JS with camelCase names; every u64 of a
/// valid header is at most 2^53 − 1 (bounded by the target's catalogVersion
/// or bitCount), so each becomes a plain JS number.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeltaHeader {
    pub format_version: u16,
    pub position_encoding: u8,
    pub rice_parameter: u8,
    #[serde(serialize_with = "crate::abf1::serialize_count")]
    pub base_catalog_version: u64,
    #[serde(serialize_with = "crate::abf1::serialize_count")]
    pub base_set_bit_count: u64,
    #[serde(serialize_with = "serialize_hex")]
    pub base_payload_sha256: [u8; SHA256_LENGTH],
    #[serde(serialize_with = "serialize_hex")]
    pub target_payload_sha256: [u8; SHA256_LENGTH],
    #[serde(serialize_with = "crate::abf1::serialize_count")]
    pub position_count: u64,
    #[serde(serialize_with = "crate::abf1::serialize_count")]
    pub body_length: u64,
    /// The target's complete ABF1 header, checksum included.
    pub target: abf1::Header,
}

impl DeltaHeader {
    /// `200 + bodyLength + 32`: the exact file length this header declares.
    /// Saturates so an unvalidated header cannot overflow.
    pub fn total_length(&self) -> u64 {
        (HEADER_LENGTH as u64 + CHECKSUM_LENGTH as u64).saturating_add(self.body_length)
    }

    /// Zero bits of the base: the range of the ranks the body names.
    pub fn base_zero_count(&self) -> u64 {
        self.target.bit_count.saturating_sub(self.base_set_bit_count)
    }

    /// The header's byte form.
    pub fn to_bytes(&self) -> [u8; HEADER_LENGTH] {
        let mut out = [0u8; HEADER_LENGTH];
        let mut put = |offset: usize, field: &[u8]| {
            if let Some(slot) = out.get_mut(offset..offset + field.len()) {
                slot.copy_from_slice(field);
            }
        };
        put(OFFSET_MAGIC, &MAGIC);
        put(OFFSET_FORMAT_VERSION, &self.format_version.to_le_bytes());
        put(OFFSET_POSITION_ENCODING, &[self.position_encoding]);
        put(OFFSET_RICE_PARAMETER, &[self.rice_parameter]);
        put(OFFSET_BASE_CATALOG_VERSION, &self.base_catalog_version.to_le_bytes());
        put(OFFSET_BASE_SET_BIT_COUNT, &self.base_set_bit_count.to_le_bytes());
        put(OFFSET_BASE_PAYLOAD_SHA256, &self.base_payload_sha256);
        put(OFFSET_TARGET_PAYLOAD_SHA256, &self.target_payload_sha256);
        put(OFFSET_POSITION_COUNT, &self.position_count.to_le_bytes());
        put(OFFSET_BODY_LENGTH, &self.body_length.to_le_bytes());
        put(OFFSET_TARGET_HEADER, &self.target.to_bytes());
        out
    }
}

/// Fewest and most body bits `count` Rice codes with parameter `k` can take
/// when every rank is below `zero_count`: each code is a unary stop bit plus
/// `k` low bits, and the quotients add up to at most `(zero_count − count) >> k`
/// (the gaps minus one sum to at most `zero_count − count`).
pub fn body_bit_bounds(count: u64, k: u8, zero_count: u64) -> (u64, u64) {
    let fixed = count.saturating_mul(u64::from(k) + 1);
    let quotients = zero_count.saturating_sub(count) >> k;
    (fixed, fixed.saturating_add(quotients))
}

/// Whole bytes holding `bits` bits.
pub fn bytes_for_bits(bits: u64) -> u64 {
    bits.div_ceil(8)
}

/// Load steps 1–5 from the first 200 bytes of `bytes` (which may be longer).
pub fn parse_header(bytes: &[u8]) -> Result<DeltaHeader, DeltaError> {
    // Step 1.
    let fixed = bytes
        .get(..HEADER_LENGTH)
        .ok_or(DeltaError::Truncated { needed: HEADER_LENGTH as u64, got: bytes.len() as u64 })?;
    // Step 2.
    let magic: [u8; 4] = read_array(fixed, OFFSET_MAGIC);
    if magic != MAGIC {
        return Err(DeltaError::BadMagic { found: magic });
    }
    // Steps 3 and 4: a newer writer's file is "unsupported", not "invalid".
    let format_version = u16::from_le_bytes(read_array(fixed, OFFSET_FORMAT_VERSION));
    if format_version != FORMAT_VERSION {
        return Err(DeltaError::UnsupportedFormatVersion(format_version));
    }
    let [position_encoding] = read_array(fixed, OFFSET_POSITION_ENCODING);
    if position_encoding != POSITION_ENCODING_RICE {
        return Err(DeltaError::UnsupportedPositionEncoding(position_encoding));
    }
    // Step 5: the target header first, since the other bounds use its bitCount.
    let target = abf1::parse_header(&fixed[OFFSET_TARGET_HEADER..]).map_err(DeltaError::InvalidTargetHeader)?;
    let [rice_parameter] = read_array(fixed, OFFSET_RICE_PARAMETER);
    let header = DeltaHeader {
        format_version,
        position_encoding,
        rice_parameter,
        base_catalog_version: read_u64(fixed, OFFSET_BASE_CATALOG_VERSION),
        base_set_bit_count: read_u64(fixed, OFFSET_BASE_SET_BIT_COUNT),
        base_payload_sha256: read_array(fixed, OFFSET_BASE_PAYLOAD_SHA256),
        target_payload_sha256: read_array(fixed, OFFSET_TARGET_PAYLOAD_SHA256),
        position_count: read_u64(fixed, OFFSET_POSITION_COUNT),
        body_length: read_u64(fixed, OFFSET_BODY_LENGTH),
        target,
    };
    validate_fields(&header)?;
    Ok(header)
}

/// Step 5 after the target header, in the table's order.
fn validate_fields(h: &DeltaHeader) -> Result<(), DeltaError> {
    let invalid = |field, got, limit| Err(DeltaError::InvalidHeader { field, got, limit });
    if h.rice_parameter > MAX_RICE_PARAMETER {
        return invalid("riceParameter", u64::from(h.rice_parameter), Limit::AtMost(u64::from(MAX_RICE_PARAMETER)));
    }
    if h.base_catalog_version >= h.target.catalog_version {
        return invalid("baseCatalogVersion", h.base_catalog_version, Limit::LessThan(h.target.catalog_version));
    }
    if h.base_set_bit_count > h.target.bit_count {
        return invalid("baseSetBitCount", h.base_set_bit_count, Limit::AtMost(h.target.bit_count));
    }
    let zero_count = h.base_zero_count();
    if h.position_count > zero_count {
        return invalid("positionCount", h.position_count, Limit::AtMost(zero_count));
    }
    let (least, most) = body_bit_bounds(h.position_count, h.rice_parameter, zero_count);
    if h.body_length < bytes_for_bits(least) {
        return invalid("bodyLength", h.body_length, Limit::AtLeast(bytes_for_bits(least)));
    }
    if h.body_length > bytes_for_bits(most) {
        return invalid("bodyLength", h.body_length, Limit::AtMost(bytes_for_bits(most)));
    }
    Ok(())
}

/// `N` bytes at `offset` of the 200-byte header. Offsets are this module's
/// constants, so the range is always inside; zeros otherwise (never a panic).
fn read_array<const N: usize>(fixed: &[u8], offset: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(field) = fixed.get(offset..offset + N) {
        out.copy_from_slice(field);
    }
    out
}

fn read_u64(fixed: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(read_array(fixed, offset))
}

/// Lowercase hex for the two SHA-256 fields (JS would otherwise get 32 numbers).
fn serialize_hex<S: Serializer>(bytes: &[u8; SHA256_LENGTH], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&crate::abf1::to_hex(bytes))
}
