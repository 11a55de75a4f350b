//! The admission policies of §2.7 (ALGORITHMS.md §2.7, seed 000 Def. 4.1, 4.2, 4.4, 6.1), one file per rule
//! resolved from the policy spec (as the arms' `ZEROTH`, `FIRST`, `SECOND`, `ACCEPT_IF_FITS`, `+MARGINAL`):
//!
//! * [`rule`]: what a rule sees at an arrival ([`DecisionContext`]) and the traits of a rule and a policy;
//! * [`zeroth`], [`first`], [`second`], [`accept_if_fits`]: the rules; [`marginal`]: the MARGINAL heuristic;
//! * [`script`]: a user's admission rule in the policy language (issue 31; the hook in the engine);
//! * [`arm`]: the rule a simulation run decides with, built in or a script ([`ArmRule`]);
//! * [`resolve`]: the rule a spec names; [`moment_policy`]: the policy ([`MomentPolicy`]: rule, threshold,
//!   MARGINAL, and where the test fails).

pub mod accept_if_fits;
pub mod arm;
pub mod first;
pub mod marginal;
pub mod moment_policy;
pub mod resolve;
pub mod rule;
pub mod script;
pub mod second;
pub mod zeroth;

pub use arm::ArmRule;
pub use moment_policy::{Decision, MomentPolicy};
pub use rule::{AdmissionPolicy, AdmissionRule, DecisionContext};
