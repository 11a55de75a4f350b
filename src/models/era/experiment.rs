//! The reservation model on the experiment contract (seed 004 §4; ALGORITHMS.md §6.5): the requests and
//! capacity are made when the run is planned; one unit of work is one (policy, κ_use) cell — its predictor
//! fitted (the LP of every period at that κ_use), its requests scheduled and executed. Cells are independent,
//! so natively a step runs its cells on all cores and the report does not depend on the thread count.

use super::exec::{run_cell, CellResult};
use super::jobs::{build, Prices, Setup, SetupSummary};
use super::params::{EraParams, Policy, Preset};
use super::sched::{lp_entries, LpEntries};
use crate::experiment::{index_arg, threads, CellRun, Cells, RunError};
use crate::workload::Workload;
use serde::Serialize;

/// What one step computed: cells `first..first + cells.len()`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EraStep {
    /// Index of the first cell of this step.
    pub first: usize,
    /// Their results.
    pub cells: Vec<CellResult>,
}

/// A figure the paper states, beside which the report puts ours.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaperFigure {
    /// Policy.
    pub policy: &'static str,
    /// Metric.
    pub metric: &'static str,
    /// The paper's value.
    pub value: f64,
}

/// The report of a reservation run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EraReport {
    /// `E4.1` or `E4.3`.
    pub preset: &'static str,
    /// Seed.
    pub seed: u64,
    /// The set-up.
    pub setup: SetupSummary,
    /// Prices.
    pub prices: Prices,
    /// One result per (policy, κ_use), policies outer.
    pub cells: Vec<CellResult>,
    /// What the paper reports for this experiment.
    pub paper: Vec<PaperFigure>,
}

/// A reservation experiment in progress.
pub type EraRun = CellRun<EraCells>;

/// The cells of the experiment: its set-up and `(policy, κ_use)` cells, with the LP predictor's entries the
/// cells computed so far needed.
pub struct EraCells {
    seed: u64,
    params: EraParams,
    setup: Setup,
    cells: Vec<(Policy, f64)>,
    /// The LP predictor's entries per capacity solved at (`C`, or each `κ_use·C` with `lp_at_kappa`).
    lp: Vec<(f64, LpEntries)>,
}

impl EraRun {
    /// Builds the requests and capacity of the preset. Errors: invalid parameters (naming the field), a
    /// workload of the wrong kind, limits.
    pub fn new(w: &Workload, params: &EraParams, seed: u64) -> Result<EraRun, RunError> {
        if let Some(e) = params.validate("era.").into_iter().next() {
            return Err(e.into());
        }
        EraRun::planned(w, params, seed)
    }

    /// Plans the run of a section already validated ([`crate::experiment::ModelDef::start`], after the scenario's one
    /// validation); [`EraRun::new`] validates first.
    pub(crate) fn planned(w: &Workload, params: &EraParams, seed: u64) -> Result<EraRun, RunError> {
        let setup = build(w, params, seed)?;
        let mut cells = Vec::new();
        for p in params.policy_list() {
            for k in params.kappa_list() {
                cells.push((p.clone(), k));
            }
        }
        Ok(CellRun::of(EraCells {
            seed,
            params: params.clone(),
            setup,
            cells,
            lp: Vec::new(),
        }))
    }

    /// The set-up (requests, capacity, prices).
    pub fn setup(&self) -> &Setup {
        &self.cells().setup
    }
}

impl Cells for EraCells {
    type Result = CellResult;
    type Partial = EraStep;
    type Report = EraReport;
    const JOB: &'static str = "a cell of this experiment";
    const RESULT: &'static str = "cell's result";

    fn len(&self) -> usize {
        self.cells.len()
    }

    fn prepare(&mut self, range: std::ops::Range<usize>) -> Result<(), RunError> {
        self.ensure_lp(range)
    }

    fn compute(&self, i: usize) -> Result<CellResult, RunError> {
        let (p, k) = &self.cells[i];
        run_cell(
            &self.setup,
            &self.params,
            p.clone(),
            *k,
            self.lp_for(*k),
            None,
        )
        .map(|r| r.0)
    }

