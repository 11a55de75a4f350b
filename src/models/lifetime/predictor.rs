//! Lifetime predictors (seed 003 §3, App. B, C, G.1; ALGORITHMS.md §5.2) behind one trait.
//!
//! Times are hours. A predictor answers two questions about job `j` of the simulated workload: its first
//! prediction `L̂` (at uptime 0) and its predicted remaining lifetime `R̂_j(u) = E[T − u | T > u]` at uptime
//! `u` (the reprediction). Without reprediction (the "one-shot" ablation, also what LA-Binary uses) the
//! remaining time is the same model's estimate at arrival counted down, `max(R̂(0) − u, 0)` ([`OneShot`]).

use crate::substrate::rng::{normal, stream};
use crate::substrate::stats::{normal_cdf, normal_quantile, normal_sf};
use rand::RngExt;

/// A lifetime predictor over the jobs of one simulation (indices `0..n`).
pub trait LifetimePredictor: Send + Sync {
    /// `L̂`: the first prediction of job `j`'s lifetime, hours (≥ 0).
    fn first(&self, j: usize) -> f64;
    /// `R̂_j(u)`: the predicted remaining lifetime of job `j` at uptime `u` hours (≥ 0).
    fn remaining(&self, j: usize, u: f64) -> f64;
}

/// Cap of the noisy predictor's `L̂` (App. G.1, stated): 14 days, hours.
pub const MAX_PREDICTION_H: f64 = 14.0 * 24.0;
/// Floor of a wrong noisy prediction `L̂`, hours (1 s): App. G.1 caps at 0, but the log-normal component of
/// the posterior needs `L̂ > 0` [UNSTATED].
pub const MIN_PREDICTION_H: f64 = 1.0 / 3600.0;
/// Log10 error of a correct noisy prediction (App. G.1, stated); [`Noisy`] treats it as 0 (±0.23%).
pub const CORRECT_ERROR_DECADES: f64 = 0.001;
/// Log10 error of an incorrect noisy prediction (App. G.1, stated).
pub const WRONG_ERROR_DECADES: f64 = 3.0;

/// The oracle: `L̂ = T`, `R̂(u) = max(T − u, 0)` with `T` the true lifetime (for right-censored jobs the
/// imputed one, see [`super::pool::Job::life`]).
pub struct Oracle {
    life: Vec<f64>,
}

impl Oracle {
    /// From the true lifetimes, hours.
    pub fn new(life: Vec<f64>) -> Oracle {
        Oracle { life }
    }
}

impl LifetimePredictor for Oracle {
    fn first(&self, j: usize) -> f64 {
        self.life[j]
    }
    fn remaining(&self, j: usize, u: f64) -> f64 {
        (self.life[j] - u).max(0.0)
    }
}

/// `E[T − u | T > u]` for `T ~ LogNormal(m, s²)` (natural log), hours:
/// `exp(m + s²/2)·Φ((m + s² − ln u)/s) / Φ((m − ln u)/s) − u`, and `exp(m + s²/2)` at `u ≤ 0`
/// (ALGORITHMS.md §5.2). When the tail probability underflows, the Mills-ratio asymptote `u·s²/(ln u − m)`.
pub fn lognormal_mean_residual(m: f64, s: f64, u: f64) -> f64 {
    let mean = (m + 0.5 * s * s).exp();
    if u <= 0.0 {
        return mean;
    }
    let lu = u.ln();
    // Φ(x) = normal_sf(−x)
    let den = normal_sf((lu - m) / s);
    let num = normal_sf((lu - m - s * s) / s);
    if den > 1e-300 && num.is_finite() {
        (mean * num / den - u).max(0.0)
    } else {
        (u * s * s / (lu - m)).max(0.0)
    }
}

/// The point estimate the noisy predictor reports from its posterior (ALGORITHMS.md §5.2).
/// Serialized kebab-case: `capped-mean`, `median`, `mean`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoisyEstimate {
    /// §5.2 exactly (the default from defaults set 11): at uptime `u > 0` the posterior mean
    /// `E[T − u | T > u]` with the wrong component's `T` capped at 14 days, `T_c = min(T, 336 h)` (a point
    /// mass at the cap carries `P(T > 336 h)`); at `u = 0` the prediction `L̂` (see [`Noisy`]). The posterior
    /// mean stays near the lifetime scale (A = 0.9, u → 0: 4.46, 6.18, 11.11, 31.33 h for L̂ = 0.05, 0.2, 2,
    /// 20 h). A VM alive past both `L̂` and the cap, which the capped model gives
    /// no mass, gets the uncapped log-normal's conditional mean capped at 14 days, i.e. 14 days [ours].
    #[default]
    CappedMean,
    /// The posterior median of `T − u` given `T > u`, `T` uncapped (the default of defaults sets 9–10): what a
    /// model regressing `log10` lifetimes reports (seed 003 §3, App. B). At uptime 0 it is `L̂` itself for
    /// every `A` (the log-normal component is centred on it).
    Median,
    /// The posterior mean with `T` uncapped (sets 9–10's alternative, kept so their links keep their
    /// numbers): dominated by the 3-decade log-normal's tail (its mean is `L̂·e^{23.8}`), so below `A = 1`
    /// nearly every prediction sits at the 14-day cap.
    Mean,
}

