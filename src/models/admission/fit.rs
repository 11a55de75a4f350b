//! Maximum-likelihood fitting of the admission model to Azure data (seed 000 App. B; ALGORITHMS.md §2.1,
//! §2.13). Units: time in hours, rates per hour, sizes in cores.
//!
//! **What the Azure-2017 arrivals (Bergsma et al., tenant batches per 5-minute bin) identify** —
//! [`fit_azure_arrivals`]:
//! * the deployment arrival rate ρ_arr (per hour): a tenant batch is one deployment; Poisson-process MLE
//!   `batches / window hours`, s.e. `sqrt(batches) / window hours`;
//! * the initial size n0 (cores): the sum of the batch's VM cores; reported as the empirical distribution
//!   (used by [`AzureFit::apply`]) and as the MLE of `n0 − 1 ~ Poisson(σ0)` (`σ0 = mean − 1`);
//! * the core-lifetime prior λ ~ Γ(a_λ, b_λ) (λ per hour, b_λ in hours): marginal maximum likelihood with
//!   the deployment's cores sharing one λ, each core contributing its VM's lifetime (a VM of c cores = c
//!   cores that die together, as the paper counts cores in App. B), right-censored VMs contributing the
//!   survival `e^{−λ·age}` and dead VMs the probability of their lifetime bin (interval censoring). λ is
//!   integrated out numerically on a log-λ grid per distinct deployment signature; the standard errors come
//!   from the exact observed information (Hessian of the marginal log-likelihood).
//!
//! **Not identified by the arrivals** (no deployment ids, no scale-outs, no deployment-level kills): the
//! normalised scale-out rate ν, the scale-out size σ and the kill factor κ keep the §2.13 defaults
//! (ν ~ Γ(1, 0.5), σ ~ Γ(1, 0.2), κ = 20) — [`AzureFit::defaults_kept`] lists them for the UI.
//!
//! **From a full vmtable with deployment ids** ([`fit_vmtable`], V1 2017 or V2 2019 schema) every parameter
//! App. B describes is fitted, as far as the rows allow: only deployments that arrive inside the trace are
//! used (App. B: earlier ones are length-biased); arrival = first VM creation; n0 = cores created at that
//! instant; each later creation instant is one scale-out request of K = cores created then; a deployment with
//! ≥ 3 VMs deleted at its final deletion instant before the trace end was *killed* (App. B "Deployment
//! Shutdown"), its last VMs' cores then being censored at the kill. (λ, ν, κ) are fitted jointly by marginal
//! ML with η = 1 (scale-out rate ν·λ; ALGORITHMS.md §2.1): ν is integrated in closed form (negative
//! binomial in the scale-out count), λ numerically; σ ~ Γ(a_σ, b_σ) from the scale-out sizes
//! (`K − 1 ~ Poisson(σ)`, negative-binomial marginal). A parameter without any informative event in the
//! rows (no deaths, no scale-outs, no kills) is not fitted and keeps its default.
//!
//! Decisions where the paper is silent (documented in the report): timestamps have 5-minute resolution, so a
//! recorded lifetime `L` (s) is treated as "rounded to the nearest 300 s": the core died in
//! `[max(0, L_lo − 150), L_hi + 150]` s, where `[L_lo, L_hi]` is the lifetime bin's range; bin upper ends are
//! capped at the VM's age at the cut (+150 s); a censored VM survived its exact age `cut − t`. V2 buckets
//! `>24` cores / `>64` GB are read as 32 cores / 128 GB. The App. B ε-calibration of deployments without
//! scale-outs is unnecessary with the marginal likelihood (they contribute `P(no scale-out)` exactly).

use super::moments::Gamma;
use super::params::{AdmitParams, InitialSize};
pub use crate::substrate::special::{digamma, ln_gamma, trigamma};
use crate::workload::azure::arrivals::{AzureArrivals, BIN_S};
use crate::workload::azure::vmtable::VmTable;
use serde::Serialize;
use std::collections::BTreeMap;

/// Lower end of the λ grid: ln(1e−6 per hour) (mean core lifetime 114 years).
const S_MIN: f64 = -13.815510557964274;
/// Upper end of the λ grid: ln(1e3 per hour) (mean core lifetime 3.6 s).
const S_MAX: f64 = 6.907755278982137;
/// Log-likelihood drop (nats) below a signature's maximum at which its λ window is cut.
const WINDOW_NATS: f64 = 45.0;

/// An estimate with its standard error (from the observed information; 0 if not available).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Point estimate (units as documented on the field that holds it).
    pub value: f64,
    /// Standard error (same units); NaN if the information matrix was singular.
    pub se: f64,
}

/// A fitted Gamma population prior (shape, rate) with standard errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GammaFit {
    /// Shape a (dimensionless).
    pub shape: Estimate,
    /// Rate b (for λ: hours; for ν, σ: dimensionless).
    pub rate: Estimate,
    /// Correlation of the shape and rate estimates.
    pub correlation: f64,
    /// Prior mean a/b (for λ: per hour) with its delta-method s.e.
    pub mean: Estimate,
    /// Maximised marginal log-likelihood of the data used for this fit (up to parameter-free constants).
    pub loglik: f64,
    /// Optimiser iterations.
    pub iterations: usize,
    /// True if the optimiser met its tolerance.
    pub converged: bool,
}

impl GammaFit {
    /// The fitted prior as a [`Gamma`] (shape, rate).
    pub fn gamma(&self) -> Gamma {
        Gamma::new(self.shape.value, self.rate.value)
    }
}

/// Per-split counts of the data that went into a fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitSummary {
    /// Split or file name.
    pub name: String,
    /// Observation window, hours.
    pub window_hours: f64,
    /// Deployments (tenant batches) arriving in the window.
    pub deployments: usize,
    /// VMs of those deployments.
    pub vms: usize,
    /// VMs still alive at the cut (right-censored).
    pub censored_vms: usize,
    /// Cores of those VMs.
    pub cores: u64,
}

