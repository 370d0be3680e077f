//! Raw binding of the server side of ABD1 (`crate::delta`): encode and
//! compose, in their own module (`artifact-bloom/delta`, Cargo feature
//! `delta`), beside the client side (`super::delta_apply`), so the
//! main entry's wasm carries no ABD1 code. `pkg-template/lib/delta/delta-encode.js`
//! wraps these.
//!
//! This module cannot read the main module's memory, so the encoder takes
//! both snapshots as ABF1 files (the main module writes them) and loads them
//! with the ABF1 loader here. Both inputs arrive staged back to back, the
//! first `first_length` bytes being the first one.

use super::error;
use super::input::with_input;
use crate::abf1;
use crate::delta::{self, DeltaError};
use wasm_bindgen::prelude::*;

pub(super) fn delta_error(error: DeltaError) -> JsValue {
    error::coded(&error)
}

/// The two inputs staged back to back, split at `first_length`.
pub(super) fn split(both: &[u8], first_length: usize) -> Result<(&[u8], &[u8]), JsValue> {
    // A first length beyond the staged bytes is the same mistake as a
    // length beyond the stage: the caller's lengths disagree with it.
    both.split_at_checked(first_length).ok_or_else(|| {
        error::binding("inputNotStaged", None, &[("expected", first_length as f64), ("got", both.len() as f64)])
    })
}

/// Loads an ABF1 file that the main module's encoder wrote for this very
/// call (`lib/delta/delta-encode.js` passes nothing else): every header check
/// runs, but the checksum is taken as stored rather than re-hashing the
/// payload (two SHA-256 passes of the files per delta). Were the bytes
/// damaged anyway, the delta would name a target checksum its rebuilt
/// payload cannot meet, and every apply would refuse it (the checksum step
/// that ends `applySnapshotDelta`).
fn load_written(file: &[u8]) -> Result<abf1::Snapshot, JsValue> {
    let stored = abf1::parse_header(file).map(|header| header.checksum).unwrap_or_default();
    abf1::decode_with(file, |_, _| stored).map_err(|e| error::coded(&e))
}

/// The ABD1 bytes from the base ABF1 file to the target ABF1 file (staged
/// back to back, the base first, both written by the main module's encoder),
/// or a coded error: the ABF1 loader's codes for a file that does not load,
/// then `delta::encode`'s (`incompatibleLayout`, `notNewer`, `notSuperset`,
/// `outOfMemory`, …).
#[wasm_bindgen(js_name = encodeDeltaOfFiles)]
pub fn encode_delta_of_files(staged: usize, base_length: usize) -> Result<Vec<u8>, JsValue> {
    with_input(staged, |both| {
        let (base_file, target_file) = split(both, base_length)?;
        let base = load_written(base_file)?;
        let target = load_written(target_file)?;
        delta::encode(&base.filter, base.header.catalog_version, &target.filter, target.header.catalog_version)
            .map_err(delta_error)
    })
}

/// The delta A→C from A→B and B→C, or a coded error (`notChained`, any
/// decode code of either input). Both are staged as one input, the first
/// `first_length` bytes being A→B.
#[wasm_bindgen(js_name = composeDeltas)]
pub fn compose_deltas(staged: usize, first_length: usize) -> Result<Vec<u8>, JsValue> {
    with_input(staged, |both| {
        let (first, second) = split(both, first_length)?;
        delta::compose(first, second).map_err(delta_error)
    })
}