impl NoisyEstimate {
    /// The name (`capped-mean`, `median`, `mean`).
    pub fn name(self) -> &'static str {
        match self {
            NoisyEstimate::CappedMean => "capped-mean",
            NoisyEstimate::Median => "median",
            NoisyEstimate::Mean => "mean",
        }
    }
}

/// The noisy predictor at accuracy `A` (App. G.1, stated; ALGORITHMS.md §5.2 as corrected): per job,
/// `correct ~ Bernoulli(A)` once. A correct prediction is the true lifetime, `L̂ = T` (the stated 0.001-decade
/// error, ±0.23%, is dropped so that A = 1 is the oracle bit for bit [UNSTATED]); a wrong one is
/// `log10 L̂ = log10 T + N(0, 3²)` ([`WRONG_ERROR_DECADES`]), capped to [[`MIN_PREDICTION_H`],
/// [`MAX_PREDICTION_H`]].
///
/// Reprediction is the posterior of `T` under this known noise model given `L̂` and `T > u`: a point mass at
/// `L̂` (weight `A`) and `LogNormal(ln L̂, (3·ln 10)²)` (weight `1 − A`; capped at 14 days for the default
/// [`NoisyEstimate::CappedMean`], uncapped for the median and the uncapped mean), each conditioned on `T > u`
/// and renormalised. `R̂(u)` is its mean or median of `T − u` ([`NoisyEstimate`]),
/// and, as App. G.1 caps the *predictions* at 14 days, capped at [`MAX_PREDICTION_H`] (at `L̂ − u` when a
/// correct prediction is longer, so that A = 1 stays the oracle). At arrival (`u = 0`) the default
/// [`NoisyEstimate::CappedMean`] reports `L̂` itself, not the posterior mean: App. G.1 applies the noise to
/// the label, so the model's prediction at uptime 0 *is* `L̂` (ALGORITHMS.md §5.2 item 4 and §5.5 classify by
/// `L̂`). LAVA's first class, LA-Binary's class, NILAS's exit of an arriving VM and the one-shot ablation
/// ([`OneShot`]: `max(L̂ − u, 0)`) all read it; the posterior serves the repredictions at `u > 0` (issue 27,
/// review item 1: the posterior mean at u = 0 is ≥ 4.46 h at A = 0.9, which classed 98% of Azure VMs long).
/// The median is `L̂` at `u = 0` by itself; the uncapped mean (sets 9–10) keeps its posterior mean there.
/// "Posterior" as §5.2 defines it: the mixture keeps the prior weights `A` and `1 − A` (not re-weighted by the
/// likelihood of the observed `L̂` under each component), and a clipped `L̂` is taken as exact. A VM older than `L̂` keeps a positive,
/// continuous `R̂` from the log-normal component while `A < 1`; at `A = 1` it is 0 (the oracle's
/// `max(T − u, 0)`).
pub struct Noisy {
    lhat: Vec<f64>,
    accuracy: f64,
    s: f64,
    estimate: NoisyEstimate,
}

impl Noisy {
    /// Draws the predictions for true lifetimes `life` (hours) at accuracy `accuracy` ∈ [0, 1]; job `j` uses
    /// its own random stream `(seed, comp, j)`, so predictions do not depend on the order of evaluation.
    pub fn new(
        life: &[f64],
        accuracy: f64,
        seed: u64,
        comp: u64,
        estimate: NoisyEstimate,
    ) -> Noisy {
        let lhat = life
            .iter()
            .enumerate()
            .map(|(j, &t)| {
                let mut r = stream(seed, comp, j as u64);
                if r.random::<f64>() < accuracy {
                    return t;
                }
                let lg = t.max(MIN_PREDICTION_H).log10() + WRONG_ERROR_DECADES * normal(&mut r);
                10f64.powf(lg).clamp(MIN_PREDICTION_H, MAX_PREDICTION_H)
            })
            .collect();
        Noisy {
            lhat,
            accuracy: accuracy.clamp(0.0, 1.0),
            s: WRONG_ERROR_DECADES * std::f64::consts::LN_10,
            estimate,
        }
    }

    /// The posterior median of `T − u` given `T > u`, hours, uncapped. With `S(t) = A·1{L̂ > t} +
    /// (1 − A)·Q((ln t − ln L̂)/s)` (Q the normal tail), the least `t > u` with `S(t) ≤ S(u)/2`, less `u`:
    /// `L̂` itself while the point mass is alive and `S(L̂) = (1 − A)/2 ≤ S(u)/2`, else inside the log-normal
    /// component by its quantile; 0 when nothing lies beyond `u` (`A = 1`, `u ≥ L̂`).
    fn median_residual(&self, lhat: f64, u: f64) -> f64 {
        let (a, s) = (self.accuracy, self.s);
        let m = lhat.max(MIN_PREDICTION_H).ln();
        let q_u = if u > 0.0 {
            normal_sf((u.ln() - m) / s)
        } else {
            1.0
        };
        let alive = lhat > u;
        if a >= 1.0 {
            return if alive { lhat - u } else { 0.0 };
        }
        let s_u = if alive { a } else { 0.0 } + (1.0 - a) * q_u;
        let target = 0.5 * s_u;
        if alive && 0.5 * (1.0 - a) <= target {
            return lhat - u;
        }
        // in the log-normal component beyond u (and beyond L̂ when the point mass is alive): (1 − A)·Q(z) = target
        let q = target / (1.0 - a);
        if q > 1e-300 {
            let z = -normal_quantile(q);
            ((m + s * z).exp() - u).max(0.0)
        } else {
            // far tail: Q(z') = Q(z)/2 gives z' ≈ z + ln 2/z
            let z = (u.ln() - m) / s;
            u * (s * std::f64::consts::LN_2 / z).exp_m1()
        }
    }