/// The fitted initial-size distribution (cores per arriving deployment).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeFit {
    /// Distinct sizes, cores, increasing.
    pub sizes: Vec<u32>,
    /// Number of deployments of each size.
    pub counts: Vec<u64>,
    /// Mean size, cores, with s.e. (sample s.d. / √n).
    pub mean_cores: Estimate,
    /// MLE of σ0 in `n0 = 1 + Poisson(σ0)` (cores), s.e. `sqrt(σ0/n)`.
    pub poisson_sigma: Estimate,
}

/// The report of a fit (serde-serialisable for the UI and `packlab admit-fit --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AzureFit {
    /// What was fitted (`azure-arrivals` or `vmtable-V1_2017` / `vmtable-V2_2019`) and from where.
    pub source: String,
    /// Data summary per split / file.
    pub splits: Vec<SplitSummary>,
    /// Deployment arrival rate ρ_arr, per hour.
    pub arrival_rate: Estimate,
    /// Initial size distribution (cores).
    pub initial_size: SizeFit,
    /// Core-lifetime prior λ ~ Γ(a, b), λ per hour (None if the data hold no core deaths).
    pub lambda: Option<GammaFit>,
    /// Normalised scale-out rate prior ν ~ Γ(a, b) (η = 1), if identified (vmtable with scale-outs).
    pub nu: Option<GammaFit>,
    /// Scale-out size prior σ ~ Γ(a, b), if identified (vmtable with scale-outs).
    pub sigma: Option<GammaFit>,
    /// Kill factor κ (mean maximum lifetime in mean core lifetimes), if identified (vmtable with kills).
    pub kappa: Option<Estimate>,
    /// Parameters the data cannot identify; they keep the ALGORITHMS.md §2.13 defaults.
    pub defaults_kept: Vec<String>,
    /// Decisions and caveats, one sentence each.
    pub notes: Vec<String>,
}

impl AzureFit {
    /// Writes the fitted values into `p`: `arrival_rate` (per hour), `initial_size` (the empirical
    /// distribution), and every fitted prior (`priors.lambda`, `priors.nu`, `priors.sigma`, `priors.kappa`);
    /// parameters in [`AzureFit::defaults_kept`] are left as they are.
    pub fn apply(&self, p: &mut AdmitParams) {
        p.arrival_rate = self.arrival_rate.value;
        p.initial_size = InitialSize::Empirical {
            sizes: self.initial_size.sizes.clone(),
            weights: self.initial_size.counts.iter().map(|&c| c as f64).collect(),
        };
        if let Some(g) = &self.lambda {
            p.priors.lambda = g.gamma();
        }
        if let Some(g) = &self.nu {
            p.priors.nu = g.gamma();
        }
        if let Some(g) = &self.sigma {
            p.priors.sigma = g.gamma();
        }
        if let Some(k) = &self.kappa {
            p.priors.kappa = k.value;
        }
    }
}

/// Options of the fits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FitOptions {
    /// Count a VM of c cores as c core lifetimes (true, App. B counts cores) or as one (false).
    pub per_core: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { per_core: true }
    }
}

/// Lifetime observations of one deployment's cores, which share one λ (hours; seed 000 App. B).
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct LifetimeObs {
    /// Exactly observed core deaths: `(lifetime h, cores)`; likelihood `λ e^{−λt}` per core.
    pub exact: Vec<(f64, u32)>,
    /// Interval-censored deaths: `(lo h, hi h, cores)` with `0 ≤ lo < hi`; `e^{−λ lo} − e^{−λ hi}` per core.
    pub interval: Vec<(f64, f64, u32)>,
    /// Right-censored cores: `(age h, cores)`, alive at that age; `e^{−λ·age}` per core.
    pub censored: Vec<(f64, u32)>,
}

impl LifetimeObs {
    /// Number of observed core deaths (exact + interval).
    pub fn deaths(&self) -> u64 {
        self.exact.iter().map(|e| e.1 as u64).sum::<u64>()
            + self.interval.iter().map(|e| e.2 as u64).sum::<u64>()
    }
    /// `ln` of the likelihood given λ = e^s, plus `extra_pow · s`.
    fn logf(&self, s: f64, extra_pow: f64) -> f64 {
        let l = libm::exp(s);
        let mut h = extra_pow * s;
        for &(t, c) in &self.exact {
            h += c as f64 * (s - l * t);
        }
        for &(lo, hi, c) in &self.interval {
            h += c as f64 * (-l * lo + libm::log(-libm::expm1(-l * (hi - lo))));
        }
        for &(a, c) in &self.censored {
            h -= c as f64 * l * a;
        }
        h
    }
    /// Canonical key of the likelihood as a function of λ (for deduplication).
    fn key(&self) -> Vec<u64> {
        let d: u64 = self.exact.iter().map(|e| e.1 as u64).sum();
        let st: f64 = self.exact.iter().map(|e| e.0 * e.1 as f64).sum();
        let cs: f64 = self.censored.iter().map(|e| e.0 * e.1 as f64).sum();
        let mut iv: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        for &(lo, hi, c) in &self.interval {
            *iv.entry((lo.to_bits(), hi.to_bits())).or_default() += c as u64;
        }
        let mut k = vec![d, st.to_bits(), cs.to_bits()];
        for ((a, b), c) in iv {
            k.extend([a, b, c]);
        }
        k
    }
}

/// The log-likelihood of one signature on a uniform grid in s = ln λ.
#[derive(Clone, Debug)]
struct Window {
    s0: f64,
    ds: f64,
    h: Vec<f64>,
}

