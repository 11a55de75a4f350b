//! The lifetime model on the experiment contract (seed 003 §6; ALGORITHMS.md §5.9): the pool's share and the
//! predictions are made when the run is planned; one unit of work is one policy simulated on that pool
//! (best fit first: the baseline of every Δ); the report lists every policy with its Δ empty hosts in
//! percentage points against best fit on the same arrivals. Units are independent, so natively a step
//! simulates its policies on all cores and the report does not depend on the thread count.

use super::lars::{replay_migrations, Defrag, MigrationCounts, MigrationOrder};
use super::params::{LifetimeParams, Policy, PredictorKind};
use super::pool::{select, PoolJobs, ShareSetup};
use super::predictor::{Distributional, LifetimePredictor, Noisy, OneShot, Oracle};
use super::sampling::{PolicyResult, Timeline};
use super::sim::{simulate, simulate_recording, SimConfig};
use crate::experiment::{index_arg, CellRun, Cells, Experiment, RunError};
use crate::workload::WorkloadFacts;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Random-stream component of the noisy predictor's draws.
const COMP_NOISY: u64 = 0x6e6f_6973;

/// What one step simulated: the results of policies `first..first + results.len()` (Δ not yet filled).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LifetimeStep {
    /// Index of the first policy of this step among [`LifetimeParams::runs`].
    pub first: usize,
    /// Their results.
    pub results: Vec<PolicyResult>,
}

/// The report of a lifetime run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LifetimeReport {
    /// The pool's share of the workload.
    pub setup: ShareSetup,
    /// Hosts, and their capacity `(cores, memory GB, GPUs)`.
    pub hosts: usize,
    /// Host capacity `[cores, memory GB, GPUs]` of the section (identical hosts).
    pub host_capacity: [f64; 3],
    /// The pool's total capacity `[cores, memory GB, GPUs]` (for a node inventory, the sum of its hosts).
    pub pool_capacity: [f64; 3],
    /// Warm-up, hours.
    pub warmup_h: f64,
    /// The predictor's label (e.g. `oracle`, `noisy:0.9`).
    pub predictor: String,
    /// Seed.
    pub seed: u64,
    /// One result per policy, best fit first.
    pub results: Vec<PolicyResult>,
}

/// The answer of the run operation `timeline` and the data of the chart `lifetime.timeline`: one policy's
/// host timeline.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineView<'a> {
    /// The policy's name.
    pub policy: String,
    /// Warm-up, hours (shaded in the chart).
    pub warmup_h: f64,
    /// The hosts' states hour by hour.
    #[serde(flatten)]
    pub timeline: &'a Timeline,
}

/// A lifetime experiment in progress.
pub type LifetimeRun = CellRun<PolicyCells>;

/// The experiment's cells: one per policy of [`LifetimeParams::runs`], simulated on the pool's share with the
/// predictions made when the run was planned.
pub struct PolicyCells {
    params: LifetimeParams,
    seed: u64,
    pool: PoolJobs,
    pred: Box<dyn LifetimePredictor>,
    runs: Vec<Policy>,
}

/// One policy's result as a cell's result: a job's result carries the host timeline (which the report leaves
/// out, [`PolicyResult::timeline`]) beside it, as the JSON pair `[result, timeline]`.
#[derive(Clone, Debug)]
pub struct PolicyCell(PolicyResult);

impl Serialize for PolicyCell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.0, &self.0.timeline).serialize(s)
    }
}

impl<'de> Deserialize<'de> for PolicyCell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (mut r, t) = <(PolicyResult, Timeline)>::deserialize(d)?;
        r.timeline = t;
        Ok(PolicyCell(r))
    }
}

impl LifetimeRun {
    /// Selects the pool's share of `w` (the workload's compact records, [`WorkloadFacts`]) and makes the
    /// predictions. Errors: invalid parameters (naming the
    /// field), a split without VMs, a share that keeps nothing.
    pub fn new(
        w: &WorkloadFacts,
        params: &LifetimeParams,
        seed: u64,
    ) -> Result<LifetimeRun, RunError> {
        if let Some(e) = params.validate("lifetime.").into_iter().next() {
            return Err(e.into());
        }
        LifetimeRun::planned(w, params, seed)
    }

