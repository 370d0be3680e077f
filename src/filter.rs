//! The artifact filter: the reference `ArtifactBloomFilter`, bit for bit.
//!
//! Built once from the complete digest list of a catalog version, then only
//! queried. There is no API that clears bits: a deletion means a new snapshot.

use crate::bits::BitArray;
use crate::fallible::{self, OutOfMemory};
use crate::keyed::{Hashing, SnapshotKey};
use crate::layout::{create_layout, BloomError, BloomSpec, Layout};
use crate::probe::{as_digest, Probe, DIGEST_LENGTH};

/// Digests whose probe starts the packed paths compute before using them.
const BLOCK: usize = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactBloomFilter {
    bits: BitArray,
    hash_count: u32,
    inserted_item_count: u64,
    /// The spec the filter was built for; ABF1 records it in the header.
    spec: BloomSpec,
    /// Protocol 1 (the digest is the probe input) or 2 (its HMAC is).
    hashing: Hashing,
}

impl ArtifactBloomFilter {
    /// Builds from separate digests, checking in the reference's order:
    /// the spec, then capacity, then every digest's length; then the bit
    /// array is reserved (`OutOfMemory` if it cannot be).
    pub fn create<D: AsRef<[u8]>>(digests: &[D], spec: &BloomSpec) -> Result<Self, BloomError> {
        let layout = create_layout(spec)?;
        if digests.len() as u64 > spec.expected_item_count {
            return Err(BloomError::CapacityExceeded);
        }
        if digests.iter().any(|d| d.as_ref().len() != DIGEST_LENGTH) {
            return Err(BloomError::InvalidDigest);
        }
        let mut filter = Self::empty_with_layout(layout, *spec)?;
        for digest in digests {
            // Length checked above.
            if let Some(digest) = as_digest(digest.as_ref()) {
                filter.insert(digest);
            }
        }
        filter.inserted_item_count = digests.len() as u64;
        Ok(filter)
    }

    /// Builds from `N × 32` packed bytes. A length that is not a multiple of
    /// 32 is `InvalidDigest` (after the capacity check, which counts the
    /// partial record too).
    pub fn create_packed(packed: &[u8], spec: &BloomSpec) -> Result<Self, BloomError> {
        let mut filter = Self::begin_packed(packed.len() as u64, spec)?;
        filter.insert_packed(packed);
        Ok(filter)
    }

    /// The first half of [`ArtifactBloomFilter::create_packed`] for input
    /// that arrives in pieces (the JS layer stages a large input a chunk at
    /// a time): every check of the whole `total_length` bytes, in the same
    /// order, then the empty bit array. The inserted count is already the
    /// whole input's; [`ArtifactBloomFilter::insert_packed`] must then be
    /// given all of it, in any number of pieces.
    pub fn begin_packed(total_length: u64, spec: &BloomSpec) -> Result<Self, BloomError> {
        let layout = create_layout(spec)?;
        let count = total_length.div_ceil(DIGEST_LENGTH as u64);
        if count > spec.expected_item_count {
            return Err(BloomError::CapacityExceeded);
        }
        if total_length % DIGEST_LENGTH as u64 != 0 {
            return Err(BloomError::InvalidDigest);
        }
        let mut filter = Self::empty_with_layout(layout, *spec)?;
        filter.inserted_item_count = count;
        Ok(filter)
    }

    /// Sets the bits of a piece of a build begun with
    /// [`ArtifactBloomFilter::begin_packed`]: whole digests (the caller
    /// checks that `packed.len()` is a multiple of 32; a partial tail would
    /// be ignored).
    pub fn insert_packed(&mut self, packed: &[u8]) {
        let (bits, hash_count) = (&mut self.bits, self.hash_count);
        probe_blocks(packed, &self.hashing, bits.bit_count(), |_, mut probe| {
            for _ in 0..hash_count {
                bits.set(probe.index);
                probe.advance();
            }
        });
    }

    /// An empty filter for the spec (no digests yet).
    pub fn empty(spec: &BloomSpec) -> Result<Self, BloomError> {
        Self::empty_with_layout(create_layout(spec)?, *spec)
    }

    /// The only allocation of a build: `bitCount / 8` bytes (≤ 128 MiB, the
    /// layout's cap), reserved fallibly.
    fn empty_with_layout(layout: Layout, spec: BloomSpec) -> Result<Self, BloomError> {
        Ok(ArtifactBloomFilter {
            bits: BitArray::zeroed((layout.bit_count / 64) as usize)?,
            hash_count: layout.hash_count,
            inserted_item_count: 0,
            spec,
            hashing: Hashing::Plain,
        })
    }

