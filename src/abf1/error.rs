//! The ABF1 load and encode errors.
//!
//! One variant per failure of the spec's load table, so a caller (the JS
//! binding) can map each to the reference's error code without parsing text.
//! Both are [`Coded`]: `code()` is the stable machine word and the data stay
//! numbers; the sentence (what was expected and what arrived) is built from
//! them by `pkg-template/lib/core/errors.js`.

use crate::error::{display_coded, Coded, Fields, Value};
use crate::fallible::OutOfMemory;

use super::{FORMAT_VERSION, HASH_PROTOCOL_VERSION, HEADER_LENGTH, MAGIC, MAX_CATALOG_VERSION};

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
    /// the first broken rule in the layout table's order, `expected` the
    /// rule ("a multiple of 64"), `bound` the value the rule names when it
    /// comes from the header itself (`insertedItemCount` ≤ `expectedItemCount`).
    InvalidHeader { field: &'static str, expected: &'static str, bound: Option<u64>, got: Value },
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
    /// Step 9: a keyed (protocol-2) snapshot loaded without a key.
    KeyRequired,
    /// Step 9: the key's check is not the file's (another key made it).
    WrongKey,
    /// Step 9: a key was given for a protocol-1 (unkeyed) snapshot.
    NotKeyed,
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
            LoadError::KeyRequired => "keyRequired",
            LoadError::WrongKey => "wrongKey",
            LoadError::NotKeyed => "notKeyed",
        }
    }

    /// The code and the fields as text (natively; JS builds the sentence).
    pub fn message(&self) -> String {
        crate::error::Described(self).to_string()
    }
}

impl Coded for LoadError {
    fn code(&self) -> &'static str {
        LoadError::code(self)
    }

    fn domain(&self) -> &'static str {
        "snapshot"
    }

    fn fields(&self, out: &mut dyn Fields) {
        match *self {
            LoadError::Truncated { needed, got } | LoadError::LengthMismatch { expected: needed, got } => {
                out.integer("expected", needed);
                out.integer("got", got);
                // The message explains `expected` as header + payloadLength;
                // the header's length is a format rule, so it comes from here.
                out.integer("headerLength", HEADER_LENGTH as u64);
            }
            LoadError::BadMagic { found } => {
                out.value("expected", Value::Bytes4(MAGIC));
                out.value("got", Value::Bytes4(found));
            }
            LoadError::UnsupportedFormatVersion(found) => {
                out.integer("expected", u64::from(FORMAT_VERSION));
                out.integer("got", u64::from(found));
            }
            LoadError::UnsupportedHashProtocol(found) => {
                // "1 or 2": the message names both.
                out.integer("expected", u64::from(HASH_PROTOCOL_VERSION));
                out.integer("keyed", u64::from(crate::keyed::KEYED_HASH_PROTOCOL_VERSION));
                out.integer("got", u64::from(found));
            }
            LoadError::InvalidHeader { field, expected, bound, got } => {
                out.word("field", field);
                out.word("rule", expected);
                if let Some(bound) = bound {
                    out.integer("bound", bound);
                }
                out.value("got", got);
            }
            // No key material in any of them: the check value is not named either.
            LoadError::ChecksumMismatch | LoadError::KeyRequired | LoadError::WrongKey | LoadError::NotKeyed => {}
            LoadError::TooLarge { declared, limit } => {
                out.integer("declared", declared);
                out.integer("limit", limit);
            }
            LoadError::OutOfMemory { requested } => {
                out.integer("requested", requested);
                out.word("purpose", "for the snapshot's bit array");
            }
        }
    }
}

/// Why a filter could not be written as ABF1.
#[derive(Clone, Debug, PartialEq)]
pub enum EncodeError {
    /// The catalog version is above 2^53 − 1, so JS could not read it back
    /// exactly.
    CatalogVersionOutOfRange(u64),
    /// The filter's own fields break a header rule (the load error says
    /// which), so the file would not load (e.g. a union whose inserted counts
    /// add up past `expectedItemCount`). Writing it anyway would publish a
    /// snapshot every client rejects.
    InvalidFilter(LoadError),
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
            EncodeError::InvalidFilter(_) => "invalidFilter",
            EncodeError::OutOfMemory { .. } => OutOfMemory::CODE,
        }
    }

    /// The camelCase header field the filter breaks, if that is the failure.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            EncodeError::InvalidFilter(LoadError::InvalidHeader { field, .. }) => Some(field),
            _ => None,
        }
    }

    /// The code and the fields as text (natively; JS builds the sentence).
    pub fn message(&self) -> String {
        crate::error::Described(self).to_string()
    }
}

impl Coded for EncodeError {
    fn code(&self) -> &'static str {
        EncodeError::code(self)
    }

    fn domain(&self) -> &'static str {
        "encode"
    }

    fn fields(&self, out: &mut dyn Fields) {
        match self {
            EncodeError::CatalogVersionOutOfRange(found) => {
                out.integer("limit", MAX_CATALOG_VERSION);
                out.integer("got", *found);
            }
            EncodeError::InvalidFilter(inner) => out.inner("inner", inner),
            EncodeError::OutOfMemory { requested } => {
                out.integer("requested", *requested);
                out.word("purpose", "for the encoded snapshot");
            }
        }
    }
}

display_coded!(LoadError, EncodeError);
