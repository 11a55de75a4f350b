//! One policy's threshold search advanced a few simulation runs at a time ([`ArmTuner`]).

use super::plan::*;
use super::result::*;
use super::search::*;
use super::stats::*;
use crate::models::admission::params::{AdmitParams, PolicyKind, PolicySpec};
use crate::models::admission::sim::{lead_grid, RunResult, SimCache};
use crate::substrate::stats::bca_weighted_mean_ci;

/// What one [`ArmTuner::step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TunerStep {
    /// Simulation runs done in this step.
    pub runs: usize,
    /// A threshold whose runs all completed in this step.
    pub evaluated: Option<Evaluation>,
    /// Whether the arm is now finished (tuned, untunable or, for ACCEPT_IF_FITS, evaluated).
    pub finished: bool,
}

/// One policy's threshold search (ALGORITHMS.md §2.8) advanced a few simulation runs at a time: it simulates
/// the runs of the threshold its [`ThresholdSearch`] proposes and hands it the evaluation. [`tune_with_plan`],
/// [`run_preset`] and the admission experiment all drive it.
#[derive(Clone, Debug)]
pub struct ArmTuner {
    params: AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    grid: crate::models::admission::lookahead::LeadGrid,
    search: ThresholdSearch,
    /// The threshold being evaluated and the runs done at it.
    current: Option<(f64, Vec<RunResult>)>,
    done: usize,
    result: Option<TuneResult>,
}

impl ArmTuner {
    /// A search for `kind` (+ MARGINAL) under `p` (validated by the caller).
    pub fn new(p: AdmitParams, kind: PolicyKind, marginal: bool) -> ArmTuner {
        ArmTuner {
            grid: lead_grid(&p),
            search: ThresholdSearch::new(&p, kind),
            params: p,
            kind,
            marginal,
            current: None,
            done: 0,
            result: None,
        }
    }

    /// The policy's display name: "SECOND+MARGINAL", or `script:<name>` for a script.
    fn name(&self) -> String {
        if let (PolicyKind::Script, Some(s)) = (self.kind, &self.params.script) {
            return format!("script:{}", s.name);
        }
        let mut name = self.kind.name().to_string();
        if self.marginal {
            name.push_str("+MARGINAL");
        }
        name
    }

    /// The arm's parameters.
    pub fn params(&self) -> &AdmitParams {
        &self.params
    }

    /// Simulation runs this search plans on `runs` runs per threshold: R·iterations, or R for
    /// ACCEPT_IF_FITS.
    pub fn planned_runs(&self, runs: usize) -> usize {
        runs * self.search.evaluations()
    }

    /// Runs done so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The result once finished.
    pub fn result(&self) -> Option<&TuneResult> {
        self.result.as_ref()
    }

    /// Simulates up to `units` (≥ 1) of the remaining runs of the current threshold on `plan` (natively on
    /// up to [`crate::experiment::threads`] threads; a run's result depends only on its seed, so the outcome
    /// is the same for any `units`); the step that completes the last evaluation also finishes the arm.
    /// `seed` seeds the bootstrap CI. Does nothing once finished.
    pub fn step(
        &mut self,
        plan: &RunPlan,
        seed: u64,
        units: usize,
        cache: &mut SimCache,
    ) -> TunerStep {
        let Some((th, runs)) = self.pending(plan.seeds.len(), units) else {
            return TunerStep {
                finished: self.result.is_some(),
                ..TunerStep::default()
            };
        };
        let batch = crate::models::admission::sim::simulate_runs_on(
            crate::experiment::threads(),
            &self.params,
            self.policy(th),
            &plan.seeds[runs],
            &self.grid,
            cache,
            &mut |_| true,
        )
        .unwrap_or_default(); // runs without a cancel hook always finish
        self.absorb(batch, plan, seed)
    }

    /// The runs the next step simulates: the threshold being evaluated (the search proposes one when none
    /// is) and the indices of up to `units` (≥ 1) of its remaining runs among `runs` per threshold. `None`
    /// once finished or when the search proposes nothing.
    pub fn pending(&mut self, runs: usize, units: usize) -> Option<(f64, std::ops::Range<usize>)> {
        if self.result.is_some() {
            return None;
        }
        if self.current.is_none() {
            let th = self.search.next_threshold()?;
            self.current = Some((th, Vec::with_capacity(runs)));
        }
        let (th, done_runs) = self.current.as_ref()?;
        let from = done_runs.len();
        Some((*th, from..(from + units.max(1)).min(runs)))
    }

    /// The arm's policy at threshold `th`.
    pub fn policy(&self, th: f64) -> PolicySpec {
        PolicySpec {
            kind: self.kind,
            threshold: th,
            marginal: self.marginal,
        }
    }

    /// One simulation run of the arm's policy at threshold `th` with run seed `seed` (a unit of
    /// [`ArmTuner::pending`], on any copy of the arm).
    pub fn simulate(&self, th: f64, seed: u64, cache: &mut SimCache) -> RunResult {
        crate::models::admission::sim::simulate_run(
            &self.params,
            self.policy(th),
            seed,
            &self.grid,
            cache,
        )
    }

    /// Hands the results of the runs [`ArmTuner::pending`] gave (in run order) to the current evaluation;
    /// the batch that completes the last evaluation also finishes the arm (`seed` seeds the bootstrap CI).
    pub fn absorb(&mut self, batch: Vec<RunResult>, plan: &RunPlan, seed: u64) -> TunerStep {
        let mut out = TunerStep::default();
        let runs = plan.seeds.len();
        let Some((_, done_runs)) = self.current.as_mut() else {
            out.finished = self.result.is_some();
            return out;
        };
        out.runs = batch.len();
        self.done += batch.len();
        let failed = batch.iter().find_map(|r| r.script_error.clone());
        done_runs.extend(batch);
        if let Some(e) = failed {
            // a script that failed fails its arm only: the arm ends here, untunable, with the error
            let (th, done_runs) = self.current.take().unwrap_or_default();
            let ev = summarise_weighted(th, &done_runs, &plan.weights[..done_runs.len()]);
            self.result = Some(TuneResult {
                policy: self.name(),
                kind: self.kind,
                marginal: self.marginal,
                threshold: th,
                tuned: ev.clone(),
                status: TuneStatus::Untunable,
                status_reason: format!("the script failed at threshold {th}: {e}"),
                utilization_ci: (ev.utilization, ev.utilization),
                sweep: self.search.evaluated(),
                error: Some(e),
            });
            out.finished = true;
            return out;
        }
        if done_runs.len() < runs {
            return out;
        }
        if let Some((th, done_runs)) = self.current.take() {
            let ev = summarise_weighted(th, &done_runs, &plan.weights);
            out.evaluated = Some(ev.clone());
            self.search.record(ev);
        }
        if let Some(o) = self.search.finish() {
            let ci = bca_weighted_mean_ci(
                &o.chosen.run_utilization,
                &o.chosen.run_weights,
                self.params.bootstrap,
                0.95,
                seed,
            );
            self.result = Some(TuneResult {
                policy: self.name(),
                kind: self.kind,
                marginal: self.marginal,
                threshold: o.chosen.threshold,
                tuned: o.chosen,
                status: o.status,
                status_reason: o.reason,
                utilization_ci: ci,
                sweep: o.sweep,
                error: None,
            });
            out.finished = true;
        }
        out
    }
}
