//! The admission experiment on the experiment contract (seed 000, ALGORITHMS.md §2.8–§2.12): every arm of a
//! preset tuned to the SLA by its [`ArmTuner`], on shared runs (common random numbers), advanced a few
//! simulation runs per step. The CLI (`packlab run`; `packlab admission tune` through [`run_preset`]), the
//! wasm binding and the Web Worker all drive this one stepper through the one driver
//! ([`crate::experiment::drive`]) or step by step.

use super::importance;
use super::moments::{NodeCache, TableLattice};
use super::params::{AdmitParams, PolicyKind, PolicySpec};
use super::scenario::{
    arm_result, gains_vs_zeroth, report, AdmissionArm, AdmissionArmSpec, AdmissionReport,
    AdmissionScenario, SweepPoint,
};
use super::sim::{lead_grid, simulate_run, RunResult, SimCache};
use super::tuning::{
    run_seed, ArmResult, ArmTuner, ExperimentResult, Preset, Progress, RunPlan, ThresholdSearch,
    TuneResult, TuneStatus,
};
use crate::experiment::{Experiment, RunError};
use serde::Serialize;

/// What one step did (the partial result the playground draws).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdmissionStep {
    /// Runs done so far (of the total).
    pub done: usize,
    /// Runs planned (importance-sampling pilots included).
    pub total: usize,
    /// Index of the arm worked on.
    pub arm: usize,
    /// Its label.
    pub label: String,
    /// A threshold whose runs just completed, if any.
    pub evaluated: Option<SweepPoint>,
    /// The arm's result if it just completed (without the gain over ZEROTH, which needs every arm).
    pub finished: Option<AdmissionArm>,
}

thread_local! {
    /// The alive tables and quadrature nodes of this thread's last admission experiment, handed on to its next
    /// one. A table depends only on its lattice point and a node set only on its key, never on the scenario,
    /// so a browser worker (and every member of its pool) keeps them from run to run and re-runs skip
    /// rebuilding them; results never depend on what is kept (`kept_tables_do_not_change_reports`).
    static KEPT_TABLES: std::cell::RefCell<Option<(TableLattice, NodeCache)>> =
        const { std::cell::RefCell::new(None) };
}

/// A fresh cache holding the tables kept by this thread's last experiment, if any.
fn cache_with_kept_tables() -> SimCache {
    let mut cache = SimCache::new();
    if let Some((mut lattice, nodes)) = KEPT_TABLES.with(|k| k.borrow_mut().take()) {
        lattice.reset_handles();
        cache.lattice = lattice;
        cache.nodes = nodes;
    }
    cache
}

impl Drop for AdmissionExperiment {
    fn drop(&mut self) {
        let lattice = std::mem::take(&mut self.cache.lattice);
        let nodes = std::mem::take(&mut self.cache.nodes);
        KEPT_TABLES.with(|k| *k.borrow_mut() = Some((lattice, nodes)));
    }
}

/// An admission experiment in progress (see the module documentation).
pub struct AdmissionExperiment {
    seed: u64,
    specs: Vec<AdmissionArmSpec>,
    tuners: Vec<ArmTuner>,
    /// Index into `plans` of each arm's run plan, once built.
    arm_plan: Vec<Option<usize>>,
    /// Run plans built so far, keyed by [`importance::plan_params`] (shared by arms with equal keys).
    plans: Vec<(AdmitParams, RunPlan)>,
    runs: usize,
    cache: SimCache,
    done: usize,
    total: usize,
    section: AdmissionScenario,
    /// Why the run stopped early (an importance-sampling set-up that failed).
    failed: Option<RunError>,
    /// The (arm, run) of each job of the step issued by [`Experiment::jobs`] and not yet absorbed.
    issued: Vec<(usize, usize)>,
}

impl AdmissionExperiment {
    /// Plans the scenario's admission experiment (its `admission` section must be valid). With `browser`,
    /// importance sampling is refused: its set-up alone is 10⁴ badness sketches and 3 × 500 pilot runs.
    /// Errors name the field.
    pub fn new(
        a: &AdmissionScenario,
        seed: u64,
        browser: bool,
    ) -> Result<AdmissionExperiment, RunError> {
        if let Some(e) = a.validate("admission.").into_iter().next() {
            return Err(e.into());
        }
        AdmissionExperiment::planned(a, seed, browser)
    }

