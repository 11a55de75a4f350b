//! A discrete-time survival model over lifetime bins with categorical features: the learned predictor's
//! distribution (seed 003 §3: "predict a probability distribution", App. B: survival models;
//! ALGORITHMS.md §5.2).
//!
//! **Time.** Lifetimes take values on a lattice of 5-minute steps ([`STEP_H`]: the Azure V1 timestamps'
//! resolution, SOURCE.md); lattice value `v` stands for the span `[v, v + 5 min)`. A [`BinGrid`] groups the
//! values into bins (the data's: [`BinGrid::azure_v1`]). Within bin `k` the hazard rate is constant (a
//! piecewise-exponential model), so the probability of surviving one more step is `exp(−λ_k·STEP_H)`.
//!
//! **Hazards.** `λ_k(x) = exp(α_{p(k)} + Σ_g β_{s(k), g, x_g})`: one intercept per supported bin (a bin with at
//! least [`HazardSpec::min_bin_events`] training events; an unsupported bin borrows the nearest supported bin
//! at or before it, so the bins after the last supported one continue its rate: a memoryless extrapolation
//! beyond the training window) and one effect per (segment of bins, feature group, level). With one segment
//! (the default) this is the grouped-time proportional-hazards model (Prentice & Gloeckler 1978: bin-specific
//! baseline, one multiplicative effect per feature level); more segments let features act differently on
//! minutes, hours and days ([`HazardSpec::segment_bounds`]).
//!
//! **Likelihood with censoring.** A VM whose lifetime lies in values `[lo, hi]` of bin `b` contributes the
//! survival of every step before `lo` and `P(T ≤ hi | T ≥ lo) = 1 − exp(−λ_b·W)` (W = the span's hours);
//! a right-censored VM alive at age `a` contributes the survival of every step before `a` only:
//! `ℓ = Σ_j −λ_j·E_j + [event] ln(1 − exp(−λ_b·W))` with `E_j` its hours at risk in bin `j`. Each term is the
//! complementary log-log binomial log-likelihood with offset `ln E` (`ln W`), concave in the parameters, so
//! Newton's method with a ridge penalty `(ρ/2)·Σ β²` on the feature effects and step halving converges
//! from the feature-free start. Everything runs in one fixed order, single-threaded, with `libm`, so the
//! fitted bits are the same natively and in wasm.
//!
//! **Distribution.** For features `x`: bin `k` gets `P(T ∈ k) = S_k·(1 − exp(−λ_k·w_k))` at the bin's
//! midpoint `(lo + hi)/2` (the workload's convention for binned lifetimes), and the mass beyond the grid sits
//! at the grid's last value (20 days for the Azure bins, whose last bin "presumably" also holds longer
//! lifetimes, SOURCE.md): as the Kaplan–Meier estimate keeps its leftover mass at the largest time, the
//! distribution does not extrapolate past the data's own range, which bounds the mean.

use libm::{exp, expm1, log};

/// Lattice step of the lifetimes, hours (5 minutes: the Azure V1 trace's time resolution, SOURCE.md).
pub const STEP_H: f64 = 5.0 / 60.0;
/// Largest lattice value accepted, steps (about 95 years): larger values are clamped.
pub const MAX_STEPS: u32 = 10_000_000;

/// Lifetime bins on the 5-minute lattice: bin `k` holds the values `lo_k ..= hi_k` (steps), the bins tile
/// `0, 1, 2, …` without gaps; values beyond the last bin belong to the tail.
#[derive(Clone, Debug, PartialEq)]
pub struct BinGrid {
    lo: Vec<u32>,
    hi: Vec<u32>,
}

impl BinGrid {
    /// The lifetime bins of the Azure 2017 arrivals (`maps/v1.interval_map.txt`, SOURCE.md): 13 exact values
    /// 0, 5, …, 60 min; 23 hourly bins to 24 h; 9 daily bins to 10 days; one bin of 10–20 days.
    pub fn azure_v1() -> BinGrid {
        let mut b: Vec<(u32, u32)> = (0..=12).map(|k| (k, k)).collect();
        b.extend((1..24).map(|h| (12 * h + 1, 12 * (h + 1))));
        b.extend((1..10).map(|d| (288 * d + 1, 288 * (d + 1))));
        b.push((2881, 5760));
        BinGrid::new(&b).expect("the Azure V1 bins tile the lattice")
    }

