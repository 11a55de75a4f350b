//! The cluster simulator of ALGORITHMS.md §2.1 on the shared DES kernel (§1.2): Poisson arrivals, exact
//! continuous-time deployments (Exp core lifetimes, Poisson scale-outs of size 1 + Poisson(σ), Exp kill,
//! absorption at zero cores), all-or-nothing scale-out grants, metrics of §2.10.

use super::component as comp;
use super::lead_time::LeadTimeCounts;
use super::lookahead::LeadGrid;
use super::moments::{
    Belief, CurveBasis, CurvePlan, ExactTables, MomentConfig, NodeCache, PsiSource, TableLattice,
};
use super::params::{AdmitParams, InitialSize, Labelling, PolicyKind, PolicySpec};
use super::policies::script::ScriptAdmit;
use super::policies::{ArmRule, DecisionContext, MomentPolicy};
use super::posterior::{update, SuffStats};
use crate::substrate::des::{Des, TimerKey, World};
use crate::substrate::hash::FxHashMap;
use crate::substrate::rng::{exp, gamma, poisson, stream};
use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// True parameters of one deployment type (hidden from the provider).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeploymentType {
    /// Per-core death rate λ (per hour).
    pub lambda: f64,
    /// Normalised scale-out rate ν (scale-out rate ν·λ per hour).
    pub nu: f64,
    /// Size parameter σ (scale-out size 1 + Poisson(σ) cores).
    pub sigma: f64,
}

/// Pre-drawn content of arrival number `idx` of run `seed` (common random numbers across policies).
#[derive(Clone, Debug)]
pub struct ArrivalDraw {
    /// The deployment's true type.
    pub theta: DeploymentType,
    /// The user's two types (labelling runs) — `types[which]` is `theta`.
    pub types: [DeploymentType; 2],
    /// Which of the two types this deployment is.
    pub which: usize,
    /// Initial cores.
    pub n0: u32,
    /// Maximum lifetime M (hours from arrival).
    pub max_life: f64,
}

fn draw_type<R: rand::Rng>(r: &mut R, p: &AdmitParams) -> DeploymentType {
    let pr = &p.priors;
    DeploymentType {
        lambda: gamma(r, pr.lambda.shape, pr.lambda.rate),
        nu: gamma(r, pr.nu.shape, pr.nu.rate),
        sigma: gamma(r, pr.sigma.shape, pr.sigma.rate),
    }
}

/// Draw arrival `idx` of run `seed` from its own stream (ALGORITHMS.md §0).
pub fn draw_arrival(p: &AdmitParams, seed: u64, idx: u64) -> ArrivalDraw {
    let mut r = stream(seed, comp::ARRIVAL_TYPE, idx);
    let a = draw_type(&mut r, p);
    let b = draw_type(&mut r, p);
    let which = if r.random::<f64>() < 0.5 { 0 } else { 1 };
    let theta = if p.labelling == Labelling::Off {
        a
    } else {
        [a, b][which]
    };
    let which = if p.labelling == Labelling::Off {
        0
    } else {
        which
    };
    let u_size = r.random::<f64>();
    let mut rs = stream(seed, comp::ARRIVAL_TYPE, idx ^ 0x8000_0000_0000_0000);
    let n0 = match &p.initial_size {
        InitialSize::OnePlusPoissonSigma => 1 + poisson(&mut rs, theta.sigma) as u32,
        InitialSize::Empirical { sizes, weights } => {
            let tot: f64 = weights.iter().sum();
            let mut acc = 0.0;
            let mut out = sizes[sizes.len() - 1];
            for (s, w) in sizes.iter().zip(weights) {
                acc += w / tot;
                if u_size < acc {
                    out = *s;
                    break;
                }
            }
            out
        }
    };
    let max_life = exp(&mut r, theta.lambda / p.priors.kappa);
    ArrivalDraw {
        theta,
        types: [a, b],
        which,
        n0,
        max_life,
    }
}

/// Pseudo-observations of one type (ALGORITHMS.md §2.11): m lifetimes, m scale-out gaps, m sizes.
pub fn pseudo_observations<R: rand::Rng>(r: &mut R, th: &DeploymentType, m: u32) -> SuffStats {
    let mut s = SuffStats::default();
    for _ in 0..m {
        s.deaths += 1.0;
        s.exposure += exp(r, th.lambda);
        s.requests += 1.0;
        s.request_exposure += exp(r, th.nu * th.lambda);
        s.sizes += 1.0;
        s.extra_cores += poisson(r, th.sigma) as f64;
    }
    s
}

/// Per-month metrics (ALGORITHMS.md §2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MonthStats {
    /// ∫ N dt over the month (core-hours).
    pub core_hours: f64,
    /// Scale-out requests.
    pub requests: u64,
    /// Failed scale-out requests.
    pub failures: u64,
}

/// One sample of the time series of a run (for the playground's run view).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Time (hours).
    pub t: f64,
    /// Active cores N.
    pub active: f64,
    /// Cumulative failed scale-outs.
    pub failures: u64,
    /// Cumulative accepted arrivals.
    pub accepted: u64,
    /// Cumulative rejected arrivals.
    pub rejected: u64,
}

/// Result of one simulated run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Utilization `∫N dt / (C·T_run)`.
    pub utilization: f64,
    /// Scale-out requests.
    pub requests: u64,
    /// Failed scale-out requests.
    pub failures: u64,
    /// Arrivals seen.
    pub arrivals: u64,
    /// Arrivals accepted.
    pub accepted: u64,
    /// Per-month metrics.
    pub months: Vec<MonthStats>,
    /// Optional time series (see `AdmitParams::series_every_hours`).
    pub series: Vec<SeriesPoint>,
    /// Curve recomputations (diagnostic).
    pub curve_refreshes: u64,
    /// DES events delivered (diagnostic).
    pub events: u64,
    /// Sums behind the variance-based payments of §2.11, when `AdmitParams.pricing` is set and the policy is
    /// FIRST or SECOND (`None` otherwise; not serialized then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<RunPricing>,
    /// MARGINAL policies only (seed 000 Def. 6.1, ALGORITHMS.md §2.7): how often the heuristic applied;
    /// all zero otherwise. Serialized flat (`marginal_candidates`, `marginal_accepts`, `marginal_closest`),
    /// each omitted at zero / `None`.
    #[serde(flatten)]
    pub marginal: MarginalCounts,
    /// FIRST/SECOND: the lead-time diagnostic of the arrivals the test without MARGINAL rejected
    /// ([`LeadTimeCounts`], issue 32); omitted when there were none.
    #[serde(default, skip_serializing_if = "LeadTimeCounts::is_empty")]
    pub lead_time: LeadTimeCounts,
    /// A script arm's first run-time error (issue 31: "line L, column C: …"); the script rejected every
    /// arrival from then on. Omitted when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_error: Option<String>,
}

