//! artifact-bloom: absence-first precheck of SHA-256 artifact digests.
//!
//! A pure Rust core (no `wasm_bindgen` or `js_sys` outside [`wasm`]) that the
//! npm package wraps. A Bloom "maybe" is never an answer: callers confirm it
//! with the authoritative repository at the same catalog version.

pub mod abf1;
pub mod bits;
pub mod filter;
pub mod hashing;
pub mod layout;
pub mod numfmt;
pub mod packed;
pub mod probe;
pub mod tlbf;
pub mod murmur3;
pub mod mergeable;
pub mod scalable;
pub mod sizing;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use filter::ArtifactBloomFilter;
pub use layout::{create_layout, BloomError, BloomSpec, Layout};