    /// Plans the run of a section already validated ([`crate::experiment::ModelDef::start`], after the scenario's one
    /// validation); [`AdmissionExperiment::new`] validates first.
    pub(crate) fn planned(
        a: &AdmissionScenario,
        seed: u64,
        browser: bool,
    ) -> Result<AdmissionExperiment, RunError> {
        if browser && a.params.importance.enabled {
            return Err(RunError::field(
                "admission.params.importance.enabled",
                "importance sampling of runs (ALGORITHMS.md §2.9) runs in the CLI only \
                 (`packlab run` on this scenario, or `packlab admit --importance`); \
                 the playground tunes with plain runs",
            ));
        }
        let specs = a
            .arms()
            .map_err(|m| RunError::field("admission.policies", m))?;
        Ok(Self::from_specs(a.clone(), seed, specs, a.runs))
    }

    fn from_specs(
        section: AdmissionScenario,
        seed: u64,
        specs: Vec<AdmissionArmSpec>,
        runs: usize,
    ) -> Self {
        let tuners: Vec<ArmTuner> = specs
            .iter()
            .map(|s| ArmTuner::new(s.params.clone(), s.kind, s.marginal))
            .collect();
        // the set-up runs of every distinct importance plan, then every arm's search
        let mut keys: Vec<AdmitParams> = Vec::new();
        let mut setup = 0;
        for s in &specs {
            let k = importance::plan_params(&s.params);
            if s.params.importance.enabled && !keys.contains(&k) {
                setup += RunPlan::setup_runs(&s.params);
                keys.push(k);
            }
        }
        let total = setup + tuners.iter().map(|t| t.planned_runs(runs)).sum::<usize>();
        AdmissionExperiment {
            seed,
            arm_plan: vec![None; specs.len()],
            specs,
            tuners,
            plans: Vec::new(),
            runs,
            cache: cache_with_kept_tables(),
            done: 0,
            total,
            section,
            failed: None,
            issued: Vec::new(),
        }
    }

    /// One arm, `kind` (+ MARGINAL) under `p`, tuned on the given runs `plan` ([`tune_with_plan`]);
    /// `seed` seeds the bootstrap. Planned runs: the search's only (no set-up).
    pub fn for_arm(
        p: &AdmitParams,
        kind: PolicyKind,
        marginal: bool,
        plan: RunPlan,
        seed: u64,
    ) -> Self {
        let section = AdmissionScenario {
            runs: plan.seeds.len(),
            params: p.clone(),
            ..AdmissionScenario::default()
        };
        let spec = AdmissionArmSpec {
            label: kind.name().to_string(),
            params: p.clone(),
            kind,
            marginal,
        };
        let runs = plan.seeds.len();
        let mut exp = Self::from_specs(section, seed, vec![spec], runs);
        exp.total = exp.tuners[0].planned_runs(runs);
        exp.plans.push((importance::plan_params(p), plan));
        exp.arm_plan[0] = Some(0);
        exp
    }

    /// The planned runs arm `i` will not make because its script failed (counted as done when it
    /// `finished`, so that progress reaches the total); 0 otherwise.
    fn skipped(&self, i: usize, finished: bool) -> usize {
        let t = &self.tuners[i];
        match t.result() {
            Some(r) if finished && r.error.is_some() => {
                t.planned_runs(self.runs).saturating_sub(t.done())
            }
            _ => 0,
        }
    }

    /// The search of arm `i` (its result once tuned).
    pub fn tuner(&self, i: usize) -> Option<&ArmTuner> {
        self.tuners.get(i)
    }

    /// Swaps the experiment's table cache with `cache` (to reuse a caller's cache across experiments).
    pub fn swap_cache(&mut self, cache: &mut SimCache) {
        std::mem::swap(&mut self.cache, cache);
    }

    /// The experiment of [`run_preset`]: every arm of `preset` on `base`, `runs` runs, master seed `seed`.
    pub fn for_preset(preset: Preset, base: &AdmitParams, runs: usize, seed: u64) -> Self {
        let section = AdmissionScenario {
            preset: preset.name().into(),
            runs,
            params: base.clone(),
            ..AdmissionScenario::default()
        };
        let specs = preset
            .arms(base)
            .into_iter()
            .map(|(label, params, kind, marginal)| AdmissionArmSpec {
                label,
                params,
                kind,
                marginal,
            })
            .collect();
        Self::from_specs(section, seed, specs, runs)
    }

