//! The PM-level dual step's calibrated target (`DualCost::PmCalibrated` of the configuration) and its
//! empirical-Bayes estimate of the evaluation's statistic (`DualCost::PmEmpiricalBayes`); both ours, issue 25.
//!
//! The evaluation reports PM-Hot-R = max over the K machines of the fraction of E evaluation episodes in which
//! the machine was unsafe (`hot_k ≥ δ`, ALGORITHMS.md §3.5), against the budget 1 − α. The dual step sees the
//! same statistic over a window of W ≪ E greedy episodes; the maximum over K machines of a W-episode fraction
//! is far above the maximum of an E-episode fraction at the same per-machine risk (one machine of 500 unsafe
//! twice in 20 episodes is 10%, while at the risk that makes the 100-episode maximum 5% the 20-episode one is
//! expected near 13%). So the target of the window is calibrated: with K iid machines each unsafe in an
//! episode with probability p, the expected statistic over n episodes is
//!
//! ```text
//! m_n(p) = E[max_k Bin(n, p)] / n = (1/n) Σ_{j=1..n} (1 − F_{n,p}(j − 1)^K)
//! ```
//!
//! (`F_{n,p}` the binomial CDF); p* solves `m_E(p*) = 1 − α` (bisection: `m_n` rises continuously from 0 at
//! p = 0 to 1 at p = 1) and the window's target is `t_W = m_W(p*)`. K = 1 gives `t_W = 1 − α` for every W;
//! W = E gives `t_W = 1 − α` for every K. Only arithmetic (+, −, ×, ÷), so native and wasm agree bit for bit.

/// `x^k` by repeated squaring (`k ≥ 0`; `x^0 = 1`), multiplication only.
fn pow_u(mut x: f64, mut k: usize) -> f64 {
    let mut r = 1.0;
    while k > 0 {
        if k & 1 == 1 {
            r *= x;
        }
        x *= x;
        k >>= 1;
    }
    r
}

/// `m_n(p) = E[max_k X_k]/n` for `machines` (K ≥ 1) iid `X_k ~ Bin(n, p)`, n ≥ 1, p ∈ [0, 1]: the expected
/// largest per-machine fraction of n episodes (module documentation). In [0, 1]; `p` for K = 1.
///
/// The binomial weights are built outwards from the mode by the ratio `P(j+1)/P(j) = (n−j)/(j+1)·p/(1−p)`
/// and normalised, so none underflows where it matters.
pub fn expected_max_fraction(machines: usize, n: usize, p: f64) -> f64 {
    if n == 0 || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let q = 1.0 - p;
    let mode = (((n + 1) as f64 * p).floor() as usize).min(n);
    let mut w = vec![0.0; n + 1];
    w[mode] = 1.0;
    for j in mode + 1..=n {
        w[j] = w[j - 1] * ((n - j + 1) as f64 / j as f64) * (p / q);
    }
    for j in (0..mode).rev() {
        w[j] = w[j + 1] * ((j + 1) as f64 / (n - j) as f64) * (q / p);
    }
    let total: f64 = w.iter().sum();
    let (mut cdf, mut sum) = (0.0, 0.0);
    for &wj in &w[..n] {
        cdf += wj;
        sum += 1.0 - pow_u((cdf / total).min(1.0), machines);
    }
    sum / n as f64
}