    /// Plans the run of a section already validated ([`crate::experiment::ModelDef::start`], after the scenario's one
    /// validation); [`LifetimeRun::new`] validates first.
    pub(crate) fn planned(
        w: &WorkloadFacts,
        params: &LifetimeParams,
        seed: u64,
    ) -> Result<LifetimeRun, RunError> {
        let pool = select(w, params, seed)?;
        let life: Vec<f64> = pool.jobs.iter().map(|j| j.life).collect();
        let repredicted: Box<dyn LifetimePredictor> = match params.predictor {
            PredictorKind::Oracle => Box::new(Oracle::new(life)),
            PredictorKind::Noisy => Box::new(Noisy::new(
                &life,
                params.accuracy,
                seed,
                COMP_NOISY,
                params.noisy_estimate,
            )),
            PredictorKind::Distributional => Box::new(Distributional::new(pool.dist.clone())),
            PredictorKind::Learned => super::learned::for_pool(w, &pool)?,
        };
        // the oracle counts down by itself: wrapping it changes nothing
        let pred: Box<dyn LifetimePredictor> =
            if params.reprediction || params.predictor == PredictorKind::Oracle {
                repredicted
            } else {
                Box::new(OneShot::new(&*repredicted, pool.jobs.len()))
            };
        Ok(CellRun::of(PolicyCells {
            runs: params.runs(),
            params: params.clone(),
            seed,
            pool,
            pred,
        }))
    }

    /// The simulation settings of `policy`.
    pub fn config(&self, policy: Policy) -> SimConfig {
        self.cells().config(policy)
    }

    /// The pool's share (jobs, window, distribution).
    pub fn pool(&self) -> &PoolJobs {
        &self.cells().pool
    }
}

impl PolicyCells {
    /// The simulation settings of `policy`.
    fn config(&self, policy: Policy) -> SimConfig {
        let p = &self.params;
        // a script policy's source (validated: it compiles)
        let script = match &policy {
            Policy::Script(n) => p
                .scripts
                .iter()
                .find(|s| &s.name == n)
                .and_then(|s| super::policies::hook::compile(&s.source).ok())
                .map(std::sync::Arc::new),
            _ => None,
        };
        SimConfig {
            policy,
            script,
            hosts: self.pool.setup.hosts,
            cap: [p.host_cores, p.host_memory_gb, p.host_gpus],
            caps: self.pool.caps.clone().map(std::sync::Arc::new),
            warmup_h: p.warmup_h,
            end: self.pool.end,
            refresh_h: p.refresh_s / 3600.0,
            sample_h: p.sample_min / 60.0,
            stranding_h: p.stranding_h,
            seed: self.seed,
            defrag: None,
            baseline_jobs: self.pool.setup.alive_at_start,
            diagnostics: p.diagnostics,
            ablation: p.ablation,
        }
    }
}

/// E3.5 (seed 003 §6.3, App. H; ALGORITHMS.md §5.6): the policy with defragmentation in ascending start-time
/// order chooses the drains; the returned result is that run (its pool metrics, its counts in `start_order`)
/// with the migration counts of the LARS order and of a random order on the same trajectory
/// ([`replay_migrations`]: the same drained hosts at the same times holding the same VMs, only the order
/// changes, as §6.3 states; every queue run to completion, past the trace's end). Beside it, the
/// closed-loop comparison: the drain actions replayed in two whole simulations, start-time order and LARS, each
/// choosing its own targets (the states diverge once migrations land elsewhere). `maintenance`: the drains
/// are App. H's maintenance drains of the fullest hosts ([`Defrag::maintenance`]).
fn defrag_pair(
    jobs: &[super::pool::Job],
    pred: &dyn LifetimePredictor,
    cfg: &SimConfig,
    maintenance: bool,
) -> PolicyResult {
    let with = |order, replay| SimConfig {
        defrag: Some(Defrag {
            order,
            replay,
            maintenance,
        }),
        ..cfg.clone()
    };
    let (base, drains) = simulate_recording(jobs, pred, &with(MigrationOrder::StartTime, None));
    // every drain's queue runs to completion, past the trace's end
    let counts = |order| replay_migrations(jobs, pred, &drains, order, f64::INFINITY);
    let (start, lars) = (
        counts(MigrationOrder::StartTime),
        counts(MigrationOrder::Lars),
    );
    let actions = Some(std::sync::Arc::new(
        drains.iter().map(|d| (d.check, d.host)).collect::<Vec<_>>(),
    ));
    let closed = |order| {
        let r = simulate(jobs, pred, &with(order, actions.clone()));
        MigrationCounts {
            migrations: r.migrations,
            migrations_saved: r.migrations_saved,
            drained_hosts: r.drained_hosts,
            reordered_drains: 0,
            waited: 0,
        }
    };
    PolicyResult {
        migrations: lars.migrations,
        migrations_saved: lars.migrations_saved,
        drained_hosts: lars.drained_hosts,
        start_order: Some(start),
        lars: Some(lars),
        random_order: Some(counts(MigrationOrder::Random)),
        closed_loop_start_order: Some(closed(MigrationOrder::StartTime)),
        closed_loop_lars: Some(closed(MigrationOrder::Lars)),
        ..base
    }
}