/// What the MARGINAL heuristic (seed 000 Def. 6.1, ALGORITHMS.md §2.7) did over one run ([`RunResult`]) or
/// pooled over the runs of one threshold ([`super::tuning::Evaluation`], by [`MarginalCounts::pooled`]).
/// Counts are unweighted arrivals; all zero / `None` for policies without MARGINAL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MarginalCounts {
    /// Arrivals whose candidate mean `μ_c(t_k)` is below `ε_m` at some lead time of the look-ahead (the only
    /// ones MARGINAL can let in).
    #[serde(
        rename = "marginal_candidates",
        default,
        skip_serializing_if = "is_zero"
    )]
    pub candidates: u64,
    /// Arrivals the policy accepted that its test without MARGINAL rejects, i.e. admission decisions the
    /// heuristic changed.
    #[serde(rename = "marginal_accepts", default, skip_serializing_if = "is_zero")]
    pub accepts: u64,
    /// Over the arrivals the test without MARGINAL rejects, the smallest `max μ_c(t_k)` over their failing
    /// lead times ([`MomentPolicy::failing_candidate_mean`], cores); the heuristic changes a decision exactly
    /// when this is below `ε_m`. `None` without such an arrival.
    #[serde(
        rename = "marginal_closest",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub closest: Option<f64>,
    /// Core-hours (∫ cores dt until the run's end) of the deployments admitted because of the heuristic
    /// (those counted in `accepts`), their scale-outs included: what MARGINAL adds to `∫N dt`.
    #[serde(
        rename = "marginal_core_hours",
        default,
        skip_serializing_if = "is_zero_f"
    )]
    pub core_hours: f64,
}

impl MarginalCounts {
    /// The counts of several runs pooled: counts summed, `closest` the smallest over the runs that have one.
    pub fn pooled<'a>(runs: impl IntoIterator<Item = &'a MarginalCounts>) -> MarginalCounts {
        runs.into_iter()
            .fold(MarginalCounts::default(), |acc, m| MarginalCounts {
                candidates: acc.candidates + m.candidates,
                accepts: acc.accepts + m.accepts,
                closest: match (acc.closest, m.closest) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
                core_hours: acc.core_hours + m.core_hours,
            })
    }
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

/// Sums over one run behind the variance-based payments of seed 000 §7.1 (ALGORITHMS.md §2.11): for every
/// arrival the policy evaluated and for every admitted deployment, its initial cores n0 and the provider's
/// posterior-predictive variance `V̂ = Var[X_t]` at `pricing.lead_hours` from the candidate's moment curve
/// (the one the policy decided on: the submitted type's posterior when labelled, the ½/½ mixture of the two type
/// posteriors when unlabelled). Arrivals do not depend on the policy (common random numbers), so the arrival
/// sums of two arms of one run are over the same deployments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunPricing {
    /// Arrivals priced (every arrival of a FIRST or SECOND run).
    pub arrivals: u64,
    /// Σ n0 over the arrivals (cores).
    pub arrival_cores: f64,
    /// Σ V̂ over the arrivals (cores²).
    pub arrival_var: f64,
    /// Admitted deployments priced.
    pub admitted: u64,
    /// Σ n0 over the admitted deployments (cores).
    pub admitted_cores: f64,
    /// Σ V̂ over the admitted deployments (cores²).
    pub admitted_var: f64,
}

impl RunResult {
    /// Failed / all scale-out requests of this run (0 if none).
    pub fn failure_rate(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.failures as f64 / self.requests as f64
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrival,
    Next(u32),
    Kill(u32),
    Month,
    Sample,
}

struct Dep {
    n: u32,
    theta: DeploymentType,
    born: f64,
    last: f64,
    stats: SuffStats,
    pseudo: [SuffStats; 2],
    n_types: usize,
    rng: Pcg64Mcg,
    key_next: TimerKey,
    key_kill: TimerKey,
    alive: bool,
    basis: Vec<CurveBasis>,
    curve: Option<usize>,
    due: f64,
    dirty: bool,
    full: bool,
    /// Admitted because of MARGINAL (its cores count in `Cluster::marginal_active`).
    by_marginal: bool,
}

/// Reusable caches (alive-table lattice, quadrature nodes); share across runs to amortise table building.
#[derive(Default)]
pub struct SimCache {
    /// Memoised alive tables.
    pub lattice: TableLattice,
    /// Memoised Gauss–Laguerre nodes.
    pub nodes: NodeCache,
    /// Candidate curves by (n0, number of types, hyper-parameter bits of up to two beliefs; unused = 0).
    cand: FxHashMap<[u64; 14], (Vec<f64>, Vec<f64>)>,
    deltas: FxHashMap<[u64; 7], Vec<(f64, f64)>>,
    delta_sig: Vec<u64>,
    /// Lead-time plan of the curves (rebuilt when the grid or `n_interp` changes).
    plan: CurvePlan,
    /// Work buffer of the absorption corrections.
    dbuf: Vec<(f64, f64)>,
    /// Δ-memo lookups that hit (diagnostic, see `AdmitParams::delta_quantum`).
    pub delta_hits: u64,
    /// Δ-memo lookups that computed Δ (diagnostic).
    pub delta_misses: u64,
    /// Caches of the extra worker threads of [`simulate_runs`] (native only), kept so that later calls reuse
    /// their tables.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    workers: Vec<SimCache>,
}

/// Maximum number of memoised Δ curves before the memo is cleared (bounds memory, ≈ 0.4 KB each at 24 points).
const DELTA_MEMO_CAP: usize = 150_000;

impl SimCache {
    /// Empty caches.
    pub fn new() -> Self {
        Self::default()
    }

