//! The placement policies of seed 002 (ALGORITHMS.md §4.2–4.3), one file per fit test and packing rule,
//! behind one trait and resolved from the spec strings (`gpa:0.05`, `perc:95`, `ff`, `bf`):
//!
//! * [`fit_test`]: the trait every fit test implements ([`FitTest`]) and what it sees ([`ItemStats`],
//!   [`BinLoad`], [`IndexKind`]);
//! * [`spec`]: the spec strings ([`FitSpec`], [`Family`]); [`resolve`]: the test a spec names
//!   ([`FitSpec::test`]);
//! * [`gpa`]: GPA; [`deterministic`]: the tests ℓ_j + s_k ≤ c, sized by [`cantelli`], [`av`], [`perc`],
//!   [`max`];
//! * [`script`]: a user's fit test in the policy language ([`script::ScriptFit`], issue 31);
//! * [`rule`]: the packing rule ([`Rule`]); [`first_fit`], [`best_fit`]: their scans over the open bins.

pub mod av;
pub mod best_fit;
pub mod cantelli;
pub mod deterministic;
pub mod first_fit;
pub mod fit_test;
pub mod gpa;
pub mod max;
pub mod perc;
pub mod resolve;
pub mod rule;
pub mod script;
pub mod spec;

pub use fit_test::{BinLoad, FitTest, IndexKind, ItemStats};
pub use gpa::Gpa;
pub use rule::Rule;
pub use spec::{Family, FitSpec};

#[cfg(test)]
mod tests;
