//! `packlab run --link L` run once per run-defining part of a scenario for the whole test process (issue 30: the
//! native tests' CPU). `packlab run --link` decodes the link with [`Scenario::from_link`], loads the inputs its
//! trace and workload references name (or `--trace`), and starts the model with its own section and the seed
//! only (`src/bin/packlab/main.rs` `cmd_run`; `src/scenario/mod.rs` `plan`: `ModelDef::start(&sc.<section>,
//! sc.seed, inputs)`). So links that agree on the model, its section, the seed and the trace and workload
//! references give the same report: a v1 link and its v2 twin, links of two defaults sets that differ only in
//! other models' sections, a test's own scenario and a saved link of it. The report is computed for the first
//! of them; every check still compares its own expected bytes or facts with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use packlab::scenario::Scenario;

/// The stdout of `packlab run --link LINK [--trace TRACE]` run from the repository root, computed once per
/// [`run_key`] and `--trace` path. Panics with packlab's stderr if the run fails, or if the link does not
/// decode.
pub fn run_link(link: &str, trace: Option<&str>) -> Arc<String> {
    type Cell = Arc<OnceLock<Arc<String>>>;
    static RUNS: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let sc = Scenario::from_link(link).unwrap_or_else(|e| panic!("{link}: {e}"));
    let key = format!("{}\n{}", run_key(&sc), trace.unwrap_or(""));
    // the map's lock is held only to find the key's cell; a second test with the same key waits on the
    // cell while the first runs packlab, the others go on
    let cell: Cell = RUNS
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(key)
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let mut args = vec!["run", "--link", link];
        if let Some(t) = trace {
            args.extend(["--trace", t]);
        }
        Arc::new(crate::common::packlab_stdout(&args))
    })
    .clone()
}

/// What a run of `sc` depends on, as JSON text: the model, the seed, the trace and workload references and the
/// model's own section (every field of it, defaults included; the section is the scenario's member named as
/// the model, e.g. `admission`). Panics if there is no such member.
fn run_key(sc: &Scenario) -> String {
    let v = serde_json::to_value(sc).expect("a scenario serializes");
    let model = v["model"].as_str().expect("the model is a string");
    let section = v
        .get(model)
        .unwrap_or_else(|| panic!("the scenario has no section '{model}'"));
    serde_json::json!([model, v["seed"], v["trace"], v["workload"], section]).to_string()
}