impl Cells for PolicyCells {
    type Result = PolicyCell;
    type Partial = LifetimeStep;
    type Report = LifetimeReport;
    const JOB: &'static str = "a policy run of this experiment";
    const RESULT: &'static str = "policy run's result";

    fn len(&self) -> usize {
        self.runs.len()
    }

    /// Simulates policy `i` (with LARS's pair of runs under defragmentation).
    fn compute(&self, i: usize) -> Result<PolicyCell, RunError> {
        let cfg = self.config(self.runs[i].clone());
        Ok(PolicyCell(if self.params.defrag {
            defrag_pair(&self.pool.jobs, &*self.pred, &cfg, self.params.maintenance)
        } else {
            simulate(&self.pool.jobs, &*self.pred, &cfg)
        }))
    }

    /// A job's result carries the host timeline beside the policy's result ([`PolicyCell`]).
    fn partial(first: usize, cells: Vec<PolicyCell>) -> LifetimeStep {
        LifetimeStep {
            first,
            results: cells.into_iter().map(|c| c.0).collect(),
        }
    }

    /// `timeline` with args `{ policy }` (an index into the results, best fit = 0; default 0): that policy's
    /// [`TimelineView`] once it has been simulated. Errors: another operation, a policy not simulated yet.
    fn answer<S: serde::Serializer>(
        run: &LifetimeRun,
        op: &str,
        args: &serde_json::Value,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        if op != "timeline" {
            return Err(RunError::msg(format!(
                "the lifetime run has no operation '{op}' (expected timeline)"
            )));
        }
        let i = index_arg(args, "policy")?;
        let r = run.results().get(i).map(|c| &c.0).ok_or_else(|| {
            RunError::field(
                "policy",
                format!(
                    "must be below {} (the policies simulated so far)",
                    run.done()
                ),
            )
        })?;
        let view = TimelineView {
            policy: r.policy.name().to_string(),
            warmup_h: run.cells().params.warmup_h,
            timeline: &r.timeline,
        };
        view.serialize(ser)
            .map_err(|e| RunError::msg(format!("timeline: {e}")))
    }

