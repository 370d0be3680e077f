//! Raw binding of streaming SHA-256 (the sha2 crate). Bytes arrive through
//! the staged input (`super::input`).

use super::error;
use super::input::with_input;
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

    /// Hashes the `staged` bytes.
    pub fn update(&mut self, staged: usize) -> Result<(), JsValue> {
        let state = self.state.as_mut().ok_or_else(finished)?;
        with_input(staged, |bytes| {
            crate::hashing::update_in_pieces(state, bytes);
            Ok(())
        })
    }

    /// The 32-byte digest; the hasher cannot be updated afterwards.
    pub fn digest(&mut self) -> Result<Vec<u8>, JsValue> {
        self.state.take().map(|s| s.finalize().to_vec()).ok_or_else(finished)
    }
}

fn finished() -> JsValue {
    error::binding("hasherFinished", None, &[])
}

/// One-shot SHA-256 of the `staged` bytes.
#[wasm_bindgen(js_name = sha256)]
pub fn sha256(staged: usize) -> Result<Vec<u8>, JsValue> {
    with_input(staged, |bytes| Ok(crate::hashing::sha256(bytes).to_vec()))
}
