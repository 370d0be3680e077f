//! Raw binding of streaming SHA-256 (the sha2 crate).

use super::error;
use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct RawSha256 {
    /// `None` once `digest()` consumed the state.
    state: Option<Sha256>,
}

impl Default for RawSha256 {
    fn default() -> Self {
        RawSha256::new()
    }
}

#[wasm_bindgen]
impl RawSha256 {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawSha256 {
        RawSha256 { state: Some(Sha256::new()) }
    }

    pub fn update(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        match self.state.as_mut() {
            Some(state) => {
                crate::hashing::update_in_pieces(state, bytes);
                Ok(())
            }
            None => Err(finished()),
        }
    }

    /// The 32-byte digest; the hasher cannot be updated afterwards.
    pub fn digest(&mut self) -> Result<Vec<u8>, JsValue> {
        self.state.take().map(|s| s.finalize().to_vec()).ok_or_else(finished)
    }
}

fn finished() -> JsValue {
    error::coded("hasherFinished", "this Sha256 already returned its digest; create a new one")
}

/// One-shot SHA-256.
#[wasm_bindgen(js_name = sha256)]
pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    crate::hashing::sha256(bytes).to_vec()
}
