//! The ABD1 errors: decoding a delta, applying it to a base, writing one and
//! composing two.
//!
//! One variant per check of docs/ABD1.md, data kept as numbers so the JS
//! binding and tools never parse text. [`DeltaError`] is [`Coded`]: `code()`
//! is the stable machine word; `pkg-template/lib/core/errors.js` builds the
//! sentence (what was expected and what came) from its fields.

use crate::abf1::{EncodeError, LoadError};
use crate::error::{display_coded, Coded, Fields, Value};

/// The bound a header field broke (the value itself is in the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    AtMost(u64),
    AtLeast(u64),
    LessThan(u64),
}

impl Limit {
    /// The bound's word ("atMost", "atLeast", "lessThan") and value.
    pub fn parts(self) -> (&'static str, u64) {
        match self {
            Limit::AtMost(n) => ("atMost", n),
            Limit::AtLeast(n) => ("atLeast", n),
            Limit::LessThan(n) => ("lessThan", n),
        }
    }
}

/// How a snapshot differs from the base a delta names (`wrongBase`), or how
/// the second of two deltas fails to start where the first ends
/// (`notChained`). `expected` is what the delta names, `got` what was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseMismatch {
    CatalogVersion {
        expected: u64,
        got: u64,
    },
    Layout {
        expected_bit_count: u64,
        expected_hash_count: u32,
        got_bit_count: u64,
        got_hash_count: u32,
    },
    SetBitCount {
        expected: u64,
        got: u64,
    },
    /// The SHA-256 of the bit array differs (compared only when needed, see
    /// `apply`).
    PayloadChecksum,
}

impl Coded for BaseMismatch {
    fn code(&self) -> &'static str {
        match self {
            BaseMismatch::CatalogVersion { .. } => "catalogVersion",
            BaseMismatch::Layout { .. } => "layout",
            BaseMismatch::SetBitCount { .. } => "setBitCount",
            BaseMismatch::PayloadChecksum => "payloadChecksum",
        }
    }

    fn domain(&self) -> &'static str {
        "deltaBase"
    }

    fn fields(&self, out: &mut dyn Fields) {
        match *self {
            BaseMismatch::CatalogVersion { expected, got } | BaseMismatch::SetBitCount { expected, got } => {
                out.integer("expected", expected);
                out.integer("got", got);
            }
            BaseMismatch::Layout { expected_bit_count, expected_hash_count, got_bit_count, got_hash_count } => {
                out.integer("expectedBitCount", expected_bit_count);
                out.integer("expectedHashCount", u64::from(expected_hash_count));
                out.integer("gotBitCount", got_bit_count);
                out.integer("gotHashCount", u64::from(got_hash_count));
            }
            BaseMismatch::PayloadChecksum => {}
        }
    }
}

/// Why a delta could not be decoded, applied, written or composed. Decode
/// variants are listed in the order the decoder checks them.
#[derive(Clone, Debug, PartialEq)]
pub enum DeltaError {
    /// Fewer bytes than the fixed header (step 1) or than it declares (step 6).
    Truncated {
        needed: u64,
        got: u64,
    },
    /// The first four bytes are not `ABD1`.
    BadMagic {
        found: [u8; 4],
    },
    UnsupportedFormatVersion(u16),
    UnsupportedPositionEncoding(u8),
    /// The embedded target ABF1 header fails ABF1 load steps 1–5.
    InvalidTargetHeader(LoadError),
    /// Any other header field out of its bound; `field` is its camelCase name.
    InvalidHeader {
        field: &'static str,
        got: u64,
        limit: Limit,
    },
    /// Bytes remain after the trailer.
    LengthMismatch {
        expected: u64,
        got: u64,
    },
    /// The trailer is not the SHA-256 of every byte before it.
    ChecksumMismatch,
    /// The body ended after `decoded` of `expected` positions.
    PositionsTruncated {
        decoded: u64,
        expected: u64,
    },
    /// The `index`-th position names zero-bit `rank`, but the base has only
    /// `zero_count` zero bits.
    PositionOutOfRange {
        index: u64,
        rank: u64,
        zero_count: u64,
    },
    /// Unused body bits (after the last position) are not all zero padding
    /// inside the last byte.
    NonCanonicalPositions {
        used_bits: u64,
        body_bits: u64,
    },
    /// The snapshot given as base is not the one the delta names.
    WrongBase(BaseMismatch),
    /// The rebuilt target does not hash to the target header's checksum,
    /// although the base is the one named (a delta that cannot be right).
    ResultChecksumMismatch,
    /// Encode: the two snapshots have different bitCount or hashCount.
    IncompatibleLayout {
        base_bit_count: u64,
        base_hash_count: u32,
        target_bit_count: u64,
        target_hash_count: u32,
    },
    /// Encode: `removed_bits` bits of the base are clear in the target, the
    /// lowest at `first_position`.
    NotSuperset {
        removed_bits: u64,
        first_position: u64,
    },
    /// Encode: the target's catalogVersion must be greater than the base's.
    NotNewer {
        base_catalog_version: u64,
        target_catalog_version: u64,
    },
    /// Encode: the target cannot be written as ABF1.
    Encode(EncodeError),
    /// The rebuilt target failed an ABF1 load step other than the checksum
    /// (which [`super::diagnose`] explains); the code is the loader's.
    TargetLoad(LoadError),
    /// Compose: the second delta does not start where the first ends.
    NotChained(BaseMismatch),
    /// A buffer of `bytes` bytes could not be reserved.
    OutOfMemory {
        bytes: u64,
    },
}

