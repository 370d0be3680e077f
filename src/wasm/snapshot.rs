//! Raw binding of the ABF1 codec: whole-buffer and streaming loaders, the
//! encoder, and the publisher's de-duplication helper. Files and chunks
//! arrive through the staged input (`super::input`).

use super::error;
use super::filter::RawFilter;
use super::input::with_input;
use crate::abf1::{self, LoadError, Snapshot, StreamDecoder};
use crate::bits::{BitArray, WORD_BITS};
use crate::layout::item_count_from_f64;
use crate::packed::dedup_packed;
use js_sys::{Object, Reflect};
use std::cell::Cell;
use wasm_bindgen::prelude::*;

fn load_error(error: LoadError) -> JsValue {
    error::coded(&error)
}

/// The header as a plain JS object (every field of the ABF1 table).
fn header_value(header: &abf1::Header) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(header).map_err(JsValue::from)
}

/// `{ header, filter }` where `filter` is a `RawFilter`.
fn snapshot_value(snapshot: Snapshot) -> Result<JsValue, JsValue> {
    let plain = Object::new();
    Reflect::set(&plain, &"header".into(), &header_value(&snapshot.header)?)?;
    Reflect::set(&plain, &"filter".into(), &RawFilter::wrap(snapshot.filter).into())?;
    Ok(plain.into())
}

/// Loads the `staged` bytes of a whole ABF1 file: `{ header, filter }` or a
/// coded error (the codes and their order are docs/ABF1.md's, then
/// `outOfMemory`).
#[wasm_bindgen(js_name = decodeSnapshot)]
pub fn decode_snapshot(staged: usize) -> Result<JsValue, JsValue> {
    // Steps 1–8: step 9 (the key) is the JS layer's, on the decoded filter.
    let snapshot = with_input(staged, |bytes| abf1::decode_with(bytes, abf1::checksum_of).map_err(load_error))?;
    snapshot_value(snapshot)
}

/// [`decode_snapshot`] for a caller that already computed step 8's SHA-256
/// (of bytes [0, 64) and [96, end)) with a faster native hash: Node's
/// node:crypto. The stored checksum is still compared here. `sha256` is 32
/// bytes (a fixed size: wasm-bindgen's own copy is fine for it).
#[wasm_bindgen(js_name = decodeSnapshotPrehashed)]
pub fn decode_snapshot_prehashed(staged: usize, sha256: &[u8]) -> Result<JsValue, JsValue> {
    let computed: [u8; abf1::CHECKSUM_LENGTH] =
        sha256.try_into().map_err(|_| error::digest_length("sha256", sha256.len()))?;
    let snapshot = with_input(staged, |bytes| abf1::decode_with(bytes, |_, _| computed).map_err(load_error))?;
    snapshot_value(snapshot)
}

/// Steps 1–5 only, from the first 96 bytes: the header as a plain object, or
/// a coded error. Used by `inspect` to show a header whose checksum fails.
/// The JS layer passes at most 96 bytes, a fixed size.
#[wasm_bindgen(js_name = parseSnapshotHeader)]
pub fn parse_snapshot_header(bytes: &[u8]) -> Result<JsValue, JsValue> {
    header_value(&abf1::parse_header(bytes).map_err(load_error)?)
}

fn catalog_version_from_js(catalog_version: f64) -> Result<u64, JsValue> {
    crate::layout::item_count_from_f64(catalog_version).ok_or_else(|| {
        error::binding("invalidCatalogVersion", Some(("parameter", "catalogVersion")), &[("got", catalog_version)])
    })
}

/// Encodes a filter and its catalog version as ABF1 bytes.
#[wasm_bindgen(js_name = encodeSnapshot)]
pub fn encode_snapshot(filter: &RawFilter, catalog_version: f64) -> Result<Vec<u8>, JsValue> {
    abf1::encode(filter.inner(), catalog_version_from_js(catalog_version)?).map_err(|e| error::coded(&e))
}

