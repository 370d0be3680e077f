//! A capped page source and a model of the live blocks, for `tests/page_alloc.rs`.
#![allow(dead_code)] // each test binary uses its own part

use artifact_bloom::page_alloc::{Heap, PageSource, PAGE};
use core::alloc::Layout;
use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;

/// The largest small class: bigger requests take whole pages.
pub const CLASS_LIMIT: usize = 32768;
/// Pages below the heap's first one, as wasm's static data and stack are:
/// filled with `SENTINEL`, which the heap must never touch.
const RESERVED: usize = 1;
const SENTINEL: u8 = 0xa5;

#[repr(C, align(65536))]
struct Page([u8; PAGE]);

/// A memory of `pages` pages that grows at its top up to `cap` pages, like a
/// wasm memory with a maximum. Its buffer is reserved once and never moves.
pub struct CappedMemory {
    /// Owns the storage (length 0, capacity `cap`); reached only through `base`.
    _buffer: Vec<Page>,
    base: *mut u8,
    pages: usize,
    cap: usize,
}

// SAFETY: grown pages are the next indices of one buffer that never moves,
// zeroed here, aligned by `Page`, and `base` (from `as_mut_ptr`) has
// provenance over the whole buffer; only the heap owning this source uses them.
unsafe impl PageSource for CappedMemory {
    fn pages(&self) -> usize {
        self.pages
    }

    fn grow(&mut self, pages: usize) -> Option<usize> {
        let grown = self.pages.checked_add(pages).filter(|&total| total <= self.cap)?;
        // SAFETY: pages `self.pages .. grown` lie inside the buffer (≤ cap).
        unsafe { std::ptr::write_bytes(self.page(self.pages), 0, pages * PAGE) };
        Some(std::mem::replace(&mut self.pages, grown))
    }

    fn page(&self, index: usize) -> *mut u8 {
        self.base.wrapping_add(index * PAGE)
    }
}

/// A heap over a `CappedMemory`, with the views the checks need.
pub struct TestHeap {
    pub heap: Heap<CappedMemory>,
}

impl TestHeap {
    /// `cap` pages in all, of which the first is reserved (not the heap's).
    pub fn new(cap: usize) -> Self {
        assert!(cap > RESERVED);
        let mut buffer = Vec::<Page>::with_capacity(cap);
        let base = buffer.as_mut_ptr().cast::<u8>();
        // SAFETY: the reserved pages lie inside the buffer.
        unsafe { std::ptr::write_bytes(base, SENTINEL, RESERVED * PAGE) };
        TestHeap { heap: Heap::new(CappedMemory { _buffer: buffer, base, pages: RESERVED, cap }) }
    }

    pub fn pages(&self) -> usize {
        self.heap.source().pages
    }

    pub fn cap(&self) -> usize {
        self.heap.source().cap
    }

    /// The heap's address range: its first page to the top.
    pub fn range(&self) -> (usize, usize) {
        let source = self.heap.source();
        (source.page(RESERVED) as usize, source.page(source.pages) as usize)
    }

    /// The free runs as (address, pages).
    pub fn runs(&self) -> Vec<(usize, usize)> {
        self.heap.free_runs().map(|(start, pages)| (start as usize, pages)).collect()
    }

    /// The first free block of a class, which the next request of it gets.
    pub fn class_head(&self, class_size: usize) -> Option<usize> {
        self.heap.free_blocks().find(|&(_, size)| size == class_size).map(|(block, _)| block as usize)
    }

    pub fn check_reserved_untouched(&self) {
        // SAFETY: the reserved pages lie inside the buffer and were written.
        let bytes = unsafe { std::slice::from_raw_parts(self.heap.source().base, RESERVED * PAGE) };
        assert!(bytes == vec![SENTINEL; RESERVED * PAGE], "the heap wrote below its first page");
    }
}

/// The class a small layout falls in (its block size), or None for pages.
pub fn class_size(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(16).next_power_of_two();
    (size <= CLASS_LIMIT).then_some(size)
}

