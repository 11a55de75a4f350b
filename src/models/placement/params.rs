//! The placement model's scenario section (seed 002 §5, ALGORITHMS.md §4): fit families and their grids,
//! the packing rule, rebalancing, the observation set, with the defaults and their validation.

use super::policies::Rule;
use super::policies::{Family, FitSpec};
use serde::{Deserialize, Serialize};

/// How realisations are formed from a trace (ALGORITHMS.md §4.1, "real data comes first").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Column t of every task is the same real interval, so the real cross-VM correlation is kept (default).
    #[default]
    Aligned,
    /// R realisations drawn independently per task from its empirical distribution (seed 002 §3.1), seeded.
    Resampled,
}

/// Rebalancing failures allowed before stopping (seed 002 Alg. 1, stated: 5).
pub const REBALANCE_MAX_FAILURES: usize = 5;

/// One fit family's sweep in a frontier: whether it is drawn and its knob grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySweep {
    /// The family.
    pub family: Family,
    /// Whether the family is part of the frontier.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Knob values (ρ for gpa, the target ρ for gpa-cal, f for av, p in percent for perc, b for cantelli; ignored for max).
    #[serde(default)]
    pub grid: Vec<f64>,
}

fn yes() -> bool {
    true
}

impl FamilySweep {
    /// The default sweep of `family`: gpa ρ ∈ {0.2 … 0.0005}, av f ∈ {1 … 3}, perc p ∈ {50 … 100},
    /// cantelli b ∈ {0.5 … 4.4} (ALGORITHMS.md §4.2, §4.5 values plus intermediate points), max; gpa-cal
    /// target ρ ∈ {0.1, 0.05, 0.01, 0.001} (E2.2's values), off by default (each point is up to 22 packings,
    /// and scenarios from before it existed keep their frontier).
    pub fn default_for(family: Family) -> Self {
        let grid = match family {
            Family::Gpa => vec![0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005],
            Family::GpaCal => vec![0.1, 0.05, 0.01, 0.001],
            Family::Av => vec![1.0, 1.25, 1.5, 2.0, 2.5, 3.0],
            Family::Perc => vec![50.0, 70.0, 80.0, 90.0, 95.0, 99.0, 100.0],
            Family::Cantelli => vec![0.5, 1.0, 1.7, 2.5, 4.4],
            Family::Max | Family::Script => vec![],
        };
        FamilySweep {
            family,
            enabled: family != Family::GpaCal,
            grid,
        }
    }
}

pub use crate::script::policy::{ScriptPolicy, MAX_SCRIPTS};

/// Parameters of the placement model: what the CLI flags, the playground controls and share links set.
/// Units: capacity c in VM units (1.0 = one VM's full CPU), clairvoyance ℓ as a fraction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlacementParams {
    /// Machine capacity c, VM units (> 0).
    pub capacity: f64,
    /// Packing rule.
    pub rule: Rule,
    /// Rebalancing on/off (seed 002 Alg. 1; on by default).
    pub rebalance: bool,
    /// Clairvoyance ℓ ∈ (0, 1]: O = first ⌊ℓ·R⌋ columns, E = the rest; ℓ = 1 means O = E = all.
    pub clairvoyance: f64,
    /// Realisation mode.
    pub mode: Mode,
    /// R, the realisations per task in `resampled` mode (ignored in `aligned` mode, where R = trace samples).
    pub realisations: usize,
    /// The single packing shown in the teaching view and by `packlab pack`.
    pub fit: FitSpec,
    /// The SLO ρ drawn as the reference line of the frontier.
    pub target_rho: f64,
    /// The families of the frontier and their grids.
    pub families: Vec<FamilySweep>,
    /// Users' fit tests, one frontier point each after the families' (empty by default; not written when
    /// empty, so scenarios without scripts encode as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<ScriptPolicy>,
}

impl Default for PlacementParams {
    fn default() -> Self {
        PlacementParams {
            capacity: DEFAULT_CAPACITY,
            rule: Rule::BestFit,
            rebalance: true,
            clairvoyance: 1.0,
            mode: Mode::Aligned,
            realisations: 10_000,
            fit: FitSpec::Gpa(0.05),
            target_rho: 0.05,
            families: Family::ALL
                .iter()
                .map(|f| FamilySweep::default_for(*f))
                .collect(),
            scripts: Vec::new(),
        }
    }
}

