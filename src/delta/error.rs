//! The ABD1 errors: decoding a delta, applying it to a base, writing one and
//! composing two.
//!
//! One variant per check of docs/ABD1.md, data kept as numbers so the JS
//! binding and tools never parse text. `code()` is the stable machine word;
//! `message()` says what was expected and what came.

use core::fmt;

use crate::abf1::{EncodeError, LoadError};

/// The bound a header field broke (the value itself is in the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    AtMost(u64),
    AtLeast(u64),
    LessThan(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::AtMost(n) => write!(f, "at most {n}"),
            Limit::AtLeast(n) => write!(f, "at least {n}"),
            Limit::LessThan(n) => write!(f, "less than {n}"),
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

impl fmt::Display for BaseMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseMismatch::CatalogVersion { expected, got } => {
                write!(f, "catalogVersion {expected} expected, got {got}")
            }
            BaseMismatch::Layout { expected_bit_count, expected_hash_count, got_bit_count, got_hash_count } => write!(
                f,
                "layout bitCount {expected_bit_count} / hashCount {expected_hash_count} expected, \
                 got {got_bit_count} / {got_hash_count}"
            ),
            BaseMismatch::SetBitCount { expected, got } => {
                write!(f, "{expected} set bits expected, got {got}")
            }
            BaseMismatch::PayloadChecksum => write!(f, "the SHA-256 of the bit array differs"),
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

    /// A sentence for people: what was expected and what came.
    pub fn message(&self) -> String {
        match self {
            DeltaError::Truncated { needed, got } => {
                format!("the delta is truncated: expected at least {needed} bytes, got {got}")
            }
            DeltaError::BadMagic { found } => {
                format!("expected magic \"ABD1\" (41 42 44 31), found {}", spaced_hex(found))
            }
            DeltaError::UnsupportedFormatVersion(found) => {
                format!("delta formatVersion {found} is not supported (expected {})", super::format::FORMAT_VERSION)
            }
            DeltaError::UnsupportedPositionEncoding(found) => format!(
                "positionEncoding {found} is not supported (expected {})",
                super::format::POSITION_ENCODING_RICE
            ),
            DeltaError::InvalidTargetHeader(inner) => {
                format!("the delta's target ABF1 header is invalid: {}", inner.message())
            }
            DeltaError::InvalidHeader { field, got, limit } => {
                format!("invalid delta header field {field}: must be {limit}, got {got}")
            }
            DeltaError::LengthMismatch { expected, got } => format!(
                "the delta must be exactly {expected} bytes (200-byte header + bodyLength + \
                 32-byte checksum), got {got}"
            ),
            DeltaError::ChecksumMismatch => {
                "the delta's SHA-256 trailer does not match the bytes before it".to_string()
            }
            DeltaError::PositionsTruncated { decoded, expected } => {
                format!("the delta body ends after {decoded} of its {expected} positions")
            }
            DeltaError::PositionOutOfRange { index, rank, zero_count } => format!(
                "position {index} of the delta names zero bit {rank}, but the base has only \
                 {zero_count} zero bits"
            ),
            DeltaError::NonCanonicalPositions { used_bits, body_bits } => format!(
                "the positions use {used_bits} of the body's {body_bits} bits: only zero padding \
                 to the next byte may follow"
            ),
            DeltaError::WrongBase(mismatch) => {
                format!("the snapshot is not the base this delta applies to: {mismatch}")
            }
            DeltaError::ResultChecksumMismatch => "the rebuilt snapshot does not match the target \
                 header's checksum"
                .to_string(),
            DeltaError::IncompatibleLayout { base_bit_count, base_hash_count, target_bit_count, target_hash_count } => {
                format!(
                    "a delta needs the same layout: base bitCount {base_bit_count} / hashCount \
                     {base_hash_count}, target {target_bit_count} / {target_hash_count}"
                )
            }
            DeltaError::NotSuperset { removed_bits, first_position } => format!(
                "the target clears {removed_bits} bits set in the base (the first at position \
                 {first_position}): a delta only adds bits"
            ),
            DeltaError::NotNewer { base_catalog_version, target_catalog_version } => format!(
                "the target catalogVersion must be greater than the base's {base_catalog_version}, \
                 got {target_catalog_version}"
            ),
            DeltaError::Encode(inner) => inner.message(),
            DeltaError::TargetLoad(inner) => {
                format!("the rebuilt target does not load: {}", inner.message())
            }
            DeltaError::NotChained(mismatch) => {
                format!("the second delta does not start where the first ends: {mismatch}")
            }
            DeltaError::OutOfMemory { bytes } => {
                format!("could not reserve {bytes} bytes for the delta or its result")
            }
        }
    }
}

impl fmt::Display for DeltaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for DeltaError {}

/// `41 42 44 31`: bytes as the spec writes them.
fn spaced_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}
