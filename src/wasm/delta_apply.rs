//! Raw binding of the client side of ABD1 deltas (`crate::delta`): rebuild,
//! diagnose and the header readers, in the delta module (`artifact-bloom/delta`,
//! Cargo feature `delta-encode`) beside the encoder, so the main entry's wasm
//! carries no ABD1 code. `pkg-template/lib/delta/delta-apply.js` wraps these: it checks
//! JavaScript values, writes the base with the main module's
//! `encodeSnapshotUnsealed` (ABF1 with a zero checksum: nothing here reads it),
//! loads a rebuilt target with the main module's `loadSnapshot` (the ABF1
//! loader's checksum step is the final check) and shapes results.
//!
//! This module cannot read the main module's memory: the base arrives as the
//! ABF1 file the main module wrote, staged (`super::input`) in front of the
//! delta, the first `base_length` bytes being the base. Bytes never arrive as
//! a `&[u8]` argument, whose glue copy would abort the module when memory
//! cannot grow.

use super::delta_encode::{delta_error, load_written, split};
use super::input::with_input;
use crate::abf1;
use crate::delta::{self, Delta};
use wasm_bindgen::prelude::*;

fn header_value(header: &delta::DeltaHeader) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(header).map_err(JsValue::from)
}

/// The staged base file (loaded) and the delta after it.
fn with_base_and_delta<T>(
    staged: usize,
    base_length: usize,
    then: impl FnOnce(&abf1::Snapshot, &[u8]) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    with_input(staged, |both| {
        let (base_file, delta_bytes) = split(both, base_length)?;
        then(&load_written(base_file)?, delta_bytes)
    })
}

/// The target's ABF1 file rebuilt from the base (its ABF1 file, whose
/// catalogVersion is the base's) and the delta, not yet verified: the caller
/// loads it and calls `diagnoseDelta` if its checksum fails.
#[wasm_bindgen(js_name = rebuildFromDelta)]
pub fn rebuild_from_delta(staged: usize, base_length: usize) -> Result<Vec<u8>, JsValue> {
    with_base_and_delta(staged, base_length, |base, bytes| {
        delta::rebuild(&base.filter, base.header.catalog_version, bytes).map_err(delta_error)
    })
}

/// Always throws: the coded reason a rebuilt target failed its checksum
/// (`wrongBase` or `resultChecksumMismatch`). Staged as `rebuildFromDelta`'s.
#[wasm_bindgen(js_name = diagnoseDelta)]
pub fn diagnose_delta(staged: usize, base_length: usize) -> Result<(), JsValue> {
    with_base_and_delta(staged, base_length, |base, bytes| Err(delta_error(delta::diagnose(&base.filter, bytes))))
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
