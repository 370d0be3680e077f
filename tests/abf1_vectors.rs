//! The shared ABF1 vectors (../shared/vectors/abf1): every file loads as its
//! manifest says, through `decode` and through `StreamDecoder` in several
//! chunk sizes, and every valid file re-encodes byte for byte.

use std::path::PathBuf;

use artifact_bloom::abf1::{self, LoadError, Snapshot, StreamDecoder};
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use serde_json::Value;
use sha2::{Digest, Sha256};

const VECTOR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/vectors/abf1/");

fn vector_path(name: &str) -> PathBuf {
    PathBuf::from(VECTOR_DIR).join(name)
}

fn read_vector(name: &str) -> Vec<u8> {
    std::fs::read(vector_path(name)).unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
}

fn manifest_files() -> Vec<Value> {
    let text = std::fs::read_to_string(vector_path("manifest.json")).expect("manifest.json");
    let manifest: Value = serde_json::from_str(&text).expect("manifest is JSON");
    manifest["files"].as_array().expect("files array").clone()
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// "ok" or the error code: what the manifest's `expect` compares against.
fn outcome(result: &Result<Snapshot, LoadError>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(error) => error.code().to_string(),
    }
}

/// Feeds `bytes` in `chunk`-sized pieces; stops at the first failed push.
fn stream_decode(bytes: &[u8], chunk: usize) -> Result<Snapshot, LoadError> {
    let mut decoder = StreamDecoder::new();
    for piece in bytes.chunks(chunk) {
        decoder.push(piece)?;
    }
    decoder.finish()?.unlock(None)
}

/// What this package loads a vector as, where that differs from the seed's
/// manifest. The reference knows only hash protocol 1, so its vector of a
/// protocol-2 header expects `unsupportedHashProtocol`; this package defines
/// protocol 2 (keyed snapshots, docs/ABF1.md), and a keyed file loaded
/// without a key is `keyRequired` — still a typed failure, never a filter.
fn expected_here(name: &str, manifest: &str) -> String {
    match name {
        "hash-proto-2.abf1" => "keyRequired".to_string(),
        _ => manifest.to_string(),
    }
}

fn check_field(entry: &Value, key: &str, actual: f64) {
    if let Some(expected) = entry.get(key) {
        let expected = expected.as_f64().unwrap_or_else(|| panic!("{key} is a number"));
        assert_eq!(actual, expected, "{}: {key}", entry["file"]);
    }
}

#[test]
fn every_vector_loads_as_the_manifest_says() {
    let files = manifest_files();
    assert!(files.len() >= 26, "manifest lists {} files", files.len());
    for entry in &files {
        let name = entry["file"].as_str().expect("file name");
        let expect = expected_here(name, entry["expect"].as_str().expect("expect"));
        let bytes = read_vector(name);
        let result = abf1::decode(&bytes);
        assert_eq!(outcome(&result), expect, "{name}: {:?}", result.as_ref().err());

        let Ok(snapshot) = result else { continue };
        let header = &snapshot.header;
        // catalogVersion 2^53 − 1 is exact in f64, so comparing as f64 is exact.
        check_field(entry, "catalogVersion", header.catalog_version as f64);
        check_field(entry, "bitCount", header.bit_count as f64);
        check_field(entry, "hashCount", f64::from(header.hash_count));
        check_field(entry, "expectedItemCount", header.expected_item_count as f64);
        check_field(entry, "insertedItemCount", header.inserted_item_count as f64);
        check_field(entry, "targetFpp", header.target_fpp);
        assert_eq!(snapshot.filter.bit_count(), header.bit_count);
        assert_eq!(snapshot.filter.hash_count(), header.hash_count);
        assert_eq!(snapshot.filter.inserted_item_count(), header.inserted_item_count);
        assert_eq!(
            *snapshot.filter.spec(),
            BloomSpec {
                expected_item_count: header.expected_item_count,
                target_false_positive_rate: header.target_fpp
            }
        );
        if let Some(members) = entry.get("members").and_then(Value::as_array) {
            for word in members {
                let word = word.as_str().expect("member word");
                assert!(snapshot.filter.might_contain(&sha256(word.as_bytes())), "{name}: {word}");
            }
        }
        let reencoded = abf1::encode(&snapshot.filter, header.catalog_version).expect("re-encode");
        assert_eq!(reencoded, bytes, "{name}: round trip is not byte-identical");
    }
}

