//! The layout rule: how `bitCount` and `hashCount` follow from the spec.
//!
//! This is the reference's `createLayout`, restated in `docs/ABF1.md`, written
//! as small pure functions so each step can be tested on its own. The float
//! operations (`ln`, `powf`, `ln_1p`, `exp_m1`) are the ones the Python
//! reference uses, so `layouts.json` pins the results bit for bit.

/// Smallest bit array the rule produces.
pub const MINIMUM_BIT_COUNT: u64 = 64;
/// Largest bit array any filter of the crate may have (2^30 bits, 128 MiB).
pub const MAXIMUM_BIT_COUNT: u64 = 1 << 30;
/// Largest `expectedItemCount` a spec may ask for.
pub const MAXIMUM_EXPECTED_ITEM_COUNT: u64 = 1 << 30;
/// Largest number of probes the rule considers.
pub const MAXIMUM_HASH_COUNT: u32 = 32;
/// ln 2, as the reference spells it (its literal, not `core::f64::consts::LN_2`,
/// so the vectors stay reproducible whatever the two happen to round to).
#[allow(clippy::approx_constant)]
pub const LN2: f64 = 0.6931471805599453;

/// The reference's error codes, in the order they can arise while building,
/// then `OutOfMemory` (not the reference's: the bit array, sized by a valid
/// spec, could not be reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BloomError {
    InvalidExpectedItemCount,
    InvalidFalsePositiveRate,
    CapacityExceeded,
    FilterTooLarge,
    InvalidDigest,
    OutOfMemory,
}

impl From<crate::fallible::OutOfMemory> for BloomError {
    fn from(_: crate::fallible::OutOfMemory) -> Self {
        BloomError::OutOfMemory
    }
}

impl BloomError {
    /// The reference TypeScript spelling, used verbatim as the JS error code.
    pub fn code(self) -> &'static str {
        match self {
            BloomError::InvalidExpectedItemCount => "invalidExpectedItemCount",
            BloomError::InvalidFalsePositiveRate => "invalidFalsePositiveRate",
            BloomError::CapacityExceeded => "capacityExceeded",
            BloomError::FilterTooLarge => "filterTooLarge",
            BloomError::InvalidDigest => "invalidDigest",
            BloomError::OutOfMemory => crate::fallible::OutOfMemory::CODE,
        }
    }
}

impl crate::error::Coded for BloomError {
    fn code(&self) -> &'static str {
        BloomError::code(*self)
    }

    fn domain(&self) -> &'static str {
        "layout"
    }

    fn fields(&self, out: &mut dyn crate::error::Fields) {
        if *self == BloomError::OutOfMemory {
            out.word("purpose", "for the filter's bit array");
        }
    }
}

crate::error::display_coded!(BloomError);

/// What the caller asks for. `expected_item_count` is an `f64` because that is
/// what JavaScript hands over; [`validate_spec`] decides whether it is a usable
/// integer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BloomSpec {
    pub expected_item_count: u64,
    pub target_false_positive_rate: f64,
}

/// The chosen shape of a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub bit_count: u64,
    pub hash_count: u32,
}

/// Checks the spec's ranges: n in 1..=2^30, p finite in (0, 1).
pub fn validate_spec(spec: &BloomSpec) -> Result<(), BloomError> {
    let n = spec.expected_item_count;
    if n == 0 || n > MAXIMUM_EXPECTED_ITEM_COUNT {
        return Err(BloomError::InvalidExpectedItemCount);
    }
    let p = spec.target_false_positive_rate;
    if !p.is_finite() || p <= 0.0 || p >= 1.0 {
        return Err(BloomError::InvalidFalsePositiveRate);
    }
    Ok(())
}

/// The textbook optimum `-n ln p / ln² 2`, unrounded. The reference rejects a
/// spec whose optimum alone exceeds the bit limit before trying candidates.
pub fn ideal_bit_count(n: u64, p: f64) -> f64 {
    -(n as f64) * p.ln() / (LN2 * LN2)
}

/// `k·n / −ln(1 − p^(1/k))`: the bits k probes need to reach rate p exactly.
pub fn required_bit_count(n: u64, k: u32, p: f64) -> f64 {
    let k = f64::from(k);
    let root = p.powf(1.0 / k);
    k * (n as f64) / -(-root).ln_1p()
}

/// The model's false-positive rate `(1 − e^(−kn/m))^k`, via `expm1` so small
/// exponents keep their precision.
pub fn modeled_false_positive_rate(m: u64, n: u64, k: u32) -> f64 {
    let k = f64::from(k);
    (-(-k * (n as f64) / (m as f64)).exp_m1()).powf(k)
}

