//! The layout and filter vectors made from the seed's Python reference
//! (`../shared/vectors/`), every case including the error cases.

use artifact_bloom::layout::item_count_from_f64;
use artifact_bloom::probe::Probe;
use artifact_bloom::{create_layout, ArtifactBloomFilter, BloomError, BloomSpec};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn vectors(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/vectors/").to_owned() + name;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_json::from_str(&text).expect("valid JSON")
}

/// JSON numbers, plus the strings "NaN"/"Infinity" the vectors use for those.
fn number(value: &Value) -> f64 {
    match value {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => s.parse::<f64>().unwrap_or_else(|_| panic!("number {s}")),
        other => panic!("not a number: {other}"),
    }
}

fn error_from_code(code: &str) -> BloomError {
    [
        BloomError::InvalidExpectedItemCount,
        BloomError::InvalidFalsePositiveRate,
        BloomError::CapacityExceeded,
        BloomError::FilterTooLarge,
        BloomError::InvalidDigest,
    ]
    .into_iter()
    .find(|e| e.code() == code)
    .unwrap_or_else(|| panic!("unknown code {code}"))
}

/// What the JS binding does: a count that is not a safe integer is invalid
/// before any layout is tried.
fn layout_for(n: f64, p: f64) -> Result<(u64, u32), BloomError> {
    let n = item_count_from_f64(n).ok_or(BloomError::InvalidExpectedItemCount)?;
    create_layout(&BloomSpec { expected_item_count: n, target_false_positive_rate: p })
        .map(|l| (l.bit_count, l.hash_count))
}

fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

#[test]
fn every_layout_vector() {
    let cases = vectors("layouts.json")["cases"].as_array().unwrap().clone();
    assert!(cases.len() >= 100);
    for case in &cases {
        let n = number(&case["expectedItemCount"]);
        let p = number(&case["targetFalsePositiveRate"]);
        let got = layout_for(n, p);
        match case.get("error").and_then(Value::as_str) {
            Some(code) => assert_eq!(got, Err(error_from_code(code)), "case {case}"),
            None => {
                let want = (case["bitCount"].as_u64().unwrap(), case["hashCount"].as_u64().unwrap() as u32);
                assert_eq!(got, Ok(want), "case {case}");
            }
        }
    }
}

#[test]
fn every_filter_vector() {
    let cases = vectors("filters.json")["cases"].as_array().unwrap().clone();
    for case in &cases {
        let count = case["count"].as_u64().unwrap();
        let members: Vec<[u8; 32]> = (0..count).map(|i| sha256(&format!("member:{i}"))).collect();
        let spec = BloomSpec {
            expected_item_count: case["expectedItemCount"].as_u64().unwrap(),
            target_false_positive_rate: number(&case["targetFalsePositiveRate"]),
        };
        let filter = ArtifactBloomFilter::create(&members, &spec).unwrap();
        assert_eq!(filter.bit_count(), case["bitCount"].as_u64().unwrap());
        assert_eq!(u64::from(filter.hash_count()), case["hashCount"].as_u64().unwrap());
        assert_eq!(filter.bits().count_ones(), case["setBits"].as_u64().unwrap());
        let bits = filter.serialize_bits();
        assert_eq!(hex::encode(Sha256::digest(&bits)), case["bitsSha256"].as_str().unwrap());
        if let Some(bits_hex) = case.get("bitsHex").and_then(Value::as_str) {
            assert_eq!(hex::encode(&bits), bits_hex);
        }
        for probe in case["probes"].as_array().unwrap() {
            let digest: [u8; 32] = hex::decode(probe["digest"].as_str().unwrap()).unwrap().try_into().unwrap();
            let want: Vec<u64> = probe["bits"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap()).collect();
            assert_eq!(Probe::positions(&digest, filter.bit_count(), filter.hash_count()), want);
        }
        let checked = case["nonMembersChecked"].as_u64().unwrap();
        let present = (0..checked).filter(|i| filter.might_contain(&sha256(&format!("non-member:{i}")))).count();
        assert_eq!(present as u64, case["nonMembersPresent"].as_u64().unwrap(), "non-members of {}", case["items"]);
        assert!(members.iter().all(|d| filter.might_contain(d)));
    }
}
