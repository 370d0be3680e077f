//! Format rules the JavaScript layer needs, asked of wasm instead of
//! restated in JS, so each lives in Rust only: constants as numbers, and
//! which bytes of an ABF1 file its checksum covers (for a JS caller that
//! hashes outside wasm — browsers: one `crypto.subtle.digest` over the whole
//! payload once it is in hand; the decoder that compares the result is
//! `RawSnapshotDecoder.finishWithChecksum`).

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::abf1::{self, CHECKSUMMED_HEADER_LENGTH, MAX_CATALOG_VERSION, OFFSET_PAYLOAD};
use crate::layout::{MAXIMUM_BIT_COUNT, MAXIMUM_EXPECTED_ITEM_COUNT};
use crate::probe::DIGEST_LENGTH;

/// Length of the fixed ABF1 header in bytes (the JS `ABF1_HEADER_LENGTH`).
#[wasm_bindgen(js_name = abf1HeaderLength)]
pub fn abf1_header_length() -> u32 {
    const LENGTH: u32 = abf1::HEADER_LENGTH as u32;
    LENGTH
}

/// Bytes in one digest (SHA-256): the length every query and build checks.
#[wasm_bindgen(js_name = digestLength)]
pub fn digest_length() -> u32 {
    const LENGTH: u32 = DIGEST_LENGTH as u32;
    LENGTH
}

/// The largest `expectedItemCount` a filter or an ABF1 header may state.
#[wasm_bindgen(js_name = maximumExpectedItemCount)]
pub fn maximum_expected_item_count() -> u32 {
    const MAXIMUM: u32 = MAXIMUM_EXPECTED_ITEM_COUNT as u32;
    MAXIMUM
}

/// The largest ABF1 file: the header and a payload of `MAXIMUM_BIT_COUNT`
/// bits (96 + 2^27 bytes). A reader of a file or a stream of unknown length
/// reads no more than this (+1 to tell "too large").
#[wasm_bindgen(js_name = maximumSnapshotBytes)]
pub fn maximum_snapshot_bytes() -> u32 {
    const MAXIMUM: u32 = (abf1::HEADER_LENGTH as u64 + MAXIMUM_BIT_COUNT / 8) as u32;
    MAXIMUM
}

/// The largest catalogVersion an ABF1 header may state (2^53 − 1, exact as
/// a JS number, so it crosses as one).
#[wasm_bindgen(js_name = maximumCatalogVersion)]
pub fn maximum_catalog_version() -> f64 {
    const MAXIMUM: f64 = MAX_CATALOG_VERSION as f64;
    MAXIMUM
}

/// The hashProtocolVersion of a keyed snapshot (docs/ABF1.md, "Keyed
/// snapshots"); protocol 1 is the unkeyed one.
#[wasm_bindgen(js_name = keyedHashProtocolVersion)]
pub fn keyed_hash_protocol_version() -> u32 {
    u32::from(crate::keyed::KEYED_HASH_PROTOCOL_VERSION)
}

/// `{ headerBytes, payloadOffset }`: step 8's SHA-256 is over file bytes
/// `[0, headerBytes)` followed by `[payloadOffset, end)`.
#[wasm_bindgen(js_name = snapshotChecksumCoverage)]
pub fn snapshot_checksum_coverage() -> Result<JsValue, JsValue> {
    let coverage = Object::new();
    Reflect::set(&coverage, &"headerBytes".into(), &(CHECKSUMMED_HEADER_LENGTH as f64).into())?;
    Reflect::set(&coverage, &"payloadOffset".into(), &(OFFSET_PAYLOAD as f64).into())?;
    Ok(coverage.into())
}
