//! The rule a policy names ([`Policy::parse`] reads the names), resolved once per run.

use super::best_fit::BestFit;
use super::la_binary::LaBinary;
use super::lava::Lava;
use super::nilas::Nilas;
use super::rule::PlacementRule;
use crate::models::lifetime::params::Policy;

/// The rule of `policy` (a user's script: best fit's, the pool scores its hosts with the script).
pub fn resolve(policy: &Policy) -> &'static dyn PlacementRule {
    match policy {
        Policy::BestFit | Policy::Script(_) => &BestFit,
        Policy::LaBinary => &LaBinary,
        Policy::Nilas => &Nilas,
        Policy::Lava => &Lava,
    }
}
