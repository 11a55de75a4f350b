//! Threshold tuning to the SLA by binary search with common random numbers, BCa bootstrap CIs, and the
//! named experiments E0.1–E0.4 (ALGORITHMS.md §2.8, §2.10, §2.12; seed 000 §5.2).

#[cfg(test)]
use super::component as comp;
use super::importance::{self, kish_ess, weighted_utilization, ImportancePlan};
use super::params::{AdmitParams, Labelling, PolicyKind, PolicySpec};
use super::sim::{lead_grid, simulate_runs, RunResult, SimCache};
use crate::substrate::rng::mix64;
#[cfg(test)]
use crate::substrate::rng::stream;
pub use crate::substrate::stats::{bca_mean_ci, bca_weighted_mean_ci, poisson_upper};
#[cfg(test)]
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Progress/cancel hook: called with (runs done, runs planned); return false to cancel.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// Seed of run `r` of an experiment with master seed `seed` (identical across policies and thresholds: CRN).
pub fn run_seed(seed: u64, r: usize) -> u64 {
    mix64(seed ^ mix64(r as u64 + 1))
}

/// Aggregate of R runs at one threshold (ALGORITHMS.md §2.8, §2.10). Runs carry weights: all 1 for plain
/// sampling, `P_b / A_1(b)` with importance sampling (§2.9); every mean and rate below is weighted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Threshold evaluated.
    pub threshold: f64,
    /// Weighted mean utilization over runs `Σ w·util / Σ w`.
    pub utilization: f64,
    /// Pooled scale-out failure rate `Σ w·fail / Σ w·req`.
    pub failure_rate: f64,
    /// Upper 95% bound of the failure rate used by the feasibility test of the tuning: the larger of
    /// `failure_rate_upper_delta` and `failure_rate_upper_exact` (see [`summarise_weighted`]).
    pub failure_rate_upper: f64,
    /// Upper end of the two-sided 95% delta-method CI over runs, `f + 1.96·se`.
    #[serde(default)]
    pub failure_rate_upper_delta: f64,
    /// One-sided 95% exact Poisson upper bound on the pooled failure count over the effective request count.
    #[serde(default)]
    pub failure_rate_upper_exact: f64,
    /// Kish effective number of runs `(Σw)²/Σw²` (R without importance sampling).
    #[serde(default)]
    pub effective_runs: f64,
    /// Weighted mean over runs and months of the monthly failure rates.
    pub monthly_failure_rate: f64,
    /// Weighted fraction of runs with at least one failure.
    pub runs_with_failure: f64,
    /// Per-run utilizations (for bootstrap CIs).
    pub run_utilization: Vec<f64>,
    /// Per-run weights (all 1 without importance sampling).
    #[serde(default)]
    pub run_weights: Vec<f64>,
}

/// Evaluate `spec` on the runs `seeds` with weights `weights` (one per seed; all 1 without importance
/// sampling); `None` if cancelled.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    p: &AdmitParams,
    spec: PolicySpec,
    seeds: &[u64],
    weights: &[f64],
    cache: &mut SimCache,
    done: &mut usize,
    total: usize,
    progress: Progress,
) -> Option<Evaluation> {
    let grid = lead_grid(p);
    // natively the runs go to several threads (bit-identical to one after another; see simulate_runs)
    let base = *done;
    let runs = simulate_runs(p, spec, seeds, &grid, cache, &mut |k| {
        progress(base + k, total)
    })?;
    *done = base + runs.len();
    Some(summarise_weighted(spec.threshold, &runs, weights))
}

/// Summarise unweighted runs (all weights 1): [`summarise_weighted`].
pub fn summarise(threshold: f64, runs: &[RunResult]) -> Evaluation {
    summarise_weighted(threshold, runs, &vec![1.0; runs.len()])
}

/// Level of the one-sided exact Poisson bound in the feasibility test.
pub const EXACT_BOUND_LEVEL: f64 = 0.95;