/// ABF1 bytes with the checksum field zero and the payload not hashed
/// (`abf1::encode_unsealed`): the snapshots a delta encode hands the delta
/// module.
#[wasm_bindgen(js_name = encodeSnapshotUnsealed)]
pub fn encode_snapshot_unsealed(filter: &RawFilter, catalog_version: f64) -> Result<Vec<u8>, JsValue> {
    abf1::encode_unsealed(filter.inner(), catalog_version_from_js(catalog_version)?).map_err(|e| error::coded(&e))
}

/// Where a filter's bit array is in this module's memory, read as its ABF1
/// payload (wasm memory is little-endian: the words are the payload bytes),
/// with [`filter_payload_length`] bytes. A delta apply copies the base from
/// there into the delta module; the address holds until the filter is freed.
#[wasm_bindgen(js_name = filterPayloadAddress)]
pub fn filter_payload_address(filter: &RawFilter) -> usize {
    filter.inner().bits().words().as_ptr() as usize
}

#[wasm_bindgen(js_name = filterPayloadLength)]
pub fn filter_payload_length(filter: &RawFilter) -> f64 {
    filter.inner().bits().byte_count() as f64
}

thread_local! {
    /// A snapshot between [`reserve_snapshot_bits`] and
    /// [`finish_snapshot_bits`]: its header and the bits JavaScript writes.
    /// One at a time (wasm is single-threaded, and the copy between the two
    /// calls is synchronous); free functions rather than a class, so a page
    /// that never applies a delta bundles no glue for them.
    static PENDING_BITS: Cell<Option<(abf1::Header, BitArray)>> = const { Cell::new(None) };
}

/// Begins a snapshot made of an ABF1 header and bits written straight into
/// its bit array (a delta's target, rebuilt in the delta module): load steps
/// 1–5 on `header` (96 bytes, a fixed size: wasm-bindgen's own copy is fine
/// for it), steps 6–7 on `payload_length` (the bytes the caller will write),
/// then a zeroed bit array whose address is returned, or a coded error
/// (`outOfMemory` when it cannot be reserved). A reservation whose finish
/// never came is dropped here first.
#[wasm_bindgen(js_name = reserveSnapshotBits)]
pub fn reserve_snapshot_bits(header: &[u8], payload_length: f64) -> Result<usize, JsValue> {
    PENDING_BITS.set(None);
    let header = abf1::parse_header(header).map_err(load_error)?;
    let total = header.total_length();
    let got = item_count_from_f64(payload_length).unwrap_or(u64::MAX).saturating_add(abf1::HEADER_LENGTH as u64);
    if got < total {
        return Err(load_error(LoadError::Truncated { needed: total, got }));
    }
    if got > total {
        return Err(load_error(LoadError::LengthMismatch { expected: total, got }));
    }
    // Step 5 bounded bitCount by 2^30, a whole number of words.
    let words = usize::try_from(header.bit_count / WORD_BITS).unwrap_or(usize::MAX);
    let bits = BitArray::zeroed(words).map_err(|oom| load_error(oom.into()))?;
    let address = bits.words().as_ptr() as usize;
    PENDING_BITS.set(Some((header, bits)));
    Ok(address)
}

/// Completes the snapshot [`reserve_snapshot_bits`] began: what
/// `decodeSnapshotPrehashed` gives for the file of its header and bits,
/// checked the same way (`abf1::from_bits`'s steps), with step 8 on `sha256`, the
/// caller's SHA-256 of header bytes [0, 64) and the payload (Node:
/// node:crypto's of the bits written here; elsewhere the delta module's of
/// the bits it copied here, so this module needs no second hashing path):
/// `{ header, filter }` or a coded error (`checksumMismatch`).
#[wasm_bindgen(js_name = finishSnapshotBits)]
pub fn finish_snapshot_bits(sha256: &[u8]) -> Result<JsValue, JsValue> {
    let (header, bits) = PENDING_BITS.take().ok_or_else(finished)?;
    let computed: [u8; abf1::CHECKSUM_LENGTH] =
        sha256.try_into().map_err(|_| error::digest_length("sha256", sha256.len()))?;
    // The header passed steps 1–5 and the bits have its bitCount: reserved so.
    snapshot_value(abf1::from_checked_bits(header, bits, computed).map_err(load_error)?)
}

