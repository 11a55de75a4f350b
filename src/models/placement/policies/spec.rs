//! Fit-test specifications as written in the CLI and scenarios (`gpa:0.05`, `perc:95`, `max`, ...): parsing,
//! range checks and display ([`FitSpec`]), and the families that a frontier sweeps ([`Family`]). The test
//! a spec names is resolved in [`super::resolve`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// A fit-test specification, written `family:param` as in the CLI and scenarios: `gpa:0.05` (SLO ρ),
/// `gpa-cal:0.01` (target ρ of calibrated GPA), `cantelli:1.7` (b), `av:1.25` (factor f), `perc:95`
/// (percentile p in percent), `max`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FitSpec {
    /// Gaussian Percentile Approximation with SLO ρ ∈ (0, 1): fits iff μ' + z_{1−ρ}·σ' ≤ c.
    Gpa(f64),
    /// GPA calibrated on the observation set O for the target ρ ∈ (0, 1): the knob ρ' is searched so that
    /// the packing's overflow frequency on a held-out half of O is at most ρ (see
    /// [`crate::models::placement::Calibration`]; the search is in `Instance::pack_detailed`).
    GpaCal(f64),
    /// Cantelli with factor b ≥ 0: s_i = μ_i + b·σ_i.
    Cantelli(f64),
    /// Scaled average with factor f > 0: s_i = f·μ_i.
    Av(f64),
    /// Percentile p ∈ [0, 100] (linear interpolation): s_i = P_i(p).
    Perc(f64),
    /// The largest observation: s_i = max over O (perc 100).
    Max,
}

/// A fit-test family, the unit of a frontier series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// GPA (knob: ρ).
    Gpa,
    /// Calibrated GPA (knob: the target ρ), written `gpa-cal`.
    #[serde(rename = "gpa-cal")]
    GpaCal,
    /// Scaled average (knob: f).
    Av,
    /// Percentile (knob: p).
    Perc,
    /// Cantelli (knob: b).
    Cantelli,
    /// Maximum (no knob).
    Max,
    /// A user's script (`placement.scripts`, issue 31): one point per script, no knob; not a [`FitSpec`]
    /// and never in [`Family::ALL`] (a sweep's families).
    Script,
}

impl Family {
    /// All families in display order.
    pub const ALL: [Family; 6] = [
        Family::Gpa,
        Family::GpaCal,
        Family::Av,
        Family::Perc,
        Family::Cantelli,
        Family::Max,
    ];

    /// The family's name as written in specs.
    pub fn name(self) -> &'static str {
        match self {
            Family::Gpa => "gpa",
            Family::GpaCal => "gpa-cal",
            Family::Av => "av",
            Family::Perc => "perc",
            Family::Cantelli => "cantelli",
            Family::Max => "max",
            Family::Script => "script",
        }
    }

    /// Builds the spec of this family with knob value `param` (ignored for `max`), validating its range.
    pub fn spec(self, param: f64) -> Result<FitSpec, String> {
        let s = match self {
            Family::Gpa => FitSpec::Gpa(param),
            Family::GpaCal => FitSpec::GpaCal(param),
            Family::Av => FitSpec::Av(param),
            Family::Perc => FitSpec::Perc(param),
            Family::Cantelli => FitSpec::Cantelli(param),
            Family::Max => FitSpec::Max,
            Family::Script => {
                return Err(
                    "a script is no knob of a family: list it in placement.scripts".to_string(),
                )
            }
        };
        s.validate()?;
        Ok(s)
    }
}

