//! The wasm module's allocator (`src/page_alloc.rs`) on the host, over a
//! capped buffer that grows by whole pages like wasm's linear memory, so that
//! failing growth is exercised as often as success.
//!
//! Random sequences of allocate / zeroed / reallocate / deallocate check,
//! after every step: alignment, no overlap among live blocks, free blocks and
//! free runs, zeroed bytes, contents kept (each live block carries its own
//! fill byte until it is freed or moved), free runs sorted and merged, growth
//! only when no free run fits (and by exactly what is missing at the top), and
//! null — never a panic — when the cap is reached. Fixed seeds: every run
//! tests the same sequences (`CASES` × `STEPS`; fewer and smaller under Miri).

mod page_alloc_support;

use artifact_bloom::page_alloc::PAGE;
use core::alloc::Layout;
use page_alloc_support::{assert_filled, expect, random_new_size, verify, Model, TestHeap, CLASS_LIMIT};
use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};

const CASES: u64 = if cfg!(miri) { 16 } else { 600 };
const STEPS: usize = if cfg!(miri) { 64 } else { 160 };
/// The most pages a large request takes; caps are drawn up to `MAX_CAP`.
const MAX_LARGE_PAGES: usize = if cfg!(miri) { 2 } else { 5 };
const MAX_CAP: usize = if cfg!(miri) { 8 } else { 40 };

fn random_layout(rng: &mut TestRng) -> Layout {
    let size = match rng.random_range(0..6) {
        0 => rng.random_range(0..=64),
        1 => rng.random_range(65..=4096),
        2 => rng.random_range(4097..=CLASS_LIMIT),
        3 => rng.random_range(CLASS_LIMIT - 16..=CLASS_LIMIT + 16),
        4 => rng.random_range(CLASS_LIMIT + 1..=MAX_LARGE_PAGES * PAGE),
        _ => rng.random_range(1..=MAX_LARGE_PAGES) * PAGE,
    };
    // Mostly the alignments of real types; sometimes up to a page, and now
    // and then beyond it (always refused).
    let align_bits = match rng.random_range(0..10) {
        0..=6 => rng.random_range(0..=4),
        7 | 8 => rng.random_range(5..=16),
        _ => 17,
    };
    Layout::from_size_align(size, 1 << align_bits).expect("valid layout")
}

/// One allocation, checked against what the heap's state says must happen.
fn allocate(heap: &mut TestHeap, model: &mut Model, layout: Layout, zeroed: bool, context: &str) {
    let before = expect(heap, &layout);
    let block = heap.heap.allocate(layout, zeroed);
    verify(heap, before, block, &layout, context);
    if block.is_null() {
        return;
    }
    if zeroed {
        assert_filled(block, layout.size(), 0, &format!("{context}: zeroed {layout:?}"));
    }
    model.add(block, layout);
}

fn run_case(seed: u64) {
    let mut seed_bytes = [0x5a; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut heap = TestHeap::new(rng.random_range(2..=MAX_CAP));
    let mut model = Model::default();
    for step in 0..STEPS {
        let context = format!("seed {seed}, step {step}");
        let live = model.live.len();
        match rng.random_range(0..20) {
            12..=16 if live > 0 => model.free(&mut heap, rng.random_range(0..live), &context),
            17..=19 if live > 0 => {
                let index = rng.random_range(0..live);
                let new_size = random_new_size(&mut rng, MAX_LARGE_PAGES * PAGE);
                model.reallocate(&mut heap, index, new_size, &context);
            }
            choice => allocate(&mut heap, &mut model, random_layout(&mut rng), (9..=11).contains(&choice), &context),
        }
        model.check(&heap, &context);
    }
    while let Some(last) = model.live.len().checked_sub(1) {
        model.free(&mut heap, last, &format!("seed {seed}, final free"));
    }
    model.check(&heap, &format!("seed {seed}, end"));
    heap.check_reserved_untouched();
}

#[test]
fn random_sequences_keep_every_invariant() {
    for seed in 0..CASES {
        run_case(seed);
    }
}

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).expect("valid layout")
}

#[test]
fn zero_sized_requests_get_distinct_aligned_blocks() {
    let mut heap = TestHeap::new(6);
    let mut model = Model::default();
    for align in [1, 8, 16, 4096, CLASS_LIMIT, PAGE] {
        allocate(&mut heap, &mut model, layout(0, align), false, &format!("size 0, align {align}"));
        allocate(&mut heap, &mut model, layout(0, align), true, &format!("zeroed size 0, align {align}"));
    }
    assert_eq!(model.live.len(), 12);
    model.check(&heap, "zero-sized blocks");
}

#[test]
fn alignment_above_a_page_is_refused_without_growth() {
    let mut heap = TestHeap::new(8);
    for (size, align) in [(1, 2 * PAGE), (3 * PAGE, 1 << 17), (0, 1 << 20)] {
        assert!(heap.heap.allocate(layout(size, align), false).is_null(), "{size} B aligned to {align}");
        assert!(heap.heap.allocate(layout(size, align), true).is_null(), "zeroed {size} B aligned to {align}");
    }
    assert_eq!(heap.pages(), 1, "refusals grew memory");
}