    /// The posterior mean of `T − u` given `T > u` with the log-normal component capped at
    /// `c` = [`MAX_PREDICTION_H`] (ALGORITHMS.md §5.2), hours. For `u < c` the capped component contributes
    /// weight `(1 − A)·Q((ln u − m)/s)` and partial mean `E[min(T, c); T > u] = e^{m+s²/2}[Φ((ln c − m − s²)/s) −
    /// Φ((ln u − m − s²)/s)] + c·Q((ln c − m)/s)`; for `u ≥ c` it has no mass. When neither component is
    /// alive (`u ≥ L̂` and `u ≥ c`, a wrong prediction outlived by more than 14 days) the uncapped log-normal's
    /// conditional mean, capped at `c` [ours].
    fn capped_mean_residual(&self, lhat: f64, u: f64) -> f64 {
        let a = self.accuracy;
        let (w1, r1) = if lhat > u { (a, lhat - u) } else { (0.0, 0.0) };
        if a >= 1.0 {
            return r1;
        }
        let (c, s) = (MAX_PREDICTION_H, self.s);
        let m = lhat.max(MIN_PREDICTION_H).ln();
        // (1 − A)·P(T > u) and (1 − A)·E[T_c − u; T_c > u]
        let (w2, wr2) = if u < c {
            let (q_u, phi_u) = if u > 0.0 {
                let lu = u.ln();
                (normal_sf((lu - m) / s), normal_cdf((lu - m - s * s) / s))
            } else {
                (1.0, 0.0)
            };
            let lc = c.ln();
            let partial = (m + 0.5 * s * s).exp()
                * (normal_cdf((lc - m - s * s) / s) - phi_u).max(0.0)
                + c * normal_sf((lc - m) / s);
            let r = (partial - u * q_u).clamp(0.0, (c - u) * q_u);
            ((1.0 - a) * q_u, (1.0 - a) * r)
        } else {
            (0.0, 0.0)
        };
        if w1 + w2 > 0.0 {
            (w1 * r1 + wr2) / (w1 + w2)
        } else {
            lognormal_mean_residual(m, s, u).min(c)
        }
    }

    /// The posterior mean of `T − u` given `T > u`, hours, uncapped (0 when nothing lies beyond `u`).
    fn mean_residual(&self, lhat: f64, u: f64) -> f64 {
        let a = self.accuracy;
        let (w1, r1) = if lhat > u { (a, lhat - u) } else { (0.0, 0.0) };
        if a >= 1.0 {
            return r1;
        }
        let m = lhat.max(MIN_PREDICTION_H).ln();
        let q_u = if u > 0.0 {
            normal_sf((u.ln() - m) / self.s)
        } else {
            1.0
        };
        let r2 = lognormal_mean_residual(m, self.s, u);
        let w2 = (1.0 - a) * q_u;
        if w1 + w2 > 0.0 {
            (w1 * r1 + w2 * r2) / (w1 + w2)
        } else {
            // the point mass is gone and the tail underflows: the log-normal's own residual
            r2
        }
    }
}

impl LifetimePredictor for Noisy {
    fn first(&self, j: usize) -> f64 {
        self.lhat[j]
    }
    /// The posterior mean or median residual, capped (see the type's documentation); for
    /// [`NoisyEstimate::CappedMean`] at `u ≤ 0` the prediction itself, `L̂`.
    fn remaining(&self, j: usize, u: f64) -> f64 {
        let lhat = self.lhat[j];
        if u <= 0.0 && self.estimate == NoisyEstimate::CappedMean {
            return lhat;
        }
        let r = match self.estimate {
            NoisyEstimate::Median => self.median_residual(lhat, u),
            NoisyEstimate::Mean => self.mean_residual(lhat, u),
            NoisyEstimate::CappedMean => self.capped_mean_residual(lhat, u),
        };
        r.min(MAX_PREDICTION_H.max(lhat - u))
    }
}

/// Suffix sums of a discrete lifetime distribution on ascending points (hours): `tail_p[i] = Σ_{k ≥ i} p_k` and
/// `tail_pt[i] = Σ_{k ≥ i} p_k·t_k`, both one longer than `t` (the last entry 0). The one place that answers
/// the mean, the survival and the mean residual life `E[T − u | T > u]` (ALGORITHMS.md §5.2 item 3) of a
/// point distribution, in `O(log n)`: [`LifetimeDist`] (Kaplan–Meier) and the learned predictor's per-job
/// distributions on shared points ([`super::learned`]) both answer through it.
#[derive(Clone, Copy, Debug)]
pub struct TailSums<'a> {
    /// The points, hours, ascending.
    pub t: &'a [f64],
    /// `Σ_{k ≥ i} p_k`, length `t.len() + 1`.
    pub tail_p: &'a [f64],
    /// `Σ_{k ≥ i} p_k·t_k` (hours), same length as `tail_p`.
    pub tail_pt: &'a [f64],
}