/// What an allocation must do, read off the heap's state before it.
#[derive(Debug)]
pub enum Expected {
    /// A small class: its free list's head if any; memory grows by ≤ 1 page.
    Small { class_head: Option<usize>, runs_empty: bool },
    /// Pages at `block`, after growing memory by exactly `grow` pages.
    Pages { block: usize, grow: usize },
    /// Null, with memory and free runs unchanged.
    Fail,
}

/// The state an allocation is checked against.
pub struct Before {
    expected: Expected,
    pages: usize,
    runs: Vec<(usize, usize)>,
}

pub fn expect(heap: &TestHeap, layout: &Layout) -> Before {
    let runs = heap.runs();
    let expected = match class_size(layout) {
        Some(size) => Expected::Small { class_head: heap.class_head(size), runs_empty: runs.is_empty() },
        None if layout.align() > PAGE => Expected::Fail,
        None => expect_pages(heap, &runs, layout.size().max(1).div_ceil(PAGE)),
    };
    Before { expected, pages: heap.pages(), runs }
}

/// First fit, taking the top of the run; otherwise growth, by less when the
/// highest run ends at the top.
fn expect_pages(heap: &TestHeap, runs: &[(usize, usize)], need: usize) -> Expected {
    if let Some(&(start, pages)) = runs.iter().find(|&&(_, pages)| pages >= need) {
        return Expected::Pages { block: start + (pages - need) * PAGE, grow: 0 };
    }
    let top = heap.range().1;
    let (block, grow) = match runs.last() {
        Some(&(start, pages)) if start + pages * PAGE == top => (start, need - pages),
        _ => (top, need),
    };
    if heap.pages() + grow > heap.cap() {
        Expected::Fail
    } else {
        Expected::Pages { block, grow }
    }
}

/// Checks an allocation's (or reallocation's) result against `before`.
pub fn verify(heap: &TestHeap, before: Before, block: *mut u8, layout: &Layout, context: &str) {
    let grown = heap.pages() - before.pages;
    match before.expected {
        Expected::Fail => {
            assert!(block.is_null(), "{context}: {layout:?} must fail");
            assert_eq!(grown, 0, "{context}: a failed allocation grew memory");
            assert_eq!(heap.runs(), before.runs, "{context}: a failed allocation changed the free runs");
        }
        Expected::Pages { block: at, grow } => {
            assert_eq!(block as usize, at, "{context}: {layout:?} not at the first fit / the top");
            assert_eq!(grown, grow, "{context}: {layout:?} grew memory by the wrong amount");
        }
        Expected::Small { class_head, runs_empty } => {
            assert!(grown <= 1, "{context}: a small block grew memory by {grown} pages");
            if let Some(head) = class_head {
                assert_eq!(block as usize, head, "{context}: the class's free list was not used first");
            } else if block.is_null() {
                assert!(runs_empty, "{context}: a small allocation failed with free runs left");
                assert!(before.pages == heap.cap(), "{context}: a small allocation failed below the cap");
            }
        }
    }
    if !block.is_null() {
        assert_eq!(block as usize % layout.align(), 0, "{context}: {layout:?} misaligned at {block:p}");
    }
}

pub struct LiveBlock {
    pub block: *mut u8,
    pub layout: Layout,
    /// Every byte of the block holds it until the block is freed or moved.
    pub fill: u8,
}

/// The live blocks, each filled with its own byte.
#[derive(Default)]
pub struct Model {
    pub live: Vec<LiveBlock>,
    next_fill: u8,
}

impl Model {
    pub fn add(&mut self, block: *mut u8, layout: Layout) {
        self.next_fill = self.next_fill.wrapping_add(1).max(1);
        // SAFETY: a live block of `layout.size()` bytes.
        unsafe { std::ptr::write_bytes(block, self.next_fill, layout.size()) };
        self.live.push(LiveBlock { block, layout, fill: self.next_fill });
    }

