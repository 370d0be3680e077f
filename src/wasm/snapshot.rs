//! Raw binding of the ABF1 codec: whole-buffer and streaming loaders, the
//! encoder, and the publisher's de-duplication helper.

use super::error;
use super::filter::RawFilter;
use crate::abf1::{self, LoadError, Snapshot, StreamDecoder};
use crate::packed::dedup_packed;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

fn load_error(error: LoadError) -> JsValue {
    error::coded(error.code(), &error.message())
}

/// The header as a plain JS object (every field of the ABF1 table).
fn header_value(header: &abf1::Header) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(header).map_err(|e| error::range(&e.to_string()))
}

/// `{ header, filter }` where `filter` is a `RawFilter`.
fn snapshot_value(snapshot: Snapshot) -> Result<JsValue, JsValue> {
    let plain = Object::new();
    Reflect::set(&plain, &"header".into(), &header_value(&snapshot.header)?)?;
    Reflect::set(&plain, &"filter".into(), &RawFilter::wrap(snapshot.filter).into())?;
    Ok(plain.into())
}

/// Loads a whole ABF1 file: `{ header, filter }` or a coded error (the codes
/// and their order are spec/ABF1.md's).
#[wasm_bindgen(js_name = decodeSnapshot)]
pub fn decode_snapshot(bytes: &[u8]) -> Result<JsValue, JsValue> {
    snapshot_value(abf1::decode(bytes).map_err(load_error)?)
}

/// [`decode_snapshot`] for a caller that already computed step 8's SHA-256
/// (of bytes [0, 64) and [96, end)) with a faster native hash: Node's
/// node:crypto. The stored checksum is still compared here.
#[wasm_bindgen(js_name = decodeSnapshotPrehashed)]
pub fn decode_snapshot_prehashed(bytes: &[u8], sha256: &[u8]) -> Result<JsValue, JsValue> {
    let computed: [u8; abf1::CHECKSUM_LENGTH] =
        sha256.try_into().map_err(|_| error::digest_length("sha256", sha256.len()))?;
    snapshot_value(abf1::decode_with(bytes, |_, _| computed).map_err(load_error)?)
}

/// Steps 1–5 only, from the first 96 bytes: the header as a plain object, or
/// a coded error. Used by `inspect` to show a header whose checksum fails.
#[wasm_bindgen(js_name = parseSnapshotHeader)]
pub fn parse_snapshot_header(bytes: &[u8]) -> Result<JsValue, JsValue> {
    header_value(&abf1::parse_header(bytes).map_err(load_error)?)
}

/// Encodes a filter and its catalog version as ABF1 bytes.
#[wasm_bindgen(js_name = encodeSnapshot)]
pub fn encode_snapshot(filter: &RawFilter, catalog_version: f64) -> Result<Vec<u8>, JsValue> {
    let version = crate::layout::item_count_from_f64(catalog_version).ok_or_else(|| {
        error::coded(
            "invalidCatalogVersion",
            &format!(
                "catalogVersion must be an integer from 0 to 2^53 - 1, got {}",
                crate::numfmt::f64_text(catalog_version)
            ),
        )
    })?;
    abf1::encode(filter.inner(), version).map_err(|e| error::coded(e.code(), &e.message()))
}

/// Unique digests (first-seen order) and the duplicate count, as `{ unique, duplicates }`.
#[wasm_bindgen(js_name = dedupPacked)]
pub fn dedup_packed_js(packed: &[u8]) -> Result<JsValue, JsValue> {
    let (unique, duplicates) = dedup_packed(packed).ok_or_else(|| error::packed_length("packed", packed.len()))?;
    let plain = Object::new();
    Reflect::set(&plain, &"unique".into(), &js_sys::Uint8Array::from(unique.as_slice()).into())?;
    Reflect::set(&plain, &"duplicates".into(), &(duplicates as f64).into())?;
    Ok(plain.into())
}

/// Incremental ABF1 loader: header checks as soon as 96 bytes arrived, the
/// payload allocated once, SHA-256 computed as bytes arrive.
#[wasm_bindgen]
pub struct RawSnapshotDecoder {
    /// `None` after `finish()`.
    inner: Option<StreamDecoder>,
}

impl Default for RawSnapshotDecoder {
    fn default() -> Self {
        RawSnapshotDecoder::new()
    }
}

fn finished() -> JsValue {
    error::coded("decoderFinished", "this decoder already finished; create a new one")
}

#[wasm_bindgen]
impl RawSnapshotDecoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawSnapshotDecoder {
        RawSnapshotDecoder { inner: Some(StreamDecoder::new()) }
    }

    /// A decoder whose caller hashes (Node: node:crypto) and passes step 8's
    /// SHA-256 to `finishWithChecksum`.
    #[wasm_bindgen(js_name = withExternalChecksum)]
    pub fn with_external_checksum() -> RawSnapshotDecoder {
        RawSnapshotDecoder { inner: Some(StreamDecoder::with_external_checksum()) }
    }

    /// Feeds a chunk; a coded error as soon as the input is known bad.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        self.inner.as_mut().ok_or_else(finished)?.push(chunk).map_err(load_error)
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
