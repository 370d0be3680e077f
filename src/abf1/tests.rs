//! Unit tests: one per header rule, the order of the load steps, and the
//! encoder's refusals. The shared vectors are exercised in tests/abf1_*.rs.

use super::*;
use sha2::{Digest, Sha256};

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

fn small_filter() -> ArtifactBloomFilter {
    let spec = BloomSpec { expected_item_count: 4, target_false_positive_rate: 0.1 };
    ArtifactBloomFilter::create(&[digest("cat"), digest("dog"), digest("fish")], &spec).unwrap()
}

fn valid_file() -> Vec<u8> {
    encode(&small_filter(), 42).unwrap()
}

/// A valid file with `value` written at `offset` (checksum left stale: the
/// header steps come before the checksum step).
fn with_field(offset: usize, value: &[u8]) -> Vec<u8> {
    let mut bytes = valid_file();
    bytes[offset..offset + value.len()].copy_from_slice(value);
    bytes
}

fn invalid_field(bytes: &[u8]) -> &'static str {
    match parse_header(bytes) {
        Err(LoadError::InvalidHeader { field, .. }) => field,
        other => panic!("expected invalidHeader, got {other:?}"),
    }
}

#[test]
fn valid_header_parses() {
    let header = parse_header(&valid_file()).unwrap();
    assert_eq!(header.catalog_version, 42);
    assert_eq!((header.bit_count, header.hash_count, header.payload_length), (64, 1, 8));
    assert_eq!((header.expected_item_count, header.inserted_item_count), (4, 3));
    assert_eq!(header.target_fpp, 0.1);
    // Only the first 96 bytes matter to parse_header.
    assert_eq!(parse_header(&valid_file()[..HEADER_LENGTH]).unwrap(), header);
}

#[test]
fn step1_short_header_is_truncated() {
    for len in [0, 1, 50, 95] {
        assert_eq!(parse_header(&valid_file()[..len]), Err(LoadError::Truncated { needed: 96, got: len as u64 }));
    }
}

#[test]
fn step2_magic() {
    let bytes = with_field(OFFSET_MAGIC, b"TLBF");
    assert_eq!(parse_header(&bytes), Err(LoadError::BadMagic { found: *b"TLBF" }));
}

#[test]
fn step3_and_4_versions() {
    let bytes = with_field(OFFSET_FORMAT_VERSION, &2u16.to_le_bytes());
    assert_eq!(parse_header(&bytes), Err(LoadError::UnsupportedFormatVersion(2)));
    let bytes = with_field(OFFSET_HASH_PROTOCOL_VERSION, &0u16.to_le_bytes());
    assert_eq!(parse_header(&bytes), Err(LoadError::UnsupportedHashProtocol(0)));
}

#[test]
fn catalog_version_rule() {
    let ok = with_field(OFFSET_CATALOG_VERSION, &MAX_CATALOG_VERSION.to_le_bytes());
    assert!(parse_header(&ok).is_ok());
    let bad = with_field(OFFSET_CATALOG_VERSION, &(MAX_CATALOG_VERSION + 1).to_le_bytes());
    assert_eq!(invalid_field(&bad), "catalogVersion");
}

#[test]
fn bit_count_rules() {
    for bits in [0u64, 32, 100, 1 << 31, 1 << 40, u64::MAX] {
        let bad = with_field(OFFSET_BIT_COUNT, &bits.to_le_bytes());
        assert_eq!(invalid_field(&bad), "bitCount", "bitCount {bits}");
    }
    // 2^30 itself is allowed; it then fails only on payloadLength.
    let max = with_field(OFFSET_BIT_COUNT, &(1u64 << 30).to_le_bytes());
    assert_eq!(invalid_field(&max), "payloadLength");
}

#[test]
fn hash_count_rule() {
    for k in [0u32, 33, u32::MAX] {
        assert_eq!(invalid_field(&with_field(OFFSET_HASH_COUNT, &k.to_le_bytes())), "hashCount");
    }
    assert!(parse_header(&with_field(OFFSET_HASH_COUNT, &32u32.to_le_bytes())).is_ok());
}

