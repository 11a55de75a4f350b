//! The reservation model's invariants on its pinned runs (tests/pins/era-*.json, written by `packlab era`;
//! tests/cli_pins.rs checks that the CLI still prints them byte for byte): every accepted job completes, so the
//! total allocation equals the accepted work; no truthfulness check failed; the metrics lie in their ranges;
//! value efficiency equals the per-class efficiencies weighted by the classes' value shares; a user's failing quote
//! script marks only its own row on the CLI.

fn cells(name: &str) -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pins")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn pinned_runs_keep_the_invariants() {
    for name in ["era-e41.json", "era-e43-small.json"] {
        let cs = cells(name);
        assert!(cs.len() >= 3, "{name}");
        for c in &cs {
            let f = |k: &str| c[k].as_f64().unwrap();
            let who = format!("{name} {} κ {}", c["policy"], c["kappa"]);
            assert!(
                (f("total_allocation") - f("accepted_work")).abs()
                    <= 1e-6 * f("accepted_work").max(1.0),
                "{who}"
            );
            assert!(c["truthful_checks"].as_u64().unwrap() > 0, "{who}");
            assert_eq!(c["truthful_violations"].as_u64(), Some(0), "{who}");
            assert!((0.0..=1.0).contains(&f("value_efficiency")), "{who}");
            assert!((0.0..=100.0).contains(&f("late_pct")), "{who}");
            assert!((0.0..=1.0 + 1e-9).contains(&f("utilization")), "{who}");
            assert!(c["accepted"].as_u64() <= c["requests"].as_u64(), "{who}");
        }
    }
    // E4.1: greedy charges $0.5 per unit-slot exactly; BASIC_ECON charges by demand
    let e41 = cells("era-e41.json");
    assert_eq!(e41[0]["policy"], "greedy");
    assert_eq!(e41[0]["mean_unit_price"].as_f64(), Some(0.5));
    assert_eq!(
        e41[0]["revenue"].as_f64(),
        Some(0.5 * e41[0]["accepted_work"].as_f64().unwrap())
    );
}

/// Issue 31: `packlab era run --policies greedy,script:FILE` with a script that loops forever once the clock
/// passes minute 900: the script's row is marked `failed (then no quotes)` with the message on stderr, and
/// greedy's row is the line of a run without the script, byte for byte.
#[test]
fn cli_script_policy_that_fails_marks_only_its_row() {
    let dir = std::env::temp_dir().join(format!("packlab-era-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spin.rhai");
    std::fs::write(
        &file,
        "fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full) {\n  if now > 900 { loop { } }\n  ()\n}\n",
    )
    .unwrap();
    let run = |policies: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_packlab"))
            .args(["era", "run", "--kappa", "1", "--policies", policies])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (alone, _) = run("greedy");
    let (both, err) = run(&format!("greedy,script:spin={}", file.display()));
    let line = |out: &str, p: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{p} ")))
            .unwrap_or_else(|| panic!("no row {p}: {out}"))
            .to_string()
    };
    assert_eq!(line(&both, "greedy"), line(&alone, "greedy"));
    let mine = line(&both, "script:spin");
    assert!(mine.ends_with("failed (then no quotes)"), "{mine}");
    assert!(
        err.contains("script:spin at κ_use 1: 'quote' ran over the operation limit of one call"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