#[test]
fn page_alignment_takes_whole_pages_even_for_a_few_bytes() {
    let mut heap = TestHeap::new(4);
    let mut model = Model::default();
    allocate(&mut heap, &mut model, layout(1, 1), false, "a small block first");
    allocate(&mut heap, &mut model, layout(16, PAGE), false, "16 B aligned to a page");
    assert_eq!(heap.pages(), 3, "the arena page and one whole page");
    model.free(&mut heap, 1, "page-aligned block");
    assert_eq!(heap.runs().iter().map(|&(_, pages)| pages).collect::<Vec<_>>(), [1]);
}

#[test]
fn huge_requests_return_null_and_leave_the_heap_as_it_was() {
    let mut heap = TestHeap::new(6);
    let mut model = Model::default();
    // A free run at the top, so the huge request reaches the grow-the-top path.
    allocate(&mut heap, &mut model, layout(2 * PAGE, 8), false, "two pages");
    model.free(&mut heap, 0, "two pages");
    let runs = heap.runs();
    for size in [isize::MAX as usize, isize::MAX as usize - PAGE, usize::MAX / 2 + 1 - PAGE, 6 * PAGE] {
        for zeroed in [false, true] {
            assert!(heap.heap.allocate(layout(size, 1), zeroed).is_null(), "{size} B");
        }
    }
    assert_eq!((heap.pages(), heap.runs()), (3, runs.clone()), "failed requests changed the heap");
    let (block, size) = (runs[0].0, 5 * PAGE);
    allocate(&mut heap, &mut model, layout(size, 1), true, "the largest request that fits");
    assert_eq!((model.live[0].block as usize, heap.pages()), (block, 6), "grew the top run by three pages");
}

#[test]
fn growth_fails_at_the_cap_and_freed_memory_is_used_again() {
    let mut heap = TestHeap::new(4);
    let mut model = Model::default();
    let large = layout(PAGE, 8);
    for step in 0..3 {
        allocate(&mut heap, &mut model, large, false, &format!("page {step}"));
    }
    assert!(heap.heap.allocate(large, false).is_null(), "past the cap");
    assert!(heap.heap.allocate(layout(8, 8), false).is_null(), "no page left for a small class");
    model.free(&mut heap, 1, "the middle page");
    allocate(&mut heap, &mut model, layout(8, 8), true, "a small block in the freed page");
    assert!(heap.heap.allocate(large, true).is_null(), "the freed page is now an arena");
    model.check(&heap, "at the cap");
}

#[test]
fn reused_memory_is_zeroed_when_asked() {
    let mut heap = TestHeap::new(4);
    let mut model = Model::default();
    for (size, align) in [(40, 8), (3 * PAGE / 2, 16)] {
        allocate(&mut heap, &mut model, layout(size, align), false, "dirty");
        let dirty = model.live[0].block;
        model.free(&mut heap, 0, "dirty");
        allocate(&mut heap, &mut model, layout(size, align), true, "zeroed again");
        assert_eq!(model.live[0].block, dirty, "{size} B: the freed block is reused");
        model.free(&mut heap, 0, "zeroed again");
    }
}

#[test]
fn failed_reallocation_keeps_the_block() {
    let mut heap = TestHeap::new(3);
    let mut model = Model::default();
    allocate(&mut heap, &mut model, layout(100, 4), false, "small");
    allocate(&mut heap, &mut model, layout(PAGE, 4), false, "a page");
    model.reallocate(&mut heap, 0, 2 * PAGE, "small to two pages");
    model.reallocate(&mut heap, 1, 3 * PAGE, "a page to three");
    assert_eq!((model.live[0].layout.size(), model.live[1].layout.size()), (100, PAGE));
    model.reallocate(&mut heap, 0, 3000, "small to larger small");
    model.reallocate(&mut heap, 1, 10, "a page to a small block");
    assert_eq!((model.live[0].layout.size(), model.live[1].layout.size()), (3000, 10));
    model.check(&heap, "after reallocations");
}

#[test]
fn the_class_limit_splits_small_blocks_from_pages() {
    let mut heap = TestHeap::new(4);
    let mut model = Model::default();
    allocate(&mut heap, &mut model, layout(CLASS_LIMIT, 1), false, "largest class");
    allocate(&mut heap, &mut model, layout(CLASS_LIMIT, 1), false, "largest class again");
    assert_eq!(heap.pages(), 2, "two largest-class blocks share one arena page");
    allocate(&mut heap, &mut model, layout(CLASS_LIMIT + 1, 1), false, "one byte more");
    assert_eq!(heap.pages(), 3, "one byte more is a whole page");
    model.check(&heap, "class limit");
}
