//! The wasm modules' global allocator: the `talc` crate, growing the linear
//! memory as it needs (`WasmGrowAndExtend`), without locking: its constructor
//! refuses to compile for wasm with threads.
//!
//! A failed `memory.grow` makes it return null, which the core's fallible
//! allocations (`fallible.rs`, `try_reserve`) turn into `outOfMemory`, never a
//! trap (js-tests/memory-pressure.test.mjs, create-packing.test.mjs). Memory
//! never shrinks: wasm cannot give pages back. Its size and speed against a
//! size-class allocator of our own: docs/tradeoffs.md §6.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
