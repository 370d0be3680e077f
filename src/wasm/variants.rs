//! Raw bindings of the other filters: the TLBF filter, the
//! mergeable CRDT filter and its deltas (MBLF), the scalable chain (SBLF) and the
//! sizing helpers. `pkg-template/lib/{tlbf,mergeable,scalable,sizing}.js` wraps them and
//! does all JavaScript-value validation; this layer re-checks what it
//! receives and turns every core error (all `Coded`) into `error::coded`.
//!
//! Deltas cross the boundary as plain words, not as a wasm-owned class: a
//! caller that ignores the delta of each of a million adds must not pin a
//! million small allocations in wasm memory until the garbage collector gets
//! round to finalizers. The core only builds a `Delta` through `add` or
//! `decode`, so a delta coming back from JavaScript is rebuilt through its
//! wire form (`docs/mergeable-format.md`, kind 3) and gets every check of
//! `Delta::decode`.
//!
//! Items, encoded states and delta words arrive through the staged input
//! (`super::input`), never as caller-sized `&[u8]` arguments.

use super::error;
use super::input::with_input;
use crate::error::Coded;
use crate::fallible;
use crate::layout::item_count_from_f64;
use crate::variants::mergeable::{self, seal, Delta, MergeableBloomFilter, MergeableError, CHECKSUM_LENGTH};
use crate::variants::scalable::{ScalableBloomFilter, ScalableError};
use crate::variants::sizing::{self, SizingError};
use crate::variants::tlbf::{TlBloom, TlbfError};
use wasm_bindgen::prelude::*;

/// The JS `Error` (with `code`) for a core failure.
fn fail<E: Coded>(e: E) -> JsValue {
    error::coded(&e)
}

/// A JS count as u64, or `invalid` when it is not a safe non-negative integer.
fn count<E: Coded>(value: f64, invalid: E) -> Result<u64, JsValue> {
    item_count_from_f64(value).ok_or_else(|| fail(invalid))
}

// ---- TLBF ----------------------------------------------------------------

#[wasm_bindgen]
pub struct RawTlBloom {
    inner: TlBloom,
}

#[wasm_bindgen]
impl RawTlBloom {
    #[wasm_bindgen(js_name = withRate)]
    pub fn with_rate(n: f64, p: f64) -> Result<RawTlBloom, JsValue> {
        let n = count(n, TlbfError::InvalidExpectedItemCount)?;
        TlBloom::with_rate(n, p).map(|inner| RawTlBloom { inner }).map_err(fail)
    }

    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(staged: usize) -> Result<RawTlBloom, JsValue> {
        with_input(staged, |bytes| TlBloom::from_bytes(bytes).map(|inner| RawTlBloom { inner }).map_err(fail))
    }

    /// Inserts the `staged` item.
    pub fn insert(&mut self, staged: usize) -> Result<(), JsValue> {
        with_input(staged, |item| {
            self.inner.insert(item);
            Ok(())
        })
    }

    pub fn contains(&self, staged: usize) -> Result<bool, JsValue> {
        with_input(staged, |item| Ok(self.inner.contains(item)))
    }

    /// ORs `other` in (counts add); a coded `incompatibleFilters` otherwise.
    pub fn union(&mut self, other: &RawTlBloom) -> Result<(), JsValue> {
        self.inner.union(&other.inner).map_err(fail)
    }

    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Result<Vec<u8>, JsValue> {
        self.inner.to_bytes().map_err(fail)
    }

    pub fn m(&self) -> f64 {
        self.inner.m() as f64
    }

    pub fn k(&self) -> u32 {
        self.inner.k()
    }

    /// Rounded to the nearest double above 2^53 (only a crafted file gets there).
    #[wasm_bindgen(js_name = insertedCount)]
    pub fn inserted_count(&self) -> f64 {
        self.inner.n_inserted() as f64
    }

    #[wasm_bindgen(js_name = fillRatio)]
    pub fn fill_ratio(&self) -> f64 {
        self.inner.fill_ratio()
    }
}

// ---- Mergeable filter and deltas (MBLF) ------------------------------

/// Writes a delta as `[bitCount, hashCount, (wordIndex, low 32 bits, high 32
/// bits)…]` (bitCount ≤ 2^30 fits a u32) into `out`, replacing its content.
fn write_delta_words(delta: &Delta, out: &mut Vec<u32>) {
    out.clear();
    out.push(delta.bit_count() as u32);
    out.push(delta.hash_count());
    for &(index, value) in delta.words() {
        out.extend_from_slice(&[index, value as u32, (value >> 32) as u32]);
    }
}

