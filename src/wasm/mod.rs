//! The one binding module: everything that touches `wasm_bindgen`/`js_sys`.
//!
//! These classes are the package's *raw* layer. The public JavaScript API in
//! `pkg-template/lib/` wraps them: it validates JavaScript values (types,
//! lengths, detached buffers) and shapes results as the reference does
//! (`{ kind: "success", value }`). The raw layer still re-checks every length
//! it receives and never panics: failures come back as JS `Error`s built in
//! [`error`].

mod checksum;
mod error;
mod filter;
mod hashing;
mod snapshot;
mod systems;

use wasm_bindgen::prelude::*;

/// The module's `WebAssembly.Memory` (the JS layer reports its size).
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}
