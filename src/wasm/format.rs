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