/// Default machine capacity c in VM units. With PlanetLab VMs (mean usage 0.093–0.124 VM per day) GPA places
/// 24–30 VMs on a 4-VM-unit machine, the regime of seed 002's 21–29 tasks per machine (1000 tasks over its
/// median m_abs 47 to 35, §5.6); figures from results/002/tables.md (E2.2 and "Reading the gaps").
pub const DEFAULT_CAPACITY: f64 = 4.0;

use crate::substrate::error::{FieldError, FieldErrors};

/// Largest realisation count accepted in resampled mode.
pub const MAX_REALISATIONS: usize = 100_000;
/// Largest grid per family.
pub const MAX_GRID: usize = 200;

impl PlacementParams {
    /// Validates every field; errors are prefixed with `prefix` (e.g. `placement.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if !(self.capacity.is_finite() && self.capacity > 0.0) {
            errs.add(
                "capacity",
                format!(
                    "capacity must be a finite number > 0 (VM units), got {}",
                    self.capacity
                ),
            );
        }
        if !(self.clairvoyance.is_finite() && self.clairvoyance > 0.0 && self.clairvoyance <= 1.0) {
            errs.add(
                "clairvoyance",
                format!("clairvoyance must be in (0, 1], got {}", self.clairvoyance),
            );
        }
        if self.mode == Mode::Resampled && !(1..=MAX_REALISATIONS).contains(&self.realisations) {
            errs.add(
                "realisations",
                format!(
                    "realisations must be 1..={MAX_REALISATIONS}, got {}",
                    self.realisations
                ),
            );
        }
        if let Err(m) = self.fit.validate() {
            errs.add("fit", m);
        }
        if !(self.target_rho.is_finite() && self.target_rho > 0.0 && self.target_rho < 1.0) {
            errs.add(
                "target_rho",
                format!("target rho must be in (0, 1), got {}", self.target_rho),
            );
        }
        for (k, fs) in self.families.iter().enumerate() {
            if fs.grid.len() > MAX_GRID {
                errs.add(
                    &format!("families[{k}].grid"),
                    format!("at most {MAX_GRID} values"),
                );
            }
            if fs.family == Family::Script {
                errs.add(
                    &format!("families[{k}].family"),
                    "'script' is not a swept family: list scripts in placement.scripts".to_string(),
                );
            } else if fs.family != Family::Max {
                for (g, v) in fs.grid.iter().enumerate() {
                    if let Err(m) = fs.family.spec(*v) {
                        errs.add(&format!("families[{k}].grid[{g}]"), m);
                    }
                }
            }
        }
        crate::script::policy::validate_scripts(
            &self.scripts,
            super::policies::script::compile,
            &mut errs,
        );
        errs.into_vec()
    }

    /// The enabled scripts, compiled (in `scripts` order, with their index there). Errors: the first script
    /// that does not compile, naming its field, line and column.
    pub fn compiled_scripts(
        &self,
    ) -> Result<Vec<(usize, std::sync::Arc<crate::script::Script>)>, PlacementError> {
        let mut out = Vec::new();
        for (k, sp) in self.scripts.iter().enumerate().filter(|(_, s)| s.enabled) {
            let s = super::policies::script::compile(&sp.source).map_err(|e| PlacementError {
                field: Some(format!("placement.scripts[{k}].source")),
                message: e.to_string(),
            })?;
            out.push((k, std::sync::Arc::new(s)));
        }
        Ok(out)
    }
}

/// An error of the placement model (bad parameters or an instance that cannot be built).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacementError {
    /// The offending field, when one is to blame.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PlacementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(x) => write!(f, "{x}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for PlacementError {}

impl From<Vec<FieldError>> for PlacementError {
    fn from(errs: Vec<FieldError>) -> Self {
        PlacementError {
            field: errs.first().map(|e| e.field.clone()),
            message: errs
                .iter()
                .map(|e| e.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}
