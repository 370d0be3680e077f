//! Raw binding of [`SortedBuilder`] (the seed's sorted-stream build with an
//! exact unique count), in the server module (`artifact-bloom/delta`'s
//! wasm, Cargo feature `delta`), which a page downloads only with
//! its first delta: the main module, and so every page, does not grow.
//! Pieces arrive through the staged input; the result leaves as ABF1
//! bytes, which the main module loads (this module cannot hand it a filter).

use super::error;
use super::input::with_input;
use crate::abf1;
use crate::builder::{sort_unique_packed, BuildError, SortedBuilder};
use crate::layout::{item_count_from_f64, BloomError, BloomSpec};
use wasm_bindgen::prelude::*;

fn build_error(error: BuildError) -> JsValue {
    match error {
        BuildError::Bloom(bloom) => error::coded(&bloom),
        BuildError::Unsorted { index } => error::binding("unsortedInput", None, &[("index", index as f64)]),
    }
}

#[wasm_bindgen]
pub struct RawSortedBuilder {
    inner: Option<SortedBuilder>,
}

#[wasm_bindgen]
impl RawSortedBuilder {
    /// An empty build for the spec, or a coded `layout` error
    /// (`invalidExpectedItemCount`, `invalidFalsePositiveRate`,
    /// `filterTooLarge`, `outOfMemory`).
    #[wasm_bindgen(constructor)]
    pub fn new(expected_item_count: f64, target_fpp: f64) -> Result<RawSortedBuilder, JsValue> {
        let expected_item_count = item_count_from_f64(expected_item_count)
            .ok_or(BloomError::InvalidExpectedItemCount)
            .map_err(|e| error::coded(&e))?;
        let spec = BloomSpec { expected_item_count, target_false_positive_rate: target_fpp };
        let inner = SortedBuilder::new(&spec).map_err(|e| error::coded(&e))?;
        Ok(RawSortedBuilder { inner: Some(inner) })
    }

    /// A build continuing the staged ABF1 file (SortedBuilder::continuing),
    /// or the file's load error (`badMagic`, `checksumMismatch`, …).
    #[wasm_bindgen(js_name = continuingStaged)]
    pub fn continuing_staged(staged: usize) -> Result<RawSortedBuilder, JsValue> {
        with_input(staged, |file| {
            let snapshot = abf1::decode(file).map_err(|e| error::coded(&e))?;
            Ok(RawSortedBuilder { inner: Some(SortedBuilder::continuing(snapshot.filter)) })
        })
    }

    /// Adds the `staged` bytes (ascending whole digests, continuing the
    /// previous piece) → how many were new; `unsortedInput` (with the
    /// stream index), `capacityExceeded`, `invalidDigest`, `outOfMemory`.
    #[wasm_bindgen(js_name = pushStaged)]
    pub fn push_staged(&mut self, staged: usize) -> Result<f64, JsValue> {
        let builder = self.inner.as_mut().ok_or_else(finished)?;
        with_input(staged, |packed| builder.push(packed).map(|added| added as f64).map_err(build_error))
    }

    /// Unique digests so far.
    #[wasm_bindgen(js_name = uniqueCount)]
    pub fn unique_count(&self) -> f64 {
        self.inner.as_ref().map_or(0.0, |builder| builder.unique_count() as f64)
    }

    /// Ends the build: the ABF1 file of the filter at `catalog_version`
    /// (its insertedItemCount the exact unique count). The build is gone after.
    #[wasm_bindgen(js_name = finishSnapshot)]
    pub fn finish_snapshot(&mut self, catalog_version: f64) -> Result<Vec<u8>, JsValue> {
        let version = item_count_from_f64(catalog_version).ok_or_else(|| {
            error::binding("invalidCatalogVersion", Some(("parameter", "catalogVersion")), &[("got", catalog_version)])
        })?;
        let builder = self.inner.take().ok_or_else(finished)?;
        abf1::encode(&builder.finish(), version).map_err(|e| error::coded(&e))
    }
}

fn finished() -> JsValue {
    error::binding("builderFinished", None, &[])
}

/// One run of publishCatalog's external sort: the staged digests sorted
/// ascending, each once; `invalidDigest`, `outOfMemory`.
#[wasm_bindgen(js_name = sortUniqueStaged)]
pub fn sort_unique_staged(staged: usize) -> Result<Vec<u8>, JsValue> {
    with_input(staged, |packed| sort_unique_packed(packed).map_err(|e| error::coded(&e)))
}
