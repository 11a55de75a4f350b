//! Seeded random streams and samplers (ALGORITHMS.md §0: one stream per (run seed, component id)), shared by
//! every model: the SplitMix64 mixer [`mix64`], [`stream`] and plain samplers. Component ids are per model
//! (e.g. `crate::models::admission::component`); [`BOOTSTRAP`] is the id of bootstrap resampling streams.
//! Plain implementations (no OS entropy, no rand_distr) so that the engine is deterministic on every target.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Component id of bootstrap resampling streams ([`crate::substrate::stats::bca_mean_ci`]).
pub const BOOTSTRAP: u64 = 5;

/// SplitMix64 finaliser.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of component `comp`, index `idx` (e.g. arrival number) of run seed `seed`.
pub fn stream(seed: u64, comp: u64, idx: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(mix64(
        mix64(mix64(seed) ^ comp.wrapping_mul(0xA24B_AED4_963E_E407)) ^ idx,
    ))
}

/// Uniform in (0, 1].
#[inline]
pub fn uniform_open0<R: rand::Rng>(r: &mut R) -> f64 {
    1.0 - r.random::<f64>()
}

/// Exponential with rate `rate` (per hour); +∞ if rate ≤ 0.
#[inline]
pub fn exp<R: rand::Rng>(r: &mut R, rate: f64) -> f64 {
    if rate <= 0.0 {
        f64::INFINITY
    } else {
        -libm::log(uniform_open0(r)) / rate
    }
}

/// Standard normal (Box–Muller, one value per call).
pub fn normal<R: rand::Rng>(r: &mut R) -> f64 {
    let u1 = uniform_open0(r);
    let u2 = r.random::<f64>();
    (-2.0 * libm::log(u1)).sqrt() * libm::cos(std::f64::consts::TAU * u2)
}

/// Gamma with shape `a` and rate `b` (Marsaglia–Tsang; boosted for a < 1).
pub fn gamma<R: rand::Rng>(r: &mut R, a: f64, b: f64) -> f64 {
    if a < 1.0 {
        let u = uniform_open0(r);
        return gamma(r, a + 1.0, b) * libm::pow(u, 1.0 / a);
    }
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(r);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = uniform_open0(r);
        if libm::log(u) < 0.5 * x * x + d - d * v + d * libm::log(v) {
            return d * v / b;
        }
    }
}

/// Poisson with mean `m` (inversion for m ≤ 30, sum of chunks up to 1e4, normal approximation above).
pub fn poisson<R: rand::Rng>(r: &mut R, m: f64) -> u64 {
    if m <= 0.0 || m.is_nan() {
        return 0;
    }
    if m > 1e4 {
        return (m + m.sqrt() * normal(r)).round().max(0.0) as u64;
    }
    if m > 30.0 {
        let k = (m / 30.0).ceil();
        let part = m / k;
        return (0..k as u64).map(|_| poisson(r, part)).sum();
    }
    let mut p = libm::exp(-m);
    let mut f = p;
    let u = r.random::<f64>();
    let mut k = 0u64;
    while u > f && k < 1000 {
        k += 1;
        p *= m / k as f64;
        f += p;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampler_means() {
        let mut r = stream(7, 1, 0);
        let n = 200_000;
        let g: f64 = (0..n).map(|_| gamma(&mut r, 0.7, 2.0)).sum::<f64>() / n as f64;
        assert!((g - 0.35).abs() < 0.01, "{g}");
        let p: f64 = (0..n).map(|_| poisson(&mut r, 4.5) as f64).sum::<f64>() / n as f64;
        assert!((p - 4.5).abs() < 0.03, "{p}");
        let p: f64 = (0..n / 10)
            .map(|_| poisson(&mut r, 75.0) as f64)
            .sum::<f64>()
            / (n / 10) as f64;
        assert!((p - 75.0).abs() < 0.3, "{p}");
        let e: f64 = (0..n).map(|_| exp(&mut r, 4.0)).sum::<f64>() / n as f64;
        assert!((e - 0.25).abs() < 0.003, "{e}");
    }

    #[test]
    fn streams_are_distinct_and_reproducible() {
        let a: f64 = stream(1, 2, 3).random();
        let b: f64 = stream(1, 2, 3).random();
        let c: f64 = stream(1, 2, 4).random();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
