//! The one adapter from the core's errors to JS errors.
//!
//! A [`Coded`] error crosses as its domain, code and fields (a plain object:
//! numbers, words, byte arrays, nested coded errors); `codedError` in
//! `pkg-template/lib/core/errors.js` builds the `Error` (or `RangeError`) and its
//! message ("expected X, got Y") from them. So the wasm holds no message
//! text and formats nothing: no `core::fmt` call site of the crate is
//! linked, and an `outOfMemory` error needs no heap allocation in wasm to be
//! reported (every value goes to JS as it is).
//!
//! The import path is the crate-root path of errors.js; `scripts/build.mjs`
//! points the generated glue at the package's own `lib/core/errors.js`.

use crate::error::{Coded, Fields, Value};
use crate::fallible::OutOfMemory;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/pkg-template/lib/core/errors.js")]
extern "C" {
    /// The JS error for `code` of `domain` with `fields` (see errors.js).
    #[wasm_bindgen(js_name = codedError)]
    fn coded_error(domain: &str, code: &str, fields: &Object) -> JsValue;
}

/// The JS `Error` (with `code` and the fields as properties) for `error`.
pub fn coded(error: &dyn Coded) -> JsValue {
    coded_error(error.domain(), error.code(), &fields_of(error))
}

/// `error`'s fields as a plain object (nested errors as `{ domain, code, … }`).
fn fields_of(error: &dyn Coded) -> Object {
    let mut object = FieldObject { object: Object::new() };
    error.fields(&mut object);
    object.object
}

struct FieldObject {
    object: Object,
}

impl FieldObject {
    fn set(&self, name: &str, value: &JsValue) {
        // Reflect::set only fails on frozen or proxied objects; this one is fresh.
        let _ = Reflect::set(&self.object, &JsValue::from_str(name), value);
    }
}

/// Above 2^53 − 1 a count would be rounded as a JS number; it goes as a BigInt.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

impl Fields for FieldObject {
    fn value(&mut self, name: &'static str, value: Value) {
        let js = match value {
            Value::Integer(n) if n <= MAX_SAFE_INTEGER => JsValue::from_f64(n as f64),
            Value::Integer(n) => JsValue::from(n),
            Value::Number(x) => JsValue::from_f64(x),
            Value::Word(word) => JsValue::from_str(word),
            Value::Bytes4(bytes) => Uint8Array::from(&bytes[..]).into(),
        };
        self.set(name, &js);
    }

    fn inner(&mut self, name: &'static str, error: &dyn Coded) {
        let nested = fields_of(error);
        let inner = FieldObject { object: nested };
        inner.set("domain", &JsValue::from_str(error.domain()));
        inner.set("code", &JsValue::from_str(error.code()));
        self.set(name, &inner.object.into());
    }
}

/// A failure of the binding itself (not of the core): `code` of the
/// "binding" domain, with at most one word field and a few numbers.
pub fn binding(
    code: &'static str,
    word: Option<(&'static str, &'static str)>,
    numbers: &[(&'static str, f64)],
) -> JsValue {
    let fields = FieldObject { object: Object::new() };
    if let Some((name, value)) = word {
        fields.set(name, &JsValue::from_str(value));
    }
    for &(name, value) in numbers {
        fields.set(name, &JsValue::from_f64(value));
    }
    coded_error("binding", code, &fields.object)
}

/// An allocation of `requested_bytes` the allocator refused, for `purpose`
/// ("to copy the input into wasm memory", …).
pub fn out_of_memory(error: OutOfMemory, purpose: &'static str) -> JsValue {
    binding(OutOfMemory::CODE, Some(("purpose", purpose)), &[("requested", error.requested_bytes as f64)])
}

/// A digest that is not 32 bytes at query time (a `RangeError`).
pub fn digest_length(parameter: &'static str, length: usize) -> JsValue {
    binding("digestLength", Some(("parameter", parameter)), &[("got", length as f64)])
}

/// A packed batch whose length is not a whole number of 32-byte records (a
/// `RangeError`).
pub fn packed_length(parameter: &'static str, length: usize) -> JsValue {
    binding("packedLength", Some(("parameter", parameter)), &[("got", length as f64)])
}
