//! The named experiments E0.1–E0.4 and their results (ALGORITHMS.md §2.12).

use super::result::TuneResult;
use crate::models::admission::importance::ImportancePlan;
use crate::models::admission::params::{AdmitParams, Labelling, PolicyKind};
use serde::{Deserialize, Serialize};

/// Named experiment presets of ALGORITHMS.md §2.12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// E0.1 baseline vs moment policies (ZEROTH, FIRST, SECOND; plus the accept-if-fits upper bound).
    E01,
    /// E0.2 value of prior information: m ∈ {0, 1, 5, 50} × {FIRST, SECOND} with MARGINAL.
    E02,
    /// E0.3 MARGINAL ablation (seed 000 App. E): FIRST and SECOND, m ∈ {1, 5, 50}, each with and without MARGINAL.
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
                // seed 000 App. E ablates MARGINAL for both moment policies (issue 32)
                let mut v = Vec::new();
                for k in [PolicyKind::First, PolicyKind::Second] {
                    for m in [1u32, 5, 50] {
                        for mg in [false, true] {
                            let name = if mg {
                                format!("{}+MARGINAL m={m}", k.name())
                            } else {
                                format!("{} m={m}", k.name())
                            };
                            v.push((name, with(m, Labelling::Off), k, mg));
                        }
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
