//! Robustness properties of the ABF1 loaders, with fixed seeds so every run
//! tests the same inputs:
//! - every single-bit flip of a valid file is rejected (the checksum covers
//!   the header, so no flip can slip through);
//! - every truncation is `truncated`;
//! - random and mutated inputs never panic, and `decode` and `StreamDecoder`
//!   (fed in random chunk sizes) always agree.
//!
//! proptest is built without default features, so instead of the `proptest!`
//! macro this drives its deterministic `TestRng` directly.

use artifact_bloom::abf1::{self, LoadError, Snapshot, StreamDecoder, HEADER_LENGTH};
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use sha2::{Digest, Sha256};

const VECTOR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/vectors/abf1/");

/// Random inputs per category; each goes through both decoders.
const RANDOM_CASES: usize = 50_000;
const MUTATED_CASES: usize = 70_000;

fn read_vector(name: &str) -> Vec<u8> {
    std::fs::read(format!("{VECTOR_DIR}{name}")).unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
}

fn rng(seed: u8) -> TestRng {
    TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32])
}

/// Uniform in 0..n (n > 0); the modulo bias is irrelevant here.
fn below(rng: &mut TestRng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

fn stream_decode(bytes: &[u8], rng: &mut TestRng) -> Result<Snapshot, LoadError> {
    let mut decoder = StreamDecoder::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        // Mostly small pieces (so word and header boundaries split), some
        // empty, some large.
        let size = match below(rng, 10) {
            0 => 0,
            1 => below(rng, 5000),
            _ => below(rng, 17),
        }
        .min(rest.len());
        let (piece, tail) = rest.split_at(size);
        decoder.push(piece)?;
        rest = tail;
    }
    decoder.finish()?.unlock(None)
}

/// Both decoders on one input: they must agree on ok-vs-error and the code
/// (and on the exact error, except `lengthMismatch`, whose `got` the stream
/// reports as soon as it sees the excess). Returns the outcome's code.
fn check_agreement(bytes: &[u8], rng: &mut TestRng) -> &'static str {
    let whole = abf1::decode(bytes);
    let streamed = stream_decode(bytes, rng);
    match (&whole, &streamed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "decoders disagree on {}", hex::encode(bytes));
            // Anything accepted is canonical: re-encoding reproduces it.
            let again = abf1::encode(&a.filter, a.header.catalog_version).expect("re-encode");
            assert_eq!(again, bytes, "accepted input is not canonical");
            "ok"
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.code(), b.code(), "decoders disagree on {}", hex::encode(bytes));
            if a.code() != "lengthMismatch" {
                assert_eq!(a, b, "decoders disagree on {}", hex::encode(bytes));
            }
            a.code()
        }
        _ => panic!("decode gave {whole:?}, stream gave {streamed:?} for {}", hex::encode(bytes)),
    }
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let mut rng = rng(1);
    let small = read_vector("small-v42.abf1");
    let members = read_vector("members10k-v43.abf1");
    let mut flips = 0;
    for (file, limit) in [(&small, small.len()), (&members, HEADER_LENGTH + 64)] {
        for bit in 0..limit * 8 {
            let mut bytes = file.clone();
            bytes[bit / 8] ^= 1 << (bit % 8);
            let code = check_agreement(&bytes, &mut rng);
            assert_ne!(code, "ok", "flip of bit {bit} was accepted");
            flips += 1;
        }
    }
    assert_eq!(flips, 104 * 8 + 160 * 8);
}

#[test]
fn every_truncation_is_truncated() {
    let mut rng = rng(2);
    let small = read_vector("small-v42.abf1");
    for len in 0..small.len() {
        assert_eq!(check_agreement(&small[..len], &mut rng), "truncated", "prefix of {len} bytes");
    }
    let members = read_vector("members10k-v43.abf1");
    let mut lengths: Vec<usize> = (0..=200).collect();
    lengths.extend([members.len() / 2, members.len() - 8, members.len() - 1]);
    lengths.extend((0..50).map(|_| below(&mut rng, members.len())));
    for len in lengths {
        assert_eq!(check_agreement(&members[..len], &mut rng), "truncated", "prefix of {len} bytes");
    }
}

