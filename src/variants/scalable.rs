//! A scalable Bloom filter (Almeida, Baquero, Preguiça, Hutchison 2007;
//! the sizing study's step 5): a chain of plain filters that grows instead of
//! saturating. No deletes.
//!
//! Stage i holds `c0·g^i` items at rate `p0·r^i` with `p0 = p·(1 − r)`, so by
//! the union bound the compound rate stays under `Σ p0·r^i = p`. A new stage
//! starts when an add finds the newest one at its capacity. Every add counts,
//! duplicates included, which only fills stages earlier (the safe direction).
//!
//! Hashing: one SHA-256 of the item, then each stage runs the crate's shared
//! probe walk ([`Probe`], hash protocol 1) over its own bit count — one hash
//! per item whatever the number of stages. Stages keep their bits in the
//! shared [`BitArray`]. Wire layout: `docs/scalable-format.md`.

use sha2::{Digest, Sha256};

use crate::bits::{BitArray, FromBytesError, WORD_BITS, WORD_BYTES};
use crate::bytes::{read_u32, read_u64};
use crate::error::coded_errors;
use crate::fallible::{self, OutOfMemory};
use crate::layout::{align_to_word, MAXIMUM_BIT_COUNT};
use crate::probe::{Probe, DIGEST_LENGTH};
use crate::variants::mergeable::{seal, verified_content, CHECKSUM_LENGTH};
use crate::variants::sizing::{checked_optimal_params, MAXIMUM_HASH_COUNT};

/// Most stages a chain may have; with the 2^30-bit total, the growth limit.
pub const MAXIMUM_STAGE_COUNT: u32 = 256;
/// The first four bytes of an encoded chain.
pub const MAGIC: [u8; 4] = *b"SBLF";
/// The only format version.
pub const VERSION: u16 = 1;
/// Bytes of the chain header.
pub const HEADER_LENGTH: usize = 40;
/// Bytes of each stage header (its bit array follows).
pub const STAGE_HEADER_LENGTH: usize = 32;

const VERSION_OFFSET: usize = 4;
const RESERVED_OFFSET: usize = 6;
const CAPACITY_OFFSET: usize = 8;
const FPP_OFFSET: usize = 16;
const RATIO_OFFSET: usize = 24;
const GROWTH_OFFSET: usize = 32;
const STAGE_COUNT_OFFSET: usize = 36;
// Within a stage header.
const STAGE_CAPACITY_OFFSET: usize = 0;
const STAGE_ITEMS_OFFSET: usize = 8;
const STAGE_BITS_OFFSET: usize = 16;
const STAGE_HASHES_OFFSET: usize = 24;
const STAGE_RESERVED_OFFSET: usize = 28;

coded_errors! {
    /// Every way building, growing or decoding a chain can fail.
    pub enum ScalableError in "scalable" {
        InvalidInitialCapacity => "invalidInitialCapacity",
        InvalidFalsePositiveRate => "invalidFalsePositiveRate",
        InvalidGrowthFactor => "invalidGrowthFactor",
        InvalidTighteningRatio => "invalidTighteningRatio",
        FilterTooLarge => "filterTooLarge",
        Truncated => "truncated",
        BadMagic => "badMagic",
        UnsupportedVersion => "unsupportedVersion",
        ChecksumMismatch => "checksumMismatch",
        NonZeroReserved => "nonZeroReserved",
        ZeroStageCount => "zeroStageCount",
        StageCapacityMismatch => "stageCapacityMismatch",
        ItemCountExceedsCapacity => "itemCountExceedsCapacity",
        StageNotFull => "stageNotFull",
        EmptyStage => "emptyStage",
        InvalidBitCount => "invalidBitCount",
        ZeroHashCount => "zeroHashCount",
        HashCountTooLarge => "hashCountTooLarge",
        LengthMismatch => "lengthMismatch",
        OutOfMemory => "outOfMemory",
    }
}

impl From<OutOfMemory> for ScalableError {
    fn from(_: OutOfMemory) -> Self {
        ScalableError::OutOfMemory
    }
}

/// The chain's fixed parameters, as given to [`ScalableBloomFilter::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalableParams {
    /// Items the first stage holds (c0 ≥ 1).
    pub initial_capacity: u64,
    /// Compound false-positive bound p, finite in (0, 1).
    pub target_fpp: f64,
    /// Capacity multiplier g ≥ 1 between consecutive stages.
    pub growth_factor: u32,
    /// Rate multiplier r, finite in (0, 1), between consecutive stages.
    pub tightening_ratio: f64,
}