    /// Absorption corrections of belief `b` on the coarse grid of lead times `t` (hours) from the memoised
    /// lattice tables: resampled on the τ grid (`psi_grid`, the fast path) or by direct table lookups.
    fn lattice_deltas(
        &mut self,
        b: &Belief,
        kappa: f64,
        t: &[f64],
        cfg: &MomentConfig,
        psi_grid: bool,
    ) -> Vec<(f64, f64)> {
        if psi_grid {
            CurveBasis::coarse_deltas_lattice(b, kappa, t, cfg, &mut self.lattice, &mut self.nodes)
        } else {
            self.lattice.reset_handles();
            CurveBasis::coarse_deltas(b, kappa, t, cfg, &mut self.lattice, &mut self.nodes)
        }
    }
}

struct Cluster<'a> {
    p: &'a AdmitParams,
    policy: ArmRule,
    seed: u64,
    grid: &'a LeadGrid,
    cache: &'a mut SimCache,
    deps: Vec<Dep>,
    active: u64,
    /// Active cores of the deployments MARGINAL admitted.
    marginal_active: u64,
    last_change: f64,
    month: MonthStats,
    res: RunResult,
    next_arrival_idx: u64,
    arr_rng: Pcg64Mcg,
    // curves
    curves: Vec<(Vec<f64>, Vec<f64>)>,
    free_curves: Vec<usize>,
    sum_e: Vec<f64>,
    sum_v: Vec<f64>,
    live: Vec<u32>,
    arrivals_since_rebuild: u32,
    dirty: Vec<u32>,
    due_heap: BinaryHeap<Reverse<(u64, u32)>>,
    scratch: (Vec<f64>, Vec<f64>),
    /// Bases of the candidate being decided (buffers reused across arrivals).
    cand_bases: Vec<CurveBasis>,
    /// Bases of dead deployments, whose buffers are reused by later refreshes.
    basis_pool: Vec<Vec<CurveBasis>>,
}

/// Mean and variance of the ½/½ mixture of two distributions given by their (mean, variance) — the unlabelled
/// deployment of ALGORITHMS.md §2.11 — by the law of total variance:
/// `μ = ½(μ_A + μ_B)`, `v = ½(v_A + v_B) + ¼(μ_A − μ_B)²` (≥ ½(v_A + v_B), the labelled user's expected
/// variance: seed 000 Prop. 7.1).
#[inline]
pub fn mixture_moments(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let d = a.0 - b.0;
    (0.5 * (a.0 + b.0), 0.5 * (a.1 + b.1) + 0.25 * d * d)
}

/// Mean and variance curves of `bases` at core count `n` into `e`, `v` (the ½/½ mixture of §2.11 when there are
/// two bases); `scratch` holds the second basis's values.
fn eval_bases_into(
    bases: &[CurveBasis],
    n: u32,
    e: &mut [f64],
    v: &mut [f64],
    scratch: &mut (Vec<f64>, Vec<f64>),
) {
    bases[0].eval(n, e, v);
    if bases.len() == 2 {
        let k = e.len();
        scratch.0.resize(k, 0.0);
        scratch.1.resize(k, 0.0);
        let (e2, v2) = (&mut scratch.0[..k], &mut scratch.1[..k]);
        bases[1].eval(n, e2, v2);
        for i in 0..k {
            (e[i], v[i]) = mixture_moments((e[i], v[i]), (e2[i], v2[i]));
        }
    }
}

fn hyper(b: &Belief) -> [f64; 6] {
    [
        b.lambda.shape,
        b.lambda.rate,
        b.nu.shape,
        b.nu.rate,
        b.sigma.shape,
        b.sigma.rate,
    ]
}

fn add_stats(a: &SuffStats, b: &SuffStats) -> SuffStats {
    SuffStats {
        deaths: a.deaths + b.deaths,
        exposure: a.exposure + b.exposure,
        requests: a.requests + b.requests,
        request_exposure: a.request_exposure + b.request_exposure,
        sizes: a.sizes + b.sizes,
        extra_cores: a.extra_cores + b.extra_cores,
        age: a.age + b.age,
    }
}

impl<'a> Cluster<'a> {
    fn integrate(&mut self, now: f64) {
        self.month.core_hours += self.active as f64 * (now - self.last_change);
        if self.marginal_active > 0 {
            self.res.marginal.core_hours += self.marginal_active as f64 * (now - self.last_change);
        }
        self.last_change = now;
    }

    fn beliefs(&self, d: &Dep, now: f64, n: u32) -> [Belief; 2] {
        let mut own = d.stats;
        own.exposure += d.n as f64 * (now - d.last);
        own.request_exposure = now - d.born;
        own.age = now - d.born;
        let mk = |ps: &SuffStats| {
            let (l, v, s) = update(&self.p.priors, &add_stats(&own, ps), self.p.update);
            Belief {
                n0: n,
                lambda: l,
                nu: v,
                sigma: s,
            }
        };
        let b0 = mk(&d.pseudo[0]);
        let b1 = if d.n_types == 2 { mk(&d.pseudo[1]) } else { b0 };
        [b0, b1]
    }