impl TailSums<'_> {
    /// Fills the suffix sums of masses `p` on points `t` into `tail_p` and `tail_pt` (each at least
    /// `t.len() + 1` long, else nothing is written; entries beyond are left alone).
    pub fn fill(t: &[f64], p: &[f64], tail_p: &mut [f64], tail_pt: &mut [f64]) {
        let n = t.len().min(p.len());
        if tail_p.len() <= n || tail_pt.len() <= n {
            return;
        }
        tail_p[n] = 0.0;
        tail_pt[n] = 0.0;
        for k in (0..n).rev() {
            tail_p[k] = tail_p[k + 1] + p[k];
            tail_pt[k] = tail_pt[k + 1] + p[k] * t[k];
        }
    }

    /// The mean lifetime, hours (over the total mass, which is 1 for a distribution).
    pub fn mean(&self) -> f64 {
        self.tail_pt.first().copied().unwrap_or(0.0)
    }

    /// `E[T − u | T > u]`, hours; 0 when no mass lies beyond `u`.
    pub fn mean_residual(&self, u: f64) -> f64 {
        let i = self.t.partition_point(|&x| x <= u);
        let p = self.tail_p.get(i).copied().unwrap_or(0.0);
        if p <= 0.0 {
            0.0
        } else {
            (self.tail_pt.get(i).copied().unwrap_or(0.0) / p - u).max(0.0)
        }
    }

    /// `P(T > u)`.
    pub fn survival(&self, u: f64) -> f64 {
        self.tail_p
            .get(self.t.partition_point(|&x| x <= u))
            .copied()
            .unwrap_or(0.0)
    }
}

/// A lifetime distribution on points (hours) with probabilities: the Kaplan–Meier estimate of a population's
/// lifetimes with right-censoring (the mass left after the last event sits at the largest observed time).
/// Answers the mean residual life `E[T − u | T > u]` in `O(log n)` ([`TailSums`]).
#[derive(Clone, Debug)]
pub struct LifetimeDist {
    t: Vec<f64>,
    /// Σ_{k ≥ i} p_k
    tail_p: Vec<f64>,
    /// Σ_{k ≥ i} p_k·t_k
    tail_pt: Vec<f64>,
}

impl LifetimeDist {
    /// The Kaplan–Meier estimate from `(lifetime hours, censored)` observations (censored = a lower bound).
    /// At tied times events come before censorings (the usual convention). `None` when there are none.
    pub fn kaplan_meier(obs: &[(f64, bool)]) -> Option<LifetimeDist> {
        let mut o: Vec<(f64, bool)> = obs
            .iter()
            .copied()
            .filter(|(t, _)| t.is_finite() && *t >= 0.0)
            .collect();
        if o.is_empty() {
            return None;
        }
        // events (censored = false) first at equal times
        o.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let max_t = o.last().map(|x| x.0).unwrap_or(0.0);
        let mut at_risk = o.len() as f64;
        let mut s = 1.0;
        let (mut t, mut p) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < o.len() {
            let ti = o[i].0;
            let (mut d, mut c) = (0.0, 0.0);
            while i < o.len() && o[i].0 == ti {
                if o[i].1 {
                    c += 1.0;
                } else {
                    d += 1.0;
                }
                i += 1;
            }
            if d > 0.0 {
                let s_next = s * (1.0 - d / at_risk);
                t.push(ti);
                p.push(s - s_next);
                s = s_next;
            }
            at_risk -= d + c;
        }
        if s > 0.0 {
            match t.last() {
                Some(&last) if last == max_t => *p.last_mut().expect("non-empty") += s,
                _ => {
                    t.push(max_t);
                    p.push(s);
                }
            }
        }
        let n = t.len();
        let (mut tail_p, mut tail_pt) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        TailSums::fill(&t, &p, &mut tail_p, &mut tail_pt);
        Some(LifetimeDist { t, tail_p, tail_pt })
    }

    /// Its suffix sums.
    pub fn tails(&self) -> TailSums<'_> {
        TailSums {
            t: &self.t,
            tail_p: &self.tail_p,
            tail_pt: &self.tail_pt,
        }
    }

    /// The mean lifetime, hours.
    pub fn mean(&self) -> f64 {
        self.tails().mean()
    }

    /// `E[T − u | T > u]`, hours; 0 when no mass lies beyond `u`.
    pub fn mean_residual(&self, u: f64) -> f64 {
        self.tails().mean_residual(u)
    }

    /// `P(T > u)`.
    pub fn survival(&self, u: f64) -> f64 {
        self.tails().survival(u)
    }

    /// A lifetime drawn from the distribution conditional on `T > u`, by inversion of the uniform `v` in
    /// [0, 1): the point `t_k > u` with `S(t_k) ≤ (1 − v)·S(u) < S(t_{k−1})`. `None` when no mass lies beyond
    /// `u` or the draw falls on the last point (the Kaplan–Meier mass left after the last event: a lifetime
    /// beyond the largest observed, whose value the data does not give).
    pub fn draw_beyond(&self, u: f64, v: f64) -> Option<f64> {
        let i = self.t.partition_point(|&x| x <= u);
        let s = self.tail_p.get(i).copied().unwrap_or(0.0);
        if s <= 0.0 || i >= self.t.len() {
            return None;
        }
        let target = (1.0 - v) * s;
        // the largest k ≥ i with tail_p[k] ≥ target (tail_p decreases)
        let k = i + self.tail_p[i..self.t.len()].partition_point(|&x| x >= target) - 1;
        (k + 1 < self.t.len()).then(|| self.t[k])
    }
}

