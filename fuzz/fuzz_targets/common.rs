//! Shared helpers of the fuzz targets: checksum repair, so mutations reach
//! the validation behind each format's checksum, and the ABF1 oracle.
#![allow(dead_code)]

use artifact_bloom::abf1::{self, LoadError, HEADER_LENGTH};
use sha2::{Digest, Sha256};

/// ABF1 with its header checksum recomputed over bytes [0, 64) and the
/// payload, or `None` when there is no complete header to repair.
pub fn abf1_resealed(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.len() < HEADER_LENGTH {
        return None;
    }
    let mut out = bytes.to_vec();
    let checksum = abf1::checksum_of(&bytes[..64], &bytes[HEADER_LENGTH..]);
    out[64..HEADER_LENGTH].copy_from_slice(&checksum);
    Some(out)
}

/// MBLF / SBLF with the SHA-256 trailer (the last 32 bytes) recomputed.
pub fn trailer_resealed(bytes: &[u8]) -> Option<Vec<u8>> {
    let split = bytes.len().checked_sub(32)?;
    let mut out = bytes.to_vec();
    let checksum = Sha256::digest(&bytes[..split]);
    out[split..].copy_from_slice(&checksum);
    Some(out)
}

/// `abf1::decode` on one input, with every property the decoder promises:
/// - Ok ⇒ `abf1::encode` reproduces the input byte for byte, and the filter
///   matches its header;
/// - an input whose header fails steps 1–5 fails with exactly that error;
/// - a query on any decoded filter answers without panicking.
pub fn check_abf1(bytes: &[u8]) -> Result<(), LoadError> {
    let header = abf1::parse_header(bytes);
    match abf1::decode(bytes) {
        Ok(snapshot) => {
            assert_eq!(header.as_ref().ok(), Some(&snapshot.header), "decode and parse_header disagree");
            let h = &snapshot.header;
            let f = &snapshot.filter;
            assert_eq!(f.bit_count(), h.bit_count);
            assert_eq!(f.hash_count(), h.hash_count);
            assert_eq!(f.inserted_item_count(), h.inserted_item_count);
            assert_eq!(f.spec().expected_item_count, h.expected_item_count);
            assert_eq!(f.spec().target_false_positive_rate.to_bits(), h.target_fpp.to_bits());
            assert_eq!(bytes.len() as u64, h.total_length());
            let again = abf1::encode(f, h.catalog_version).expect("an accepted file must re-encode");
            assert!(again == bytes, "accepted input is not canonical: encode(decode(x)) != x");
            assert_eq!(f.serialize_bits(), &bytes[HEADER_LENGTH..]);
            // Queries over the loaded filter: a digest taken from the input.
            let mut digest = [0u8; 32];
            for (slot, byte) in digest.iter_mut().zip(bytes.iter().rev()) {
                *slot = *byte;
            }
            let single = f.might_contain(&digest);
            let many = f.might_contain_packed(&digest).expect("32 bytes are one digest");
            assert_eq!(many, vec![u8::from(single)]);
            let ratio = f.fill_ratio();
            assert!((0.0..=1.0).contains(&ratio));
            Ok(())
        }
        Err(error) => {
            if let Err(first) = &header {
                assert_eq!(&error, first, "decode must report the header's own error first");
            }
            // Codes and messages never panic.
            let _ = (error.code(), error.message(), error.to_string());
            Err(error)
        }
    }
}