    /// Reassembles a filter from validated parts (the ABF1 decoder and the
    /// merge). The caller guarantees `bits` is non-empty and `hash_count` in
    /// 1..=32.
    pub fn from_parts(bits: BitArray, hash_count: u32, inserted_item_count: u64, spec: BloomSpec) -> Self {
        ArtifactBloomFilter { bits, hash_count, inserted_item_count, spec, hashing: Hashing::Plain }
    }

    /// [`ArtifactBloomFilter::create`] under hash protocol 2: each digest's
    /// bits are those of its HMAC under `key` (docs/ABF1.md, "Keyed snapshots").
    pub fn create_keyed<D: AsRef<[u8]>>(digests: &[D], spec: &BloomSpec, key: SnapshotKey) -> Result<Self, BloomError> {
        let layout = create_layout(spec)?;
        if digests.len() as u64 > spec.expected_item_count {
            return Err(BloomError::CapacityExceeded);
        }
        if digests.iter().any(|d| d.as_ref().len() != DIGEST_LENGTH) {
            return Err(BloomError::InvalidDigest);
        }
        let mut filter = Self::empty_with_layout(layout, *spec)?.with_hashing(Hashing::keyed(key));
        for digest in digests {
            if let Some(digest) = as_digest(digest.as_ref()) {
                filter.insert(digest);
            }
        }
        filter.inserted_item_count = digests.len() as u64;
        Ok(filter)
    }

    /// [`ArtifactBloomFilter::begin_packed`] under hash protocol 2 with `key`.
    pub fn begin_packed_keyed(total_length: u64, spec: &BloomSpec, key: SnapshotKey) -> Result<Self, BloomError> {
        Ok(Self::begin_packed(total_length, spec)?.with_hashing(Hashing::keyed(key)))
    }

    /// The same bits under another hashing: only for bits placed by that
    /// hashing (a build's empty array, a decoded file's header, or bits
    /// built from MACs already).
    pub(crate) fn with_hashing(mut self, hashing: Hashing) -> Self {
        self.hashing = hashing;
        self
    }

    /// How this filter turns digests into positions.
    pub fn hashing(&self) -> &Hashing {
        &self.hashing
    }

    /// Gives a keyed filter decoded without its key the key (the caller has
    /// checked it against the key check): queries then answer.
    pub fn set_key(&mut self, key: SnapshotKey) {
        if let Hashing::Keyed { key: slot, .. } = &mut self.hashing {
            *slot = Some(Box::new(key));
        }
    }

    /// The same filter with `count` as its insertedItemCount (the sorted
    /// builder's exact unique count, checked against capacity by it).
    pub(crate) fn with_inserted_item_count(mut self, count: u64) -> Self {
        self.inserted_item_count = count;
        self
    }

    /// Sets the k bits of a digest (building only; the count is the caller's).
    #[inline]
    pub(crate) fn insert(&mut self, digest: &[u8; DIGEST_LENGTH]) {
        let probe = match &self.hashing {
            Hashing::Plain => Probe::start(digest, self.bits.bit_count()),
            Hashing::Keyed { key: Some(key), .. } => Probe::start(&key.mac(digest), self.bits.bit_count()),
            // Not reachable: only builds insert, and a build's keyed filter has its key.
            Hashing::Keyed { key: None, .. } => return,
        };
        self.insert_probe(probe);
    }

    #[inline(always)]
    fn insert_probe(&mut self, mut probe: Probe) {
        for _ in 0..self.hash_count {
            self.bits.set(probe.index);
            probe.advance();
        }
    }

    /// `false` means definitely absent; `true` means "maybe — ask the
    /// repository at the same catalogVersion".
    #[inline]
    pub fn might_contain(&self, digest: &[u8; DIGEST_LENGTH]) -> bool {
        let probe = match &self.hashing {
            Hashing::Plain => Probe::start(digest, self.bits.bit_count()),
            Hashing::Keyed { key: Some(key), .. } => Probe::start(&key.mac(digest), self.bits.bit_count()),
            // Without its key a keyed filter cannot answer: "maybe" is never wrong.
            Hashing::Keyed { key: None, .. } => return true,
        };
        self.might_contain_probe(probe)
    }

    /// [`ArtifactBloomFilter::might_contain`] for a digest given as the two
    /// big-endian words its first 16 bytes hold (the rest never affects
    /// the walk): `first` from bytes 0..8, `second` from bytes 8..16.
    #[inline]
    /// A keyed filter needs the whole digest (its MAC depends on all 32
    /// bytes), so it answers "maybe" here: callers use `might_contain`.
    pub fn might_contain_words(&self, first: u64, second: u64) -> bool {
        if !matches!(self.hashing, Hashing::Plain) {
            return true;
        }
        self.might_contain_probe(Probe::from_words(first, second, self.bits.bit_count()))
    }

