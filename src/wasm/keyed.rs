//! Raw binding of hash protocol 2 (`crate::keyed`): a key derived once, the
//! key step of every load (step 9, docs/ABF1.md "Keyed snapshots"), the MACs
//! a publisher sorts and builds from, and the header rewrite that turns such
//! a build into a keyed file. Keys arrive as `&[u8]` (at most 1 KiB: a fixed
//! small size, so wasm-bindgen's own copy is fine); none is ever returned,
//! stored outside a `SnapshotKey`, or put in an error.

use super::error;
use super::filter::RawFilter;
use super::input::with_input;
use crate::abf1;
use crate::keyed::{Hashing, SnapshotKey};
use crate::probe::DIGEST_LENGTH;
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

    /// The staged packed digests, each replaced by its MAC (a publisher's
    /// sort and build then run protocol 1 on these).
    #[wasm_bindgen(js_name = macPacked)]
    pub fn mac_packed(&self, staged: usize) -> Result<Vec<u8>, JsValue> {
        with_input(staged, |packed| {
            if packed.len() % DIGEST_LENGTH != 0 {
                return Err(error::packed_length("packed", packed.len()));
            }
            let mut out = crate::fallible::with_capacity(packed.len())
                .map_err(|e| error::out_of_memory(e, "for the digests' MACs"))?;
            out.resize(packed.len(), 0);
            self.inner.mac_packed(packed, &mut out);
            Ok(out)
        })
    }

    /// The staged ABF1 file (bits built by protocol 1 from MACs under this
    /// key) rewritten as the protocol-2 file those bits are.
    #[wasm_bindgen(js_name = sealSnapshot)]
    pub fn seal_snapshot(&self, staged: usize) -> Result<Vec<u8>, JsValue> {
        let hashing = Hashing::keyed(self.inner.clone());
        with_input(staged, |file| abf1::with_hashing(file, &hashing).map_err(|e| error::coded(&e)))
    }
}

/// The staged protocol-2 file rewritten as protocol 1 (same bits: a sorted
/// build continues it with MACs), after step 9 with `key`.
#[wasm_bindgen(js_name = unsealSnapshot)]
pub fn unseal_snapshot(staged: usize, key: &RawSnapshotKey) -> Result<Vec<u8>, JsValue> {
    with_input(staged, |file| {
        let header = abf1::parse_header(file).map_err(|e| error::coded(&e))?;
        let hashing = if header.hash_protocol_version == crate::keyed::KEYED_HASH_PROTOCOL_VERSION {
            Hashing::Keyed { key_check: header.reserved, key: None }
        } else {
            Hashing::Plain
        };
        abf1::check_key(&hashing, Some(key.inner())).map_err(|e| error::coded(&e))?;
        abf1::with_hashing(file, &Hashing::Plain).map_err(|e| error::coded(&e))
    })
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
