//! The oversubscription model (seed 001) end to end through the registry and the experiment contract:
//! Grid-x saves exactly 1 − x of the requested cores; PM-Hot-R and the hot PM-hours do not rise with x on the
//! same episodes; C-Hot-R ≥ PM-Hot-R; the report does not depend on the units per step; a trained policy
//! exported and evaluated from its file gives the trained row's numbers; foreign and tampered files are
//! refused with a message naming the field.

use packlab::experiment::{run_to_end, Experiment};
use packlab::input::InputFile;
use packlab::models::oversub::{OversubModel, OversubParams, OversubReport, OversubRun, Policy};
use packlab::models::{Inputs, ModelDef};
use packlab::scenario::{Model, Scenario};

fn scenario(f: impl FnOnce(&mut OversubParams)) -> Scenario {
    let mut p = OversubParams {
        pms: 120,
        eval_episodes: 12,
        train_episodes: 4,
        history_days: 2,
        ..OversubParams::default()
    };
    f(&mut p);
    Scenario {
        model: Model::Oversub,
        seed: 5,
        oversub: p,
        ..Scenario::default()
    }
}

fn start(sc: &Scenario, files: &[InputFile]) -> Result<OversubRun, packlab::experiment::RunError> {
    let inputs = Inputs {
        files,
        ..Default::default()
    };
    OversubModel::start(&sc.oversub, sc.seed, &inputs)
}

fn report(sc: &Scenario, files: &[InputFile]) -> OversubReport {
    let mut run = start(sc, files).unwrap();
    run_to_end(&mut run, &mut |_, _| true).unwrap()
}

#[test]
fn grid_saves_one_minus_x_and_hot_rates_fall_with_x() {
    let xs = [0.2, 0.3, 0.4, 0.6, 0.8, 1.0];
    // Memory that never binds (at the default 424 GB it binds at ≈ 2.2·B requested cores, so every rate ≤ 0.45
    // packs alike and only the best-fit choices differ).
    let sc = scenario(|p| {
        p.pm_mem_gb = 1536.0;
        p.policies = xs.iter().map(|&x| Policy::Grid(x)).collect();
    });
    let rep = report(&sc, &[]);
    assert_eq!(rep.rows.len(), xs.len());
    for (r, x) in rep.rows.iter().zip(xs) {
        // Σ a_v = x·Σ c_v for every episode: S-Cores = 1 − x up to rounding of the sums.
        assert!(
            (r.s_cores - (1.0 - x)).abs() < 1e-12,
            "{} {}",
            r.policy,
            r.s_cores
        );
        assert!(r.c_hot_r >= r.pm_hot_r, "{}", r.policy);
        assert!(r.pm_hot_r_lo <= r.pm_hot_r && r.pm_hot_r <= r.pm_hot_r_hi);
        assert_eq!(r.episodes, 12);
    }
    for w in rep.rows.windows(2) {
        assert!(
            w[1].pm_hot_r <= w[0].pm_hot_r,
            "{} → {}",
            w[0].policy,
            w[1].policy
        );
        assert!(
            w[1].hot_pm_hours <= w[0].hot_pm_hours,
            "{} → {}",
            w[0].policy,
            w[1].policy
        );
        assert!(
            w[1].active_pms >= w[0].active_pms,
            "{} → {}",
            w[0].policy,
            w[1].policy
        );
    }
    // Grid-0.2 packs five times the requested cores per PM of Grid-1: its hot PMs are far more frequent.
    assert!(rep.rows[0].hot_pm_hours > 10.0 * rep.rows[5].hot_pm_hours.max(0.1));
}

