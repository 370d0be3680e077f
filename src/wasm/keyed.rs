//! Raw binding of hash protocol 2 (`crate::keyed`) in the main module: a key
//! derived once, and the key step of every load (step 9, docs/ABF1.md "Keyed
//! snapshots"). What only a publisher needs (MACs to sort, the header
//! rewrite) is in the delta module (`super::keyed_build`). Keys arrive as `&[u8]` (at most 1 KiB: a fixed
//! small size, so wasm-bindgen's own copy is fine); none is ever returned,
//! stored outside a `SnapshotKey`, or put in an error.

use super::error;
use super::filter::RawFilter;
use crate::abf1;
use crate::keyed::{Hashing, SnapshotKey};
use wasm_bindgen::prelude::*;

/// A key ready for HMAC (both padded blocks hashed once).
#[wasm_bindgen]
pub struct RawSnapshotKey {
    inner: SnapshotKey,
}

impl RawSnapshotKey {
    pub(crate) fn inner(&self) -> &SnapshotKey {
        &self.inner
    }
}

#[wasm_bindgen]
impl RawSnapshotKey {
    /// `invalidKey` for a key outside 16..=1024 bytes (its length named, never its bytes).
    #[wasm_bindgen(constructor)]
    pub fn new(key: &[u8]) -> Result<RawSnapshotKey, JsValue> {
        SnapshotKey::new(key).map(|inner| RawSnapshotKey { inner }).map_err(|e| error::coded(&e))
    }
}

/// Step 9 on a decoded filter: `key` (or none) against its hashing; a keyed
/// filter answers from then on. Coded `keyRequired`, `wrongKey`, `notKeyed`.
#[wasm_bindgen(js_name = unlockFilter)]
pub fn unlock_filter(filter: &mut RawFilter, key: Option<RawSnapshotKey>) -> Result<(), JsValue> {
    let key = key.map(|k| k.inner);
    abf1::check_key(filter.inner().hashing(), key.as_ref()).map_err(|e| error::coded(&e))?;
    if let Some(key) = key {
        filter.set_key(key);
    }
    Ok(())
}

/// Step 9 for a delta's target: the key of `base`'s filter (none when it is
/// not keyed), so a client that loaded the base with its key applies deltas
/// without handing the key again.
#[wasm_bindgen(js_name = unlockFilterLike)]
pub fn unlock_filter_like(filter: &mut RawFilter, base: &RawFilter) -> Result<(), JsValue> {
    let key = match base.inner().hashing() {
        Hashing::Keyed { key: Some(key), .. } => Some(SnapshotKey::clone(key)),
        _ => None,
    };
    abf1::check_key(filter.inner().hashing(), key.as_ref()).map_err(|e| error::coded(&e))?;
    if let Some(key) = key {
        filter.set_key(key);
    }
    Ok(())
}