/// Summarise weighted runs (ALGORITHMS.md §2.8 steps 5–6, §2.9 step 6, §2.10); `weights[r]` belongs to
/// `runs[r]`. With all weights 1 every field except the upper bounds is bit-identical to the unweighted
/// summary of earlier versions (tested).
///
/// Feasibility bound `failure_rate_upper = max(delta, exact)`:
/// * `delta`: `f + 1.96·se` with the ratio-estimator (delta-method) standard error over runs,
///   `se = sqrt(R/(R−1) · Σ_r w_r²(fail_r − f·req_r)²) / Σ_r w_r·req_r` (0 for one run). It accounts for
///   failures clustering within runs, but needs many failing runs: with 0 failures, or 1 run, it is `f`.
/// * `exact`: the one-sided 95% exact Poisson bound [`poisson_upper`] on the pooled failure count over the
///   effective request count: `Q_eff = (Σ w·req / Σ w) · n_eff` with the Kish `n_eff = (Σw)²/Σw²` (= total
///   requests without weights), `F_eff = f · Q_eff`, bound `poisson_upper(F_eff)/Q_eff`. With 0 failures in
///   Q requests it is 2.9957/Q, so "no failure seen" is feasible only if enough requests were seen. It treats
///   requests as independent, which failures are not (they cluster in congested months); the delta term
///   covers that once several runs fail. Without any request both are 0.
pub fn summarise_weighted(threshold: f64, runs: &[RunResult], weights: &[f64]) -> Evaluation {
    assert_eq!(runs.len(), weights.len(), "one weight per run");
    let w = weights;
    let r = runs.len().max(1) as f64;
    let req: f64 = runs.iter().zip(w).map(|(x, w)| w * x.requests as f64).sum();
    let fail: f64 = runs.iter().zip(w).map(|(x, w)| w * x.failures as f64).sum();
    let f = if req > 0.0 { fail / req } else { 0.0 };
    let mean_req = req / r;
    let var = if runs.len() > 1 {
        runs.iter()
            .zip(w)
            .map(|(x, w)| (w * (x.failures as f64 - f * x.requests as f64)).powi(2))
            .sum::<f64>()
            / (r - 1.0)
    } else {
        0.0
    };
    let se = if mean_req > 0.0 {
        (var / r).sqrt() / mean_req
    } else {
        0.0
    };
    let sw: f64 = w.iter().sum();
    let n_eff = kish_ess(w);
    let q_eff = if sw > 0.0 { req / sw * n_eff } else { 0.0 };
    let upper_exact = if q_eff > 0.0 {
        poisson_upper(f * q_eff, EXACT_BOUND_LEVEL) / q_eff
    } else {
        0.0
    };
    let upper_delta = f + 1.96 * se;
    let mut months = 0.0;
    let mut msum = 0.0;
    for (x, wr) in runs.iter().zip(w) {
        for m in &x.months {
            if m.requests > 0 {
                msum += wr * (m.failures as f64 / m.requests as f64);
            }
            months += wr;
        }
    }
    let with_failure: f64 = runs
        .iter()
        .zip(w)
        .filter(|(x, _)| x.failures > 0)
        .fold(0.0, |a, (_, w)| a + w); // +0.0 when no run failed, as the old count did
    Evaluation {
        threshold,
        utilization: weighted_utilization(runs, w),
        failure_rate: f,
        failure_rate_upper: upper_delta.max(upper_exact),
        failure_rate_upper_delta: upper_delta,
        failure_rate_upper_exact: upper_exact,
        effective_runs: n_eff,
        monthly_failure_rate: if months > 0.0 { msum / months } else { 0.0 },
        runs_with_failure: if sw > 0.0 { with_failure / sw } else { 0.0 },
        run_utilization: runs.iter().map(|x| x.utilization).collect(),
        run_weights: w.to_vec(),
    }
}

/// The runs every threshold of a tuning is evaluated on (common random numbers): their seeds and weights,
/// and the importance-sampling plan they came from, if any.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// Run seeds (for `simulate_run`).
    pub seeds: Vec<u64>,
    /// Run weights (all 1 without importance sampling).
    pub weights: Vec<f64>,
    /// The importance-sampling plan (§2.9) when `params.importance.enabled`.
    pub importance: Option<ImportancePlan>,
}

impl RunPlan {
    /// Plain sampling: seeds [`run_seed`]`(seed, 0..runs)`, weights 1.
    pub fn plain(runs: usize, seed: u64) -> RunPlan {
        RunPlan {
            seeds: (0..runs).map(|r| run_seed(seed, r)).collect(),
            weights: vec![1.0; runs],
            importance: None,
        }
    }

