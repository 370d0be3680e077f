//! The wasm module's allocator, generic over where its pages come from, so the
//! same code runs on wasm32 (`src/wasm/alloc.rs`: linear memory) and in host
//! tests (`tests/page_alloc.rs`: a capped buffer).
//!
//! Small, because it ships in every page: std's default on wasm32 is
//! dlmalloc, ≈ 6 KiB of the module's code (1/16 of it) for a program whose
//! allocations are few and simple: a handful of large buffers (filter bits,
//! snapshot and staging bytes, from 64 KiB to GiBs) and short-lived small ones
//! (headers, error fields, serde results). So:
//!
//! - **Small** (up to 32 KiB, after rounding up to a power of two ≥ 16): one
//!   free list per size class. `deallocate` receives the layout, so a block
//!   needs no header. An empty class is refilled from a 64 KiB arena page.
//! - **Large** (above 32 KiB): whole 64 KiB pages. Free runs of pages are kept
//!   in address order and merged with their neighbours, and an allocation
//!   takes the first run that fits (splitting it); when none does, memory
//!   grows — by less when the highest free run already ends at the top.
//! - **Zeroed**: pages that come straight from [`PageSource::grow`] are
//!   already zero, so a fresh large zeroed allocation (a filter's bits) is not
//!   written twice; reused memory is cleared.
//!
//! Memory never shrinks (wasm cannot give it back), as with dlmalloc. A
//! failed grow is a null pointer, which the core's fallible allocations
//! (`fallible.rs`, `try_reserve`) turn into `outOfMemory`.
#![allow(unsafe_code)] // an allocator is raw memory by definition; SAFETY comments below

use core::alloc::Layout;
use core::ptr::{self, null_mut};

/// The unit of growth: one wasm page.
pub const PAGE: usize = 65536;
/// The smallest class: room for a free list's next pointer, and 16-byte
/// alignment for any type.
const MIN_CLASS_BITS: u32 = 4;
/// Classes 16 B … 32 KiB; anything larger takes whole pages.
const MAX_CLASS_BITS: u32 = 15;
const CLASSES: usize = (MAX_CLASS_BITS - MIN_CLASS_BITS + 1) as usize;

/// A memory that grows by whole pages at its top, such as wasm's linear memory.
///
/// # Safety
///
/// Implementations promise that the pages `grow` adds are the next indices
/// (`previous .. previous + pages`, where `previous` is its return value and
/// equals `pages()` before the call), that they read as zero, that only the
/// heap owning this source ever touches them, and that `page(i)` points at
/// page `i`, aligned to [`PAGE`], with provenance over every grown page, for
/// `i` up to and including `pages()` (the top is only compared, never read).
pub unsafe trait PageSource {
    /// The memory's size in pages.
    fn pages(&self) -> usize;
    /// Adds `pages` pages at the top: the previous size, or None when the
    /// memory cannot grow (it is then unchanged).
    fn grow(&mut self, pages: usize) -> Option<usize>;
    /// The first byte of page `index`.
    fn page(&self, index: usize) -> *mut u8;
}

/// A free run of pages; it lives in its own first bytes.
struct Run {
    pages: usize,
    next: *mut Run,
}

/// The allocator's state. It takes `&mut self`, so callers that share it
/// (a `#[global_allocator]`) must rule out reentrancy and threads themselves.
pub struct Heap<S> {
    /// Per class, the first free block (its first word is the next one).
    free: [*mut u8; CLASSES],
    /// The small classes' arena: the next free byte and the end of its page.
    arena: *mut u8,
    arena_end: *mut u8,
    /// Free page runs, in address order.
    runs: *mut Run,
    source: S,
}

/// The class of a small layout (index into `free`), or None for pages.
fn class_of(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS_BITS);
    let bits = usize::BITS - (size - 1).leading_zeros();
    (bits <= MAX_CLASS_BITS).then(|| (bits - MIN_CLASS_BITS) as usize)
}

/// Whole pages for `size` bytes; at least one, so that a zero-sized request
/// aligned beyond the classes still owns its address (GlobalAlloc never asks
/// for zero bytes, but the heap's own API allows it).
fn pages_for(size: usize) -> Option<usize> {
    size.max(1).checked_add(PAGE - 1).map(|rounded| rounded / PAGE)
}

/// The byte after a run: where a following neighbour would start.
///
/// SAFETY (for callers): `run` is a valid run header.
unsafe fn end_of(run: *mut Run) -> *mut u8 {
    // SAFETY: the caller's contract. Wrapping: the top of a full 4 GiB wasm
    // memory is address 0, as in plain integer arithmetic.
    unsafe { run.cast::<u8>().wrapping_add((*run).pages * PAGE) }
}

