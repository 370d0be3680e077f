//! TLBF byte vectors (`../shared/vectors/tlbf.json`, made by the Python dedup
//! implementation) and every `from_bytes` rejection of seed 002, each as a
//! one-field mutation of a valid file.

use artifact_bloom::variants::tlbf::{TlBloom, TlbfError, HEADER_LENGTH};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/vectors/tlbf.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_json::from_str(&text).expect("valid JSON")
}

fn cases() -> Vec<Value> {
    vectors()["cases"].as_array().expect("cases").clone()
}

fn build(case: &Value) -> TlBloom {
    let n = case["n"].as_u64().unwrap();
    let p = case["p"].as_f64().unwrap();
    let mut filter = TlBloom::with_rate(n, p).unwrap();
    for item in case["items"].as_array().unwrap() {
        filter.insert(item.as_str().unwrap().as_bytes());
    }
    filter
}

#[test]
fn every_case_matches_byte_for_byte() {
    let cases = cases();
    assert_eq!(cases.len(), 4, "the vector file changed: review the new cases");
    for case in &cases {
        let filter = build(case);
        let label = format!("n = {}, p = {}", case["n"], case["p"]);
        assert_eq!(filter.m(), case["m"].as_u64().unwrap(), "{label}: m");
        assert_eq!(u64::from(filter.k()), case["k"].as_u64().unwrap(), "{label}: k");
        let bytes = filter.to_bytes().unwrap();
        assert_eq!(hex::encode(&bytes), case["bytesHex"].as_str().unwrap(), "{label}: bytes");
        let decoded = TlBloom::from_bytes(&bytes).unwrap();
        assert_eq!(decoded, filter, "{label}: round trip");
        for item in case["items"].as_array().unwrap() {
            assert!(decoded.contains(item.as_str().unwrap().as_bytes()), "{label}: {item}");
        }
    }
}

#[test]
fn probe_vectors_and_the_absent_bird() {
    for case in cases() {
        let Some(probes) = case["probes"].as_object() else {
            continue;
        };
        let filter = build(&case);
        for (item, expected) in probes {
            let expected: Vec<u64> = expected.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            assert_eq!(filter.probes(item.as_bytes()), expected, "{item}");
        }
        // Seed 002: bird probes 14, 7, 16 and bit 7 is clear.
        assert!(!filter.contains(b"bird"));
    }
}

/// The worked example's 35 bytes, for mutation.
fn example() -> Vec<u8> {
    hex::decode(cases()[0]["bytesHex"].as_str().unwrap()).unwrap()
}

fn with(offset: usize, field: &[u8]) -> Vec<u8> {
    let mut bytes = example();
    bytes[offset..offset + field.len()].copy_from_slice(field);
    bytes
}

fn rejects(bytes: &[u8], expected: TlbfError) {
    assert_eq!(TlBloom::from_bytes(bytes), Err(expected), "{}", hex::encode(bytes));
}

#[test]
fn seed_rejections() {
    rejects(&with(0, b"TLBG"), TlbfError::BadMagic);
    rejects(&with(4, &2u32.to_le_bytes()), TlbfError::UnsupportedVersion);
    rejects(&with(4, &0u32.to_le_bytes()), TlbfError::UnsupportedVersion);
    rejects(&with(8, &0u64.to_le_bytes()), TlbfError::ZeroBitCount);
    rejects(&with(16, &0u32.to_le_bytes()), TlbfError::ZeroHashCount);
    rejects(&with(20, &1u32.to_le_bytes()), TlbfError::NonZeroReserved);
    let mut long = example();
    long.push(0);
    rejects(&long, TlbfError::LengthMismatch);
    rejects(&example()[..34], TlbfError::LengthMismatch);
    // The length follows m: m = 24 still fits 3 bytes (valid), m = 25 needs 4.
    assert!(TlBloom::from_bytes(&with(8, &24u64.to_le_bytes())).is_ok());
    rejects(&with(8, &25u64.to_le_bytes()), TlbfError::LengthMismatch);
    for cut in 0..HEADER_LENGTH {
        rejects(&example()[..cut], TlbfError::Truncated);
    }
}

#[test]
fn rejections_beyond_the_seed() {
    // m above 2^30 is refused before the length is even compared, so no
    // allocation ever follows an unchecked m.
    rejects(&with(8, &((1u64 << 30) + 1).to_le_bytes()), TlbfError::FilterTooLarge);
    rejects(&with(8, &u64::MAX.to_le_bytes()), TlbfError::FilterTooLarge);
    rejects(&with(16, &4097u32.to_le_bytes()), TlbfError::HashCountTooLarge);
    // Bit 20 is the first unused bit of a 20-bit filter's last byte.
    rejects(&with(34, &[0x12]), TlbfError::NonZeroPadding);
    rejects(&with(34, &[0x80]), TlbfError::NonZeroPadding);
}

#[test]
fn with_rate_validates_its_inputs() {
    assert_eq!(TlBloom::with_rate(0, 0.1), Err(TlbfError::InvalidExpectedItemCount));
    for p in [0.0, 1.0, 1.5, -0.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(TlBloom::with_rate(10, p), Err(TlbfError::InvalidFalsePositiveRate), "{p}");
    }
    assert_eq!(TlBloom::with_rate(1 << 30, 0.01), Err(TlbfError::FilterTooLarge));
    assert_eq!(TlBloom::with_rate(u64::MAX, 0.5), Err(TlbfError::FilterTooLarge));
}

#[test]
fn error_codes_are_camel_case_and_distinct() {
    let all = TlbfError::ALL;
    assert_eq!(all.len(), 14);
    let mut codes: Vec<&str> = all.iter().map(|e| e.code()).collect();
    assert!(codes
        .iter()
        .all(|c| c.chars().all(|ch| ch.is_ascii_alphanumeric()) && c.starts_with(|ch: char| ch.is_ascii_lowercase())));
    assert!(all.iter().all(|e| e.to_string() == format!("tlbf failure: {}", e.code())));
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), all.len());
}