/// The feature-free distributional predictor: every job gets the population's `E[T − u | T > u]`
/// (ALGORITHMS.md §5.2 item 3), from a [`LifetimeDist`] fitted on the training VMs.
pub struct Distributional {
    dist: LifetimeDist,
}

impl Distributional {
    /// From the population distribution.
    pub fn new(dist: LifetimeDist) -> Distributional {
        Distributional { dist }
    }
}

impl LifetimePredictor for Distributional {
    fn first(&self, _j: usize) -> f64 {
        self.dist.mean()
    }
    fn remaining(&self, _j: usize, u: f64) -> f64 {
        self.dist.mean_residual(u)
    }
}

/// Any predictor without reprediction (ALGORITHMS.md §5.2 item 4, §5.3): the same model's estimate at
/// uptime 0, `R̂(0)` (`L̂` for every predictor but the legacy uncapped noisy mean), counted down,
/// `R̂(u) = max(R̂(0) − u, 0)`; its first prediction is `R̂(0)` too. So the
/// "no reprediction" ablation differs from the repredicted arm only in the update (at `u = 0` the two agree
/// exactly), and LA-Binary (which reads `R̂(0)` from whatever predictor it is given) sees the same model.
pub struct OneShot {
    r0: Vec<f64>,
}

impl OneShot {
    /// Evaluates `R̂_j(0)` of `p` for the jobs `0..n` once.
    pub fn new<P: LifetimePredictor + ?Sized>(p: &P, n: usize) -> OneShot {
        OneShot {
            r0: (0..n).map(|j| p.remaining(j, 0.0)).collect(),
        }
    }
}

impl LifetimePredictor for OneShot {
    fn first(&self, j: usize) -> f64 {
        self.r0[j]
    }
    fn remaining(&self, j: usize, u: f64) -> f64 {
        (self.r0[j] - u).max(0.0)
    }
}

impl LifetimePredictor for Box<dyn LifetimePredictor> {
    fn first(&self, j: usize) -> f64 {
        (**self).first(j)
    }
    fn remaining(&self, j: usize, u: f64) -> f64 {
        (**self).remaining(j, u)
    }
}

#[cfg(test)]
mod tests {

    /// Draws beyond an age by hand: lifetimes 1, 2, 2, 4 h (no censoring): masses 1/4, 1/2, 1/4 on 1, 2, 4 h.
    /// Beyond 1 h: S = 3/4, so 2 h with probability 2/3 (v < 2/3) and 4 h (the last point: `None`) after.
    #[test]
    fn draws_beyond_an_age_by_inversion() {
        let d =
            LifetimeDist::kaplan_meier(&[(1.0, false), (2.0, false), (2.0, false), (4.0, false)])
                .unwrap();
        assert_eq!(d.draw_beyond(1.0, 0.0), Some(2.0));
        assert_eq!(d.draw_beyond(1.0, 0.66), Some(2.0));
        assert_eq!(d.draw_beyond(1.0, 0.67), None);
        assert_eq!(d.draw_beyond(0.5, 0.2), Some(1.0));
        assert_eq!(d.draw_beyond(0.5, 0.3), Some(2.0));
        assert_eq!(d.draw_beyond(4.0, 0.1), None);
    }
    use super::*;

    /// `E[T − u | T > u]` by numerical integration of `∫_u^∞ S(t) dt / S(u)` for a log-normal, an
    /// independent route from the closed form (which integrates `t·f(t)`).
    fn residual_by_quadrature(m: f64, s: f64, u: f64) -> f64 {
        let surv = |t: f64| normal_sf((t.ln() - m) / s);
        // substitute t = u + x, integrate S over x ∈ [0, big] with Simpson on a log-spaced grid in x
        let (lo, hi) = (1e-9f64, (m + 12.0 * s).exp() * 10.0 + u);
        let n = 200_000;
        let (a, b) = (lo.ln(), hi.ln());
        let h = (b - a) / n as f64;
        let f = |y: f64| {
            let x = y.exp();
            surv(u + x) * x
        };
        let mut sum = f(a) + f(b);
        for k in 1..n {
            let y = a + k as f64 * h;
            sum += if k % 2 == 1 { 4.0 } else { 2.0 } * f(y);
        }
        // the part x ∈ [0, lo] adds at most lo·S(u)
        (sum * h / 3.0 + lo * surv(u)) / surv(u)
    }

    #[test]
    fn lognormal_mean_residual_matches_numerical_integration() {
        let s = 0.5 * std::f64::consts::LN_10;
        for &(lhat, u) in &[
            (1.0, 0.5),
            (1.0, 3.0),
            (24.0, 10.0),
            (24.0, 200.0),
            (0.2, 5.0),
        ] {
            let m = f64::ln(lhat);
            let closed = lognormal_mean_residual(m, s, u);
            let quad = residual_by_quadrature(m, s, u);
            assert!(
                (closed - quad).abs() <= 1e-4 * quad.max(1.0),
                "L̂ = {lhat}, u = {u}: closed {closed} vs quadrature {quad}"
            );
        }
    }