    /// The curve bases of beliefs `bs[..n_types]` into `out` (its buffers are reused).
    fn bases_into(&mut self, bs: &[Belief; 2], n_types: usize, out: &mut Vec<CurveBasis>) {
        let kappa = self.p.priors.kappa;
        let t = &self.grid.curve_t;
        let cfg = &self.p.moments;
        out.truncate(n_types);
        out.resize_with(n_types, CurveBasis::default);
        if !self.cache.plan.is_for(t, cfg) {
            self.cache.plan = CurvePlan::new(t, cfg);
        }
        let q = self.p.delta_quantum;
        if self.p.lattice && q > 0.0 && cfg.mode == super::moments::MomentMode::Canonical {
            // signature of everything Δ depends on besides the belief; clear the memo when it changes
            let mut sig = vec![
                kappa.to_bits(),
                q.to_bits(),
                cfg.j_tau as u64,
                cfg.j_nu as u64,
                cfg.j_sigma as u64,
            ];
            sig.extend([
                cfg.n_interp as u64,
                cfg.alive as u64,
                t.len() as u64,
                t[0].to_bits(),
                t[t.len() - 1].to_bits(),
            ]);
            if self.cache.delta_sig != sig {
                self.cache.deltas.clear();
                self.cache.delta_sig = sig;
            }
        }
        for (b, cb) in bs.iter().take(n_types).zip(out.iter_mut()) {
            let memo = self.p.lattice
                && q > 0.0
                && cfg.mode == super::moments::MomentMode::Canonical
                && b.n0 > 0;
            if memo {
                let n = TableLattice::n0_rung(b.n0);
                let kl = (libm::log(b.lambda.rate) / q).round();
                let kn = (libm::log(b.nu.rate) / q).round();
                let key = [
                    n as u64,
                    b.lambda.shape.to_bits(),
                    b.nu.shape.to_bits(),
                    b.sigma.shape.to_bits(),
                    b.sigma.rate.to_bits(),
                    kl as i64 as u64,
                    kn as i64 as u64,
                ];
                let c = &mut *self.cache;
                match c.deltas.get(&key) {
                    Some(d) => {
                        c.delta_hits += 1;
                        cb.set_from_deltas(b, kappa, &c.plan, d);
                    }
                    None => {
                        c.delta_misses += 1;
                        let mut bq = *b;
                        bq.n0 = n;
                        bq.lambda.rate = libm::exp(kl * q);
                        bq.nu.rate = libm::exp(kn * q);
                        let d = c.lattice_deltas(&bq, kappa, t, cfg, self.p.psi_grid);
                        if c.deltas.len() >= DELTA_MEMO_CAP {
                            c.deltas.clear();
                        }
                        cb.set_from_deltas(b, kappa, &c.plan, &d);
                        c.deltas.insert(key, d);
                    }
                }
            } else if self.p.lattice
                && self.p.psi_grid
                && cfg.mode != super::moments::MomentMode::PaperFactorised
            {
                let c = &mut *self.cache;
                CurveBasis::coarse_deltas_lattice_into(
                    b,
                    kappa,
                    &c.plan,
                    cfg,
                    &mut c.lattice,
                    &mut c.nodes,
                    &mut c.dbuf,
                );
                cb.set_from_deltas(b, kappa, &c.plan, &c.dbuf);
            } else if self.p.lattice {
                self.cache.lattice.reset_handles();
                *cb = CurveBasis::new(
                    b,
                    kappa,
                    t,
                    cfg,
                    &mut self.cache.lattice,
                    &mut self.cache.nodes,
                );
            } else {
                let mut ex = ExactTables::default();
                *cb = CurveBasis::new(
                    b,
                    kappa,
                    t,
                    cfg,
                    &mut ex as &mut dyn PsiSource,
                    &mut self.cache.nodes,
                );
            }
        }
    }

    fn eval_bases(&self, bases: &[CurveBasis], n: u32) -> (Vec<f64>, Vec<f64>) {
        let k = self.grid.curve_t.len();
        let mut e = vec![0.0; k];
        let mut v = vec![0.0; k];
        let mut scratch = (Vec::new(), Vec::new());
        eval_bases_into(bases, n, &mut e, &mut v, &mut scratch);
        (e, v)
    }

    fn drop_curve(&mut self, di: usize) {
        if let Some(ci) = self.deps[di].curve.take() {
            let (e, v) = &self.curves[ci];
            for (s, x) in self.sum_e.iter_mut().zip(e) {
                *s -= x;
            }
            for (s, x) in self.sum_v.iter_mut().zip(v) {
                *s -= x;
            }
            self.free_curves.push(ci);
        }
    }

    /// Re-evaluate deployment `di`'s curve at core count `n` in place (no allocation once warm) and update the
    /// running sums: old values are subtracted, then new ones added (the order of the reference arithmetic).
    fn update_curve(&mut self, di: usize, n: u32) {
        let k = self.grid.curve_t.len();
        self.drop_curve(di);
        let ci = match self.free_curves.pop() {
            Some(ci) => ci,
            None => {
                self.curves.push((vec![0.0; k], vec![0.0; k]));
                self.curves.len() - 1
            }
        };
        let (mut e, mut v) = std::mem::take(&mut self.curves[ci]);
        eval_bases_into(&self.deps[di].basis, n, &mut e, &mut v, &mut self.scratch);
        for (s, x) in self.sum_e.iter_mut().zip(&e) {
            *s += x;
        }
        for (s, x) in self.sum_v.iter_mut().zip(&v) {
            *s += x;
        }
        self.curves[ci] = (e, v);
        self.deps[di].curve = Some(ci);
    }

    fn mark_dirty(&mut self, di: usize) {
        let d = &mut self.deps[di];
        if !d.dirty {
            d.dirty = true;
            self.dirty.push(di as u32);
        }
    }

    fn refresh_curves(&mut self, now: f64) {
        self.live.retain(|&i| self.deps[i as usize].alive);
        while let Some(Reverse((due_bits, i))) = self.due_heap.peek().copied() {
            if f64::from_bits(due_bits) > now {
                break;
            }
            self.due_heap.pop();
            let d = &mut self.deps[i as usize];
            if d.alive && d.due.to_bits() == due_bits {
                d.full = true;
                self.mark_dirty(i as usize);
            }
        }
        let dirty = std::mem::take(&mut self.dirty);
        let ntol = self.p.delta_n_tol;
        for &i in &dirty {
            let di = i as usize;
            self.deps[di].dirty = false;
            if !self.deps[di].alive {
                continue;
            }
            let n = self.deps[di].n;
            let full = {
                let d = &self.deps[di];
                d.full || d.basis.is_empty() || {
                    let nd = d.basis[0].n_delta as f64;
                    (n as f64 - nd).abs() >= (ntol * nd).max(1.0)
                }
            };
            if full {
                let (bs, nt, age) = {
                    let d = &self.deps[di];
                    (self.beliefs(d, now, n), d.n_types, now - d.born)
                };
                let mut bases = std::mem::take(&mut self.deps[di].basis);
                if bases.is_empty() {
                    bases = self.basis_pool.pop().unwrap_or_default();
                }
                self.bases_into(&bs, nt, &mut bases);
                let due = now + self.p.refresh_tol * age.max(1.0);
                let d = &mut self.deps[di];
                d.basis = bases;
                d.full = false;
                d.due = due;
                self.due_heap.push(Reverse((due.to_bits(), i)));
                self.res.curve_refreshes += 1;
            }
            self.update_curve(di, n);
        }
        let mut dirty = dirty;
        dirty.clear();
        if self.dirty.is_empty() {
            self.dirty = dirty;
        }
        self.arrivals_since_rebuild += 1;
        if self.arrivals_since_rebuild >= 1000 {
            // rebuild the sums from scratch to stop floating-point drift
            self.arrivals_since_rebuild = 0;
            self.sum_e.iter_mut().for_each(|x| *x = 0.0);
            self.sum_v.iter_mut().for_each(|x| *x = 0.0);
            for &i in &self.live {
                if let Some(ci) = self.deps[i as usize].curve {
                    let (e, v) = &self.curves[ci];
                    for k in 0..e.len() {
                        self.sum_e[k] += e[k];
                        self.sum_v[k] += v[k];
                    }
                }
            }
        }
    }

