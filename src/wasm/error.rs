//! Every JS error the raw layer throws is made here (one place, one style):
//! a real `Error`/`RangeError` whose message says what was expected and what
//! came, plus a machine-readable `code` property for coded failures.

use js_sys::{Error, RangeError, Reflect};
use wasm_bindgen::JsValue;

/// An `Error` with `name` and `code` set; the JS layer turns the code into a
/// `{ kind: "failure", error: code, message }` result.
pub fn coded(code: &str, message: &str) -> JsValue {
    let error = Error::new(message);
    error.set_name("ArtifactBloomError");
    // Reflect::set only fails on frozen or proxied objects; a fresh Error is neither.
    let _ = Reflect::set(&error, &JsValue::from_str("code"), &JsValue::from_str(code));
    error.into()
}

/// A `RangeError` for a value of the right type but the wrong size.
pub fn range(message: &str) -> JsValue {
    RangeError::new(message).into()
}

/// A digest that is not 32 bytes at query time.
pub fn digest_length(parameter: &str, length: usize) -> JsValue {
    range(&format!(
        "{parameter} must be a 32-byte SHA-256 digest, got {length} bytes"
    ))
}

/// A packed batch whose length is not a whole number of 32-byte records.
pub fn packed_length(parameter: &str, length: usize) -> JsValue {
    range(&format!(
        "{parameter} must hold whole 32-byte digests (a length that is a multiple of 32), got {length} bytes"
    ))
}