impl ScalableParams {
    /// Checks each parameter's range, in declaration order.
    pub fn validate(&self) -> Result<(), ScalableError> {
        let open_unit = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
        if self.initial_capacity == 0 {
            return Err(ScalableError::InvalidInitialCapacity);
        }
        if !open_unit(self.target_fpp) {
            return Err(ScalableError::InvalidFalsePositiveRate);
        }
        if self.growth_factor == 0 {
            return Err(ScalableError::InvalidGrowthFactor);
        }
        if !open_unit(self.tightening_ratio) {
            return Err(ScalableError::InvalidTighteningRatio);
        }
        Ok(())
    }

    /// `c0·g^i`, or `None` on u64 overflow. Exact integers, so encoder and
    /// decoder agree on every platform.
    pub fn stage_capacity(&self, index: u32) -> Option<u64> {
        u64::from(self.growth_factor).checked_pow(index).and_then(|g| g.checked_mul(self.initial_capacity))
    }

    /// `p·(1 − r)·r^i` by repeated IEEE multiplication (no `powf`, whose last
    /// bit may differ between libm builds).
    pub fn stage_fpp(&self, index: u32) -> f64 {
        let r = self.tightening_ratio;
        (0..index).fold(self.target_fpp * (1.0 - r), |fpp, _| fpp * r)
    }
}

/// One plain filter of the chain.
#[derive(Clone, Debug, PartialEq)]
struct Stage {
    capacity: u64,
    item_count: u64,
    hash_count: u32,
    bits: BitArray,
}

impl Stage {
    fn insert(&mut self, digest: &[u8; DIGEST_LENGTH]) {
        let mut probe = Probe::start(digest, self.bits.bit_count());
        for _ in 0..self.hash_count {
            self.bits.set(probe.index);
            probe.advance();
        }
        self.item_count += 1;
    }

    fn might_contain(&self, digest: &[u8; DIGEST_LENGTH]) -> bool {
        let mut probe = Probe::start(digest, self.bits.bit_count());
        for _ in 0..self.hash_count {
            if !self.bits.get(probe.index) {
                return false;
            }
            probe.advance();
        }
        true
    }
}

/// A growing chain of Bloom filters with a compound false-positive bound.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalableBloomFilter {
    params: ScalableParams,
    stages: Vec<Stage>,
    total_bits: u64,
}

impl ScalableBloomFilter {
    /// A chain with one empty stage, or why the parameters are unusable.
    pub fn new(
        initial_capacity: u64,
        target_fpp: f64,
        growth_factor: u32,
        tightening_ratio: f64,
    ) -> Result<Self, ScalableError> {
        let params = ScalableParams { initial_capacity, target_fpp, growth_factor, tightening_ratio };
        params.validate()?;
        let mut filter = ScalableBloomFilter { params, stages: Vec::new(), total_bits: 0 };
        filter.grow()?;
        Ok(filter)
    }

    /// Appends stage `stages.len()`, sized by the optimum for its capacity and
    /// rate, unless that would exceed the stage or bit limit or the memory
    /// (the chain is unchanged then).
    fn grow(&mut self) -> Result<(), ScalableError> {
        let index = self.stages.len() as u32;
        if index >= MAXIMUM_STAGE_COUNT {
            return Err(ScalableError::FilterTooLarge);
        }
        let capacity = self.params.stage_capacity(index).ok_or(ScalableError::FilterTooLarge)?;
        // Any sizing failure here (rate underflowed to 0, too many bits) means
        // the chain cannot grow any further.
        let (m, hash_count) = checked_optimal_params(capacity, self.params.stage_fpp(index))
            .map_err(|_| ScalableError::FilterTooLarge)?;
        let bit_count = align_to_word(m);
        if self.total_bits + bit_count > MAXIMUM_BIT_COUNT {
            return Err(ScalableError::FilterTooLarge);
        }
        let bits = BitArray::zeroed((bit_count / WORD_BITS) as usize)?;
        crate::fallible::try_reserve(&mut self.stages, 1).map_err(|_| ScalableError::OutOfMemory)?;
        self.total_bits += bit_count;
        self.stages.push(Stage { capacity, item_count: 0, hash_count, bits });
        Ok(())
    }