#[test]
fn reserved_rule() {
    assert_eq!(invalid_field(&with_field(OFFSET_RESERVED, &1u32.to_le_bytes())), "reserved");
}

#[test]
fn expected_item_count_rule() {
    for n in [0u64, (1 << 30) + 1, u64::MAX] {
        assert_eq!(invalid_field(&with_field(OFFSET_EXPECTED_ITEM_COUNT, &n.to_le_bytes())), "expectedItemCount");
    }
    assert!(parse_header(&with_field(OFFSET_EXPECTED_ITEM_COUNT, &(1u64 << 30).to_le_bytes())).is_ok());
}

#[test]
fn inserted_item_count_rule() {
    assert_eq!(invalid_field(&with_field(OFFSET_INSERTED_ITEM_COUNT, &5u64.to_le_bytes())), "insertedItemCount");
    assert!(parse_header(&with_field(OFFSET_INSERTED_ITEM_COUNT, &4u64.to_le_bytes())).is_ok());
    assert!(parse_header(&with_field(OFFSET_INSERTED_ITEM_COUNT, &0u64.to_le_bytes())).is_ok());
}

#[test]
fn target_fpp_rule() {
    for p in [0.0, -0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let bad = with_field(OFFSET_TARGET_FPP, &p.to_bits().to_le_bytes());
        assert_eq!(invalid_field(&bad), "targetFpp", "p = {p}");
    }
    let tiny = with_field(OFFSET_TARGET_FPP, &f64::MIN_POSITIVE.to_bits().to_le_bytes());
    assert!(parse_header(&tiny).is_ok());
}

#[test]
fn payload_length_rule() {
    for len in [0u64, 7, 9, 16, u64::MAX] {
        assert_eq!(invalid_field(&with_field(OFFSET_PAYLOAD_LENGTH, &len.to_le_bytes())), "payloadLength");
    }
}

#[test]
fn first_broken_field_is_named() {
    let mut bytes = with_field(OFFSET_RESERVED, &7u32.to_le_bytes());
    bytes[OFFSET_PAYLOAD_LENGTH..OFFSET_PAYLOAD_LENGTH + 8].copy_from_slice(&3u64.to_le_bytes());
    bytes[OFFSET_HASH_COUNT..OFFSET_HASH_COUNT + 4].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(invalid_field(&bytes), "hashCount");
}

#[test]
fn steps_are_checked_in_order() {
    // Bad magic wins over a bad version, a bad version over a bad field.
    let mut bytes = with_field(OFFSET_MAGIC, b"XXXX");
    bytes[OFFSET_FORMAT_VERSION] = 9;
    assert_eq!(decode(&bytes).unwrap_err().code(), "badMagic");
    let mut bytes = with_field(OFFSET_FORMAT_VERSION, &9u16.to_le_bytes());
    bytes[OFFSET_HASH_PROTOCOL_VERSION] = 9;
    assert_eq!(decode(&bytes).unwrap_err().code(), "unsupportedFormatVersion");
    let mut bytes = with_field(OFFSET_HASH_PROTOCOL_VERSION, &9u16.to_le_bytes());
    bytes[OFFSET_HASH_COUNT] = 0;
    assert_eq!(decode(&bytes).unwrap_err().code(), "unsupportedHashProtocol");
    // A declared 2^40-bit payload is a header error, not "truncated".
    let mut bytes = with_field(OFFSET_BIT_COUNT, &(1u64 << 40).to_le_bytes());
    bytes[OFFSET_PAYLOAD_LENGTH..OFFSET_PAYLOAD_LENGTH + 8].copy_from_slice(&(1u64 << 37).to_le_bytes());
    assert_eq!(decode(&bytes).unwrap_err().code(), "invalidHeader");
    // Short payload, then trailing bytes, then the checksum.
    let good = valid_file();
    assert_eq!(decode(&good[..good.len() - 1]), Err(LoadError::Truncated { needed: 104, got: 103 }));
    let mut long = good.clone();
    long.push(0);
    assert_eq!(decode(&long), Err(LoadError::LengthMismatch { expected: 104, got: 105 }));
    let mut flipped = good;
    flipped[OFFSET_PAYLOAD] ^= 1;
    assert_eq!(decode(&flipped), Err(LoadError::ChecksumMismatch));
}

