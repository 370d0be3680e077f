//! The wasm module's global allocator: small, because it ships in every page.
//!
//! std's default on wasm32 is dlmalloc, ≈ 6 KiB of the module's code (1/16 of
//! it) for a program whose allocations are few and simple: a handful of large
//! buffers (filter bits, snapshot and staging bytes, from 64 KiB to GiBs)
//! and short-lived small ones (headers, error fields, serde results). So:
//!
//! - **Small** (up to 32 KiB, after rounding up to a power of two ≥ 16): one
//!   free list per size class. `dealloc` receives the layout, so a block
//!   needs no header. An empty class is refilled from a 64 KiB arena page.
//! - **Large** (above 32 KiB): whole 64 KiB pages. Free runs of pages are kept
//!   in address order and merged with their neighbours, and an allocation
//!   takes the first run that fits (splitting it); when none does, memory
//!   grows — by less when the highest free run already ends at the top.
//! - **Zeroed**: pages that come straight from `memory.grow` are already
//!   zero, so a fresh large zeroed allocation (a filter's bits) is not
//!   written twice; reused memory is cleared.
//!
//! Memory never shrinks (wasm cannot give it back), as with dlmalloc. A
//! failed `memory.grow` is a null pointer, which the core's fallible
//! allocations (`fallible.rs`, `try_reserve`) turn into `outOfMemory`.
//! wasm32 without threads runs one call at a time, so there is no locking.
#![allow(unsafe_code)] // an allocator is raw memory by definition; SAFETY comments below

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr::{self, null_mut};

const PAGE: usize = 65536;
/// The smallest class: room for a free list's next pointer, and 16-byte
/// alignment for any type.
const MIN_CLASS_BITS: u32 = 4;
/// Classes 16 B … 32 KiB; anything larger takes whole pages.
const MAX_CLASS_BITS: u32 = 15;
const CLASSES: usize = (MAX_CLASS_BITS - MIN_CLASS_BITS + 1) as usize;

/// A free run of pages; it lives in its own first bytes.
struct Run {
    pages: usize,
    next: *mut Run,
}

struct State {
    /// Per class, the first free block (its first word is the next one).
    free: [*mut u8; CLASSES],
    /// The small classes' arena: the next free byte and the end of its page.
    arena: usize,
    arena_end: usize,
    /// Free page runs, in address order.
    runs: *mut Run,
}

pub struct Allocator(UnsafeCell<State>);

// SAFETY: wasm32 without the atomics feature has one thread; nothing can call
// the allocator while it runs (it calls nothing that allocates).
unsafe impl Sync for Allocator {}

#[global_allocator]
static ALLOCATOR: Allocator =
    Allocator(UnsafeCell::new(State { free: [null_mut(); CLASSES], arena: 0, arena_end: 0, runs: null_mut() }));

/// The class of a small layout (index into `free`), or None for pages.
fn class_of(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS_BITS);
    let bits = usize::BITS - (size - 1).leading_zeros();
    (bits <= MAX_CLASS_BITS).then(|| (bits - MIN_CLASS_BITS) as usize)
}

fn pages_for(size: usize) -> Option<usize> {
    size.checked_add(PAGE - 1).map(|rounded| rounded / PAGE)
}

impl State {
    /// `pages` whole pages and whether they are fresh (still zero), or None.
    ///
    /// SAFETY (for callers): single-threaded use of the one `State`.
    unsafe fn take_pages(&mut self, pages: usize) -> Option<(usize, bool)> {
        let mut link: *mut *mut Run = &mut self.runs;
        let mut last: *mut Run = null_mut();
        // SAFETY: every run in the list is a free region this allocator owns,
        // at least one page long, so its header is valid memory.
        unsafe {
            while !(*link).is_null() {
                let run = *link;
                if (*run).pages >= pages {
                    let rest = (*run).pages - pages;
                    if rest == 0 {
                        *link = (*run).next;
                    } else {
                        // Keep the low part in the list; hand out the top.
                        (*run).pages = rest;
                    }
                    return Some((run as usize + rest * PAGE, false));
                }
                last = run;
                link = &mut (*run).next;
            }
            let top = wasm32::memory_size(0) * PAGE;
            // The highest free run ends at the top: grow by the difference.
            if !last.is_null() && last as usize + (*last).pages * PAGE == top {
                let missing = pages - (*last).pages;
                if wasm32::memory_grow(0, missing) == usize::MAX {
                    return None;
                }
                let start = last as usize;
                self.unlink(last);
                return Some((start, false));
            }
            let previous = wasm32::memory_grow(0, pages);
            if previous == usize::MAX {
                return None;
            }
            Some((previous * PAGE, true))
        }
    }