    /// Adds an item to the newest stage, first starting a new stage when the
    /// newest is full. On `FilterTooLarge` or `OutOfMemory` the chain is
    /// unchanged.
    pub fn add(&mut self, item: &[u8]) -> Result<(), ScalableError> {
        if self.newest().item_count >= self.newest().capacity {
            self.grow()?;
        }
        let digest: [u8; DIGEST_LENGTH] = Sha256::digest(item).into();
        let newest = self.stages.len() - 1;
        self.stages[newest].insert(&digest);
        Ok(())
    }

    /// `false`: never added. `true`: maybe (compound rate under the target
    /// while the chain has room to grow).
    pub fn might_contain(&self, item: &[u8]) -> bool {
        let digest: [u8; DIGEST_LENGTH] = Sha256::digest(item).into();
        // Newest first: the largest stages hold most of the items.
        self.stages.iter().rev().any(|stage| stage.might_contain(&digest))
    }

    fn newest(&self) -> &Stage {
        // `new` and `decode` both guarantee at least one stage.
        &self.stages[self.stages.len() - 1]
    }

    /// The parameters the chain was created with.
    pub fn params(&self) -> ScalableParams {
        self.params
    }

    /// Stages so far (at least 1).
    pub fn stage_count(&self) -> usize {
        self.stages.len()
    }

    /// Add calls so far, over all stages.
    pub fn item_count(&self) -> u64 {
        // Saturating: a decoded chain is checked for overflow, but a sum that
        // cannot be represented must never wrap to a small count.
        self.stages.iter().fold(0u64, |total, s| total.saturating_add(s.item_count))
    }

    /// Bits over all stages (at most 2^30).
    pub fn bit_count(&self) -> u64 {
        self.total_bits
    }

    /// Each stage's fill ratio, oldest first.
    pub fn stage_fill_ratios(&self) -> Vec<f64> {
        self.stages.iter().map(|s| s.bits.fill_ratio()).collect()
    }

    /// The compound rate implied by the observed fills:
    /// `1 − Π(1 − fill_i^k_i)`.
    pub fn estimated_fpp(&self) -> f64 {
        let miss: f64 = self.stages.iter().map(|s| 1.0 - s.bits.fill_ratio().powf(f64::from(s.hash_count))).product();
        1.0 - miss
    }

    /// The wire form (see `docs/scalable-format.md`), SHA-256 sealed.
    pub fn encode(&self) -> Result<Vec<u8>, ScalableError> {
        let stage_bytes = self.total_bits as usize / 8 + self.stages.len() * STAGE_HEADER_LENGTH;
        let mut out = fallible::with_capacity(HEADER_LENGTH + stage_bytes + CHECKSUM_LENGTH)?;
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.params.initial_capacity.to_le_bytes());
        out.extend_from_slice(&self.params.target_fpp.to_bits().to_le_bytes());
        out.extend_from_slice(&self.params.tightening_ratio.to_bits().to_le_bytes());
        out.extend_from_slice(&self.params.growth_factor.to_le_bytes());
        out.extend_from_slice(&(self.stages.len() as u32).to_le_bytes());
        for stage in &self.stages {
            out.extend_from_slice(&stage.capacity.to_le_bytes());
            out.extend_from_slice(&stage.item_count.to_le_bytes());
            out.extend_from_slice(&stage.bits.bit_count().to_le_bytes());
            out.extend_from_slice(&stage.hash_count.to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            stage.bits.write_le_bytes(&mut out)?;
        }
        Ok(seal(out))
    }

