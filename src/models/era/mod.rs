//! Economic reservations and dynamic pricing (seed 004; ALGORITHMS.md §6): ERA's `makeReservation` with
//! BASIC_ECON (prices from predicted demand, cheapest start), GREEDY_FIRSTFIT at a fixed price and ON_DEMAND,
//! on real SWIM MapReduce arrivals (E4.1) and on synthetic ERA jobs beside real Azure non-ERA load (E4.3).
//!
//! - [`jobs`]: requests (`W` units for `T` slots in a window, value `V`), the E4.1 derivation from SWIM bytes,
//!   the E4.3 generator and the capacity series (planned `C`, actual `C_act`);
//! - [`demand`]: predicted demand curves and prices `P̂(τ, now, q)` (§6.2): LP-based ([`lp`]), spreading,
//!   and the analytic "linear" predictor;
//! - [`policies`]: ON_DEMAND, GREEDY_FIRSTFIT and BASIC_ECON, one file each behind one trait (§6.3), quotes
//!   that never see the value, and a user's quote rule in the policy language (`era.scripts`, issue 31); [`sched`]: the plan and `makeReservation` ([`sched::Scheduler`]);
//! - [`exec`]: the execution layer (actual capacity, EDF, work-conserving early runs, late jobs) and the
//!   metrics of §6.4;
//! - [`experiment`]: [`EraRun`], one unit of work = one (policy, κ_use) cell;
//! - [`chart`]: `era.frontier`, `era.efficiency`, `era.request`.
//!
//! Units: slots of 1 minute; capacity and `W` in units (cores for E4.3, task slots for E4.1); prices and
//! values in dollars (E4.3: multiples of `p_full` per core-minute).

pub mod chart;
pub mod demand;
pub mod exec;
pub mod experiment;
pub mod jobs;
pub mod lp;
pub mod params;
pub mod policies;
pub mod sched;

pub use experiment::{EraReport, EraRun, EraStep};
pub use params::{
    Algorithm, CapacityBasis, E41Jobs, EraParams, Horizon, NonEraLoad, Policy, Predictor, Preset,
    PresetInfo, MAX_REQUESTS, MAX_SLOTS, PAPER_DATACENTER_CORES,
};

use crate::experiment::RunError;
use crate::experiment::{Inputs, ModelDef, ModelInfo};
use crate::substrate::error::FieldError;

/// The registry entry of the reservation model.
pub struct EraModel;

impl ModelDef for EraModel {
    const INFO: ModelInfo = ModelInfo {
        id: "era",
        title: "Reservations",
        hint: "economic reservations and dynamic pricing: ERA's BASIC_ECON (seed 004)",
        source: "seed 004, ALGORITHMS.md §6",
        uses_trace: false,
        uses_workload: true,
        reads_facts: false,
        experiments: &["E4.1", "E4.3"],
        charts: chart::CHARTS,
        ops: &["policies", "presets", "starters"],
        run_ops: &["request"],
    };
    type Section = EraParams;
    type Run = EraRun;

    fn validate(section: &EraParams, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(section: &EraParams, seed: u64, inputs: &Inputs) -> Result<EraRun, RunError> {
        let w = inputs.need_workload()?;
        EraRun::planned(w, section, seed)
    }

    /// `policies`: every policy name the section's `policies` accepts, `[{ name, title, hint }]`
    /// ([`Policy::all`]); `presets`: both experiments, `[{ name, title, workload, policies, accepts }]`
    /// ([`PresetInfo::all`]); `starters`: the starter scripts of the playground's code box (issue 31),
    /// `[{ name, language, enabled, source }]`.
    fn call<S: serde::Serializer>(
        _section: &EraParams,
        _seed: u64,
        op: &str,
        _args: &serde_json::Value,
        _inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        use crate::experiment::serialize_to;
        match op {
            "policies" => serialize_to(
                &Policy::all().iter().map(Policy::info).collect::<Vec<_>>(),
                ser,
            ),
            "presets" => serialize_to(&PresetInfo::all(), ser),
            "starters" => serialize_to(
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

    #[test]
    fn policy_names_round_trip() {
        for n in [
            "on-demand",
            "greedy",
            "basic-econ:lp",
            "basic-econ:spread",
            "basic-econ:linear:penalty",
            "basic-econ:lp:penalty",
        ] {
            assert_eq!(Policy::parse(n).unwrap().name(), n);
        }
        assert_eq!(Policy::parse("basic-econ").unwrap().name(), "basic-econ:lp");
        assert_eq!(
            Policy::parse("basic-econ:penalty").unwrap().name(),
            "basic-econ:lp:penalty"
        );
        for bad in [
            "",
            "econ",
            "basic-econ:lp:lp",
            "basic-econ:penalty:lp",
            "greedy:lp",
        ] {
            assert!(Policy::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn validation_names_fields() {
        let p = EraParams {
            kappa: vec![0.5, 1.5],
            period_h: f64::NAN,
            ..EraParams::default()
        };
        let f: Vec<String> = p.validate("era.").into_iter().map(|e| e.field).collect();
        assert_eq!(f, ["era.kappa[1]", "era.period_h"]);
        let p = EraParams {
            preset: Preset::E41,
            policies: vec![Policy::parse("basic-econ:linear").unwrap()],
            ..EraParams::default()
        };
        assert_eq!(p.validate("era.")[0].field, "era.policies");
    }

    /// The `policies` and `presets` operations, as the playground reads them: every listed name parses back to
    /// its policy; E4.1 accepts the six policies without the linear predictor, E4.3 all eight; each preset's
    /// default list is among what it accepts; a preset list of a policy it does not accept fails validation.
    #[test]
    fn policies_and_presets_ops() {
        let sc = crate::scenario::Scenario {
            model: crate::scenario::Model::Era,
            ..Default::default()
        };
        let call = |op| {
            crate::scenario::call(
                &sc,
                op,
                &serde_json::Value::Null,
                &Inputs::default(),
                serde_json::value::Serializer,
            )
            .unwrap()
        };
        let policies = call("policies");
        let names: Vec<&str> = policies
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 8);
        for n in &names {
            assert_eq!(Policy::parse(n).unwrap().name(), *n);
        }
        assert_eq!(names[0], "on-demand");
        assert_eq!(names[7], "basic-econ:linear:penalty");
        assert_eq!(policies[2]["title"], "BASIC_ECON, LP predictor");
        let presets = call("presets");
        assert_eq!(presets[0]["name"], "E4.1");
        assert_eq!(presets[0]["workload"], "swim-fb2010");
        assert_eq!(presets[1]["workload"], "azure2017-arrivals");
        let accepts = |i: usize| presets[i]["accepts"].as_array().unwrap().len();
        assert_eq!((accepts(0), accepts(1)), (6, 8));
        assert!(!presets[0]["accepts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("basic-econ:linear")));
        for p in presets.as_array().unwrap() {
            for n in p["policies"].as_array().unwrap() {
                assert!(p["accepts"].as_array().unwrap().contains(n), "{n}");
            }
        }
        assert_eq!(
            presets[1]["policies"],
            serde_json::json!([
                "on-demand",
                "greedy",
                "basic-econ:linear",
                "basic-econ:linear:penalty",
                "basic-econ:lp",
                "basic-econ:lp:penalty"
            ])
        );
        assert!(crate::scenario::call(
            &sc,
            "nope",
            &serde_json::Value::Null,
            &Inputs::default(),
            serde_json::value::Serializer
        )
        .is_err());
    }
}