#[test]
fn round_trip_and_stream() {
    let filter = small_filter();
    let bytes = encode(&filter, 42).unwrap();
    let snapshot = decode(&bytes).unwrap();
    assert_eq!(snapshot.filter, filter);
    assert_eq!(encode(&snapshot.filter, 42).unwrap(), bytes);
    let mut stream = StreamDecoder::new();
    assert_eq!(stream.total_length(), None);
    for byte in &bytes {
        stream.push(std::slice::from_ref(byte)).unwrap();
    }
    assert_eq!(stream.total_length(), Some(104));
    assert!(stream.is_complete());
    assert_eq!(stream.finish().unwrap(), snapshot);
}

#[test]
fn stream_replays_its_first_error() {
    let mut bytes = valid_file();
    bytes.push(0);
    let mut stream = StreamDecoder::new();
    let error = stream.push(&bytes).unwrap_err();
    assert_eq!(error.code(), "lengthMismatch");
    assert_eq!(stream.push(&[]), Err(error.clone()));
    assert!(stream.header().is_some());
    assert_eq!(stream.finish(), Err(error));
}

/// A valid header declaring 2^30 bits (the checksum is stale: steps 1–5 do
/// not read it).
fn largest_header() -> Vec<u8> {
    let mut bytes = with_field(OFFSET_BIT_COUNT, &(1u64 << 30).to_le_bytes());
    bytes[OFFSET_PAYLOAD_LENGTH..OFFSET_PAYLOAD_LENGTH + 8].copy_from_slice(&(1u64 << 27).to_le_bytes());
    bytes.truncate(HEADER_LENGTH);
    bytes
}

#[test]
fn stream_limit_is_decided_at_the_header() {
    let header = largest_header();
    let total = HEADER_LENGTH as u64 + (1 << 27);
    // Over the limit: refused as the header completes, whatever follows in
    // the same chunk, and replayed.
    let mut chunk = header.clone();
    chunk.extend_from_slice(&[0; 904]);
    let mut stream = StreamDecoder::new().with_max_length(1000);
    let error = stream.push(&chunk).unwrap_err();
    assert_eq!(error, LoadError::TooLarge { declared: total, limit: 1000 });
    assert_eq!(stream.push(&[]), Err(error.clone()));
    assert_eq!(stream.finish(), Err(error));
    // A bad header is still reported as itself, not as tooLarge.
    let mut bad = header.clone();
    bad[0] = b'X';
    assert_eq!(StreamDecoder::new().with_max_length(10).push(&bad).unwrap_err().code(), "badMagic");
    // Exactly at the limit: accepted, nothing reserved yet, then truncated.
    let mut stream = StreamDecoder::with_external_checksum().with_max_length(total);
    stream.push(&header).unwrap();
    assert_eq!(stream.total_length(), Some(total));
    assert_eq!(stream.finish().unwrap_err().code(), "truncated");
    // The whole-buffer path has no limit of its own (loadSnapshot sees the bytes).
    let file = valid_file();
    let mut stream = StreamDecoder::new().with_max_length(file.len() as u64);
    stream.push(&file).unwrap();
    assert!(stream.finish().is_ok());
}

#[test]
fn stream_grows_the_payload_in_steps_and_still_matches_decode() {
    // A 4 MiB payload (growth steps of 64, 128, 256 KiB, then the whole),
    // fed in 1,000-byte chunks (not a multiple of 8: words split across
    // chunks).
    let spec = BloomSpec { expected_item_count: 10_000_000, target_false_positive_rate: 0.2 };
    let members: Vec<[u8; 32]> = (0..1000).map(|i| digest(&format!("m{i}"))).collect();
    let filter = ArtifactBloomFilter::create(&members, &spec).unwrap();
    assert!(filter.bit_count() / 8 > 2 << 20, "a payload large enough to grow in steps");
    let bytes = encode(&filter, 5).unwrap();
    let mut stream = StreamDecoder::new();
    for chunk in bytes.chunks(1000) {
        stream.push(chunk).unwrap();
    }
    assert_eq!(stream.finish().unwrap(), decode(&bytes).unwrap());
}