/// The per-machine risk p* ∈ [0, 1] at which the expected largest per-machine unsafe fraction of `episodes`
/// (E ≥ 1) episodes over `machines` (K ≥ 1) iid machines equals `target` (1 − α):
/// `expected_max_fraction(K, E, p*) = target`, by bisection to the last bit (0 for target ≤ 0, 1 for ≥ 1).
pub fn calibrated_risk(machines: usize, episodes: usize, target: f64) -> f64 {
    if target <= 0.0 {
        return 0.0;
    }
    if target >= 1.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if expected_max_fraction(machines, episodes, mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The calibrated target `t_W` of the PM dual's window statistic: the expected largest per-machine unsafe
/// fraction of `window` (W ≥ 1) episodes over `machines` (K ≥ 1) iid machines at the risk p*
/// ([`calibrated_risk`]) where that of `eval_episodes` (E) episodes is `1 − alpha`. A fraction in [0, 1];
/// `1 − α` when K = 1 or W = E. Source: ours, issue 25 (module documentation).
pub fn window_target(machines: usize, window: usize, eval_episodes: usize, alpha: f64) -> f64 {
    let p = calibrated_risk(machines, eval_episodes, 1.0 - alpha);
    expected_max_fraction(machines, window, p)
}

/// The beta-binomial CDF `F(x) = P(X ≤ x)`, x = 0..n, of `X ~ BetaBin(n, a, b)` (a, b > 0) into `out`
/// (length n + 1, the last entry 1). The weights are built from x = 0 by the ratio
/// `P(x+1)/P(x) = (n−x)(x+a) / ((x+1)(n−x−1+b))`, rescaled when large, and normalised: +, −, ×, ÷ only.
fn beta_binomial_cdf(n: usize, a: f64, b: f64, out: &mut Vec<f64>) {
    out.clear();
    out.push(1.0);
    for x in 0..n {
        let r = ((n - x) as f64 * (x as f64 + a)) / ((x + 1) as f64 * ((n - x - 1) as f64 + b));
        let next = out[x] * r;
        out.push(next);
        if next > 1e150 {
            out.iter_mut().for_each(|w| *w *= 1e-150);
        }
    }
    let total: f64 = out.iter().sum();
    let mut cdf = 0.0;
    for w in out.iter_mut() {
        cdf += *w;
        *w = (cdf / total).min(1.0);
    }
}

/// The empirical-Bayes estimate of the evaluation's PM statistic from the dual's window (`DualCost::
/// PmEmpiricalBayes`; ours, issue 25): the expected largest per-machine unsafe fraction of `eval_episodes`
/// (E ≥ 1) future episodes, given that machine k was unsafe in `counts[k]` of the `window` (W ≥ 1) greedy
/// episodes, for `machines` (K ≥ `counts.len()`) machines — those not in `counts` were never unsafe. A
/// fraction in [0, 1]; 0 when no machine was unsafe.
///
/// Machines are not assumed alike: each has its own risk p_k, drawn from a Beta(a, b) prior whose mean m
/// (the pooled rate Σc_k/(K·W)) and intra-class correlation ρ = 1/(a + b + 1) are fitted to the counts by
/// moments (beta-binomial: Var(c_k/W) = m(1 − m)(1 + (W − 1)ρ)/W, so ρ = (W·s²/(m(1 − m)) − 1)/(W − 1),
/// clipped to [0, 1 − 10⁻⁹], s² the counts' variance over the K machines). Given c_k, machine k's unsafe
/// count over E episodes is BetaBin(E, a + c_k, b + W − c_k) (its posterior predictive), independently, so
///
/// ```text
/// Û = E[max_k X_k]/E = (1/E) Σ_{j=1..E} (1 − Π_k F_k(j − 1))
/// ```
///
/// (machines with equal counts share F_k). At ρ = 0 (W = 1, or no spread beyond the binomial) every machine
/// has risk m: [`expected_max_fraction`]`(K, E, m)`. A few risky machines among many safe ones keep their
/// own rate (little shrinkage); many alike machines are pulled to the pooled rate, which removes the window
/// maximum's winner's-curse inflation that the uncalibrated PM dual meets.
pub fn empirical_bayes_max_fraction(
    counts: &[u32],
    machines: usize,
    window: usize,
    eval_episodes: usize,
) -> f64 {
    let (k, w) = (machines.max(counts.len()) as f64, window.max(1) as f64);
    let total: f64 = counts.iter().map(|&c| c as f64).sum();
    if total <= 0.0 || eval_episodes == 0 {
        return 0.0;
    }
    let m = total / (k * w);
    if m >= 1.0 {
        return 1.0;
    }
    let zeros = k - counts.len() as f64;
    let s2 = (counts
        .iter()
        .map(|&c| (c as f64 / w - m) * (c as f64 / w - m))
        .sum::<f64>()
        + zeros * m * m)
        / k;
    let rho = if window <= 1 {
        0.0
    } else {
        ((w * s2 / (m * (1.0 - m)) - 1.0) / (w - 1.0)).clamp(0.0, 1.0 - 1e-9)
    };
    if rho <= 0.0 {
        return expected_max_fraction(machines.max(counts.len()), eval_episodes, m);
    }
    let strength = 1.0 / rho - 1.0;
    let (a, b) = (m * strength, (1.0 - m) * strength);
    // machines per count (count 0 included), ascending
    let mut groups = std::collections::BTreeMap::<u32, usize>::new();
    for &c in counts {
        *groups.entry(c.min(window as u32)).or_default() += 1;
    }
    *groups.entry(0).or_default() += machines.max(counts.len()) - counts.len();
    let mut cdfs = Vec::with_capacity(groups.len());
    let mut f = Vec::new();
    for (&c, &n) in &groups {
        if n > 0 {
            beta_binomial_cdf(eval_episodes, a + c as f64, b + w - c as f64, &mut f);
            cdfs.push((f.clone(), n));
        }
    }
    let mut sum = 0.0;
    for j in 1..=eval_episodes {
        let below: f64 = cdfs.iter().map(|(f, n)| pow_u(f[j - 1], *n)).product();
        sum += 1.0 - below;
    }
    sum / eval_episodes as f64
}
