//! Estimators used by the fit tests (seed 002 §4, ALGORITHMS.md §4.1 and §4.7).
//!
//! All functions take a slice of observations (any unit; the result is in the same unit) and are pure.

use statrs::distribution::{ContinuousCDF, Normal};

/// Arithmetic mean of `xs`. Returns `0.0` for an empty slice.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Population variance (ddof = 0) of `xs`, two-pass for accuracy (ALGORITHMS.md §4.1 `[UNSTATED → ddof 0]`).
/// Returns `0.0` for an empty slice.
pub fn population_variance(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64
}

/// Population standard deviation (ddof = 0), the square root of [`population_variance`].
pub fn population_sd(xs: &[f64]) -> f64 {
    population_variance(xs).sqrt()
}

/// Percentile `p` (in percent, 0..=100) of `xs` with linear interpolation between order statistics
/// (numpy's default "linear" method: rank `p/100·(n−1)`), ALGORITHMS.md §4.1 `[UNSTATED → linear]`.
///
/// `sorted` must be sorted ascending. Returns `0.0` for an empty slice; `p` is clamped to 0..=100.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let p = p.clamp(0.0, 100.0);
    let rank = p / 100.0 * (n - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let frac = rank - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Standard normal quantile `z_p = Φ⁻¹(p)` for `p` in (0, 1) (ALGORITHMS.md §0). Uses statrs.
pub fn normal_quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// Standard normal CDF `Φ(z)`.
pub fn normal_cdf(z: f64) -> f64 {
    Normal::standard().cdf(z)
}

/// Upper tail `1 − Φ(z)`, accurate for large `z`.
pub fn normal_sf(z: f64) -> f64 {
    Normal::standard().sf(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_population_sd_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population variance 4, s.d. 2 (the textbook example).
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&xs), 5.0);
        assert_eq!(population_variance(&xs), 4.0);
        assert_eq!(population_sd(&xs), 2.0);
        assert_eq!(mean(&[]), 0.0);
    }

    #[test]
    fn percentile_linear_interpolation_by_hand() {
        let xs = [1.0, 2.0, 3.0, 4.0, 10.0];
        // rank = p/100 * 4
        assert_eq!(percentile_sorted(&xs, 0.0), 1.0);
        assert_eq!(percentile_sorted(&xs, 50.0), 3.0);
        assert_eq!(percentile_sorted(&xs, 100.0), 10.0);
        // 90%: rank 3.6 -> 4 + 0.6*(10-4) = 7.6
        assert!((percentile_sorted(&xs, 90.0) - 7.6).abs() < 1e-12);
        // 30%: rank 1.2 -> 2 + 0.2*1 = 2.2
        assert!((percentile_sorted(&xs, 30.0) - 2.2).abs() < 1e-12);
    }

    #[test]
    fn normal_quantiles_match_tables() {
        // ALGORITHMS.md §4.2 table values.
        for (p, z) in [(0.9, 1.2816), (0.95, 1.6449), (0.99, 2.3263), (0.999, 3.0902)] {
            assert!((normal_quantile(p) - z).abs() < 1e-4, "z_{p}");
        }
        assert!((normal_cdf(1.959963984540054) - 0.975).abs() < 1e-11);
        assert!((normal_sf(3.0) - 0.0013498980316301).abs() < 1e-12);
    }
}