    /// A grid from `(lo, hi)` steps; `None` unless the bins start at 0, have `lo ≤ hi`, follow each other
    /// without gaps and end at most at [`MAX_STEPS`].
    pub fn new(bins: &[(u32, u32)]) -> Option<BinGrid> {
        let mut next = 0u32;
        for &(lo, hi) in bins {
            if lo != next || hi < lo || hi > MAX_STEPS {
                return None;
            }
            next = hi + 1;
        }
        (!bins.is_empty()).then(|| BinGrid {
            lo: bins.iter().map(|b| b.0).collect(),
            hi: bins.iter().map(|b| b.1).collect(),
        })
    }

    /// Number of bins.
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    /// True if there is no bin (never, for a grid made by [`BinGrid::new`]).
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// The bin holding lattice value `v` (the last bin for values beyond the grid).
    pub fn bin_of(&self, v: u32) -> usize {
        self.lo.partition_point(|&l| l <= v).saturating_sub(1)
    }

    /// Width of bin `k`'s span, hours.
    pub fn width_h(&self, k: usize) -> f64 {
        (self.hi[k] - self.lo[k] + 1) as f64 * STEP_H
    }

    /// Where bin `k`'s mass sits: the midpoint of its values, hours.
    pub fn point_h(&self, k: usize) -> f64 {
        0.5 * (self.lo[k] + self.hi[k]) as f64 * STEP_H
    }

    /// The last value of the grid, hours (where the mass beyond it sits).
    pub fn last_h(&self) -> f64 {
        self.hi.last().map_or(0.0, |&h| h as f64 * STEP_H)
    }
}

/// Lattice value (steps) of a duration in seconds: `⌊s / 300⌋`, clamped to `[0, MAX_STEPS]`.
pub fn steps_of_seconds(s: f64) -> u32 {
    let v = (s / (STEP_H * 3600.0) + 1e-9).floor();
    if v.is_nan() || v <= 0.0 {
        0
    } else {
        v.min(MAX_STEPS as f64) as u32
    }
}

/// One training lifetime: an event with the value in `lo ..= hi` (steps), or right-censored alive at age `lo`
/// (`T ≥ lo`; `hi` unused).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obs {
    /// Lowest possible value (event) or the age reached (censored), steps.
    pub lo: u32,
    /// Highest possible value (event), steps.
    pub hi: u32,
    /// True for an observed exit.
    pub event: bool,
}

/// Settings of the fit.
#[derive(Clone, Debug, PartialEq)]
pub struct HazardSpec {
    /// Segments of bins sharing feature effects: bin `k` is in segment `#{b ∈ bounds : b < hi_k}` (steps).
    pub segment_bounds: Vec<u32>,
    /// Ridge penalty `ρ` on the feature effects (the intercepts are not penalised).
    pub ridge: f64,
    /// A bin with fewer training events borrows the rate of the nearest supported bin before it.
    pub min_bin_events: usize,
    /// Most Newton iterations.
    pub max_iter: usize,
    /// Convergence: the largest parameter change of a Newton step.
    pub tol: f64,
}

impl Default for HazardSpec {
    /// One segment (proportional hazards); ridge 1; 100 events per bin (a rate's relative standard error
    /// ≤ 10%); 100 iterations; tolerance 1e-9 [UNSTATED → chosen].
    fn default() -> Self {
        HazardSpec {
            segment_bounds: Vec::new(),
            ridge: 1.0,
            min_bin_events: 100,
            max_iter: 100,
            tol: 1e-9,
        }
    }
}

/// How the fit went.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FitInfo {
    /// Training examples.
    pub examples: usize,
    /// Of which events (observed exits).
    pub events: usize,
    /// Bins with their own intercept.
    pub supported_bins: usize,
    /// Parameters (intercepts + feature effects).
    pub parameters: usize,
    /// Newton iterations made.
    pub iterations: usize,
    /// Whether the last step was below the tolerance.
    pub converged: bool,
    /// Log-likelihood at the fit (without the penalty).
    pub log_likelihood: f64,
}

