//! The policy spec strings of the reservation model (seed 004 §3; ALGORITHMS.md §6.3): `on-demand`,
//! `greedy`, `basic-econ[:lp|:spread|:linear][:penalty]`, `script:NAME` ([`Policy`]: algorithm, predictor,
//! penalty, script name).

use serde::{Deserialize, Serialize};

/// The scheduling algorithm of a policy (§6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Accept iff the current slot has room; price `p_full·W·T`.
    OnDemand,
    /// Earliest feasible start at the fixed price `p_fix·W·T`.
    Greedy,
    /// Cheapest start under predicted-demand prices; accept iff `V ≥ price`.
    BasicEcon,
    /// A user's quote rule in the policy language (`era.scripts`, issue 31; [`super::script`]).
    Script,
}

/// The demand predictor of BASIC_ECON (§6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Predictor {
    /// The LP-based predictor: the optimal fractional allocation of the previous period's requests.
    Lp,
    /// Spreading: each previous request's work spread evenly over its window.
    Spread,
    /// The analytic spreading predictor from the known generating distributions (E4.3 only).
    Linear,
}

/// A policy: algorithm, predictor and the late-start penalty. Serialized as its name: `on-demand`, `greedy`,
/// `basic-econ` (= `basic-econ:lp`), `basic-econ:spread`, `basic-econ:linear`, each BASIC_ECON name optionally
/// followed by `:penalty` (the exponential penalty for later scheduling), or `script:NAME` (the quote rule of
/// that name in `era.scripts`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Policy {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The predictor (BASIC_ECON only; `Lp` otherwise).
    pub predictor: Predictor,
    /// Whether prices carry `exp(γ_pen·(x − s)/(d − s))` (BASIC_ECON only).
    pub penalty: bool,
    /// The script's name in `era.scripts` ([`Algorithm::Script`] only).
    pub script: Option<String>,
}

impl Policy {
    /// The policy's name (see the type's documentation).
    pub fn name(&self) -> String {
        match self.algorithm {
            Algorithm::OnDemand => "on-demand".into(),
            Algorithm::Greedy => "greedy".into(),
            Algorithm::Script => format!("script:{}", self.script.as_deref().unwrap_or("")),
            Algorithm::BasicEcon => format!(
                "basic-econ:{}{}",
                match self.predictor {
                    Predictor::Lp => "lp",
                    Predictor::Spread => "spread",
                    Predictor::Linear => "linear",
                },
                if self.penalty { ":penalty" } else { "" }
            ),
        }
    }

    /// The user's quote rule `script:NAME` (of `era.scripts`).
    pub fn script(name: &str) -> Policy {
        Policy {
            algorithm: Algorithm::Script,
            predictor: Predictor::Lp,
            penalty: false,
            script: Some(name.to_string()),
        }
    }

    /// Whether the policy uses the LP predictor (BASIC_ECON with `lp`: its entries are solved per run).
    pub fn uses_lp(&self) -> bool {
        self.algorithm == Algorithm::BasicEcon && self.predictor == Predictor::Lp
    }

    /// Every built-in policy, in the playground's order: on-demand, greedy, then BASIC_ECON with each predictor (LP,
    /// spreading, linear), each without and with the penalty.
    pub fn all() -> Vec<Policy> {
        let plain = |algorithm| Policy {
            algorithm,
            predictor: Predictor::Lp,
            penalty: false,
            script: None,
        };
        let mut out = vec![plain(Algorithm::OnDemand), plain(Algorithm::Greedy)];
        for predictor in [Predictor::Lp, Predictor::Spread, Predictor::Linear] {
            for penalty in [false, true] {
                out.push(Policy {
                    algorithm: Algorithm::BasicEcon,
                    predictor,
                    penalty,
                    script: None,
                });
            }
        }
        out
    }

    /// Whether the policy needs the known job distributions of E4.3 (BASIC_ECON with the linear predictor).
    pub fn needs_known_distributions(&self) -> bool {
        self.algorithm == Algorithm::BasicEcon && self.predictor == Predictor::Linear
    }

