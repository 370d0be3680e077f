//! ABF1 hash protocol 2 (keyed snapshots): the vectors of
//! `tests/vectors/abf1-keyed.json`, written by `scripts/keyed-vectors.mjs`
//! from docs/ABF1.md alone (node:crypto's HMAC, the layout rule and the probe
//! walk in BigInt), so these check the Rust core against an independent
//! implementation: the same file bytes, the same answers, the same refusals.

use artifact_bloom::abf1::{self, LoadError};
use artifact_bloom::keyed::{hmac_sha256, SnapshotKey, KEY_CHECK_LABEL};
use artifact_bloom::{ArtifactBloomFilter, BloomSpec};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/abf1-keyed.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("abf1-keyed.json")).expect("JSON")
}

fn bytes(value: &Value) -> Vec<u8> {
    hex::decode(value.as_str().expect("hex string")).expect("hex")
}

#[test]
fn key_check_is_the_truncated_mac_of_the_label() {
    let v = vectors();
    assert_eq!(v["keyCheckLabel"].as_str().unwrap().as_bytes(), KEY_CHECK_LABEL);
    for (key, check) in [("key", "keyCheck"), ("wrongKey", "wrongKeyCheck")] {
        let key = SnapshotKey::new(&bytes(&v[key])).unwrap();
        assert_eq!(u64::from(key.key_check()), v[check].as_u64().unwrap());
    }
}

#[test]
fn every_case_builds_loads_answers_and_refuses_as_the_vectors_say() {
    let v = vectors();
    let key_bytes = bytes(&v["key"]);
    let key = SnapshotKey::new(&key_bytes).unwrap();
    let wrong = SnapshotKey::new(&bytes(&v["wrongKey"])).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let digests: Vec<Vec<u8>> = case["digests"].as_array().unwrap().iter().map(bytes).collect();
        for (digest, mac) in digests.iter().zip(case["macsOfFirstDigests"].as_array().unwrap()) {
            assert_eq!(hmac_sha256(&key_bytes, digest).unwrap().to_vec(), bytes(mac), "{name}: MAC");
        }
        let spec = BloomSpec {
            expected_item_count: case["expectedItemCount"].as_u64().unwrap(),
            target_false_positive_rate: case["targetFalsePositiveRate"].as_f64().unwrap(),
        };
        let filter = ArtifactBloomFilter::create_keyed(&digests, &spec, key.clone()).unwrap();
        assert_eq!(filter.bit_count(), case["bitCount"].as_u64().unwrap(), "{name}: bitCount");
        let file = bytes(&case["file"]);
        let version = case["catalogVersion"].as_u64().unwrap();
        assert_eq!(abf1::encode(&filter, version).unwrap(), file, "{name}: the encoder writes the vector's bytes");

        assert_eq!(abf1::decode(&file).unwrap_err(), LoadError::KeyRequired, "{name}");
        assert_eq!(abf1::decode_keyed(&file, Some(&wrong)).unwrap_err(), LoadError::WrongKey, "{name}");
        let loaded = abf1::decode_keyed(&file, Some(&key)).unwrap();
        for query in case["queries"].as_array().unwrap() {
            let digest: [u8; 32] = bytes(&query["digest"]).try_into().unwrap();
            assert_eq!(loaded.filter.might_contain(&digest), query["maybe"].as_bool().unwrap(), "{name}: query");
        }
    }
}
