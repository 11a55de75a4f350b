//! Property tests of the entry points a stranger's link or scenario file reaches (the browser's
//! `scenario_from_link`, `check_scenario`, `ExperimentRun` and the CLI's `packlab run`): random JSON, mutated real
//! scenarios (the saved links' scenarios with fields replaced by random values of any type) and tampered link
//! strings must give `Ok` or an error naming the field, never a panic (in wasm a panic aborts the page's
//! engine), and planning a run must stay fast.

use packlab::experiment::Steppable;
use packlab::input::InputFile;
use packlab::models::{self, Inputs, Model};
use packlab::scenario::Scenario;
use packlab::trace::{read_trace, UsageTrace};
use packlab::workload::{read_workload, Workload};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

static PLANNED: AtomicUsize = AtomicUsize::new(0);
static TRIED: AtomicUsize = AtomicUsize::new(0);
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn file(rel: &str, name: &str) -> InputFile {
    InputFile {
        name: name.into(),
        bytes: std::fs::read(root().join(rel)).unwrap(),
    }
}

/// A small real trace and workload (the fuzz seeds), what a run plans on.
fn inputs() -> &'static (UsageTrace, Workload) {
    static I: OnceLock<(UsageTrace, Workload)> = OnceLock::new();
    I.get_or_init(|| {
        let t = read_trace(
            "planetlab-3vms.tsv",
            &[file(
                "fuzz/seeds/wide/planetlab-3vms.tsv",
                "planetlab-3vms.tsv",
            )],
            None,
        )
        .unwrap();
        let w = read_workload(
            "arrivals",
            &[file("fuzz/seeds/azure_arrivals/bundle.txt", "arrivals.txt")],
            None,
        )
        .unwrap();
        (t, w)
    })
}

/// The scenarios of the saved links (complete) and the default one: what the mutations start from.
fn bases() -> &'static Vec<Value> {
    static B: OnceLock<Vec<Value>> = OnceLock::new();
    B.get_or_init(|| {
        let mut v = vec![serde_json::to_value(Scenario::default()).unwrap()];
        for m in [Model::Admission, Model::Lifetime] {
            let mut s = Scenario::default();
            s.model = m;
            v.push(serde_json::to_value(s).unwrap());
        }
        let text = std::fs::read_to_string(root().join("tests/links/v1.decoded.jsonl")).unwrap();
        v.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
        for s in &mut v {
            s["lifetime"]["split"] = json!("dev"); // the split the small workload holds
        }
        v
    })
}

fn saved_links() -> &'static Vec<String> {
    static L: OnceLock<Vec<String>> = OnceLock::new();
    L.get_or_init(|| {
        ["v1.jsonl", "v2.jsonl"]
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(root().join("tests/links").join(f))
                    .unwrap()
                    .lines()
                    .map(|l| {
                        serde_json::from_str::<Value>(l).unwrap()["link"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    })
}

/// Every path to a value (object keys and array indices) in `v`.
fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(json!(k));
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(json!(i));
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn set(v: &mut Value, path: &[Value], new: Value) {
    let Some((last, up)) = path.split_last() else {
        *v = new;
        return;
    };
    let mut cur = v;
    for p in up {
        cur = match (cur, p) {
            (Value::Object(m), Value::String(k)) => m.get_mut(k).unwrap(),
            (Value::Array(a), Value::Number(i)) => &mut a[i.as_u64().unwrap() as usize],
            _ => unreachable!(),
        };
    }
    match (cur, last) {
        (Value::Object(m), Value::String(k)) => {
            if new.is_null() && k.len() % 2 == 0 {
                m.remove(k); // sometimes a missing field rather than null
            } else {
                m.insert(k.clone(), new);
            }
        }
        (Value::Array(a), Value::Number(i)) => a[i.as_u64().unwrap() as usize] = new,
        _ => unreachable!(),
    }
}

fn get<'v>(v: &'v Value, path: &[Value]) -> &'v Value {
    path.iter().fold(v, |cur, p| match p {
        Value::String(k) => &cur[k.as_str()],
        Value::Number(i) => &cur[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

/// A hostile number: 0, negative, huge, tiny, fractional, beyond 2^53, or an ordinary one.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|u| json!(u)),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop::sample::select(vec![
            0.0,
            -0.0,
            -1.0,
            0.5,
            1.0,
            2.0,
            1e-300,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            9007199254740993.0,
            1e9,
            1e15,
            4294967296.0
        ])
        .prop_map(|f| json!(f)),
        (0u64..2_000_000).prop_map(|u| json!(u)),
        (0u64..100).prop_map(|u| json!(u)),
    ]
}

