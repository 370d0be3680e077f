//! ABD1: the bits a new ABF1 snapshot adds to an older one (docs/ABD1.md).
//!
//! A catalog mostly grows, and while its layout (bitCount, hashCount) stays
//! the same the new snapshot's bits are a superset of the old ones. ABD1
//! names the base (catalogVersion, number of set bits, SHA-256 of its bit
//! array), carries the target's complete ABF1 header, and lists the newly set
//! bits as Rice-coded gaps between zero-bit ranks of the base.
//!
//! - [`encode`] writes the delta of two snapshots (`incompatibleLayout`,
//!   `notSuperset`, `notNewer` when there is none);
//! - [`Delta::parse`] checks everything a delta can be checked for without
//!   its base, allocating nothing;
//! - [`apply`] rebuilds the target from a base ([`Delta::check_base`],
//!   [`Delta::set_new_bits`] on a copy of its bits) and ends with the ABF1
//!   loader's own checks ([`crate::abf1::from_bits`]), so the result is
//!   exactly what a full download of the target would load, or an error;
//! - [`compose`] joins the deltas A→B and B→C into A→C, byte for byte the
//!   delta [`encode`] writes for A and C.

mod apply;
mod encode;
mod error;
mod format;
mod rice;

use sha2::{Digest, Sha256};

use crate::bits::BitArray;

pub use apply::{apply, diagnose, rebuild_in_place};
pub use encode::{compose, encode};
pub use error::{BaseMismatch, DeltaError, Limit};
pub use format::*;

/// A delta that passed every check that needs no base: header, length,
/// trailer checksum and body. Borrows the input.
#[derive(Clone, Debug)]
pub struct Delta<'a> {
    header: DeltaHeader,
    body: &'a [u8],
}

impl<'a> Delta<'a> {
    /// Load steps 1–9 of docs/ABD1.md, in order; the first failure wins.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DeltaError> {
        let delta = Self::parse_frame(bytes, crate::hashing::sha256)?;
        delta.check_positions()?;
        Ok(delta)
    }

    /// Load steps 1–8: everything but the positions, which the caller reads
    /// next (`check_positions`, or an apply that checks them as it sets them:
    /// [`rebuild_in_place`]). `hash` gives step 8's SHA-256 of the bytes
    /// before the trailer (Node's binding passes node:crypto's).
    fn parse_frame(bytes: &'a [u8], hash: impl FnOnce(&[u8]) -> [u8; SHA256_LENGTH]) -> Result<Self, DeltaError> {
        // Steps 1–5.
        let header = parse_header(bytes)?;
        // Steps 6 and 7: exactly header + body + trailer.
        let total = header.total_length();
        let got = bytes.len() as u64;
        if got < total {
            return Err(DeltaError::Truncated { needed: total, got });
        }
        if got > total {
            return Err(DeltaError::LengthMismatch { expected: total, got });
        }
        // Fits: `total` equals the length of a slice in memory.
        let split = bytes.len() - CHECKSUM_LENGTH;
        let (covered, trailer) = bytes.split_at(split);
        // Step 8.
        if hash(covered).as_slice() != trailer {
            return Err(DeltaError::ChecksumMismatch);
        }
        Ok(Delta { header, body: &covered[OFFSET_BODY..] })
    }

    /// Load step 9: one pass over the body.
    fn check_positions(&self) -> Result<(), DeltaError> {
        let mut ranks = self.ranks();
        while ranks.next_rank()?.is_some() {}
        Ok(())
    }

    pub fn header(&self) -> &DeltaHeader {
        &self.header
    }

    /// The base's zero-bit ranks the delta sets, in increasing order.
    pub fn ranks(&self) -> rice::RankDecoder<'a> {
        let h = &self.header;
        rice::RankDecoder::new(self.body, h.rice_parameter, h.position_count, h.base_zero_count())
    }
}

/// SHA-256 of a bit array's ABF1 payload form (its words as little-endian
/// bytes), without materializing the payload.
pub fn payload_sha256(bits: &BitArray) -> [u8; SHA256_LENGTH] {
    let mut hasher = Sha256::new();
    crate::abf1::hash_payload_of(&mut hasher, bits);
    hasher.finalize().into()
}

/// A vector of exactly `bytes` capacity, or `outOfMemory`.
fn reserve(bytes: u64) -> Result<Vec<u8>, DeltaError> {
    let out_of_memory = DeltaError::OutOfMemory { bytes };
    let length = usize::try_from(bytes).map_err(|_| out_of_memory.clone())?;
    let mut out = Vec::new();
    crate::fallible::try_reserve_exact(&mut out, length).map_err(|_| out_of_memory)?;
    Ok(out)
}