/// A fitted discrete-time hazard model (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct HazardModel {
    grid: BinGrid,
    /// Parameter (intercept) index of each bin.
    param_of_bin: Vec<usize>,
    /// Segment of each intercept.
    seg_of_param: Vec<usize>,
    /// Feature offset of each group; `offsets[groups]` = number of features.
    offsets: Vec<usize>,
    segments: usize,
    /// `[α_0 … α_{P−1}, β_{s=0, f=0} …]`.
    theta: Vec<f64>,
    /// How the fit went.
    pub info: FitInfo,
}

/// One example's terms in the likelihood: its bin, hours at risk in it before `lo`, and the event span.
struct Example {
    bin: usize,
    partial_h: f64,
    /// Event span W (hours), 0 for a censored example.
    event_w: f64,
}

impl Example {
    /// The terms of `o`: the bin of `lo`, the steps of that bin before `lo`, and for an event the span
    /// `lo ..= hi` cut to the bin (the last bin extends without end).
    fn new(grid: &BinGrid, o: &Obs) -> Example {
        let bin = grid.bin_of(o.lo);
        let cap = if bin + 1 == grid.len() {
            u32::MAX
        } else {
            grid.hi[bin].max(o.lo)
        };
        Example {
            bin,
            partial_h: o.lo.saturating_sub(grid.lo[bin]) as f64 * STEP_H,
            event_w: if o.event {
                (o.hi.clamp(o.lo, cap) - o.lo + 1) as f64 * STEP_H
            } else {
                0.0
            },
        }
    }
}

/// Per-term derivatives of the complementary log-log terms in `η` (`rate = exp(η)`): `(ℓ, dℓ/dη, −d²ℓ/dη²)`.
/// Survival over `e` hours: `ℓ = −e·exp(η)`; event within `w` hours: `ℓ = ln(1 − exp(−z))`, `z = w·exp(η)`,
/// `dℓ/dη = z·e^{−z}/(1 − e^{−z})`, `−d²ℓ/dη² = z·e^{−z}·(z − 1 + e^{−z})/(1 − e^{−z})²`.
fn survival_term(e: f64, rate: f64) -> (f64, f64, f64) {
    let mu = e * rate;
    (-mu, -mu, mu)
}

fn event_term(w: f64, rate: f64) -> (f64, f64, f64) {
    let z = w * rate;
    if !(z > 0.0) {
        // no span: the event carries no information (and no penalty)
        return (0.0, 0.0, 0.0);
    }
    let m = -expm1(-z); // 1 − e^{−z}
    let e = exp(-z);
    (log(m), z * e / m, z * e * (z - m) / (m * m))
}