impl FitSpec {
    /// Parses `family:param` (see [`FitSpec`]). Errors say which part is wrong and the valid range.
    pub fn parse(s: &str) -> Result<FitSpec, String> {
        let s = s.trim();
        let (fam, param) = match s.split_once(':') {
            Some((f, p)) => (f.trim().to_ascii_lowercase(), Some(p.trim())),
            None => (s.to_ascii_lowercase(), None),
        };
        let family = match fam.as_str() {
"gpa" => Family::Gpa,
            "gpa-cal" => Family::GpaCal,
            "cantelli" => Family::Cantelli,
            "av" => Family::Av,
            "perc" => Family::Perc,
            "max" => Family::Max,
            other => {
                return Err(format!(
                "unknown fit test '{other}' (expected gpa:RHO, gpa-cal:RHO, cantelli:B, av:F, perc:P or max)"
            ))
            }
        };
        if family == Family::Max {
            return match param {
                None => Ok(FitSpec::Max),
                Some(p) => Err(format!("'max' takes no parameter (got '{p}')")),
            };
        }
        let Some(p) = param else {
            return Err(format!(
                "fit test '{fam}' needs a parameter, e.g. {}",
                FitSpec::example(family)
            ));
        };
        let v: f64 = p
            .parse()
            .map_err(|_| format!("'{p}' is not a number in fit test '{s}'"))?;
        family.spec(v)
    }

    fn example(f: Family) -> &'static str {
        match f {
            Family::Gpa => "gpa:0.05",
            Family::GpaCal => "gpa-cal:0.01",
            Family::Cantelli => "cantelli:1.7",
            Family::Av => "av:1.25",
            Family::Perc => "perc:95",
            Family::Max | Family::Script => "max",
        }
    }

    /// Checks the knob's range: ρ ∈ (0, 1) (GPA and calibrated GPA's target), b ≥ 0, f > 0, p ∈ [0, 100], all finite.
    pub fn validate(&self) -> Result<(), String> {
        let ok = |c: bool, msg: &str| {
            if c {
                Ok(())
            } else {
                Err(format!("{msg} (got {self})"))
            }
        };
        match *self {
            FitSpec::Gpa(r) => ok(
                r.is_finite() && r > 0.0 && r < 1.0,
                "GPA's SLO rho must be in (0, 1)",
            ),
            FitSpec::GpaCal(r) => ok(
                r.is_finite() && r > 0.0 && r < 1.0,
                "calibrated GPA's target rho must be in (0, 1)",
            ),
            FitSpec::Cantelli(b) => ok(
                b.is_finite() && b >= 0.0,
                "Cantelli's b must be a finite number >= 0",
            ),
            FitSpec::Av(f) => ok(
                f.is_finite() && f > 0.0,
                "av's factor f must be a finite number > 0",
            ),
            FitSpec::Perc(p) => ok(
                p.is_finite() && (0.0..=100.0).contains(&p),
                "perc's p must be in [0, 100] (percent)",
            ),
            FitSpec::Max => Ok(()),
        }
    }

    /// The family of this spec.
    pub fn family(&self) -> Family {
        match self {
            FitSpec::Gpa(_) => Family::Gpa,
            FitSpec::GpaCal(_) => Family::GpaCal,
            FitSpec::Cantelli(_) => Family::Cantelli,
            FitSpec::Av(_) => Family::Av,
            FitSpec::Perc(_) => Family::Perc,
            FitSpec::Max => Family::Max,
        }
    }

    /// The knob value (`None` for max).
    pub fn param(&self) -> Option<f64> {
        match *self {
            FitSpec::Gpa(x)
            | FitSpec::GpaCal(x)
            | FitSpec::Cantelli(x)
            | FitSpec::Av(x)
            | FitSpec::Perc(x) => Some(x),
            FitSpec::Max => None,
        }
    }
}

impl fmt::Display for FitSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.param() {
            Some(p) => write!(f, "{}:{}", self.family().name(), p),
            None => write!(f, "{}", self.family().name()),
        }
    }
}

// Read from its name and written as its name (serde's `try_from` / `into`).
crate::serde_by_name!(FitSpec, parse: FitSpec::parse, name: ToString::to_string);

impl std::str::FromStr for FitSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        FitSpec::parse(s)
    }
}
