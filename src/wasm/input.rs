//! The one way bytes from JavaScript enter wasm memory.
//!
//! wasm-bindgen's glue copies a `&[u8]` argument with `__wbindgen_malloc`,
//! which aborts (`RuntimeError: unreachable`) when the memory cannot grow. So
//! raw methods never take a caller-sized slice: the JS layer asks
//! [`input_buffer`] for room (a coded `outOfMemory` error if there is none),
//! copies the bytes into a view of wasm memory at the address it returns,
//! and then calls the raw method with the length; the method reads them
//! through [`with_input`].
//!
//! One buffer serves every call (wasm is single-threaded, and each raw call
//! uses the input staged just before it). Up to [`KEPT_BYTES`] it is kept
//! for the next call, so small items cost no allocation; a larger input's
//! buffer is freed as soon as the call that read it returns.

use std::cell::Cell;

use super::error;
use crate::fallible::{self, OutOfMemory};
use crate::layout::item_count_from_f64;
use wasm_bindgen::prelude::*;

/// The largest buffer kept between calls (a typical stream chunk fits).
const KEPT_BYTES: usize = 1 << 20;

thread_local! {
    /// Its length is the room for the next input (the bytes past what the
    /// last input used are stale and never read).
    static INPUT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Makes room for `length` bytes of input and returns their address in wasm
/// memory, or a coded `outOfMemory` error (a length that is not a safe
/// integer, or beyond wasm32's address space, is refused the same way).
#[wasm_bindgen(js_name = inputBuffer)]
pub fn input_buffer(length: f64) -> Result<usize, JsValue> {
    let requested = item_count_from_f64(length).unwrap_or(u64::MAX);
    INPUT.with(|cell| {
        let mut buffer = cell.take();
        let prepared = make_room(&mut buffer, requested);
        let address = buffer.as_ptr() as usize;
        cell.set(buffer);
        prepared.map(|()| address).map_err(|oom| error::out_of_memory(oom, "to copy the input into wasm memory"))
    })
}

fn make_room(buffer: &mut Vec<u8>, requested: u64) -> Result<(), OutOfMemory> {
    let length = usize::try_from(requested).map_err(|_| OutOfMemory { requested_bytes: requested })?;
    // Reused when it is big enough, unless a small input would keep a large
    // buffer alive (one whose call never came, e.g. the copy threw).
    if length <= buffer.len() && (length > KEPT_BYTES || buffer.capacity() <= KEPT_BYTES) {
        return Ok(());
    }
    // The old bytes need not survive: free them before asking for more.
    *buffer = Vec::new();
    let mut grown = fallible::with_capacity(length)?;
    // Within the reserved capacity: fills, never reallocates.
    grown.resize(length, 0);
    *buffer = grown;
    Ok(())
}

/// Runs `read` on the `length` bytes staged by the last [`input_buffer`]
/// call. A length beyond what was staged is a coded `inputNotStaged` error
/// (a bug in the JS layer, never a read of stale bytes past the buffer).
pub(crate) fn with_input<T>(length: usize, read: impl FnOnce(&[u8]) -> Result<T, JsValue>) -> Result<T, JsValue> {
    INPUT.with(|cell| {
        let mut buffer = cell.take();
        let result = match buffer.get(..length) {
            Some(bytes) => read(bytes),
            None => Err(error::binding(
                "inputNotStaged",
                None,
                &[("expected", length as f64), ("got", buffer.len() as f64)],
            )),
        };
        if buffer.capacity() > KEPT_BYTES {
            buffer = Vec::new();
        }
        cell.set(buffer);
        result
    })
}
