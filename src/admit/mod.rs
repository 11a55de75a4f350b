//! Cluster admission control (seed 000, ALGORITHMS.md §2): deployments that scale out, Bayesian moment
//! policies tuned to a scale-out SLA.
//!
//! Units throughout: time in hours, rates per hour, capacity and sizes in cores.

pub mod moments;
pub mod special;
pub mod params;
pub mod policy;
pub mod posterior;
pub mod rng;
pub mod sim;
