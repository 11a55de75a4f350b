//! The runs every threshold of a tuning is evaluated on (plain or importance-sampled; ALGORITHMS.md §2.8,
//! §2.9).

use super::stats::*;
use crate::models::admission::importance::{self, ImportancePlan};
use crate::models::admission::params::AdmitParams;
use crate::models::admission::sim::SimCache;
use serde::{Deserialize, Serialize};

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