impl HazardModel {
    /// Fits the model to `obs` with categorical features `levels` (example `i`'s level in group `g` at
    /// `levels[i·G + g]`, `G = groups.len()`, `groups[g]` levels in group `g`; a level out of range adds no
    /// effect). Errors: mismatched lengths, no event to learn from, a grid without bins.
    pub fn fit(
        grid: &BinGrid,
        groups: &[usize],
        levels: &[u16],
        obs: &[Obs],
        spec: &HazardSpec,
    ) -> Result<HazardModel, String> {
        let g_n = groups.len();
        if levels.len() != obs.len() * g_n {
            return Err(format!(
                "{} feature levels for {} examples of {g_n} groups",
                levels.len(),
                obs.len()
            ));
        }
        if grid.is_empty() {
            return Err("no lifetime bins".into());
        }
        let k_n = grid.len();
        // events per bin → supported bins → parameter of each bin
        let mut events = vec![0usize; k_n];
        let examples: Vec<Example> = obs.iter().map(|o| Example::new(grid, o)).collect();
        for ex in examples.iter().filter(|ex| ex.event_w > 0.0) {
            events[ex.bin] += 1;
        }
        let supported: Vec<usize> = (0..k_n)
            .filter(|&k| events[k] >= spec.min_bin_events.max(1))
            .collect();
        let Some(&first_supported) = supported.first() else {
            return Err(format!(
                "no lifetime bin has {} observed exits to learn from",
                spec.min_bin_events.max(1)
            ));
        };
        let param_of_bin: Vec<usize> = (0..k_n)
            .map(|k| supported.partition_point(|&s| s <= k).saturating_sub(1))
            .collect();
        debug_assert_eq!(param_of_bin[first_supported], 0);
        let seg_of_bin = |k: usize| {
            spec.segment_bounds
                .iter()
                .filter(|&&b| b < grid.hi[k])
                .count()
        };
        let seg_of_param: Vec<usize> = supported.iter().map(|&k| seg_of_bin(k)).collect();
        let segments = spec.segment_bounds.len() + 1;
        let mut offsets = vec![0usize; g_n + 1];
        for g in 0..g_n {
            offsets[g + 1] = offsets[g] + groups[g];
        }
        let p_n = supported.len();
        let n = p_n + segments * offsets[g_n];
        // feature-free start: α_p = ln(events / hours at risk) of its bins
        let mut exposure = vec![0f64; p_n];
        let mut ev = vec![0f64; p_n];
        for ex in &examples {
            for j in 0..ex.bin {
                exposure[param_of_bin[j]] += grid.width_h(j);
            }
            exposure[param_of_bin[ex.bin]] += ex.partial_h + ex.event_w;
            if ex.event_w > 0.0 {
                ev[param_of_bin[ex.bin]] += 1.0;
            }
        }
        let mut theta = vec![0f64; n];
        for p in 0..p_n {
            theta[p] = log(ev[p].max(0.5) / exposure[p].max(STEP_H));
        }
        let mut model = HazardModel {
            grid: grid.clone(),
            param_of_bin,
            seg_of_param,
            offsets,
            segments,
            theta,
            info: FitInfo {
                examples: obs.len(),
                events: events.iter().sum(),
                supported_bins: p_n,
                parameters: n,
                iterations: 0,
                converged: false,
                log_likelihood: 0.0,
            },
        };
        let data = Data {
            examples: &examples,
            levels,
            g_n,
        };
        let mut grad = vec![0f64; n];
        let mut hess = vec![0f64; n * n];
        let mut ll = model.pass(&model.theta, &data, spec.ridge, None);
        for it in 0..spec.max_iter {
            model.pass(
                &model.theta,
                &data,
                spec.ridge,
                Some((&mut grad, &mut hess)),
            );
            let mut step = grad.clone();
            if !cholesky_solve(&mut hess, n, &mut step) {
                return Err("the Newton system is singular (raise the ridge penalty)".into());
            }
            let mut t = 1.0;
            let mut accepted = false;
            let mut trial = vec![0f64; n];
            for _ in 0..40 {
                for i in 0..n {
                    trial[i] = model.theta[i] + t * step[i];
                }
                let l = model.pass(&trial, &data, spec.ridge, None);
                if l.is_finite() && l >= ll {
                    ll = l;
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            model.info.iterations = it + 1;
            let moved = step.iter().fold(0f64, |m, s| m.max((t * s).abs()));
            if !accepted {
                // no ascent left at machine precision: the start is the optimum
                model.info.converged = true;
                break;
            }
            std::mem::swap(&mut model.theta, &mut trial);
            if moved < spec.tol {
                model.info.converged = true;
                break;
            }
        }
        model.info.log_likelihood = model.pass(&model.theta, &data, 0.0, None);
        Ok(model)
    }

    /// Index of the effect `(segment s, feature f)` in θ.
    fn beta_index(&self, s: usize, f: usize) -> usize {
        self.seg_of_param.len() + s * self.offsets[self.offsets.len() - 1] + f
    }

    /// Feature indices of an example's levels (`None` for a level out of range).
    fn feature(&self, g: usize, level: u16) -> Option<usize> {
        let l = level as usize;
        (l < self.offsets[g + 1] - self.offsets[g]).then_some(self.offsets[g] + l)
    }

    /// `r_s = Σ_g β_{s, g, x_g}` for every segment.
    fn segment_scores(&self, theta: &[f64], x: &[u16], r: &mut [f64]) {
        for (s, rs) in r.iter_mut().enumerate() {
            *rs = x
                .iter()
                .enumerate()
                .filter_map(|(g, &l)| self.feature(g, l))
                .map(|f| theta[self.beta_index(s, f)])
                .sum();
        }
    }

    /// `exp(η)` of bin `k` = `exp(α_{p(k)})·exp(r_{s(k)})`, from `exp_alpha` (per intercept) and `exp_r` (per
    /// segment).
    fn rate_of(&self, exp_alpha: &[f64], exp_r: &[f64], k: usize) -> f64 {
        let p = self.param_of_bin[k];
        exp_alpha[p] * exp_r[self.seg_of_param[p]]
    }

    /// `exp(α_p)` for every intercept of `theta`.
    fn exp_alpha(&self, theta: &[f64]) -> Vec<f64> {
        theta[..self.seg_of_param.len()]
            .iter()
            .map(|&a| exp(a))
            .collect()
    }

    /// `exp(r_s)` for the features `x`, into `exp_r` (one per segment).
    fn exp_scores(&self, theta: &[f64], x: &[u16], exp_r: &mut [f64]) {
        self.segment_scores(theta, x, exp_r);
        exp_r.iter_mut().for_each(|r| *r = exp(*r));
    }

    /// The penalised log-likelihood at `theta`; with `derivs`, also its gradient and the negative Hessian
    /// (dense, row-major `n × n`), both overwritten.
    fn pass(
        &self,
        theta: &[f64],
        data: &Data,
        ridge: f64,
        mut derivs: Option<(&mut Vec<f64>, &mut Vec<f64>)>,
    ) -> f64 {
        let n = theta.len();
        if let Some((g, h)) = derivs.as_mut() {
            g.iter_mut().for_each(|x| *x = 0.0);
            h.iter_mut().for_each(|x| *x = 0.0);
        }
        let exp_alpha = self.exp_alpha(theta);
        let mut exp_r = vec![0f64; self.segments];
        let mut seg_d = vec![0f64; self.segments];
        let mut seg_c = vec![0f64; self.segments];
        let mut feats = vec![usize::MAX; data.g_n];
        let mut ll = 0.0;
        for (i, ex) in data.examples.iter().enumerate() {
            let x = &data.levels[i * data.g_n..(i + 1) * data.g_n];
            self.exp_scores(theta, x, &mut exp_r);
            for (g, &l) in x.iter().enumerate() {
                feats[g] = self.feature(g, l).unwrap_or(usize::MAX);
            }
            seg_d.iter_mut().for_each(|x| *x = 0.0);
            seg_c.iter_mut().for_each(|x| *x = 0.0);
            for j in 0..=ex.bin {
                let rate = self.rate_of(&exp_alpha, &exp_r, j);
                let e = if j < ex.bin {
                    self.grid.width_h(j)
                } else {
                    ex.partial_h
                };
                let (mut l, mut d, mut c) = if e > 0.0 {
                    survival_term(e, rate)
                } else {
                    (0.0, 0.0, 0.0)
                };
                if j == ex.bin && ex.event_w > 0.0 {
                    let (l2, d2, c2) = event_term(ex.event_w, rate);
                    l += l2;
                    d += d2;
                    c += c2;
                }
                ll += l;
                if let Some((g, h)) = derivs.as_mut() {
                    let p = self.param_of_bin[j];
                    let s = self.seg_of_param[p];
                    g[p] += d;
                    h[p * n + p] += c;
                    for &f in feats.iter().filter(|&&f| f != usize::MAX) {
                        h[p * n + self.beta_index(s, f)] += c;
                    }
                    seg_d[s] += d;
                    seg_c[s] += c;
                }
            }
            if let Some((g, h)) = derivs.as_mut() {
                for s in 0..self.segments {
                    if seg_c[s] == 0.0 && seg_d[s] == 0.0 {
                        continue;
                    }
                    for &f in feats.iter().filter(|&&f| f != usize::MAX) {
                        let a = self.beta_index(s, f);
                        g[a] += seg_d[s];
                        for &f2 in feats.iter().filter(|&&f2| f2 != usize::MAX) {
                            let b = self.beta_index(s, f2);
                            if a <= b {
                                h[a * n + b] += seg_c[s];
                            }
                        }
                    }
                }
            }
        }
        let p_n = self.seg_of_param.len();
        let mut pen = 0.0;
        for (a, &t) in theta.iter().enumerate().skip(p_n) {
            pen += t * t;
            if let Some((g, h)) = derivs.as_mut() {
                g[a] -= ridge * t;
                h[a * n + a] += ridge;
            }
        }
        if let Some((_, h)) = derivs.as_mut() {
            // mirror the upper triangle
            for a in 0..n {
                for b in 0..a {
                    h[a * n + b] = h[b * n + a];
                }
            }
        }
        ll - 0.5 * ridge * pen
    }

    /// The lifetime distribution for features `x` (one level per group): points (hours, ascending) and their
    /// probabilities, one per bin plus the tail (see the module documentation). Both written into the given
    /// buffers (cleared first).
    pub fn distribution(&self, x: &[u16], points: &mut Vec<f64>, probs: &mut Vec<f64>) {
        points.clear();
        probs.clear();
        let exp_alpha = self.exp_alpha(&self.theta);
        let mut exp_r = vec![0f64; self.segments];
        self.exp_scores(&self.theta, x, &mut exp_r);
        let mut surv = 1.0;
        for k in 0..self.grid.len() {
            let stay = exp(-self.rate_of(&exp_alpha, &exp_r, k) * self.grid.width_h(k));
            points.push(self.grid.point_h(k));
            probs.push(surv * (1.0 - stay));
            surv *= stay;
        }
        points.push(self.grid.last_h());
        probs.push(surv);
    }

    /// The hazard rate (per hour) of bin `k` for features `x`.
    pub fn rate(&self, x: &[u16], k: usize) -> f64 {
        let mut exp_r = vec![0f64; self.segments];
        self.exp_scores(&self.theta, x, &mut exp_r);
        let k = k.min(self.grid.len().saturating_sub(1));
        self.rate_of(&self.exp_alpha(&self.theta), &exp_r, k)
    }

    /// Number of bins (without the tail).
    pub fn bins(&self) -> usize {
        self.grid.len()
    }
}

/// The training data of one fit.
struct Data<'a> {
    examples: &'a [Example],
    levels: &'a [u16],
    g_n: usize,
}

/// Solves `A·x = b` for a symmetric positive definite `A` (row-major `n × n`, overwritten by its Cholesky
/// factor), `b` overwritten by `x`. False if `A` is not positive definite.
fn cholesky_solve(a: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if !(d > 0.0) {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    // L y = b, then Lᵀ x = y
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::substrate::rng::stream;
    use rand::RngExt;

    #[test]
    fn azure_grid_matches_the_interval_map() {
        let g = BinGrid::azure_v1();
        assert_eq!(g.len(), 46);
        // SOURCE.md: bin 13 = 3,900–7,200 s, bin 35 = 83,100–86,400 s, bin 36 = 86,700–172,800 s,
        // bin 44 = 777,900–864,000 s, bin 45 = 864,300–1,728,000 s
        for (k, lo_s, hi_s) in [
            (0, 0, 0),
            (12, 3600, 3600),
            (13, 3900, 7200),
            (35, 83_100, 86_400),
            (36, 86_700, 172_800),
            (44, 777_900, 864_000),
            (45, 864_300, 1_728_000),
        ] {
            assert_eq!(g.lo[k] * 300, lo_s, "bin {k}");
            assert_eq!(g.hi[k] * 300, hi_s, "bin {k}");
            assert_eq!(g.bin_of(steps_of_seconds(lo_s as f64)), k);
            assert_eq!(g.bin_of(steps_of_seconds(hi_s as f64)), k);
        }
        assert_eq!(g.bin_of(MAX_STEPS), 45);
        assert!(BinGrid::new(&[(0, 0), (2, 3)]).is_none());
        assert!(BinGrid::new(&[]).is_none());
        assert_eq!(steps_of_seconds(-5.0), 0);
        assert_eq!(steps_of_seconds(f64::NAN), 0);
        assert_eq!(steps_of_seconds(599.0), 1);
    }

    /// Independent log-likelihood of one example from the survival function `S(v) = P(T ≥ v)` on the lattice,
    /// computed step by step (no bins, no closed forms).
    fn ll_by_steps(rates: &dyn Fn(u32) -> f64, o: &Obs) -> f64 {
        let surv = |v: u32| -> f64 { (0..v).map(|w| (-rates(w) * STEP_H).exp()).product() };
        if o.event {
            (surv(o.lo) - surv(o.hi + 1)).ln()
        } else {
            surv(o.lo).ln()
        }
    }

    fn small_grid() -> BinGrid {
        BinGrid::new(&[(0, 0), (1, 2), (3, 6), (7, 14)]).unwrap()
    }

    #[test]
    fn likelihood_matches_stepwise_survival_and_gradient_matches_finite_differences() {
        let grid = small_grid();
        let obs = [
            Obs {
                lo: 0,
                hi: 0,
                event: true,
            },
            Obs {
                lo: 1,
                hi: 2,
                event: true,
            },
            Obs {
                lo: 4,
                hi: 6,
                event: true,
            },
            Obs {
                lo: 5,
                hi: 5,
                event: false,
            },
            Obs {
                lo: 9,
                hi: 14,
                event: true,
            },
            Obs {
                lo: 20,
                hi: 20,
                event: false,
            },
            Obs {
                lo: 16,
                hi: 18,
                event: true,
            },
            Obs {
                lo: 2,
                hi: 2,
                event: true,
            },
        ];
        let groups = [2usize, 3];
        let levels: Vec<u16> = vec![0, 1, 1, 2, 0, 0, 1, 1, 0, 2, 1, 0, 0, 1, 1, 2];
        let spec = HazardSpec {
            segment_bounds: vec![2],
            ridge: 0.7,
            min_bin_events: 1,
            max_iter: 0,
            tol: 1e-9,
        };
        let mut m = HazardModel::fit(&grid, &groups, &levels, &obs, &spec).unwrap();
        // any parameters: draw them
        let mut rng = stream(11, 1, 0);
        for t in m.theta.iter_mut() {
            *t = rng.random::<f64>() - 0.5;
        }
        let theta = m.theta.clone();
        let examples: Vec<Example> = obs.iter().map(|o| Example::new(&grid, o)).collect();
        let data = Data {
            examples: &examples,
            levels: &levels,
            g_n: 2,
        };
        // (1) the likelihood equals the step-by-step survival computation (ridge 0)
        let mut want = 0.0;
        for (i, o) in obs.iter().enumerate() {
            let x = &levels[2 * i..2 * i + 2];
            let mut r = vec![0.0; m.segments];
            m.segment_scores(&theta, x, &mut r);
            // η = α_{p(k)} + r_{s(p(k))}, summed here (the fit multiplies exponentials)
            let rates = |v: u32| {
                let p = m.param_of_bin[grid.bin_of(v)];
                (theta[p] + r[m.seg_of_param[p]]).exp()
            };
            want += ll_by_steps(&rates, o);
        }
        let got = m.pass(&theta, &data, 0.0, None);
        assert!(
            (got - want).abs() < 1e-10 * want.abs().max(1.0),
            "{got} vs {want}"
        );
        // (2) gradient and Hessian against central differences of the penalised likelihood
        let n = theta.len();
        let (mut g, mut h) = (vec![0.0; n], vec![0.0; n * n]);
        m.pass(&theta, &data, 0.7, Some((&mut g, &mut h)));
        let eps = 1e-5;
        for a in 0..n {
            let f = |d: f64| {
                let mut t = theta.clone();
                t[a] += d;
                m.pass(&t, &data, 0.7, None)
            };
            let fd = (f(eps) - f(-eps)) / (2.0 * eps);
            assert!(
                (g[a] - fd).abs() < 1e-6 * fd.abs().max(1.0),
                "grad {a}: {} vs {fd}",
                g[a]
            );
            let gd = |d: f64| {
                let mut t = theta.clone();
                t[a] += d;
                let (mut g2, mut h2) = (vec![0.0; n], vec![0.0; n * n]);
                m.pass(&t, &data, 0.7, Some((&mut g2, &mut h2)));
                g2
            };
            let (gp, gm) = (gd(eps), gd(-eps));
            for b in 0..n {
                let fd2 = -(gp[b] - gm[b]) / (2.0 * eps);
                assert!(
                    (h[b * n + a] - fd2).abs() < 1e-5 * fd2.abs().max(1.0),
                    "−Hessian ({b}, {a}): {} vs {fd2}",
                    h[b * n + a]
                );
            }
        }
    }

    /// Synthetic lifetimes from known hazards (fixed seed), drawn step by step on the lattice, with random
    /// right-censoring; the fit recovers the rates.
    #[test]
    fn fit_recovers_known_hazards_and_is_deterministic() {
        let grid = small_grid();
        // true rate per hour: base per bin × effect of the level of group 0 (2 levels), per segment
        let base = [2.0, 1.0, 0.5, 0.25];
        let effect = |seg: usize, level: u16| match (seg, level) {
            (0, 1) => 2.0,
            (1, 1) => 0.5,
            _ => 1.0,
        };
        let seg_of = |k: usize| usize::from(grid.hi[k] > 2);
        let mut rng = stream(2024, 7, 0);
        let last = grid.len() - 1;
        let (mut obs, mut levels) = (Vec::new(), Vec::new());
        for _ in 0..60_000 {
            let level: u16 = if rng.random::<f64>() < 0.5 { 0 } else { 1 };
            // alive at age `cens` at the end of observation
            let cens = (rng.random::<f64>() * 30.0) as u32;
            let mut v = 0u32;
            while v < cens {
                let k = grid.bin_of(v);
                let rate = base[k] * effect(seg_of(k), level);
                if rng.random::<f64>() < 1.0 - (-rate * STEP_H).exp() {
                    break;
                }
                v += 1;
            }
            let k = grid.bin_of(v);
            obs.push(if v >= cens {
                Obs {
                    lo: cens,
                    hi: cens,
                    event: false,
                }
            } else if v > grid.hi[last] {
                // beyond the grid: the exact value
                Obs {
                    lo: v,
                    hi: v,
                    event: true,
                }
            } else {
                // binned, clipped to what was observable (as the arrivals' bins are clipped at the cut)
                Obs {
                    lo: grid.lo[k],
                    hi: grid.hi[k].min(cens - 1),
                    event: true,
                }
            });
            levels.push(level);
        }
        let spec = HazardSpec {
            segment_bounds: vec![2],
            ridge: 1e-3,
            min_bin_events: 1,
            ..HazardSpec::default()
        };
        let m = HazardModel::fit(&grid, &[2], &levels, &obs, &spec).unwrap();
        assert!(m.info.converged, "{:?}", m.info);
        for k in 0..grid.len() {
            for level in [0u16, 1] {
                let want = base[k] * effect(seg_of(k), level);
                let got = m.rate(&[level], k);
                assert!(
                    (got / want - 1.0).abs() < 0.08,
                    "bin {k} level {level}: {got} vs {want}"
                );
            }
        }
        // the distribution sums to 1, with its points ascending and the tail at the grid's last value
        let (mut t, mut p) = (Vec::new(), Vec::new());
        m.distribution(&[1], &mut t, &mut p);
        assert_eq!(t.len(), grid.len() + 1);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(t[grid.len()], 14.0 * STEP_H);
        // bin 1 (values 1–2) has mass S(1)·(1 − exp(−2·λ_1·STEP_H)) with S(1) = exp(−λ_0·STEP_H)
        let (l0, l1) = (m.rate(&[1], 0), m.rate(&[1], 1));
        let want = (-l0 * STEP_H).exp() * (1.0 - (-2.0 * l1 * STEP_H).exp());
        assert!((p[1] - want).abs() < 1e-12, "{} vs {want}", p[1]);
        // two fits give the same bits
        let again = HazardModel::fit(&grid, &[2], &levels, &obs, &spec).unwrap();
        assert_eq!(
            m.theta.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            again.theta.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn bad_inputs_are_errors() {
        let grid = small_grid();
        let spec = HazardSpec::default();
        assert!(HazardModel::fit(
            &grid,
            &[2],
            &[0, 1],
            &[Obs {
                lo: 0,
                hi: 0,
                event: true
            }],
            &spec
        )
        .is_err());
        let censored = [Obs {
            lo: 3,
            hi: 3,
            event: false,
        }; 5];
        assert!(HazardModel::fit(&grid, &[], &[], &censored, &spec).is_err());
    }
}