impl DeltaError {
    /// The stable error code (docs/ABD1.md), used verbatim by the JS binding.
    pub fn code(&self) -> &'static str {
        match self {
            DeltaError::Truncated { .. } => "truncated",
            DeltaError::BadMagic { .. } => "badMagic",
            DeltaError::UnsupportedFormatVersion(_) => "unsupportedFormatVersion",
            DeltaError::UnsupportedPositionEncoding(_) => "unsupportedPositionEncoding",
            DeltaError::InvalidTargetHeader(_) => "invalidTargetHeader",
            DeltaError::InvalidHeader { .. } => "invalidHeader",
            DeltaError::LengthMismatch { .. } => "lengthMismatch",
            DeltaError::ChecksumMismatch => "checksumMismatch",
            DeltaError::PositionsTruncated { .. } => "positionsTruncated",
            DeltaError::PositionOutOfRange { .. } => "positionOutOfRange",
            DeltaError::NonCanonicalPositions { .. } => "nonCanonicalPositions",
            DeltaError::WrongBase(_) => "wrongBase",
            DeltaError::ResultChecksumMismatch => "resultChecksumMismatch",
            DeltaError::IncompatibleLayout { .. } => "incompatibleLayout",
            DeltaError::NotSuperset { .. } => "notSuperset",
            DeltaError::NotNewer { .. } => "notNewer",
            DeltaError::Encode(inner) => inner.code(),
            DeltaError::TargetLoad(inner) => inner.code(),
            DeltaError::NotChained(_) => "notChained",
            DeltaError::OutOfMemory { .. } => "outOfMemory",
        }
    }

    /// The code and the fields as text (natively; JS builds the sentence).
    pub fn message(&self) -> String {
        crate::error::Described(self).to_string()
    }
}

impl Coded for DeltaError {
    fn code(&self) -> &'static str {
        DeltaError::code(self)
    }

    /// A wrapped ABF1 error keeps its own messages: `Encode` and
    /// `TargetLoad` read as the encoder's and the loader's.
    fn domain(&self) -> &'static str {
        match self {
            DeltaError::Encode(inner) => inner.domain(),
            DeltaError::TargetLoad(_) => "deltaTarget",
            _ => "delta",
        }
    }

    fn fields(&self, out: &mut dyn Fields) {
        let integer = |out: &mut dyn Fields, name, value: u64| out.integer(name, value);
        match self {
            DeltaError::Truncated { needed: expected, got } => {
                integer(out, "expected", *expected);
                integer(out, "got", *got);
            }
            DeltaError::LengthMismatch { expected, got } => {
                integer(out, "expected", *expected);
                integer(out, "got", *got);
                // The message explains `expected` as header + bodyLength +
                // checksum: the frame's lengths are format rules, so they come from here.
                integer(out, "headerLength", super::format::HEADER_LENGTH as u64);
                integer(out, "checksumLength", super::format::CHECKSUM_LENGTH as u64);
            }
            DeltaError::BadMagic { found } => {
                out.value("expected", Value::Bytes4(super::format::MAGIC));
                out.value("got", Value::Bytes4(*found));
            }
            DeltaError::UnsupportedFormatVersion(found) => {
                integer(out, "expected", u64::from(super::format::FORMAT_VERSION));
                integer(out, "got", u64::from(*found));
            }
            DeltaError::UnsupportedPositionEncoding(found) => {
                integer(out, "expected", u64::from(super::format::POSITION_ENCODING_RICE));
                integer(out, "got", u64::from(*found));
            }
            DeltaError::InvalidTargetHeader(inner) | DeltaError::TargetLoad(inner) => out.inner("inner", inner),
            DeltaError::InvalidHeader { field, got, limit } => {
                let (bound, value) = limit.parts();
                out.word("field", field);
                out.word("bound", bound);
                integer(out, "limit", value);
                integer(out, "got", *got);
            }
            DeltaError::ChecksumMismatch | DeltaError::ResultChecksumMismatch => {}
            DeltaError::PositionsTruncated { decoded, expected } => {
                integer(out, "decoded", *decoded);
                integer(out, "expected", *expected);
            }
            DeltaError::PositionOutOfRange { index, rank, zero_count } => {
                integer(out, "index", *index);
                integer(out, "rank", *rank);
                integer(out, "zeroCount", *zero_count);
            }
            DeltaError::NonCanonicalPositions { used_bits, body_bits } => {
                integer(out, "usedBits", *used_bits);
                integer(out, "bodyBits", *body_bits);
            }
            DeltaError::WrongBase(mismatch) | DeltaError::NotChained(mismatch) => out.inner("mismatch", mismatch),
            DeltaError::IncompatibleLayout { base_bit_count, base_hash_count, target_bit_count, target_hash_count } => {
                integer(out, "baseBitCount", *base_bit_count);
                integer(out, "baseHashCount", u64::from(*base_hash_count));
                integer(out, "targetBitCount", *target_bit_count);
                integer(out, "targetHashCount", u64::from(*target_hash_count));
            }
            DeltaError::NotSuperset { removed_bits, first_position } => {
                integer(out, "removedBits", *removed_bits);
                integer(out, "firstPosition", *first_position);
            }
            DeltaError::NotNewer { base_catalog_version, target_catalog_version } => {
                integer(out, "baseCatalogVersion", *base_catalog_version);
                integer(out, "got", *target_catalog_version);
            }
            DeltaError::Encode(inner) => inner.fields(out),
            DeltaError::OutOfMemory { bytes } => {
                integer(out, "requested", *bytes);
                out.word("purpose", "for the delta or its result");
            }
        }
    }
}

display_coded!(DeltaError);