#[test]
fn every_row_keeps_c_hot_r_at_least_pm_hot_r() {
    for preset in ["E1.2", "E1.3"] {
        let sc = scenario(|p| {
            p.preset = serde_json::from_value(serde_json::json!(preset)).unwrap();
            p.policies = [
                "grid:0.4",
                "ma",
                "sl",
                "peak:p95",
                "peak:2sigma",
                "gpa:0.95",
            ]
            .iter()
            .map(|n| Policy::parse(n).unwrap())
            .collect();
            p.eval_episodes = 6;
        });
        let rep = report(&sc, &[]);
        for r in &rep.rows {
            assert!(r.c_hot_r >= r.pm_hot_r, "{preset} {}", r.policy);
            // an episode with an unsafe PM has at least δ·T hours with some PM hot: PM-Hot-R ≤ the share of
            // episodes with an unsafe PM ≤ C-Hot-R, and that share is 0 exactly when no PM is ever unsafe
            assert!(
                r.pm_hot_r <= r.any_pm_unsafe_r && r.any_pm_unsafe_r <= r.c_hot_r,
                "{preset} {}",
                r.policy
            );
            assert_eq!(
                r.any_pm_unsafe_r == 0.0,
                r.unsafe_pms == 0.0,
                "{preset} {}",
                r.policy
            );
            assert!(r.unsafe_pms >= r.any_pm_unsafe_r, "{preset} {}", r.policy);
            assert!((0.0..=1.0).contains(&r.s_cores), "{preset} {}", r.policy);
            // the clipped policies never go below the 0.2 floor: S-Cores ≤ 80%
            assert!(r.s_cores <= 0.8 + 1e-12, "{preset} {}", r.policy);
            for (n, row) in r.rates.rates.iter().enumerate() {
                for v in row.iter().flatten() {
                    assert!(
                        (0.2 - 1e-12..=1.0).contains(v),
                        "{preset} {} sub {n}",
                        r.policy
                    );
                }
            }
        }
    }
}

#[test]
fn units_per_step_do_not_change_the_report() {
    let sc = scenario(|p| {
        p.policies = ["grid:0.5", "gpa:0.95", "c2marl:0.95"]
            .iter()
            .map(|n| Policy::parse(n).unwrap())
            .collect();
        p.train_seeds = 2;
    });
    let one = {
        let mut run = start(&sc, &[]).unwrap();
        // Evaluation steps give every row's running estimate: one more episode per step, and the last
        // step's rows are the report's.
        let mut seen = Vec::new();
        let mut last = Vec::new();
        while let Some(st) = run.step(1) {
            if !st.rows.is_empty() {
                assert_eq!(
                    st.rows.len(),
                    4,
                    "every row (grid, gpa, two C2MARL seeds) in each step"
                );
                seen.push(st.rows[0].episodes);
                last = st.rows;
            }
        }
        let e = sc.oversub.eval_episodes;
        assert_eq!(seen, (1..=e).collect::<Vec<u32>>());
        let rep = run.report().unwrap();
        assert_eq!(
            serde_json::to_string(&last).unwrap(),
            serde_json::to_string(&rep.rows).unwrap()
        );
        serde_json::to_string(&rep).unwrap()
    };
    let many = {
        let mut run = start(&sc, &[]).unwrap();
        while run.step(7).is_some() {}
        serde_json::to_string(&run.report().unwrap()).unwrap()
    };
    assert_eq!(one, many);
}