    fn schedule_next(&mut self, di: usize, des: &mut Des<Ev>) {
        let d = &mut self.deps[di];
        let rate = d.theta.lambda * d.n as f64 + d.theta.nu * d.theta.lambda;
        let dt = exp(&mut d.rng, rate);
        if dt.is_finite() {
            des.schedule_keyed(d.key_next, des.now() + dt, Ev::Next(di as u32));
        } else {
            des.cancel(d.key_next);
        }
    }

    fn bring_exposure(&mut self, di: usize, now: f64) {
        let d = &mut self.deps[di];
        d.stats.exposure += d.n as f64 * (now - d.last);
        d.last = now;
    }

    fn die(&mut self, di: usize, des: &mut Des<Ev>) {
        let (kn, kk) = {
            let d = &mut self.deps[di];
            d.alive = false;
            (d.key_next, d.key_kill)
        };
        des.release_key(kn);
        des.release_key(kk);
        self.drop_curve(di);
        let basis = std::mem::take(&mut self.deps[di].basis);
        if !basis.is_empty() {
            self.basis_pool.push(basis);
        }
    }

    fn on_arrival(&mut self, now: f64, des: &mut Des<Ev>) {
        let idx = self.next_arrival_idx;
        self.next_arrival_idx += 1;
        let dt = exp(&mut self.arr_rng, self.p.arrival_rate);
        des.schedule(now + dt, Ev::Arrival);
        self.res.arrivals += 1;
        let a = draw_arrival(self.p, self.seed, idx);
        // pseudo-observations
        let mut pr = stream(self.seed, comp::PSEUDO_OBS, idx);
        let (pseudo, n_types) = match self.p.labelling {
            Labelling::Off => (
                [
                    pseudo_observations(&mut pr, &a.theta, self.p.pseudo_obs),
                    SuffStats::default(),
                ],
                1,
            ),
            Labelling::Labelled | Labelling::Unlabelled => {
                let m = self.p.labelling_obs;
                let s0 = pseudo_observations(&mut pr, &a.types[0], m);
                let s1 = pseudo_observations(&mut pr, &a.types[1], m);
                if self.p.labelling == Labelling::Labelled {
                    (
                        [if a.which == 0 { s0 } else { s1 }, SuffStats::default()],
                        1,
                    )
                } else {
                    ([s0, s1], 2)
                }
            }
        };
        let needs = self.policy.needs_curves();
        let mut priced: Option<f64> = None;
        let mut by_marginal = false;
        let accept = if needs {
            self.refresh_curves(now);
            let mk = |ps: &SuffStats| {
                let (l, v, s) = update(&self.p.priors, ps, self.p.update);
                Belief {
                    n0: a.n0,
                    lambda: l,
                    nu: v,
                    sigma: s,
                }
            };
            let b0 = mk(&pseudo[0]);
            let b1 = if n_types == 2 { mk(&pseudo[1]) } else { b0 };
            let mut key = [0u64; 14];
            key[0] = a.n0 as u64;
            key[1] = n_types as u64;
            for (i, b) in [&b0, &b1].iter().take(n_types).enumerate() {
                for (k, x) in hyper(b).iter().enumerate() {
                    key[2 + 6 * i + k] = x.to_bits();
                }
            }
            let mut unmemoised = None;
            if !self.cache.cand.contains_key(&key) {
                let mut bases = std::mem::take(&mut self.cand_bases);
                self.bases_into(&[b0, b1], n_types, &mut bases);
                let c = self.eval_bases(&bases, a.n0);
                self.cand_bases = bases;
                if self.cache.cand.len() < 20_000 {
                    self.cache.cand.insert(key, c);
                } else {
                    unmemoised = Some(c);
                }
            }
            let (ce, cv) = match &unmemoised {
                Some(c) => c,
                None => &self.cache.cand[&key],
            };
            if let Some(pr) = &self.p.pricing {
                let v_hat = self.grid.curve_at_time(cv, pr.lead_hours);
                let rp = self.res.pricing.get_or_insert_with(RunPricing::default);
                rp.arrivals += 1;
                rp.arrival_cores += a.n0 as f64;
                rp.arrival_var += v_hat;
                priced = Some(v_hat);
            }
            let ctx = DecisionContext {
                active: self.active as f64,
                capacity: self.p.capacity,
                n0: a.n0,
                grid: self.grid,
                sum_mean: &self.sum_e,
                sum_var: &self.sum_v,
                cand_mean: ce,
                cand_var: cv,
                marginal_eps: self.p.marginal_eps,
            };
            let decision = self.policy.decide(&ctx);
            let ok = decision.accept;
            if decision.marginal_somewhere {
                self.res.marginal.candidates += 1;
            }
            if let Some(r) = decision.rejection {
                self.res.lead_time.add(&r);
                if self.policy.marginal() {
                    if ok {
                        self.res.marginal.accepts += 1;
                        by_marginal = true;
                    }
                    let c = self
                        .res
                        .marginal
                        .closest
                        .get_or_insert(r.max_candidate_mean);
                    *c = c.min(r.max_candidate_mean);
                }
            }
            ok
        } else {
            let ctx = DecisionContext {
                active: self.active as f64,
                capacity: self.p.capacity,
                n0: a.n0,
                grid: self.grid,
                sum_mean: &[],
                sum_var: &[],
                cand_mean: &[],
                cand_var: &[],
                marginal_eps: self.p.marginal_eps,
            };
            self.policy.accept(&ctx)
        };
        if !(accept && (self.active + a.n0 as u64) as f64 <= self.p.capacity) {
            if by_marginal {
                self.res.marginal.accepts -= 1; // the heuristic passed it, the capacity did not
            }
            return;
        }
        self.res.accepted += 1;
        if let (Some(v_hat), Some(rp)) = (priced, self.res.pricing.as_mut()) {
            rp.admitted += 1;
            rp.admitted_cores += a.n0 as f64;
            rp.admitted_var += v_hat;
        }
        self.integrate(now);
        self.active += a.n0 as u64;
        if by_marginal {
            self.marginal_active += a.n0 as u64;
        }
        let di = self.deps.len();
        let key_next = des.new_key();
        let key_kill = des.new_key();
        self.deps.push(Dep {
            n: a.n0,
            theta: a.theta,
            born: now,
            last: now,
            stats: SuffStats::default(),
            pseudo,
            n_types,
            rng: stream(self.seed, comp::DEPLOYMENT, idx),
            key_next,
            key_kill,
            alive: true,
            basis: Vec::new(),
            curve: None,
            due: now,
            dirty: false,
            full: true,
            by_marginal,
        });
        if self.policy.needs_curves() {
            self.deps[di].dirty = true;
            self.dirty.push(di as u32);
        }
        self.live.push(di as u32);
        des.schedule_keyed(key_kill, now + a.max_life, Ev::Kill(di as u32));
        self.schedule_next(di, des);
    }