impl Window {
    fn build(f: impl Fn(f64) -> f64) -> Window {
        // coarse scan, then golden-section refinement of the maximum
        let n = ((S_MAX - S_MIN) / 0.1).ceil() as usize;
        let (mut bs, mut bh) = (S_MIN, f64::NEG_INFINITY);
        for i in 0..=n {
            let s = S_MIN + (S_MAX - S_MIN) * i as f64 / n as f64;
            let v = f(s);
            if v > bh {
                bs = s;
                bh = v;
            }
        }
        let (mut lo, mut hi) = ((bs - 0.1).max(S_MIN), (bs + 0.1).min(S_MAX));
        let g = 0.618_033_988_749_895;
        for _ in 0..40 {
            let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
            if f(x1) > f(x2) {
                hi = x2;
            } else {
                lo = x1;
            }
        }
        let sm = 0.5 * (lo + hi);
        let hm = f(sm).max(bh);
        let e = 1e-3;
        let curv = -(f(sm + e) - 2.0 * f(sm) + f(sm - e)) / (e * e);
        let sd = if curv > 1e-12 {
            1.0 / curv.sqrt()
        } else {
            f64::INFINITY
        };
        let ds = (sd / 5.0).clamp(1e-4, 0.04);
        let mut left = 0usize;
        while sm - (left + 1) as f64 * ds >= S_MIN && f(sm - left as f64 * ds) > hm - WINDOW_NATS {
            left += 1;
        }
        let mut right = 0usize;
        while sm + (right + 1) as f64 * ds <= S_MAX && f(sm + right as f64 * ds) > hm - WINDOW_NATS
        {
            right += 1;
        }
        let s0 = sm - left as f64 * ds;
        let h = (0..=left + right).map(|j| f(s0 + j as f64 * ds)).collect();
        Window { s0, ds, h }
    }
}

/// Posterior moments of one window under a Gamma(a, b) prior on λ (plus an optional per-point extra term).
struct WinStats {
    log_i: f64,
    es: f64,
    el: f64,
    vss: f64,
    vll: f64,
    csl: f64,
}

fn win_stats(w: &Window, a: f64, b: f64, lgam_a: f64) -> WinStats {
    let mut m = f64::NEG_INFINITY;
    let mut xs = Vec::with_capacity(w.h.len());
    for (j, h) in w.h.iter().enumerate() {
        let s = w.s0 + j as f64 * w.ds;
        let x = h + a * s - b * libm::exp(s);
        m = m.max(x);
        xs.push(x);
    }
    let (mut z, mut s1, mut l1, mut s2, mut l2, mut sl) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let last = xs.len() - 1;
    if xs.len() >= 2 && w.s0 <= S_MIN + 1e-9 {
        // analytic left tail below the grid: x(s) ≈ x0 + k (s − s0), k = a + local slope of h
        let k = (xs[1] - xs[0]) / w.ds;
        if k > 0.0 {
            let p = libm::exp(xs[0] - m) / (k * w.ds);
            let (sc, l) = (w.s0 - 1.0 / k, libm::exp(w.s0) * k / (k + 1.0));
            z += p;
            s1 += p * sc;
            s2 += p * (sc * sc + 1.0 / (k * k));
            l1 += p * l;
            l2 += p * l * l;
            sl += p * sc * l;
        }
    }
    for (j, x) in xs.iter().enumerate() {
        let s = w.s0 + j as f64 * w.ds;
        let l = libm::exp(s);
        let p = libm::exp(x - m) * if j == 0 || j == last { 0.5 } else { 1.0 };
        z += p;
        s1 += p * s;
        l1 += p * l;
        s2 += p * s * s;
        l2 += p * l * l;
        sl += p * s * l;
    }
    let (es, el) = (s1 / z, l1 / z);
    WinStats {
        log_i: m + libm::log(z * w.ds) + a * libm::log(b) - lgam_a,
        es,
        el,
        vss: s2 / z - es * es,
        vll: l2 / z - el * el,
        csl: sl / z - es * el,
    }
}

/// Marginal log-likelihood of a Gamma(a, b) prior on the shared per-deployment λ (per hour) given the
/// deployments' lifetime observations (seed 000 App. B), up to parameter-free constants: the
/// interval-censored and exact parts enter as probabilities/densities of the observations in hours.
/// Exposed for tests; the fit is [`fit_lambda_prior`].
pub fn lambda_marginal_loglik(obs: &[LifetimeObs], a: f64, b: f64) -> f64 {
    let sigs = signatures(obs);
    let lg = ln_gamma(a);
    sigs.iter()
        .map(|(w, m)| *m as f64 * win_stats(w, a, b, lg).log_i)
        .sum()
}

fn signatures(obs: &[LifetimeObs]) -> Vec<(Window, u64)> {
    let mut map: BTreeMap<Vec<u64>, (usize, u64)> = BTreeMap::new();
    for (i, o) in obs.iter().enumerate() {
        map.entry(o.key()).or_insert((i, 0)).1 += 1;
    }
    map.into_values()
        .map(|(i, m)| (Window::build(|s| obs[i].logf(s, 0.0)), m))
        .collect()
}