    /// The plan of `p`: [`RunPlan::plain`] when importance sampling is off, else the seeds and weights of
    /// [`importance::build_plan`] (on [`importance::plan_params`]`(p)`, so every arm of a preset gets the same
    /// plan). `progress` sees (pilot runs done, [`RunPlan::setup_runs`]); false cancels ("cancelled").
    pub fn build(
        p: &AdmitParams,
        runs: usize,
        seed: u64,
        cache: &mut SimCache,
        progress: Progress,
    ) -> Result<RunPlan, String> {
        if !p.importance.enabled {
            return Ok(RunPlan::plain(runs, seed));
        }
        let plan = importance::build_plan(p, runs, seed, cache, progress)?;
        Ok(RunPlan {
            seeds: plan.seeds.clone(),
            weights: plan.weights.clone(),
            importance: Some(plan),
        })
    }

    /// Simulation runs [`RunPlan::build`] plans for its setup (the importance pilots; 0 when off).
    pub fn setup_runs(p: &AdmitParams) -> usize {
        importance::planned_pilot_runs(p)
    }
}

/// Result of tuning one policy (one row of seed 000 Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneResult {
    /// Display name, e.g. "SECOND+MARGINAL".
    pub policy: String,
    /// Policy kind.
    pub kind: PolicyKind,
    /// MARGINAL heuristic on.
    pub marginal: bool,
    /// Tuned threshold (cores for ZEROTH/FIRST, Cantelli ratio for SECOND).
    pub threshold: f64,
    /// Evaluation at the tuned threshold.
    pub tuned: Evaluation,
    /// 95% BCa CI of the utilization.
    pub utilization_ci: (f64, f64),
    /// All thresholds evaluated during the search (the frontier: utilization vs failure rate).
    pub sweep: Vec<Evaluation>,
}

/// Tune the threshold of `kind` to the SLA `p.sla` by binary search over R = `runs` common-random-number runs
/// (ALGORITHMS.md §2.8): plain run seeds with weight 1, or, with `p.importance.enabled`, the importance-sampled
/// seeds and weights of §2.9 (set up once, reused for every threshold). A threshold is feasible when the upper
/// 95% bound `failure_rate_upper` of [`summarise_weighted`] is ≤ SLA. ACCEPT_IF_FITS has no threshold and is
/// evaluated once. The progress hook sees (runs done, runs planned), pilot runs included. Errors: invalid
/// parameters, `runs == 0`, or "cancelled" if the progress hook returned false.
pub fn tune(
    p: &AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    runs: usize,
    seed: u64,
    cache: &mut SimCache,
    progress: Progress,
) -> Result<TuneResult, String> {
    p.validate()?;
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    let setup = RunPlan::setup_runs(p);
    let total = setup + tuning_runs(p, kind, runs);
    let plan = RunPlan::build(p, runs, seed, cache, &mut |d, _| progress(d, total))?;
    tune_with_plan(p, kind, marginal, &plan, seed, cache, &mut |d, _| {
        progress(setup + d, total)
    })
}

/// Simulation runs of one tuning without its setup: R·(iterations + 1), or R for ACCEPT_IF_FITS.
fn tuning_runs(p: &AdmitParams, kind: PolicyKind, runs: usize) -> usize {
    runs * if kind == PolicyKind::AcceptIfFits {
        1
    } else {
        p.tune_iterations + 1
    }
}

/// [`tune`] on given runs (`plan`, e.g. shared by the arms of a preset); `seed` seeds the bootstrap. The
/// utilization CI is the BCa CI of the weighted mean ([`bca_weighted_mean_ci`]). A one-arm admission
/// experiment driven to the end ([`crate::experiment::drive`]), the runs of each threshold on all cores.
pub fn tune_with_plan(
    p: &AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    plan: &RunPlan,
    seed: u64,
    cache: &mut SimCache,
    progress: Progress,
) -> Result<TuneResult, String> {
    p.validate()?;
    let runs = plan.seeds.len();
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    if plan.weights.len() != runs {
        return Err("run plan: one weight per seed needed".into());
    }
    let mut exp =
        super::experiment::AdmissionExperiment::for_arm(p, kind, marginal, plan.clone(), seed);
    exp.swap_cache(cache);
    let r = crate::experiment::drive(&mut exp, progress);
    exp.swap_cache(cache);
    r.map_err(|e| e.message)?;
    Ok(exp
        .tuner(0)
        .and_then(|t| t.result())
        .cloned()
        .expect("a finished arm has a result"))
}