/// The inverse of [`write_delta_words`] for words staged as little-endian
/// u32 bytes, through the wire form so every check of `Delta::decode`
/// applies (shape, index order and range, non-zero values).
fn delta_from_word_bytes(bytes: &[u8]) -> Result<Delta, JsValue> {
    const WORD: usize = 4;
    let word = |at: usize| {
        let mut raw = [0u8; WORD];
        if let Some(chunk) = bytes.get(at * WORD..at * WORD + WORD) {
            raw.copy_from_slice(chunk);
        }
        u32::from_le_bytes(raw)
    };
    let word_count = bytes.len() / WORD;
    if bytes.len() % WORD != 0 || word_count < 2 || (word_count - 2) % 3 != 0 {
        return Err(fail(MergeableError::LengthMismatch));
    }
    const KIND_DELTA: u8 = 3;
    let entry_count = (word_count - 2) / 3;
    let mut frame = fallible::with_capacity(
        mergeable::HEADER_LENGTH + entry_count * mergeable::SPARSE_ENTRY_LENGTH + CHECKSUM_LENGTH,
    )
    .map_err(|_| fail(MergeableError::OutOfMemory))?;
    frame.extend_from_slice(&mergeable::MAGIC);
    frame.extend_from_slice(&mergeable::VERSION.to_le_bytes());
    frame.extend_from_slice(&[KIND_DELTA, 0]);
    frame.extend_from_slice(&u64::from(word(0)).to_le_bytes());
    frame.extend_from_slice(&word(1).to_le_bytes());
    frame.extend_from_slice(&(entry_count as u32).to_le_bytes());
    for entry in 0..entry_count {
        let at = 2 + 3 * entry;
        frame.extend_from_slice(&word(at).to_le_bytes());
        frame.extend_from_slice(&(u64::from(word(at + 1)) | u64::from(word(at + 2)) << 32).to_le_bytes());
    }
    Delta::decode(&seal(frame)).map_err(fail)
}

/// A staged delta wire form → its words, or a coded decode error.
#[wasm_bindgen(js_name = decodeMergeableDelta)]
pub fn decode_mergeable_delta(staged: usize) -> Result<Vec<u32>, JsValue> {
    let delta = with_input(staged, |bytes| Delta::decode(bytes).map_err(fail))?;
    let mut words =
        fallible::with_capacity(2 + 3 * delta.words().len()).map_err(|_| fail(MergeableError::OutOfMemory))?;
    write_delta_words(&delta, &mut words);
    Ok(words)
}

/// A delta's staged words → its wire form.
#[wasm_bindgen(js_name = encodeMergeableDelta)]
pub fn encode_mergeable_delta(staged: usize) -> Result<Vec<u8>, JsValue> {
    let delta = with_input(staged, delta_from_word_bytes)?;
    delta.encode().map_err(fail)
}

#[wasm_bindgen]
pub struct RawMergeableFilter {
    inner: MergeableBloomFilter,
    /// The last add's delta words, in a buffer reused from add to add: JS
    /// reads them straight from wasm memory (a returned `Vec` would cost two
    /// typed-array allocations per add, most of an add's time).
    delta: Vec<u32>,
}

impl RawMergeableFilter {
    fn wrap(inner: MergeableBloomFilter) -> RawMergeableFilter {
        RawMergeableFilter { inner, delta: Vec::new() }
    }
}

#[wasm_bindgen]
impl RawMergeableFilter {
    pub fn create(expected_elements: f64, false_positive_rate: f64) -> Result<RawMergeableFilter, JsValue> {
        let n = count(expected_elements, MergeableError::InvalidExpectedItemCount)?;
        MergeableBloomFilter::create(n, false_positive_rate).map(RawMergeableFilter::wrap).map_err(fail)
    }

    pub fn decode(staged: usize) -> Result<RawMergeableFilter, JsValue> {
        with_input(staged, |bytes| MergeableBloomFilter::decode(bytes).map(RawMergeableFilter::wrap).map_err(fail))
    }

    /// Sets the `staged` item's bits and keeps the delta's words (see
    /// [`write_delta_words`]) at `deltaWordsPtr()`; returns how many.
    pub fn add(&mut self, staged: usize) -> Result<u32, JsValue> {
        let delta = with_input(staged, |item| Ok(self.inner.add(item)))?;
        write_delta_words(&delta, &mut self.delta);
        // At most 2 + 3 · 4096 words.
        Ok(self.delta.len() as u32)
    }

    /// Address of the last add's delta words in wasm memory; valid until the
    /// next call on this filter.
    #[wasm_bindgen(js_name = deltaWordsPtr)]
    pub fn delta_words_ptr(&self) -> usize {
        self.delta.as_ptr() as usize
    }

    #[wasm_bindgen(js_name = mightContain)]
    pub fn might_contain(&self, staged: usize) -> Result<bool, JsValue> {
        with_input(staged, |item| Ok(self.inner.might_contain(item)))
    }

    #[wasm_bindgen(js_name = pieceFilter)]
    pub fn piece_filter(&mut self, other: &RawMergeableFilter) -> Result<(), JsValue> {
        self.inner.piece(&other.inner).map_err(fail)
    }

    /// Joins the delta whose words are staged (little-endian u32 bytes).
    #[wasm_bindgen(js_name = pieceDelta)]
    pub fn piece_delta(&mut self, staged: usize) -> Result<(), JsValue> {
        let delta = with_input(staged, delta_from_word_bytes)?;
        self.inner.piece_delta(&delta).map_err(fail)
    }

