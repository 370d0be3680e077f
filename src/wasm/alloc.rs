//! The wasm module's global allocator: `page_alloc::Heap` (small, tested on the
//! host) over wasm's linear memory. wasm32 without threads runs one call at a
//! time, so there is no locking.
#![allow(unsafe_code)] // a global allocator is raw memory by definition; SAFETY comments below

use crate::page_alloc::{Heap, PageSource, PAGE};
use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;

/// Memory 0, the module's linear memory.
struct LinearMemory;

// SAFETY: `memory.grow` appends zeroed pages at the top and returns the old
// size (or usize::MAX, mapped to None); addresses are byte offsets from 0.
// Nothing else in the module grows memory 0, and pages that JS might add are
// never handed out (they lie above a top the heap has seen), so the pages the
// heap grows are its own.
unsafe impl PageSource for LinearMemory {
    fn pages(&self) -> usize {
        wasm32::memory_size(0)
    }
    fn grow(&mut self, pages: usize) -> Option<usize> {
        let previous = wasm32::memory_grow(0, pages);
        (previous != usize::MAX).then_some(previous)
    }
    fn page(&self, index: usize) -> *mut u8 {
        (index * PAGE) as *mut u8
    }
}

pub struct Allocator(UnsafeCell<Heap<LinearMemory>>);

// SAFETY: wasm32 without the atomics feature has one thread; nothing can call
// the allocator while it runs (it calls nothing that allocates).
unsafe impl Sync for Allocator {}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator(UnsafeCell::new(Heap::new(LinearMemory)));

impl Allocator {
    /// SAFETY (for callers): not reentrant; see `impl Sync`.
    #[allow(clippy::mut_from_ref)]
    unsafe fn heap(&self) -> &mut Heap<LinearMemory> {
        // SAFETY: one thread, and each GlobalAlloc method below holds the
        // reference only for its one call into the heap, which allocates
        // nothing through the global allocator.
        unsafe { &mut *self.0.get() }
    }
}

// SAFETY: `Heap` never hands a block out twice (free lists and runs hold only
// freed memory), aligns it as asked (classes are carved at multiples of their
// size ≥ the alignment; pages are 64 KiB-aligned, and larger alignments are
// refused) and makes it at least `layout.size()` bytes long.
//
// Not inlined: with LTO every drop and allocation site would get its own copy
// (measured: +9 KiB of code, more than dlmalloc itself).
unsafe impl GlobalAlloc for Allocator {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded; see `impl Sync`.
        unsafe { self.heap() }.allocate(layout, false)
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded; see `impl Sync`.
        unsafe { self.heap() }.allocate(layout, true)
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: single-threaded; GlobalAlloc's contract: `block` came from
        // `alloc` with `layout`.
        unsafe { self.heap().deallocate(block, layout) }
    }

    #[inline(never)]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: single-threaded; GlobalAlloc's contract, as for `dealloc`.
        unsafe { self.heap().reallocate(block, layout, new_size) }
    }
}