    /// The run plan of arm `i`, building it (the importance set-up) when first needed. Returns the plan's
    /// index and the set-up runs done now.
    fn plan_of(
        &mut self,
        i: usize,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(usize, usize), String> {
        if let Some(k) = self.arm_plan[i] {
            return Ok((k, 0));
        }
        let p = &self.specs[i].params;
        let key = importance::plan_params(p);
        let (k, setup) = if !p.importance.enabled {
            match self
                .plans
                .iter()
                .position(|(_, pl)| pl.importance.is_none())
            {
                Some(k) => (k, 0),
                None => {
                    self.plans.push((key, RunPlan::plain(self.runs, self.seed)));
                    (self.plans.len() - 1, 0)
                }
            }
        } else if let Some(k) = self
            .plans
            .iter()
            .position(|(x, pl)| *x == key && pl.importance.is_some())
        {
            (k, 0)
        } else {
            let plan = RunPlan::build(p, self.runs, self.seed, &mut self.cache, progress)?;
            self.plans.push((key, plan));
            (self.plans.len() - 1, RunPlan::setup_runs(p))
        };
        self.arm_plan[i] = Some(k);
        Ok((k, setup))
    }

    /// Builds every arm's run plan now (the importance-sampling set-ups, §2.9; nothing to do without
    /// importance sampling) instead of inside the steps, so that a long set-up reports its pilot runs to
    /// `progress(done, total)` and can be cancelled (false → error "cancelled"). What `packlab admission
    /// tune` does before driving the experiment.
    pub fn prepare(
        &mut self,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(), String> {
        for i in 0..self.specs.len() {
            let (base, total) = (self.done, self.total);
            let (_, setup) = self.plan_of(i, &mut |d, _| progress(base + d, total))?;
            self.done += setup;
        }
        Ok(())
    }

    /// Whether every arm is tuned.
    pub fn is_finished(&self) -> bool {
        self.tuners.iter().all(|t| t.result().is_some())
    }

    /// The result in the form of [`run_preset`] (gains over ZEROTH, each arm's importance plan); `None`
    /// before the end.
    pub fn experiment_result(&self) -> Option<ExperimentResult> {
        let mut out = Vec::new();
        for (i, (s, t)) in self.specs.iter().zip(&self.tuners).enumerate() {
            out.push(ArmResult {
                label: s.label.clone(),
                pseudo_obs: s.params.pseudo_obs,
                labelling: s.params.labelling,
                result: t.result()?.clone(),
                gain_vs_zeroth: None,
                importance: self.arm_plan[i].and_then(|k| self.plans[k].1.importance.clone()),
            });
        }
        let utils: Vec<(PolicyKind, TuneStatus, f64)> = out
            .iter()
            .map(|a| (a.result.kind, a.result.status, a.result.tuned.utilization))
            .collect();
        for (a, g) in out.iter_mut().zip(gains_vs_zeroth(&utils)) {
            a.gain_vs_zeroth = g;
        }
        let a = &self.section;
        Some(ExperimentResult {
            preset: a.preset().map(|p| p.name().to_string()).unwrap_or_default(),
            runs: self.runs,
            seed: self.seed,
            params: a.params.clone(),
            arms: out,
        })
    }
}

impl Experiment for AdmissionExperiment {
    type Partial = AdmissionStep;
    type Report = AdmissionReport;

    fn total(&self) -> usize {
        self.total
    }

    fn done(&self) -> usize {
        self.done
    }

    /// Simulates up to `units` runs of the current threshold of the first arm not yet finished (or builds
    /// that arm's importance plan); the step that completes an arm's last evaluation also finishes the arm.
    fn step(&mut self, units: usize) -> Option<AdmissionStep> {
        let i = self.tuners.iter().position(|t| t.result().is_none())?;
        let (k, setup) = match self.plan_of(i, &mut |_, _| true) {
            Ok(x) => x,
            Err(m) => {
                self.failed = Some(RunError::field("admission.params.importance", m));
                return None;
            }
        };
        let mut evaluated = None;
        let mut finished = None;
        if setup > 0 {
            self.done += setup;
        } else {
            let plan = &self.plans[k].1;
            let st = self.tuners[i].step(plan, self.seed, units, &mut self.cache);
            self.done += st.runs + self.skipped(i, st.finished);
            let sla = self.specs[i].params.sla;
            evaluated = st.evaluated.as_ref().map(|e| SweepPoint::of(e, sla));
            if st.finished {
                let r = self.tuners[i].result().expect("finished");
                finished = Some(arm_result(&self.specs[i], r));
            }
        }
        Some(AdmissionStep {
            done: self.done,
            total: self.total,
            arm: i,
            label: self.specs[i].label.clone(),
            evaluated,
            finished,
        })
    }

    /// A job is one simulation run `{ "arm", "threshold", "run", "affinity" }` (`affinity`: the same number
    /// for one arm's run at every threshold, so a pool can keep it on one worker, where its memoised tables are). The arms are independent, so a step's
    /// jobs are the remaining runs of the current threshold of every arm not yet finished, in arm order, up
    /// to `units` (the pool computes several arms' runs at once; `step` does one arm at a time, with the same
    /// report). Empty when an arm needs an importance-sampling set-up first (the CLI's `step` builds it).
    fn jobs(&mut self, units: usize) -> Vec<serde_json::Value> {
        let units = units.max(1);
        let mut jobs = Vec::new();
        self.issued.clear();
        for i in 0..self.tuners.len() {
            if jobs.len() >= units {
                break;
            }
            if self.tuners[i].result().is_some() {
                continue;
            }
            let k = match self.arm_plan[i] {
                Some(k) => k,
                None if !self.specs[i].params.importance.enabled => {
                    match self.plan_of(i, &mut |_, _| true) {
                        Ok((k, _)) => k,
                        Err(_) => break,
                    }
                }
                None => break,
            };
            let runs = self.plans[k].1.seeds.len();
            let Some((th, range)) = self.tuners[i].pending(runs, units - jobs.len()) else {
                break;
            };
            for r in range {
                // a run of one arm keeps its worker from threshold to threshold: its memoised curves
                // (common random numbers) serve every threshold there
                let affinity = i * runs + r;
                jobs.push(serde_json::json!({ "arm": i, "threshold": th, "run": r, "affinity": affinity }));
                self.issued.push((i, r));
            }
        }
        if jobs.is_empty() {
            self.issued.clear();
        }
        jobs
    }

    fn compute(&mut self, job: &serde_json::Value) -> Result<serde_json::Value, RunError> {
        let bad = || RunError::msg(format!("{job} is not a simulation run of this experiment"));
        let index = |key: &str| {
            job.get(key)
                .and_then(|v| v.as_u64())
                .and_then(|v| usize::try_from(v).ok())
        };
        let (arm, run) = (index("arm").ok_or_else(bad)?, index("run").ok_or_else(bad)?);
        let th = job
            .get("threshold")
            .and_then(|v| v.as_f64())
            .ok_or_else(bad)?;
        if arm >= self.tuners.len() || self.specs[arm].params.importance.enabled {
            return Err(bad());
        }
        let (k, _) = self
            .plan_of(arm, &mut |_, _| true)
            .map_err(|m| RunError::field("admission.params.importance", m))?;
        let seed = *self.plans[k].1.seeds.get(run).ok_or_else(bad)?;
        let r = self.tuners[arm].simulate(th, seed, &mut self.cache);
        serde_json::to_value(r).map_err(crate::experiment::ser_error)
    }

    fn absorb(&mut self, results: Vec<serde_json::Value>) -> Result<Vec<AdmissionStep>, RunError> {
        let runs: Vec<RunResult> = crate::experiment::decode_results(
            results,
            self.issued.len(),
            "simulation run's result",
        )?;
        let issued = std::mem::take(&mut self.issued);
        let mut steps = Vec::new();
        let mut at = 0;
        while at < issued.len() {
            let i = issued[at].0;
            let n = issued[at..].iter().take_while(|(a, _)| *a == i).count();
            let batch = runs[at..at + n].to_vec();
            at += n;
            let k = self.arm_plan[i].expect("jobs are issued for planned arms");
            let st = self.tuners[i].absorb(batch, &self.plans[k].1, self.seed);
            self.done += st.runs + self.skipped(i, st.finished);
            let sla = self.specs[i].params.sla;
            steps.push(AdmissionStep {
                done: self.done,
                total: self.total,
                arm: i,
                label: self.specs[i].label.clone(),
                evaluated: st.evaluated.as_ref().map(|e| SweepPoint::of(e, sla)),
                finished: st.finished.then(|| {
                    arm_result(&self.specs[i], self.tuners[i].result().expect("finished"))
                }),
            });
        }
        Ok(steps)
    }

    /// The runs of a threshold are independent: a native step may simulate all R at once.
    fn batch(&self) -> usize {
        self.runs
    }

    fn error(&self) -> Option<RunError> {
        self.failed.clone()
    }

    fn report(&self) -> Option<AdmissionReport> {
        let arms: Option<Vec<AdmissionArm>> = self
            .specs
            .iter()
            .zip(&self.tuners)
            .map(|(s, t)| t.result().map(|r| arm_result(s, r)))
            .collect();
        Some(report(&self.section, self.seed, arms?))
    }
}

/// Runs an admission scenario to the end through [`AdmissionExperiment`] (what `packlab run` prints).
/// `progress` sees (runs done, runs planned); returning false cancels. Errors: invalid scenario, "cancelled".
pub fn run_admission(
    a: &AdmissionScenario,
    seed: u64,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<AdmissionReport, String> {
    let mut exp = AdmissionExperiment::new(a, seed, false).map_err(|e| e.to_string())?;
    crate::experiment::run_to_end(&mut exp, progress).map_err(|e| e.to_string())
}

/// Tune the threshold of `kind` to the SLA `p.sla` by binary search over R = `runs` common-random-number runs
/// (ALGORITHMS.md §2.8; [`super::tuning::ThresholdSearch`]): plain run seeds with weight 1, or, with `p.importance.enabled`,
/// the importance-sampled seeds and weights of §2.9 (set up once, reused for every threshold). A threshold is
/// certified when the upper 95% bound `failure_rate_upper` of [`super::tuning::summarise_weighted`] is ≤ SLA; the result says
/// whether one was ([`TuneStatus`]). ACCEPT_IF_FITS has no threshold and is evaluated once. The progress hook sees (runs done, runs planned), pilot runs included. Errors: invalid
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

/// Simulation runs of one tuning without its setup: R per search evaluation ([`super::tuning::ThresholdSearch::evaluations`]:
/// the iterations, or 1 for ACCEPT_IF_FITS).
fn tuning_runs(p: &AdmitParams, kind: PolicyKind, runs: usize) -> usize {
    runs * ThresholdSearch::new(p, kind).evaluations()
}

/// [`tune`] on given runs (`plan`, e.g. shared by the arms of a preset); `seed` seeds the bootstrap. The
/// utilization CI is the BCa CI of the weighted mean ([`crate::substrate::stats::bca_weighted_mean_ci`]). A one-arm admission
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
    let mut exp = AdmissionExperiment::for_arm(p, kind, marginal, plan.clone(), seed);
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

/// Runs a preset (ALGORITHMS.md §2.12): every arm tuned to the SLA on the same run seeds, through
/// [`AdmissionExperiment`]. With importance sampling the plan (§2.9) is built once per distinct
/// [`importance::plan_params`] of the arms (once per preset for E0.1–E0.4) and shared by all arms and
/// thresholds. The progress hook sees runs done / planned over the whole experiment (pilot runs included);
/// returning false cancels (error "cancelled").
pub fn run_preset(
    preset: Preset,
    base: &AdmitParams,
    runs: usize,
    seed: u64,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<ExperimentResult, String> {
    base.validate()?;
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    run_to_result(
        AdmissionExperiment::for_preset(preset, base, runs, seed),
        progress,
    )
}

/// [`run_preset`] on a scenario's section: the arms of [`AdmissionScenario::arms`] (the preset's, filtered
/// by `policies`, and one per enabled script, issue 31). Errors: an invalid section (the field named),
/// "cancelled".
pub fn run_section(
    a: &AdmissionScenario,
    seed: u64,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<ExperimentResult, String> {
    let exp = AdmissionExperiment::new(a, seed, false).map_err(|e| e.to_string())?;
    run_to_result(exp, progress)
}

/// Builds `exp`'s run plans, drives it to the end and returns its result.
fn run_to_result(
    mut exp: AdmissionExperiment,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<ExperimentResult, String> {
    exp.prepare(progress)?;
    crate::experiment::drive(&mut exp, progress).map_err(|e| e.message)?;
    exp.experiment_result()
        .ok_or_else(|| "the experiment ended without a result".to_string())
}

/// One simulated run with its time series, for the playground's run view: arm `label` of the scenario
/// (or its first arm when empty) at `threshold`, run index `run` (the experiment's run seed, so the run is
/// one of those the tuning used), sampled `points` times over the horizon (2..=5000). Errors: unknown arm,
/// invalid scenario.
pub fn admission_series(
    a: &AdmissionScenario,
    seed: u64,
    label: &str,
    threshold: f64,
    run: usize,
    points: usize,
) -> Result<RunResult, String> {
    if let Some(e) = a.validate("admission.").first() {
        return Err(e.to_string());
    }
    // every arm of the preset (the `policies` filter ignored) and the scripts'
    let arms = AdmissionScenario {
        policies: Vec::new(),
        ..a.clone()
    }
    .arms()?;
    let arm = if label.is_empty() {
        arms.first()
    } else {
        arms.iter().find(|a| a.label == label)
    }
    .ok_or_else(|| format!("'{label}' is not a policy of {}", a.preset))?;
    if !threshold.is_finite() {
        return Err("the threshold must be a finite number".into());
    }
    let mut p = arm.params.clone();
    p.series_every_hours = p.horizon_hours / points.clamp(2, 5000) as f64;
    let spec = PolicySpec {
        kind: arm.kind,
        threshold,
        marginal: arm.marginal,
    };
    Ok(simulate_run(
        &p,
        spec,
        run_seed(seed, run),
        &lead_grid(&p),
        &mut SimCache::new(),
    ))
}

/// Columns of one run's time series and its totals (the model operation `series`): `t` in hours, `active`
/// in cores, `failures`, `accepted`, `rejected` cumulative counts; `capacity` in cores.
#[derive(Serialize)]
pub struct SeriesOut {
    t: Vec<f64>,
    active: Vec<f64>,
    failures: Vec<f64>,
    accepted: Vec<f64>,
    rejected: Vec<f64>,
    capacity: f64,
    utilization: f64,
    failure_rate: f64,
    requests: u64,
    failed: u64,
    arrivals: u64,
    admitted: u64,
}

/// The model operation `series` (`{ label, threshold, run, points }`, [`admission_series`]): a missing or
/// non-numeric threshold is NaN (rejected), a missing or negative `run`/`points` is 0/400. Errors name
/// `admission.series_arm`.
pub fn series_op(
    a: &AdmissionScenario,
    seed: u64,
    args: &serde_json::Value,
) -> Result<SeriesOut, RunError> {
    use serde_json::Value;
    let count = |k: &str, default: usize| {
        args.get(k)
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v as usize)
            .unwrap_or(default)
    };
    let label = args.get("label").and_then(Value::as_str).unwrap_or("");
    let threshold = args
        .get("threshold")
        .and_then(Value::as_f64)
        .unwrap_or(f64::NAN);
    let r = admission_series(
        a,
        seed,
        label,
        threshold,
        count("run", 0),
        count("points", 400),
    )
    .map_err(|m| RunError::field("admission.series_arm", m))?;
    Ok(SeriesOut {
        t: r.series.iter().map(|p| p.t).collect(),
        active: r.series.iter().map(|p| p.active).collect(),
        failures: r.series.iter().map(|p| p.failures as f64).collect(),
        accepted: r.series.iter().map(|p| p.accepted as f64).collect(),
        rejected: r.series.iter().map(|p| p.rejected as f64).collect(),
        capacity: a.params.capacity,
        utilization: r.utilization,
        failure_rate: r.failure_rate(),
        requests: r.requests,
        failed: r.failures,
        arrivals: r.arrivals,
        admitted: r.accepted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission::params::AdmitParams;
    use crate::models::admission::scenario::{
        apply_azure_fit, AdmissionScenario, ParamSource, AZURE_ARRIVALS_PATH, AZURE_FIT_AVAILABLE,
    };
    use crate::scenario::{Model, Scenario};

    fn tiny_admission() -> Scenario {
        let mut s = Scenario {
            model: Model::Admission,
            seed: 3,
            ..Scenario::default()
        };
        s.admission.runs = 2;
        s.admission.params.capacity = 200.0;
        s.admission.params.horizon_hours = 240.0;
        s.admission.params.tune_iterations = 3;
        s.admission.params.bootstrap = 200;
        s.admission.params.subhorizons = vec![240.0, 24.0];
        s.admission.params.steps = 20;
        s
    }

    #[test]
    fn admission_stepper_equals_engine_tuning_and_run_preset() {
        let s = tiny_admission();
        let native = run_admission(&s.admission, s.seed, &mut |_, _| true).unwrap();
        let mut run = AdmissionExperiment::new(&s.admission, s.seed, true).unwrap();
        let mut last = 0;
        while let Some(st) = run.step(1) {
            assert!(st.done > last && st.done <= st.total);
            last = st.done;
        }
        assert_eq!(last, run.total());
        assert_eq!(run.report().unwrap(), native);
        let a = &s.admission;
        let pre = run_preset(
            a.preset().unwrap(),
            &a.params,
            a.runs,
            s.seed,
            &mut |_, _| true,
        )
        .unwrap();
        assert_eq!(pre.arms.len(), native.arms.len());
        for (x, y) in pre.arms.iter().zip(&native.arms) {
            assert_eq!(x.label, y.label);
            assert_eq!(x.result.threshold, y.threshold);
            assert_eq!(x.result.tuned.utilization, y.utilization);
            assert_eq!(x.result.utilization_ci, y.utilization_ci);
            assert_eq!(x.result.tuned.failure_rate, y.failure_rate);
            assert_eq!(x.gain_vs_zeroth, y.gain_vs_zeroth);
            assert_eq!(x.result.sweep.len(), y.sweep.len());
        }
        // a subset of arms, and the time series of one run
        let mut sub = s.clone();
        sub.admission.policies = vec!["SECOND".into()];
        let r = run_admission(&sub.admission, sub.seed, &mut |_, _| true).unwrap();
        assert_eq!(r.arms.len(), 1);
        assert_eq!(r.arms[0], native.arms[2].clone().with_gain(None));
        let ts = admission_series(
            &s.admission,
            s.seed,
            "SECOND",
            native.arms[2].threshold,
            1,
            50,
        )
        .unwrap();
        assert!(
            ts.series.len() >= 40 && ts.series.len() <= 51,
            "{}",
            ts.series.len()
        );
    }

    impl AdmissionArm {
        fn with_gain(mut self, g: Option<f64>) -> Self {
            self.gain_vs_zeroth = g;
            self
        }
    }

    #[test]
    fn admission_links_round_trip_and_validate() {
        let mut s = tiny_admission();
        s.admission.preset = "E0.3".into();
        s.admission.policies = vec!["SECOND m=5".into()];
        let link = s.to_link();
        assert_eq!(Scenario::from_link(&link).unwrap(), s);
        let d = s.diff_json();
        assert_eq!(d["model"], "admission");
        assert!(d["admission"]["params"].get("sla").is_none());
        let mut bad = s.clone();
        bad.admission.params.sla = 2.0;
        assert_eq!(
            Scenario::from_link(&bad.to_link())
                .unwrap_err()
                .field
                .as_deref(),
            Some("admission.params.sla")
        );
        bad = s.clone();
        bad.admission.policies = vec!["NOPE".into()];
        assert_eq!(bad.validate().unwrap_err()[0].field, "admission.policies");
        bad = s.clone();
        bad.admission.source = ParamSource::Azure;
        assert_eq!(bad.validate().is_err(), !AZURE_FIT_AVAILABLE);
        // placement scenarios ignore the admission section
        let mut p = Scenario::default();
        p.admission.runs = 0;
        assert!(p.validate().is_ok());
    }

    #[test]
    fn azure_fit_writes_the_identified_parameters() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(AZURE_ARRIVALS_PATH);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut a = AdmissionScenario::default();
        let fit = apply_azure_fit(&mut a, &bytes).unwrap();
        assert_eq!(a.source, ParamSource::Azure);
        // the cluster's share of the region-wide stream: the §2.13 load-to-capacity ratio
        assert!(a.params.arrival_rate < 0.01 * fit.arrival_rate.value);
        let ratio = crate::models::admission::load::offered_load(&a.params, 300).ratio_at_horizon;
        let reference = crate::models::admission::load::offered_load(&AdmitParams::default(), 300)
            .ratio_at_horizon;
        assert!(
            (ratio / reference - 1.0).abs() < 1e-9,
            "{ratio} vs {reference}"
        );
        assert!(fit.notes.iter().any(|n| n.contains("share")));
        assert!(matches!(
            a.params.initial_size,
            crate::models::admission::params::InitialSize::Empirical { .. }
        ));
        assert_eq!(a.params.priors.kappa, AdmitParams::default().priors.kappa);
        let s = Scenario {
            model: Model::Admission,
            admission: a,
            ..Scenario::default()
        };
        assert!(s.validate().is_ok(), "{:?}", s.validate());
        assert_eq!(Scenario::from_link(&s.to_link()).unwrap(), s);
    }

    /// Steps of several runs (the CLI's way, natively on all cores) give the report of one-run steps (the
    /// browser's way), bit for bit.
    #[test]
    fn kept_tables_do_not_change_reports() {
        let b = tiny_admission();
        let mut a = tiny_admission();
        a.seed = 11;
        a.admission.params.capacity = 300.0;
        a.admission.params.subhorizons = vec![240.0, 48.0, 12.0];
        let run = |sc: &Scenario| {
            let mut e = AdmissionExperiment::new(&sc.admission, sc.seed, true).unwrap();
            while e.step(1).is_some() {}
            serde_json::to_string(&e.report()).unwrap()
        };
        // B alone on a fresh thread (nothing kept), then B after A on another thread (A's tables kept)
        let fresh = {
            let b = b.clone();
            std::thread::spawn(move || run(&b)).join().unwrap()
        };
        let (after_a, kept) = std::thread::spawn(move || {
            run(&a);
            let kept = KEPT_TABLES.with(|k| k.borrow().as_ref().map_or(0, |(l, _)| l.len()));
            (run(&b), kept)
        })
        .join()
        .unwrap();
        assert!(kept > 0, "A kept its tables");
        assert_eq!(after_a, fresh);
    }

    #[test]
    fn units_per_step_do_not_change_the_report() {
        let s = tiny_admission();
        let mut one = AdmissionExperiment::new(&s.admission, s.seed, true).unwrap();
        while one.step(1).is_some() {}
        for units in [2, 3, 64] {
            let mut many = AdmissionExperiment::new(&s.admission, s.seed, false).unwrap();
            let mut steps = 0;
            while many.step(units).is_some() {
                steps += 1;
            }
            assert_eq!(many.report(), one.report(), "units {units}");
            assert!(
                steps < Experiment::total(&one),
                "units {units}: {steps} steps"
            );
        }
        // the browser refuses importance sampling, naming the field; the CLI accepts it
        let mut is = s.clone();
        is.admission.params.importance.enabled = true;
        let e = AdmissionExperiment::new(&is.admission, is.seed, true)
            .err()
            .unwrap();
        assert_eq!(
            e.field.as_deref(),
            Some("admission.params.importance.enabled")
        );
        assert!(AdmissionExperiment::new(&is.admission, is.seed, false).is_ok());
    }

    /// The importance-sampling set-up reports its pilot runs and can be cancelled during them
    /// (`run_preset` prepares the plans before driving the experiment).
    #[test]
    fn importance_set_up_reports_progress_and_cancels() {
        let mut p = tiny_admission().admission.params;
        p.importance.enabled = true;
        p.importance.pilot_runs_per_bucket = 3;
        p.importance.pre_draws = 40;
        let mut seen = Vec::new();
        let e = run_preset(Preset::E01, &p, 2, 5, &mut |d, t| {
            seen.push((d, t));
            d < 4
        })
        .unwrap_err();
        assert_eq!(e, "cancelled");
        // 3 buckets × 3 pilots = 9 set-up runs: the cancel came during the set-up (pilots already started
        // finish first), before any tuning run
        let last = seen.last().unwrap().0;
        assert!((4..=9).contains(&last), "{seen:?}");
        assert!(seen.iter().all(|x| x.1 == seen[0].1 && x.1 > 9));
    }
}
