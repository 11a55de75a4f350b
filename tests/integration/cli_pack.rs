//! The `packlab` CLI on the bundled real PlanetLab day, checked against figures computed independently by
//! `tests/reference/gpa_reference.py` (a from-spec pure-Python implementation that reads the raw day folder
//! ../shared/data/planetlab-cloudsim/20110303, shares no code with the engine and counts overflows with
//! integer CPU %). Its output is stored in `tests/reference/gpa_reference.json`; re-run
//! `python3 tests/reference/gpa_reference.py > tests/reference/gpa_reference.json` to regenerate it.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_packlab");
const BUNDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/static/traces/planetlab-20110303.tsv.gz"
);
const RAW_DAY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/planetlab-cloudsim/20110303"
);

/// The stored output of `python3 tests/reference/gpa_reference.py > tests/reference/gpa_reference.json`: per
/// configuration the fit, rule, capacity, rebalancing, clairvoyance and m_abs, m_norm, q (exact overflow count,
/// integer CPU % against 100·c) and utilization.
const REFERENCE: &str = include_str!("../reference/gpa_reference.json");

fn packlab(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().expect("run packlab");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn pack_json(trace: &str, fit: &str, rule: &str, c: f64, reb: bool, ell: f64) -> serde_json::Value {
    let (c, ell) = (c.to_string(), ell.to_string());
    let mut args = vec![
        "pack",
        "--trace",
        trace,
        "--capacity",
        &c,
        "--fit",
        fit,
        "--rule",
        rule,
        "--clairvoyance",
        &ell,
        "--json",
    ];
    if !reb {
        args.push("--no-rebalance");
    }
    let (ok, out, err) = packlab(&args);
    assert!(ok, "packlab {args:?} failed: {err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn pack_matches_independent_reference_on_the_bundled_day() {
    let reference: Vec<serde_json::Value> = serde_json::from_str(REFERENCE).unwrap();
    assert!(reference.len() >= 15);
    let mut ties = 0;
    for r in &reference {
        let (fit, rule) = (r["fit"].as_str().unwrap(), r["rule"].as_str().unwrap());
        let (c, reb, ell) = (
            r["capacity"].as_f64().unwrap(),
            r["rebalance"].as_bool().unwrap(),
            r["clairvoyance"].as_f64().unwrap(),
        );
        let (m_abs, m_norm) = (
            r["m_abs"].as_u64().unwrap() as usize,
            r["m_norm"].as_u64().unwrap() as usize,
        );
        let (q, util) = (r["q"].as_f64().unwrap(), r["utilization"].as_f64().unwrap());
        ties += r["overflows_f64"].as_i64().unwrap() - r["overflows"].as_i64().unwrap();
        let j = pack_json(BUNDLE, fit, rule, c, reb, ell);
        let ctx = format!("{fit} {rule} c={c} rebalance={reb} l={ell}");
        assert_eq!(j["m_abs"].as_u64().unwrap() as usize, m_abs, "{ctx}");
        assert_eq!(j["m_norm"].as_u64().unwrap() as usize, m_norm, "{ctx}");
        assert_eq!(
            j["m"].as_f64().unwrap(),
            m_abs as f64 / m_norm as f64,
            "{ctx}"
        );
        // q is a ratio of exact integer counts: identical; utilization differs only by float summation order
        assert_eq!(j["q"].as_f64().unwrap(), q, "{ctx}");
        assert!(
            (j["utilization"].as_f64().unwrap() - util).abs() < 1e-12,
            "{ctx}"
        );
    }
    // the reference configurations include exact ties that a left-to-right f64 sum counts as overflows
    assert!(ties > 0);
}

#[test]
fn raw_planetlab_folder_and_bundle_agree() {
    if !Path::new(RAW_DAY).is_dir() {
        panic!("{RAW_DAY} is missing: the shared data must sit beside the repository");
    }
    // every point of the default frontier, bit for bit: the bundle holds exactly the raw values
    let frontier = |trace: &str| {
        let (ok, out, err) = packlab(&["frontier", "--trace", trace, "--capacity", "1", "--json"]);
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["points"].clone()
    };
    assert_eq!(frontier(RAW_DAY), frontier(BUNDLE));
    let (ok, out, _) = packlab(&["summary", "--trace", RAW_DAY]);
    assert!(ok);
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    // SOURCE.md: 1052 VMs, 302,976 samples, mean 12.31 %, sample st.dev 17.09 % over all values
    assert_eq!(s["vms"], 1052);
    assert_eq!(s["samples"], 288);
    assert!((s["mean"].as_f64().unwrap() - 0.1231).abs() < 5e-5);
    assert!((s["sd"].as_f64().unwrap() - 0.1709).abs() < 5e-5);
}

#[test]
fn frontier_csv_and_run_scenario_agree() {
    let (ok, csv, err) = packlab(&[
        "frontier",
        "--trace",
        BUNDLE,
        "--capacity",
        "4",
        "--rule",
        "bf",
        "--families",
        "gpa,max",
        "--grid",
        "gpa=0.1,0.05,0.001",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "family,param,spec,m_abs,m_norm,m,q,utilization,pareto"
    );
    assert_eq!(lines.len(), 5);
    assert!(
        lines[2].starts_with("gpa,0.05,gpa:0.05,40,33,"),
        "{}",
        lines[2]
    );
    // q of gpa:0.05 bf c = 4 in tests/reference/gpa_reference.json (632 overflows / (40 · 288))
    assert!(lines[2].contains(",0.05486111111111111,"), "{}", lines[2]);
    // the same frontier through a Scenario JSON (the format of the browser and share links)
    let dir = std::env::temp_dir().join(format!("packlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sc = dir.join("s.json");
    std::fs::write(&sc, r#"{"placement":{"capacity":4,"families":[{"family":"gpa","grid":[0.1,0.05,0.001]},{"family":"max"}]}}"#).unwrap();
    let (ok, out, err) = packlab(&["run", sc.to_str().unwrap()]);
    assert!(ok, "{err}");
    let f: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pts = f["points"].as_array().unwrap();
    assert_eq!(pts.len(), 4);
    assert_eq!(pts[1]["q"].as_f64().unwrap(), 0.05486111111111111);
    assert_eq!(pts[1]["m_abs"], 40);
    // a share link gives the same numbers
    let mut s = packlab::scenario::Scenario::default();
    s.placement.families =
        serde_json::from_str(r#"[{"family":"gpa","grid":[0.1,0.05,0.001]},{"family":"max"}]"#)
            .unwrap();
    let (ok, out2, err) = packlab(&[
        "run",
        "--link",
        &format!("http://127.0.0.1:8000/www/#s={}", s.to_link()),
    ]);
    assert!(ok, "{err}");
    assert_eq!(out, out2);
    // the same link in the old `v1.` form (made before links recorded their defaults set) too
    let cur = format!("v2.d{}.", packlab::scenario::DEFAULTS_SET);
    let v1 = s.to_link().replacen(&cur, "v1.", 1);
    assert!(v1.starts_with("v1."));
    let (ok, out3, err) = packlab(&["run", "--link", &v1]);
    assert!(ok, "{err}");
    assert_eq!(out, out3);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_gives_one_line_errors_never_panics() {
    let dir = std::env::temp_dir().join(format!("packlab-bad-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("day")).unwrap();
    std::fs::write(dir.join("day/vm1"), "1\n2\n").unwrap();
    std::fs::write(dir.join("day/vm2"), "1\nx\n").unwrap();
    std::fs::write(dir.join("empty.csv"), "").unwrap();
    std::fs::write(dir.join("s.json"), r#"{"placement":{"capacity":-2}}"#).unwrap();
    let p = |f: &str| dir.join(f).to_string_lossy().into_owned();
    let unknown_set = format!(
        "--link: defaults: the link was made under defaults set {}",
        packlab::scenario::DEFAULTS_SET + 1
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--frobnicate".into(),
            ],
            "--frobnicate",
        ),
        (vec!["pack".into(), "--trace".into(), p("nope")], "nope"),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--capacity".into(),
                "abc".into(),
            ],
            "abc",
        ),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--capacity".into(),
                "NaN".into(),
            ],
            "--capacity",
        ),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--capacity".into(),
                "-1".into(),
            ],
            "capacity",
        ),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--fit".into(),
                "gpa:1.5".into(),
            ],
            "--fit",
        ),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--rule".into(),
                "worst".into(),
            ],
            "worst",
        ),
        (
            vec![
                "pack".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--clairvoyance".into(),
                "0".into(),
            ],
            "--clairvoyance",
        ),
        (vec!["pack".into(), "--trace".into(), p("day")], "vm2:2:1"),
        (
            vec!["pack".into(), "--trace".into(), p("empty.csv")],
            "empty.csv",
        ),
        (
            vec![
                "frontier".into(),
                "--trace".into(),
                BUNDLE.into(),
                "--grid".into(),
                "gpa=0.1,2".into(),
            ],
            "--grid",
        ),
        (vec!["run".into(), p("s.json")], "placement.capacity"),
        (
            vec!["run".into(), "--link".into(), "v1.garbage!".into()],
            "--link",
        ),
        // a link made under a defaults set this engine does not know (a newer engine's)
        (
            vec![
                "run".into(),
                "--link".into(),
                packlab::scenario::Scenario::default().to_link().replacen(
                    &format!("v2.d{}.", packlab::scenario::DEFAULTS_SET),
                    &format!("v2.d{}.", packlab::scenario::DEFAULTS_SET + 1),
                    1,
                ),
            ],
            unknown_set.as_str(),
        ),
    ];
    for (args, needle) in cases {
        let out = Command::new(BIN).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: not one line: {err}"
        );
        assert!(err.contains(needle), "{args:?}: '{needle}' not in: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_documents_every_flag_with_units() {
    let (ok, out, _) = packlab(&["pack", "--help"]);
    assert!(ok);
    for flag in [
        "--trace",
        "--format",
        "--capacity",
        "--fit",
        "--rule",
        "--clairvoyance",
        "--no-rebalance",
        "--mode",
        "--realisations",
        "--seed",
        "--json",
    ] {
        assert!(out.contains(flag), "pack --help lacks {flag}");
    }
    assert!(out.contains("VM units"));
}
