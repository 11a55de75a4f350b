//! Estimators used by the fit tests (seed 002 §4, ALGORITHMS.md §4.1 and §4.7).
//!
//! All functions take a slice of observations (any unit; the result is in the same unit) and are pure.
//!
//! The normal distribution functions use the pure-Rust `libm` crate rather than the platform's maths
//! library: natively `f64::ln`/`exp` call glibc while wasm32 uses a libm port, and the two may differ in the
//! last bit, which could flip a fit-test decision at the boundary. With `libm` on both targets the CLI and the
//! browser compute bit-identical z values (checked against statrs in the tests).

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

/// Standard normal quantile `z_p = Φ⁻¹(p)` for `p` in (0, 1) (ALGORITHMS.md §0); ±∞ at 0 and 1, NaN outside.
///
/// Wichura's algorithm AS 241 (PPND16, Applied Statistics 37(3), 1988), relative accuracy about 1e-16,
/// evaluated with `libm` so that every target gives the same bits.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q
            * (((((((2509.0809287301226727 * r + 33430.575583588128105) * r
                + 67265.770927008700853)
                * r
                + 45921.953931549871457)
                * r
                + 13731.693765509461125)
                * r
                + 1971.5909503065514427)
                * r
                + 133.14166789178437745)
                * r
                + 3.387132872796366608)
            / (((((((5226.495278852545925 * r + 28729.085735721942674) * r
                + 39307.89580009271061)
                * r
                + 21213.794301586595867)
                * r
                + 5394.1960214247511077)
                * r
                + 687.1870074920579083)
                * r
                + 42.313330701600911252)
                * r
                + 1.0);
    }
    let mut r = if q < 0.0 { p } else { 1.0 - p };
    r = libm::sqrt(-libm::log(r));
    let val = if r <= 5.0 {
        r -= 1.6;
        (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r
            + 0.24178072517745061177)
            * r
            + 1.27045825245236838258)
            * r
            + 3.64784832476320460504)
            * r
            + 5.7694972214606914055)
            * r
            + 4.6303378461565452959)
            * r
            + 1.42343711074968357734)
            / (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r
                + 0.0151986665636164571966)
                * r
                + 0.14810397642748007459)
                * r
                + 0.68976733498510000455)
                * r
                + 1.6763848301838038494)
                * r
                + 2.05319162663775882187)
                * r
                + 1.0)
    } else {
        r -= 5.0;
        (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
            + 0.0012426609473880784386)
            * r
            + 0.026532189526576123093)
            * r
            + 0.29656057182850489123)
            * r
            + 1.7848265399172913358)
            * r
            + 5.4637849111641143699)
            * r
            + 6.6579046435011037772)
            / (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r
                + 1.8463183175100546818e-5)
                * r
                + 7.868691311456132591e-4)
                * r
                + 0.0148753612908506148525)
                * r
                + 0.13692988092273580531)
                * r
                + 0.59983220655588793769)
                * r
                + 1.0)
    };
    if q < 0.0 {
        -val
    } else {
        val
    }
}

/// Standard normal CDF `Φ(z) = erfc(−z/√2)/2`, via `libm`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// Upper tail `1 − Φ(z) = erfc(z/√2)/2`, accurate for large `z`, via `libm`.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// Sorts `v` ascending by `f64::total_cmp` (NaN last). The one f64 sort of the engine (one instantiation in
/// the wasm bundle); values equal under `total_cmp` have identical bits, so the order is fully determined.
pub fn sort_f64(v: &mut [f64]) {
    v.sort_unstable_by(f64::total_cmp);
}

/// Sorts pairs ascending by their first, then their second component (`f64::total_cmp`); fully determined.
pub fn sort_pairs(v: &mut [(f64, f64)]) {
    v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
}

// ---------------------------------------------------------------------------------------------------------
// exact Poisson bounds and the BCa bootstrap (seed 000 §5.2, ALGORITHMS.md §2.8, §2.10)

