//! The three JavaScript built-ins the bindings use (plain objects,
//! `Reflect.set`, `Uint8Array` copies), imported directly. js-sys would
//! bring the same and, linked whether used or not, its futures executor and
//! closure shims (≈ 4 KiB of the module before wasm-opt).

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A plain JS object (`{}`).
    pub type Object;

    #[wasm_bindgen(constructor)]
    pub fn new() -> Object;

    #[wasm_bindgen(js_namespace = Reflect, js_name = set, catch)]
    fn reflect_set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<bool, JsValue>;

    /// A JS `Uint8Array`.
    pub type Uint8Array;

    /// `new Uint8Array(view)`: the glue passes a view of wasm memory, and
    /// the constructor copies it.
    #[wasm_bindgen(constructor)]
    fn new_copy(bytes: &[u8]) -> Uint8Array;
}

/// `Reflect`, as js-sys names it.
pub struct Reflect;

impl Reflect {
    /// `Reflect.set(target, key, value)`: false (or a throw) only for a
    /// frozen or proxied target.
    pub fn set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<bool, JsValue> {
        reflect_set(target, key, value)
    }
}

impl Uint8Array {
    /// A JS copy of `bytes`.
    pub fn copy_of(bytes: &[u8]) -> Uint8Array {
        Uint8Array::new_copy(bytes)
    }
}
