//! Sizing helpers shared by the TLBF, mergeable and scalable filters.
//!
//! The classic optimum: `m = ceil(−n·ln p / ln² 2)` and
//! `k = round(m/n · ln 2)`, with k at least 1 (as TLBF sizes) and rounding half away
//! from zero (`f64::round`). Step 6 asks for the fill-ratio view an operator
//! alerts on. The float expressions are spelled exactly as the seeds write
//! them, so the TLBF vectors (made by the Python reference) match bit for bit.

use crate::layout::{modeled_false_positive_rate, LN2, MAXIMUM_BIT_COUNT};

/// Largest hash count any filter of this module family accepts. The optimum
/// never exceeds 1,075 for any finite p > 0 (−ln p ≤ 745 bounds m/n by 1,551),
/// so this only stops a crafted header from making one query walk 2^32 probes.
pub const MAXIMUM_HASH_COUNT: u32 = 4096;

use crate::error::coded_errors;

coded_errors! {
    /// Why a `(n, p)` pair has no usable layout.
    pub enum SizingError in "sizing" {
        InvalidExpectedItemCount => "invalidExpectedItemCount",
        InvalidFalsePositiveRate => "invalidFalsePositiveRate",
        FilterTooLarge => "filterTooLarge",
    }
}

/// Checks `n ≥ 1` and `p` finite in (0, 1).
pub fn validate_rate(n: u64, p: f64) -> Result<(), SizingError> {
    if n == 0 {
        return Err(SizingError::InvalidExpectedItemCount);
    }
    if !p.is_finite() || p <= 0.0 || p >= 1.0 {
        return Err(SizingError::InvalidFalsePositiveRate);
    }
    Ok(())
}

/// The optimum with every failure named: `m` bits (not word aligned)
/// and `k` hashes, or why there is none within [`MAXIMUM_BIT_COUNT`].
pub fn checked_optimal_params(n: u64, p: f64) -> Result<(u64, u32), SizingError> {
    validate_rate(n, p)?;
    let ideal = -(n as f64) * p.ln() / (LN2 * LN2);
    // `ideal` is positive for p in (0, 1); the cap check keeps the cast exact.
    if !ideal.is_finite() || ideal.ceil() > MAXIMUM_BIT_COUNT as f64 {
        return Err(SizingError::FilterTooLarge);
    }
    let m = ideal.ceil() as u64;
    Ok((m, optimal_hash_count(m, n)))
}

/// `k = max(1, round(m/n · ln 2))`, half away from zero, capped at
/// [`MAXIMUM_HASH_COUNT`] (never reached for m ≤ 2^30 built by the optimum).
pub fn optimal_hash_count(m: u64, n: u64) -> u32 {
    let k = (m as f64 / n as f64 * LN2).round();
    // `as` saturates; the clamp keeps 1 ≤ k ≤ the cap even for odd inputs.
    (k as u32).clamp(1, MAXIMUM_HASH_COUNT)
}

/// `optimalParams(n, p)`: `Some((m, k))`, or `None` when n is 0,
/// p is not in (0, 1), or m would exceed 2^30 bits.
pub fn optimal_params(n: u64, p: f64) -> Option<(u64, u32)> {
    checked_optimal_params(n, p).ok()
}

/// The false-positive rate implied by an observed fill ratio: every one of
/// the k probes must land on a set bit, `fill^k`.
pub fn fpp_from_fill_ratio(fill: f64, k: u32) -> f64 {
    fill.powf(f64::from(k))
}

/// The fill ratio at which `fill^k` reaches twice the target p:
/// `(2p)^(1/k)`. This, not an arbitrary 80 %, is the operator's alert line.
pub fn alert_fill_ratio(p: f64, k: u32) -> f64 {
    (2.0 * p).powf(1.0 / f64::from(k))
}

/// The expected fraction of set bits after n insertions of k probes each into
/// m bits, `1 − e^(−kn/m)`, via `expm1` so small exponents keep precision.
pub fn expected_fill_ratio(n: u64, m: u64, k: u32) -> f64 {
    -(-(f64::from(k)) * n as f64 / m as f64).exp_m1()
}