#[test]
fn an_exported_policy_evaluates_like_the_trained_row_and_foreign_files_are_refused() {
    let sc = scenario(|p| p.policies = vec![Policy::C2marl(0.95)]);
    let mut run = start(&sc, &[]).unwrap();
    let rep = run_to_end(&mut run, &mut |_, _| true).unwrap();
    let mut bytes = Vec::new();
    run.query(
        "policy",
        &serde_json::json!({ "row": 0 }),
        &mut serde_json::Serializer::new(&mut bytes),
    )
    .unwrap();
    let file = InputFile {
        name: "p.json".into(),
        bytes: bytes.clone(),
    };
    let sc2 = scenario(|p| p.policies = vec![Policy::parse("c2marl:p.json").unwrap()]);
    let rep2 = report(&sc2, std::slice::from_ref(&file));
    let (a, b) = (&rep.rows[0], &rep2.rows[0]);
    assert_eq!(
        (a.pm_hot_r, a.c_hot_r, a.s_cores),
        (b.pm_hot_r, b.c_hot_r, b.s_cores)
    );
    assert_eq!(a.rates.rates, b.rates.rates);
    // Another cluster size: refused, naming the field.
    let sc3 = scenario(|p| {
        p.pms = 121;
        p.policies = vec![Policy::parse("c2marl:p.json").unwrap()];
    });
    let e = start(&sc3, std::slice::from_ref(&file)).err().unwrap();
    assert_eq!(e.field.as_deref(), Some("oversub.policies"));
    assert!(e.message.contains("another scenario"), "{}", e.message);
    assert!(
        e.message.contains("pms: 120 in the file, 121 here"),
        "{}",
        e.message
    );
    assert!(
        !e.message.contains("beta"),
        "only the difference: {}",
        e.message
    );
    // Every environment setting it was trained on counts (issue 25: memory, arrival order, usage, δ, seed).
    let other = |f: &dyn Fn(&mut Scenario), want: &str| {
        let mut sc = sc2.clone();
        f(&mut sc);
        let e = start(&sc, std::slice::from_ref(&file)).err().unwrap();
        assert!(e.message.contains(want), "{want}: {}", e.message);
    };
    other(
        &|s| s.oversub.pm_mem_gb = 1536.0,
        "pm_mem_gb: 424.0 in the file, 1536.0 here",
    );
    other(
        &|s| s.oversub.arrival_order = packlab::models::oversub::ArrivalOrder::Subscriber,
        "arrival_order: \"mixed\" in the file, \"subscriber\" here",
    );
    other(&|s| s.oversub.amplitude = [0.05, 0.3], "amplitude: ");
    other(
        &|s| s.oversub.delta = 0.05,
        "delta: 0.025 in the file, 0.05 here",
    );
    other(&|s| s.seed = 2, "profiles: ");
    // Tampered or truncated bytes: refused with a message, never a panic.
    for bad in [
        &bytes[..bytes.len() / 2],
        b"{}".as_slice(),
        b"\xff\xfe".as_slice(),
    ] {
        let f = InputFile {
            name: "p.json".into(),
            bytes: bad.to_vec(),
        };
        let e = start(&sc2, &[f]).err().unwrap();
        assert_eq!(e.field.as_deref(), Some("oversub.policies"));
    }
    // A missing file is named.
    let e = start(&sc2, &[]).err().unwrap();
    assert!(e.message.contains("p.json"), "{}", e.message);
}

