//! The PM-level dual step's calibrated target (`DualCost::PmCalibrated` of the configuration) and the
//! per-machine exponentially weighted unsafe frequencies of `DualCost::PmEwma` ([`UnsafeEwma`]); both ours,
//! issue 25.
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

/// Per-machine exponentially weighted unsafe frequencies (`DualCost::PmEwma`; ours, issue 25): the
/// evaluation's statistic — the largest over machines of the fraction of E episodes in which the machine was
/// unsafe — estimated from the greedy episodes so far without assuming the machines alike.
///
/// After greedy episode n, machine k's frequency is `u_k ← β·u_k + (1 − β)·1[k unsafe]` (from `u_k = 0`) with
/// `β = 1 − 2/(E + 1)`, whose weights have effective sample size `1/Σw² = (1 + β)/(1 − β) = E`: at one risk p
/// per machine and episode, `u_k` has the mean and variance `p(1 − p)/E` of an E-episode fraction, so the
/// largest `u_k` has nearly the evaluation's inflation over machines, whatever the machines' risks. The
/// statistic is `Û = max_k u_k / (1 − β^n)` (bias-corrected: the plain mean of the n episodes while n ≪ E),
/// or `Û = max_k u_k` without the correction (`C2marlConfig::ewma_bias_correction` false: the frequencies
/// start at 0 and read low while n ≪ E, instead of a short window's maximum, inflated as `DualCost::Pm`'s).
/// Its price is lag: the weights' mean age is `β/(1 − β) = (E − 1)/2` episodes.
#[derive(Clone, Debug, PartialEq)]
pub struct UnsafeEwma {
    /// β ∈ [0, 1).
    beta: f64,
    /// `u_k` per machine index seen so far (machines never seen unsafe, or beyond, are 0).
    rates: Vec<f64>,
    /// `β^n`, n the episodes pushed.
    decay: f64,
    /// Divide by `1 − β^n` in [`UnsafeEwma::statistic`].
    bias_correction: bool,
}

impl UnsafeEwma {
    /// Empty frequencies for an effective sample size of `episodes` (E ≥ 1; `β = 1 − 2/(E + 1)`, 0 at E = 1),
    /// the statistic bias-corrected or not (`bias_correction`).
    pub fn new(episodes: usize, bias_correction: bool) -> Self {
        UnsafeEwma {
            beta: 1.0 - 2.0 / (episodes.max(1) as f64 + 1.0),
            rates: Vec::new(),
            decay: 1.0,
            bias_correction,
        }
    }

    /// Adds one episode in which the machines `unsafe_pms` (indices, each once) were unsafe.
    pub fn push(&mut self, unsafe_pms: &[u32]) {
        if let Some(&top) = unsafe_pms.iter().max() {
            if top as usize >= self.rates.len() {
                self.rates.resize(top as usize + 1, 0.0);
            }
        }
        for u in &mut self.rates {
            *u *= self.beta;
        }
        for &k in unsafe_pms {
            self.rates[k as usize] += 1.0 - self.beta;
        }
        self.decay *= self.beta;
    }

    /// `Û = max_k u_k / (1 − β^n)` ∈ [0, 1], or `max_k u_k` without the bias correction; 0 before the first
    /// episode or when no machine was ever unsafe.
    pub fn statistic(&self) -> f64 {
        if self.decay >= 1.0 {
            return 0.0;
        }
        let top = self.rates.iter().copied().fold(0.0, f64::max);
        if self.bias_correction {
            (top / (1.0 - self.decay)).min(1.0)
        } else {
            top.min(1.0)
        }
    }
}