    /// At A = 1 the noisy predictor is the oracle, bit for bit, at every uptime (before, at and after the exit,
    /// and beyond the 14-day cap).
    #[test]
    fn noisy_at_full_accuracy_is_the_oracle_bit_for_bit() {
        let life = vec![0.01, 0.5, 3.7, 10.0, 170.0, 1000.0];
        for est in [
            NoisyEstimate::CappedMean,
            NoisyEstimate::Median,
            NoisyEstimate::Mean,
        ] {
            let noisy = Noisy::new(&life, 1.0, 11, 3, est);
            let oracle = Oracle::new(life.clone());
            for j in 0..life.len() {
                assert_eq!(noisy.first(j).to_bits(), oracle.first(j).to_bits());
                for &u in &[
                    0.0, 0.004, 0.3, 0.5, 2.0, 3.7, 9.99, 100.0, 400.0, 999.0, 1000.0, 2000.0,
                ] {
                    assert_eq!(
                        noisy.remaining(j, u).to_bits(),
                        oracle.remaining(j, u).to_bits(),
                        "job {j}, u = {u}"
                    );
                }
            }
        }
    }

    fn noisy(a: f64, lhat: f64, estimate: NoisyEstimate) -> Noisy {
        Noisy {
            lhat: vec![lhat],
            accuracy: a,
            s: WRONG_ERROR_DECADES * std::f64::consts::LN_10,
            estimate,
        }
    }

    /// The posterior's survival `S(t) = A·1{L̂ > t} + (1 − A)·Q((ln t − ln L̂)/s)` (uncapped `T`).
    fn posterior_survival(a: f64, lhat: f64, t: f64) -> f64 {
        let s = WRONG_ERROR_DECADES * std::f64::consts::LN_10;
        let q = if t <= 0.0 {
            1.0
        } else {
            normal_sf((t.ln() - lhat.ln()) / s)
        };
        a * f64::from(u8::from(lhat > t)) + (1.0 - a) * q
    }

    /// `(A, L̂ h, age u h)` cases both posterior means are checked on (each test adds its own): the age before,
    /// at and after `L̂`, `A` from 0 to 0.99.
    const POSTERIOR_CASES: [(f64, f64, f64); 6] = [
        (0.9, 2.0, 0.5),
        (0.9, 2.0, 3.0),
        (0.5, 0.1, 0.05),
        (0.7, 50.0, 60.0),
        (0.0, 5.0, 1.0),
        (0.99, 300.0, 100.0),
    ];

    /// The posterior mean residual (uncapped) against numerical integration of the mixture's survival:
    /// `E[T − u | T > u] = ∫_u^∞ S(t) dt / S(u)`, with `t = e^y` (Simpson in `y` on each side of `L̂`, up to
    /// 14 standard deviations beyond the integrand's peak at `ln L̂ + s²`).
    #[test]
    fn noisy_posterior_mean_matches_numerical_integration() {
        let s = WRONG_ERROR_DECADES * std::f64::consts::LN_10;
        for &(a, lhat, u) in POSTERIOR_CASES.iter().chain(&[(0.9, 2.0, 337.0)]) {
            let y_hi = lhat.ln() + s * s + 14.0 * s;
            let mut knots = vec![u.ln()];
            if lhat > u {
                knots.push(lhat.ln());
            }
            knots.push(y_hi);
            let integral = simpson_in_log_time(&knots, 200_000, |t| posterior_survival(a, lhat, t));
            let want = integral / posterior_survival(a, lhat, u);
            let got = noisy(a, lhat, NoisyEstimate::Mean).mean_residual(lhat, u);
            assert!(
                (got - want).abs() <= 1e-6 * want,
                "A = {a}, L̂ = {lhat}, u = {u}: posterior mean {got} vs quadrature {want}"
            );
        }
    }

