//! The CLI's outputs on pinned scenarios equal the stored ones byte for byte (tests/pins/commands.txt and every
//! saved share link of tests/links/), so a refactor cannot move a number unnoticed. The stored files were
//! written by the engine before the experiment-contract refactor with `scripts/pins.sh`; the placement pins'
//! q values since by the engine with exact q (every change: tests/reference/pin-changes-exact-q.txt); the
//! admission ones were rewritten when the threshold search's feasibility test changed (tests/pins/commands.txt);
//! the lifetime ones were written by the engine that introduced the lifetime model, the reservation ones by the
//! engine that introduced the reservation model.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn packlab(args: &[&str]) -> String {
    crate::common::packlab_stdout(args)
}

fn pinned(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/pins").join(name))
        .unwrap_or_else(|e| panic!("tests/pins/{name}: {e}"))
}

#[test]
fn cli_outputs_equal_the_pinned_ones() {
    let cmds = pinned("commands.txt");
    let mut n = 0;
    for line in cmds
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (name, args) = line.split_once('|').expect("name|arguments");
        let args: Vec<&str> = args.split_whitespace().collect();
        assert_eq!(packlab(&args), pinned(name), "packlab {}", args.join(" "));
        n += 1;
    }
    assert!(n >= 9);
}

#[test]
fn saved_links_run_to_the_pinned_results() {
    let mut n = 0;
    for file in ["tests/links/v1.jsonl", "tests/links/v2.jsonl"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let link = v["link"].as_str().unwrap();
            let name = format!("link-{}.json", &sha1_hex(link)[..10]);
            // run once per decoded scenario (a v1 link and its v2 twin, links of two defaults sets that
            // give the same scenario; `link_runs`): each link's pin is still compared byte for byte
            let trace =
                link_needs_upload(link).then_some("tests/e2e/fixtures/planetlab-20110306-mini");
            assert_eq!(
                *crate::link_runs::run_link(link, trace),
                pinned(&name),
                "{}",
                v["note"]
            );
            n += 1;
        }
    }
    assert_eq!(n, 34);
}

fn link_needs_upload(link: &str) -> bool {
    matches!(
        packlab::scenario::Scenario::from_link(link).map(|s| s.trace),
        Ok(packlab::scenario::TraceRef::Upload { .. })
    )
}

/// The SHA-1 of `s` in hex, only to name the pin files as scripts/pins.sh does (Python's hashlib.sha1).
fn sha1_hex(s: &str) -> String {
    use sha1::Digest;
    sha1::Sha1::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn sha1_matches_the_standard_vectors() {
    assert_eq!(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    assert_eq!(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

/// Every model of the registry (`packlab models`) has a command group named by its id whose help lists its verbs
/// (`packlab <model> <verb>`), and every bundled file the registry names is in the repository.
#[test]
fn every_registered_model_has_a_cli_group() {
    let models: serde_json::Value = serde_json::from_str(&packlab(&["models"])).unwrap();
    let ids: Vec<&str> = models["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["placement", "admission", "lifetime", "era", "oversub"]
    );
    let verbs: [&[&str]; 5] = [
        &["pack", "frontier"],
        &["tune", "moments", "fit"],
        &["run"],
        &["run"],
        &["run", "train"],
    ];
    for (id, verbs) in ids.iter().zip(verbs) {
        let help = packlab(&[id, "--help"]);
        assert!(
            help.contains(&format!("Usage: packlab {id} <COMMAND>")),
            "{id}: {help}"
        );
        for v in verbs {
            assert!(
                help.contains(&format!("\n  {v} ")),
                "{id} --help lacks {v}: {help}"
            );
            assert!(packlab(&[id, v, "--help"]).contains(&format!("Usage: packlab {id} {v}")));
        }
    }
    let bundled = models["bundled_data"].as_array().unwrap();
    assert!(bundled
        .iter()
        .all(|b| root().join(b["path"].as_str().unwrap()).is_file()));
}

/// The earlier command forms, kept as hidden aliases, print the same bytes as their `packlab <model> <verb>`
/// forms (tests/pins/commands.txt uses the new forms): one command per model, and `oversub-train`, whose
/// output is the trained-policy file.
#[test]
fn earlier_command_forms_print_the_same_bytes() {
    for (earlier, now) in [
        (
            "pack --trace static/traces/planetlab-20110303.tsv.gz --fit gpa:0.05 --json",
            "placement pack --trace static/traces/planetlab-20110303.tsv.gz --fit gpa:0.05 --json",
        ),
        (
            "admit-moments --n0 4 --kappa 10 --t 1,24,240 --posterior 2,40,1,1,2,1",
            "admission moments --n0 4 --kappa 10 --t 1,24,240 --posterior 2,40,1,1,2,1",
        ),
        (
            "lifetime --share 0.03 --seed 2 --json",
            "lifetime run --share 0.03 --seed 2 --json",
        ),
        (
            "era --preset E4.1 --jobs-per-class 40 --synthetic-days 1 --seed 3 --json",
            "era run --preset E4.1 --jobs-per-class 40 --synthetic-days 1 --seed 3 --json",
        ),
        (
            "oversub --preset E1.1 --pms 20 --eval-episodes 2 --policies grid:0.4,c2marl:0.95 --train-episodes 2 --json",
            "oversub run --preset E1.1 --pms 20 --eval-episodes 2 --policies grid:0.4,c2marl:0.95 --train-episodes 2 --json",
        ),
    ] {
        let a: Vec<&str> = earlier.split_whitespace().collect();
        let b: Vec<&str> = now.split_whitespace().collect();
        let out = packlab(&b);
        assert!(out.len() > 100, "packlab {now}: {out}");
        assert_eq!(packlab(&a), out, "packlab {earlier} vs packlab {now}");
    }
    let dir = std::env::temp_dir().join(format!("packlab-cli-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (pa, pb) = (dir.join("earlier.json"), dir.join("now.json"));
    let train = "--preset E1.1 --pms 20 --episodes 2 --eval-episodes 2 --seed 3 --out";
    let mut a: Vec<&str> = ["oversub-train"]
        .into_iter()
        .chain(train.split_whitespace())
        .collect();
    a.push(pa.to_str().unwrap());
    let mut b: Vec<&str> = ["oversub", "train"]
        .into_iter()
        .chain(train.split_whitespace())
        .collect();
    b.push(pb.to_str().unwrap());
    packlab(&a);
    packlab(&b);
    let (fa, fb) = (std::fs::read(&pa).unwrap(), std::fs::read(&pb).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(fa.len() > 1000);
    assert!(
        fa == fb,
        "oversub-train and oversub train wrote different policy files"
    );
}