/// Any JSON value, with the numbers a hostile scenario would pick (0, negative, huge, fractional, 2^53..).
fn any_json() -> impl Strategy<Value = Value> {
    let number = number();
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        "[a-z0-9_.:-]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "placement",
            "admission",
            "lifetime",
            "bf",
            "ff",
            "gpa",
            "av:1.25",
            "resampled",
            "azure",
            "",
            "\u{0}",
            "🙂",
            "planetlab-20110303",
            "azure2017-arrivals"
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,10}", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// What the browser and the CLI do with a scenario: parse it onto the defaults, validate it, and plan its run
/// on the loaded inputs; then make a link of it and decode that. Returns whether a run was planned.
fn drive(text: &str) -> bool {
    let (trace, workload) = inputs();
    let Ok(sc) = Scenario::from_json(text) else {
        return false;
    };
    if let Err(errs) = sc.validate() {
        assert!(
            errs.iter()
                .all(|e| !e.field.is_empty() && !e.message.is_empty()),
            "{errs:?}"
        );
        return false;
    }
    let link = sc.to_link();
    assert_eq!(
        Scenario::from_link(&link).expect("the link of a valid scenario decodes"),
        sc
    );
    let inputs = Inputs {
        trace: Some(trace),
        workload: Some(workload),
        facts: None,
        files: &[],
        browser: true,
    };
    let t0 = Instant::now();
    let planned = packlab::scenario::start(&sc, &inputs);
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "planning took {:?}",
        t0.elapsed()
    );
    match planned {
        Ok(mut run) => {
            if run.total() == 0 && run.error().is_none() {
                // nothing to do (e.g. every family of the frontier switched off): the report is there at once
                assert!(run.step(1, serde_json::value::Serializer).is_none());
                assert!(
                    run.report(serde_json::value::Serializer).is_some(),
                    "no report of an empty run"
                );
            }
            // one unit of work of the cheap model (a frontier point on the 3-VM trace)
            if sc.model == Model::Placement {
                let t0 = Instant::now();
                if let Some(Err(e)) = run.step(1, serde_json::value::Serializer) {
                    panic!("a partial result does not serialize: {e}");
                }
                assert!(
                    t0.elapsed() < Duration::from_secs(10),
                    "one step took {:?}",
                    t0.elapsed()
                );
            }
            true
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            if std::env::var_os("SHOW_RUN_ERRORS").is_some() {
                eprintln!("{e}");
            }
            false
        }
    }
}

fn no_panic(what: &str, text: &str, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        panic!("the engine panicked on {what}: {text}");
    }
}

type Edit = (prop::sample::Index, Value, Value, String, u8);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            any_json(),
            number(),
            "[a-z0-9:._-]{0,8}",
            0u8..10,
        ),
        1..4,
    )
}

/// Applies `edits` to `v`: each replaces one value (never the root) by one of the same type, mostly (so it gets
/// past the parser), or by any JSON value.
fn mutate(v: &mut Value, edits: Vec<Edit>) {
    for (at, any, num, text, how) in edits {
        let mut all = Vec::new();
        paths(v, &mut Vec::new(), &mut all);
        if all.len() < 2 {
            return;
        }
        let p = at.get(&all[1..]).clone();
        let new = match (get(v, &p), how) {
            (_, 0 | 1) => any,
            (Value::Number(_), _) => num,
            (Value::String(_), _) => json!(text),
            (Value::Bool(b), _) => json!(!b),
            (Value::Array(a), k) if k % 2 == 0 => json!(a[..a.len() / 2]),
            (Value::Array(a), _) => json!([a.clone(), a.clone()].concat()),
            (_, _) => any,
        };
        set(v, &p, new);
    }
}

