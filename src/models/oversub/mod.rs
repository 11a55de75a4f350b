//! Chance-constrained oversubscription (seed 001; ALGORITHMS.md §3): per-subscriber oversubscription rates
//! chosen hourly, the hot-PM constraint `Σ usage ≥ β·B`, and the policies that choose the rates — the §3.4
//! baselines (Grid-x, MA, SL), two further ones (a per-subscriber peak predictor in the style of Google's
//! overcommit simulator, and the analytic chance-constrained rate of seed 002's Gaussian percentile test) and
//! C2MARL, cooperative multi-agent RL under the chance constraint, trained in the run.
//!
//! - [`profile`]: subscriber profiles (the §3.6 synthetic internal cloud, the Azure-derived E1.3 fit) and the
//!   episode generator (VM requests, lifetimes, usage);
//! - [`cluster`]: the hourly cluster environment of §3.1 (best fit on assigned cores, hot flags, reward,
//!   costs, observations) and the per-episode metrics;
//! - [`params`]: the scenario section ([`OversubParams`]), presets and limits;
//! - [`policies`]: the rate policies, one file each behind [`policies::RatePolicy`] (Grid-x, MA, SL, peak,
//!   GPA, C2MARL acting), their names ([`Policy`]) and [`policies::resolve`];
//! - [`nn`], [`c2marl`]: the small MLP + Adam and the C2MARL learner (§3.3);
//! - [`pretrained`]: C2MARL arms trained beforehand, with their recipe (the playground's bundled policy);
//! - [`experiment`]: [`OversubRun`] — training episodes, then evaluation episodes, on the experiment contract;
//! - [`chart`]: `oversub.frontier`, `oversub.training`, `oversub.rates`.
//!
//! Units: cores (PM capacity `B`, requested `c_v`, assigned `a_v = rate·c_v`), hours (steps), fractions in
//! [0, 1] for rates, usage and the metrics.

pub mod c2marl;
pub mod chart;
pub mod cluster;
pub mod experiment;
pub mod nn;
pub mod params;
pub mod policies;
pub mod pretrained;
pub mod profile;

pub use experiment::{OversubReport, OversubRun, OversubStep};
pub use params::{
    component, ArrivalOrder, OversubParams, Preset, SectionSetup, MAX_EPISODES, MAX_PMS,
};
pub use policies::spec::{Peak, Policy, ALPHA_RANGE};

use crate::experiment::RunError;
use crate::experiment::{Inputs, ModelDef, ModelInfo};
use crate::substrate::error::FieldError;
use serde::Serializer;
/// The registry entry of the oversubscription model.
pub struct OversubModel;

impl ModelDef for OversubModel {
    const INFO: ModelInfo = ModelInfo {
        id: "oversub",
        title: "Oversubscription",
        hint: "chance-constrained oversubscription rates per subscriber: C2MARL vs Grid, MA, SL (seed 001)",
        source: "seed 001, ALGORITHMS.md §3",
        uses_trace: false,
        uses_workload: false,
        reads_facts: false,
        experiments: &["E1.1", "E1.2", "E1.3", "E1.4"],
        charts: chart::CHARTS,
        ops: &["pretrained", "setup", "starters"],
        run_ops: &["policy", "pretrained"],
    };
    type Section = OversubParams;
    type Run = OversubRun;

    fn validate(section: &OversubParams, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(section: &OversubParams, seed: u64, inputs: &Inputs) -> Result<OversubRun, RunError> {
        OversubRun::planned(section, seed, inputs)
    }

    /// `pretrained` (no arguments; the pretrained files among `inputs.files`): the scenario's C2MARL arms,
    /// each with the file that serves it or why none does ([`pretrained::ArmMatch`], in the run's order);
    /// `setup`: the policy list and K before a run ([`SectionSetup`]); `starters`: the starter scripts of the
    /// playground's code box (issue 31), `[{ name, language, source }]` ([`policies::script::STARTERS`]).
    fn call<S: Serializer>(
        section: &OversubParams,
        seed: u64,
        op: &str,
        _args: &serde_json::Value,
        inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        if op == "setup" {
            let setup = SectionSetup {
                policies: section.policy_list(),
                pms: section.pm_count(),
                alpha: [ALPHA_RANGE.0, ALPHA_RANGE.1],
            };
            return crate::experiment::serialize_to(&setup, ser);
        }
        if op == "starters" {
            return crate::experiment::serialize_to(
                &crate::script::policy::starters(&policies::script::STARTERS),
                ser,
            );
        }
        if op != "pretrained" {
            return Err(RunError::msg(format!(
                "the oversub model has no operation '{op}' (expected pretrained, setup or starters)"
            )));
        }
        let files =
            pretrained::given(inputs).map_err(|e| RunError::field("oversub.policies", e))?;
        crate::experiment::serialize_to(&pretrained::match_arms(section, seed, &files), ser)
    }
}