#[test]
fn random_bytes_never_panic_and_decoders_agree() {
    let mut rng = rng(3);
    for case in 0..RANDOM_CASES {
        let len = below(&mut rng, 300);
        let mut bytes = vec![0u8; len];
        rng.fill_bytes(&mut bytes);
        // Half the cases get a plausible prefix, so the header field rules
        // are reached instead of stopping at the magic.
        if case % 2 == 0 {
            let prefix = b"ABF1\x01\x00\x01\x00";
            let n = prefix.len().min(len);
            bytes[..n].copy_from_slice(&prefix[..n]);
        }
        check_agreement(&bytes, &mut rng);
    }
}

/// Header fields as (offset, size) for targeted overwrites.
const FIELDS: [(usize, usize); 12] =
    [(0, 4), (4, 2), (6, 2), (8, 8), (16, 8), (24, 4), (28, 4), (32, 8), (40, 8), (48, 8), (56, 8), (64, 32)];

/// Values near the rules' boundaries, as little-endian u64.
const INTERESTING: [u64; 14] = [
    0,
    1,
    2,
    32,
    33,
    63,
    64,
    (1 << 30) - 1,
    1 << 30,
    (1 << 30) + 1,
    (1 << 53) - 1,
    1 << 53,
    0x3FF0_0000_0000_0000, // 1.0 as f64
    u64::MAX,
];

fn mutate(source: &[u8], rng: &mut TestRng) -> Vec<u8> {
    let mut bytes = source.to_vec();
    for _ in 0..1 + below(rng, 3) {
        let len = bytes.len().max(1);
        match below(rng, 7) {
            0 if !bytes.is_empty() => bytes[below(rng, len)] ^= 1 + below(rng, 255) as u8,
            1 => bytes.insert(below(rng, bytes.len() + 1), rng.next_u32() as u8),
            2 if !bytes.is_empty() => {
                bytes.remove(below(rng, len));
            }
            3 => bytes.truncate(below(rng, bytes.len() + 1)),
            4 => bytes.extend((0..1 + below(rng, 16)).map(|_| rng.next_u32() as u8)),
            _ => {
                let (offset, size) = FIELDS[below(rng, FIELDS.len())];
                let mut value = [0u8; 32];
                if below(rng, 2) == 0 {
                    value[..8].copy_from_slice(&INTERESTING[below(rng, INTERESTING.len())].to_le_bytes());
                } else {
                    rng.fill_bytes(&mut value);
                }
                if bytes.len() >= offset + size {
                    bytes[offset..offset + size].copy_from_slice(&value[..size]);
                }
            }
        }
    }
    // Sometimes repair the checksum, so mutations that keep the header valid
    // reach the success path (and must then round-trip).
    if below(rng, 4) == 0 && bytes.len() >= HEADER_LENGTH {
        let mut hasher = Sha256::new();
        hasher.update(&bytes[..64]);
        hasher.update(&bytes[HEADER_LENGTH..]);
        let checksum: [u8; 32] = hasher.finalize().into();
        bytes[64..HEADER_LENGTH].copy_from_slice(&checksum);
    }
    bytes
}

#[test]
fn mutated_files_never_panic_and_decoders_agree() {
    let mut rng = rng(4);
    let small = read_vector("small-v42.abf1");
    let max_catalog = read_vector("max-safe-catalog.abf1");
    let empty = read_vector("empty-v0.abf1");
    let members = read_vector("members10k-v43.abf1");
    let mut outcomes = std::collections::BTreeMap::<&str, usize>::new();
    for _ in 0..MUTATED_CASES {
        // Mostly the small files: they are where header mutations are dense
        // and they decode fast; the big ones keep multi-word payloads covered.
        let source = match below(&mut rng, 100) {
            0 => &members,
            1..=5 => &empty,
            6..=50 => &max_catalog,
            _ => &small,
        };
        let bytes = mutate(source, &mut rng);
        *outcomes.entry(check_agreement(&bytes, &mut rng)).or_default() += 1;
    }
    eprintln!("outcomes of {MUTATED_CASES} mutated files: {outcomes:?}");
    // The mix must reach every step of the load table, success included.
    for code in [
        "ok",
        "truncated",
        "badMagic",
        "unsupportedFormatVersion",
        "unsupportedHashProtocol",
        "invalidHeader",
        "lengthMismatch",
        "checksumMismatch",
    ] {
        assert!(outcomes.get(code).copied().unwrap_or(0) > 0, "no case ended in {code}: {outcomes:?}");
    }
}
