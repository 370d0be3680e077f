//! Raw binding of ABD1 deltas (`crate::delta`): encode, rebuild, diagnose,
//! compose and the header readers. `pkg-template/lib/delta.js` wraps these:
//! it checks JavaScript values, loads a rebuilt target with `loadSnapshot`
//! (the ABF1 loader's checksum step is the final check) and shapes results.

use super::error;
use super::filter::RawFilter;
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

/// The ABD1 bytes from `base` to `target`, or a coded error
/// (`incompatibleLayout`, `notNewer`, `notSuperset`, `outOfMemory`, …).
#[wasm_bindgen(js_name = encodeDelta)]
pub fn encode_delta(
    base: &RawFilter,
    base_catalog_version: f64,
    target: &RawFilter,
    target_catalog_version: f64,
) -> Result<Vec<u8>, JsValue> {
    let base_version = catalog_version("base.catalogVersion", base_catalog_version)?;
    let target_version = catalog_version("target.catalogVersion", target_catalog_version)?;
    delta::encode(base.inner(), base_version, target.inner(), target_version).map_err(delta_error)
}

/// The target's ABF1 file rebuilt from `base` and `delta`, not yet verified:
/// the caller loads it and calls `diagnoseDelta` if its checksum fails.
#[wasm_bindgen(js_name = rebuildFromDelta)]
pub fn rebuild_from_delta(base: &RawFilter, base_catalog_version: f64, delta: &[u8]) -> Result<Vec<u8>, JsValue> {
    let version = catalog_version("baseSnapshot.catalogVersion", base_catalog_version)?;
    delta::rebuild(base.inner(), version, delta).map_err(delta_error)
}

/// Always throws: the coded reason a rebuilt target failed its checksum
/// (`wrongBase` or `resultChecksumMismatch`).
#[wasm_bindgen(js_name = diagnoseDelta)]
pub fn diagnose_delta(base: &RawFilter, delta: &[u8]) -> Result<(), JsValue> {
    Err(delta_error(delta::diagnose(base.inner(), delta)))
}

/// The delta A→C from A→B and B→C, or a coded error (`notChained`, any
/// decode code of either input).
#[wasm_bindgen(js_name = composeDeltas)]
pub fn compose_deltas(first: &[u8], second: &[u8]) -> Result<Vec<u8>, JsValue> {
    delta::compose(first, second).map_err(delta_error)
}

/// Load steps 1–5 (the 200-byte header only), as a plain object.
#[wasm_bindgen(js_name = parseDeltaHeader)]
pub fn parse_delta_header(bytes: &[u8]) -> Result<JsValue, JsValue> {
    header_value(&delta::parse_header(bytes).map_err(delta_error)?)
}

/// Load steps 1–9 (everything but the base), then the header.
#[wasm_bindgen(js_name = verifyDelta)]
pub fn verify_delta(bytes: &[u8]) -> Result<JsValue, JsValue> {
    header_value(Delta::parse(bytes).map_err(delta_error)?.header())
}
