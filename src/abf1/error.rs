//! The ABF1 load and encode errors.
//!
//! One variant per failure of the spec's load table, so a caller (the JS
//! binding) can map each to the reference's error code without parsing text.
//! `code()` is the stable machine word; `message()` is for people and says
//! what was expected and what arrived. `write_message` writes the same words
//! without allocating, so the binding can report an allocation failure even
//! when no memory is left.

use core::fmt;

use crate::fallible::OutOfMemory;

use super::{FORMAT_VERSION, HASH_PROTOCOL_VERSION, MAGIC, MAX_CATALOG_VERSION};

/// Why an ABF1 input was rejected. Variants are listed in the order the
/// loader checks them (docs/ABF1.md, "Load errors"); `Truncated` covers both
/// step 1 (short header) and step 6 (short payload). The last two are not the
/// spec's: a caller's size limit and the memory running out.
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
    /// A valid header declares more bytes than the streaming caller allows
    /// (`maxBytes`); decided right after step 5, before anything is reserved.
    TooLarge { declared: u64, limit: u64 },
    /// The bit array (`requested` bytes) could not be reserved.
    OutOfMemory { requested: u64 },
}

impl From<OutOfMemory> for LoadError {
    fn from(error: OutOfMemory) -> Self {
        LoadError::OutOfMemory { requested: error.requested_bytes }
    }
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
            LoadError::TooLarge { .. } => "tooLarge",
            LoadError::OutOfMemory { .. } => OutOfMemory::CODE,
        }
    }

    /// A sentence for people: what was expected and what came.
    pub fn message(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_message(&mut text);
        text
    }

    /// [`LoadError::message`] written to `out`, allocating nothing itself.
    pub fn write_message(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self {
            LoadError::Truncated { needed, got } => write!(
                out,
                "the snapshot is truncated: expected at least {needed} bytes \
                 (96-byte header + payloadLength), got {got}"
            ),
            LoadError::BadMagic { found } => {
                write!(out, "expected magic \"")?;
                for byte in MAGIC {
                    out.write_char(char::from(byte))?;
                }
                write!(out, "\" (")?;
                write_spaced_hex(out, &MAGIC)?;
                write!(out, "), found ")?;
                write_spaced_hex(out, found)
            }
            LoadError::UnsupportedFormatVersion(found) => {
                write!(out, "formatVersion {found} is not supported (expected {FORMAT_VERSION})")
            }
            LoadError::UnsupportedHashProtocol(found) => {
                write!(out, "hashProtocolVersion {found} is not supported (expected {HASH_PROTOCOL_VERSION})")
            }
            LoadError::InvalidHeader { field, reason } => {
                write!(out, "invalid header field {field}: {reason}")
            }
            LoadError::LengthMismatch { expected, got } => write!(
                out,
                "the snapshot must be exactly {expected} bytes (96-byte header + payloadLength), \
                 got {got}"
            ),
            LoadError::ChecksumMismatch => {
                write!(out, "the SHA-256 checksum does not match header bytes [0, 64) followed by the payload")
            }
            LoadError::TooLarge { declared, limit } => {
                write!(out, "the header declares {declared} bytes, more than maxBytes ({limit})")
            }
            LoadError::OutOfMemory { requested } => write!(
                out,
                "could not reserve {requested} bytes for the snapshot's bit array: WebAssembly \
                 memory grows to 4 GiB at most and never shrinks (free() filters that are no \
                 longer needed)"
            ),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        self.write_message(f)
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
    /// The output buffer (`requested` bytes) could not be reserved.
    OutOfMemory { requested: u64 },
}

impl From<OutOfMemory> for EncodeError {
    fn from(error: OutOfMemory) -> Self {
        EncodeError::OutOfMemory { requested: error.requested_bytes }
    }
}

impl EncodeError {
    pub fn code(&self) -> &'static str {
        match self {
            EncodeError::CatalogVersionOutOfRange(_) => "catalogVersionOutOfRange",
            EncodeError::InvalidFilter { .. } => "invalidFilter",
            EncodeError::OutOfMemory { .. } => OutOfMemory::CODE,
        }
    }

    pub fn message(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_message(&mut text);
        text
    }

    /// [`EncodeError::message`] written to `out`, allocating nothing itself.
    pub fn write_message(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self {
            EncodeError::CatalogVersionOutOfRange(found) => write!(
                out,
                "catalogVersion must be an integer from 0 to {MAX_CATALOG_VERSION} (2^53 - 1), \
                 got {found}"
            ),
            EncodeError::InvalidFilter { field, reason } => {
                write!(out, "the filter cannot be written as ABF1, field {field}: {reason}")
            }
            EncodeError::OutOfMemory { requested } => write!(
                out,
                "could not reserve {requested} bytes for the encoded snapshot: WebAssembly \
                 memory grows to 4 GiB at most and never shrinks (free() filters that are no \
                 longer needed)"
            ),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        self.write_message(f)
    }
}

impl std::error::Error for EncodeError {}

/// `41 42 46 31`: bytes as the spec writes them.
fn write_spaced_hex(out: &mut dyn fmt::Write, bytes: &[u8]) -> fmt::Result {
    for (index, byte) in bytes.iter().enumerate() {
        if index > 0 {
            out.write_char(' ')?;
        }
        write!(out, "{byte:02x}")?;
    }
    Ok(())
}