    fn partial(first: usize, cells: Vec<CellResult>) -> EraStep {
        EraStep { first, cells }
    }

    fn report(&self, cells: &[CellResult]) -> EraReport {
        let paper = match self.params.preset {
            Preset::E41 => vec![
                PaperFigure {
                    policy: "greedy",
                    metric: "value_efficiency",
                    value: 0.10,
                },
                PaperFigure {
                    policy: "basic-econ",
                    metric: "value_efficiency",
                    value: 0.51,
                },
            ],
            Preset::E43 => Vec::new(),
        };
        EraReport {
            preset: self.params.preset.name(),
            seed: self.seed,
            setup: self.setup.summary.clone(),
            prices: self.setup.prices,
            cells: cells.to_vec(),
            paper,
        }
    }

    /// `request` with `{ "cell": i, "index": k }` (defaults 0, 0): the teaching view of the k-th scheduled
    /// request under cell i's policy and κ_use ([`super::sched::RequestView`]).
    fn answer<S: serde::Serializer>(
        run: &EraRun,
        op: &str,
        args: &serde_json::Value,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        if op != "request" {
            return Err(RunError::msg(format!(
                "the era run has no operation '{op}' (expected request)"
            )));
        }
        let c = run.cells();
        let (cell, index) = (index_arg(args, "cell")?, index_arg(args, "index")?);
        let (p, k) =
            c.cells.get(cell).cloned().ok_or_else(|| {
                RunError::field("cell", format!("must be below {}", c.cells.len()))
            })?;
        let scheduled = c
            .setup
            .requests
            .iter()
            .filter(|r| r.arrival >= c.setup.period)
            .count();
        if index >= scheduled {
            return Err(RunError::field(
                "index",
                format!("must be below {scheduled} (the scheduled requests)"),
            ));
        }
        let lp = match c.lp_for(k) {
            Some(lp) => Some(std::borrow::Cow::Borrowed(lp)),
            None if p.uses_lp() => {
                let bucket = c.params.lp_bucket_min.round() as i64;
                Some(std::borrow::Cow::Owned(lp_entries(
                    &c.setup,
                    c.lp_capacity(k),
                    bucket,
                    threads(),
                )?))
            }
            None => None,
        };
        let (_, view) = run_cell(&c.setup, &c.params, p, k, lp.as_deref(), Some(index))?;
        view.expect("stopped at the request")
            .serialize(ser)
            .map_err(|e| RunError::msg(e.to_string()))
    }
}

impl EraCells {
    /// The capacity the LP predictor is solved at for κ_use `kappa`: `C`, or `⌊κ_use·C⌋` with
    /// `lp_at_kappa` (the capacity BASIC_ECON plans against).
    fn lp_capacity(&self, kappa: f64) -> f64 {
        if self.params.lp_at_kappa {
            (kappa * self.setup.capacity + 1e-9).floor()
        } else {
            self.setup.capacity
        }
    }

    /// The LP entries solved at the capacity of κ_use `kappa`, if computed.
    fn lp_for(&self, kappa: f64) -> Option<&LpEntries> {
        let c = self.lp_capacity(kappa);
        self.lp.iter().find(|(k, _)| *k == c).map(|(_, e)| e)
    }

    /// Solves the LPs of every period once per capacity, when a cell of `range` is the first to need them.
    fn ensure_lp(&mut self, range: std::ops::Range<usize>) -> Result<(), RunError> {
        let needed: Vec<f64> = self.cells[range]
            .iter()
            .filter(|(p, _)| p.uses_lp())
            .map(|&(_, k)| self.lp_capacity(k))
            .collect();
        let bucket = self.params.lp_bucket_min.round() as i64;
        for c in needed {
            if !self.lp.iter().any(|(k, _)| *k == c) {
                let e = lp_entries(&self.setup, c, bucket, threads())?;
                self.lp.push((c, e));
            }
        }
        Ok(())
    }
}