/// The model's false-positive rate `(1 − e^(−kn/m))^k` (the same function the
/// artifact layout rule uses).
pub fn modeled_fpp(n: u64, m: u64, k: u32) -> f64 {
    modeled_false_positive_rate(m, n, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_examples() {
        // TLBF's worked example: n = 4, p = 0.1 → m = ceil(19.17) = 20, k = round(3.47) = 3.
        assert_eq!(optimal_params(4, 0.1), Some((20, 3)));
        // The sizing notes' example: n = 1000, p = 1 % → m ≈ 9585 (ceil of 9585.06), k ≈ 7.
        assert_eq!(optimal_params(1000, 0.01), Some((9586, 7)));
    }

    #[test]
    fn rejects_bad_inputs() {
        assert_eq!(checked_optimal_params(0, 0.1), Err(SizingError::InvalidExpectedItemCount));
        for p in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(checked_optimal_params(1, p), Err(SizingError::InvalidFalsePositiveRate));
        }
        assert_eq!(checked_optimal_params(1 << 30, 0.01), Err(SizingError::FilterTooLarge));
        assert_eq!(checked_optimal_params(u64::MAX, 0.5), Err(SizingError::FilterTooLarge));
        // The smallest positive p still sizes (and bounds k far below the cap).
        let (m, k) = checked_optimal_params(1, f64::from_bits(1)).unwrap();
        assert!(m < 1600 && k < 1100, "m = {m}, k = {k}");
    }

    #[test]
    fn fill_ratio_views_agree() {
        // At the alert fill ratio the implied rate is exactly 2p.
        let (p, k) = (0.01, 7);
        let alert = alert_fill_ratio(p, k);
        assert!((fpp_from_fill_ratio(alert, k) - 2.0 * p).abs() < 1e-12);
        // k = 7 at fill 0.5 gives ≈ 0.78 %.
        assert!((fpp_from_fill_ratio(0.5, 7) - 0.0078125).abs() < 1e-15);
        // modeled = expected_fill^k.
        let (n, m) = (1000, 9586);
        let via_fill = fpp_from_fill_ratio(expected_fill_ratio(n, m, k), k);
        assert!((modeled_fpp(n, m, k) - via_fill).abs() < 1e-15);
        // Rounding k (6.64 → 7) leaves the model a hair above p: 1.003 %.
        // The formula is the contract, so callers get "≈ p", not "≤ p".
        let modeled = modeled_fpp(n, m, k);
        assert!(modeled > 0.01 && modeled < 0.0101, "{modeled}");
    }

    #[test]
    fn overfilling_degrades_the_rate() {
        // The overfill question: 2n items in a filter sized for n.
        let (m, k) = optimal_params(1000, 0.01).unwrap();
        let at_n = modeled_fpp(1000, m, k);
        let at_2n = modeled_fpp(2000, m, k);
        assert!(at_2n > 10.0 * at_n, "{at_n} → {at_2n}");
    }

    /// Compares a filter's measured fill and false-positive rate with the model.
    ///
    /// Bounds, and why: the set-bit count is a sum of m negatively associated
    /// indicators, so Hoeffding applies and its spread is at most the binomial
    /// σ_fill = sqrt(q(1−q)/m). Given the filter, each of N fresh non-members
    /// is an independent trial at rate ≈ fill^k, σ_fpr = sqrt(f(1−f)/N). We
    /// allow 6σ (a false alarm below 1e-7 per check) plus 5 % of the rate for
    /// what the model ignores (double hashing, k distinct probes).
    fn check_model(label: &str, (n, m, k): (u64, u64, u32), fill: f64, fpr: f64, trials: usize) {
        let q = expected_fill_ratio(n, m, k);
        let fill_bound = 6.0 * (q * (1.0 - q) / m as f64).sqrt();
        let (from_fill, modeled) = (fpp_from_fill_ratio(fill, k), modeled_fpp(n, m, k));
        let fpr_bound = |f: f64| 6.0 * (f * (1.0 - f) / trials as f64).sqrt() + 0.05 * f;
        println!("{label}: n = {n}, m = {m}, k = {k}; fill {fill:.5} vs model {q:.5} (±{fill_bound:.5})");
        println!("  FPR {fpr:.5} vs fill^k {from_fill:.5} vs model {modeled:.5} (±{:.5})", fpr_bound(modeled));
        assert!((fill - q).abs() <= fill_bound, "{label}: fill");
        assert!((fpr - from_fill).abs() <= fpr_bound(from_fill), "{label}: FPR vs fill^k");
        assert!((fpr - modeled).abs() <= fpr_bound(modeled), "{label}: FPR vs model");
    }

    #[test]
    fn model_matches_measured_rates() {
        use crate::variants::mergeable::MergeableBloomFilter;
        use crate::variants::tlbf::TlBloom;
        let (n, p, trials) = (10_000u64, 0.01, 100_000usize);
        // Distinct prefixes: members, strangers and overfill never collide.
        let item = |tag: &str, i: usize| format!("{tag}:{i}").into_bytes();
        let members: Vec<Vec<u8>> = (0..n as usize).map(|i| item("member", i)).collect();
        let strangers: Vec<Vec<u8>> = (0..trials).map(|i| item("stranger", i)).collect();
        let rate = |hits: usize| hits as f64 / trials as f64;

        let mut tl = TlBloom::with_rate(n, p).unwrap();
        members.iter().for_each(|x| tl.insert(x));
        let fpr = rate(strangers.iter().filter(|x| tl.contains(x)).count());
        check_model("tlbf", (n, tl.m(), tl.k()), tl.fill_ratio(), fpr, trials);

        let mut mg = MergeableBloomFilter::create(n, p).unwrap();
        members.iter().for_each(|x| drop(mg.add(x)));
        let fpr = rate(strangers.iter().filter(|x| mg.might_contain(x)).count());
        check_model("mergeable", (n, mg.bit_count(), mg.hash_count()), mg.fill_ratio(), fpr, trials);

        // Overfill to the alert ratio (2p)^(1/k); the measured
        // rate there is ≈ 2p, which is why operators alert on that fill.
        let alert = alert_fill_ratio(p, tl.k());
        let mut extra = (0..).map(|i| item("extra", i));
        while tl.fill_ratio() < alert {
            tl.insert(&extra.next().unwrap());
        }
        let fpr = rate(strangers.iter().filter(|x| tl.contains(x)).count());
        let bound = 6.0 * (2.0 * p / trials as f64).sqrt() + 0.05 * 2.0 * p;
        println!("tlbf at alert fill {alert:.4} after {} items: FPR {fpr:.5} (2p = {})", tl.n_inserted(), 2.0 * p);
        assert!((fpr - 2.0 * p).abs() <= bound, "alert FPR {fpr}");
    }
}