/// Unique staged digests (first-seen order) and the duplicate count, as
/// `{ unique, duplicates }`.
#[wasm_bindgen(js_name = dedupPacked)]
pub fn dedup_packed_js(staged: usize) -> Result<JsValue, JsValue> {
    let (unique, duplicates) = with_input(staged, |packed| match dedup_packed(packed) {
        Some(result) => result.map_err(|e| error::out_of_memory(e, "to de-duplicate the digests")),
        None => Err(error::packed_length("packed", packed.len())),
    })?;
    let plain = Object::new();
    Reflect::set(&plain, &"unique".into(), &js_sys::Uint8Array::from(unique.as_slice()).into())?;
    Reflect::set(&plain, &"duplicates".into(), &(duplicates as f64).into())?;
    Ok(plain.into())
}

/// Incremental ABF1 loader: header checks (and `maxBytes`) as soon as 96
/// bytes arrived, the bit array grown as the payload arrives, SHA-256
/// computed as bytes arrive.
#[wasm_bindgen]
pub struct RawSnapshotDecoder {
    /// `None` after `finish()`.
    inner: Option<StreamDecoder>,
}

fn finished() -> JsValue {
    error::binding("decoderFinished", None, &[])
}

/// `maxBytes` from JS (a non-negative number, `Infinity` for none) as the
/// decoder's limit. Lengths are integers, so `total > maxBytes` is
/// `total > floor(maxBytes)`; `as` saturates Infinity to `u64::MAX`.
fn limited(decoder: StreamDecoder, max_bytes: f64) -> RawSnapshotDecoder {
    let limit = if max_bytes >= 0.0 { max_bytes as u64 } else { 0 };
    RawSnapshotDecoder { inner: Some(decoder.with_max_length(limit)) }
}

#[wasm_bindgen]
impl RawSnapshotDecoder {
    /// A decoder that hashes in wasm and refuses (`tooLarge`) a header that
    /// declares more than `max_bytes` in all.
    #[wasm_bindgen(constructor)]
    pub fn new(max_bytes: f64) -> RawSnapshotDecoder {
        limited(StreamDecoder::new(), max_bytes)
    }

    /// A decoder whose caller hashes (Node: node:crypto) and passes step 8's
    /// SHA-256 to `finishWithChecksum`.
    #[wasm_bindgen(js_name = withExternalChecksum)]
    pub fn with_external_checksum(max_bytes: f64) -> RawSnapshotDecoder {
        limited(StreamDecoder::with_external_checksum(), max_bytes)
    }

    /// Feeds the `staged` chunk; a coded error as soon as the input is known
    /// bad, or when the bit array cannot grow (`outOfMemory`).
    pub fn push(&mut self, staged: usize) -> Result<(), JsValue> {
        let decoder = self.inner.as_mut().ok_or_else(finished)?;
        with_input(staged, |chunk| decoder.push(chunk).map_err(load_error))
    }

    /// `96 + payloadLength` once the header is known, else `undefined`.
    #[wasm_bindgen(js_name = totalLength)]
    pub fn total_length(&self) -> Option<f64> {
        self.inner.as_ref().and_then(StreamDecoder::total_length).map(|n| n as f64)
    }

    /// Completes the load: `{ header, filter }` or a coded error.
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        snapshot_value(self.inner.take().ok_or_else(finished)?.finish().map_err(load_error)?)
    }

    /// `finish` with the caller's SHA-256 of bytes [0, 64) and [96, end).
    #[wasm_bindgen(js_name = finishWithChecksum)]
    pub fn finish_with_checksum(&mut self, sha256: &[u8]) -> Result<JsValue, JsValue> {
        let computed: [u8; abf1::CHECKSUM_LENGTH] =
            sha256.try_into().map_err(|_| error::digest_length("sha256", sha256.len()))?;
        let decoder = self.inner.take().ok_or_else(finished)?;
        snapshot_value(decoder.finish_with_checksum(computed).map_err(load_error)?)
    }
}
