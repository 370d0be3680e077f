//! The other seed systems: CRDT laws of the mergeable filter, the scalable
//! filter's compound rate, the sizing model against measured rates, and a
//! seeded no-panic run over every decoder. All randomness is a fixed-seed
//! ChaCha stream, so every run sees the same inputs.

use std::cell::Cell;

use artifact_bloom::variants::mergeable::{Delta, MergeableBloomFilter, MergeableError};
use artifact_bloom::variants::scalable::{ScalableBloomFilter, ScalableError};
use artifact_bloom::variants::tlbf::TlBloom;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use sha2::{Digest, Sha256};

const SEED: [u8; 32] = *b"artifact-bloom systems seed 0001";

fn rng(salt: u8) -> TestRng {
    let mut seed = SEED;
    seed[31] = salt;
    TestRng::from_seed(RngAlgorithm::ChaCha, &seed)
}

fn runner(cases: u32, salt: u8) -> TestRunner {
    // No persistence: a failure prints its input instead of writing files.
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, rng(salt))
}

fn items(max: usize) -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..16), 0..max)
}

/// 30 words, k = 7: up to two items encode sparse, more encode dense.
fn replica(items: &[Vec<u8>]) -> MergeableBloomFilter {
    let mut filter = MergeableBloomFilter::create(200, 0.01).unwrap();
    for item in items {
        filter.add(item);
    }
    filter
}

fn joined(a: &MergeableBloomFilter, b: &MergeableBloomFilter) -> MergeableBloomFilter {
    let mut out = a.clone();
    out.piece(b).unwrap();
    out
}

#[test]
fn piece_is_a_join_and_encodings_round_trip() {
    let (sparse, dense) = (Cell::new(0), Cell::new(0));
    runner(300, 1)
        .run(&(items(40), items(40), items(3)), |(a_items, b_items, c_items)| {
            let (a, b, c) = (replica(&a_items), replica(&b_items), replica(&c_items));
            prop_assert_eq!(joined(&a, &a), a.clone(), "idempotent");
            prop_assert_eq!(joined(&a, &b), joined(&b, &a), "commutative");
            prop_assert_eq!(joined(&joined(&a, &b), &c), joined(&a, &joined(&b, &c)), "associative");
            let all: Vec<Vec<u8>> = [a_items, b_items, c_items].concat();
            let merged = joined(&joined(&a, &b), &c);
            prop_assert_eq!(&merged, &replica(&all), "OR equals building from the union");
            prop_assert!(all.iter().all(|x| merged.might_contain(x)), "no false negatives");
            for filter in [&a, &b, &c, &merged] {
                let bytes = filter.encode().unwrap();
                let counter = if bytes[6] == 2 { &sparse } else { &dense };
                counter.set(counter.get() + 1);
                prop_assert_eq!(&MergeableBloomFilter::decode(&bytes).unwrap(), filter);
            }
            Ok(())
        })
        .unwrap();
    println!("mergeable round trips: {} sparse, {} dense", sparse.get(), dense.get());
    assert!(sparse.get() > 50 && dense.get() > 50);
}

#[test]
fn deltas_in_any_order_equal_the_merged_state() {
    let adds = prop::collection::vec((prop::collection::vec(any::<u8>(), 0..16), 0..3usize, any::<u64>()), 1..40);
    runner(300, 2)
        .run(&adds, |adds| {
            let mut replicas = vec![replica(&[]); 3];
            let mut deltas: Vec<(u64, Delta)> = Vec::new();
            for (item, at, order) in &adds {
                let before = replicas[*at].clone();
                let delta = replicas[*at].add(item);
                // Sparse, sorted, at most k words, and before ⊔ delta = after.
                prop_assert!(delta.words().len() <= delta.hash_count() as usize);
                prop_assert!(delta.words().windows(2).all(|w| w[0].0 < w[1].0));
                let mut patched = before;
                patched.piece_delta(&delta).unwrap();
                prop_assert_eq!(&patched, &replicas[*at]);
                // The delta's words alone reproduce the add on an empty filter.
                let (mut fresh, mut from_delta) = (replica(&[]), replica(&[]));
                from_delta.piece_delta(&fresh.add(item)).unwrap();
                prop_assert_eq!(&from_delta, &fresh);
                prop_assert_eq!(&Delta::decode(&delta.encode().unwrap()).unwrap(), &delta);
                deltas.push((*order, delta));
            }
            let merged = joined(&joined(&replicas[0], &replicas[1]), &replicas[2]);
            deltas.sort_by_key(|(order, _)| *order);
            let mut shuffled = replica(&[]);
            for (_, delta) in deltas.iter().chain(deltas.iter().rev()) {
                shuffled.piece_delta(delta).unwrap(); // twice each: idempotent
            }
            prop_assert_eq!(&shuffled, &merged);
            prop_assert!(adds.iter().all(|(x, _, _)| merged.might_contain(x)));
            Ok(())
        })
        .unwrap();
}