/// What one [`ArmTuner::step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TunerStep {
    /// Simulation runs done (or skipped because the tuned threshold was already evaluated) in this step.
    pub runs: usize,
    /// A threshold whose runs all completed in this step.
    pub evaluated: Option<Evaluation>,
    /// Whether the arm is now tuned.
    pub finished: bool,
}

/// The binary search of one policy's threshold to the SLA (ALGORITHMS.md §2.8), advanced a few simulation
/// runs at a time: the only implementation of the search ([`tune_with_plan`], [`run_preset`] and the
/// admission experiment all drive it). Each of `p.tune_iterations` iterations evaluates the midpoint (in
/// log10 space for SECOND's Cantelli ratio) on every run of the plan and keeps the half whose feasibility
/// (`failure_rate_upper ≤ SLA`) says so; the tuned threshold is the last feasible lower end, evaluated once
/// more unless it already was. ACCEPT_IF_FITS has no threshold and is evaluated once.
#[derive(Clone, Debug)]
pub struct ArmTuner {
    params: AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    grid: crate::admission::policy::LeadGrid,
    iters: usize,
    iter: usize,
    lo: f64,
    hi: f64,
    log_space: bool,
    best: Option<Evaluation>,
    sweep: Vec<Evaluation>,
    /// The threshold being evaluated and the runs done at it.
    current: Option<(f64, Vec<RunResult>)>,
    done: usize,
    result: Option<TuneResult>,
}

impl ArmTuner {
    /// A search for `kind` (+ MARGINAL) under `p` (validated by the caller).
    pub fn new(p: AdmitParams, kind: PolicyKind, marginal: bool) -> ArmTuner {
        let (mut lo, mut hi) = p.threshold_bounds(kind);
        let log_space = kind == PolicyKind::Second
            && matches!(p.second_param, super::params::SecondParam::Ratio);
        if log_space {
            lo = libm::log10(lo);
            hi = libm::log10(hi);
        }
        let iters = if kind == PolicyKind::AcceptIfFits {
            0
        } else {
            p.tune_iterations
        };
        ArmTuner {
            grid: lead_grid(&p),
            params: p,
            kind,
            marginal,
            iters,
            iter: 0,
            lo,
            hi,
            log_space,
            best: None,
            sweep: Vec::new(),
            current: None,
            done: 0,
            result: None,
        }
    }

    /// The arm's parameters.
    pub fn params(&self) -> &AdmitParams {
        &self.params
    }

    /// Simulation runs this search plans on `runs` runs per threshold: R·(iterations + 1), or R for
    /// ACCEPT_IF_FITS.
    pub fn planned_runs(&self, runs: usize) -> usize {
        tuning_runs(&self.params, self.kind, runs)
    }

    /// Runs done (or skipped) so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The result once tuned.
    pub fn result(&self) -> Option<&TuneResult> {
        self.result.as_ref()
    }

    fn to_th(&self, x: f64) -> f64 {
        if self.log_space {
            libm::pow(10.0, x)
        } else {
            x
        }
    }

