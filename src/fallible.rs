//! Fallible allocation for every buffer whose size a caller chooses.
//!
//! In WebAssembly the linear memory grows to 4 GiB at most and never shrinks.
//! When it cannot grow, the allocator returns null, and an infallible
//! allocation (`vec![0; n]`, `Vec::with_capacity`, `push` past capacity)
//! calls `handle_alloc_error`, which aborts: a `RuntimeError: unreachable`
//! trap in JavaScript that can leave wasm-bindgen objects marked as borrowed
//! for good. So the bit arrays, payload buffers, input copies and encoded
//! outputs of this crate are reserved here, and a refusal comes back as
//! [`OutOfMemory`], which every error enum of the crate can carry.
//!
//! Headroom, two ways. The allocations made here are marked
//! ([`in_fallible_allocation`]): the wasm allocator's memory source
//! (`wasm::alloc`) stops growing memory for them a reserve short of the 4 GiB
//! limit, which stays for the infallible ones that follow (the box
//! wasm-bindgen makes for a returned object, the glue's argument copies, an
//! error's message): so the allocation that meets a full memory is a
//! fallible one, small or large. And after a successful reservation of
//! [`HEADROOM_BYTES`] or more, [`keep_headroom`] checks that that much again
//! could still be had.

use std::alloc::{alloc_zeroed, Layout};
use std::collections::TryReserveError;
use std::mem::size_of;
use std::sync::atomic::{AtomicU32, Ordering};

/// How many fallible allocations are in progress (nested: a reservation inside
/// a reservation's probe). Relaxed: wasm32 here has one thread.
static FALLIBLE_DEPTH: AtomicU32 = AtomicU32::new(0);

/// True while an allocation of this module is asking the allocator: one that
/// handles a refusal. The wasm memory source refuses such a request a reserve
/// before the limit, keeping that reserve for allocations that cannot fail
/// gracefully.
pub fn in_fallible_allocation() -> bool {
    FALLIBLE_DEPTH.load(Ordering::Relaxed) > 0
}

/// Runs `reserve` marked as a fallible allocation.
fn marked<R>(reserve: impl FnOnce() -> R) -> R {
    FALLIBLE_DEPTH.fetch_add(1, Ordering::Relaxed);
    let result = reserve();
    FALLIBLE_DEPTH.fetch_sub(1, Ordering::Relaxed);
    result
}

/// `values.try_reserve_exact(additional)`, marked as a fallible allocation:
/// every `try_reserve` of the crate goes through here.
pub fn try_reserve_exact<T>(values: &mut Vec<T>, additional: usize) -> Result<(), TryReserveError> {
    marked(|| values.try_reserve_exact(additional))
}

/// `values.try_reserve(additional)`, marked as a fallible allocation.
pub fn try_reserve<T>(values: &mut Vec<T>, additional: usize) -> Result<(), TryReserveError> {
    marked(|| values.try_reserve(additional))
}

/// What a large reservation must leave free besides itself.
pub const HEADROOM_BYTES: usize = 64 * 1024;

/// A reservation the allocator refused: `requested_bytes` could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    pub requested_bytes: u64,
}

impl OutOfMemory {
    /// The JS error code of every allocation failure.
    pub const CODE: &'static str = "outOfMemory";

    /// The failure to reserve `count` values of `T`.
    pub fn of<T>(count: usize) -> Self {
        OutOfMemory { requested_bytes: (count as u64).saturating_mul(size_of::<T>() as u64) }
    }

    pub fn code(self) -> &'static str {
        Self::CODE
    }
}

impl crate::error::Coded for OutOfMemory {
    fn code(&self) -> &'static str {
        Self::CODE
    }

    fn domain(&self) -> &'static str {
        "memory"
    }

    fn fields(&self, out: &mut dyn crate::error::Fields) {
        out.integer("requested", self.requested_bytes);
    }
}

crate::error::display_coded!(OutOfMemory);

/// An empty vector with room for exactly `count` values (no later push up to
/// `count` reallocates).
pub fn with_capacity<T>(count: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut values = Vec::new();
    try_reserve_exact(&mut values, count).map_err(|_| OutOfMemory::of::<T>(count))?;
    keep_headroom(count.saturating_mul(size_of::<T>()))?;
    Ok(values)
}

/// A copy of `values` in a vector of exactly their length.
pub fn copy_of<T: Copy>(values: &[T]) -> Result<Vec<T>, OutOfMemory> {
    let mut copy = with_capacity(values.len())?;
    copy.extend_from_slice(values);
    Ok(copy)
}

/// `count` zero words, allocated the way `vec![0u64; count]` does (zeroed
/// memory straight from the allocator) but with the null check that `vec!`
/// turns into an abort.
#[allow(unsafe_code)] // the one exception to the crate's deny(unsafe_code); SAFETY comments below
pub fn zeroed_words(count: usize) -> Result<Vec<u64>, OutOfMemory> {
    let refused = OutOfMemory::of::<u64>(count);
    let layout = Layout::array::<u64>(count).map_err(|_| refused)?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout has a non-zero size, as `alloc_zeroed` requires.
    let pointer = marked(|| unsafe { alloc_zeroed(layout) }).cast::<u64>();
    if pointer.is_null() {
        return Err(refused);
    }
    // SAFETY: `pointer` comes from the global allocator with exactly the
    // layout of `count` u64s (size and alignment), so a Vec of capacity
    // `count` may own it; all-zero bytes are a valid u64, so all `count`
    // elements are initialized.
    let words = unsafe { Vec::from_raw_parts(pointer, count, count) };
    keep_headroom(layout.size())?;
    Ok(words)
}

/// After a reservation of `reserved_bytes`, checks that [`HEADROOM_BYTES`]
/// more could still be had; if not, the caller drops what it reserved and
/// reports the request as refused.
fn keep_headroom(reserved_bytes: usize) -> Result<(), OutOfMemory> {
    if reserved_bytes < HEADROOM_BYTES {
        return Ok(());
    }
    // Dropped at once: only whether it could be had matters.
    let mut probe: Vec<u8> = Vec::new();
    try_reserve_exact(&mut probe, HEADROOM_BYTES).map_err(|_| OutOfMemory { requested_bytes: reserved_bytes as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_succeed_and_are_exact() {
        let words = zeroed_words(1000).unwrap();
        assert_eq!(words.len(), 1000);
        assert!(words.iter().all(|w| *w == 0));
        assert!(zeroed_words(0).unwrap().is_empty());
        let bytes: Vec<u8> = with_capacity(HEADROOM_BYTES * 2).unwrap();
        assert!(bytes.is_empty() && bytes.capacity() >= HEADROOM_BYTES * 2);
        assert_eq!(copy_of(&[1u32, 2, 3]).unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn impossible_sizes_are_refused_not_aborted() {
        // More than the address space: the allocator is never even asked.
        let refused = zeroed_words(usize::MAX / 4).unwrap_err();
        assert_eq!(refused.requested_bytes, ((usize::MAX / 4) as u64).saturating_mul(8));
        assert!(with_capacity::<u64>(usize::MAX / 2).is_err());
        let text = refused.to_string();
        assert!(text.starts_with("outOfMemory (requested "), "{text}");
    }
}