#[test]
fn only_compatible_filters_piece() {
    let mut a = MergeableBloomFilter::create(200, 0.01).unwrap();
    let mut b = MergeableBloomFilter::create(200, 0.001).unwrap();
    let delta = b.add(b"bob");
    assert_eq!(a.piece(&b), Err(MergeableError::IncompatibleFilters));
    assert_eq!(a.piece_delta(&delta), Err(MergeableError::IncompatibleFilters));
    assert_eq!(a.encode(), MergeableBloomFilter::create(200, 0.01).unwrap().encode(), "unchanged");
    assert_eq!(MergeableBloomFilter::create(0, 0.1), Err(MergeableError::InvalidExpectedItemCount));
    assert_eq!(MergeableBloomFilter::create(1, 1.0), Err(MergeableError::InvalidFalsePositiveRate));
    assert_eq!(MergeableBloomFilter::create(1 << 30, 0.01), Err(MergeableError::FilterTooLarge));
    // A state is not a delta and a delta is not a state.
    assert_eq!(Delta::decode(&a.encode().unwrap()), Err(MergeableError::UnexpectedKind));
    assert_eq!(MergeableBloomFilter::decode(&delta.encode().unwrap()), Err(MergeableError::UnexpectedKind));
    // The seed's sample: alice and bob on two replicas.
    let (mut ra, mut rb) = (a.clone(), a.clone());
    let d = ra.add(b"alice");
    ra.piece_delta(&d).unwrap();
    rb.add(b"bob");
    ra.piece(&rb).unwrap();
    assert!(ra.might_contain(b"alice") && ra.might_contain(b"bob"));
}

#[test]
fn error_codes_are_distinct_camel_case() {
    let code_sets: [Vec<&str>; 2] =
        [MergeableError::ALL.iter().map(|e| e.code()).collect(), ScalableError::ALL.iter().map(|e| e.code()).collect()];
    for mut codes in code_sets {
        assert!(codes.iter().all(|c| c.starts_with(|ch: char| ch.is_ascii_lowercase())));
        assert!(codes.iter().all(|c| c.chars().all(|ch| ch.is_ascii_alphanumeric())));
        let count = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), count);
    }
}

#[test]
fn scalable_decoder_names_broken_stages() {
    let mut filter = ScalableBloomFilter::new(2, 0.1, 2, 0.5).unwrap();
    (0..3u32).for_each(|i| filter.add(&i.to_le_bytes()).unwrap()); // stages of 2/2 and 1/4 items
    let bytes = filter.encode().unwrap();
    let stage1 = 40 + 32 + u64::from_le_bytes(bytes[56..64].try_into().unwrap()) as usize / 8;
    let patched = |at: usize, value: &[u8]| {
        let mut copy = bytes.clone();
        copy[at..at + value.len()].copy_from_slice(value);
        ScalableBloomFilter::decode(&reseal(copy)).err()
    };
    assert_eq!(patched(36, &0u32.to_le_bytes()), Some(ScalableError::ZeroStageCount));
    assert_eq!(patched(36, &257u32.to_le_bytes()), Some(ScalableError::FilterTooLarge));
    assert_eq!(patched(40, &3u64.to_le_bytes()), Some(ScalableError::StageCapacityMismatch));
    assert_eq!(patched(48, &3u64.to_le_bytes()), Some(ScalableError::ItemCountExceedsCapacity));
    assert_eq!(patched(48, &1u64.to_le_bytes()), Some(ScalableError::StageNotFull));
    assert_eq!(patched(stage1 + 8, &0u64.to_le_bytes()), Some(ScalableError::EmptyStage));
    assert_eq!(patched(stage1 + 16, &(1u64 << 31).to_le_bytes()), Some(ScalableError::FilterTooLarge));
    assert_eq!(patched(stage1 + 28, &[1]), Some(ScalableError::NonZeroReserved));
    assert_eq!(patched(0, &[]), None);
}

/// Fresh 16-byte items, tagged so members and non-members can never collide.
fn tagged(rng: &mut TestRng, tag: u8, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let mut item = vec![tag; 17];
            rng.fill_bytes(&mut item[1..]);
            item
        })
        .collect()
}

