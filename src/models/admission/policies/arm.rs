//! The rule a simulation run decides with ([`ArmRule`]): one of §2.7's built-in policies or a user's script
//! (issue 31). The simulator of [`crate::models::admission::sim`] asks it at every arrival.

use super::moment_policy::MomentPolicy;
use super::rule::{AdmissionPolicy, DecisionContext};
use super::script::ScriptAdmit;
use crate::models::admission::lead_time::Rejection;
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

    /// With MARGINAL on, whether the candidate is marginal somewhere on the look-ahead; false otherwise.
    pub fn marginal_somewhere(&self, c: &DecisionContext) -> bool {
        self.marginal()
            && match self {
                ArmRule::Builtin(p) => p.marginal_somewhere(c),
                ArmRule::Script(_) => false,
            }
    }

    /// Where a built-in FIRST/SECOND test without MARGINAL fails (the lead-time diagnostic); `None` for a
    /// script (its test is not made of lead-time conditions the engine can see).
    pub fn rejection(&self, c: &DecisionContext) -> Option<Rejection> {
        match self {
            ArmRule::Builtin(p) => p.rejection(c),
            ArmRule::Script(_) => None,
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