/// Fits λ ~ Γ(a, b) (λ per hour, b in hours) by marginal maximum likelihood (seed 000 App. B, with
/// censoring), Newton's method on (ln a, ln b) with the exact gradient and Hessian; standard errors from the
/// observed information. Errors if there are no deployments or no observed deaths (the prior is then not
/// identified: with only censored cores the likelihood grows as λ → 0).
pub fn fit_lambda_prior(obs: &[LifetimeObs]) -> Result<GammaFit, String> {
    let deaths: u64 = obs.iter().map(|o| o.deaths()).sum();
    if obs.is_empty() || deaths == 0 {
        return Err("no core deaths observed: the core-lifetime prior is not identified".into());
    }
    let sigs = signatures(obs);
    // start: a = 1, b = crude mean lifetime (exposure / deaths)
    let expo: f64 = obs
        .iter()
        .map(|o| {
            o.exact.iter().map(|e| e.0 * e.1 as f64).sum::<f64>()
                + o.interval
                    .iter()
                    .map(|e| 0.5 * (e.0 + e.1) * e.2 as f64)
                    .sum::<f64>()
                + o.censored.iter().map(|e| e.0 * e.1 as f64).sum::<f64>()
        })
        .sum();
    let eval = |a: f64, b: f64| -> (f64, [f64; 2], [f64; 3]) {
        let (lg, dg, tg) = (ln_gamma(a), digamma(a), trigamma(a));
        let (mut l, mut ga, mut gb, mut haa, mut hbb, mut hab) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (w, m) in &sigs {
            let st = win_stats(w, a, b, lg);
            let m = *m as f64;
            l += m * st.log_i;
            ga += m * (st.es + libm::log(b) - dg);
            gb += m * (a / b - st.el);
            haa += m * (st.vss - tg);
            hbb += m * (st.vll - a / (b * b));
            hab += m * (1.0 / b - st.csl);
        }
        (l, [ga, gb], [haa, hbb, hab])
    };
    let (mut a, mut b) = (1.0, (expo / deaths as f64).max(1e-6));
    let (mut l, mut g, mut h) = eval(a, b);
    let mut it = 0;
    let mut converged = false;
    while it < 200 {
        it += 1;
        // gradient and Hessian in u = (ln a, ln b)
        let gu = [a * g[0], b * g[1]];
        let huu = [
            a * a * h[0] + a * g[0],
            b * b * h[1] + b * g[1],
            a * b * h[2],
        ];
        let det = huu[0] * huu[1] - huu[2] * huu[2];
        let mut step = if huu[0] < 0.0 && det > 0.0 {
            [
                -(huu[1] * gu[0] - huu[2] * gu[1]) / det,
                -(-huu[2] * gu[0] + huu[0] * gu[1]) / det,
            ]
        } else {
            let n = (gu[0] * gu[0] + gu[1] * gu[1]).sqrt().max(1e-300);
            [0.5 * gu[0] / n, 0.5 * gu[1] / n]
        };
        let norm = (step[0] * step[0] + step[1] * step[1]).sqrt();
        if norm > 1.0 {
            step = [step[0] / norm, step[1] / norm];
        }
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let (na, nb) = (a * libm::exp(t * step[0]), b * libm::exp(t * step[1]));
            let (nl, ng, nh) = eval(na, nb);
            if nl.is_finite() && nl >= l {
                let dl = nl - l;
                a = na;
                b = nb;
                l = nl;
                g = ng;
                h = nh;
                improved = true;
                if t * norm.min(1.0) < 1e-10
                    || dl.abs() < 1e-10 * (1.0 + l.abs()) && t * norm < 1e-6
                {
                    converged = true;
                }
                break;
            }
            t *= 0.5;
        }
        if !improved {
            converged = (a * g[0]).abs() + (b * g[1]).abs() < 1e-4 * (1.0 + l.abs().sqrt());
            break;
        }
        if (a * g[0]).abs() + (b * g[1]).abs() < 1e-7 * (1.0 + l.abs()).sqrt() {
            converged = true;
        }
        if converged {
            break;
        }
    }
    Ok(gamma_fit(a, b, l, [-h[0], -h[1], -h[2]], it, converged))
}

/// Builds a [`GammaFit`] from the estimates and the observed information `[I_aa, I_bb, I_ab]`.
fn gamma_fit(
    a: f64,
    b: f64,
    l: f64,
    info: [f64; 3],
    iterations: usize,
    converged: bool,
) -> GammaFit {
    let det = info[0] * info[1] - info[2] * info[2];
    let (vaa, vbb, vab) = if det > 0.0 && info[0] > 0.0 {
        (info[1] / det, info[0] / det, -info[2] / det)
    } else {
        (f64::NAN, f64::NAN, f64::NAN)
    };
    gamma_fit_from_cov(a, b, (vaa, vbb, vab), l, iterations, converged)
}