/// The inputs of every chart (as in tests/chart_pins.rs): what a report or a loaded trace hands the charts.
fn chart_inputs() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "placement.frontier",
            json!([{"family":"gpa","spec":"gpa:0.1","m":1.1,"q":0.01,"pareto":true},{"family":"av","spec":"av:1","m":1.3,"q":0.0,"pareto":false},{"family":"max","spec":"max","m":1.9,"q":0.0,"pareto":true}]),
            json!({"target_rho":0.05,"title":"t"}),
        ),
        (
            "placement.machine",
            json!({"machine":0,"totals":[0.5,0.7,0.9,1.2,0.4],"mean":0.7,"sd":0.3,"capacity":1.0,"empirical_overflow":0.2,"gaussian_overflow":0.16,"items":["a","b"]}),
            json!({"scale":2}),
        ),
        (
            "trace.histogram",
            json!({"histogram":[{"lo":0.0,"hi":0.5,"count":10},{"lo":0.5,"hi":1.0,"count":3}]}),
            json!(null),
        ),
        (
            "admission.frontier",
            json!([{"label":"ZEROTH","points":[[0.4,0.0],[0.6,0.002]],"tuned":[0.4,0.0]},{"label":"SECOND","points":[[0.5,0.0],[0.65,0.0005]],"tuned":[0.65,0.0005]}]),
            json!({"sla":0.001}),
        ),
        (
            "admission.series",
            json!({"t":[0.0,1.0,2.0],"active":[10.0,20.0,15.0],"failures":[0.0,1.0,1.0],"accepted":[1.0,2.0,3.0],"rejected":[0.0,0.0,1.0],"capacity":30.0}),
            json!(null),
        ),
        (
            "lifetime.empty",
            json!([{"policy":"best-fit","empty_series":[1.0,0.6,0.4,0.35,0.3,0.31],"empty_hosts":0.31},{"policy":"lava","empty_series":[1.0,0.62,0.45,0.41,0.38,0.37],"empty_hosts":0.375,"failures":0}]),
            json!({"warmup_h":2,"title":"t"}),
        ),
        (
            "lifetime.accuracy",
            json!([{"policy":"nilas","accuracy":[0.5,0.75,1.0],"delta_pp":[0.8,1.4,2.1],"oracle_pp":2.7},{"policy":"lava","accuracy":[0.5,1.0],"delta_pp":[-0.3,3.2]}]),
            json!({"title":"t"}),
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A real scenario with a few fields replaced by values of any type (or removed).
    #[test]
    fn mutated_scenarios_never_panic(
        base in 0usize..64,
        edits in edits(),
        model in prop::sample::select(vec!["placement", "admission", "lifetime"]),
    ) {
        let bases = bases();
        let mut v = bases[base % bases.len()].clone();
        v["model"] = json!(model);
        mutate(&mut v, edits);
        let text = v.to_string();
        no_panic("the scenario", &text, || {
            if drive(&text) {
                PLANNED.fetch_add(1, Ordering::Relaxed);
            }
            TRIED.fetch_add(1, Ordering::Relaxed);
        });
    }

    /// Chart data and options with values replaced (extreme or degenerate numbers, wrong types): a chart
    /// draws or says what is wrong.
    #[test]
    fn mutated_chart_data_never_panics(
        which in 0usize..6,
        data_edits in edits(),
        opt_edits in edits(),
        size in (0u32..3000, 0u32..3000),
    ) {
        let (name, mut data, mut opts) = chart_inputs().swap_remove(which);
        mutate(&mut data, data_edits);
        mutate(&mut opts, opt_edits);
        let shown = format!("{name} {data} {opts}");
        no_panic("the chart", &shown, || {
            let _ = models::chart_svg(name, &data, &opts, size.0.clamp(100, 8000), size.1.clamp(100, 8000));
        });
    }

    /// Random JSON documents (mostly not scenarios at all).
    #[test]
    fn random_json_never_panics(v in any_json()) {
        let text = v.to_string();
        no_panic("the scenario", &text, || { drive(&text); });
    }

    /// Saved links with characters replaced, cut or inserted, and random strings.
    #[test]
    fn tampered_links_never_panic(
        which in any::<prop::sample::Index>(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), "[A-Za-z0-9_.=&#-]{0,3}"), 0..4),
        junk in ".{0,40}",
    ) {
        let mut link = which.get(saved_links()).clone();
        for (at, s) in cuts {
            let i = at.index(link.len() + 1);
            let j = (i + 2).min(link.len());
            if link.is_char_boundary(i) && link.is_char_boundary(j) {
                link.replace_range(i..j, &s);
            }
        }
        for l in [link.clone(), junk.clone(), format!("https://x.org/#s={junk}")] {
            no_panic("the link", &l, || {
                if let Ok(sc) = Scenario::from_link(&l) {
                    let text = serde_json::to_string(&sc).unwrap();
                    drive(&text);
                }
            });
        }
    }
}

/// The generators reach the run entry points, not just the parser: unchanged bases plan a run, and so do
/// many of the mutated ones.
#[test]
fn every_base_scenario_plans_a_run() {
    for v in bases() {
        assert!(drive(&v.to_string()), "{v}");
    }
}

#[test]
fn mutations_reach_the_planner() {
    // the proptest above counts; run it here again if it has not run yet in this process
    if TRIED.load(Ordering::Relaxed) == 0 {
        mutated_scenarios_never_panic();
    }
    let (planned, tried) = (
        PLANNED.load(Ordering::Relaxed),
        TRIED.load(Ordering::Relaxed),
    );
    eprintln!("{planned} of {tried} mutated scenarios planned a run");
    assert!(
        planned * 10 >= tried,
        "only {planned} of {tried} mutated scenarios planned a run"
    );
}
