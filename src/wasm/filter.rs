//! Raw binding of [`ArtifactBloomFilter`].
//!
//! Digest batches arrive through the staged input (`super::input`), never as
//! a `&[u8]` argument: wasm-bindgen's own copy of one aborts when memory is
//! exhausted, where the staged copy fails with a coded `outOfMemory`.

use super::error;
use super::input::with_input;
use crate::fallible::OutOfMemory;
use crate::filter::{ArtifactBloomFilter, UnionError};
use crate::layout::{create_layout, item_count_from_f64, BloomError, BloomSpec};
use crate::probe::DIGEST_LENGTH;
use wasm_bindgen::prelude::*;

/// A spec from JS numbers: a count that is not a safe integer is invalid.
pub(crate) fn spec_from_js(expected_item_count: f64, target_fpp: f64) -> Result<BloomSpec, BloomError> {
    let expected_item_count = item_count_from_f64(expected_item_count).ok_or(BloomError::InvalidExpectedItemCount)?;
    Ok(BloomSpec { expected_item_count, target_false_positive_rate: target_fpp })
}

pub(crate) fn bloom_error(error: BloomError) -> JsValue {
    error::coded(&error)
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

    /// Step 9's key for a decoded keyed filter (checked by the caller).
    pub(crate) fn set_key(&mut self, key: crate::keyed::SnapshotKey) {
        self.inner.set_key(key);
    }
}

/// The coded error for output bytes (`purpose`) that could not be reserved.
fn output_error(error: OutOfMemory, purpose: &'static str) -> JsValue {
    error::out_of_memory(error, purpose)
}

#[wasm_bindgen]
impl RawFilter {
    /// Begins a build of `total_length` bytes of packed digests that then
    /// arrive as staged pieces ([`RawFilter::insert_packed`]): the checks of
    /// `create_packed`, in its order (spec, capacity, length, then memory
    /// for the bits).
    #[wasm_bindgen(js_name = beginPacked)]
    pub fn begin_packed(total_length: f64, expected_item_count: f64, target_fpp: f64) -> Result<RawFilter, JsValue> {
        let spec = spec_from_js(expected_item_count, target_fpp).map_err(bloom_error)?;
        // A JS length is a safe integer; anything else cannot be a length
        // and fails the capacity check like a huge one.
        let total_length = item_count_from_f64(total_length).unwrap_or(u64::MAX);
        ArtifactBloomFilter::begin_packed(total_length, &spec).map(RawFilter::wrap).map_err(bloom_error)
    }

    /// [`RawFilter::begin_packed`] under hash protocol 2 with `key`.
    #[wasm_bindgen(js_name = beginPackedKeyed)]
    pub fn begin_packed_keyed(
        total_length: f64,
        expected_item_count: f64,
        target_fpp: f64,
        key: &super::keyed::RawSnapshotKey,
    ) -> Result<RawFilter, JsValue> {
        let spec = spec_from_js(expected_item_count, target_fpp).map_err(bloom_error)?;
        let total_length = item_count_from_f64(total_length).unwrap_or(u64::MAX);
        ArtifactBloomFilter::begin_packed_keyed(total_length, &spec, key.inner().clone())
            .map(RawFilter::wrap)
            .map_err(bloom_error)
    }

    /// Whether the filter hashes by protocol 2 (its single queries then go
    /// through [`RawFilter::might_contain_digest`]).
    #[wasm_bindgen(js_name = isKeyed)]
    pub fn is_keyed(&self) -> bool {
        !matches!(self.inner.hashing(), crate::keyed::Hashing::Plain)
    }

    /// The answer for one digest given as its eight big-endian 32-bit
    /// words: a keyed filter's MAC needs all 32 bytes (no copy into wasm
    /// memory either).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = mightContainDigest)]
    pub fn might_contain_digest(&self, w0: u32, w1: u32, w2: u32, w3: u32, w4: u32, w5: u32, w6: u32, w7: u32) -> bool {
        let mut digest = [0u8; DIGEST_LENGTH];
        for (slot, word) in digest.chunks_exact_mut(4).zip([w0, w1, w2, w3, w4, w5, w6, w7]) {
            slot.copy_from_slice(&word.to_be_bytes());
        }
        self.inner.might_contain(&digest)
    }