/// MLE of a single common exponential rate λ (per hour) from lifetime observations (no prior): maximises
/// Σ ln f(obs | λ) over ln λ by golden section; s.e. from the observed information. With exact deaths and
/// right censoring it equals the closed form `deaths / total exposure` (used as a test of the likelihood).
pub fn fit_exponential(obs: &[LifetimeObs]) -> Result<Estimate, String> {
    if obs.iter().map(|o| o.deaths()).sum::<u64>() == 0 {
        return Err("no deaths observed: the rate MLE is 0".into());
    }
    let f = |s: f64| obs.iter().map(|o| o.logf(s, 0.0)).sum::<f64>();
    let (mut lo, mut hi) = (S_MIN, S_MAX);
    let g = 0.618_033_988_749_895;
    for _ in 0..200 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if f(x1) > f(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    let s = 0.5 * (lo + hi);
    let l = libm::exp(s);
    let e = 1e-4;
    let d2s = (f(s + e) - 2.0 * f(s) + f(s - e)) / (e * e);
    // d²/dλ² at the maximum = d²/ds² / λ² (first derivative is 0)
    let info = -d2s / (l * l);
    Ok(Estimate {
        value: l,
        se: if info > 0.0 {
            1.0 / info.sqrt()
        } else {
            f64::NAN
        },
    })
}

// ------------------------------------------------------------------------------------------------------
// Generic Nelder–Mead + numerical Hessian (vmtable joint fits; small parameter counts)

fn nelder_mead(
    f: &dyn Fn(&[f64]) -> f64,
    x0: &[f64],
    step: f64,
    max_iter: usize,
) -> (Vec<f64>, f64, usize, bool) {
    let n = x0.len();
    let mut pts: Vec<Vec<f64>> = vec![x0.to_vec()];
    for i in 0..n {
        let mut p = x0.to_vec();
        p[i] += step;
        pts.push(p);
    }
    let mut vals: Vec<f64> = pts.iter().map(|p| f(p)).collect();
    let mut it = 0;
    let mut conv = false;
    while it < max_iter {
        it += 1;
        let mut idx: Vec<usize> = (0..=n).collect();
        idx.sort_by(|&i, &j| {
            vals[i]
                .partial_cmp(&vals[j])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        pts = idx.iter().map(|&i| pts[i].clone()).collect();
        vals = idx.iter().map(|&i| vals[i]).collect();
        let spread = pts
            .iter()
            .skip(1)
            .map(|p| {
                p.iter()
                    .zip(&pts[0])
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        if (vals[n] - vals[0]).abs() < 1e-10 * (1.0 + vals[0].abs()) && spread < 1e-7 {
            conv = true;
            break;
        }
        let c: Vec<f64> = (0..n)
            .map(|k| pts[..n].iter().map(|p| p[k]).sum::<f64>() / n as f64)
            .collect();
        let at = |t: f64| -> Vec<f64> { (0..n).map(|k| c[k] + t * (pts[n][k] - c[k])).collect() };
        let xr = at(-1.0);
        let fr = f(&xr);
        if fr < vals[0] {
            let xe = at(-2.0);
            let fe = f(&xe);
            if fe < fr {
                pts[n] = xe;
                vals[n] = fe;
            } else {
                pts[n] = xr;
                vals[n] = fr;
            }
        } else if fr < vals[n - 1] {
            pts[n] = xr;
            vals[n] = fr;
        } else {
            let xc = if fr < vals[n] { at(-0.5) } else { at(0.5) };
            let fc = f(&xc);
            if fc < vals[n].min(fr) {
                pts[n] = xc;
                vals[n] = fc;
            } else {
                for i in 1..=n {
                    let p: Vec<f64> = (0..n)
                        .map(|k| pts[0][k] + 0.5 * (pts[i][k] - pts[0][k]))
                        .collect();
                    vals[i] = f(&p);
                    pts[i] = p;
                }
            }
        }
    }
    let best = (0..=n)
        .min_by(|&i, &j| {
            vals[i]
                .partial_cmp(&vals[j])
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    (pts[best].clone(), vals[best], it, conv)
}

/// Covariance of the natural parameters `θ = exp(u)` from the numerical Hessian of the log-likelihood `ll`
/// at `u` (central differences in u, then transformed with the zero-gradient chain rule).
fn covariance_natural(ll: &dyn Fn(&[f64]) -> f64, u: &[f64]) -> Vec<Vec<f64>> {
    let n = u.len();
    let e = 1e-3;
    let mut h = vec![vec![0.0; n]; n];
    let f0 = ll(u);
    for i in 0..n {
        for j in i..n {
            let val = if i == j {
                let mut p = u.to_vec();
                p[i] += e;
                let fp = ll(&p);
                p[i] -= 2.0 * e;
                let fm = ll(&p);
                (fp - 2.0 * f0 + fm) / (e * e)
            } else {
                let mut s = 0.0;
                for (di, dj, sg) in [(e, e, 1.0), (e, -e, -1.0), (-e, e, -1.0), (-e, -e, 1.0)] {
                    let mut p = u.to_vec();
                    p[i] += di;
                    p[j] += dj;
                    s += sg * ll(&p);
                }
                s / (4.0 * e * e)
            };
            h[i][j] = val;
            h[j][i] = val;
        }
    }
    // information in u: −H; covariance of u = (−H)^{-1}; natural θ = e^u: cov_θ = diag(θ) cov_u diag(θ)
    let info: Vec<Vec<f64>> = h.iter().map(|r| r.iter().map(|v| -v).collect()).collect();
    let inv = invert(&info).unwrap_or_else(|| vec![vec![f64::NAN; n]; n]);
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| inv[i][j] * libm::exp(u[i]) * libm::exp(u[j]))
                .collect()
        })
        .collect()
}

fn invert(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut a: Vec<Vec<f64>> = m
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = r.clone();
            r.extend((0..n).map(|j| if i == j { 1.0 } else { 0.0 }));
            r
        })
        .collect();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| {
            a[i][c]
                .abs()
                .partial_cmp(&a[j][c].abs())
                .unwrap_or(std::cmp::Ordering::Equal)
        })?;
        if a[p][c].abs().is_nan() || a[p][c].abs() <= 1e-300 {
            return None;
        }
        a.swap(c, p);
        let d = a[c][c];
        for v in a[c].iter_mut() {
            *v /= d;
        }
        for r in 0..n {
            if r != c {
                let f = a[r][c];
                if f != 0.0 {
                    let pivot = a[c].clone();
                    for (x, y) in a[r].iter_mut().zip(&pivot) {
                        *x -= f * y;
                    }
                }
            }
        }
    }
    Some(a.into_iter().map(|r| r[n..].to_vec()).collect())
}

fn fit_from_cov(
    theta: &[f64],
    cov: &[Vec<f64>],
    i: usize,
    j: usize,
    l: f64,
    it: usize,
    conv: bool,
) -> GammaFit {
    let v = (cov[i][i], cov[j][j], cov[i][j]);
    gamma_fit_from_cov(theta[i], theta[j], v, l, it, conv)
}

/// Builds a [`GammaFit`] for shape `a`, rate `b` from their covariance `(Var a, Var b, Cov(a, b))`; the prior
/// mean a/b gets its delta-method s.e. (gradient (1/b, −a/b²)).
fn gamma_fit_from_cov(
    a: f64,
    b: f64,
    (vaa, vbb, vab): (f64, f64, f64),
    l: f64,
    iterations: usize,
    converged: bool,
) -> GammaFit {
    let vm = vaa / (b * b) + vbb * a * a / b.powi(4) - 2.0 * vab * a / b.powi(3);
    GammaFit {
        shape: Estimate {
            value: a,
            se: vaa.sqrt(),
        },
        rate: Estimate {
            value: b,
            se: vbb.sqrt(),
        },
        correlation: vab / (vaa * vbb).sqrt(),
        mean: Estimate {
            value: a / b,
            se: vm.max(0.0).sqrt(),
        },
        loglik: l,
        iterations,
        converged,
    }
}

// ------------------------------------------------------------------------------------------------------
// Arrivals

/// Interval (hours) of a dead VM's lifetime from its bin: `[max(0, lo − 150 s), min(hi, age) + 150 s]`, where
/// `age = cut − t` caps the lifetime (it died before the cut); the last bin is open-ended (capped by age).
fn bin_interval(bins: &[(u64, u64)], k: u16, age_s: u64) -> (f64, f64) {
    let (lo, hi) = bins[k as usize];
    let hi = if k as usize + 1 == bins.len() {
        age_s
    } else {
        hi.min(age_s)
    };
    let half = (BIN_S / 2) as f64;
    (
        (lo as f64 - half).max(0.0) / 3600.0,
        (hi as f64 + half) / 3600.0,
    )
}

