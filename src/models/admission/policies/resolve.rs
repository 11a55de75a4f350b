//! The rule a policy spec names (`ZEROTH`, `FIRST`, `SECOND`, `ACCEPT_IF_FITS`; [`PolicyKind::parse`]),
//! resolved once per run; the rules are dispatched statically.

use super::accept_if_fits::AcceptIfFits;
use super::first::First;
use super::rule::{AdmissionRule, DecisionContext};
use super::second::Second;
use super::zeroth::Zeroth;
use crate::models::admission::params::{PolicyKind, SecondParam};

/// One of the rules of §2.7.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    Zeroth(Zeroth),
    First(First),
    Second(Second),
    AcceptIfFits(AcceptIfFits),
}

/// The rule of `kind`; SECOND in the parametrisation `second`. A script's arm decides by its script
/// ([`super::ArmRule::Script`], built by the simulator), never by a resolved rule: SCRIPT resolves to
/// ACCEPT_IF_FITS only to keep this total.
pub fn resolve(kind: PolicyKind, second: SecondParam) -> Rule {
    match kind {
        PolicyKind::Script => Rule::AcceptIfFits(AcceptIfFits),
        PolicyKind::Zeroth => Rule::Zeroth(Zeroth),
        PolicyKind::First => Rule::First(First),
        PolicyKind::Second => Rule::Second(Second(second)),
        PolicyKind::AcceptIfFits => Rule::AcceptIfFits(AcceptIfFits),
    }
}

macro_rules! each_rule {
    ($self:expr, $r:ident => $e:expr) => {
        match $self {
            Rule::Zeroth($r) => $e,
            Rule::First($r) => $e,
            Rule::Second($r) => $e,
            Rule::AcceptIfFits($r) => $e,
        }
    };
}

impl AdmissionRule for Rule {
    fn needs_curves(&self) -> bool {
        each_rule!(self, r => r.needs_curves())
    }
    fn accepts_now(&self, c: &DecisionContext, threshold: f64) -> bool {
        each_rule!(self, r => r.accepts_now(c, threshold))
    }
    fn holds(&self, c: &DecisionContext, threshold: f64, e: f64, v: impl FnOnce() -> f64) -> bool {
        each_rule!(self, r => r.holds(c, threshold, e, v))
    }
}
