//! The wasm modules' global allocator: the `talc` crate, without locking (its
//! constructor refuses to compile for wasm with threads), over a memory
//! source of our own, [`BelowTheTop`], that grows the linear memory as talc
//! needs but never to its last page.
//!
//! Why our own source: talc's `WasmGrowAndExtend` grows memory up to the 4 GiB
//! limit itself, and a heap that ends exactly at 2^32 has no representable end
//! pointer on wasm32: its end saturates at `0xFFFF_FFFF`, the heap is extended
//! to a misaligned end, and the next allocations corrupt the allocator's own
//! metadata — traps (`memory access out of bounds`, `unreachable`) in every
//! later call, even after every filter was freed (issue 32 §2). Keeping the
//! last 64 KiB page out of reach costs 1/65536 of the memory and leaves every
//! end pointer representable.
//!
//! A refused growth makes talc return null, which the core's fallible
//! allocations (`fallible.rs`) turn into `outOfMemory`. They are refused 1 MiB
//! (RESERVE_PAGES) before the top, which stays for the allocations that abort
//! on null (wasm-bindgen's boxes and argument copies): so every call answers
//! `outOfMemory`, never a trap, up to and at the limit (js-tests/memory-limit.test.mjs,
//! memory-pressure.test.mjs). Memory never shrinks: wasm cannot give pages
//! back. The allocator's size and speed against a size-class allocator of our
//! own: docs/tradeoffs.md §6.

use core::alloc::Layout;
use core::ptr::NonNull;

use talc::base::binning::Binning;
use talc::base::Talc;
use talc::cell::TalcSyncCell;
use talc::wasm::WasmBinning;

/// A wasm page.
const PAGE_BYTES: usize = 64 * 1024;
/// Pages in 4 GiB, the wasm32 limit; memory grows to one page fewer at most.
const PAGE_LIMIT: usize = 1 << 16;
/// Pages kept from the crate's fallible allocations (`fallible.rs`), for the
/// infallible ones that follow them (wasm-bindgen's boxes and argument copies,
/// error messages): 1 MiB, thousands of those.
const RESERVE_PAGES: usize = 16;
/// More than talc needs beside an allocation of `size` bytes aligned to
/// `align`: a chunk's tail tag and rounding (a few words), and on the first
/// claim its bin lists (a word per bin, far below 4 KiB).
const TALC_OVERHEAD_BYTES: usize = 4096;

/// Grows the linear memory for talc, extending the heap it has when the new
/// pages follow it, and refuses (talc then returns null) a growth that would
/// reach the 4 GiB limit.
#[derive(Debug)]
pub struct BelowTheTop {
    /// The end of the heap talc manages, once it has one.
    end: Option<NonNull<u8>>,
}

/// Pages to grow by for `layout`, or None when that does not fit in a usize.
fn pages_for(layout: Layout) -> Option<usize> {
    let bytes = layout.size().checked_add(layout.align())?.checked_add(TALC_OVERHEAD_BYTES)?;
    Some(bytes.div_ceil(PAGE_BYTES))
}

// The crate's second audited exception to deny(unsafe_code) (after
// fallible::zeroed_words): a memory source is an unsafe trait, and handing
// talc fresh pages is an unsafe call. SAFETY: acquire calls no allocator and
// touches talc only through `talc`; the pages it hands over were just grown.
#[allow(unsafe_code)]
unsafe impl talc::source::Source for BelowTheTop {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        let pages = pages_for(layout).ok_or(())?;
        let current = core::arch::wasm32::memory_size::<0>();
        // `current + pages` must stay below the limit: the new end, in bytes,
        // is then at most 2^32 − 64 KiB, a representable pointer. A fallible
        // allocation stops RESERVE_PAGES earlier, so the one that meets a
        // full memory is never one that aborts.
        let reserve = if crate::fallible::in_fallible_allocation() { RESERVE_PAGES } else { 0 };
        if current.saturating_add(pages).saturating_add(reserve) >= PAGE_LIMIT {
            return Err(());
        }
        let previous = core::arch::wasm32::memory_grow::<0>(pages);
        if previous == usize::MAX {
            return Err(());
        }
        let base = (previous * PAGE_BYTES) as *mut u8;
        let bytes = pages * PAGE_BYTES;
        let end = base.wrapping_add(bytes);
        if let Some(old_end) = talc.source.end.take() {
            if old_end.as_ptr() == base {
                // SAFETY: the pages after the heap's end were just grown for it alone.
                talc.source.end = Some(unsafe { talc.extend(old_end, end) });
                return Ok(());
            }
        }
        // SAFETY: fresh pages, owned by no one else.
        talc.source.end = unsafe { talc.claim(base, bytes) };
        if talc.source.end.is_some() {
            Ok(())
        } else {
            Err(())
        }
    }
}

#[global_allocator]
static ALLOCATOR: TalcSyncCell<BelowTheTop, WasmBinning> = TalcSyncCell::new_wasm(BelowTheTop { end: None });
