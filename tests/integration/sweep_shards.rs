//! Sharded sweeps: the shards of a sweep run as separate processes (by hand, by the Slurm array script, by
//! the xargs script and by the Kubernetes Indexed Job's command) merge to the unsharded run's results bit for
//! bit; a cell's report is `packlab run` of its share link; every example sweep's cells validate; a user's
//! policy script named by file is a row of every cell and travels in the cell's link.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_packlab");
const SWEEP: &str = "examples/sweeps/placement-capacity.json";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packlab-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.current_dir(root()).output().expect("runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn results(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(dir.join("results.json")).unwrap(),
        std::fs::read(dir.join("results.csv")).unwrap(),
    )
}

/// The unsharded run, once per test process.
fn whole() -> (Vec<u8>, Vec<u8>) {
    static WHOLE: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    WHOLE
        .get_or_init(|| {
            let d = tmp("whole");
            ok(Command::new(BIN).args(["sweep", SWEEP, "--out"]).arg(&d));
            results(&d)
        })
        .clone()
}

#[test]
fn shards_in_separate_processes_merge_to_the_unsharded_run() {
    let (json, csv) = whole();
    let r: serde_json::Value = serde_json::from_slice(&json).unwrap();
    // 4 capacities × 3 seeds, by cell index
    assert_eq!(r["cells"].as_array().unwrap().len(), 12);
    assert_eq!(r["shard"], serde_json::json!([0, 1]));
    assert_eq!(r["cells"][7]["values"], serde_json::json!([2, 2]));
    assert_eq!(r["cells"][7]["report"]["capacity"], serde_json::json!(2.0));
    let d = tmp("three");
    let children: Vec<_> = (0..3)
        .map(|i| {
            Command::new(BIN)
                .args(["sweep", SWEEP, "--shard", &format!("{i}/3"), "--out"])
                .arg(&d)
                .env("PACKLAB_THREADS", "1")
                .current_dir(root())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    // a shard alone is not the merge
    assert!(!d.join("results.json").exists());
    ok(Command::new(BIN).arg("merge").arg(&d));
    let (j3, c3) = results(&d);
    assert!(j3 == json, "merged JSON differs from the unsharded run's");
    assert!(c3 == csv, "merged CSV differs from the unsharded run's");
    // a missing shard is refused, naming it
    std::fs::remove_file(d.join("shard-1-of-3.json")).unwrap();
    let out = Command::new(BIN).arg("merge").arg(&d).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard 1/3 is missing"));
}

#[test]
fn a_cell_is_the_run_of_its_link() {
    let (json, _) = whole();
    let r: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let cell = &r["cells"][5];
    let link = cell["link"].as_str().unwrap();
    let out = ok(Command::new(BIN).args(["run", "--link", link]));
    let run: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(run, cell["report"]);
    // cell 5 = capacity index 1 (1.0), seed index 2 (3)
    assert_eq!(cell["values"], serde_json::json!([1, 3]));
}

#[test]
fn the_slurm_array_script_shards_and_merges() {
    let (json, csv) = whole();
    let d = tmp("slurm");
    for i in 0..4 {
        ok(Command::new("bash")
            .arg("examples/batch/slurm-sweep.sh")
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .env("SLURM_CPUS_PER_TASK", "1")
            .env("SWEEP", SWEEP)
            .env("OUT", &d)
            .env("PACKLAB", BIN));
    }
    ok(Command::new(BIN).arg("merge").arg(&d));
    assert!(results(&d) == (json, csv));
}

#[test]
fn the_xargs_script_shards_and_merges() {
    let (json, csv) = whole();
    let d = tmp("xargs");
    ok(Command::new("bash")
        .arg("examples/batch/parallel-sweep.sh")
        .arg(SWEEP)
        .arg(&d)
        .arg("5")
        .env("PACKLAB", BIN));
    assert!(d.join("shard-4-of-5.json").exists());
    assert!(results(&d) == (json, csv));
}

#[test]
fn the_kubernetes_indexed_job_command_shards_and_merges() {
    let (json, csv) = whole();
    let yaml = std::fs::read_to_string(root().join("examples/batch/k8s-indexed-job.yaml")).unwrap();
    let field = |key: &str| -> String {
        yaml.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{key}:")))
            .unwrap_or_else(|| panic!("no {key} in the manifest"))
            .trim()
            .to_string()
    };
    assert_eq!(field("completionMode"), "Indexed");
    let n: usize = field("completions").parse().unwrap();
    // the container's command: ["sh", "-c", "<script>"]
    let command = field("command");
    let script = command
        .strip_prefix("[\"sh\", \"-c\", \"")
        .and_then(|s| s.strip_suffix("\"]"))
        .unwrap_or_else(|| panic!("unexpected command {command}"));
    assert!(
        script.contains(&format!("${{JOB_COMPLETION_INDEX}}/{n} ")),
        "--shard must be INDEX/completions: {script}"
    );
    // run each pod's command with the ConfigMap's sweep file and the volume as local paths
    let d = tmp("k8s");
    let sweep_dir = d.join("sweep");
    let out_dir = d.join("results");
    std::fs::create_dir_all(&sweep_dir).unwrap();
    std::fs::copy(root().join(SWEEP), sweep_dir.join("sweep.json")).unwrap();
    let local = script
        .replace("packlab ", &format!("{BIN} "))
        .replace("/sweep/", &format!("{}/", sweep_dir.display()))
        .replace("/results", &out_dir.display().to_string());
    for i in 0..n {
        ok(Command::new("sh")
            .args(["-c", &local])
            .env("JOB_COMPLETION_INDEX", i.to_string()));
    }
    ok(Command::new(BIN).arg("merge").arg(&out_dir));
    assert!(results(&out_dir) == (json, csv));
}

#[test]
fn every_example_sweep_has_valid_cells() {
    let mut n = 0;
    for e in std::fs::read_dir(root().join("examples/sweeps")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        let mut sw = packlab::sweep::Sweep::parse(&text).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let dir = p.parent().unwrap().to_path_buf();
        sw.read_script_files(|f| std::fs::read_to_string(dir.join(f)).map_err(|e| e.to_string()))
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let cells = sw.cells().unwrap_or_else(|e| panic!("{p:?}: {e}"));
        assert_eq!(cells.len(), sw.len());
        assert!(cells.len() > 1, "{p:?} sweeps nothing");
        n += 1;
    }
    assert!(n >= 2);
}

#[test]
fn bad_sweep_files_are_refused_with_the_field() {
    let d = tmp("bad");
    let f = d.join("bad.json");
    std::fs::write(
        &f,
        r#"{"scenario":{"model":"placement"},"axes":[{"field":"placement.capacity","values":[1,"big"]}]}"#,
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("sweep")
        .arg(&f)
        .arg("--out")
        .arg(d.join("o"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("axes[0].values[1]"),
        "{err}"
    );
    // nothing ran, nothing was written
    assert!(!d.join("o").exists());
    let out = Command::new(BIN)
        .args(["sweep", SWEEP, "--shard", "4/4", "--out"])
        .arg(d.join("o"))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("4/4"));
}

#[test]
fn captured_output_has_no_progress() {
    // stdout and stderr are pipes here: no bar and no progress lines (PACKLAB_PROGRESS=lines asks for them)
    let d = tmp("quiet");
    let out = Command::new(BIN)
        .args(["sweep", SWEEP, "--shard", "0/4", "--out"])
        .arg(&d)
        .env_remove("PACKLAB_PROGRESS")
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // only the closing summary line
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("packlab sweep: 3 of 12 cells"), "{err}");
}

#[test]
fn results_assembled_from_cell_reports_are_the_cli_results() {
    // what the playground does: each cell run as `packlab run` runs it, the reports assembled by the engine
    let (json, csv) = whole();
    let text = std::fs::read_to_string(root().join(SWEEP)).unwrap();
    let sw = packlab::sweep::Sweep::parse(&text).unwrap();
    let reports: Vec<String> = sw
        .cells()
        .unwrap()
        .iter()
        .map(|c| {
            ok(Command::new(BIN).args(["run", "--link", &c.scenario.to_link()]))
                .trim()
                .to_string()
        })
        .collect();
    let r = packlab::sweep::whole_results(&sw, &reports).unwrap();
    assert!(r.to_json().as_bytes() == json.as_slice());
    assert!(packlab::sweep::to_csv(&r).as_bytes() == csv.as_slice());
    let e = packlab::sweep::whole_results(&sw, &reports[1..]).unwrap_err();
    assert_eq!(e.field, "reports");
}

/// Issue 31: a sweep whose scenario names an admission script by file (examples/sweeps/admission-script.json)
/// runs it as the arm `script:gauss-horizon` of every cell beside SECOND; the cell's link carries the file's
/// text, and `packlab run` of that link is the cell's report.
#[test]
fn a_script_named_by_file_is_an_arm_of_every_cell_and_travels_in_its_link() {
    let out = tmp("script");
    ok(Command::new(BIN)
        .args(["sweep", "examples/sweeps/admission-script.json", "--out"])
        .arg(&out));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let source =
        std::fs::read_to_string(root().join("examples/policies/admission-gauss-horizon.rhai"))
            .unwrap();
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for cell in cells {
        let labels: Vec<&str> = cell["report"]["arms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["SECOND", "script:gauss-horizon"]);
        let link = cell["link"].as_str().unwrap();
        let sc = packlab::scenario::Scenario::from_link(link).unwrap();
        assert_eq!(sc.admission.scripts.len(), 1);
        assert_eq!(sc.admission.scripts[0].source, source);
    }
    let link = cells[1]["link"].as_str().unwrap();
    let run: serde_json::Value =
        serde_json::from_str(ok(Command::new(BIN).args(["run", "--link", link])).trim()).unwrap();
    assert_eq!(run, cells[1]["report"]);
    // a missing file is refused, naming the entry
    let bad = out.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"scenario": {"model": "admission", "admission": {"scripts": [{"name": "x", "source_file": "nope.rhai"}]}}}"#,
    )
    .unwrap();
    let o = Command::new(BIN)
        .args(["sweep"])
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("scenario.admission.scripts[0].source_file"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs the sweep file `file` to its results.json.
fn sweep_results(file: &str, name: &str) -> serde_json::Value {
    let out = tmp(name);
    ok(Command::new(BIN).args(["sweep", file, "--out"]).arg(&out));
    serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap()
}

/// A row of a report without its policy's name, to compare a script's row with a built-in's.
fn unnamed(row: &serde_json::Value) -> serde_json::Value {
    let mut r = row.clone();
    r.as_object_mut().unwrap().remove("policy");
    r
}

/// Issue 31: the lifetime accuracy frontier's sweep (the noisy predictor over `lifetime.accuracy`, the form the
/// lifetime view offers) with the NILAS starter named by file: at every accuracy the row `script:nilas` is the
/// built-in NILAS's bit for bit (every metric and the hourly series, so its Δ on the frontier too), NILAS's Δ
/// differs between the accuracies (the axis reaches the runs), and every cell's link carries the script.
#[test]
fn lifetime_accuracy_sweep_runs_a_script_policy_in_every_cell() {
    let r = sweep_results("examples/sweeps/lifetime-accuracy-script.json", "life");
    let source =
        std::fs::read_to_string(root().join("examples/policies/lifetime-nilas.rhai")).unwrap();
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let mut deltas = Vec::new();
    for cell in cells {
        let rows = cell["report"]["results"].as_array().unwrap();
        let names: Vec<&str> = rows.iter().map(|x| x["policy"].as_str().unwrap()).collect();
        assert_eq!(names, ["best-fit", "nilas", "script:nilas"]);
        assert_eq!(rows[2].get("error"), None);
        assert_eq!(unnamed(&rows[2]), unnamed(&rows[1]));
        assert_ne!(unnamed(&rows[1]), unnamed(&rows[0]));
        deltas.push(rows[1]["empty_hosts_pp_vs_best_fit"].as_f64().unwrap());
        let sc = packlab::scenario::Scenario::from_link(cell["link"].as_str().unwrap()).unwrap();
        assert_eq!(sc.lifetime.scripts.len(), 1);
        assert_eq!(sc.lifetime.scripts[0].source, source);
    }
    assert_ne!(deltas[0], deltas[1], "the accuracy does not reach the runs");
}

/// Issue 31: an era sweep naming the greedy and scarcity starters by file: every cell has `script:greedy`
/// (listed) equal to the built-in greedy at each κ_use bit for bit, then `script:scarcity` (enabled, not
/// listed, so after the list); each cell's link carries both sources and `packlab run` of it is the cell.
#[test]
fn era_sweep_runs_script_policies_in_every_cell() {
    let r = sweep_results("examples/sweeps/era-script.json", "era");
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for cell in cells {
        let rows = cell["report"]["cells"].as_array().unwrap();
        let names: Vec<String> = rows
            .iter()
            .map(|x| format!("{}@{}", x["policy"].as_str().unwrap(), x["kappa"]))
            .collect();
        assert_eq!(
            names,
            [
                "greedy@0.8",
                "greedy@1.0",
                "script:greedy@0.8",
                "script:greedy@1.0",
                "script:scarcity@0.8",
                "script:scarcity@1.0"
            ]
        );
        assert_eq!(unnamed(&rows[2]), unnamed(&rows[0]));
        assert_eq!(unnamed(&rows[3]), unnamed(&rows[1]));
        assert!(rows.iter().all(|x| x.get("error").is_none()));
        // scarcity prices above greedy's fixed price wherever the plan is not empty
        assert!(rows[5]["mean_unit_price"].as_f64() > rows[1]["mean_unit_price"].as_f64());
        let sc = packlab::scenario::Scenario::from_link(cell["link"].as_str().unwrap()).unwrap();
        assert_eq!(sc.era.scripts.len(), 2);
        assert_eq!(
            sc.era.scripts[1].source,
            std::fs::read_to_string(root().join("examples/policies/era-scarcity.rhai")).unwrap()
        );
    }
    let link = cells[1]["link"].as_str().unwrap();
    let run: serde_json::Value =
        serde_json::from_str(ok(Command::new(BIN).args(["run", "--link", link])).trim()).unwrap();
    assert_eq!(run, cells[1]["report"]);
}
