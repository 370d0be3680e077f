//! `ScalableBloomFilter::decode` on arbitrary bytes, as given and with the
//! SHA-256 trailer repaired. Ok ⇒ `encode` reproduces the input, and the
//! chain respects its limits (≤ 256 stages, ≤ 2^30 bits).
#![no_main]

use artifact_bloom::variants::scalable::ScalableBloomFilter;
use libfuzzer_sys::fuzz_target;

mod common;

fn check(bytes: &[u8]) {
    match ScalableBloomFilter::decode(bytes) {
        Ok(filter) => {
            assert!(filter.encode().expect("memory") == bytes, "accepted scalable chain is not canonical");
            assert!(filter.stage_count() >= 1 && filter.stage_count() <= 256);
            assert!(filter.bit_count() <= 1 << 30);
            assert_eq!(filter.stage_fill_ratios().len(), filter.stage_count());
            let _ = filter.might_contain(&bytes[..bytes.len().min(24)]);
            let _ = filter.estimated_fpp();
            assert!(filter.params().validate().is_ok());
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