#[test]
fn scalable_filter_keeps_its_rate_at_ten_times_capacity() {
    let (capacity, target, growth, tightening) = (1000u64, 0.01, 2u32, 0.5);
    let mut rng = rng(3);
    let members = tagged(&mut rng, 0, 10 * capacity as usize);
    let strangers = tagged(&mut rng, 1, 100_000);
    let mut filter = ScalableBloomFilter::new(capacity, target, growth, tightening).unwrap();
    for item in &members {
        filter.add(item).unwrap();
    }
    assert!(members.iter().all(|x| filter.might_contain(x)), "no false negatives");
    let positives = strangers.iter().filter(|x| filter.might_contain(x)).count();
    let observed = positives as f64 / strangers.len() as f64;
    let (seed, stages, fills) = (String::from_utf8_lossy(&SEED), filter.stage_count(), filter.stage_fill_ratios());
    println!("scalable: seed {seed:?}/3, c0 = {capacity}, p = {target}, g = {growth}, r = {tightening}");
    println!("  {} items in {stages} stages ({} bits), fills {fills:.4?}", filter.item_count(), filter.bit_count());
    println!(
        "  observed FPP {observed} on {} non-members (estimate {:.5}, bound {})",
        strangers.len(),
        filter.estimated_fpp(),
        2.0 * target
    );
    assert_eq!(filter.stage_count(), 4); // 1000 + 2000 + 4000 + 8000 ≥ 10,000
    assert!(observed < 2.0 * target, "observed {observed}");
    let decoded = ScalableBloomFilter::decode(&filter.encode().unwrap()).unwrap();
    assert_eq!(decoded, filter);
    assert!(strangers[..1000].iter().all(|x| decoded.might_contain(x) == filter.might_contain(x)));
}

#[test]
fn scalable_filter_limits_and_validation() {
    assert_eq!(ScalableBloomFilter::new(0, 0.01, 2, 0.5), Err(ScalableError::InvalidInitialCapacity));
    assert_eq!(ScalableBloomFilter::new(10, f64::NAN, 2, 0.5), Err(ScalableError::InvalidFalsePositiveRate));
    assert_eq!(ScalableBloomFilter::new(10, 0.01, 0, 0.5), Err(ScalableError::InvalidGrowthFactor));
    assert_eq!(ScalableBloomFilter::new(10, 0.01, 2, 1.0), Err(ScalableError::InvalidTighteningRatio));
    assert_eq!(ScalableBloomFilter::new(1 << 40, 0.01, 2, 0.5), Err(ScalableError::FilterTooLarge));
    // A second stage of 10^9 items cannot fit 2^30 bits: the add fails, the
    // chain is unchanged and still answers for what it holds.
    let mut filter = ScalableBloomFilter::new(1000, 0.01, 1_000_000, 0.5).unwrap();
    for i in 0..1000u32 {
        filter.add(&i.to_le_bytes()).unwrap();
    }
    let before = filter.clone();
    assert_eq!(filter.add(b"one too many"), Err(ScalableError::FilterTooLarge));
    assert_eq!(filter, before);
    assert!((0..1000u32).all(|i| filter.might_contain(&i.to_le_bytes())));
    // g = 1 grows by one small stage per item until the stage limit.
    let mut tiny = ScalableBloomFilter::new(1, 0.5, 1, 0.99).unwrap();
    for i in 0..256u32 {
        tiny.add(&i.to_le_bytes()).unwrap();
    }
    assert_eq!(tiny.stage_count(), 256);
    assert_eq!(tiny.add(b"257th"), Err(ScalableError::FilterTooLarge));
    assert_eq!(ScalableBloomFilter::decode(&tiny.encode().unwrap()).unwrap(), tiny);
}

// ---- No-panic decoding -------------------------------------------------------

/// Decodes and re-encodes; `Err` carries the typed error's code.
type Codec = fn(&[u8]) -> Result<Vec<u8>, &'static str>;

fn below(rng: &mut TestRng, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

/// Values that sit on the validators' edges, written over header fields.
const INTERESTING: [u64; 12] = [0, 1, 2, 3, 63, 64, 65, 4096, 4097, (1 << 30) + 64, u32::MAX as u64, u64::MAX];

/// One mutation of a valid encoding: bit flips, truncation, insertion,
/// deletion, a random or edge-value header overwrite, or appended bytes.
fn mutate(rng: &mut TestRng, mut bytes: Vec<u8>) -> Vec<u8> {
    match below(rng, 7) {
        0 => (0..1 + below(rng, 4)).for_each(|_| {
            let at = below(rng, bytes.len());
            if let Some(b) = bytes.get_mut(at) {
                *b ^= 1 << below(rng, 8);
            }
        }),
        1 => bytes.truncate(below(rng, bytes.len() + 1)),
        2 => {
            let at = below(rng, bytes.len() + 1);
            let mut extra = vec![0u8; 1 + below(rng, 12)];
            rng.fill_bytes(&mut extra);
            bytes.splice(at..at, extra);
        }
        3 => {
            let at = below(rng, bytes.len() + 1);
            let end = (at + 1 + below(rng, 16)).min(bytes.len());
            bytes.drain(at..end.max(at));
        }
        4 => {
            let at = below(rng, 48.min(bytes.len()));
            let end = (at + 1 + below(rng, 8)).min(bytes.len());
            rng.fill_bytes(&mut bytes[at..end.max(at)]);
        }
        5 => {
            let value = INTERESTING[below(rng, INTERESTING.len())].to_le_bytes();
            let width = if below(rng, 2) == 0 { 4 } else { 8 };
            let at = 4 * below(rng, 16);
            if at + width <= bytes.len() {
                bytes[at..at + width].copy_from_slice(&value[..width]);
            }
        }
        _ => {
            let mut extra = vec![0u8; 1 + below(rng, 8)];
            rng.fill_bytes(&mut extra);
            bytes.extend_from_slice(&extra);
        }
    }
    bytes
}

/// Replaces the last 32 bytes with the SHA-256 of the rest, so a mutation
/// reaches the structural checks behind the checksum.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(split) = bytes.len().checked_sub(32) {
        let checksum = Sha256::digest(&bytes[..split]);
        bytes[split..].copy_from_slice(&checksum);
    }
    bytes
}