    pub fn encode(&self) -> Result<Vec<u8>, JsValue> {
        self.inner.encode().map_err(fail)
    }

    #[wasm_bindgen(js_name = wordCount)]
    pub fn word_count(&self) -> u32 {
        // ≤ 2^24 words (bitCount ≤ 2^30).
        self.inner.word_count() as u32
    }

    #[wasm_bindgen(js_name = nonZeroWordCount)]
    pub fn non_zero_word_count(&self) -> u32 {
        self.inner.non_zero_word_count() as u32
    }

    #[wasm_bindgen(js_name = bitCount)]
    pub fn bit_count(&self) -> f64 {
        self.inner.bit_count() as f64
    }

    #[wasm_bindgen(js_name = hashCount)]
    pub fn hash_count(&self) -> u32 {
        self.inner.hash_count()
    }

    #[wasm_bindgen(js_name = fillRatio)]
    pub fn fill_ratio(&self) -> f64 {
        self.inner.fill_ratio()
    }
}

// ---- Scalable chain (SBLF) -------------------------------------------

#[wasm_bindgen]
pub struct RawScalableFilter {
    inner: ScalableBloomFilter,
}

#[wasm_bindgen]
impl RawScalableFilter {
    #[wasm_bindgen(constructor)]
    pub fn new(
        initial_capacity: f64,
        target_fpp: f64,
        growth_factor: f64,
        tightening_ratio: f64,
    ) -> Result<RawScalableFilter, JsValue> {
        let capacity = count(initial_capacity, ScalableError::InvalidInitialCapacity)?;
        let growth = count(growth_factor, ScalableError::InvalidGrowthFactor)?;
        let growth = u32::try_from(growth).map_err(|_| fail(ScalableError::InvalidGrowthFactor))?;
        ScalableBloomFilter::new(capacity, target_fpp, growth, tightening_ratio)
            .map(|inner| RawScalableFilter { inner })
            .map_err(fail)
    }

    pub fn decode(staged: usize) -> Result<RawScalableFilter, JsValue> {
        with_input(staged, |bytes| {
            ScalableBloomFilter::decode(bytes).map(|inner| RawScalableFilter { inner }).map_err(fail)
        })
    }

    /// Adds the `staged` item; a coded `filterTooLarge` or `outOfMemory`
    /// (chain unchanged) when it cannot grow.
    pub fn add(&mut self, staged: usize) -> Result<(), JsValue> {
        with_input(staged, |item| self.inner.add(item).map_err(fail))
    }

    #[wasm_bindgen(js_name = mightContain)]
    pub fn might_contain(&self, staged: usize) -> Result<bool, JsValue> {
        with_input(staged, |item| Ok(self.inner.might_contain(item)))
    }

    #[wasm_bindgen(js_name = stageCount)]
    pub fn stage_count(&self) -> u32 {
        // ≤ 256 stages.
        self.inner.stage_count() as u32
    }

    #[wasm_bindgen(js_name = itemCount)]
    pub fn item_count(&self) -> f64 {
        self.inner.item_count() as f64
    }

    #[wasm_bindgen(js_name = bitCount)]
    pub fn bit_count(&self) -> f64 {
        self.inner.bit_count() as f64
    }

    #[wasm_bindgen(js_name = estimatedFpp)]
    pub fn estimated_fpp(&self) -> f64 {
        self.inner.estimated_fpp()
    }

    /// `[initialCapacity, targetFpp, growthFactor, tighteningRatio]`.
    pub fn params(&self) -> Vec<f64> {
        let p = self.inner.params();
        vec![p.initial_capacity as f64, p.target_fpp, f64::from(p.growth_factor), p.tightening_ratio]
    }

    pub fn encode(&self) -> Result<Vec<u8>, JsValue> {
        self.inner.encode().map_err(fail)
    }
}

// ---- Sizing helpers ------------------------------------------------------

/// `[m, k]` of the classic optimum (`src/variants/sizing.rs`), or a coded sizing error.
#[wasm_bindgen(js_name = sizingOptimalParams)]
pub fn sizing_optimal_params(n: f64, p: f64) -> Result<Vec<f64>, JsValue> {
    let n = count(n, SizingError::InvalidExpectedItemCount)?;
    let (m, k) = sizing::checked_optimal_params(n, p).map_err(fail)?;
    Ok(vec![m as f64, f64::from(k)])
}

#[wasm_bindgen(js_name = sizingFppFromFillRatio)]
pub fn sizing_fpp_from_fill_ratio(fill: f64, k: u32) -> f64 {
    sizing::fpp_from_fill_ratio(fill, k)
}

#[wasm_bindgen(js_name = sizingAlertFillRatio)]
pub fn sizing_alert_fill_ratio(p: f64, k: u32) -> f64 {
    sizing::alert_fill_ratio(p, k)
}

/// The JS layer passes safe integers; `as` saturates anything else.
#[wasm_bindgen(js_name = sizingExpectedFillRatio)]
pub fn sizing_expected_fill_ratio(n: f64, m: f64, k: u32) -> f64 {
    sizing::expected_fill_ratio(n as u64, m as u64, k)
}