    fn on_next(&mut self, di: usize, now: f64, des: &mut Des<Ev>) {
        if !self.deps[di].alive {
            return;
        }
        self.bring_exposure(di, now);
        let (lam_n, r) = {
            let d = &self.deps[di];
            (d.theta.lambda * d.n as f64, d.theta.nu * d.theta.lambda)
        };
        let u = self.deps[di].rng.random::<f64>() * (lam_n + r);
        if u < lam_n {
            // core death
            self.integrate(now);
            self.active -= 1;
            self.marginal_active -= self.deps[di].by_marginal as u64;
            let d = &mut self.deps[di];
            d.n -= 1;
            d.stats.deaths += 1.0;
            if d.n == 0 {
                self.die(di, des);
                return;
            }
            if self.policy.needs_curves() {
                self.mark_dirty(di);
            }
        } else {
            // scale-out request
            let k = {
                let d = &mut self.deps[di];
                let k = 1 + poisson(&mut d.rng, d.theta.sigma) as u32;
                d.stats.requests += 1.0;
                d.stats.sizes += 1.0;
                d.stats.extra_cores += (k - 1) as f64;
                k
            };
            self.res.requests += 1;
            self.month.requests += 1;
            if (self.active + k as u64) as f64 <= self.p.capacity {
                self.integrate(now);
                self.active += k as u64;
                if self.deps[di].by_marginal {
                    self.marginal_active += k as u64;
                }
                self.deps[di].n += k;
                if self.policy.needs_curves() {
                    self.mark_dirty(di);
                }
            } else {
                self.res.failures += 1;
                self.month.failures += 1;
            }
        }
        self.schedule_next(di, des);
    }

    fn on_kill(&mut self, di: usize, now: f64, des: &mut Des<Ev>) {
        if !self.deps[di].alive {
            return;
        }
        self.integrate(now);
        self.active -= self.deps[di].n as u64;
        if self.deps[di].by_marginal {
            self.marginal_active -= self.deps[di].n as u64;
        }
        self.deps[di].n = 0;
        self.die(di, des);
    }

    fn close_month(&mut self, now: f64) {
        self.integrate(now);
        let m = std::mem::take(&mut self.month);
        self.res.months.push(m);
    }
}

impl<'a> World<Ev> for Cluster<'a> {
    fn handle(&mut self, now: f64, ev: Ev, des: &mut Des<Ev>) {
        match ev {
            Ev::Arrival => self.on_arrival(now, des),
            Ev::Next(i) => self.on_next(i as usize, now, des),
            Ev::Kill(i) => self.on_kill(i as usize, now, des),
            Ev::Month => {
                self.close_month(now);
                des.schedule(now + self.p.month_hours, Ev::Month);
            }
            Ev::Sample => {
                self.res.series.push(SeriesPoint {
                    t: now,
                    active: self.active as f64,
                    failures: self.res.failures,
                    accepted: self.res.accepted,
                    rejected: self.res.arrivals - self.res.accepted,
                });
                des.schedule(now + self.p.series_every_hours, Ev::Sample);
            }
        }
    }
}

/// Build the look-ahead grid of `p`.
pub fn lead_grid(p: &AdmitParams) -> LeadGrid {
    LeadGrid::new(&p.subhorizons, p.steps, p.curve_points)
}