/// Rounds up to a multiple of 64 (one storage word).
pub fn align_to_word(bits: u64) -> u64 {
    (bits + 63) & !63
}

/// The candidate for one `k`, or `None` when it cannot meet the rate within
/// the bit limit.
pub fn candidate_for_hash_count(n: u64, k: u32, p: f64) -> Option<Layout> {
    let required = required_bit_count(n, k, p);
    if !required.is_finite() || required > MAXIMUM_BIT_COUNT as f64 {
        return None;
    }
    // `required` is finite and at most 2^30 here, so the cast is exact.
    let mut bit_count = align_to_word(MINIMUM_BIT_COUNT.max(required.ceil() as u64));
    if bit_count > MAXIMUM_BIT_COUNT {
        return None;
    }
    let mut rate = modeled_false_positive_rate(bit_count, n, k);
    if !rate.is_finite() || rate > p {
        // Rounding can leave the model a hair above p: one more word fixes it.
        if bit_count > MAXIMUM_BIT_COUNT - 64 {
            return None;
        }
        bit_count += 64;
        rate = modeled_false_positive_rate(bit_count, n, k);
    }
    (rate.is_finite() && rate <= p).then_some(Layout { bit_count, hash_count: k })
}

/// The layout rule: smallest `bitCount` over k = 1..=32, then smallest k.
pub fn create_layout(spec: &BloomSpec) -> Result<Layout, BloomError> {
    validate_spec(spec)?;
    let n = spec.expected_item_count;
    let p = spec.target_false_positive_rate;
    let ideal = ideal_bit_count(n, p);
    if !ideal.is_finite() || ideal > MAXIMUM_BIT_COUNT as f64 {
        return Err(BloomError::FilterTooLarge);
    }
    (1..=MAXIMUM_HASH_COUNT)
        .filter_map(|k| candidate_for_hash_count(n, k, p))
        .min_by_key(|layout| (layout.bit_count, layout.hash_count))
        .ok_or(BloomError::FilterTooLarge)
}

/// Converts a JavaScript number into an item count, or `None` when it is not
/// a safe integer (fractions, NaN, ±Infinity, beyond 2^53 − 1, negatives).
pub fn item_count_from_f64(value: f64) -> Option<u64> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if value.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&value) {
        Some(value as u64)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(n: u64, p: f64) -> BloomSpec {
        BloomSpec { expected_item_count: n, target_false_positive_rate: p }
    }

    #[test]
    fn seed_examples() {
        // The seed's node:test cases: 1e-20 picks k = 32; 0.95 picks k = 1, m = 333,824.
        assert_eq!(create_layout(&spec(1_000_000, 1e-20)).unwrap().hash_count, 32);
        assert_eq!(create_layout(&spec(1_000_000, 0.95)).unwrap(), Layout { bit_count: 333_824, hash_count: 1 });
        // The headline numbers: n = 1M, p = 0.001 → m = 14,377,664, k = 10.
        assert_eq!(create_layout(&spec(1_000_000, 0.001)).unwrap(), Layout { bit_count: 14_377_664, hash_count: 10 });
    }

    #[test]
    fn every_chosen_layout_meets_the_model() {
        for &n in &[1u64, 7, 100, 12_345, 1_000_000] {
            for &p in &[0.5, 0.1, 0.01, 1e-4, 1e-9] {
                let layout = create_layout(&spec(n, p)).unwrap();
                assert_eq!(layout.bit_count % 64, 0);
                assert!(modeled_false_positive_rate(layout.bit_count, n, layout.hash_count) <= p);
            }
        }
    }

    #[test]
    fn errors_in_reference_order() {
        assert_eq!(create_layout(&spec(0, 0.5)), Err(BloomError::InvalidExpectedItemCount));
        assert_eq!(create_layout(&spec(0, f64::NAN)), Err(BloomError::InvalidExpectedItemCount));
        assert_eq!(create_layout(&spec(1, 1.0)), Err(BloomError::InvalidFalsePositiveRate));
        assert_eq!(create_layout(&spec(1 << 30, 0.5)), Err(BloomError::FilterTooLarge));
    }

    #[test]
    fn item_counts_from_js_numbers() {
        assert_eq!(item_count_from_f64(5.0), Some(5));
        assert_eq!(item_count_from_f64(1.5), None);
        assert_eq!(item_count_from_f64(-1.0), None);
        assert_eq!(item_count_from_f64(f64::NAN), None);
        assert_eq!(item_count_from_f64(9_007_199_254_740_992.0), None);
    }
}
