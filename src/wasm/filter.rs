//! Raw binding of [`ArtifactBloomFilter`].

use super::error;
use crate::filter::ArtifactBloomFilter;
use crate::layout::{create_layout, item_count_from_f64, BloomError, BloomSpec};
use wasm_bindgen::prelude::*;

/// A spec from JS numbers: a count that is not a safe integer is invalid.
pub(crate) fn spec_from_js(expected_item_count: f64, target_fpp: f64) -> Result<BloomSpec, BloomError> {
    let expected_item_count =
        item_count_from_f64(expected_item_count).ok_or(BloomError::InvalidExpectedItemCount)?;
    Ok(BloomSpec { expected_item_count, target_false_positive_rate: target_fpp })
}

pub(crate) fn bloom_error(error: BloomError) -> JsValue {
    error::coded(error.code(), error.describe())
}

/// The layout the rule picks, as `{ bitCount, hashCount }`, or a coded error.
#[wasm_bindgen(js_name = planLayout)]
pub fn plan_layout(expected_item_count: f64, target_fpp: f64) -> Result<JsValue, JsValue> {
    let spec = spec_from_js(expected_item_count, target_fpp).map_err(bloom_error)?;
    let layout = create_layout(&spec).map_err(bloom_error)?;
    let plain = js_sys::Object::new();
    let set = |key: &str, value: f64| js_sys::Reflect::set(&plain, &key.into(), &value.into());
    set("bitCount", layout.bit_count as f64)?;
    set("hashCount", f64::from(layout.hash_count))?;
    Ok(plain.into())
}

#[wasm_bindgen]
pub struct RawFilter {
    inner: ArtifactBloomFilter,
}

impl RawFilter {
    pub(crate) fn wrap(inner: ArtifactBloomFilter) -> RawFilter {
        RawFilter { inner }
    }

    pub(crate) fn inner(&self) -> &ArtifactBloomFilter {
        &self.inner
    }
}

#[wasm_bindgen]
impl RawFilter {
    /// Builds from `N × 32` packed digests (checks: spec, capacity, length).
    #[wasm_bindgen(js_name = createPacked)]
    pub fn create_packed(packed: &[u8], expected_item_count: f64, target_fpp: f64) -> Result<RawFilter, JsValue> {
        let spec = spec_from_js(expected_item_count, target_fpp).map_err(bloom_error)?;
        ArtifactBloomFilter::create_packed(packed, &spec).map(RawFilter::wrap).map_err(bloom_error)
    }

    /// Answers from the digest's first 16 bytes as four big-endian `u32`s
    /// (`d[0..4]`, `d[4..8]`, `d[8..12]`, `d[12..16]`): the probe reads
    /// nothing else, and plain numbers cross the boundary without a copy or
    /// an allocation.
    #[wasm_bindgen(js_name = mightContainWords)]
    pub fn might_contain_words(&self, a: u32, b: u32, c: u32, d: u32) -> bool {
        let first = (u64::from(a) << 32) | u64::from(b);
        let second = (u64::from(c) << 32) | u64::from(d);
        self.inner.might_contain_words(first, second)
    }

    /// One flag byte (1 = maybe, 0 = definitely absent) per packed digest.
    #[wasm_bindgen(js_name = mightContainMany)]
    pub fn might_contain_many(&self, packed: &[u8]) -> Result<Vec<u8>, JsValue> {
        self.inner.might_contain_packed(packed).ok_or_else(|| error::packed_length("packed", packed.len()))
    }

    /// How many packed digests answer "maybe".
    #[wasm_bindgen(js_name = countMaybe)]
    pub fn count_maybe(&self, packed: &[u8]) -> Result<f64, JsValue> {
        self.inner
            .count_maybe(packed)
            .map(|n| n as f64)
            .ok_or_else(|| error::packed_length("packed", packed.len()))
    }

    #[wasm_bindgen(js_name = bitCount)]
    pub fn bit_count(&self) -> f64 {
        self.inner.bit_count() as f64
    }

    #[wasm_bindgen(js_name = hashCount)]
    pub fn hash_count(&self) -> u32 {
        self.inner.hash_count()
    }

    #[wasm_bindgen(js_name = insertedItemCount)]
    pub fn inserted_item_count(&self) -> f64 {
        self.inner.inserted_item_count() as f64
    }

    #[wasm_bindgen(js_name = expectedItemCount)]
    pub fn expected_item_count(&self) -> f64 {
        self.inner.spec().expected_item_count as f64
    }

    #[wasm_bindgen(js_name = targetFalsePositiveRate)]
    pub fn target_false_positive_rate(&self) -> f64 {
        self.inner.spec().target_false_positive_rate
    }

    #[wasm_bindgen(js_name = estimateFalsePositiveRate)]
    pub fn estimate_false_positive_rate(&self) -> f64 {
        self.inner.estimate_false_positive_rate()
    }

    #[wasm_bindgen(js_name = fillRatio)]
    pub fn fill_ratio(&self) -> f64 {
        self.inner.fill_ratio()
    }

    #[wasm_bindgen(js_name = serializeBits)]
    pub fn serialize_bits(&self) -> Vec<u8> {
        self.inner.serialize_bits()
    }

    /// OR of two filters of the same shape, or the coded `incompatibleFilters`.
    pub fn union(a: &RawFilter, b: &RawFilter) -> Result<RawFilter, JsValue> {
        ArtifactBloomFilter::union(&a.inner, &b.inner).map(RawFilter::wrap).ok_or_else(|| {
            error::coded(
                "incompatibleFilters",
                &format!(
                    "filters must have the same bitCount and hashCount: {}/{} vs {}/{}",
                    a.inner.bit_count(),
                    a.inner.hash_count(),
                    b.inner.bit_count(),
                    b.inner.hash_count()
                ),
            )
        })
    }
}
