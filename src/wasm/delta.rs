//! Raw binding of the client side of ABD1 deltas (`crate::delta`): rebuild,
//! diagnose and the header readers. Encode and compose, which only servers
//! run, are `super::delta_encode`, in the `artifact-bloom/delta` module.
//! `pkg-template/lib/delta.js` wraps these: it checks JavaScript values, loads a rebuilt target with `loadSnapshot`
//! (the ABF1 loader's checksum step is the final check) and shapes results.
//! Delta bytes arrive staged (`super::input`), never as a `&[u8]` argument
//! whose glue copy would abort the module when memory cannot grow.

use super::error;
use super::filter::RawFilter;
use super::input::with_input;
use crate::delta::{self, Delta, DeltaError};
use crate::layout::item_count_from_f64;
use wasm_bindgen::prelude::*;

fn delta_error(error: DeltaError) -> JsValue {
    error::coded(&error)
}

/// A catalog version from a JS number (the JS layer checked it already).
fn catalog_version(parameter: &'static str, value: f64) -> Result<u64, JsValue> {
    item_count_from_f64(value)
        .ok_or_else(|| error::binding("invalidCatalogVersion", Some(("parameter", parameter)), &[("got", value)]))
}

fn header_value(header: &delta::DeltaHeader) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(header).map_err(JsValue::from)
}

/// The target's ABF1 file rebuilt from `base` and `delta`, not yet verified:
/// the caller loads it and calls `diagnoseDelta` if its checksum fails.
#[wasm_bindgen(js_name = rebuildFromDelta)]
pub fn rebuild_from_delta(base: &RawFilter, base_catalog_version: f64, staged: usize) -> Result<Vec<u8>, JsValue> {
    let version = catalog_version("baseSnapshot.catalogVersion", base_catalog_version)?;
    with_input(staged, |bytes| delta::rebuild(base.inner(), version, bytes).map_err(delta_error))
}

/// Always throws: the coded reason a rebuilt target failed its checksum
/// (`wrongBase` or `resultChecksumMismatch`).
#[wasm_bindgen(js_name = diagnoseDelta)]
pub fn diagnose_delta(base: &RawFilter, staged: usize) -> Result<(), JsValue> {
    with_input(staged, |bytes| Err(delta_error(delta::diagnose(base.inner(), bytes))))
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