    /// Parses a chain: checksum, header, then every stage header is validated
    /// before any bit array is allocated.
    pub fn decode(bytes: &[u8]) -> Result<Self, ScalableError> {
        if bytes.len() < HEADER_LENGTH + CHECKSUM_LENGTH {
            return Err(ScalableError::Truncated);
        }
        if bytes[..VERSION_OFFSET] != MAGIC {
            return Err(ScalableError::BadMagic);
        }
        if u16::from_le_bytes([bytes[VERSION_OFFSET], bytes[VERSION_OFFSET + 1]]) != VERSION {
            return Err(ScalableError::UnsupportedVersion);
        }
        let content = verified_content(bytes).ok_or(ScalableError::ChecksumMismatch)?;
        if content[RESERVED_OFFSET..CAPACITY_OFFSET] != [0, 0] {
            return Err(ScalableError::NonZeroReserved);
        }
        let params = ScalableParams {
            initial_capacity: read_u64(content, CAPACITY_OFFSET),
            target_fpp: f64::from_bits(read_u64(content, FPP_OFFSET)),
            growth_factor: read_u32(content, GROWTH_OFFSET),
            tightening_ratio: f64::from_bits(read_u64(content, RATIO_OFFSET)),
        };
        params.validate()?;
        let stage_count = read_u32(content, STAGE_COUNT_OFFSET);
        if stage_count == 0 {
            return Err(ScalableError::ZeroStageCount);
        }
        if stage_count > MAXIMUM_STAGE_COUNT {
            return Err(ScalableError::FilterTooLarge);
        }
        let headers = stage_headers(content, &params, stage_count)?;
        let total_bits = headers.iter().map(|h| h.byte_count as u64 * 8).sum();
        let mut stages = fallible::with_capacity(headers.len())?;
        for h in headers {
            // `stage_headers` checked the range and that it is whole words.
            let raw = &content[h.bits_at..h.bits_at + h.byte_count];
            let bits = BitArray::from_le_bytes(raw).map_err(|error| match error {
                FromBytesError::PartialWord => ScalableError::InvalidBitCount,
                FromBytesError::OutOfMemory(_) => ScalableError::OutOfMemory,
            })?;
            stages.push(Stage { capacity: h.capacity, item_count: h.item_count, hash_count: h.hash_count, bits });
        }
        Ok(ScalableBloomFilter { params, stages, total_bits })
    }
}

/// One stage header that passed every check, with where its bits start.
struct StageHeader {
    capacity: u64,
    item_count: u64,
    hash_count: u32,
    bits_at: usize,
    byte_count: usize,
}

/// Validates all `stage_count` stage headers and their lengths, allocating
/// only the (≤ 256-entry) list of headers.
fn stage_headers(content: &[u8], params: &ScalableParams, stage_count: u32) -> Result<Vec<StageHeader>, ScalableError> {
    let mut headers = fallible::with_capacity(stage_count as usize)?;
    let mut at = HEADER_LENGTH;
    let mut total_bits = 0u64;
    let mut total_items = 0u64;
    for index in 0..stage_count {
        let Some(header) = content.get(at..at + STAGE_HEADER_LENGTH) else {
            return Err(ScalableError::Truncated);
        };
        let capacity = read_u64(header, STAGE_CAPACITY_OFFSET);
        let item_count = read_u64(header, STAGE_ITEMS_OFFSET);
        let bit_count = read_u64(header, STAGE_BITS_OFFSET);
        let hash_count = read_u32(header, STAGE_HASHES_OFFSET);
        if params.stage_capacity(index) != Some(capacity) {
            return Err(ScalableError::StageCapacityMismatch);
        }
        if item_count > capacity {
            return Err(ScalableError::ItemCountExceedsCapacity);
        }
        // The chain's total must fit in a u64 too (crafted stage counts).
        total_items = total_items.checked_add(item_count).ok_or(ScalableError::ItemCountExceedsCapacity)?;
        let is_last = index + 1 == stage_count;
        if !is_last && item_count != capacity {
            return Err(ScalableError::StageNotFull);
        }
        if is_last && index > 0 && item_count == 0 {
            return Err(ScalableError::EmptyStage);
        }
        if bit_count == 0 || bit_count % WORD_BITS != 0 {
            return Err(ScalableError::InvalidBitCount);
        }
        total_bits = total_bits.saturating_add(bit_count);
        if total_bits > MAXIMUM_BIT_COUNT {
            return Err(ScalableError::FilterTooLarge);
        }
        if hash_count == 0 {
            return Err(ScalableError::ZeroHashCount);
        }
        if hash_count > MAXIMUM_HASH_COUNT {
            return Err(ScalableError::HashCountTooLarge);
        }
        if read_u32(header, STAGE_RESERVED_OFFSET) != 0 {
            return Err(ScalableError::NonZeroReserved);
        }
        // bit_count ≤ 2^30 here, so the byte count fits comfortably.
        let byte_count = (bit_count / WORD_BITS) as usize * WORD_BYTES;
        let bits_at = at + STAGE_HEADER_LENGTH;
        if content.len() - bits_at < byte_count {
            return Err(ScalableError::Truncated);
        }
        headers.push(StageHeader { capacity, item_count, hash_count, bits_at, byte_count });
        at = bits_at + byte_count;
    }
    if at != content.len() {
        return Err(ScalableError::LengthMismatch);
    }
    Ok(headers)
}
