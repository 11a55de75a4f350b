//! Helpers shared by the integration tests (`mod common;` in a test file; each uses a subset of them).
#![allow(dead_code)]

use packlab::trace::{Unit, UsageTrace};

/// A usage trace from integer CPU percentages, one row per VM (`vm0`, `vm1`, …), 300 s apart, in
/// [`Unit::Percent`], so hand-worked cases and independent recounts work in exact integers.
pub fn percent_trace(percent: &[Vec<i64>]) -> UsageTrace {
    let items = (0..percent.len()).map(|i| format!("vm{i}")).collect();
    let series = percent
        .iter()
        .map(|s| s.iter().map(|&p| p as f64).collect())
        .collect();
    UsageTrace::from_series_in("pct", items, series, 300.0, Unit::Percent).unwrap()
}

/// The stdout of `packlab ARGS` (the test build's CLI) run from the repository root. Panics naming the command
/// with packlab's stderr when it fails, or when its output is not UTF-8.
pub fn packlab_stdout(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("packlab runs");
    assert!(
        out.status.success(),
        "packlab {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The value of `--name` in a stored command line (`None` if the flag is absent or last).
pub fn flag<'a>(command: &'a str, name: &str) -> Option<&'a str> {
    let mut it = command.split_whitespace();
    while let Some(w) = it.next() {
        if w == name {
            return it.next();
        }
    }
    None
}

/// The stored paper-scale seed 002 runs (`results/002/runs.json`, written by scripts/seed002_findings.py): each
/// with its `command`, `instance`, `seed`, `engine` and `result`.
pub fn seed_002_runs() -> Vec<serde_json::Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/results/002/runs.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let raw: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    raw["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("{path}: no runs"))
        .clone()
}