    /// The paper's name (`ON_DEMAND`, `GREEDY_FIRSTFIT`, `BASIC_ECON`) with the predictor and the penalty.
    pub fn title(&self) -> String {
        match self.algorithm {
            Algorithm::OnDemand => "ON_DEMAND".into(),
            Algorithm::Greedy => "GREEDY_FIRSTFIT".into(),
            Algorithm::Script => self.name(),
            Algorithm::BasicEcon => format!(
                "BASIC_ECON, {} predictor{}",
                match self.predictor {
                    Predictor::Lp => "LP",
                    Predictor::Spread => "spreading",
                    Predictor::Linear => "linear",
                },
                if self.penalty { ", penalty" } else { "" }
            ),
        }
    }

    /// One line on what the policy does (ALGORITHMS.md §6.2–6.3; the playground's policy list).
    pub fn hint(&self) -> &'static str {
        match (self.algorithm, self.predictor, self.penalty) {
            (Algorithm::OnDemand, ..) => {
                "accept iff the current slot has room, at the full price p_full per unit-slot"
            }
            (Algorithm::Greedy, ..) => {
                "GREEDY_FIRSTFIT: the earliest feasible start, at a fixed price per unit-slot"
            }
            (Algorithm::Script, ..) => "a user's quote rule (era.scripts): a start and a price per request",
            (Algorithm::BasicEcon, Predictor::Lp, false) => "BASIC_ECON with the LP predictor: prices from the optimal fractional allocation of the previous period",
            (Algorithm::BasicEcon, Predictor::Lp, true) => "the same with the exponential penalty exp(γ·(x − s)/(d − s)) for later starts",
            (Algorithm::BasicEcon, Predictor::Spread, false) => {
                "BASIC_ECON with the spreading predictor: each past request spread over its window"
            }
            (Algorithm::BasicEcon, Predictor::Spread, true) => {
                "spreading predictor with the late-start penalty"
            }
            (Algorithm::BasicEcon, Predictor::Linear, false) => {
                "BASIC_ECON with the analytic predictor of E4.3's known job distributions"
            }
            (Algorithm::BasicEcon, Predictor::Linear, true) => {
                "analytic predictor with the late-start penalty"
            }
        }
    }

    /// The policy with its name, title and hint.
    pub fn info(&self) -> crate::experiment::PolicyInfo {
        crate::experiment::PolicyInfo {
            name: self.name(),
            title: self.title(),
            hint: self.hint(),
        }
    }

    /// Parses a name of [`Policy::name`] (also `basic-econ` and `basic-econ:penalty` for the LP predictor).
    /// `script:NAME` needs a non-empty NAME (that it names a script of `era.scripts` is the section's check).
    pub fn parse(s: &str) -> Result<Policy, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "unknown policy '{s}' (expected on-demand, greedy, basic-econ[:lp|:spread|:linear][:penalty] or script:NAME)"
            )
        };
        if let Some(n) = s.strip_prefix("script:") {
            if n.is_empty() {
                return Err(bad());
            }
            return Ok(Policy::script(n));
        }
        let plain = |algorithm| Policy {
            algorithm,
            predictor: Predictor::Lp,
            penalty: false,
            script: None,
        };
        match s {
            "on-demand" => return Ok(plain(Algorithm::OnDemand)),
            "greedy" => return Ok(plain(Algorithm::Greedy)),
            _ => {}
        }
        let mut parts = s.split(':');
        if parts.next() != Some("basic-econ") {
            return Err(bad());
        }
        let mut p = plain(Algorithm::BasicEcon);
        let mut predictor_set = false;
        for part in parts {
            match part {
                "lp" | "spread" | "linear" if !predictor_set && !p.penalty => {
                    predictor_set = true;
                    p.predictor = match part {
                        "lp" => Predictor::Lp,
                        "spread" => Predictor::Spread,
                        _ => Predictor::Linear,
                    };
                }
                "penalty" if !p.penalty => p.penalty = true,
                _ => return Err(bad()),
            }
        }
        Ok(p)
    }
}

// Read from its name and written as its name (serde's `try_from` / `into`).
crate::serde_by_name!(Policy, parse: Policy::parse, name: Policy::name);
