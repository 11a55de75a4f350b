//! The placement policies of seed 003 (ALGORITHMS.md §5.1, §5.3–5.5), one file per policy resolved from the
//! policy name ([`resolve::resolve`] of a [`super::params::Policy`]):
//!
//! * [`rule`]: the trait of a policy ([`PlacementRule`]) and what it sees ([`VmNow`], [`PoolView`], and over
//!   its host groups [`GroupScan`]);
//! * [`best_fit`]: the baseline scorer; [`la_binary`]: LA-Binary's binary host classes (§5.5);
//!   [`nilas`]: the temporal cost ahead of best fit (§5.3); [`lava`]: lifetime classes, host states and
//!   deadlines (§5.4);
//! * [`script`]: a user's host score in the policy language (issue 31; its signature in [`hook`]);
//! * [`resolve`]: the rule a policy names.

pub mod best_fit;
pub mod hook;
pub mod la_binary;
pub mod lava;
pub mod nilas;
pub mod resolve;
pub mod rule;
pub mod script;

pub use resolve::resolve;
pub use rule::{DeadlineAction, GroupScan, HostChange, PlacementRule, PoolView, VmNow};