    /// Simulates up to `units` (≥ 1) of the remaining runs of the current threshold on `plan` (natively on
    /// up to [`crate::experiment::threads`] threads; a run's result depends only on its seed, so the outcome
    /// is the same for any `units`), or finalises the arm when its tuned threshold was already evaluated.
    /// `seed` seeds the bootstrap CI. Does nothing once finished.
    pub fn step(
        &mut self,
        plan: &RunPlan,
        seed: u64,
        units: usize,
        cache: &mut SimCache,
    ) -> TunerStep {
        let mut out = TunerStep::default();
        if self.result.is_some() {
            out.finished = true;
            return out;
        }
        let runs = plan.seeds.len();
        let mut finished_eval: Option<Evaluation> = None;
        if self.current.is_none() {
            if self.iter < self.iters {
                let th = self.to_th(0.5 * (self.lo + self.hi));
                self.current = Some((th, Vec::with_capacity(runs)));
            } else {
                let th = self.to_th(self.lo);
                match &self.best {
                    Some(b) if b.threshold == th => {
                        self.done += runs;
                        out.runs = runs;
                        finished_eval = Some(b.clone());
                    }
                    _ => self.current = Some((th, Vec::with_capacity(runs))),
                }
            }
        }
        if finished_eval.is_none() {
            let (th, done_runs) = self
                .current
                .as_mut()
                .expect("a threshold is being evaluated");
            let spec = PolicySpec {
                kind: self.kind,
                threshold: *th,
                marginal: self.marginal,
            };
            let from = done_runs.len();
            let to = (from + units.max(1)).min(runs);
            let threads = crate::experiment::threads();
            let batch = super::sim::simulate_runs_on(
                threads,
                &self.params,
                spec,
                &plan.seeds[from..to],
                &self.grid,
                cache,
                &mut |_| true,
            )
            .expect("runs without a cancel hook always finish");
            done_runs.extend(batch);
            out.runs = to - from;
            self.done += to - from;
            if done_runs.len() == runs {
                let (th, done_runs) = self.current.take().expect("current");
                let ev = summarise_weighted(th, &done_runs, &plan.weights);
                out.evaluated = Some(ev.clone());
                if self.iter < self.iters {
                    let mid = 0.5 * (self.lo + self.hi);
                    if ev.failure_rate_upper <= self.params.sla {
                        self.lo = mid;
                        self.best = Some(ev.clone());
                    } else {
                        self.hi = mid;
                    }
                    self.sweep.push(ev);
                    self.iter += 1;
                } else {
                    self.sweep.push(ev.clone());
                    finished_eval = Some(ev);
                }
            }
        }
        if let Some(tuned) = finished_eval {
            let ci = bca_weighted_mean_ci(
                &tuned.run_utilization,
                &tuned.run_weights,
                self.params.bootstrap,
                0.95,
                seed,
            );
            let mut name = self.kind.name().to_string();
            if self.marginal {
                name.push_str("+MARGINAL");
            }
            let mut sweep = std::mem::take(&mut self.sweep);
            sweep.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
            self.result = Some(TuneResult {
                policy: name,
                kind: self.kind,
                marginal: self.marginal,
                threshold: self.to_th(self.lo),
                tuned,
                utilization_ci: ci,
                sweep,
            });
            out.finished = true;
        }
        out
    }
}

/// Named experiment presets of ALGORITHMS.md §2.12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// E0.1 baseline vs moment policies (ZEROTH, FIRST, SECOND; plus the accept-if-fits upper bound).
    E01,
    /// E0.2 value of prior information: m ∈ {0, 1, 5, 50} × {FIRST, SECOND} with MARGINAL.
    E02,
    /// E0.3 MARGINAL ablation: m ∈ {1, 5, 50} × SECOND with and without MARGINAL.
    E03,
    /// E0.4 labelling: labelled vs unlabelled, SECOND, m = 1 per type.
    E04,
}

