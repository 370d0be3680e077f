//! `abf1::decode` on arbitrary bytes, as given and with the header checksum
//! repaired (so mutations of the header and payload reach the success path).
//! Ok ⇒ `abf1::encode` reproduces the input bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let _ = common::check_abf1(data);
    if let Some(sealed) = common::abf1_resealed(data) {
        let _ = common::check_abf1(&sealed);
    }
});