    /// Every policy's Δ empty hosts against the first, best fit.
    fn report(&self, done: &[PolicyCell]) -> LifetimeReport {
        let base = done.first().map_or(0.0, |c| c.0.empty_hosts);
        let results = done
            .iter()
            .map(|PolicyCell(r)| PolicyResult {
                empty_hosts_pp_vs_best_fit: 100.0 * (r.empty_hosts - base),
                ..r.clone()
            })
            .collect();
        let (p, pool) = (&self.params, &self.pool);
        LifetimeReport {
            setup: pool.setup.clone(),
            hosts: pool.setup.hosts,
            host_capacity: [p.host_cores, p.host_memory_gb, p.host_gpus],
            pool_capacity: match &pool.caps {
                Some(c) => c
                    .iter()
                    .fold([0.0; 3], |a, h| [a[0] + h[0], a[1] + h[1], a[2] + h[2]]),
                None => {
                    let n = pool.setup.hosts as f64;
                    [n * p.host_cores, n * p.host_memory_gb, n * p.host_gpus]
                }
            },
            warmup_h: p.warmup_h,
            predictor: p.predictor_label(),
            seed: self.seed,
            results,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{run_to_end, Experiment};

    fn bundled() -> WorkloadFacts {
        let b = crate::data::AZURE2017_ARRIVALS;
        b.read_facts_at(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
            .expect("the bundled arrivals")
    }

    fn small() -> LifetimeParams {
        LifetimeParams {
            share: 0.03,
            stranding_h: 12.0,
            ..LifetimeParams::default()
        }
    }

    #[test]
    fn report_is_the_same_for_any_units_per_step_and_holds_the_invariants() {
        let w = bundled();
        let p = small();
        let mut one = LifetimeRun::new(&w, &p, 3).unwrap();
        while one.step(1).is_some() {}
        let mut all = LifetimeRun::new(&w, &p, 3).unwrap();
        let rep = run_to_end(&mut all, &mut |_, _| true).unwrap();
        assert_eq!(one.report().unwrap(), rep);
        assert_eq!(
            rep.results
                .iter()
                .map(|r| r.policy.clone())
                .collect::<Vec<_>>(),
            Policy::ALL.to_vec()
        );
        let base = rep.results[0].empty_hosts;
        for r in &rep.results {
            assert!(r.empty_hosts <= r.optimum_empty_hosts + 1e-12, "{r:?}");
            assert!((r.empty_hosts_pp_vs_best_fit - 100.0 * (r.empty_hosts - base)).abs() < 1e-9);
            assert!(r.samples > 0 && r.stranding_samples > 0);
            assert_eq!(r.arrivals as usize, rep.setup.vms);
            assert!((0.0..=1.0).contains(&r.packing_density) && r.packing_density >= r.allocation);
        }
        assert_eq!(rep.results[0].empty_hosts_pp_vs_best_fit, 0.0);
    }

    /// App. G.1 at A = 1 is the oracle (ALGORITHMS.md §5.2): every policy's result, bit for bit.
    #[test]
    fn noisy_at_full_accuracy_gives_the_oracle_results() {
        let w = bundled();
        let run = |predictor| {
            let p = LifetimeParams {
                predictor,
                accuracy: 1.0,
                ..small()
            };
            let mut r = LifetimeRun::new(&w, &p, 5).unwrap();
            run_to_end(&mut r, &mut |_, _| true).unwrap().results
        };
        assert_eq!(run(PredictorKind::Noisy), run(PredictorKind::Oracle));
    }

    /// E3.5 on a real pool: the LARS counts are those of the start-order run's own drains
    /// ([`replay_migrations`]), whose start-order replay cut at the run's end gives that run's own counts (and
    /// to completion handles at least as many queued VMs); the closed-loop pair
    /// replays the same drained hosts.
    #[test]
    fn defrag_compares_the_orders_on_the_start_order_trajectory() {
        let w = bundled();
        let p = LifetimeParams {
            policies: vec![Policy::Nilas],
            defrag: true,
            stranding_h: 0.0,
            ..small()
        };
        let mut run = LifetimeRun::new(&w, &p, 3).unwrap();
        let rep = run_to_end(&mut run, &mut |_, _| true).unwrap();
        for r in &rep.results {
            let cfg = SimConfig {
                defrag: Some(Defrag {
                    order: MigrationOrder::StartTime,
                    replay: None,
                    maintenance: false,
                }),
                ..run.config(r.policy.clone())
            };
            let (own, drains) = simulate_recording(&run.pool().jobs, &*run.cells().pred, &cfg);
            assert!(!drains.is_empty(), "{:?}: no drain", r.policy);
            // cut at the run's end, the start-order replay is the run itself; to completion it migrates or
            // saves every VM the cut left queued
            let cut = replay_migrations(
                &run.pool().jobs,
                &*run.cells().pred,
                &drains,
                MigrationOrder::StartTime,
                cfg.end,
            );
            assert_eq!(
                (cut.migrations, cut.migrations_saved, cut.drained_hosts),
                (own.migrations, own.migrations_saved, own.drained_hosts),
                "{:?}",
                r.policy
            );
            let start = r.start_order.unwrap();
            assert!(
                start.migrations + start.migrations_saved >= cut.migrations + cut.migrations_saved
                    && start.drained_hosts == cut.drained_hosts,
                "{start:?} vs {cut:?}"
            );
            let random = r.random_order.unwrap();
            assert_eq!(random.drained_hosts, start.drained_hosts);
            assert_eq!(r.drained_hosts, start.drained_hosts);
            assert_eq!(r.empty_hosts, own.empty_hosts);
            assert!(r.migrations_saved >= start.migrations_saved, "{r:?}");
            assert_eq!(
                r.closed_loop_lars.unwrap().drained_hosts,
                start.drained_hosts
            );
        }
    }

    /// App. F's warm-up on the bundled arrivals: the `dev` VMs alive at the `test` window's start (14,317
    /// censored at its cut, thinned by batches) come first, with negative starts and exits after 0, and are
    /// placed by best fit; the default keeps the pool empty.
    #[test]
    fn alive_at_start_puts_the_dev_vms_running_at_the_cut_first() {
        let w = bundled();
        let p = LifetimeParams {
            alive_at_start: true,
            ..small()
        };
        let run = LifetimeRun::new(&w, &p, 5).unwrap();
        let pool = run.pool();
        let n = pool.setup.alive_at_start;
        // about 3% of the 14,317 (whole batches: a wide binomial)
        assert!((100..1500).contains(&n), "{n}");
        assert_eq!(pool.setup.alive_at_start_drawn, n);
        assert_eq!(pool.jobs.len(), n + pool.setup.vms);
        for (k, j) in pool.jobs.iter().enumerate() {
            if k < n {
                let v = &w.vms[pool.vms[k]];
                assert!(w.deployment(v).unwrap().starts_with("dev:"));
                assert_eq!(v.censored_at_s(), Some(2_100_000.0));
                assert!(j.start < 0.0 && j.exit > 0.0 && j.censored, "{j:?}");
            } else {
                assert!(j.start >= 0.0);
            }
        }
        assert!(pool.jobs[..n].windows(2).all(|x| x[0].start <= x[1].start));
        assert_eq!(run.config(Policy::Nilas).baseline_jobs, n);
        let base = LifetimeRun::new(&w, &small(), 5).unwrap();
        assert_eq!(base.pool().setup.alive_at_start, 0);
        assert_eq!(base.config(Policy::Nilas).baseline_jobs, 0);
        assert_eq!(base.pool().setup.vms, pool.setup.vms);
        assert!(pool.setup.hosts >= base.pool().setup.hosts);
        // sized with the alive set, the empty start gets the warm-up run's pool but places none of those VMs
        let same = LifetimeRun::new(
            &w,
            &LifetimeParams {
                size_with_alive: true,
                ..small()
            },
            5,
        )
        .unwrap();
        assert_eq!(same.pool().setup.hosts, pool.setup.hosts);
        assert!(same.pool().setup.hosts > base.pool().setup.hosts);
        assert_eq!(same.pool().setup.alive_at_start, 0);
        assert_eq!(same.pool().jobs, base.pool().jobs);
        assert_eq!(same.config(Policy::Nilas).baseline_jobs, 0);
    }

    #[test]
    fn the_share_keeps_whole_tenant_batches_and_sizes_the_pool_to_the_peak() {
        let w = bundled();
        let p = small();
        let run = LifetimeRun::new(&w, &p, 5).unwrap();
        let pool = run.pool();
        // whole batches: every kept batch holds as many VMs as the same deployment in the workload
        let mut per_batch = std::collections::HashMap::new();
        for v in w
            .vms
            .iter()
            .filter(|v| w.deployment(v).unwrap_or("").starts_with("test:"))
        {
            *per_batch
                .entry(w.deployment(v).unwrap().to_string())
                .or_insert(0usize) += 1;
        }
        let kept: usize = pool.jobs.len();
        assert!(pool.setup.batches > 0 && pool.setup.split_batches == per_batch.len());
        // the kept fraction of batches is near the share (binomial: 82,946 batches, sd ≈ 0.0006)
        let frac = pool.setup.batches as f64 / pool.setup.split_batches as f64;
        assert!((frac - p.share).abs() < 0.003, "{frac}");
        assert!(kept < w.vms.len());
        // the pool is the smallest whose capacity the peak fills to at most 95%
        let peak = super::super::pool::peak_demand(&pool.jobs, pool.end);
        let h = pool.setup.hosts as f64;
        assert!(
            peak[0] <= 0.95 * h * p.host_cores + 1e-9
                && peak[1] <= 0.95 * h * p.host_memory_gb + 1e-9
        );
        assert!(
            peak[0] > 0.95 * (h - 1.0) * p.host_cores
                || peak[1] > 0.95 * (h - 1.0) * p.host_memory_gb
        );
        // censored VMs never exit and their imputed lifetime is at least their age at the end
        for j in pool.jobs.iter().filter(|j| j.censored) {
            assert!(j.exit.is_infinite() && j.life >= pool.end - j.start - 1e-9);
        }
        // a share that keeps nothing names the field
        let none = LifetimeParams {
            share: 1e-9,
            ..small()
        };
        let e = LifetimeRun::new(&w, &none, 1).err().unwrap();
        assert_eq!(e.field.as_deref(), Some("lifetime.share"));
        let bad = LifetimeParams {
            split: "train".into(),
            ..small()
        };
        assert_eq!(
            LifetimeRun::new(&w, &bad, 1)
                .err()
                .unwrap()
                .field
                .as_deref(),
            Some("lifetime.split")
        );
    }
}
