//! `TlBloom::from_bytes` on arbitrary bytes. TLBF is canonical (padding bits
//! must be zero), so Ok ⇒ `to_bytes` reproduces the input.
#![no_main]

use artifact_bloom::variants::tlbf::{TlBloom, HEADER_LENGTH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match TlBloom::from_bytes(data) {
        Ok(filter) => {
            assert!(filter.to_bytes().expect("memory") == data, "accepted TLBF input is not canonical");
            assert!(filter.m() >= 1 && filter.m() <= 1 << 30);
            assert!(filter.k() >= 1 && filter.k() <= 4096);
            assert_eq!(data.len() as u64, HEADER_LENGTH as u64 + filter.m().div_ceil(8));
            // Queries and a self-union never panic; a union keeps the bits.
            let probe = &data[..data.len().min(40)];
            let answer = filter.contains(probe);
            assert!(filter.probes(probe).iter().all(|&g| g < filter.m()));
            let mut joined = filter.clone();
            joined.union(&filter).expect("same shape");
            assert_eq!(joined.contains(probe), answer);
            assert!((0.0..=1.0).contains(&filter.fill_ratio()));
        }
        Err(error) => {
            let _ = (error.code(), error.to_string());
        }
    }
});
