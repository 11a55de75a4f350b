//! The findings tables in the README are the stored outputs of the committed scripts, verbatim: a change of
//! results shows up here until the script is re-run and the README updated.

fn read(p: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p))
        .unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn readme_includes_the_stored_seed_003_tables_verbatim() {
    let readme = read("README.md");
    let tables = read("results/003/tables.md");
    assert!(tables.contains("E3.1") && tables.contains("E3.2"));
    assert!(
        readme.contains(&tables),
        "README.md does not include results/003/tables.md verbatim (re-run python3 scripts/seed003_findings.py and copy the tables)"
    );
    // the raw results behind the tables are stored with their commands
    let raw: serde_json::Value = serde_json::from_str(&read("results/003/e31_e32.json")).unwrap();
    let runs = raw["runs"].as_array().unwrap();
    assert!(runs
        .iter()
        .all(|r| r["command"].as_str().unwrap().contains("packlab lifetime")));
}

#[test]
fn readme_includes_the_stored_seed_004_tables_verbatim() {
    let readme = read("README.md");
    let tables = read("results/004/tables.md");
    assert!(tables.contains("E4.1") && tables.contains("E4.3"));
    assert!(
        readme.contains(&tables),
        "README.md does not include results/004/tables.md verbatim (re-run python3 scripts/seed004_findings.py and copy the tables)"
    );
    for f in ["results/004/e41.json", "results/004/e43.json"] {
        let raw: serde_json::Value = serde_json::from_str(&read(f)).unwrap();
        assert!(raw["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["command"].as_str().unwrap().contains("packlab era")));
    }
}

#[test]
fn readme_includes_the_stored_seed_001_tables_verbatim() {
    let readme = read("README.md");
    let tables = read("results/001/tables.md");
    assert!(tables.contains("E1.1") && tables.contains("E1.3") && tables.contains("E1.4"));
    assert!(
        readme.contains(&tables),
        "README.md does not include results/001/tables.md verbatim (re-run python3 scripts/seed001_findings.py and copy the tables)"
    );
    // the raw reports are stored with their commands, and each command's scenario file is committed
    for f in [
        "results/001/e11.json",
        "results/001/e12.json",
        "results/001/e13.json",
    ] {
        let raw: serde_json::Value = serde_json::from_str(&read(f)).unwrap();
        let cmd = raw["command"].as_str().unwrap();
        assert!(cmd.contains("packlab run"), "{f}");
        let scenario = cmd.split_whitespace().last().unwrap();
        let stored: serde_json::Value = serde_json::from_str(&read(scenario)).unwrap();
        assert_eq!(stored, raw["scenario"], "{f}: {scenario}");
    }
}