    /// `∫ S(t) dt` over `t` from `e^{knots[0]}` to `e^{knots.last()}`, by Simpson's rule in `y = ln t` with
    /// `n` (even) intervals per piece between consecutive knots; `S` is evaluated just inside each piece, so a
    /// jump of the survival at a knot is integrated exactly.
    fn simpson_in_log_time(knots: &[f64], n: usize, surv: impl Fn(f64) -> f64) -> f64 {
        let mut integral = 0.0;
        for w in knots.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let h = (hi - lo) / n as f64;
            let f = |y: f64| {
                let y = y.clamp(lo + 1e-12, hi - 1e-12);
                surv(y.exp()) * y.exp()
            };
            let mut sum = f(lo) + f(hi);
            for k in 1..n {
                sum += if k % 2 == 1 { 4.0 } else { 2.0 } * f(lo + k as f64 * h);
            }
            integral += sum * h / 3.0;
        }
        integral
    }

    /// The §5.2 posterior mean (the log-normal component capped at 14 days) against numerical integration of
    /// its survival, `E[T_c − u | T_c > u] = ∫_u^∞ S_c(t) dt / S_c(u)` with `S_c(t) = A·1{L̂ > t} +
    /// (1 − A)·Q((ln t − ln L̂)/s)·1{t < 336 h}` (Simpson in `y = ln t` between the knots u, L̂, 336 h).
    #[test]
    fn capped_posterior_mean_matches_numerical_integration() {
        let s = WRONG_ERROR_DECADES * std::f64::consts::LN_10;
        let c = MAX_PREDICTION_H;
        let surv = |a: f64, lhat: f64, t: f64| {
            let q = if t <= 0.0 {
                1.0
            } else if t >= c {
                0.0
            } else {
                normal_sf((t.ln() - lhat.ln()) / s)
            };
            a * f64::from(u8::from(lhat > t)) + (1.0 - a) * q
        };
        for &(a, lhat, u) in POSTERIOR_CASES.iter().chain(&[
            (0.8, 500.0, 100.0),
            (0.6, 20.0, 330.0),
            (0.9, 400.0, 350.0),
        ]) {
            // the survival is 0 beyond max(L̂, c); integrate from u over the knots above it
            let mut knots = vec![u.ln()];
            knots.extend([c, lhat].iter().filter(|&&t| t > u).map(|t| t.ln()));
            knots.sort_by(f64::total_cmp);
            let integral = simpson_in_log_time(&knots, 20_000, |t| surv(a, lhat, t));
            let want = integral / surv(a, lhat, u);
            let got = noisy(a, lhat, NoisyEstimate::CappedMean).remaining(0, u);
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-3),
                "A = {a}, L̂ = {lhat}, u = {u}: capped posterior mean {got} vs quadrature {want}"
            );
        }
    }

    /// The independent figures of ALGORITHMS.md §5.2 (A = 0.9, u = 0, computed apart from the engine): R̂(0)
    /// = 0.9·L̂ + 0.1·E[min(T, 336 h)] = 4.46, 6.18, 11.11, 31.33 h for L̂ = 0.05, 0.2, 2, 20 h. Past both L̂
    /// and the cap the capped model has no mass: 14 days [ours]; a correct L̂ beyond the cap is kept.
    /// At arrival the reported prediction is `L̂` itself (App. G.1 noises the label; review item 1), while
    /// the posterior mean is kept for `u > 0` (1 s after arrival it is back within 5% of the figures above).
    #[test]
    fn capped_posterior_mean_by_hand() {
        for &(lhat, want) in &[(0.05, 4.46), (0.2, 6.18), (2.0, 11.11), (20.0, 31.33)] {
            let p = noisy(0.9, lhat, NoisyEstimate::CappedMean);
            let got = p.capped_mean_residual(lhat, 0.0);
            assert!((got - want).abs() < 0.01, "L̂ = {lhat}: {got} vs {want}");
            assert_eq!(p.remaining(0, 0.0), lhat);
            assert_eq!(p.first(0), lhat);
            let soon = p.remaining(0, 1.0 / 3600.0);
            assert!(
                (soon - want).abs() < 0.05 * want,
                "L̂ = {lhat}: {soon} vs {want}"
            );
        }
        let p = noisy(0.9, 2.0, NoisyEstimate::CappedMean);
        assert_eq!(p.remaining(0, 337.0), MAX_PREDICTION_H);
        assert!(p.remaining(0, 335.0) < 1.0);
        // A = 0.9, L̂ = 500 h, u = 400 h: only the point mass is alive beyond the cap, so L̂ − u
        assert_eq!(
            noisy(0.9, 500.0, NoisyEstimate::CappedMean).remaining(0, 400.0),
            100.0
        );
    }

    /// The posterior median against bisection on the survival: `S(u + r) = S(u)/2`; at u = 0 it is `L̂` for
    /// every A (the noise is centred on it), and the one reported is capped at 14 days.
    #[test]
    fn noisy_posterior_median_by_bisection_and_by_hand() {
        for &(a, lhat, u) in &[
            (0.9, 2.0, 3.0),
            (0.5, 0.1, 0.05),
            (0.7, 50.0, 60.0),
            (0.0, 5.0, 1.0),
            (0.2, 5.0, 1.0),
            (0.9, 2.0, 337.0),
        ] {
            let target = 0.5 * posterior_survival(a, lhat, u);
            let (mut lo, mut hi) = (u, 1e30f64);
            for _ in 0..400 {
                let mid = (lo * hi).sqrt().max(lo + (hi - lo) * 1e-3);
                if posterior_survival(a, lhat, mid) > target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let want = hi - u;
            let got = noisy(a, lhat, NoisyEstimate::Median).median_residual(lhat, u);
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-3),
                "A = {a}, L̂ = {lhat}, u = {u}: median {got} vs bisection {want}"
            );
        }
        // by hand: at u = 0 the median is L̂ (S jumps from (1 + A)/2 to (1 − A)/2 across 1/2 at L̂)
        for a in [0.0, 0.3, 0.9] {
            assert_eq!(noisy(a, 2.0, NoisyEstimate::Median).remaining(0, 0.0), 2.0);
        }
        // A = 0.9, L̂ = 2 h, u = 1 h: S(u) = 0.9 + 0.1·Q(ln 0.5/s) ≈ 0.9522 > 2·S(L̂) = 0.1, so still L̂ − u = 1 h
        assert_eq!(
            noisy(0.9, 2.0, NoisyEstimate::Median).remaining(0, 1.0),
            1.0
        );
        // past L̂ only the log-normal is left: Q(z') = Q(z_u)/2, z_u = ln(3/2)/s
        let s = WRONG_ERROR_DECADES * std::f64::consts::LN_10;
        let z = -normal_quantile(0.5 * normal_sf(1.5f64.ln() / s));
        let want = 2.0 * (s * z).exp() - 3.0;
        let got = noisy(0.9, 2.0, NoisyEstimate::Median).remaining(0, 3.0);
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
    }

    /// The 14-day cap is on the prediction, not on `T` (App. G.1): the reported residual is continuous and
    /// positive across u = 336 h (it was 1.0 h at 335 h and 2e11 h at 337 h with `T` capped), and the mean's
    /// tail puts it at the cap.
    #[test]
    fn noisy_prediction_is_capped_and_continuous_across_fourteen_days() {
        for est in [NoisyEstimate::Median, NoisyEstimate::Mean] {
            let p = noisy(0.9, 2.0, est);
            let (a, b) = (p.remaining(0, 335.0), p.remaining(0, 337.0));
            assert!(a > 0.0 && b > 0.0 && a <= MAX_PREDICTION_H && b <= MAX_PREDICTION_H);
            assert!((a - b).abs() < 0.02 * a, "{}: {a} vs {b}", est.name());
        }
        assert_eq!(
            noisy(0.9, 2.0, NoisyEstimate::Mean).remaining(0, 0.0),
            MAX_PREDICTION_H
        );
        // a correct prediction longer than 14 days is kept (A = 1 is the oracle)
        assert_eq!(
            noisy(1.0, 500.0, NoisyEstimate::Mean).remaining(0, 100.0),
            400.0
        );
    }

    /// The "no reprediction" ablation is the same model counted down: at u = 0 both arms agree exactly, and
    /// later `max(R̂(0) − u, 0)`. By hand with the mean at A = 0.9, L̂ = 2 h: R̂(0) = 336 h (the cap), so the
    /// one-shot arm says 326 h at u = 10 h, where the repredicted arm says the capped posterior mean.
    #[test]
    fn one_shot_is_the_same_model_without_the_update() {
        let life = [0.3, 2.0, 40.0, 700.0];
        for est in [
            NoisyEstimate::Median,
            NoisyEstimate::Mean,
            NoisyEstimate::CappedMean,
        ] {
            let p = Noisy::new(&life, 0.6, 5, 9, est);
            let one = OneShot::new(&p, life.len());
            for j in 0..life.len() {
                assert_eq!(
                    one.remaining(j, 0.0).to_bits(),
                    p.remaining(j, 0.0).to_bits()
                );
                assert_eq!(one.first(j).to_bits(), p.remaining(j, 0.0).to_bits());
                let r0 = p.remaining(j, 0.0);
                assert_eq!(one.remaining(j, 1.5), (r0 - 1.5).max(0.0));
            }
        }
        let p = noisy(0.9, 2.0, NoisyEstimate::Mean);
        let one = OneShot::new(&p, 1);
        assert_eq!(one.remaining(0, 10.0), MAX_PREDICTION_H - 10.0);
        // the median and the capped mean: R̂(0) = L̂ = 2 h, so one-shot is §5.2's max(L̂ − u, 0)
        for est in [NoisyEstimate::Median, NoisyEstimate::CappedMean] {
            let p = noisy(0.9, 2.0, est);
            let one = OneShot::new(&p, 1);
            assert_eq!(one.remaining(0, 0.5), 1.5);
            assert_eq!(one.remaining(0, 3.0), 0.0);
        }
    }

    #[test]
    fn reprediction_grows_with_uptime_far_in_the_tail() {
        // the asymptote takes over smoothly where the tail underflows
        let s = 1.0;
        let near = lognormal_mean_residual(0.0, s, 1e15);
        let far = lognormal_mean_residual(0.0, s, 1e300);
        assert!(near > 0.0 && far > near);
    }

    #[test]
    fn kaplan_meier_by_hand() {
        // lifetimes 1, 2 (censored), 3, 4: S jumps at 1 (3/4), at 3 (3/4·1/2 = 3/8), at 4 (0)
        let d =
            LifetimeDist::kaplan_meier(&[(1.0, false), (2.0, true), (3.0, false), (4.0, false)])
                .unwrap();
        assert!((d.survival(0.5) - 1.0).abs() < 1e-15);
        assert!((d.survival(1.0) - 0.75).abs() < 1e-15);
        assert!((d.survival(3.0) - 0.375).abs() < 1e-15);
        assert_eq!(d.survival(4.0), 0.0);
        // mean = 1·0.25 + 3·0.375 + 4·0.375 = 2.875
        assert!((d.mean() - 2.875).abs() < 1e-12);
        // E[T − 2 | T > 2] = (3·0.375 + 4·0.375)/0.75 − 2 = 1.5
        assert!((d.mean_residual(2.0) - 1.5).abs() < 1e-12);
        assert_eq!(d.mean_residual(4.0), 0.0);
        // a censored last observation keeps its mass at the largest time
        let d = LifetimeDist::kaplan_meier(&[(1.0, false), (5.0, true)]).unwrap();
        assert!((d.mean() - 3.0).abs() < 1e-12);
    }

    #[test]
    fn noisy_predictor_scatters_wrong_predictions_by_three_decades() {
        let bad = Noisy::new(&vec![1.0; 2000], 0.0, 7, 1, NoisyEstimate::Median);
        // wrong predictions scatter by 3 decades: about 74% land outside ×/÷ 10 (P(|Z| > 1/3))
        let far = (0..2000)
            .filter(|&j| (bad.first(j).log10()).abs() > 1.0)
            .count();
        assert!((1300..1650).contains(&far), "{far}");
        // and caps them to [1 s, 14 days]
        assert!((0..2000).all(|j| (MIN_PREDICTION_H..=MAX_PREDICTION_H).contains(&bad.first(j))));
        let one = OneShot::new(&Oracle::new(vec![3.0]), 1);
        assert_eq!(one.remaining(0, 1.0), 2.0);
        assert_eq!(one.remaining(0, 5.0), 0.0);
    }
}