    pub fn free(&mut self, heap: &mut TestHeap, index: usize, context: &str) {
        let live = self.live.swap_remove(index);
        assert_filled(live.block, live.layout.size(), live.fill, context);
        // SAFETY: allocated by this heap with this layout, freed once.
        unsafe { heap.heap.deallocate(live.block, live.layout) };
    }

    pub fn reallocate(&mut self, heap: &mut TestHeap, index: usize, new_size: usize, context: &str) {
        let LiveBlock { block, layout, fill } = self.live[index];
        assert_filled(block, layout.size(), fill, context);
        let new_layout = Layout::from_size_align(new_size, layout.align()).expect("valid layout");
        let before = expect(heap, &new_layout);
        // SAFETY: a live block of this heap with this layout.
        let moved = unsafe { heap.heap.reallocate(block, layout, new_size) };
        verify(heap, before, moved, &new_layout, context);
        if moved.is_null() {
            assert_filled(block, layout.size(), fill, &format!("{context}: failed reallocation"));
            return;
        }
        assert_filled(moved, layout.size().min(new_size), fill, &format!("{context}: reallocation's prefix"));
        // SAFETY: the new live block of `new_size` bytes.
        unsafe { std::ptr::write_bytes(moved, fill, new_size) };
        self.live[index] = LiveBlock { block: moved, layout: new_layout, fill };
    }

    /// Free runs sorted, merged and in range; free blocks aligned to their
    /// class and in range; live blocks, free blocks and free runs disjoint.
    pub fn check(&self, heap: &TestHeap, context: &str) {
        let (low, high) = heap.range();
        let mut spans = Vec::new();
        let runs = heap.runs();
        for (index, &(start, pages)) in runs.iter().enumerate() {
            assert!(pages > 0 && start % PAGE == 0, "{context}: bad run {start:#x} × {pages}");
            if let Some(&(next, _)) = runs.get(index + 1) {
                assert!(start + pages * PAGE < next, "{context}: runs {start:#x} and {next:#x} unsorted or unmerged");
            }
            spans.push((start, start + pages * PAGE, "free run"));
        }
        // A cycle in a free list would make it endless: more blocks than the
        // heap can hold is a failure.
        let most = (high - low) / 16;
        let blocks: Vec<_> = heap.heap.free_blocks().take(most + 1).collect();
        assert!(blocks.len() <= most, "{context}: a free list holds more blocks than memory");
        for (block, size) in blocks {
            assert_eq!(block as usize % size, 0, "{context}: free block {block:p} misaligned for {size}");
            spans.push((block as usize, block as usize + size, "free block"));
        }
        for live in &self.live {
            let start = live.block as usize;
            spans.push((start, start + live.layout.size().max(1), "live block"));
        }
        spans.sort_unstable();
        for pair in spans.windows(2) {
            let ((_, end, kind), (next, _, next_kind)) = (pair[0], pair[1]);
            assert!(end <= next, "{context}: {kind} ending at {end:#x} overlaps {next_kind} at {next:#x}");
        }
        if let (Some(first), Some(last)) = (spans.first(), spans.last()) {
            assert!(low <= first.0 && last.1 <= high, "{context}: a block or run outside the heap's pages");
        }
    }
}

/// Compared as slices (one memcmp), which keeps Miri quick.
pub fn assert_filled(block: *mut u8, size: usize, fill: u8, context: &str) {
    // SAFETY: a live block of at least `size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(block, size) };
    assert!(bytes == vec![fill; size], "{context}: block {block:p} lost its contents");
}

/// A random size for a reallocation: small, around the class limit, or pages.
pub fn random_new_size(rng: &mut TestRng, max_large: usize) -> usize {
    match rng.random_range(0..3) {
        0 => rng.random_range(1..=256),
        1 => rng.random_range(1..=CLASS_LIMIT * 2),
        _ => rng.random_range(1..=max_large),
    }
}