    /// Adds the `staged` bytes (whole digests) to a build begun with
    /// [`RawFilter::begin_packed`]. Only the JS layer's build calls it,
    /// before any JS object wraps the filter: a built filter never changes.
    #[wasm_bindgen(js_name = insertPacked)]
    pub fn insert_packed(&mut self, staged: usize) -> Result<(), JsValue> {
        with_input(staged, |packed| {
            if packed.len() % DIGEST_LENGTH != 0 {
                return Err(error::packed_length("packed", packed.len()));
            }
            self.inner.insert_packed(packed);
            Ok(())
        })
    }

    /// The answer for one digest, given as the four big-endian 32-bit
    /// words of its first 16 bytes: `first = firstHigh · 2^32 + firstLow`
    /// is the BE u64 of bytes 0..8, `second` that of bytes 8..16 (all the
    /// probe walk reads, docs/ABF1.md "Bits"). The JS layer reads the 16
    /// bytes straight from the caller's `Uint8Array` into the call's
    /// arguments, so a single query copies nothing into wasm memory.
    #[wasm_bindgen(js_name = mightContainWords)]
    pub fn might_contain_words(&self, first_high: u32, first_low: u32, second_high: u32, second_low: u32) -> bool {
        let first = (u64::from(first_high) << 32) | u64::from(first_low);
        let second = (u64::from(second_high) << 32) | u64::from(second_low);
        self.inner.might_contain_words(first, second)
    }

    /// One flag byte (1 = maybe, 0 = definitely absent) per staged digest.
    #[wasm_bindgen(js_name = mightContainMany)]
    pub fn might_contain_many(&self, staged: usize) -> Result<Vec<u8>, JsValue> {
        with_input(staged, |packed| match self.inner.might_contain_packed(packed) {
            Some(flags) => flags.map_err(|e| output_error(e, "for the answers")),
            None => Err(error::packed_length("packed", packed.len())),
        })
    }

    /// How many staged digests answer "maybe".
    #[wasm_bindgen(js_name = countMaybe)]
    pub fn count_maybe(&self, staged: usize) -> Result<f64, JsValue> {
        with_input(staged, |packed| {
            self.inner.count_maybe(packed).map(|n| n as f64).ok_or_else(|| error::packed_length("packed", packed.len()))
        })
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
    pub fn serialize_bits(&self) -> Result<Vec<u8>, JsValue> {
        self.inner.serialize_bits().map_err(|e| output_error(e, "for the serialized bits"))
    }

    /// OR of two filters of the same shape, or the coded `incompatibleFilters`,
    /// `capacityExceeded` (the union's count over `expectedItemCount`) or
    /// `outOfMemory` (for the new bit array).
    pub fn union(a: &RawFilter, b: &RawFilter) -> Result<RawFilter, JsValue> {
        match ArtifactBloomFilter::union(&a.inner, &b.inner) {
            Ok(merged) => Ok(RawFilter::wrap(merged)),
            Err(UnionError::CapacityExceeded { count, capacity }) => Err(error::binding(
                "capacityExceeded",
                None,
                &[("count", count as f64), ("expectedItemCount", capacity as f64)],
            )),
            Err(UnionError::Incompatible) => Err(error::binding(
                "incompatibleFilters",
                None,
                &[
                    ("bitCount", a.inner.bit_count() as f64),
                    ("hashCount", f64::from(a.inner.hash_count())),
                    ("otherBitCount", b.inner.bit_count() as f64),
                    ("otherHashCount", f64::from(b.inner.hash_count())),
                ],
            )),
            Err(UnionError::OutOfMemory(e)) => Err(bloom_error(e.into())),
        }
    }
}
