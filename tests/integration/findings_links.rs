//! The share links of the findings (results/<paper>/links.json, written by scripts/findings_links.py from the
//! engine's `--print-link`): every link decodes to a valid scenario of the paper's model; the links hold what
//! the stored commands ran (flags read here from the stored command lines, scenario files read as committed);
//! and a cheap subset of each paper, replayed with `packlab run --link L --json`, gives the numbers stored in
//! the raw results bit for bit.

use packlab::scenario::{Model, Scenario, TraceRef};
use serde_json::Value;
use std::process::Command;

use crate::common::flag;

const PAPERS: [(&str, Model); 5] = [
    ("000", Model::Admission),
    ("001", Model::Oversub),
    ("002", Model::Placement),
    ("003", Model::Lifetime),
    ("004", Model::Era),
];

fn read(p: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p))
        .unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn json(p: &str) -> Value {
    serde_json::from_str(&read(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The rows of results/<paper>/links.json.
fn rows(paper: &str) -> Vec<Value> {
    json(&format!("results/{paper}/links.json"))
        .as_array()
        .unwrap_or_else(|| panic!("results/{paper}/links.json is not a list"))
        .clone()
}

fn s<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key]
        .as_str()
        .unwrap_or_else(|| panic!("row {row} has no string '{key}'"))
}

/// A row's link as the page uses it (`./#s=` + payload), decoded.
fn decoded(row: &Value) -> Option<Scenario> {
    let link = row["link"].as_str()?;
    let payload = link
        .strip_prefix("./#s=")
        .unwrap_or_else(|| panic!("link {link} does not start with ./#s="));
    Some(Scenario::from_link(payload).unwrap_or_else(|e| panic!("{link}: {e}")))
}

/// Every object with a "command" field in a raw results file, depth first.
fn stored_runs(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            if m.get("command").is_some_and(Value::is_string) {
                out.push(v.clone());
            }
            m.values().for_each(|x| stored_runs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| stored_runs(x, out)),
        _ => {}
    }
}

/// The stored run (in the row's `source` file) whose command the row's link was made from. Each raw file is
/// read once per test process (seed 002's holds 3,338 runs).
fn stored_run(row: &Value) -> Value {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static FILES: OnceLock<Mutex<HashMap<String, Vec<Value>>>> = OnceLock::new();
    let source = s(row, "source");
    let mut files = FILES.get_or_init(Default::default).lock().unwrap();
    let runs = files.entry(source.to_string()).or_insert_with(|| {
        let mut runs = Vec::new();
        stored_runs(&json(source), &mut runs);
        runs
    });
    runs.iter()
        .find(|r| r["command"] == row["command"])
        .cloned()
        .unwrap_or_else(|| panic!("{source}: no stored run with the command of {row}"))
}

