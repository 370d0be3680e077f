//! artifact-bloom: absence-first precheck of SHA-256 artifact digests.
//!
//! A pure Rust core (no `wasm_bindgen` or `js_sys` outside [`wasm`]) that the
//! npm package wraps. A Bloom "maybe" is never an answer: callers confirm it
//! with the authoritative repository at the same catalog version.
//!
//! The snapshot format is specified in `docs/ABF1.md`.

// Two audited exceptions: `fallible::zeroed_words` (zeroed allocation with a
// null check) and the wasm allocator's memory source (`wasm::alloc`).
#![deny(unsafe_code)]

pub mod abf1;
pub mod bits;
pub mod builder;
pub(crate) mod bytes;
pub mod delta;
pub mod error;
pub mod fallible;
pub mod filter;
pub mod hashing;
pub mod keyed;
pub mod layout;
pub mod packed;
pub mod probe;
pub mod variants;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use filter::ArtifactBloomFilter;
pub use layout::{create_layout, BloomError, BloomSpec, Layout};