#[test]
fn charts_draw_the_pinned_rows_training_and_rates_and_refuse_bad_data() {
    let read = |p: &str| -> serde_json::Value {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let rows = read("tests/pins/oversub-small.json");
    let o = serde_json::json!({ "title": "t" });
    let svg = packlab::models::chart_svg("oversub.frontier", &rows, &o, 640, 400).unwrap();
    for p in ["grid:0.4", "ma", "gpa:0.95", "c2marl:0.95", "α 0.95"] {
        assert!(svg.contains(p), "{p}");
    }
    let svg = packlab::models::chart_svg("oversub.rates", &rows[3]["rates"], &o, 640, 400).unwrap();
    assert!(svg.contains("s1") && svg.contains("s12"));
    let rep = read("tests/pins/link-1242a53965.json");
    let svg =
        packlab::models::chart_svg("oversub.training", &rep["training"], &o, 640, 400).unwrap();
    assert!(svg.contains("c2marl:0.95 seed 1"));
    for name in ["oversub.frontier", "oversub.training", "oversub.rates"] {
        assert!(
            packlab::models::chart_svg(name, &serde_json::json!({ "x": 1 }), &o, 640, 400).is_err()
        );
    }
}

/// The model's `setup` operation tells the page what an empty policy list stands for, K and α's range (the
/// page copies none of them): E1.3's list has Grid-1 (ALGORITHMS.md §3.6), 200 PMs; a given list keeps its
/// order without repeats.
#[test]
fn setup_operation_gives_the_preset_list_pms_and_alpha_range() {
    let setup = |json: &str| {
        let sc = packlab::scenario::Scenario::from_json(json).unwrap();
        packlab::scenario::call(
            &sc,
            "setup",
            &serde_json::Value::Null,
            &packlab::models::Inputs::default(),
            serde_json::value::Serializer,
        )
        .unwrap()
    };
    let azure = setup(r#"{"model":"oversub","oversub":{"preset":"E1.3"}}"#);
    assert_eq!(
        azure["policies"],
        serde_json::json!([
            "grid:0.2",
            "grid:0.4",
            "grid:0.6",
            "grid:1",
            "ma",
            "sl",
            "peak:p95",
            "gpa:0.95",
            "c2marl:0.95"
        ])
    );
    assert_eq!(azure["pms"], 200);
    assert_eq!(azure["alpha"], serde_json::json!([0.5, 0.9999]));
    let given = setup(
        r#"{"model":"oversub","oversub":{"preset":"E1.1","pms":40,"policies":["ma","gpa:0.9","ma"]}}"#,
    );
    assert_eq!(given["policies"], serde_json::json!(["ma", "gpa:0.9"]));
    assert_eq!(given["pms"], 40);
}

/// Users' rate scripts (issue 31) through the whole run: the starters `sl` and `ma` give the built-ins'
/// rows bit for bit (every figure and every rate, over every evaluation episode), the scripts travel in
/// the share link, and a script that fails at run time fails only its row (its error, with the episode;
/// every other row bit for bit as without it).
#[test]
fn script_rows_equal_the_builtins_and_a_failing_script_fails_only_its_row() {
    use packlab::models::oversub::policies::script::{STARTER_MA, STARTER_SL};
    use packlab::script::ScriptPolicy;
    let sc = scenario(|p| {
        p.pms = 40;
        p.eval_episodes = 4;
        p.policies = vec![Policy::Ma, Policy::Sl, Policy::Script("my-sl".into())];
        p.scripts = vec![
            ScriptPolicy::new("my-sl", STARTER_SL),
            ScriptPolicy::new("my-ma", STARTER_MA),
        ];
    });
    let back = Scenario::from_link(&sc.to_link()).unwrap();
    assert_eq!(back.oversub.scripts, sc.oversub.scripts);
    let rep = report(&back, &[]);
    let names: Vec<&str> = rep.rows.iter().map(|r| r.policy.as_str()).collect();
    // listed scripts where listed, the others after the list
    assert_eq!(names, ["ma", "sl", "script:my-sl", "script:my-ma"]);
    let same = |a: &packlab::models::oversub::experiment::PolicyRow,
                b: &packlab::models::oversub::experiment::PolicyRow| {
        let mut b = b.clone();
        b.policy = a.policy.clone();
        b.rates.policy = a.rates.policy.clone();
        assert_eq!(
            serde_json::to_string(a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{} vs {}",
            a.policy,
            b.policy
        );
    };
    same(&rep.rows[1], &rep.rows[2]);
    same(&rep.rows[0], &rep.rows[3]);
    // real oversubscription, not rows of rate 1
    assert!(rep.rows[0].s_cores > 0.3 && rep.rows[1].s_cores > 0.3);

    // the same run with a script that fails at the first hour 6 of every episode (a string for a rate)
    let mut bad = sc.clone();
    bad.oversub.scripts.push(ScriptPolicy::new(
            "bad",
            "fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target, min_rate) {\n  if n.len() > 0 && h == 6 && mean[0] >= 0.0 { \"x\" } else { 0.5 }\n}",
    ));
    let got = report(&bad, &[]);
    assert_eq!(got.rows.len(), 5);
    let e = got.rows[4].error.as_deref().unwrap();
    assert_eq!(got.rows[4].policy, "script:bad");
    assert_eq!(
        e,
        "evaluation episode 0: 'rate' returned x (string); a number is needed"
    );
    for (a, b) in rep.rows.iter().zip(&got.rows[..4]) {
        assert_eq!(a, b);
        assert!(b.error.is_none());
    }
}