    /// SAFETY (for callers): `run` is in the list.
    unsafe fn unlink(&mut self, run: *mut Run) {
        let mut link: *mut *mut Run = &mut self.runs;
        // SAFETY: the list's runs are valid headers (see take_pages).
        unsafe {
            while *link != run {
                link = &mut (**link).next;
            }
            *link = (*run).next;
        }
    }

    /// Returns `pages` pages at `start` to the list, merged with neighbours.
    ///
    /// SAFETY (for callers): the pages were handed out by `take_pages` and
    /// are no longer used.
    unsafe fn give_pages(&mut self, start: usize, pages: usize) {
        let mut previous: *mut Run = null_mut();
        let mut next = self.runs;
        // SAFETY: list runs are valid headers; `start` is owned by us now.
        unsafe {
            while !next.is_null() && (next as usize) < start {
                previous = next;
                next = (*next).next;
            }
            let run = start as *mut Run;
            ptr::write(run, Run { pages, next });
            if !next.is_null() && start + pages * PAGE == next as usize {
                (*run).pages += (*next).pages;
                (*run).next = (*next).next;
            }
            if previous.is_null() {
                self.runs = run;
            } else if previous as usize + (*previous).pages * PAGE == start {
                (*previous).pages += (*run).pages;
                (*previous).next = (*run).next;
            } else {
                (*previous).next = run;
            }
        }
    }

    /// SAFETY (for callers): single-threaded use of the one `State`.
    unsafe fn small(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block's first word is the next free block.
            self.free[class] = unsafe { *(head as *mut *mut u8) };
            return head;
        }
        let size = 1usize << (class as u32 + MIN_CLASS_BITS);
        // Blocks are carved at multiples of their size, so aligned to it.
        let start = (self.arena + size - 1) & !(size - 1);
        if self.arena == 0 || start + size > self.arena_end {
            // SAFETY: single-threaded (the caller's contract).
            let Some((page, _)) = (unsafe { self.take_pages(1) }) else {
                return null_mut();
            };
            self.arena = page + size;
            self.arena_end = page + PAGE;
            return page as *mut u8;
        }
        self.arena = start + size;
        start as *mut u8
    }
}

impl Allocator {
    /// SAFETY (for callers): not reentrant; see `impl Sync`.
    #[allow(clippy::mut_from_ref)]
    unsafe fn state(&self) -> &mut State {
        // SAFETY: one thread, and no allocator method calls another while it
        // holds the reference.
        unsafe { &mut *self.0.get() }
    }

    #[inline(never)]
    unsafe fn allocate(&self, layout: Layout, zeroed: bool) -> *mut u8 {
        // SAFETY: single-threaded; see `impl Sync`.
        let state = unsafe { self.state() };
        if let Some(class) = class_of(&layout) {
            // SAFETY: as above.
            let block = unsafe { state.small(class) };
            if zeroed && !block.is_null() {
                // SAFETY: the block is ours and at least `size` bytes long.
                unsafe { ptr::write_bytes(block, 0, layout.size()) };
            }
            return block;
        }
        if layout.align() > PAGE {
            return null_mut();
        }
        let Some(pages) = pages_for(layout.size()) else {
            return null_mut();
        };
        // SAFETY: single-threaded; see `impl Sync`.
        match unsafe { state.take_pages(pages) } {
            None => null_mut(),
            Some((start, fresh)) => {
                if zeroed && !fresh {
                    // SAFETY: the pages are ours.
                    unsafe { ptr::write_bytes(start as *mut u8, 0, layout.size()) };
                }
                start as *mut u8
            }
        }
    }
}

// SAFETY: blocks are never handed out twice (free lists and runs hold only
// freed memory), are aligned as asked (classes are carved at multiples of
// their size ≥ the alignment; pages are 64 KiB-aligned, and larger alignments
// are refused), and are at least `layout.size()` bytes long.
//
// Not inlined: with LTO every drop and allocation site would get its own copy
// (measured: +9 KiB of code, more than dlmalloc itself).
unsafe impl GlobalAlloc for Allocator {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        unsafe { self.allocate(layout, false) }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        unsafe { self.allocate(layout, true) }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: single-threaded; `block` came from `alloc` with `layout`.
        unsafe {
            let state = self.state();
            match class_of(&layout) {
                Some(class) => {
                    *(block as *mut *mut u8) = state.free[class];
                    state.free[class] = block;
                }
                None => {
                    if let Some(pages) = pages_for(layout.size()) {
                        state.give_pages(block as usize, pages);
                    }
                }
            }
        }
    }
}