/// Simulate one run of `p.horizon_hours` with policy `spec` and run seed `seed` (ALGORITHMS.md §2.1).
/// Deterministic: the same inputs give bit-identical results. `grid` must come from [`lead_grid`] of `p`.
pub fn simulate_run(
    p: &AdmitParams,
    spec: PolicySpec,
    seed: u64,
    grid: &LeadGrid,
    cache: &mut SimCache,
) -> RunResult {
    let mut des: Des<Ev> = Des::new();
    let mut arr_rng = stream(seed, comp::ARRIVAL_TIMES, 0);
    let first = exp(&mut arr_rng, p.arrival_rate);
    des.schedule(first, Ev::Arrival);
    des.schedule(p.month_hours, Ev::Month);
    if p.series_every_hours > 0.0 {
        des.schedule(0.0, Ev::Sample);
    }
    let k = grid.curve_t.len();
    let needs = spec.kind.needs_curves();
    let policy = if spec.kind == PolicyKind::Script {
        let Some(s) = &p.script else {
            return RunResult {
                script_error: Some("a script arm without its script".into()),
                ..RunResult::default()
            };
        };
        ArmRule::Script(ScriptAdmit::with_budget(
            s.script.clone(),
            spec.threshold,
            script_budget(p),
        ))
    } else {
        ArmRule::Builtin(MomentPolicy {
            spec,
            second: p.second_param,
        })
    };
    let mut w = Cluster {
        p,
        policy,
        seed,
        grid,
        cache,
        deps: Vec::new(),
        active: 0,
        marginal_active: 0,
        last_change: 0.0,
        month: MonthStats::default(),
        res: RunResult::default(),
        next_arrival_idx: 0,
        arr_rng,
        curves: Vec::new(),
        free_curves: Vec::new(),
        sum_e: vec![0.0; if needs { k } else { 0 }],
        sum_v: vec![0.0; if needs { k } else { 0 }],
        live: Vec::new(),
        arrivals_since_rebuild: 0,
        dirty: Vec::new(),
        due_heap: BinaryHeap::new(),
        scratch: (Vec::new(), Vec::new()),
        cand_bases: Vec::new(),
        basis_pool: Vec::new(),
    };
    des.run_until(p.horizon_hours, &mut w);
    let t_end = p.horizon_hours;
    w.integrate(t_end);
    // last (partial) month
    let m = std::mem::take(&mut w.month);
    if m.core_hours > 0.0
        || m.requests > 0
        || w.res.months.len() < (t_end / p.month_hours).ceil() as usize
    {
        w.res.months.push(m);
    }
    let total: f64 = w.res.months.iter().map(|m| m.core_hours).sum();
    w.res.utilization = total / (p.capacity * t_end);
    w.res.events = des.fired();
    w.res.script_error = w.policy.take_error().map(|e| e.to_string());
    w.res
}

/// A script arm's operation budget for one run: [`crate::script::RUN_OPERATIONS`], or the per-call limit
/// ([`crate::models::admission::policies::script::call_operations`] of the look-ahead's lead times) times
/// the run's expected arrivals `ρ_arr·T_run` when that is larger.
pub fn script_budget(p: &AdmitParams) -> u64 {
    let lead_times = p.subhorizons.len() * p.steps;
    let per_call = crate::models::admission::policies::script::call_operations(lead_times) as f64;
    let arrivals = (p.arrival_rate * p.horizon_hours).ceil().max(1.0);
    (per_call * arrivals).max(crate::script::RUN_OPERATIONS as f64) as u64
}

/// Worker threads [`simulate_runs`] uses: the `PACKLAB_THREADS` environment variable if set (≥ 1), else
/// `std::thread::available_parallelism()`; always 1 in wasm (no threads there).
pub fn run_threads() -> usize {
    crate::experiment::threads()
}