impl Preset {
    /// The names of every preset, in order ([`Preset::name`]).
    pub const NAMES: &'static [&'static str] = &["E0.1", "E0.2", "E0.3", "E0.4"];

    /// Parse "E0.1" … "E0.4" (also "e01", "1" …).
    pub fn parse(s: &str) -> Result<Preset, String> {
        match s
            .trim()
            .to_ascii_uppercase()
            .replace(['.', '_'], "")
            .as_str()
        {
            "E01" | "1" => Ok(Preset::E01),
            "E02" | "2" => Ok(Preset::E02),
            "E03" | "3" => Ok(Preset::E03),
            "E04" | "4" => Ok(Preset::E04),
            o => Err(format!(
                "unknown preset '{o}' (expected E0.1, E0.2, E0.3 or E0.4)"
            )),
        }
    }
    /// Canonical name "E0.1" … "E0.4".
    pub fn name(&self) -> &'static str {
        Preset::NAMES[*self as usize]
    }
    /// The experiment's arms: (label, params, policy, marginal).
    pub fn arms(&self, base: &AdmitParams) -> Vec<(String, AdmitParams, PolicyKind, bool)> {
        let with = |m: u32, l: Labelling| {
            let mut p = base.clone();
            p.pseudo_obs = m;
            p.labelling = l;
            p
        };
        match self {
            Preset::E01 => vec![
                ("ZEROTH".into(), base.clone(), PolicyKind::Zeroth, false),
                ("FIRST".into(), base.clone(), PolicyKind::First, false),
                ("SECOND".into(), base.clone(), PolicyKind::Second, false),
                (
                    "UPPER_BOUND".into(),
                    base.clone(),
                    PolicyKind::AcceptIfFits,
                    false,
                ),
            ],
            Preset::E02 => {
                let mut v = vec![(
                    "ZEROTH".to_string(),
                    base.clone(),
                    PolicyKind::Zeroth,
                    false,
                )];
                for m in [0u32, 1, 5, 50] {
                    for k in [PolicyKind::First, PolicyKind::Second] {
                        v.push((
                            format!("{}+MARGINAL m={m}", k.name()),
                            with(m, Labelling::Off),
                            k,
                            true,
                        ));
                    }
                }
                v
            }
            Preset::E03 => {
                let mut v = Vec::new();
                for m in [1u32, 5, 50] {
                    for mg in [false, true] {
                        let name = if mg {
                            format!("SECOND+MARGINAL m={m}")
                        } else {
                            format!("SECOND m={m}")
                        };
                        v.push((name, with(m, Labelling::Off), PolicyKind::Second, mg));
                    }
                }
                v
            }
            Preset::E04 => vec![
                (
                    "SECOND labelled".into(),
                    with(0, Labelling::Labelled),
                    PolicyKind::Second,
                    false,
                ),
                (
                    "SECOND unlabelled".into(),
                    with(0, Labelling::Unlabelled),
                    PolicyKind::Second,
                    false,
                ),
            ],
        }
    }
}

/// One arm of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmResult {
    /// Arm label, e.g. "FIRST+MARGINAL m=5".
    pub label: String,
    /// Pseudo-observations m.
    pub pseudo_obs: u32,
    /// Labelling mode.
    pub labelling: Labelling,
    /// Tuning result.
    pub result: TuneResult,
    /// Relative utilization gain vs the ZEROTH arm of the same experiment, if present.
    pub gain_vs_zeroth: Option<f64>,
    /// The importance-sampling plan the arm was tuned on (§2.9), when enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<ImportancePlan>,
}

/// Output of [`run_preset`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// Preset name.
    pub preset: String,
    /// Runs per threshold.
    pub runs: usize,
    /// Master seed.
    pub seed: u64,
    /// Parameters used (base).
    pub params: AdmitParams,
    /// One entry per arm.
    pub arms: Vec<ArmResult>,
}

