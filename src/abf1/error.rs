//! The ABF1 load and encode errors.
//!
//! One variant per failure of the spec's load table, so a caller (the JS
//! binding) can map each to the reference's error code without parsing text.
//! `code()` is the stable machine word; `message()` is for people and says
//! what was expected and what arrived.

use core::fmt;

use super::{FORMAT_VERSION, HASH_PROTOCOL_VERSION, MAGIC, MAX_CATALOG_VERSION};

/// Why an ABF1 input was rejected. Variants are listed in the order the
/// loader checks them (spec/ABF1.md, "Load errors"); `Truncated` covers both
/// step 1 (short header) and step 6 (short payload).
#[derive(Clone, Debug, PartialEq)]
pub enum LoadError {
    /// Fewer bytes than the header (step 1) or header + payload (step 6).
    Truncated { needed: u64, got: u64 },
    /// The first four bytes are not `ABF1`.
    BadMagic { found: [u8; 4] },
    /// `formatVersion` is not 1.
    UnsupportedFormatVersion(u16),
    /// `hashProtocolVersion` is not 1.
    UnsupportedHashProtocol(u16),
    /// Any other header rule broken; `field` is the camelCase field name of
    /// the first broken rule in the layout table's order.
    InvalidHeader { field: &'static str, reason: String },
    /// Bytes remain after the payload. A streaming decoder reports as `got`
    /// the bytes received when it noticed, a lower bound of the real length.
    LengthMismatch { expected: u64, got: u64 },
    /// The SHA-256 over header[0..64] ++ payload differs from the stored one.
    ChecksumMismatch,
}

impl LoadError {
    /// The reference's error code, used verbatim by the JS binding.
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Truncated { .. } => "truncated",
            LoadError::BadMagic { .. } => "badMagic",
            LoadError::UnsupportedFormatVersion(_) => "unsupportedFormatVersion",
            LoadError::UnsupportedHashProtocol(_) => "unsupportedHashProtocol",
            LoadError::InvalidHeader { .. } => "invalidHeader",
            LoadError::LengthMismatch { .. } => "lengthMismatch",
            LoadError::ChecksumMismatch => "checksumMismatch",
        }
    }

    /// A sentence for people: what was expected and what came.
    pub fn message(&self) -> String {
        match self {
            LoadError::Truncated { needed, got } => format!(
                "the snapshot is truncated: expected at least {needed} bytes \
                 (96-byte header + payloadLength), got {got}"
            ),
            LoadError::BadMagic { found } => format!(
                "expected magic \"{}\" ({}), found {}",
                String::from_utf8_lossy(&MAGIC),
                spaced_hex(&MAGIC),
                spaced_hex(found)
            ),
            LoadError::UnsupportedFormatVersion(found) => {
                format!("formatVersion {found} is not supported (expected {FORMAT_VERSION})")
            }
            LoadError::UnsupportedHashProtocol(found) => format!(
                "hashProtocolVersion {found} is not supported (expected {HASH_PROTOCOL_VERSION})"
            ),
            LoadError::InvalidHeader { field, reason } => {
                format!("invalid header field {field}: {reason}")
            }
            LoadError::LengthMismatch { expected, got } => format!(
                "the snapshot must be exactly {expected} bytes (96-byte header + payloadLength), \
                 got {got}"
            ),
            LoadError::ChecksumMismatch => "the SHA-256 checksum does not match header bytes \
                 [0, 64) followed by the payload"
                .to_string(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for LoadError {}

/// Why a filter could not be written as ABF1.
#[derive(Clone, Debug, PartialEq)]
pub enum EncodeError {
    /// The catalog version is above 2^53 − 1, so JS could not read it back
    /// exactly.
    CatalogVersionOutOfRange(u64),
    /// The filter's own fields break a header rule, so the file would not
    /// load (e.g. a union whose inserted counts add up past
    /// `expectedItemCount`). Writing it anyway would publish a snapshot every
    /// client rejects.
    InvalidFilter { field: &'static str, reason: String },
}

impl EncodeError {
    pub fn code(&self) -> &'static str {
        match self {
            EncodeError::CatalogVersionOutOfRange(_) => "catalogVersionOutOfRange",
            EncodeError::InvalidFilter { .. } => "invalidFilter",
        }
    }

    pub fn message(&self) -> String {
        match self {
            EncodeError::CatalogVersionOutOfRange(found) => format!(
                "catalogVersion must be an integer from 0 to {MAX_CATALOG_VERSION} (2^53 - 1), \
                 got {found}"
            ),
            EncodeError::InvalidFilter { field, reason } => {
                format!("the filter cannot be written as ABF1, field {field}: {reason}")
            }
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for EncodeError {}

/// `41 42 46 31`: bytes as the spec writes them.
fn spaced_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