/// Simulate the runs `seeds` with policy `spec` and return their results in the order of `seeds`, or `None`
/// if `progress(done)` returned false (checked after each finished run; runs already started finish first).
/// Natively the runs are spread over [`run_threads`] threads, each with its own table cache (`cache` for
/// the first, the others kept inside `cache` for later calls); in wasm they run one after another. A run's
/// result depends only on (`p`, `spec`, its seed): the caches hold exact memoised values, so the output is
/// bit-identical whatever the number of threads.
pub fn simulate_runs(
    p: &AdmitParams,
    spec: PolicySpec,
    seeds: &[u64],
    grid: &LeadGrid,
    cache: &mut SimCache,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Option<Vec<RunResult>> {
    simulate_runs_on(run_threads(), p, spec, seeds, grid, cache, progress)
}

/// [`simulate_runs`] on exactly `threads` threads (capped at the number of runs; 1 in wasm).
pub fn simulate_runs_on(
    threads: usize,
    p: &AdmitParams,
    spec: PolicySpec,
    seeds: &[u64],
    grid: &LeadGrid,
    cache: &mut SimCache,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Option<Vec<RunResult>> {
    #[cfg(target_arch = "wasm32")]
    let threads = {
        let _ = threads;
        1
    };
    let threads = threads.min(seeds.len()).max(1);
    if threads == 1 {
        let mut out = Vec::with_capacity(seeds.len());
        for &s in seeds {
            out.push(simulate_run(p, spec, s, grid, cache));
            if !progress(out.len()) {
                return None;
            }
        }
        return Some(out);
    }
    #[cfg(target_arch = "wasm32")]
    {
        unreachable!("one thread in wasm")
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::mpsc;
        let mut workers = std::mem::take(&mut cache.workers);
        while workers.len() < threads - 1 {
            workers.push(SimCache::new());
        }
        let stop = AtomicBool::new(false);
        let mut out: Vec<Option<RunResult>> = vec![None; seeds.len()];
        let mut cancelled = false;
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<(usize, RunResult)>();
            // run i always goes to cache i mod threads: with common random numbers a run meets the same
            // deployments at every threshold, so its memoised curves stay warm in that cache (taking runs as
            // threads come free scattered them, and 2 threads were slower than 1 on the default E0.1)
            let caches = std::iter::once(&mut *cache).chain(workers.iter_mut().take(threads - 1));
            for (t, c) in caches.enumerate() {
                let tx = tx.clone();
                let stop = &stop;
                scope.spawn(move || {
                    for i in (t..seeds.len()).step_by(threads) {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let r = simulate_run(p, spec, seeds[i], grid, c);
                        if tx.send((i, r)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut done = 0;
            for (i, r) in rx {
                out[i] = Some(r);
                done += 1;
                if !cancelled && !progress(done) {
                    cancelled = true;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        });
        cache.workers = workers;
        if cancelled {
            return None;
        }
        Some(
            out.into_iter()
                .map(|r| r.expect("every run finished"))
                .collect(),
        )
    }
}

/// Simulate `n_paths` isolated deployments with known parameters (no cluster, no capacity) and return, at each
/// lead time in `times` (hours), the sample mean, variance and their standard errors of X_t. Used to check the
/// formulas of §2.4 and to estimate oracle variance standard errors. Stream: (seed, DEPLOYMENT, path).
pub fn simulate_deployment_moments(
    n0: u32,
    theta: DeploymentType,
    kappa: f64,
    times: &[f64],
    n_paths: usize,
    seed: u64,
) -> Vec<(f64, f64, f64, f64)> {
    let nt = times.len();
    let mut s1 = vec![0.0; nt];
    let mut s2 = vec![0.0; nt];
    let mut xs: Vec<Vec<f64>> = vec![Vec::with_capacity(n_paths); nt];
    let mut order: Vec<usize> = (0..nt).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    for path in 0..n_paths {
        let mut r = stream(seed, comp::DEPLOYMENT, path as u64);
        let kill = exp(&mut r, theta.lambda / kappa);
        let mut n = n0;
        let mut t = 0.0;
        let mut ti = 0usize;
        loop {
            let rate = theta.lambda * n as f64 + theta.nu * theta.lambda;
            let dt = exp(&mut r, rate);
            let tn = if n == 0 || t + dt >= kill {
                f64::INFINITY
            } else {
                t + dt
            };
            while ti < nt && times[order[ti]] < tn {
                let tt = times[order[ti]];
                xs[order[ti]].push(if tt >= kill { 0.0 } else { n as f64 });
                ti += 1;
            }
            if ti >= nt {
                break;
            }
            t = tn;
            if r.random::<f64>() * rate < theta.lambda * n as f64 {
                n -= 1;
            } else {
                n += 1 + poisson(&mut r, theta.sigma) as u32;
            }
        }
    }
    let nf = n_paths as f64;
    (0..nt)
        .map(|i| {
            for &x in &xs[i] {
                s1[i] += x;
            }
            let m = s1[i] / nf;
            for &x in &xs[i] {
                s2[i] += (x - m) * (x - m);
            }
            let v = s2[i] / (nf - 1.0);
            let m4: f64 = xs[i].iter().map(|x| (x - m).powi(4)).sum::<f64>() / nf;
            let se_m = (v / nf).sqrt();
            let se_v = ((m4 - v * v).max(0.0) / nf).sqrt();
            (m, v, se_m, se_v)
        })
        .collect()
}

/// Smallest candidate mean `min_k μ_c(t_k)` (cores) over the look-ahead of [`lead_grid`] for arrivals
/// `0..n` of run `seed`, each with `m` pseudo-observations of its own type (ALGORITHMS.md §2.11, labelling
/// off) and the posterior of [`update`]; curves from [`super::moments::posterior_moments`] (exact tables, the
/// parameters' moment settings). A candidate is marginal somewhere (seed 000 Def. 6.1) exactly when this is
/// below ε_m; the calibration of ε_m (issue 32, seed 000 App. E: "with the global prior alone no deployment
/// is marginal", with one observation "relatively few") reads these. Length `n`, in arrival order.
pub fn candidate_min_means(p: &AdmitParams, m: u32, n: usize, seed: u64) -> Vec<f64> {
    let grid = lead_grid(p);
    let mut memo: FxHashMap<[u64; 7], f64> = FxHashMap::default();
    (0..n as u64)
        .map(|idx| {
            let a = draw_arrival(p, seed, idx);
            let mut pr = stream(seed, comp::PSEUDO_OBS, idx);
            let s = pseudo_observations(&mut pr, &a.theta, m);
            let (l, v, sg) = update(&p.priors, &s, p.update);
            let b = Belief {
                n0: a.n0,
                lambda: l,
                nu: v,
                sigma: sg,
            };
            let mut key = [a.n0 as u64, 0, 0, 0, 0, 0, 0];
            for (k, x) in hyper(&b).iter().enumerate() {
                key[1 + k] = x.to_bits();
            }
            *memo.entry(key).or_insert_with(|| {
                let mc = super::moments::posterior_moments(
                    &b,
                    p.priors.kappa,
                    &grid.curve_t,
                    &p.moments,
                );
                let mean: Vec<f64> = mc.iter().map(|x| x.mean).collect();
                (0..grid.policy_t.len())
                    .map(|k| grid.at(&mean, k))
                    .fold(f64::INFINITY, f64::min)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission::params::PolicyKind;

    /// A FIRST test that fails everywhere (θ = 0: `E < 0` never holds, with or without the candidate) with
    /// MARGINAL at ε_m = 1e12 (every candidate marginal at every lead time) admits every arrival that fits by
    /// MARGINAL alone: known values for the lead-time diagnostic (every arrival rejected by the test, first at
    /// the smallest lead time 24/600 h, i.e. < 1 h, all failing without the candidate) and for the heuristic's
    /// counts (its admissions are all admissions, its core-hours all of `∫N dt = utilization·C·T`). Without
    /// MARGINAL nothing is admitted.
    #[test]
    fn lead_time_and_marginal_core_hours_on_a_test_that_always_fails() {
        let p = AdmitParams {
            capacity: 60.0,
            horizon_hours: 300.0,
            arrival_rate: 0.2,
            marginal_eps: 1e12,
            pseudo_obs: 1,
            ..AdmitParams::default()
        };
        let grid = lead_grid(&p);
        let mut cache = SimCache::new();
        let spec = |marginal| PolicySpec {
            kind: PolicyKind::First,
            threshold: 0.0,
            marginal,
        };
        let r = simulate_run(&p, spec(true), 7, &grid, &mut cache);
        assert!(r.arrivals > 20 && r.accepted > 5, "{r:?}");
        let lt = r.lead_time;
        assert_eq!(lt.rejections, r.arrivals);
        assert_eq!(lt.first_failure, [r.arrivals, 0, 0, 0, 0]);
        assert_eq!(lt.without_candidate, r.arrivals);
        assert_eq!(r.marginal.accepts, r.accepted);
        assert_eq!(r.marginal.candidates, r.arrivals);
        let total = r.utilization * p.capacity * p.horizon_hours;
        assert!(
            (r.marginal.core_hours - total).abs() <= 1e-9 * total,
            "{} vs {total}",
            r.marginal.core_hours
        );
        let off = simulate_run(&p, spec(false), 7, &grid, &mut cache);
        assert_eq!(
            (off.accepted, off.utilization, off.marginal),
            (0, 0.0, MarginalCounts::default())
        );
        assert_eq!(off.lead_time.rejections, off.arrivals);
    }
}