pub use super::experiment::run_preset;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::sim::MonthStats;

    /// `summarise` as it was before runs carried weights (verbatim), the reference for bit-identity.
    fn summarise_unweighted_reference(runs: &[RunResult]) -> (f64, f64, f64, f64, f64, f64) {
        let r = runs.len().max(1) as f64;
        let req: f64 = runs.iter().map(|x| x.requests as f64).sum();
        let fail: f64 = runs.iter().map(|x| x.failures as f64).sum();
        let f = if req > 0.0 { fail / req } else { 0.0 };
        let mean_req = req / r;
        let var = if runs.len() > 1 {
            runs.iter()
                .map(|x| (x.failures as f64 - f * x.requests as f64).powi(2))
                .sum::<f64>()
                / (r - 1.0)
        } else {
            0.0
        };
        let se = if mean_req > 0.0 {
            (var / r).sqrt() / mean_req
        } else {
            0.0
        };
        let mut months = 0.0;
        let mut msum = 0.0;
        for x in runs {
            for m in &x.months {
                if m.requests > 0 {
                    msum += m.failures as f64 / m.requests as f64;
                }
                months += 1.0;
            }
        }
        (
            runs.iter().map(|x| x.utilization).sum::<f64>() / r,
            f,
            f + 1.96 * se,
            if months > 0.0 { msum / months } else { 0.0 },
            runs.iter().filter(|x| x.failures > 0).count() as f64 / r,
            se,
        )
    }

    /// `bca_mean_ci` as it was before it delegated to the weighted version (verbatim).
    fn bca_mean_ci_reference(x: &[f64], b: usize, level: f64, seed: u64) -> (f64, f64) {
        let n = x.len();
        let mean = x.iter().sum::<f64>() / n.max(1) as f64;
        if n < 2 || b == 0 || x.iter().all(|v| *v == x[0]) {
            return (mean, mean);
        }
        let mut r = stream(seed, comp::BOOTSTRAP, 0);
        let mut boots: Vec<f64> = (0..b)
            .map(|_| {
                (0..n)
                    .map(|_| x[(r.random::<u64>() % n as u64) as usize])
                    .sum::<f64>()
                    / n as f64
            })
            .collect();
        boots.sort_by(|a, c| a.total_cmp(c));
        let below = boots.iter().filter(|v| **v < mean).count() as f64;
        let prop = ((below + 0.5 * boots.iter().filter(|v| **v == mean).count() as f64) / b as f64)
            .clamp(1e-6, 1.0 - 1e-6);
        let z0 = crate::substrate::stats::normal_quantile(prop);
        let sum: f64 = x.iter().sum();
        let jack: Vec<f64> = x.iter().map(|v| (sum - v) / (n - 1) as f64).collect();
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
            let z = crate::substrate::stats::normal_quantile(alpha);
            let adj = crate::substrate::stats::normal_cdf(z0 + (z0 + z) / (1.0 - a * (z0 + z)));
            let idx = ((adj * b as f64).floor() as isize).clamp(0, b as isize - 1) as usize;
            boots[idx]
        };
        let al = (1.0 - level) / 2.0;
        (q(al), q(1.0 - al))
    }

    fn fake_runs(n: usize, seed: u64) -> Vec<RunResult> {
        let mut r = stream(seed, 77, 0);
        (0..n)
            .map(|_| {
                let months: Vec<MonthStats> = (0..4)
                    .map(|_| {
                        let req = r.random::<u64>() % 50;
                        MonthStats {
                            core_hours: r.random::<f64>() * 1e5,
                            requests: req,
                            failures: if r.random::<f64>() < 0.3 {
                                r.random::<u64>() % (req + 1)
                            } else {
                                0
                            },
                        }
                    })
                    .collect();
                RunResult {
                    utilization: r.random::<f64>(),
                    requests: months.iter().map(|m| m.requests).sum(),
                    failures: months.iter().map(|m| m.failures).sum(),
                    months,
                    ..Default::default()
                }
            })
            .collect()
    }

    #[test]
    fn unit_weights_reproduce_the_unweighted_summary_bit_for_bit() {
        for (n, seed) in [(0, 1), (1, 2), (2, 3), (7, 4), (40, 5), (5, 6)] {
            let mut runs = fake_runs(n, seed);
            if seed == 6 {
                // no failing run
                for r in &mut runs {
                    r.failures = 0;
                    r.months.iter_mut().for_each(|m| m.failures = 0);
                }
            }
            let e = summarise(0.5, &runs);
            let (u, f, upper_delta, mf, rwf, _) = summarise_unweighted_reference(&runs);
            if n == 0 {
                // the empty sum is −0.0 in the old code; both are 0
                assert_eq!(e.utilization, u);
            } else {
                assert_eq!(e.utilization.to_bits(), u.to_bits(), "n = {n}");
            }
            assert_eq!(e.failure_rate.to_bits(), f.to_bits());
            assert_eq!(e.failure_rate_upper_delta.to_bits(), upper_delta.to_bits());
            assert_eq!(e.monthly_failure_rate.to_bits(), mf.to_bits());
            assert_eq!(e.runs_with_failure.to_bits(), rwf.to_bits());
            assert_eq!(
                e.run_utilization,
                runs.iter().map(|x| x.utilization).collect::<Vec<_>>()
            );
            assert_eq!(e.effective_runs, n as f64);
            assert!(e.failure_rate_upper >= upper_delta);
            let x: Vec<f64> = runs.iter().map(|x| x.utilization).collect();
            let a = bca_mean_ci_reference(&x, 2000, 0.95, seed);
            let b = bca_mean_ci(&x, 2000, 0.95, seed);
            if n == 0 {
                assert_eq!(a, b); // −0.0 == 0.0
            } else {
                assert_eq!(
                    (a.0.to_bits(), a.1.to_bits()),
                    (b.0.to_bits(), b.1.to_bits())
                );
            }
        }
    }

    /// Exact Poisson upper bounds (one-sided 95%): the root U of P(Poisson(U) ≤ x) = 0.05 for integer x and of
    /// P(Γ(x+1, 1) ≤ U) = 0.95 for fractional x, computed independently in Python (standard library only:
    /// the Poisson CDF / the lower regularised gamma series, bisection to 1e-15).
    #[test]
    fn poisson_upper_bound_matches_independent_values() {
        let cases = [
            (0.0, 2.995732273553991),
            (1.0, 4.743864518390578),
            (2.0, 6.295793621871989),
            (3.0, 7.753656527932726),
            (5.0, 10.513034908741531),
            (10.0, 16.9622192357219),
            (50.0, 63.287074095747165),
            (2.5, 7.033570224670102),
            (3.7, 8.738403701834851),
        ];
        for (x, want) in cases {
            let got = poisson_upper(x, 0.95);
            assert!((got - want).abs() < 1e-9 * want, "x = {x}: {got} vs {want}");
        }
        // closed form for no event: −ln(1 − level)
        assert!((poisson_upper(0.0, 0.95) + (0.05f64).ln()).abs() < 1e-15);
    }

    fn run(req: u64, fail: u64) -> RunResult {
        RunResult {
            utilization: 0.5,
            requests: req,
            failures: fail,
            ..Default::default()
        }
    }

    #[test]
    fn feasibility_bound_is_sound_for_small_counts() {
        // zero failures in 3 × 1000 requests: delta bound 0, exact 2.9957/3000
        let e = summarise(1.0, &[run(1000, 0), run(1000, 0), run(1000, 0)]);
        assert_eq!(e.failure_rate, 0.0);
        assert_eq!(e.failure_rate_upper_delta, 0.0);
        assert!((e.failure_rate_upper - 2.995732273553991 / 3000.0).abs() < 1e-15);
        // a single run: se = 0, the exact bound with 2 failures in 500 requests: 6.2958/500
        let e = summarise(1.0, &[run(500, 2)]);
        assert_eq!(e.failure_rate_upper_delta, 2.0 / 500.0);
        assert!((e.failure_rate_upper - 6.295793621871989 / 500.0).abs() < 1e-12);
        // many failing runs: the delta bound (over-dispersion between runs) dominates
        let runs: Vec<RunResult> = (0..20)
            .map(|i| run(1000, if i % 2 == 0 { 100 } else { 0 }))
            .collect();
        let e = summarise(1.0, &runs);
        assert!(e.failure_rate_upper_delta > e.failure_rate_upper_exact);
        assert_eq!(e.failure_rate_upper, e.failure_rate_upper_delta);
        // weights: Kish n_eff = (Σw)²/Σw² = 16/10 = 1.6 runs of mean weighted requests 1000 → Q_eff = 1600
        let e = summarise_weighted(1.0, &[run(1000, 0), run(1000, 0)], &[1.0, 3.0]);
        assert!((e.effective_runs - 1.6).abs() < 1e-12);
        assert!((e.failure_rate_upper - 2.995732273553991 / 1600.0).abs() < 1e-15);
        // no requests at all: nothing can fail
        let e = summarise(1.0, &[run(0, 0)]);
        assert_eq!(e.failure_rate_upper, 0.0);
    }

    #[test]
    fn weighted_bca_covers_the_weighted_mean_and_is_reproducible() {
        let x: Vec<f64> = (0..300)
            .map(|i| (i as f64 * 0.618_033_988_7).fract())
            .collect();
        let w: Vec<f64> = (0..300)
            .map(|i| if i % 3 == 0 { 0.4 } else { 1.3 })
            .collect();
        let m = x.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>() / w.iter().sum::<f64>();
        let a = bca_weighted_mean_ci(&x, &w, 3000, 0.95, 9);
        assert_eq!(a, bca_weighted_mean_ci(&x, &w, 3000, 0.95, 9));
        assert!(a.0 < m && m < a.1, "{a:?} {m}");
        // linearised s.e. of the ratio: sqrt(Σ w²(x − m)²)/Σw
        let sw: f64 = w.iter().sum();
        let se = x
            .iter()
            .zip(&w)
            .map(|(x, w)| (w * (x - m)).powi(2))
            .sum::<f64>()
            .sqrt()
            / sw;
        assert!(
            (a.1 - a.0 - 2.0 * 1.96 * se).abs() < 0.15 * 2.0 * 1.96 * se,
            "{a:?} {se}"
        );
    }
}
