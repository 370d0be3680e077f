//! The other filters of the seed (the `variants` Cargo feature, npm subpath
//! `artifact-bloom/variants`): the TLBF byte-compatible filter, mergeable
//! filters with deltas, scalable filters, and the sizing helpers they share.
//! Each module is independent of the artifact filter; they share only
//! [`sizing`]'s optimum and the crate's [`crate::error::Coded`] error path.

pub mod mergeable;
pub mod murmur3;
pub mod scalable;
pub mod sizing;
pub mod tlbf;
