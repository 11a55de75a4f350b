//! The native integration tests, one crate with one module per area (issue 30: one test binary links the
//! release crate once instead of 26 times). A test's name is `module::test`, e.g.
//! `cargo test --release --test integration placement_model::` runs the placement model's tests only.
//! Shared helpers live in `tests/common/` (also read by `benches/admit_is.rs`); property-test regressions sit
//! beside their module (`<module>.proptest-regressions`). No test here changes process-wide state (environment,
//! working directory, global thread pool): each child process gets its own `current_dir`/`env`, so the modules
//! share one process and run in parallel as the separate binaries did.

#[path = "../common/mod.rs"]
mod common;

mod admission_default;
mod admit_fit;
mod admit_is;
mod admit_moments;
mod admit_pricing;
mod admit_sim;
mod chart_pins;
mod cli_pack;
mod cli_pins;
mod doc_links;
mod era;
mod findings_links;
mod findings_tables;
mod fuzz_regressions;
mod lifetime_learned;
mod lifetime_theory;
mod link_runs;
mod oversub;
mod oversub_learner;
mod oversub_pretrained;
mod placement_calibration;
mod placement_model;
mod pool_jobs;
mod sweep_shards;
mod trace_streaming;
mod untrusted_scenarios;
