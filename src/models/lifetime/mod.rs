//! Lifetime-aware VM allocation (seed 003; ALGORITHMS.md §5): best fit, LA-Binary, NILAS and LAVA on one
//! pool's share of real VM arrivals, with oracle, noisy and distributional lifetime predictions.
//!
//! - [`params`]: the scenario section ([`LifetimeParams`]), [`Policy`], [`PredictorKind`];
//! - [`pool`]: the pool's share of a workload (thinning by tenant batches, censoring, the population
//!   lifetime distribution);
//! - [`predictor`]: the predictors behind [`predictor::LifetimePredictor`] (§5.2);
//! - [`features`], [`hazard`], [`learned`]: the learned distributional predictor (VM features from the
//!   workload records, a discrete-time survival model over the lifetime bins, the per-job distributions);
//! - [`model_metrics`]: the model metrics of §5.8 and E3.6 (precision/recall/F1 of the long class, C-index,
//!   |log10 error|, F1 by uptime quantile);
//! - [`sim`]: the event-driven pool (§5.1) on the DES kernel, over [`host`]'s hosts;
//! - [`tiers`]: LA-Binary's and LAVA's hosts grouped by what decides their tier, for the pool's choice;
//! - [`policies`]: one file per placement policy (best fit, LA-Binary §5.5, NILAS §5.3, LAVA §5.4) behind
//!   [`policies::PlacementRule`], resolved from [`Policy`];
//! - [`lars`]: the defragmentation's drains and migration orders (LARS, §5.6) and their replay;
//! - [`sampling`]: the pool metrics of §5.8 (empty hosts, stranding by inflation, diagnostics, timeline);
//! - [`experiment`]: [`LifetimeRun`], one unit of work = one policy simulated on the pool;
//! - [`chart`]: the charts `lifetime.empty` (empty hosts over time, one line per policy) and
//!   `lifetime.timeline` (every host's lifetime class / LAVA state hour by hour; run operation `timeline`)
//!   and `lifetime.accuracy` (E3.2: Δ empty hosts against the accuracy A of the noisy predictor);
//! - [`LifetimeModel`]: the registry entry.
//!
//! Units: hours for times and lifetimes, cores / GB / GPUs for shapes, fractions for metrics (and percentage
//! points for differences).

pub mod chart;
pub mod experiment;
pub mod features;
pub mod hazard;
pub mod host;
pub mod lars;
pub mod learned;
pub mod model_metrics;
pub mod params;
pub mod policies;
pub mod pool;
pub mod predictor;
pub mod sampling;
pub mod sim;
pub mod tiers;

pub use experiment::{LifetimeReport, LifetimeRun, LifetimeStep};
pub use params::{LifetimeParams, Policy, PredictorKind};
pub use sampling::PolicyResult;
pub use sim::SimConfig;

use crate::experiment::RunError;
use crate::experiment::{Inputs, ModelDef, ModelInfo};
use crate::substrate::error::FieldError;

/// The registry entry of the lifetime model.
pub struct LifetimeModel;

impl ModelDef for LifetimeModel {
    const INFO: ModelInfo = ModelInfo {
        id: "lifetime",
        title: "Lifetime",
        hint: "lifetime-aware VM allocation: NILAS, LAVA (seed 003)",
        source: "seed 003, ALGORITHMS.md §5",
        uses_trace: false,
        uses_workload: true,
        reads_facts: true,
        experiments: &[],
        charts: chart::CHARTS,
        ops: &["policies", "starters"],
        run_ops: &["timeline"],
    };
    type Section = LifetimeParams;
    type Run = LifetimeRun;

    fn validate(section: &LifetimeParams, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(
        section: &LifetimeParams,
        seed: u64,
        inputs: &Inputs,
    ) -> Result<LifetimeRun, RunError> {
        match inputs.facts {
            Some(f) => LifetimeRun::planned(f, section, seed),
            None => {
                let w = inputs.need_workload()?;
                let f = crate::workload::WorkloadFacts::from_workload(w)
                    .map_err(|e| RunError::field("workload", e.to_string()))?;
                LifetimeRun::planned(&f, section, seed)
            }
        }
    }

    /// `policies`: every policy the section's `policies` accepts, `[{ name, title, hint }]` in
    /// [`Policy::ALL`]'s order (the order the charts colour them by; [`Policy::infos`]); `starters`: the starter
    /// scripts of the playground's code box (issue 31), `[{ name, language, enabled, source }]`.
    fn call<S: serde::Serializer>(
        _section: &LifetimeParams,
        _seed: u64,
        op: &str,
        _args: &serde_json::Value,
        _inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        match op {
            "policies" => crate::experiment::serialize_to(&Policy::infos(), ser),
            "starters" => crate::experiment::serialize_to(
                &crate::script::policy::starters(&policies::script::STARTERS),
                ser,
            ),
            _ => Err(RunError::no_op(Self::INFO.id, op)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `policies` operation lists the four policies in [`Policy::ALL`]'s order (the charts' colour order),
    /// each name parsing back to its policy, with the paper's titles.
    #[test]
    fn policies_op() {
        let sc = crate::scenario::Scenario {
            model: crate::scenario::Model::Lifetime,
            ..Default::default()
        };
        let v = crate::scenario::call(
            &sc,
            "policies",
            &serde_json::Value::Null,
            &Inputs::default(),
            serde_json::value::Serializer,
        )
        .unwrap();
        let got: Vec<(&str, &str)> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap(), p["title"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("best-fit", "best fit"),
                ("la-binary", "LA-Binary"),
                ("nilas", "NILAS"),
                ("lava", "LAVA")
            ]
        );
        for (i, (name, _)) in got.iter().enumerate() {
            assert_eq!(Policy::parse(name).unwrap(), Policy::ALL[i]);
        }
    }
}
