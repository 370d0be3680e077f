//! Raw binding of [`SortedBuilder`] (the seed's sorted-stream build with an
//! exact unique count), in the server module (`artifact-bloom/delta`'s
//! wasm, Cargo feature `delta`), which a page downloads only with
//! its first delta: the main module, and so every page, does not grow.
//! Pieces arrive through the staged input; the result leaves as an ABF1
//! file, which the main module loads (this module cannot hand it a filter):
//! a sealed header from here, the payload read by JS straight out of the
//! filter's words (no second copy of the bit array in this module's memory).

use super::error;
use super::input::with_input;
use crate::abf1;
use crate::builder::{BuildError, SortedBuilder};
use crate::filter::ArtifactBloomFilter;
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
    /// After `finishHeader`: the filter whose words JS copies out.
    finished: Option<ArtifactBloomFilter>,
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
        Ok(RawSortedBuilder { inner: Some(inner), finished: None })
    }

    /// A build continuing the staged ABF1 file (SortedBuilder::continuing),
    /// or the file's load error (`badMagic`, `checksumMismatch`, …).
    #[wasm_bindgen(js_name = continuingStaged)]
    pub fn continuing_staged(staged: usize) -> Result<RawSortedBuilder, JsValue> {
        with_input(staged, |file| {
            let snapshot = abf1::decode(file).map_err(|e| error::coded(&e))?;
            Ok(RawSortedBuilder { inner: Some(SortedBuilder::continuing(snapshot.filter)), finished: None })
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

    /// Ends the build: the sealed 96-byte ABF1 header of the filter at
    /// `catalog_version` (its insertedItemCount the exact unique count).
    /// The file's payload is the filter's words, which JS copies straight
    /// out of wasm memory (`payloadAddress`, `payloadLength`) instead of
    /// from a file encoded here: at 2^30 bits that would be another
    /// 128 MiB of wasm memory, which never shrinks. Takes no more pieces.
    #[wasm_bindgen(js_name = finishHeader)]
    pub fn finish_header(&mut self, catalog_version: f64) -> Result<Vec<u8>, JsValue> {
        let version = item_count_from_f64(catalog_version).ok_or_else(|| {
            error::binding("invalidCatalogVersion", Some(("parameter", "catalogVersion")), &[("got", catalog_version)])
        })?;
        let builder = self.inner.take().ok_or_else(finished)?;
        let filter = builder.finish();
        let header = abf1::sealed_header(&filter, version).map_err(|e| error::coded(&e))?;
        self.finished = Some(filter);
        Ok(header.to_vec())
    }

    /// Where the finished filter's words start in wasm memory (wasm is
    /// little-endian: their bytes are the ABF1 payload); 0 before `finishHeader`.
    #[wasm_bindgen(js_name = payloadAddress)]
    pub fn payload_address(&self) -> usize {
        self.finished.as_ref().map_or(0, |filter| filter.bits().words().as_ptr() as usize)
    }

    /// The payload's length in bytes; 0 before `finishHeader`.
    #[wasm_bindgen(js_name = payloadLength)]
    pub fn payload_length(&self) -> usize {
        self.finished.as_ref().map_or(0, |filter| filter.bits().byte_count())
    }
}

fn finished() -> JsValue {
    error::binding("builderFinished", None, &[])
}