impl<S: PageSource> Heap<S> {
    pub const fn new(source: S) -> Self {
        Heap { free: [null_mut(); CLASSES], arena: null_mut(), arena_end: null_mut(), runs: null_mut(), source }
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    /// `pages` whole pages and whether they are fresh (still zero), or None.
    fn take_pages(&mut self, pages: usize) -> Option<(*mut u8, bool)> {
        let mut link: *mut *mut Run = &mut self.runs;
        let mut last: *mut Run = null_mut();
        // SAFETY: every run in the list is a free region this heap owns (the
        // source's grown pages, given back by `deallocate`), at least one page
        // long, so its header is valid memory.
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
                    return Some((run.cast::<u8>().wrapping_add(rest * PAGE), false));
                }
                last = run;
                link = &mut (*run).next;
            }
            let top = self.source.page(self.source.pages());
            // The highest free run ends at the top: grow by the difference.
            if !last.is_null() && end_of(last) == top {
                let missing = pages - (*last).pages;
                self.source.grow(missing)?;
                self.unlink(last);
                return Some((last.cast::<u8>(), false));
            }
        }
        let previous = self.source.grow(pages)?;
        Some((self.source.page(previous), true))
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
    unsafe fn give_pages(&mut self, start: *mut u8, pages: usize) {
        let mut previous: *mut Run = null_mut();
        let mut next = self.runs;
        // SAFETY: list runs are valid headers; `start` is owned by us now and
        // page-aligned, so it can hold a header.
        unsafe {
            while !next.is_null() && next.cast::<u8>() < start {
                previous = next;
                next = (*next).next;
            }
            let run = start.cast::<Run>();
            ptr::write(run, Run { pages, next });
            if !next.is_null() && end_of(run) == next.cast::<u8>() {
                (*run).pages += (*next).pages;
                (*run).next = (*next).next;
            }
            if previous.is_null() {
                self.runs = run;
            } else if end_of(previous) == start {
                (*previous).pages += (*run).pages;
                (*previous).next = (*run).next;
            } else {
                (*previous).next = run;
            }
        }
    }

    fn small(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block's first word is the next free block.
            self.free[class] = unsafe { *head.cast::<*mut u8>() };
            return head;
        }
        let size = 1usize << (class as u32 + MIN_CLASS_BITS);
        // Blocks are carved at multiples of their size, so aligned to it.
        let padding = (self.arena as usize).wrapping_neg() & (size - 1);
        let start = self.arena.wrapping_add(padding);
        if self.arena.is_null() || start as usize + size > self.arena_end as usize {
            let Some((page, _)) = self.take_pages(1) else {
                return null_mut();
            };
            self.arena = page.wrapping_add(size);
            self.arena_end = page.wrapping_add(PAGE);
            return page;
        }
        self.arena = start.wrapping_add(size);
        start
    }

    /// A block of at least `layout.size()` bytes aligned to `layout.align()`
    /// (zero-filled if `zeroed`), or null when memory cannot grow or the
    /// alignment exceeds a page.
    #[inline(never)]
    pub fn allocate(&mut self, layout: Layout, zeroed: bool) -> *mut u8 {
        if let Some(class) = class_of(&layout) {
            let block = self.small(class);
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
        match self.take_pages(pages) {
            None => null_mut(),
            Some((start, fresh)) => {
                if zeroed && !fresh {
                    // SAFETY: the pages are ours.
                    unsafe { ptr::write_bytes(start, 0, layout.size()) };
                }
                start
            }
        }
    }

    /// Gives a block back.
    ///
    /// # Safety
    ///
    /// `block` came from this heap's `allocate` (or `reallocate`) with this
    /// `layout`, and is not used afterwards.
    #[inline(never)]
    pub unsafe fn deallocate(&mut self, block: *mut u8, layout: Layout) {
        match class_of(&layout) {
            Some(class) => {
                // SAFETY: the block is ours again, aligned to its class (≥ 16)
                // and at least a pointer long.
                unsafe { *block.cast::<*mut u8>() = self.free[class] };
                self.free[class] = block;
            }
            None => {
                if let Some(pages) = pages_for(layout.size()) {
                    // SAFETY: the caller's contract; large blocks are whole
                    // pages from take_pages.
                    unsafe { self.give_pages(block, pages) };
                }
            }
        }
    }

    /// A new block of `new_size` bytes holding the old one's first bytes, and
    /// the old block given back; or null, leaving the old block as it was.
    /// Always a copy, like `GlobalAlloc::realloc`'s default: the wasm core
    /// grows its few large buffers with `try_reserve`, rarely in place.
    ///
    /// # Safety
    ///
    /// As for `deallocate`, but `block` stays the caller's if the result is
    /// null.
    pub unsafe fn reallocate(&mut self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return null_mut();
        };
        let new_block = self.allocate(new_layout, false);
        if !new_block.is_null() {
            // SAFETY: both blocks are ours, live, distinct (the old one is not
            // free, so cannot be handed out again) and long enough.
            unsafe {
                ptr::copy_nonoverlapping(block, new_block, layout.size().min(new_size));
                self.deallocate(block, layout);
            }
        }
        new_block
    }

    /// The free page runs, lowest first, as (first byte, pages): for tests
    /// that check the list stays sorted and merged.
    pub fn free_runs(&self) -> impl Iterator<Item = (*const u8, usize)> + '_ {
        let mut run = self.runs;
        core::iter::from_fn(move || {
            if run.is_null() {
                return None;
            }
            // SAFETY: list runs are valid headers (see take_pages), and
            // `&self` keeps the list unchanged while the iterator lives.
            let (pages, next) = unsafe { ((*run).pages, (*run).next) };
            let item = (run.cast::<u8>().cast_const(), pages);
            run = next;
            Some(item)
        })
    }

    /// The free small blocks, class by class, as (first byte, block size).
    pub fn free_blocks(&self) -> impl Iterator<Item = (*const u8, usize)> + '_ {
        self.free.iter().enumerate().flat_map(|(class, &head)| {
            let size = 1usize << (class as u32 + MIN_CLASS_BITS);
            let mut block = head;
            core::iter::from_fn(move || {
                if block.is_null() {
                    return None;
                }
                let item = (block.cast_const(), size);
                // SAFETY: a free block's first word is the next free block;
                // `&self` keeps the lists unchanged.
                block = unsafe { *block.cast::<*mut u8>() };
                Some(item)
            })
        })
    }
}
