//! The packing rule a spec names (`ff`, `bf`; seed 002 Alg. 1): First Fit ([`super::first_fit`]) or Best
//! Fit ([`super::best_fit`]).

use serde::{Deserialize, Serialize};

/// Packing rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Rule {
    /// First Fit: the lowest-index open bin the item fits into.
    #[serde(rename = "ff")]
    FirstFit,
    /// Best Fit: the fitting bin with the smallest fit-test key (tightest fit); ties go to the lowest index.
    #[serde(rename = "bf")]
    #[default]
    BestFit,
}

impl Rule {
    /// Parses `ff` / `bf` (also `first-fit` / `best-fit`).
    pub fn parse(s: &str) -> Result<Rule, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ff" | "first-fit" | "firstfit" => Ok(Rule::FirstFit),
            "bf" | "best-fit" | "bestfit" => Ok(Rule::BestFit),
            other => Err(format!(
                "unknown packing rule '{other}' (expected ff or bf)"
            )),
        }
    }

    /// `ff` or `bf`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::FirstFit => "ff",
            Rule::BestFit => "bf",
        }
    }
}
