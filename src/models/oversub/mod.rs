//! Oversubscription with chance constraints (seed 001, ALGORITHMS.md §3): the learner's parts.
pub mod c2marl;
pub mod nn;
