//! The rule a simulation run decides with ([`ArmRule`]): one of §2.7's built-in policies or a user's script
//! (issue 31). The simulator of [`crate::models::admission::sim`] asks it at every arrival.

use super::moment_policy::{Decision, MomentPolicy};
use super::rule::{AdmissionPolicy, DecisionContext};
use super::script::ScriptAdmit;
use crate::script::ScriptError;

/// A run's admission rule: built in (with MARGINAL and the lead-time diagnostic) or a script.
pub enum ArmRule {
    /// ZEROTH, FIRST, SECOND or ACCEPT_IF_FITS, with its threshold and MARGINAL flag.
    Builtin(MomentPolicy),
    /// A user's `admit` script at its threshold.
    Script(ScriptAdmit),
}

impl ArmRule {
    /// Whether the decision reads the moment curves (a script always does).
    pub fn needs_curves(&self) -> bool {
        match self {
            ArmRule::Builtin(p) => p.needs_curves(),
            ArmRule::Script(s) => s.needs_curves(),
        }
    }

    /// The rule's own test (the cluster also requires `N + n0 ≤ C`); a script that failed rejects.
    pub fn accept(&self, c: &DecisionContext) -> bool {
        match self {
            ArmRule::Builtin(p) => p.accept(c),
            ArmRule::Script(s) => s.accept(c),
        }
    }

    /// Whether the MARGINAL heuristic is on (never for a script).
    pub fn marginal(&self) -> bool {
        matches!(self, ArmRule::Builtin(p) if p.spec.marginal)
    }

    /// The rule's test with its diagnostics ([`Decision`]): a built-in rule's in one pass over the look-ahead
    /// ([`MomentPolicy::decide`]); a script's test alone (no MARGINAL, no lead-time diagnostic: its test is not
    /// made of lead-time conditions the engine can see).
    pub fn decide(&self, c: &DecisionContext) -> Decision {
        match self {
            ArmRule::Builtin(p) => p.decide(c),
            ArmRule::Script(s) => Decision {
                accept: s.accept(c),
                marginal_somewhere: false,
                rejection: None,
            },
        }
    }

    /// A script's first run-time error (and clears it); `None` for a built-in rule.
    pub fn take_error(&self) -> Option<ScriptError> {
        match self {
            ArmRule::Builtin(_) => None,
            ArmRule::Script(s) => s.run.take_error(),
        }
    }
}
