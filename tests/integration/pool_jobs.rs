//! The experiment contract's jobs (the browser's pool of workers): a run whose steps are split into jobs,
//! computed on *other* copies of the run with their results passed as JSON text (as between Web Workers),
//! ends with the report of the run stepped by itself, bit for bit, for any number of jobs per step.

use packlab::input::InputFile;
use packlab::models::{AnyRun, Inputs, Model};
use packlab::scenario::start;
use packlab::scenario::Scenario;
use packlab::trace::{read_trace, UsageTrace};

fn bundled_trace() -> UsageTrace {
    let sc = Scenario::default();
    let packlab::scenario::TraceRef::Bundled(id) = &sc.trace else {
        panic!("the default trace is bundled")
    };
    let b = packlab::data::bundled_trace(id).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path);
    let bytes = std::fs::read(&path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    read_trace(id, &[InputFile { name, bytes }], b.format).unwrap()
}

fn bundled_workload(b: packlab::data::BundledData) -> packlab::workload::Workload {
    b.read_workload_at(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
        .unwrap()
}

fn report(run: &AnyRun) -> String {
    let mut out = Vec::new();
    run.report(&mut serde_json::Serializer::new(&mut out))
        .expect("finished")
        .unwrap();
    String::from_utf8(out).unwrap()
}

/// The run stepped by itself, one unit at a time (the single worker's way).
fn stepped(sc: &Scenario, inputs: &Inputs) -> String {
    let mut run = start(sc, inputs).unwrap();
    while run.step(1, serde_json::value::Serializer).is_some() {}
    report(&run)
}

/// The run driven by jobs of `units` each, computed round-robin on `copies` other copies of the run; returns
/// the report, the partial results and the number of split steps.
fn pooled(
    sc: &Scenario,
    inputs: &Inputs,
    units: usize,
    copies: usize,
) -> (String, Vec<serde_json::Value>, usize) {
    let mut run = start(sc, inputs).unwrap();
    let mut pool: Vec<AnyRun> = (0..copies).map(|_| start(sc, inputs).unwrap()).collect();
    let (mut partials, mut split) = (Vec::new(), 0);
    loop {
        let jobs = run.jobs(units);
        if jobs.is_empty() {
            match run.step(units, serde_json::value::Serializer) {
                Some(p) => partials.push(p.unwrap()),
                None => break,
            }
            continue;
        }
        assert!(jobs.len() <= units);
        split += 1;
        let results: Vec<serde_json::Value> = jobs
            .iter()
            .enumerate()
            .map(|(k, job)| {
                // across workers jobs and results travel as JSON text
                let job: serde_json::Value = serde_json::from_str(&job.to_string()).unwrap();
                let r = pool[k % copies].compute(&job).unwrap();
                serde_json::from_str(&r.to_string()).unwrap()
            })
            .collect();
        partials.extend(
            run.absorb(results, || serde_json::value::Serializer)
                .unwrap(),
        );
    }
    let keys = declared_step_keys(sc.model.info().id);
    for p in &partials {
        let mut got: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        got.sort();
        assert_eq!(
            got,
            keys,
            "a {} step's keys against src/wasm/reports.d.ts",
            sc.model.info().id
        );
    }
    (report(&run), partials, split)
}

/// The keys of model `id`'s partial result as src/wasm/reports.d.ts declares them (its `ModelSteps` entry's
/// interface), sorted: what the playground's TypeScript is told a step gives.
fn declared_step_keys(id: &str) -> Vec<String> {
    let ts = include_str!("../../src/wasm/reports.d.ts");
    let body = |name: &str| -> Vec<&str> {
        let start = ts
            .find(&format!("export interface {name} {{"))
            .unwrap_or_else(|| panic!("reports.d.ts has no interface {name}"));
        let rest = &ts[start..];
        rest[..rest.find("\n}").unwrap()].lines().skip(1).collect()
    };
    let step = body("ModelSteps")
        .into_iter()
        .find_map(|l| l.trim().strip_prefix(&format!("{id}: ")))
        .unwrap_or_else(|| panic!("ModelSteps has no {id}"))
        .trim_end_matches(';')
        .to_string();
    let mut keys: Vec<String> = body(&step)
        .into_iter()
        .map(str::trim)
        .filter(|l| !l.starts_with("/**") && !l.is_empty())
        .map(|l| {
            l.split(':')
                .next()
                .unwrap()
                .trim_end_matches('?')
                .to_string()
        })
        .collect();
    keys.sort();
    keys
}

#[test]
fn placement_frontier_points_computed_elsewhere_give_the_same_frontier() {
    let t = bundled_trace();
    let inputs = Inputs {
        trace: Some(&t),
        ..Default::default()
    };
    let sc = Scenario::default();
    assert_eq!(sc.model, Model::Placement);
    let one = stepped(&sc, &inputs);
    let total = start(&sc, &inputs).unwrap();
    let total = packlab::experiment::Steppable::total(&total);
    assert!(total > 10);
    for (units, copies) in [(1, 1), (3, 2), (7, 3), (1000, 4)] {
        let (rep, partials, split) = pooled(&sc, &inputs, units, copies);
        assert_eq!(rep, one, "units {units}");
        assert_eq!(split, total.div_ceil(units));
        // the partial results list every point once, in order
        let firsts: Vec<u64> = partials
            .iter()
            .map(|p| p["first"].as_u64().unwrap())
            .collect();
        assert_eq!(
            firsts,
            (0..split as u64)
                .map(|s| s * units as u64)
                .collect::<Vec<_>>()
        );
    }
}

fn tiny_admission() -> Scenario {
    let mut s = Scenario {
        model: Model::Admission,
        seed: 3,
        ..Scenario::default()
    };
    s.admission.runs = 3;
    s.admission.params.capacity = 200.0;
    s.admission.params.horizon_hours = 240.0;
    s.admission.params.tune_iterations = 3;
    s.admission.params.bootstrap = 200;
    s.admission.params.subhorizons = vec![240.0, 24.0];
    s.admission.params.steps = 20;
    s
}

#[test]
fn admission_runs_computed_elsewhere_give_the_same_tuning() {
    let sc = tiny_admission();
    let inputs = Inputs::default();
    let one = stepped(&sc, &inputs);
    let arms = sc.admission.arms().unwrap().len();
    assert!(arms >= 3);
    for (units, copies) in [(1, 1), (2, 2), (5, 3), (64, 4)] {
        let (rep, partials, split) = pooled(&sc, &inputs, units, copies);
        assert_eq!(rep, one, "units {units}");
        // every arm finishes exactly once, and the run counts only grow
        let finished: Vec<u64> = partials
            .iter()
            .filter(|p| !p["finished"].is_null())
            .map(|p| p["arm"].as_u64().unwrap())
            .collect();
        assert_eq!(finished.len(), arms, "units {units}");
        let done: Vec<u64> = partials
            .iter()
            .map(|p| p["done"].as_u64().unwrap())
            .collect();
        assert!(done.windows(2).all(|w| w[0] <= w[1]));
        if units >= 64 {
            // a step takes the current threshold of every arm at once: 3 bisection steps and the search's 3
            // upward probes (+ the arms that evaluate once)
            assert_eq!(packlab::models::admission::tuning::PROBES, 3);
            assert!(split <= 3 + 3 + 1, "{split} split steps");
            let first_step_arms: Vec<u64> = partials[..arms]
                .iter()
                .map(|p| p["arm"].as_u64().unwrap())
                .collect();
            assert_eq!(first_step_arms, (0..arms as u64).collect::<Vec<_>>());
        }
    }
}

#[test]
fn jobs_from_elsewhere_are_refused() {
    let sc = tiny_admission();
    let mut run = start(&sc, &Inputs::default()).unwrap();
    for bad in [
        serde_json::json!({"arm": 99, "threshold": 1.0, "run": 0}),
        serde_json::json!({"arm": 0, "threshold": 1.0, "run": 3}),
        serde_json::json!({"arm": 0, "run": 0}),
        serde_json::json!(7),
    ] {
        let e = run.compute(&bad).unwrap_err();
        assert!(e.message.contains("not a simulation run"), "{e}");
    }
    let jobs = run.jobs(2);
    assert_eq!(jobs.len(), 2);
    // too few results, or results of another kind, leave the run as it was
    assert!(run
        .absorb(vec![serde_json::json!({})], || {
            serde_json::value::Serializer
        })
        .is_err());
    assert!(run
        .absorb(vec![serde_json::json!(1), serde_json::json!(2)], || {
            serde_json::value::Serializer
        })
        .is_err());
    assert_eq!(packlab::experiment::Steppable::done(&run), 0);
}

#[test]
fn lifetime_policy_runs_computed_elsewhere_give_the_same_report_and_timelines() {
    let w = bundled_workload(packlab::data::AZURE2017_ARRIVALS);
    let inputs = Inputs {
        workload: Some(&w),
        ..Default::default()
    };
    let mut sc = Scenario {
        model: Model::Lifetime,
        ..Scenario::default()
    };
    sc.lifetime.share = 0.05;
    let one = stepped(&sc, &inputs);
    let (rep, partials, split) = pooled(&sc, &inputs, 3, 2);
    assert_eq!(rep, one);
    assert!(split >= 2, "{split} split steps");
    assert_eq!(partials.len(), split);
    // the host timeline (not in the report) came along with each result
    let timeline = |run: &mut AnyRun| {
        let mut out = Vec::new();
        run.query(
            "timeline",
            &serde_json::json!({ "policy": 1 }),
            &mut serde_json::Serializer::new(&mut out),
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    };
    let mut a = start(&sc, &inputs).unwrap();
    while a.step(1, serde_json::value::Serializer).is_some() {}
    let mut b = start(&sc, &inputs).unwrap();
    let mut copy = start(&sc, &inputs).unwrap();
    loop {
        let jobs = b.jobs(2);
        if jobs.is_empty() {
            break;
        }
        let results = jobs.iter().map(|j| copy.compute(j).unwrap()).collect();
        b.absorb(results, || serde_json::value::Serializer).unwrap();
    }
    let ta = timeline(&mut a);
    assert!(ta.len() > 100);
    assert_eq!(timeline(&mut b), ta);
}

#[test]
fn era_cells_computed_elsewhere_give_the_same_report() {
    let w = bundled_workload(packlab::data::SWIM_FB2010);
    let inputs = Inputs {
        workload: Some(&w),
        ..Default::default()
    };
    let sc = Scenario::from_json(
        r#"{"model":"era","era":{"preset":"E4.1"},"workload":{"bundled":"swim-fb2010"}}"#,
    )
    .unwrap();
    let one = stepped(&sc, &inputs);
    let total = packlab::experiment::Steppable::total(&start(&sc, &inputs).unwrap());
    assert!(total >= 3, "{total} cells");
    let (rep, partials, split) = pooled(&sc, &inputs, 2, 2);
    assert_eq!(rep, one);
    assert_eq!(split, total.div_ceil(2));
    assert_eq!(partials.len(), split);
}

#[test]
fn oversub_evaluation_episodes_computed_elsewhere_give_the_same_report() {
    // the default scenario's C2MARL arm from the bundled pretrained file (no training), beside a baseline
    let b = packlab::data::OVERSUB_C2MARL_E11;
    let files = vec![InputFile {
        name: b.id.into(),
        bytes: std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
            .unwrap(),
    }];
    let inputs = Inputs {
        files: &files,
        ..Default::default()
    };
    let sc = Scenario::from_json(
        r#"{"model":"oversub","oversub":{"eval_episodes":3,"policies":["grid:0.4","c2marl:0.95"]}}"#,
    )
    .unwrap();
    let one = stepped(&sc, &inputs);
    let (rep, partials, split) = pooled(&sc, &inputs, 2, 2);
    assert_eq!(rep, one);
    assert_eq!(split, 2, "3 evaluation episodes in jobs of at most 2");
    assert_eq!(partials.len(), 2);
    // a run that trains does not split (its copies would not hold the trained policy)
    let sc = Scenario::from_json(
        r#"{"model":"oversub","oversub":{"pms":40,"eval_episodes":2,"train_episodes":2,"policies":["grid:0.4","c2marl:0.95"]}}"#,
    )
    .unwrap();
    let (rep, _, split) = pooled(&sc, &Inputs::default(), 2, 2);
    assert_eq!(split, 0);
    assert_eq!(rep, stepped(&sc, &Inputs::default()));
}