#[test]
fn encoder_refuses_unloadable_files() {
    let filter = small_filter();
    assert_eq!(encode(&filter, MAX_CATALOG_VERSION + 1), Err(EncodeError::CatalogVersionOutOfRange(1 << 53)));
    assert_eq!(encode(&filter, MAX_CATALOG_VERSION + 1).unwrap_err().code(), "catalogVersionOutOfRange");
    assert!(encode(&filter, MAX_CATALOG_VERSION).is_ok());
}

#[test]
fn header_serializes_for_js() {
    let header = parse_header(&valid_file()).unwrap();
    let json = serde_json::to_value(&header).unwrap();
    assert_eq!(json["formatVersion"], 1);
    assert_eq!(json["hashProtocolVersion"], 1);
    assert_eq!(json["catalogVersion"], 42);
    assert_eq!(json["bitCount"], 64);
    assert_eq!(json["expectedItemCount"], 4);
    assert_eq!(json["insertedItemCount"], 3);
    assert_eq!(json["targetFpp"], 0.1);
    assert_eq!(json["payloadLength"], 8);
    assert_eq!(json["checksum"], header::to_hex(&header.checksum));
    assert_eq!(json["checksum"].as_str().unwrap().len(), 64);
}

#[test]
fn codes_and_fields() {
    // The sentence is built in JS (lib/core/errors.js); the core keeps the code
    // and the numbers, which `Display` lists.
    let invalid = LoadError::InvalidHeader {
        field: "reserved",
        expected: "0",
        bound: None,
        got: crate::error::Value::Integer(7),
    };
    let cases = [
        (LoadError::Truncated { needed: 96, got: 3 }, "truncated", "truncated (expected 96, got 3, headerLength 96)"),
        (LoadError::BadMagic { found: *b"TLBF" }, "badMagic", "badMagic (expected 41 42 46 31, got 54 4c 42 46)"),
        (
            LoadError::UnsupportedFormatVersion(2),
            "unsupportedFormatVersion",
            "unsupportedFormatVersion (expected 1, got 2)",
        ),
        (
            LoadError::UnsupportedHashProtocol(2),
            "unsupportedHashProtocol",
            "unsupportedHashProtocol (expected 1, keyed 3, got 2)",
        ),
        (invalid, "invalidHeader", "invalidHeader (field reserved, rule 0, got 7)"),
        (
            LoadError::LengthMismatch { expected: 104, got: 105 },
            "lengthMismatch",
            "lengthMismatch (expected 104, got 105, headerLength 96)",
        ),
        (LoadError::ChecksumMismatch, "checksumMismatch", "checksumMismatch"),
        (
            LoadError::TooLarge { declared: 134_217_824, limit: 1000 },
            "tooLarge",
            "tooLarge (declared 134217824, limit 1000)",
        ),
        (
            LoadError::OutOfMemory { requested: 134_217_728 },
            "outOfMemory",
            "outOfMemory (requested 134217728, purpose for the snapshot's bit array)",
        ),
    ];
    for (error, code, text) in cases {
        assert_eq!(error.code(), code);
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn unsealed_is_the_file_with_a_zero_checksum_and_never_loads() {
    let sealed = valid_file();
    let unsealed = encode_unsealed(&small_filter(), 42).unwrap();
    assert_eq!(unsealed.len(), sealed.len());
    assert_eq!(unsealed[..OFFSET_CHECKSUM], sealed[..OFFSET_CHECKSUM]);
    assert_eq!(unsealed[OFFSET_CHECKSUM..HEADER_LENGTH], [0; CHECKSUM_LENGTH]);
    assert_eq!(unsealed[HEADER_LENGTH..], sealed[HEADER_LENGTH..]);
    assert!(matches!(decode(&unsealed), Err(LoadError::ChecksumMismatch)));
}

#[test]
fn from_bits_is_decode_of_the_file_of_header_and_bits() {
    let file = valid_file();
    let loaded = decode(&file).unwrap();
    let (header, bits) = (loaded.header.clone(), loaded.filter.bits().clone());
    assert_eq!(checksum_of_bits(&header, &bits), header.checksum);
    assert_eq!(from_bits(header.clone(), bits.clone(), header.checksum), Ok(loaded));

    // Step 8 on the caller's SHA-256, as decode_with: one flipped bit fails it.
    let mut flipped = bits.clone();
    flipped.or_word(0, !bits.words()[0]);
    let computed = checksum_of_bits(&header, &flipped);
    assert_eq!(from_bits(header.clone(), flipped, computed), Err(LoadError::ChecksumMismatch));
    // Step 7: bits of another length than the header's bitCount.
    let longer = BitArray::zeroed(2).unwrap();
    assert_eq!(
        from_bits(header.clone(), longer, header.checksum),
        Err(LoadError::LengthMismatch { expected: 104, got: 112 })
    );
    // Step 5 for a header made by hand, before anything else.
    let broken = Header { hash_count: 0, ..header.clone() };
    assert!(matches!(
        from_bits(broken, bits, header.checksum),
        Err(LoadError::InvalidHeader { field: "hashCount", .. })
    ));
}

#[test]
fn sealed_header_then_the_words_is_the_encoded_file() {
    let digests: Vec<[u8; 32]> = (0u8..50).map(|i| [i; 32]).collect();
    let spec = crate::layout::BloomSpec { expected_item_count: 100, target_false_positive_rate: 0.01 };
    let filter = crate::filter::ArtifactBloomFilter::create(&digests, &spec).unwrap();
    let mut file = sealed_header(&filter, 7).unwrap().to_vec();
    for word in filter.bits().words() {
        file.extend_from_slice(&word.to_le_bytes());
    }
    assert_eq!(file, encode(&filter, 7).unwrap());
    assert!(sealed_header(&filter, u64::MAX).is_err());
}

mod keyed {
    use super::*;
    use crate::delta;
    use crate::keyed::{Hashing, SnapshotKey, KEYED_HASH_PROTOCOL_VERSION};

    fn key(byte: u8) -> SnapshotKey {
        SnapshotKey::new(&[byte; 32]).unwrap()
    }

    fn members(count: usize, tag: &str) -> Vec<[u8; 32]> {
        (0..count).map(|i| digest(&format!("{tag}{i}"))).collect()
    }

    /// Steps 1–8 only: step 9 is the test's.
    fn locked(bytes: &[u8]) -> Snapshot {
        decode_with(bytes, checksum_of).unwrap()
    }

    fn spec(n: u64) -> BloomSpec {
        BloomSpec { expected_item_count: n, target_false_positive_rate: 0.01 }
    }

    #[test]
    fn header_holds_protocol_3_and_the_key_check() {
        let filter = ArtifactBloomFilter::create_keyed(&members(50, "k"), &spec(100), key(1)).unwrap();
        let bytes = encode(&filter, 7).unwrap();
        let header = parse_header(&bytes).unwrap();
        assert_eq!(header.hash_protocol_version, KEYED_HASH_PROTOCOL_VERSION);
        assert_eq!(header.reserved, key(1).key_check());
        // The key appears nowhere in the file.
        assert!(!bytes.windows(32).any(|w| w == [1u8; 32]));
        // Protocol 1 still refuses a non-zero reserved field; 2 (left
        // unassigned: the reference's vectors use it) and 4 are unsupported.
        assert_eq!(invalid_field(&with_field(OFFSET_RESERVED, &1u32.to_le_bytes())), "reserved");
        for unassigned in [2u16, 4] {
            let other = with_field(OFFSET_HASH_PROTOCOL_VERSION, &unassigned.to_le_bytes());
            assert_eq!(parse_header(&other), Err(LoadError::UnsupportedHashProtocol(unassigned)));
        }
    }

    #[test]
    fn step_9_key_rules() {
        let plain = valid_file();
        assert!(locked(&plain).unlock(None).is_ok());
        assert_eq!(locked(&plain).unlock(Some(&key(1))).unwrap_err(), LoadError::NotKeyed);
        let keyed = encode(&ArtifactBloomFilter::create_keyed(&members(3, "a"), &spec(4), key(1)).unwrap(), 1).unwrap();
        assert_eq!(locked(&keyed).unlock(None).unwrap_err(), LoadError::KeyRequired);
        assert_eq!(locked(&keyed).unlock(Some(&key(2))).unwrap_err(), LoadError::WrongKey);
        assert!(locked(&keyed).unlock(Some(&key(1))).is_ok());
    }

    #[test]
    fn keyed_round_trip_answers_members_and_re_encodes_byte_for_byte() {
        let digests = members(2000, "m");
        let built = ArtifactBloomFilter::create_keyed(&digests, &spec(2000), key(9)).unwrap();
        let bytes = encode(&built, 3).unwrap();
        let locked = locked(&bytes);
        // Without its key a decoded keyed filter says "maybe" to everything.
        assert!(locked.filter.might_contain(&digest("absent")));
        assert_eq!(locked.filter.count_maybe(&digest("x").repeat(3)), Some(3));
        assert_eq!(encode(&locked.filter, 3).unwrap(), bytes);
        let snapshot = locked.unlock(Some(&key(9))).unwrap();
        assert!(digests.iter().all(|d| snapshot.filter.might_contain(d)));
        let packed = digests.concat();
        assert_eq!(snapshot.filter.count_maybe(&packed), Some(2000));
        assert_eq!(snapshot.filter.might_contain_packed(&packed).unwrap().unwrap(), vec![1u8; 2000]);
        assert_eq!(encode(&snapshot.filter, 3).unwrap(), bytes);
        // Packed and separate builds agree, and equal protocol 1 over the MACs.
        let total = packed.len() as u64;
        let mut pieces = ArtifactBloomFilter::begin_packed_keyed(total, &spec(2000), key(9)).unwrap();
        pieces.insert_packed(&packed);
        assert_eq!(pieces.bits(), built.bits());
        let macs: Vec<[u8; 32]> = digests.iter().map(|d| key(9).mac(d)).collect();
        let over_macs = ArtifactBloomFilter::create(&macs, &spec(2000)).unwrap();
        assert_eq!(over_macs.bits(), built.bits());
    }

    #[test]
    fn union_needs_the_same_hashing() {
        let a = ArtifactBloomFilter::create_keyed(&members(10, "a"), &spec(40), key(1)).unwrap();
        let b = ArtifactBloomFilter::create_keyed(&members(10, "b"), &spec(40), key(1)).unwrap();
        let c = ArtifactBloomFilter::create_keyed(&members(10, "c"), &spec(40), key(2)).unwrap();
        let p = ArtifactBloomFilter::create(&members(10, "p"), &spec(40)).unwrap();
        assert!(matches!(ArtifactBloomFilter::union(&a, &b).unwrap().hashing(), Hashing::Keyed { .. }));
        assert!(ArtifactBloomFilter::union(&a, &c).is_err());
        assert!(ArtifactBloomFilter::union(&a, &p).is_err());
    }

    #[test]
    fn delta_between_keyed_versions() {
        let all = members(300, "d");
        let base = ArtifactBloomFilter::create_keyed(&all[..200], &spec(400), key(5)).unwrap();
        let target = ArtifactBloomFilter::create_keyed(&all, &spec(400), key(5)).unwrap();
        let bytes = delta::encode(&base, 1, &target, 2).unwrap();
        let applied = delta::apply(&base, 1, &bytes).unwrap();
        assert_eq!(applied.header.hash_protocol_version, KEYED_HASH_PROTOCOL_VERSION);
        // The result is what a full download of the target loads, checksum included.
        let full = encode(&target, 2).unwrap();
        assert_eq!(encode(&applied.filter, 2).unwrap(), full);
        assert_eq!(applied.header, locked(&full).header);
        assert_eq!(decode(&full).unwrap_err(), LoadError::KeyRequired);
        let unlocked = applied.unlock(Some(&key(5))).unwrap();
        assert!(all.iter().all(|d| unlocked.filter.might_contain(d)));
    }
}