    #[inline(always)]
    fn might_contain_probe(&self, mut probe: Probe) -> bool {
        for _ in 0..self.hash_count {
            if !self.bits.get(probe.index) {
                return false;
            }
            probe.advance();
        }
        true
    }

    /// Answers for `N × 32` packed digests, one flag byte (0 or 1) each.
    /// `None` when the length is not a multiple of 32; `Some(Err)` when the
    /// N flag bytes cannot be reserved.
    pub fn might_contain_packed(&self, packed: &[u8]) -> Option<Result<Vec<u8>, OutOfMemory>> {
        if packed.len() % DIGEST_LENGTH != 0 {
            return None;
        }
        let mut flags = match fallible::with_capacity(packed.len() / DIGEST_LENGTH) {
            Ok(flags) => flags,
            Err(error) => return Some(Err(error)),
        };
        // Visited in order, so each flag is appended at its own index.
        if let Hashing::Keyed { key: None, .. } = self.hashing {
            flags.resize(packed.len() / DIGEST_LENGTH, 1);
            return Some(Ok(flags));
        }
        probe_blocks(packed, &self.hashing, self.bit_count(), |_, probe| {
            flags.push(u8::from(self.might_contain_probe(probe)));
        });
        Some(Ok(flags))
    }

    /// How many of `N × 32` packed digests answer "maybe".
    pub fn count_maybe(&self, packed: &[u8]) -> Option<u64> {
        if packed.len() % DIGEST_LENGTH != 0 {
            return None;
        }
        if let Hashing::Keyed { key: None, .. } = self.hashing {
            return Some((packed.len() / DIGEST_LENGTH) as u64);
        }
        let mut count = 0u64;
        probe_blocks(packed, &self.hashing, self.bit_count(), |_, probe| {
            count += u64::from(self.might_contain_probe(probe));
        });
        Some(count)
    }

    pub fn bit_count(&self) -> u64 {
        self.bits.bit_count()
    }

    pub fn hash_count(&self) -> u32 {
        self.hash_count
    }

    pub fn inserted_item_count(&self) -> u64 {
        self.inserted_item_count
    }

    pub fn spec(&self) -> &BloomSpec {
        &self.spec
    }

    pub fn bits(&self) -> &BitArray {
        &self.bits
    }

    /// `(−expm1(−kn/m))^k` with n the inserted count.
    pub fn estimate_false_positive_rate(&self) -> f64 {
        let m = self.bit_count() as f64;
        let n = self.inserted_item_count as f64;
        let k = f64::from(self.hash_count);
        (-(-k * n / m).exp_m1()).powf(k)
    }

    /// Set bits over all bits (a popcount).
    pub fn fill_ratio(&self) -> f64 {
        self.bits.fill_ratio()
    }

    /// The bit array as LSB-first bytes (the reference `serializeBits()`).
    pub fn serialize_bits(&self) -> Result<Vec<u8>, OutOfMemory> {
        self.bits.to_le_bytes()
    }

    /// Bitwise OR of two filters of the same shape. The inserted count is
    /// `merge`'s rule: identical filters (the same bits) count once (the
    /// larger count), otherwise the counts add up (exact for disjoint
    /// shards, an upper bound when they overlap). A count over `a`'s
    /// `expectedItemCount` is [`UnionError::CapacityExceeded`], refused
    /// before any bits are reserved, as `create` refuses more digests than
    /// the spec: a snapshot of it could not be published.
    pub fn union(a: &Self, b: &Self) -> Result<Self, UnionError> {
        // Bits placed by different hashings (or keys) mean nothing together.
        if a.bit_count() != b.bit_count() || a.hash_count != b.hash_count || a.hashing != b.hashing {
            return Err(UnionError::Incompatible);
        }
        let identical = a.bits == b.bits;
        let count = if identical {
            a.inserted_item_count.max(b.inserted_item_count)
        } else {
            a.inserted_item_count.saturating_add(b.inserted_item_count)
        };
        if count > a.spec.expected_item_count {
            return Err(UnionError::CapacityExceeded { count, capacity: a.spec.expected_item_count });
        }
        let mut bits = a.bits.try_clone().map_err(UnionError::OutOfMemory)?;
        bits.or_assign(&b.bits);
        Ok(ArtifactBloomFilter {
            bits,
            hash_count: a.hash_count,
            inserted_item_count: count,
            spec: a.spec,
            hashing: a.hashing.clone(),
        })
    }
}