fn fuzz(name: &str, salt: u8, codec: Codec, corpus: &[Vec<u8>], sealed: bool) {
    const RUNS: usize = 100_000;
    let mut rng = rng(salt);
    let mut codes = std::collections::BTreeMap::<&str, usize>::new();
    for run in 0..RUNS {
        let input = if run % 4 == 0 {
            // Random bytes, most behind a valid magic and version.
            let mut bytes = vec![0u8; below(&mut rng, 160)];
            rng.fill_bytes(&mut bytes);
            if run % 8 == 0 && bytes.len() >= 8 {
                bytes[..8].copy_from_slice(&corpus[0][..8]);
            }
            bytes
        } else {
            let pick = below(&mut rng, corpus.len());
            mutate(&mut rng, corpus[pick].clone())
        };
        let input = if sealed && run % 2 == 1 { reseal(input) } else { input };
        let outcome = std::panic::catch_unwind(|| codec(&input))
            .unwrap_or_else(|_| panic!("{name} panicked on {}", hex::encode(&input)));
        match outcome {
            Ok(again) => {
                assert_eq!(again, input, "{name}: accepted input does not re-encode to itself");
                *codes.entry("ok").or_default() += 1;
            }
            Err(code) => *codes.entry(code).or_default() += 1,
        }
    }
    println!("{name}: {RUNS} inputs → {codes:?}");
    assert!(codes.len() >= 6, "{name}: too few distinct outcomes, the mutations miss the validators");
}

#[test]
fn tlbf_decoder_never_panics() {
    let mut corpus = Vec::new();
    for (n, p) in [(4, 0.1), (3, 0.5), (10, 0.01), (50, 0.2)] {
        let mut filter = TlBloom::with_rate(n, p).unwrap();
        corpus.push(filter.to_bytes().unwrap());
        (0..n as u32).for_each(|i| filter.insert(&i.to_le_bytes()));
        corpus.push(filter.to_bytes().unwrap());
    }
    fuzz("tlbf", 10, |b| TlBloom::from_bytes(b).map(|f| f.to_bytes().unwrap()).map_err(|e| e.code()), &corpus, false);
}

fn mergeable_corpus() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut states, mut deltas) = (Vec::new(), Vec::new());
    for (n, p, count) in [(200, 0.01, 0u32), (200, 0.01, 1), (200, 0.01, 40), (8, 0.1, 3), (1000, 0.05, 5)] {
        let mut filter = MergeableBloomFilter::create(n, p).unwrap();
        for i in 0..count {
            deltas.push(filter.add(&i.to_le_bytes()).encode().unwrap());
        }
        states.push(filter.encode().unwrap());
    }
    (states, deltas)
}

#[test]
fn mergeable_decoder_never_panics() {
    let (states, _) = mergeable_corpus();
    let codec: Codec = |b| MergeableBloomFilter::decode(b).map(|f| f.encode().unwrap()).map_err(|e| e.code());
    fuzz("mergeable", 11, codec, &states, true);
}

#[test]
fn delta_decoder_never_panics() {
    let (_, deltas) = mergeable_corpus();
    fuzz("delta", 12, |b| Delta::decode(b).map(|d| d.encode().unwrap()).map_err(|e| e.code()), &deltas, true);
}

#[test]
fn scalable_decoder_never_panics() {
    let mut corpus = Vec::new();
    for (capacity, count) in [(4u64, 0u32), (4, 3), (4, 30), (2, 9)] {
        let mut filter = ScalableBloomFilter::new(capacity, 0.1, 2, 0.5).unwrap();
        (0..count).for_each(|i| filter.add(&i.to_le_bytes()).unwrap());
        corpus.push(filter.encode().unwrap());
    }
    let codec: Codec = |b| ScalableBloomFilter::decode(b).map(|f| f.encode().unwrap()).map_err(|e| e.code());
    fuzz("scalable", 13, codec, &corpus, true);
}
