//! Replays what the fuzzers found (`tests/fuzz-regressions/<target>/*`, one input per file) and their seed
//! corpora (`fuzz/seeds/<target>/*`) through the same entry points the cargo-fuzz targets call
//! (`packlab::fuzzing::run`, see fuzz/README.md): every input must give `Ok` or an error the user can act on
//! (naming the file, or the field/position of a scenario or link), and never a panic. No test here times
//! a read: a hang is what the fuzzer's own `-timeout` catches (scripts/fuzz.sh), and a reader that became
//! quadratic shows as the 1 MiB test not finishing.

use packlab::fuzzing::{run, TARGETS};
use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'));
    v.sort();
    v
}

/// File names the inputs of each trace/workload target are read under (see `packlab::fuzzing::run`).
fn located(target: &str, message: &str) -> bool {
    let names: &[&str] = match target {
        "link" | "scenario_json" | "model_files" => return !message.trim().is_empty(),
        "gzip" => &["upload.tsv.gz"],
        "zip" => &["day.zip"],
        "wide" => &["trace.tsv"],
        "long_csv" => &["trace.csv"],
        "planetlab" => &["day"],
        "azure_arrivals" => &["arrivals", "maps/", "traces/"],
        "azure_vmtable" => &["vmtable"],
        "alibaba_gpu" => &["openb"],
        "swim" => &["jobs.tsv"],
        "usage_readers" => &["vms"],
        "policy_file" => &["oversub.policies: policy.json: "],
        "script" => &["script: "],
        _ => return false,
    };
    names.iter().any(|n| message.starts_with(n))
}

fn replay(root: &str, must_read: bool) -> usize {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    let mut n = 0;
    for target in TARGETS {
        for path in inputs(&base.join(target)) {
            let data = std::fs::read(&path).unwrap();
            let r = std::panic::catch_unwind(|| run(target, &data).expect("a known target"));
            let shown = path.strip_prefix(&base).unwrap().display().to_string();
            let r = r.unwrap_or_else(|_| panic!("{root}/{shown}: the engine panicked"));
            if must_read {
                assert!(
                    r.is_ok(),
                    "{root}/{shown}: a seed (real data) is rejected: {r:?}"
                );
            }
            if let Err(m) = &r {
                assert!(
                    located(target, m),
                    "{root}/{shown}: the error does not say where: {m}"
                );
                assert!(
                    m.len() < 2000,
                    "{root}/{shown}: an error of {} bytes",
                    m.len()
                );
            }
            n += 1;
        }
    }
    assert!(n > 0, "no inputs under {root}");
    n
}

#[test]
fn fuzz_findings_are_rejected_with_located_errors_never_a_panic() {
    replay("tests/fuzz-regressions", false);
}

#[test]
fn fuzz_seeds_are_real_data_that_reads() {
    let n = replay("fuzz/seeds", true);
    assert!(n >= TARGETS.len(), "{n} seeds");
}

#[test]
fn every_target_has_seeds_and_a_cargo_fuzz_entry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
    for t in TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{t}\"")),
            "fuzz/Cargo.toml lacks {t}"
        );
        assert!(
            !inputs(&root.join("fuzz/seeds").join(t)).is_empty(),
            "no seeds for {t}"
        );
        assert!(run(t, b"").is_some());
    }
    assert!(run("no-such-target", b"").is_none());
}

/// Each text seed grown to 1 MiB (its first line kept, the other lines repeated; each NUL-separated file of a
/// folder target alike) is read without a panic, and an error it gives says where. Not timed: a quadratic
/// reader shows as this test not ending.
#[test]
fn one_mebibyte_inputs_never_panic_and_errors_say_where() {
    const SIZE: usize = 1 << 20;
    fn grow(file: &[u8], size: usize) -> Vec<u8> {
        let Some(nl) = file.iter().position(|b| *b == b'\n') else {
            return file.to_vec();
        };
        let (head, body) = file.split_at(nl + 1);
        let mut out = head.to_vec();
        if body.is_empty() {
            return out;
        }
        while out.len() < size {
            out.extend_from_slice(body);
        }
        out
    }
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    for target in TARGETS {
        for path in inputs(&base.join(target)) {
            let seed = std::fs::read(&path).unwrap();
            if seed.starts_with(&[0x1f, 0x8b]) || seed.starts_with(b"PK") {
                continue; // compressed: their text is grown in the plain seeds
            }
            let parts: Vec<&[u8]> = seed.split(|b| *b == 0).collect();
            let data: Vec<u8> = parts
                .iter()
                .map(|p| grow(p, SIZE / parts.len()))
                .collect::<Vec<_>>()
                .join(&0u8);
            let r = std::panic::catch_unwind(|| run(target, &data).unwrap());
            let shown = format!(
                "{target}/{} grown to {} bytes",
                path.file_name().unwrap().to_string_lossy(),
                data.len()
            );
            let r = r.unwrap_or_else(|_| panic!("{shown}: the engine panicked"));
            if let Err(m) = &r {
                assert!(
                    located(target, m),
                    "{shown}: the error does not say where: {m}"
                );
            }
        }
    }
}

/// The saved `policy_file` inputs (hand-made from a real `oversub-train` file, and what the fuzzer found)
/// give the error that names the field, or the line and column, as the user sees it on import.
#[test]
fn policy_file_findings_name_the_field() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/policy_file");
    let want: &[(&str, &str)] = &[
        (
            "truncated.json",
            "oversub.policies: policy.json: policy file: EOF while parsing a list at line 1 column 6222",
        ),
        (
            "fewer-agents-than-subscribers.json",
            "oversub.policies: policy.json: dims.n_agents: the policy is for 2, this scenario needs 12",
        ),
        (
            "fewer-actions.json",
            "oversub.policies: policy.json: dims.n_actions: the policy is for 3, this scenario needs 6",
        ),
        (
            "shorter-observations.json",
            "oversub.policies: policy.json: dims.agent_obs_len: the policy is for 25, this scenario needs 31",
        ),
        (
            "huge-layer-sizes.json",
            "oversub.policies: policy.json: policy file: agents[0].sizes: layer sizes [31, 4000000000, 4000000000, 6] give more than 1000000 parameters",
        ),
        (
            "other-scenario.json",
            "oversub.policies: policy.json: the policy was trained for another scenario (pms: 21 in the file, 20 here)",
        ),
    ];
    for (file, message) in want {
        let data = std::fs::read(dir.join(file)).unwrap();
        let got = run("policy_file", &data).unwrap().unwrap_err();
        assert!(got.starts_with(message), "{file}: {got}");
    }
    let data = std::fs::read(dir.join("long-foreign-fingerprint.json")).unwrap();
    let got = run("policy_file", &data).unwrap().unwrap_err();
    assert!(
        got.starts_with("oversub.policies: policy.json: the policy was trained for another scenario (trained for zzz")
            && got.len() < 600,
        "{got}"
    );
}
