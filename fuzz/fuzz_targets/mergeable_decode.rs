//! `MergeableBloomFilter::decode` on arbitrary bytes, as given and with the
//! SHA-256 trailer repaired. The encoding is canonical (sparse exactly when
//! smaller), so Ok ⇒ `encode` reproduces the input; a state never decodes as
//! a delta.
#![no_main]

use artifact_bloom::variants::mergeable::{Delta, MergeableBloomFilter, MergeableError};
use libfuzzer_sys::fuzz_target;

mod common;

fn check(bytes: &[u8]) {
    match MergeableBloomFilter::decode(bytes) {
        Ok(filter) => {
            assert!(filter.encode().expect("memory") == bytes, "accepted mergeable state is not canonical");
            assert_eq!(Delta::decode(bytes), Err(MergeableError::UnexpectedKind));
            assert!(filter.bit_count() % 64 == 0 && filter.bit_count() <= 1 << 30);
            let item = &bytes[..bytes.len().min(24)];
            let answer = filter.might_contain(item);
            let mut joined = filter.clone();
            joined.piece(&filter).expect("same shape");
            assert_eq!(joined, filter, "piece is idempotent");
            assert_eq!(joined.might_contain(item), answer);
        }
        Err(error) => {
            let _ = (error.code(), error.to_string());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(sealed) = common::trailer_resealed(data) {
        check(&sealed);
    }
});
