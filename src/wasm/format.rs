//! Format constants the JavaScript layer needs as numbers. JavaScript asks
//! for them here instead of restating them, so a format rule lives in Rust
//! only.

use wasm_bindgen::prelude::*;

use crate::abf1;

/// Length of the fixed ABF1 header in bytes (the JS `ABF1_HEADER_LENGTH`).
#[wasm_bindgen(js_name = abf1HeaderLength)]
pub fn abf1_header_length() -> u32 {
    const LENGTH: u32 = abf1::HEADER_LENGTH as u32;
    LENGTH
}

/// An ABF1 header as a plain JS object, from the core's one list of its
/// fields ([`abf1::Header::fields`]). Built by hand rather than with
/// serde-wasm-bindgen, whose string cache links a hash map into the wasm.
pub(super) fn header_object(header: &abf1::Header) -> JsValue {
    object_of(&mut |out| header.fields(out))
}

/// An ABD1 header as a plain JS object, its target's header nested.
#[cfg(feature = "artifact")]
pub(super) fn delta_header_object(header: &crate::delta::DeltaHeader) -> JsValue {
    object_of(&mut |out| header.fields(out))
}

fn object_of(fields: &mut dyn FnMut(abf1::FieldSink<'_>)) -> JsValue {
    let object = js_sys::Object::new();
    fields(&mut |name, value| {
        let js = match value {
            // Counts of a valid header are at most 2^53 − 1: exact as numbers.
            abf1::FieldValue::Integer(n) => JsValue::from_f64(n as f64),
            abf1::FieldValue::Number(x) => JsValue::from_f64(x),
            abf1::FieldValue::Sha256(bytes) => JsValue::from_str(&abf1::to_hex(bytes)),
            abf1::FieldValue::Header(inner) => header_object(inner),
        };
        // Reflect::set only fails on frozen or proxied objects; this one is fresh.
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), &js);
    });
    object.into()
}
