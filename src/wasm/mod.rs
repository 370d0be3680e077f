//! The one binding module: everything that touches `wasm_bindgen`/`js_sys`.
//!
//! These classes are the package's *raw* layer. The public JavaScript API in
//! `pkg-template/lib/` wraps them: it validates JavaScript values (types,
//! lengths, detached buffers) and shapes results as the reference does
//! (`{ kind: "success", value }`). The raw layer still re-checks every length
//! it receives and never panics: failures come back as JS `Error`s built in
//! [`error`]. Caller-sized bytes enter wasm memory only through [`input`],
//! whose allocation is fallible (wasm-bindgen's own argument copy aborts).

mod alloc;
#[cfg(feature = "delta")]
mod builder;
#[cfg(feature = "delta")]
mod delta_apply;
#[cfg(feature = "delta")]
mod delta_encode;
#[cfg_attr(not(feature = "artifact"), allow(dead_code))]
mod error;
#[cfg(feature = "artifact")]
mod filter;
#[cfg(feature = "artifact")]
mod format;
#[cfg(feature = "artifact")]
mod hashing;
mod input;
#[cfg(feature = "artifact")]
mod keyed;
#[cfg(feature = "delta")]
mod keyed_build;
#[cfg(feature = "artifact")]
mod snapshot;
#[cfg(feature = "variants")]
mod variants;

use wasm_bindgen::prelude::*;

/// The module's `WebAssembly.Memory` (the JS layer reports its size).
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}
