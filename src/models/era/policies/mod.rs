//! The reservation policies of seed 004 (ALGORITHMS.md §6.3), one file per policy behind one trait and
//! resolved from the spec strings (`on-demand`, `greedy`, `basic-econ[:predictor][:penalty]`, `script:NAME`):
//!
//! * [`spec`]: the spec strings ([`Policy`], [`Algorithm`], [`Predictor`]);
//! * [`quote`]: what a policy sees and gives ([`Plan`], [`Quote`], [`QuoteDetail`]) and the trait
//!   ([`QuotePolicy`]);
//! * [`on_demand`], [`greedy`] (the baselines), [`basic_econ`] (ERA's pricing): the policies;
//! * [`script`]: a user's quote rule in the policy language (issue 31; its signature in [`hook`]): the
//!   policy `script:NAME` of `era.scripts`;
//! * [`resolve`]: the policy a spec names.

pub mod basic_econ;
pub mod greedy;
pub mod hook;
pub mod on_demand;
pub mod quote;
pub mod resolve;
pub mod script;
pub mod spec;

pub use quote::{Decision, Plan, Quote, QuoteDetail, QuotePolicy, TIE_REL};
pub use spec::{Algorithm, Policy, Predictor};