#[test]
fn streaming_agrees_with_decode_for_every_vector() {
    for entry in manifest_files() {
        let name = entry["file"].as_str().expect("file name");
        let bytes = read_vector(name);
        let whole = abf1::decode(&bytes);
        for chunk in [1usize, 7, 4096] {
            let streamed = stream_decode(&bytes, chunk);
            assert_eq!(outcome(&streamed), outcome(&whole), "{name} in {chunk}-byte chunks");
            if let (Ok(a), Ok(b)) = (&streamed, &whole) {
                assert_eq!(a, b, "{name} in {chunk}-byte chunks");
            }
        }
    }
}

#[test]
fn huge_bitcount_is_an_invalid_header() {
    let bytes = read_vector("huge-bitcount.abf1");
    match abf1::decode(&bytes) {
        Err(LoadError::InvalidHeader { field, .. }) => assert_eq!(field, "bitCount"),
        other => panic!("expected invalidHeader, got {other:?}"),
    }
    // The streaming decoder decides it from the 96-byte header alone.
    let mut decoder = StreamDecoder::new();
    assert_eq!(decoder.push(&bytes[..95]), Ok(()));
    assert_eq!(decoder.push(&bytes[95..96]).unwrap_err().code(), "invalidHeader");
    assert_eq!(decoder.total_length(), None);
}

#[test]
fn streaming_reports_the_header_as_soon_as_it_arrives() {
    let bytes = read_vector("members10k-v43.abf1");
    let mut decoder = StreamDecoder::new();
    decoder.push(&bytes[..96]).unwrap();
    assert_eq!(decoder.header().map(|h| h.catalog_version), Some(43));
    assert_eq!(decoder.total_length(), Some(bytes.len() as u64));
    assert_eq!(decoder.bytes_received(), 96);
    decoder.push(&bytes[96..]).unwrap();
    assert!(decoder.is_complete());
    assert_eq!(decoder.finish().unwrap(), abf1::decode(&bytes).unwrap());
}

#[test]
fn members10k_is_reproduced_byte_for_byte() {
    let digests: Vec<[u8; 32]> = (0..10_000).map(|i| sha256(format!("member:{i}").as_bytes())).collect();
    let spec = BloomSpec { expected_item_count: 10_000, target_false_positive_rate: 0.01 };
    let filter = ArtifactBloomFilter::create(&digests, &spec).expect("filter");
    let encoded = abf1::encode(&filter, 43).expect("encode");
    assert_eq!(encoded, read_vector("members10k-v43.abf1"));
    let decoded = abf1::decode(&encoded).expect("decode");
    assert!(digests.iter().all(|d| decoded.filter.might_contain(d)));
    assert_eq!(decoded.filter, filter);
}

#[test]
fn empty_snapshot_answers_absent() {
    let snapshot = abf1::decode(&read_vector("empty-v0.abf1")).expect("empty-v0 loads");
    assert!((0..1000).all(|i| !snapshot.filter.might_contain(&sha256(format!("x{i}").as_bytes()))));
}

/// SHA-256 of bytes [0, 64) and [96, end): what a caller hashing on its own
/// (Node's node:crypto) hands to `finish_with_checksum`.
fn external_checksum(bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(&bytes[..bytes.len().min(64)]);
    if bytes.len() > 96 {
        hasher.update(&bytes[96..]);
    }
    hasher.finalize().into()
}

#[test]
fn external_checksum_streaming_agrees_with_decode_for_every_vector() {
    for entry in manifest_files() {
        let name = entry["file"].as_str().unwrap();
        let bytes = read_vector(name);
        let expected = outcome(&abf1::decode(&bytes));
        for chunk in [1usize, 7, 4096] {
            let mut decoder = StreamDecoder::with_external_checksum();
            let pushed = bytes.chunks(chunk).try_for_each(|piece| decoder.push(piece));
            let result = pushed
                .and_then(|()| decoder.finish_with_checksum(external_checksum(&bytes)))
                .and_then(|snapshot| snapshot.unlock(None));
            assert_eq!(outcome(&result), expected, "{name} in chunks of {chunk}");
        }
    }
}

#[test]
fn an_unverified_external_stream_is_never_accepted() {
    let bytes = read_vector("small-v42.abf1");
    let mut decoder = StreamDecoder::with_external_checksum();
    decoder.push(&bytes).unwrap();
    // finish() without the caller's checksum: nothing was verified.
    assert_eq!(decoder.finish().err(), Some(LoadError::ChecksumMismatch));
    let mut decoder = StreamDecoder::with_external_checksum();
    decoder.push(&bytes).unwrap();
    assert_eq!(decoder.finish_with_checksum([0; 32]).err(), Some(LoadError::ChecksumMismatch));
}