/// Why [`ArtifactBloomFilter::union`] made no filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnionError {
    /// Another `bitCount` or `hashCount`.
    Incompatible,
    /// The union would hold more than `expectedItemCount` digests.
    CapacityExceeded { count: u64, capacity: u64 },
    /// The new bit array could not be reserved.
    OutOfMemory(OutOfMemory),
}

/// Visits the probe start of every packed digest, in order, a block at a time:
/// first all starts of a block, then `visit` for each. The starts have no
/// branch between them, so their divisions and loads pipeline instead of
/// waiting behind the bit tests' mispredicted early exits.
///
/// A keyed hashing first replaces the block's digests by their MACs (in an
/// 8 KiB buffer on the stack); a keyed filter without its key never gets here.
fn probe_blocks(packed: &[u8], hashing: &Hashing, bit_count: u64, mut visit: impl FnMut(usize, Probe)) {
    if let Hashing::Keyed { key: None, .. } = hashing {
        return;
    }
    let mut probes = [Probe::from_words(0, 0, bit_count); BLOCK];
    let mut macs = [0u8; DIGEST_LENGTH * BLOCK];
    for (block, digests) in packed.chunks(DIGEST_LENGTH * BLOCK).enumerate() {
        let digests = match hashing {
            Hashing::Plain => digests,
            Hashing::Keyed { key, .. } => {
                let macs = &mut macs[..digests.len()];
                if let Some(key) = key {
                    key.mac_packed(digests, macs);
                }
                &*macs
            }
        };
        let filled = start_block(digests, bit_count, &mut probes);
        for (offset, probe) in probes[..filled].iter().enumerate() {
            visit(block * BLOCK + offset, *probe);
        }
    }
}

/// The probe starts of up to `BLOCK` packed digests; returns how many.
#[cfg(not(target_arch = "wasm32"))]
fn start_block(digests: &[u8], bit_count: u64, probes: &mut [Probe; BLOCK]) -> usize {
    let mut filled = 0;
    for (probe, chunk) in probes.iter_mut().zip(digests.chunks_exact(DIGEST_LENGTH)) {
        if let Some(digest) = as_digest(chunk) {
            *probe = Probe::start(digest, bit_count);
            filled += 1;
        }
    }
    filled
}

/// The same starts in WebAssembly, byte-swapping each digest's two words
/// with one SIMD shuffle. wasm has no byte-swap instruction:
/// `u64::from_be_bytes` becomes ~22 shifts, masks and ors per word, which
/// measured about 10% of a whole batch query (bench/run.mjs). The words are
/// read as little-endian `u64`s (plain 8-byte loads) and put in one vector
/// by safe intrinsics: the crate's one `unsafe` stays in `fallible.rs`.
///
/// The module therefore requires WebAssembly SIMD (fixed-width, 128-bit),
/// which every host the package supports implements: Node ≥ 16.4 (the
/// package needs ≥ 20), Chrome/Edge ≥ 91, Firefox ≥ 89, Safari ≥ 16.4. A
/// host without it refuses to compile the module at all, so nothing runs
/// this code where the instructions are missing.
#[cfg(target_arch = "wasm32")]
fn start_block(digests: &[u8], bit_count: u64, probes: &mut [Probe; BLOCK]) -> usize {
    // A safe call on wasm: a host without simd128 rejects the whole module
    // at validation, so it can never reach an instruction it lacks.
    wasm_simd::start_block(digests, bit_count, probes)
}

#[cfg(target_arch = "wasm32")]
mod wasm_simd {
    use super::{Probe, BLOCK};
    use crate::probe::{as_digest, DIGEST_LENGTH};
    use core::arch::wasm32::{i8x16_shuffle, u64x2, u64x2_extract_lane};

