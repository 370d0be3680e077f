//! Which bytes of an ABF1 file its checksum covers, for a JS caller that
//! hashes outside wasm (browsers: one `crypto.subtle.digest` over the whole
//! payload once it is in hand). The rule stays here, beside the decoder that
//! compares the result (`RawSnapshotDecoder.finishWithChecksum`).

use crate::abf1::{CHECKSUMMED_HEADER_LENGTH, OFFSET_PAYLOAD};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

/// `{ headerBytes, payloadOffset }`: step 8's SHA-256 is over file bytes
/// `[0, headerBytes)` followed by `[payloadOffset, end)`.
#[wasm_bindgen(js_name = snapshotChecksumCoverage)]
pub fn snapshot_checksum_coverage() -> Result<JsValue, JsValue> {
    let coverage = Object::new();
    Reflect::set(&coverage, &"headerBytes".into(), &(CHECKSUMMED_HEADER_LENGTH as f64).into())?;
    Reflect::set(&coverage, &"payloadOffset".into(), &(OFFSET_PAYLOAD as f64).into())?;
    Ok(coverage.into())
}