/// One-sided upper confidence bound at `level` on the mean of a Poisson count observed as `x` (≥ 0; may be
/// fractional, an effective count): the `level` quantile of Γ(x + 1, 1), i.e. `½·χ²_level(2x + 2)` (Garwood).
/// For x = 0 it is `−ln(1 − level)` (2.9957 at 95%). Pure `libm` arithmetic and bisection, so the CLI and the
/// browser compute the same bits; relative accuracy ≈ 1e−13.
pub fn poisson_upper(x: f64, level: f64) -> f64 {
    let x = if x.is_finite() { x.max(0.0) } else { 0.0 };
    if x == 0.0 {
        return -libm::log(1.0 - level);
    }
    let a = x + 1.0;
    // bracket: P(a, hi) ≥ level
    let (mut lo, mut hi) = (0.0, a + 10.0 * a.sqrt() + 10.0);
    while gamma_p(a, hi) < level {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if gamma_p(a, mid) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Regularised lower incomplete gamma `P(a, x)` (series for x < a + 1, Lentz continued fraction otherwise;
/// Numerical Recipes `gammp`), with `libm`.
pub fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let front = libm::exp(a * libm::log(x) - x - libm::lgamma(a));
    if x < a + 1.0 {
        let (mut ap, mut del) = (a, 1.0 / a);
        let mut sum = del;
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        (sum * front).min(1.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-17 {
                break;
            }
        }
        (1.0 - front * h).max(0.0)
    }
}

/// BCa bootstrap CI (level `level`, e.g. 0.95) of the mean of `x` with `b` resamples from stream `seed`
/// (Efron 1987; seed 000 §5.2). Returns (lo, hi); degenerate samples give (mean, mean).
pub fn bca_mean_ci(x: &[f64], b: usize, level: f64, seed: u64) -> (f64, f64) {
    bca_weighted_mean_ci(x, &vec![1.0; x.len()], b, level, seed)
}

/// BCa bootstrap CI (level `level`) of the weighted mean `Σ w·x / Σ w` (the importance-sampling estimator of
/// §2.9 step 6) with `b` resamples from stream `seed`: runs are resampled with replacement (each keeping its
/// weight), the ratio is recomputed per resample, and the acceleration comes from the leave-one-out ratios.
/// Reproducible from the seed (stream (seed, BOOTSTRAP, 0)). With all weights 1 it is [`bca_mean_ci`], and
/// bit-identical to the unweighted implementation of earlier versions (tested). Degenerate samples give
/// (mean, mean).
pub fn bca_weighted_mean_ci(x: &[f64], w: &[f64], b: usize, level: f64, seed: u64) -> (f64, f64) {
    assert_eq!(x.len(), w.len(), "one weight per value");
    let n = x.len();
    let sw: f64 = w.iter().sum();
    let swx: f64 = x.iter().zip(w).map(|(x, w)| w * x).sum();
    let mean = if sw > 0.0 { swx / sw } else { 0.0 };
    if n < 2 || b == 0 || x.iter().all(|v| *v == x[0]) || !(sw > 0.0) {
        return (mean, mean);
    }
    let mut r = crate::substrate::rng::stream(seed, crate::substrate::rng::BOOTSTRAP, 0);
    let mut boots: Vec<f64> = (0..b)
        .map(|_| {
            let (mut num, mut den) = (0.0, 0.0);
            for _ in 0..n {
                let i = (rand::RngExt::random::<u64>(&mut r) % n as u64) as usize;
                num += w[i] * x[i];
                den += w[i];
            }
            if den > 0.0 {
                num / den
            } else {
                mean
            }
        })
        .collect();
    sort_f64(&mut boots);
    let below = boots.iter().filter(|v| **v < mean).count() as f64;
    let prop = ((below + 0.5 * boots.iter().filter(|v| **v == mean).count() as f64) / b as f64)
        .clamp(1e-6, 1.0 - 1e-6);
    let z0 = normal_quantile(prop);
    let jack: Vec<f64> = x
        .iter()
        .zip(w)
        .map(|(v, wi)| {
            let d = sw - wi;
            if d > 0.0 {
                (swx - wi * v) / d
            } else {
                mean
            }
        })
        .collect();
    let jm = jack.iter().sum::<f64>() / n as f64;
    let num: f64 = jack.iter().map(|j| (jm - j).powi(3)).sum();
    let den: f64 = jack
        .iter()
        .map(|j| (jm - j).powi(2))
        .sum::<f64>()
        .powi(3)
        .sqrt();
    let a = if den > 0.0 { num / (6.0 * den) } else { 0.0 };
    let q = |alpha: f64| {
        let z = normal_quantile(alpha);
        let adj = normal_cdf(z0 + (z0 + z) / (1.0 - a * (z0 + z)));
        let idx = ((adj * b as f64).floor() as isize).clamp(0, b as isize - 1) as usize;
        boots[idx]
    };
    let al = (1.0 - level) / 2.0;
    (q(al), q(1.0 - al))
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
        for (p, z) in [
            (0.9, 1.2816),
            (0.95, 1.6449),
            (0.99, 2.3263),
            (0.999, 3.0902),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-4, "z_{p}");
        }
        assert!((normal_cdf(1.959963984540054) - 0.975).abs() < 1e-11);
        assert!((normal_sf(3.0) - 0.0013498980316301).abs() < 1e-12);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert!(normal_quantile(1.5).is_nan());
    }

    #[test]
    fn agrees_with_statrs_across_the_range() {
        use statrs::distribution::{ContinuousCDF, Normal};
        let n = Normal::standard();
        for k in 1..2000 {
            let p = k as f64 / 2000.0;
            for p in [p, p * 1e-6, 1.0 - p * 1e-9] {
                let (a, b) = (normal_quantile(p), n.inverse_cdf(p));
                assert!(
                    (a - b).abs() <= 1e-13 * (1.0 + b.abs()),
                    "p {p}: {a} vs {b}"
                );
            }
            let z = -8.0 + 16.0 * k as f64 / 2000.0;
            assert!(
                (normal_cdf(z) - n.cdf(z)).abs() <= 1e-9 * n.cdf(z),
                "z {z}: {} vs {}",
                normal_cdf(z),
                n.cdf(z)
            );
            assert!(
                (normal_sf(z) - n.sf(z)).abs() <= 1e-9 * n.sf(z),
                "z {z}: {} vs {}",
                normal_sf(z),
                n.sf(z)
            );
        }
        // CPython's math.erfc (an independent implementation): 0.5*erfc(-z/sqrt 2) and 0.5*erfc(z/sqrt 2)
        for (z, cdf, sf) in [
            (-0.744, 0.22843823755248768, 0.7715617624475123),
            (1.0, 0.8413447460685429, 0.15865525393145707),
            (2.5, 0.9937903346742238, 0.006209665325776139),
            (-5.0, 2.866515718791946e-07, 0.9999997133484281),
            (8.0, 0.9999999999999993, 6.220960574271819e-16),
        ] {
            assert!(
                (normal_cdf(z) - cdf).abs() <= 4.0 * f64::EPSILON * cdf,
                "cdf {z}"
            );
            assert!(
                (normal_sf(z) - sf).abs() <= 4.0 * f64::EPSILON * sf,
                "sf {z}"
            );
        }
        // z_{0.95}: the correctly rounded value is 1.6448536269514722
        assert!((normal_quantile(0.95) - 1.6448536269514722).abs() <= 2.0 * f64::EPSILON * 1.65);
    }
}
