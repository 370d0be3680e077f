//! Every JS error the raw layer throws is made here (one place, one style):
//! a real `Error`/`RangeError` whose message says what was expected and what
//! came, plus a machine-readable `code` property for coded failures.
//!
//! Messages built from numbers are formatted into a fixed buffer on the
//! stack, not a heap `String`: an `outOfMemory` error must be reportable
//! when the allocator has nothing left to give.

use core::fmt::{self, Write};

use crate::fallible::OutOfMemory;
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

/// [`coded`] with a message that `write` formats, without a heap allocation.
pub fn coded_with(code: &str, write: impl FnOnce(&mut dyn Write) -> fmt::Result) -> JsValue {
    let mut text = StackText::new();
    // StackText never fails; it truncates a message longer than its buffer.
    let _ = write(&mut text);
    coded(code, text.as_str())
}

/// An allocation of `requested_bytes` the allocator refused, for `purpose`
/// ("to copy the input into wasm memory", …).
pub fn out_of_memory(error: OutOfMemory, purpose: &str) -> JsValue {
    coded_with(OutOfMemory::CODE, |out| {
        write!(
            out,
            "could not reserve {} bytes {purpose}: WebAssembly memory grows to 4 GiB at most \
             and never shrinks (free() filters that are no longer needed)",
            error.requested_bytes
        )
    })
}

/// A `RangeError` for a value of the right type but the wrong size.
pub fn range(message: &str) -> JsValue {
    RangeError::new(message).into()
}

/// A digest that is not 32 bytes at query time.
pub fn digest_length(parameter: &str, length: usize) -> JsValue {
    range(&format!("{parameter} must be a 32-byte SHA-256 digest, got {length} bytes"))
}

/// A packed batch whose length is not a whole number of 32-byte records.
pub fn packed_length(parameter: &str, length: usize) -> JsValue {
    range(&format!(
        "{parameter} must hold whole 32-byte digests (a length that is a multiple of 32), got {length} bytes"
    ))
}

/// Bytes of the longest message [`coded_with`] keeps (the longest the crate
/// writes is about 250).
const MESSAGE_CAPACITY: usize = 512;

/// A message formatted into a fixed stack buffer, cut at a character
/// boundary if it is too long.
struct StackText {
    bytes: [u8; MESSAGE_CAPACITY],
    len: usize,
}

impl StackText {
    fn new() -> Self {
        StackText { bytes: [0; MESSAGE_CAPACITY], len: 0 }
    }

    fn as_str(&self) -> &str {
        // Only whole UTF-8 characters are ever appended (see write_str).
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for StackText {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let room = MESSAGE_CAPACITY - self.len;
        let mut take = text.len().min(room);
        while !text.is_char_boundary(take) {
            take -= 1;
        }
        if let (Some(slot), Some(part)) = (self.bytes.get_mut(self.len..self.len + take), text.as_bytes().get(..take)) {
            slot.copy_from_slice(part);
            self.len += take;
        }
        Ok(())
    }
}