/// `packlab run --link PAYLOAD --json`, its report.
fn replay(row: &Value) -> Value {
    let link = s(row, "link").strip_prefix("./#s=").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args(["run", "--link", link, "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "packlab run --link {link}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_link_decodes_to_a_scenario_of_the_papers_model_and_names_its_stored_run() {
    for (paper, model) in PAPERS {
        let rows = rows(paper);
        assert!(!rows.is_empty(), "seed {paper}: no rows");
        let mut linked = 0;
        for row in &rows {
            for key in ["experiment", "arm", "note", "command", "source"] {
                s(row, key);
            }
            // the command is a stored run of the row's raw results file
            stored_run(row);
            match decoded(row) {
                Some(sc) => {
                    linked += 1;
                    assert_eq!(sc.model, model, "seed {paper}: {row}");
                    assert!(!s(row, "note").starts_with("no link"), "{row}");
                }
                None => {
                    assert!(row["link"].is_null(), "{row}");
                    assert!(s(row, "note").starts_with("no link: "), "{row}");
                }
            }
        }
        assert!(linked > 0, "seed {paper}: no link at all");
    }
}

#[test]
fn seed_000_links_hold_the_stored_commands_preset_and_parameters() {
    let rows = rows("000");
    let stored = json("results/000/runs.json");
    assert_eq!(rows.len(), stored["runs"].as_array().unwrap().len());
    for row in &rows {
        let c = s(row, "command");
        let sc = decoded(row).expect("every seed 000 run has a link");
        let a = &sc.admission;
        let num = |name: &str| flag(c, name).unwrap().parse::<f64>().unwrap();
        assert_eq!(a.preset, flag(c, "--preset").unwrap());
        assert_eq!(a.runs as f64, num("--runs"));
        assert_eq!(sc.seed as f64, num("--seed"));
        assert_eq!(a.params.capacity, num("--capacity"));
        assert_eq!(a.params.arrival_rate, num("--arrival-rate"));
        assert_eq!(a.params.tune_iterations as f64, num("--iterations"));
        // what the command leaves to `packlab admit`'s defaults: the §2.13 full horizon and bootstrap
        assert_eq!(a.params.horizon_hours, 26_280.0);
        assert_eq!(a.params.bootstrap, 10_000);
        assert!(a.policies.is_empty(), "every arm of the preset");
        match flag(c, "--prices") {
            Some(p) => {
                let pr = a.params.pricing.as_ref().expect("pricing");
                assert_eq!(format!("{},{}", pr.p_core, pr.p_var), p);
            }
            None => assert!(a.params.pricing.is_none()),
        }
    }
}

#[test]
fn seed_001_links_are_the_stored_scenario_files() {
    for row in rows("001") {
        let file = s(&row, "command").split_whitespace().last().unwrap();
        let want = Scenario::from_json(&read(file)).unwrap();
        let got = decoded(&row).unwrap();
        assert_eq!((got.model, got.seed), (want.model, want.seed), "{file}");
        assert_eq!(got.oversub, want.oversub, "{file}");
    }
}

#[test]
fn seed_001_a_baseline_variant_replays_to_its_stored_rows() {
    // the 3-policy variant without C2MARL (~6 s natively); the others train C2MARL for minutes
    let rows = rows("001");
    let row = rows
        .iter()
        .find(|r| {
            decoded(r)
                .unwrap()
                .oversub
                .policies
                .iter()
                .all(|p| !p.name().starts_with("c2marl"))
        })
        .expect("a variant without C2MARL");
    let stored = stored_run(row);
    let got = replay(row);
    same_rows(
        &got["rows"],
        &stored["report"]["rows"],
        &["policy", "pm_hot_r", "c_hot_r", "s_cores", "utilization"],
        "seed 001",
    );
}

#[test]
fn seed_002_links_replay_to_the_stored_packings_of_each_fit_family() {
    let rows = rows("002");
    let mut families_done = Vec::new();
    for row in &rows {
        let Some(sc) = decoded(row) else { continue };
        let c = s(row, "command");
        assert_eq!(sc.placement.fit.to_string(), flag(c, "--fit").unwrap());
        assert_eq!(
            sc.placement.capacity,
            flag(c, "--capacity").unwrap().parse::<f64>().unwrap()
        );
        let family = flag(c, "--fit").unwrap().split(':').next().unwrap();
        // the first aligned-mode row of each fit family, on the bundled day (fast)
        if flag(c, "--mode") != Some("aligned")
            || sc.trace != TraceRef::Bundled("planetlab-20110303".into())
            || families_done.contains(&family)
        {
            continue;
        }
        families_done.push(family);
        let stored = stored_run(row);
        let want = &stored["result"];
        let got = replay(row);
        let points = got["points"].as_array().unwrap();
        assert_eq!(points.len(), 1, "the link's frontier is the one packing");
        for k in ["m_abs", "m_norm", "m", "q", "utilization"] {
            assert_eq!(points[0][k], want[k], "{c}: {k}");
        }
    }
    assert!(
        families_done.len() >= 3,
        "replayed families: {families_done:?}"
    );
}

#[test]
fn seed_003_single_policy_links_replay_to_the_stored_empty_hosts() {
    let rows = rows("003");
    let cheap: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            let c = s(r, "command");
            r["link"].is_string()
                && flag(c, "--policies") == Some("nilas")
                && flag(c, "--workload").is_none()
        })
        .take(2)
        .collect();
    assert_eq!(cheap.len(), 2);
    for row in cheap {
        let want = stored_run(row);
        let got = replay(row);
        same_rows(
            &got["results"],
            &want["results"],
            &[
                "policy",
                "empty_hosts",
                "empty_hosts_pp_vs_best_fit",
                "failures",
            ],
            s(row, "command"),
        );
    }
}

#[test]
fn seed_004_e41_links_replay_to_the_stored_cells() {
    let rows = rows("004");
    let e41: Vec<&Value> = rows
        .iter()
        .filter(|r| flag(s(r, "command"), "--preset") == Some("E4.1"))
        .collect();
    assert!(e41.len() >= 2);
    for row in e41 {
        let want = stored_run(row);
        let got = replay(row);
        same_rows(
            &got["cells"],
            &want["report"]["cells"],
            &["policy", "kappa", "value_efficiency", "revenue", "accepted"],
            s(row, "command"),
        );
    }
}

/// Two arrays of result rows (replayed `got`, stored `want`) agree row by row on `keys`, exactly.
fn same_rows(got: &Value, want: &Value, keys: &[&str], what: &str) {
    let (g, w) = (got.as_array().unwrap(), want.as_array().unwrap());
    assert_eq!(g.len(), w.len(), "{what}: rows");
    for (i, (g, w)) in g.iter().zip(w).enumerate() {
        for k in keys {
            assert_eq!(g[k], w[k], "{what}: row {i}: {k}");
        }
    }
}

/// `packlab ARGS` from the repository root: (success, stdout, stderr).
fn packlab(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

#[test]
fn print_link_refuses_flags_no_scenario_holds_naming_them() {
    for (args, named) in [
        (
            &[
                "pack",
                "--trace",
                "static/traces/planetlab-20110303.tsv.gz",
                "--subset",
                "50",
                "--print-link",
            ][..],
            "--subset",
        ),
        (
            &[
                "frontier",
                "--trace",
                "static/traces/planetlab-20110303.tsv.gz",
                "--subset",
                "50",
                "--print-link",
            ][..],
            "--subset",
        ),
        (
            &["lifetime", "--model-metrics", "--print-link"][..],
            "--model-metrics",
        ),
        (
            &[
                "run",
                "results/001/scenario-E1.1.json",
                "--trace",
                "static/traces/planetlab-20110303.tsv.gz",
                "--print-link",
            ][..],
            "--trace",
        ),
    ] {
        let (ok, out, err) = packlab(args);
        assert!(!ok, "{args:?} printed {out}");
        assert!(out.is_empty(), "{args:?}: no link on stdout, got {out}");
        assert!(
            err.starts_with("packlab: --print-link: ") && err.contains(named),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn admit_print_link_replays_to_the_same_arms_as_the_command() {
    // a tiny preset: both come from the one scenario construction of `packlab admit`
    let args = [
        "admit",
        "--preset",
        "E0.1",
        "--runs",
        "2",
        "--seed",
        "3",
        "--capacity",
        "300",
        "--arrival-rate",
        "0.05",
        "--hours",
        "400",
        "--iterations",
        "3",
        "--bootstrap",
        "200",
        "--json",
    ];
    let (ok, direct, err) = packlab(&args);
    assert!(ok, "{err}");
    let direct: Value = serde_json::from_str(&direct).unwrap();
    let (ok, link, err) = packlab(&[&args[..], &["--print-link"]].concat());
    assert!(ok, "{err}");
    let sc = Scenario::from_link(&link).unwrap();
    assert_eq!(
        (
            sc.admission.params.capacity,
            sc.admission.params.horizon_hours
        ),
        (300.0, 400.0)
    );
    let (ok, report, err) = packlab(&["run", "--link", &link, "--json"]);
    assert!(ok, "{err}");
    let report: Value = serde_json::from_str(&report).unwrap();
    assert!(!direct["arms"].as_array().unwrap().is_empty());
    same_rows(
        &report["arms"],
        &direct["arms"],
        &["label", "threshold", "utilization", "failures", "arrivals"],
        "admit --print-link",
    );
}

#[test]
fn frontier_print_link_holds_its_families_and_grids() {
    let (ok, link, err) = packlab(&[
        "frontier",
        "--trace",
        "static/traces/planetlab-20110303.tsv.gz",
        "--capacity",
        "2",
        "--rule",
        "ff",
        "--families",
        "gpa,av",
        "--grid",
        "gpa=0.1,0.01",
        "--print-link",
    ]);
    assert!(ok, "{err}");
    let sc = Scenario::from_link(&link).unwrap();
    assert_eq!(sc.trace, TraceRef::Bundled("planetlab-20110303".into()));
    let p = &sc.placement;
    assert_eq!((p.capacity, p.rule.name()), (2.0, "ff"));
    let on: Vec<(&str, Vec<f64>)> = p
        .families
        .iter()
        .filter(|f| f.enabled)
        .map(|f| (f.family.name(), f.grid.clone()))
        .collect();
    assert_eq!(on[0], ("gpa", vec![0.1, 0.01]));
    assert_eq!(on.len(), 2);
    assert_eq!(on[1].0, "av");
}

/// Issue 31: no findings row uses a policy script yet, so the findings link code is checked on four commands
/// that do (oversub, admission, lifetime and era, `--policies script:FILE`): scripts/findings_links.py's `row` gives a link
/// whose scenario carries the file's text as the script's source, and a note naming the `script:NAME` row.
#[test]
fn a_stored_command_with_a_script_gets_a_link_carrying_it() {
    let cmds = [
        (
            "packlab oversub run --preset E1.1 --policies sl,script:examples/policies/oversub-sl-recent.rhai",
            Model::Oversub,
            "examples/policies/oversub-sl-recent.rhai",
            "script:oversub-sl-recent",
        ),
        (
            "packlab admission tune --runs 2 --policies SECOND,script:gh=examples/policies/admission-gauss-horizon.rhai",
            Model::Admission,
            "examples/policies/admission-gauss-horizon.rhai",
            "script:gh",
        ),
        (
            "packlab lifetime run --share 0.03 --policies nilas,script:examples/policies/lifetime-nilas-aligned.rhai",
            Model::Lifetime,
            "examples/policies/lifetime-nilas-aligned.rhai",
            "script:lifetime-nilas-aligned",
        ),
        (
            "packlab era run --preset E4.3 --policies greedy,script:scarce=examples/policies/era-scarcity.rhai",
            Model::Era,
            "examples/policies/era-scarcity.rhai",
            "script:scarce",
        ),
    ];
    let code = format!(
        "import json, sys; sys.path.insert(0, 'scripts'); import findings_links as f; \
         print(json.dumps([f.row('E', 'a', c, 'src', 'what') for c in {}]))",
        serde_json::to_string(&cmds.iter().map(|c| c.0).collect::<Vec<_>>()).unwrap()
    );
    let out = Command::new("python3")
        .args(["-c", &code])
        .env("PACKLAB_BIN", env!("CARGO_BIN_EXE_packlab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    for (row, (_, model, file, name)) in rows.iter().zip(&cmds) {
        let sc = decoded(row).unwrap_or_else(|| panic!("no link: {row}"));
        assert_eq!(sc.model, *model);
        let scripts = match model {
            Model::Oversub => &sc.oversub.scripts,
            Model::Lifetime => &sc.lifetime.scripts,
            Model::Era => &sc.era.scripts,
            _ => &sc.admission.scripts,
        };
        assert_eq!(scripts.len(), 1);
        assert_eq!(scripts[0].spec(), *name);
        assert_eq!(scripts[0].source, read(file));
        assert!(s(row, "note").contains(name), "{}", s(row, "note"));
    }
}
