//! Raw binding of what a publisher of keyed snapshots needs (docs/ABF1.md
//! "Keyed snapshots"), in the delta module beside the sorted build, so the
//! main module every page downloads carries none of it: the digests' MACs
//! (sorted and built by protocol 1 like digests) and the header rewrite
//! between that protocol-1 build and the protocol-2 file its bits are. The
//! key arrives as `&[u8]` (at most 1 KiB: wasm-bindgen's own copy is fine)
//! and lives only in the `SnapshotKey`; no error carries it.

use super::error;
use super::input::with_input;
use crate::abf1;
use crate::keyed::{Hashing, SnapshotKey, KEYED_HASH_PROTOCOL_VERSION};
use crate::probe::DIGEST_LENGTH;
use wasm_bindgen::prelude::*;

/// A catalog's key, for building its keyed snapshots.
#[wasm_bindgen]
pub struct RawCatalogKey {
    inner: SnapshotKey,
}

#[wasm_bindgen]
impl RawCatalogKey {
    /// `invalidKey` for a key outside 16..=1024 bytes (its length named, never its bytes).
    #[wasm_bindgen(constructor)]
    pub fn new(key: &[u8]) -> Result<RawCatalogKey, JsValue> {
        SnapshotKey::new(key).map(|inner| RawCatalogKey { inner }).map_err(|e| error::coded(&e))
    }

    /// The staged packed digests, each replaced by its MAC.
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
    /// key) as the protocol-2 file those bits are.
    #[wasm_bindgen(js_name = sealSnapshot)]
    pub fn seal_snapshot(&self, staged: usize) -> Result<Vec<u8>, JsValue> {
        let hashing = Hashing::keyed(self.inner.clone());
        with_input(staged, |file| abf1::with_hashing(file, &hashing).map_err(|e| error::coded(&e)))
    }

    /// The staged protocol-2 file as protocol 1 (the same bits: a sorted
    /// build continues it with MACs), after step 9 with this key
    /// (`wrongKey`, `notKeyed`).
    #[wasm_bindgen(js_name = unsealSnapshot)]
    pub fn unseal_snapshot(&self, staged: usize) -> Result<Vec<u8>, JsValue> {
        with_input(staged, |file| {
            let header = abf1::parse_header(file).map_err(|e| error::coded(&e))?;
            let hashing = if header.hash_protocol_version == KEYED_HASH_PROTOCOL_VERSION {
                Hashing::Keyed { key_check: header.reserved, key: None }
            } else {
                Hashing::Plain
            };
            abf1::check_key(&hashing, Some(&self.inner)).map_err(|e| error::coded(&e))?;
            abf1::with_hashing(file, &Hashing::Plain).map_err(|e| error::coded(&e))
        })
    }
}