    #[target_feature(enable = "simd128")]
    pub(super) fn start_block(digests: &[u8], bit_count: u64, probes: &mut [Probe; BLOCK]) -> usize {
        let mut filled = 0;
        for (probe, chunk) in probes.iter_mut().zip(digests.chunks_exact(DIGEST_LENGTH)) {
            let Some(digest) = as_digest(chunk) else { continue };
            let mut first = [0u8; 8];
            let mut second = [0u8; 8];
            first.copy_from_slice(&digest[0..8]);
            second.copy_from_slice(&digest[8..16]);
            let words = u64x2(u64::from_le_bytes(first), u64::from_le_bytes(second));
            // Reverses each 8-byte lane: lane 0 is then BE d[0..8], lane 1 BE d[8..16].
            let words = i8x16_shuffle::<7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8>(words, words);
            *probe = Probe::from_words(u64x2_extract_lane::<0>(words), u64x2_extract_lane::<1>(words), bit_count);
            filled += 1;
        }
        filled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn digest(text: &str) -> [u8; 32] {
        Sha256::digest(text.as_bytes()).into()
    }

    fn spec(n: u64, p: f64) -> BloomSpec {
        BloomSpec { expected_item_count: n, target_false_positive_rate: p }
    }

    #[test]
    fn members_are_always_maybe() {
        let members: Vec<[u8; 32]> = (0..2000).map(|i| digest(&format!("member:{i}"))).collect();
        let filter = ArtifactBloomFilter::create(&members, &spec(2000, 0.01)).unwrap();
        assert!(members.iter().all(|d| filter.might_contain(d)));
        assert_eq!(filter.inserted_item_count(), 2000);
    }

    #[test]
    fn create_checks_spec_then_capacity_then_digests() {
        let short = vec![vec![0u8; 31]; 3];
        assert_eq!(ArtifactBloomFilter::create(&short, &spec(0, 0.01)), Err(BloomError::InvalidExpectedItemCount));
        assert_eq!(ArtifactBloomFilter::create(&short, &spec(2, 0.01)), Err(BloomError::CapacityExceeded));
        assert_eq!(ArtifactBloomFilter::create(&short, &spec(3, 0.01)), Err(BloomError::InvalidDigest));
    }

    #[test]
    fn packed_equals_separate() {
        let members: Vec<[u8; 32]> = (0..300).map(|i| digest(&format!("m{i}"))).collect();
        let packed: Vec<u8> = members.concat();
        let a = ArtifactBloomFilter::create(&members, &spec(300, 0.001)).unwrap();
        let b = ArtifactBloomFilter::create_packed(&packed, &spec(300, 0.001)).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.might_contain_packed(&packed).unwrap(), Ok(vec![1u8; 300]));
        assert_eq!(b.count_maybe(&packed), Some(300));
        assert_eq!(
            ArtifactBloomFilter::create_packed(&packed[..33], &spec(300, 0.001)),
            Err(BloomError::InvalidDigest)
        );
        assert!(b.might_contain_packed(&packed[..31]).is_none());
    }

    #[test]
    fn packed_in_pieces_equals_packed_whole() {
        let members: Vec<[u8; 32]> = (0..1000).map(|i| digest(&format!("p{i}"))).collect();
        let packed: Vec<u8> = members.concat();
        let s = spec(1000, 0.01);
        let whole = ArtifactBloomFilter::create_packed(&packed, &s).unwrap();
        let mut pieces = ArtifactBloomFilter::begin_packed(packed.len() as u64, &s).unwrap();
        for piece in packed.chunks(32 * 37) {
            pieces.insert_packed(piece);
        }
        assert_eq!(pieces, whole);
        assert_eq!(ArtifactBloomFilter::begin_packed(1001 * 32, &s), Err(BloomError::CapacityExceeded));
        assert_eq!(ArtifactBloomFilter::begin_packed(33, &s), Err(BloomError::InvalidDigest));
    }

    #[test]
    fn union_of_shards_equals_whole() {
        let members: Vec<[u8; 32]> = (0..500).map(|i| digest(&format!("u{i}"))).collect();
        let s = spec(500, 0.01);
        let whole = ArtifactBloomFilter::create(&members, &s).unwrap();
        let a = ArtifactBloomFilter::create(&members[..200], &s).unwrap();
        let b = ArtifactBloomFilter::create(&members[200..], &s).unwrap();
        let merged = ArtifactBloomFilter::union(&a, &b).unwrap();
        assert_eq!(merged.serialize_bits(), whole.serialize_bits());
        assert_eq!(merged.inserted_item_count(), 500);
    }

    #[test]
    fn union_counts_identical_once_and_refuses_over_capacity() {
        let members: Vec<[u8; 32]> = (0..16).map(|i| digest(&format!("c{i}"))).collect();
        let s = spec(10, 0.01);
        let a = ArtifactBloomFilter::create(&members[..8], &s).unwrap();
        let b = ArtifactBloomFilter::create(&members[8..], &s).unwrap();
        assert_eq!(
            ArtifactBloomFilter::union(&a, &b).map(|f| f.inserted_item_count()),
            Err(UnionError::CapacityExceeded { count: 16, capacity: 10 })
        );
        let same = ArtifactBloomFilter::union(&a, &a).unwrap();
        assert_eq!(same.inserted_item_count(), 8);
        assert_eq!(same.serialize_bits(), a.serialize_bits());
    }
}
