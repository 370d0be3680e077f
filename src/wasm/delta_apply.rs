//! Raw binding of the client side of ABD1 deltas (`crate::delta`): the
//! rebuild, the diagnosis and the header readers, in the delta module
//! (`artifact-bloom/delta`, Cargo feature `delta`) beside the encoder,
//! so the main entry's wasm carries no ABD1 code.
//! `pkg-template/lib/delta/delta-apply.js` wraps these and shapes results.
//!
//! This module cannot read the main module's memory, so an apply hands the
//! base over once, as raw bits: [`RawTargetBits`] reserves a bit array here,
//! JavaScript copies the base filter's words into it straight from the main
//! module's memory (wasm memory is little-endian, so a bit array's words are
//! its ABF1 payload bytes), and [`RawTargetBits::rebuild`] checks the base
//! (catalogVersion and hashCount come as arguments) and sets the delta's bits
//! in place. JavaScript then copies those bits into a new filter of the main
//! module with the target header (`reserveSnapshotBits`,
//! `finishSnapshotBits`), whose checksum step is the final check: on
//! node:crypto's SHA-256 of the copied bits in Node, else on
//! [`RawTargetBits::checksum`] (so the main module needs no second SHA-256
//! path). The delta arrives staged (`super::input`); bytes never arrive as a
//! `&[u8]` argument, whose glue copy would abort the module when
//! memory cannot grow.

use super::delta_encode::{delta_error, split};
use super::error;
use super::input::with_input;
use crate::abf1;
use crate::bits::{BitArray, WORD_BYTES};
use crate::delta::{self, Delta, DeltaError};
use crate::hashing;
use crate::layout::item_count_from_f64;
use wasm_bindgen::prelude::*;

fn header_value(header: &delta::DeltaHeader) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(header).map_err(JsValue::from)
}

/// A base's bit array copied in from the main module, then the target's
/// once [`RawTargetBits::rebuild`] has run.
#[wasm_bindgen]
pub struct RawTargetBits {
    bits: BitArray,
    /// The target's header, once [`RawTargetBits::rebuild`] succeeded.
    target: Option<abf1::Header>,
}

#[wasm_bindgen]
impl RawTargetBits {
    /// Room for a base payload of `payload_length` bytes (the main module's
    /// filter's: a whole number of words), zeroed; a coded `outOfMemory` when
    /// it cannot be reserved (a length that is not a safe integer is refused
    /// the same way, as `inputBuffer` does).
    #[wasm_bindgen(constructor)]
    pub fn new(payload_length: f64) -> Result<RawTargetBits, JsValue> {
        let bytes = item_count_from_f64(payload_length).unwrap_or(u64::MAX);
        let out_of_memory = || delta_error(DeltaError::OutOfMemory { bytes });
        // Rounded up: a length that were no whole number of words would
        // fail the base's layout check, not read past the bits.
        let words = usize::try_from(bytes.div_ceil(WORD_BYTES as u64)).map_err(|_| out_of_memory())?;
        Ok(RawTargetBits { bits: BitArray::zeroed(words).map_err(|_| out_of_memory())?, target: None })
    }

    /// Where the bits are in this module's memory, as payload bytes.
    #[wasm_bindgen(js_name = payloadAddress)]
    pub fn payload_address(&self) -> usize {
        self.bits.words().as_ptr() as usize
    }

    #[wasm_bindgen(js_name = payloadLength)]
    pub fn payload_length(&self) -> f64 {
        self.bits.byte_count() as f64
    }

    /// Load steps 1–10 and 12 of docs/ABD1.md on the staged delta
    /// (`delta::rebuild_in_place`: one pass over its positions), against the
    /// base whose bits were copied in (at `base_catalog_version`, with
    /// `base_hash_count` hashes): the bits become the target's, not yet
    /// verified, and the target's ABF1 header (96 bytes, as the delta carries
    /// them) is returned for the main module's final check. `sha256` is the
    /// staged delta's SHA-256 before its trailer (`deltaTrailerLength`) when
    /// the caller hashed it (Node: node:crypto), else undefined to hash here.
    /// A coded error leaves the bits unusable.
    pub fn rebuild(
        &mut self,
        staged: usize,
        base_catalog_version: f64,
        base_hash_count: u32,
        sha256: Option<Vec<u8>>,
    ) -> Result<Vec<u8>, JsValue> {
        let catalog_version = item_count_from_f64(base_catalog_version).ok_or_else(|| {
            error::binding(
                "invalidCatalogVersion",
                Some(("parameter", "catalogVersion")),
                &[("got", base_catalog_version)],
            )
        })?;
        let given: Option<[u8; delta::SHA256_LENGTH]> = match sha256 {
            Some(digest) => {
                Some(digest.as_slice().try_into().map_err(|_| error::digest_length("sha256", digest.len()))?)
            }
            None => None,
        };
        with_input(staged, |bytes| {
            let hash = |covered: &[u8]| given.unwrap_or_else(|| hashing::sha256(covered));
            let header = delta::rebuild_in_place(&mut self.bits, catalog_version, base_hash_count, bytes, hash)
                .map_err(delta_error)?;
            let carried = bytes.get(delta::OFFSET_TARGET_HEADER..delta::OFFSET_BODY).unwrap_or_default().to_vec();
            self.target = Some(header.target);
            Ok(carried)
        })
    }

    /// ABF1 load step 8's SHA-256 of the rebuilt target (header bytes
    /// [0, 64) and the bits), for a host without a faster one (browsers: the
    /// apply is synchronous, WebCrypto is not); empty before a rebuild.
    pub fn checksum(&self) -> Vec<u8> {
        self.target.as_ref().map(|header| abf1::checksum_of_bits(header, &self.bits).to_vec()).unwrap_or_default()
    }
}

/// The length of a delta's trailer, the SHA-256 of every byte before it: a
/// caller that hashes a delta itself hashes all bytes but these.
#[wasm_bindgen(js_name = deltaTrailerLength)]
pub fn delta_trailer_length() -> usize {
    delta::CHECKSUM_LENGTH
}

/// Always throws: the coded reason a rebuilt target failed its checksum
/// (`wrongBase` or `resultChecksumMismatch`). The base's payload (its bits,
/// as copied for [`RawTargetBits`]) and the delta are staged back to back,
/// the first `base_length` bytes being the base's.
#[wasm_bindgen(js_name = diagnoseDelta)]
pub fn diagnose_delta(staged: usize, base_length: usize) -> Result<(), JsValue> {
    with_input(staged, |both| {
        let (base_payload, delta_bytes) = split(both, base_length)?;
        Err(delta_error(delta::diagnose(&hashing::sha256(base_payload), delta_bytes)))
    })
}

/// Load steps 1–5 (the 200-byte header only), as a plain object.
#[wasm_bindgen(js_name = parseDeltaHeader)]
pub fn parse_delta_header(staged: usize) -> Result<JsValue, JsValue> {
    with_input(staged, |bytes| header_value(&delta::parse_header(bytes).map_err(delta_error)?))
}

/// Load steps 1–9 (everything but the base), then the header.
#[wasm_bindgen(js_name = verifyDelta)]
pub fn verify_delta(staged: usize) -> Result<JsValue, JsValue> {
    with_input(staged, |bytes| header_value(Delta::parse(bytes).map_err(delta_error)?.header()))
}