/// Size distribution summary from per-deployment sizes (cores).
fn size_fit(sizes: &[u32]) -> SizeFit {
    let mut hist: BTreeMap<u32, u64> = BTreeMap::new();
    for &s in sizes {
        *hist.entry(s).or_default() += 1;
    }
    let n = sizes.len() as f64;
    let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / n;
    let var = if sizes.len() > 1 {
        sizes
            .iter()
            .map(|&s| (s as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0)
    } else {
        0.0
    };
    let sig = (mean - 1.0).max(0.0);
    SizeFit {
        sizes: hist.keys().copied().collect(),
        counts: hist.values().copied().collect(),
        mean_cores: Estimate {
            value: mean,
            se: (var / n).sqrt(),
        },
        poisson_sigma: Estimate {
            value: sig,
            se: (sig / n).sqrt(),
        },
    }
}

/// Fits what the Azure-2017 arrivals identify (see the module docs): arrival rate (per hour, all splits'
/// windows pooled), initial-size distribution (cores per tenant batch), and the core-lifetime prior
/// λ ~ Γ(a, b) by censored, interval-binned marginal ML (seed 000 App. B). ν, σ and κ are not identified and
/// listed in [`AzureFit::defaults_kept`]. Errors if there are no batches or no lifetime bins.
pub fn fit_azure_arrivals(data: &AzureArrivals, opts: &FitOptions) -> Result<AzureFit, String> {
    let bins = &data.intervals.bins;
    if bins.is_empty() {
        return Err("no lifetime bins".into());
    }
    let mut obs = Vec::new();
    let mut sizes = Vec::new();
    let mut splits = Vec::new();
    let mut window = 0.0;
    for sp in &data.splits {
        window += sp.window_hours();
        splits.push(SplitSummary {
            name: sp.name.clone(),
            window_hours: sp.window_hours(),
            deployments: sp.batches.len(),
            vms: sp.vm_count(),
            censored_vms: sp.censored_count(),
            cores: sp.core_count(),
        });
        for b in &sp.batches {
            sizes.push(b.cores());
            let age = sp.cut_s - b.t_s;
            let mut o = LifetimeObs::default();
            let mut iv: BTreeMap<u16, u32> = BTreeMap::new();
            let mut cens = 0u32;
            for v in &b.vms {
                let w = if opts.per_core { v.cores } else { 1 };
                if v.censored {
                    cens += w;
                } else {
                    *iv.entry(v.lifetime_bin).or_default() += w;
                }
            }
            for (k, c) in iv {
                let (lo, hi) = bin_interval(bins, k, age);
                o.interval.push((lo, hi, c));
            }
            if cens > 0 {
                o.censored.push((age as f64 / 3600.0, cens));
            }
            obs.push(o);
        }
    }
    if sizes.is_empty() || window <= 0.0 {
        return Err("no tenant batches in the arrivals".into());
    }
    let n = sizes.len() as f64;
    let lambda = fit_lambda_prior(&obs).ok();
    let mut notes = vec![
        "deployment = tenant batch (one subscription's VMs in one 5-minute bin); arrival rate = batches / window".to_string(),
        format!("core lifetimes: VM lifetime bins as intervals [lo−150 s, hi+150 s] capped at the age at the cut; censored VMs survive their age; {}", if opts.per_core { "each VM counts once per core" } else { "each VM counts once" }),
        "the cores of one batch share λ (seed 000 App. B); λ integrated numerically, s.e. from the exact observed information".to_string(),
    ];
    if lambda.is_none() {
        notes.push("no core deaths: λ prior not identified, default kept".into());
    }
    let mut kept = vec!["nu".to_string(), "sigma".to_string(), "kappa".to_string()];
    if lambda.is_none() {
        kept.insert(0, "lambda".into());
    }
    Ok(AzureFit {
        source: format!("azure-arrivals:{}", data.source),
        splits,
        arrival_rate: Estimate {
            value: n / window,
            se: n.sqrt() / window,
        },
        initial_size: size_fit(&sizes),
        lambda,
        nu: None,
        sigma: None,
        kappa: None,
        defaults_kept: kept,
        notes,
    })
}

// ------------------------------------------------------------------------------------------------------
// vmtable

/// One deployment reconstructed from vmtable rows (hours from its arrival; seed 000 App. B).
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct DeploymentObs {
    /// Arrival time, hours from the trace start.
    pub arrival_h: f64,
    /// Initial size n0, cores (VMs created at the arrival instant).
    pub n0: u32,
    /// Core lifetimes (sharing λ).
    pub life: LifetimeObs,
    /// Scale-out sizes K (cores) of the later creation instants.
    pub scaleouts: Vec<u32>,
    /// Exposure of the scale-out process and of the kill clock: age at death or at the trace end, hours.
    pub age_h: f64,
    /// True if the deployment was killed (≥ 3 VMs deleted together at its final deletion, before the end).
    pub killed: bool,
}

/// The fields of a vmtable row the fit reads: created and deleted time (s; the trace end when censored) and
/// cores, as the integers the table holds.
struct VmtableRow {
    created_s: u64,
    deleted_s: u64,
    cores: u32,
}

/// Groups vmtable rows into the deployments that arrive inside the trace (created > 0), in order of first
/// appearance (App. B; see the module docs for the event definitions).
pub fn vmtable_deployments(t: &VmTable, opts: &FitOptions) -> Vec<DeploymentObs> {
    let end = t.trace_end_s();
    let mut order: Vec<&str> = Vec::new();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in t.rows.iter().enumerate() {
        let dep = r.deployment.as_deref().unwrap_or_default();
        let g = groups.entry(dep).or_default();
        if g.is_empty() {
            order.push(dep);
        }
        g.push(i);
    }
    let half = (BIN_S / 2) as f64;
    let mut out = Vec::new();
    for id in order {
        // the vmtable's times and core counts are integers (s, cores), read back exactly
        let rows: Vec<VmtableRow> = groups[id]
            .iter()
            .map(|&i| {
                let r = &t.rows[i];
                VmtableRow {
                    created_s: r.created_s as u64,
                    deleted_s: r.deleted_s.map_or(end, |d| d as u64),
                    cores: r.cores as u32,
                }
            })
            .collect();
        let arr = rows.iter().map(|r| r.created_s).min().unwrap_or(0);
        if arr == 0 {
            continue;
        }
        let all_dead = rows.iter().all(|r| r.deleted_s < end);
        let last_del = rows.iter().map(|r| r.deleted_s).max().unwrap_or(end);
        let killed = all_dead && rows.iter().filter(|r| r.deleted_s == last_del).count() >= 3;
        let death = if all_dead { last_del } else { end };
        let mut d = DeploymentObs {
            arrival_h: arr as f64 / 3600.0,
            age_h: (death - arr) as f64 / 3600.0,
            killed,
            ..Default::default()
        };
        let mut created: BTreeMap<u64, u32> = BTreeMap::new();
        for r in &rows {
            *created.entry(r.created_s).or_default() += r.cores;
            let w = if opts.per_core { r.cores } else { 1 };
            let dead = r.deleted_s < end && !(killed && r.deleted_s == last_del);
            if dead {
                let l = (r.deleted_s - r.created_s) as f64;
                d.life
                    .interval
                    .push(((l - half).max(0.0) / 3600.0, (l + half) / 3600.0, w));
            } else {
                let stop = if killed {
                    last_del
                } else {
                    r.deleted_s.min(end)
                };
                d.life
                    .censored
                    .push(((stop - r.created_s) as f64 / 3600.0, w));
            }
        }
        let mut it = created.into_iter();
        d.n0 = it.next().map(|x| x.1).unwrap_or(0);
        d.scaleouts = it.map(|x| x.1).collect();
        out.push(d);
    }
    out
}

/// Fits every App. B parameter a vmtable identifies (see the module docs): arrival rate (per hour, over the
/// trace window), initial sizes (cores), λ ~ Γ jointly with ν ~ Γ (η = 1) and κ by marginal ML (ν and κ
/// only if scale-outs resp. kills occur), σ ~ Γ from the scale-out sizes. Errors if no deployment arrives
/// inside the trace.
pub fn fit_vmtable(t: &VmTable, opts: &FitOptions) -> Result<AzureFit, String> {
    let deps = vmtable_deployments(t, opts);
    if deps.is_empty() {
        return Err(format!(
            "{}: no deployment arrives inside the trace (all first creations at 0 s)",
            t.name
        ));
    }
    let window = t.trace_end_s() as f64 / 3600.0;
    let n = deps.len() as f64;
    let sizes: Vec<u32> = deps.iter().map(|d| d.n0).collect();
    let deaths: u64 = deps.iter().map(|d| d.life.deaths()).sum();
    let n_so: usize = deps.iter().map(|d| d.scaleouts.len()).sum();
    let n_kill = deps.iter().filter(|d| d.killed).count();
    let mut notes = vec![
        format!("{} deployments arrive inside the trace (App. B excludes those present at 0 s)", deps.len()),
        "arrival = first VM creation; n0 = cores created then; each later creation instant = one scale-out".to_string(),
        "killed = ≥ 3 VMs deleted together at the deployment's final deletion before the trace end (App. B)".to_string(),
    ];
    if t.schema == crate::workload::azure::vmtable::VmtableSchema::V2_2019 {
        notes.push(
            "V2 gives core/memory buckets: sizes are bucket values, '>24' read as 32 cores".into(),
        );
    }
    let mut kept = Vec::new();
    let (mut lambda, mut nu, mut kappa) = (None, None, None);
    if deaths == 0 {
        kept.extend(["lambda".to_string(), "nu".to_string(), "kappa".to_string()]);
        notes.push(
            "no core deaths among arriving deployments: λ, ν, κ not identified, defaults kept"
                .into(),
        );
    } else {
        let fit_nu = n_so > 0;
        let fit_kappa = n_kill > 0;
        let wins: Vec<Window> = deps
            .iter()
            .map(|d| {
                let pw = d.scaleouts.len() as f64 + if d.killed { 1.0 } else { 0.0 };
                Window::build(|s| d.life.logf(s, pw))
            })
            .collect();
        let defaults = crate::models::admission::posterior::Priors::default();
        // u = ln(a_λ, b_λ, [a_ν, b_ν], [κ])
        let unpack = |u: &[f64]| -> (f64, f64, f64, f64, f64) {
            let mut k = 2;
            let (an, bn) = if fit_nu {
                k += 2;
                (libm::exp(u[2]), libm::exp(u[3]))
            } else {
                (defaults.nu.shape, defaults.nu.rate)
            };
            let kap = if fit_kappa {
                libm::exp(u[k])
            } else {
                defaults.kappa
            };
            (libm::exp(u[0]), libm::exp(u[1]), an, bn, kap)
        };
        let ll = |u: &[f64]| -> f64 {
            if u.iter().any(|v| !v.is_finite() || v.abs() > 40.0) {
                return f64::NEG_INFINITY;
            }
            let (a, b, an, bn, kap) = unpack(u);
            let (lga, lgan) = (ln_gamma(a), ln_gamma(an));
            let mut tot = 0.0;
            for (d, w) in deps.iter().zip(&wins) {
                let nr = d.scaleouts.len() as f64;
                let k = if d.killed { 1.0 } else { 0.0 };
                let cnu = an * libm::log(bn) - lgan + ln_gamma(an + nr);
                let mut m = f64::NEG_INFINITY;
                let xs: Vec<f64> =
                    w.h.iter()
                        .enumerate()
                        .map(|(j, h)| {
                            let s = w.s0 + j as f64 * w.ds;
                            let l = libm::exp(s);
                            let x = h + a * s - b * l + cnu
                                - (an + nr) * libm::log(bn + l * d.age_h)
                                - k * libm::log(kap)
                                - l * d.age_h / kap;
                            m = m.max(x);
                            x
                        })
                        .collect();
                let z: f64 = xs.iter().map(|x| libm::exp(x - m)).sum();
                tot += m + libm::log(z * w.ds) + a * libm::log(b) - lga;
            }
            tot
        };
        let mut u0 = vec![
            0.0,
            libm::log((deps.iter().map(|d| d.age_h).sum::<f64>() / deaths as f64).max(1e-3)),
        ];
        if fit_nu {
            u0.extend([libm::log(defaults.nu.shape), libm::log(defaults.nu.rate)]);
        }
        if fit_kappa {
            u0.push(libm::log(defaults.kappa));
        }
        let neg = |u: &[f64]| -ll(u);
        let (mut u, mut v, mut its, mut conv) = nelder_mead(&neg, &u0, 0.5, 4000);
        for _ in 0..3 {
            let (u2, v2, i2, c2) = nelder_mead(&neg, &u, 0.1, 4000);
            its += i2;
            let done = (v - v2).abs() < 1e-9 * (1.0 + v.abs());
            u = u2;
            v = v2;
            conv = c2;
            if done {
                break;
            }
        }
        let cov = covariance_natural(&ll, &u);
        let theta: Vec<f64> = u.iter().map(|&x| libm::exp(x)).collect();
        lambda = Some(fit_from_cov(&theta, &cov, 0, 1, -v, its, conv));
        if fit_nu {
            nu = Some(fit_from_cov(&theta, &cov, 2, 3, -v, its, conv));
        } else {
            kept.push("nu".into());
            notes.push(
                "no scale-outs among arriving deployments: ν not identified, default kept".into(),
            );
        }
        if fit_kappa {
            let k = theta.len() - 1;
            kappa = Some(Estimate {
                value: theta[k],
                se: cov[k][k].sqrt(),
            });
        } else {
            kept.push("kappa".into());
            notes
                .push("no kills among arriving deployments: κ not identified, default kept".into());
        }
    }
    // σ from scale-out sizes: Σ_d [a ln b − lnΓ(a) + lnΓ(a+Z) − (a+Z) ln(b+N_s)]
    let sig_data: Vec<(f64, f64)> = deps
        .iter()
        .filter(|d| !d.scaleouts.is_empty())
        .map(|d| {
            (
                d.scaleouts.iter().map(|&k| k as f64 - 1.0).sum(),
                d.scaleouts.len() as f64,
            )
        })
        .collect();
    let sigma = if sig_data.iter().map(|x| x.0).sum::<f64>() > 0.0 {
        let ll = |u: &[f64]| -> f64 {
            if u.iter().any(|v| !v.is_finite() || v.abs() > 40.0) {
                return f64::NEG_INFINITY;
            }
            let (a, b) = (libm::exp(u[0]), libm::exp(u[1]));
            let lg = ln_gamma(a);
            sig_data
                .iter()
                .map(|&(z, ns)| {
                    a * libm::log(b) - lg + ln_gamma(a + z) - (a + z) * libm::log(b + ns)
                })
                .sum()
        };
        let neg = |u: &[f64]| -ll(u);
        let mean =
            sig_data.iter().map(|x| x.0).sum::<f64>() / sig_data.iter().map(|x| x.1).sum::<f64>();
        let (mut u, _, mut its, mut conv) =
            nelder_mead(&neg, &[0.0, libm::log(1.0 / mean)], 0.5, 4000);
        let (u2, _, i2, c2) = nelder_mead(&neg, &u, 0.1, 4000);
        u = u2;
        its += i2;
        conv = conv || c2;
        let cov = covariance_natural(&ll, &u);
        let th: Vec<f64> = u.iter().map(|&x| libm::exp(x)).collect();
        Some(fit_from_cov(&th, &cov, 0, 1, ll(&u), its, conv))
    } else {
        kept.push("sigma".into());
        notes.push("no scale-out with more than one core: σ not identified, default kept".into());
        None
    };
    let vms: usize = deps
        .iter()
        .map(|d| d.life.interval.len() + d.life.censored.len())
        .sum();
    let cens: usize = deps.iter().map(|d| d.life.censored.len()).sum();
    Ok(AzureFit {
        source: format!("vmtable-{:?}:{}", t.schema, t.name),
        splits: vec![SplitSummary {
            name: t.name.clone(),
            window_hours: window,
            deployments: deps.len(),
            vms,
            censored_vms: cens,
            cores: deps
                .iter()
                .map(|d| d.n0 as u64 + d.scaleouts.iter().map(|&k| k as u64).sum::<u64>())
                .sum(),
        }],
        arrival_rate: Estimate {
            value: n / window,
            se: n.sqrt() / window,
        },
        initial_size: size_fit(&sizes),
        lambda,
        nu,
        sigma,
        kappa,
        defaults_kept: kept,
        notes,
    })
}

#[cfg(test)]
mod special_function_tests {
    use super::{digamma, ln_gamma, trigamma};

    #[test]
    fn digamma_and_ln_gamma_match_statrs() {
        for &x in &[
            1e-3, 0.05, 0.4247, 1.0, 1.5, 2.0, 5.99, 6.0, 7.3, 9.99, 10.0, 42.0, 1e4,
        ] {
            let (d, ds) = (digamma(x), statrs::function::gamma::digamma(x));
            assert!(
                (d - ds).abs() <= 1e-12 * ds.abs().max(1.0),
                "digamma({x}) {d} vs {ds}"
            );
            let (l, ls) = (ln_gamma(x), statrs::function::gamma::ln_gamma(x));
            assert!(
                (l - ls).abs() <= 1e-12 * ls.abs().max(1.0),
                "ln_gamma({x}) {l} vs {ls}"
            );
        }
        // mpmath.digamma to 15 digits
        for (x, want) in [
            (0.4247, -2.39095871707111),
            (7.3, 1.91782033563799),
            (1e-3, -1000.57557193181),
        ] {
            assert!(
                (digamma(x) - want).abs() <= 2e-14 * want.abs().max(1.0),
                "digamma({x})"
            );
        }
        // closed forms: ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ'(1) = π²/6, ln Γ(1/2) = ln √π
        let g = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + g).abs() < 1e-14);
        assert!((digamma(0.5) + g + 2.0 * std::f64::consts::LN_2).abs() < 1e-14);
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-12);
        assert!((ln_gamma(0.5) - 0.5 * std::f64::consts::PI.ln()).abs() < 1e-14);
    }
}
