//! `Delta::decode` on arbitrary bytes, as given and with the SHA-256 trailer
//! repaired. Ok ⇒ `encode` reproduces the input, the bytes are not a state,
//! and the delta applies to an empty state of its shape, setting exactly its
//! words.
#![no_main]

use artifact_bloom::variants::mergeable::{Delta, MergeableBloomFilter, MergeableError};
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};

mod common;

/// An empty state of the given shape, built through its own wire form
/// (sparse, no entries) so the test needs no private constructor.
fn empty_state(bit_count: u64, hash_count: u32) -> MergeableBloomFilter {
    let mut bytes = Vec::with_capacity(56);
    bytes.extend_from_slice(b"MBLF");
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&[2, 0]);
    bytes.extend_from_slice(&bit_count.to_le_bytes());
    bytes.extend_from_slice(&hash_count.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    let checksum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&checksum);
    MergeableBloomFilter::decode(&bytes).expect("an empty sparse state of a valid shape")
}

fn check(bytes: &[u8]) {
    match Delta::decode(bytes) {
        Ok(delta) => {
            assert!(delta.encode().expect("memory") == bytes, "accepted delta is not canonical");
            assert_eq!(MergeableBloomFilter::decode(bytes).err(), Some(MergeableError::UnexpectedKind));
            assert!(delta.words().windows(2).all(|w| w[0].0 < w[1].0));
            assert!(delta.words().iter().all(|&(_, v)| v != 0));
            // Applying it (only for shapes up to 1 Mbit, to keep runs fast).
            if delta.bit_count() <= 1 << 20 {
                let mut state = empty_state(delta.bit_count(), delta.hash_count());
                state.piece_delta(&delta).expect("same shape");
                for &(index, value) in delta.words() {
                    assert_eq!(state.words()[index as usize], value);
                }
                assert_eq!(state.non_zero_word_count(), delta.words().len());
            }
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
