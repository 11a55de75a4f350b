//! The engine's untrusted-input entry points as functions of raw bytes, shared by the cargo-fuzz targets
//! (`fuzz/`) and the replay of their findings in `make test` (`tests/integration/fuzz_regressions.rs`), so a saved finding
//! is replayed through exactly the code the fuzzer ran. Native only (not in the wasm library).
//!
//! [`run`] returns `Ok(())` when the input was accepted and `Err(message)` with the error the user would see
//! (file:line:column or the field) when it was rejected; a panic is a bug. Multi-file inputs (a folder upload)
//! are split on NUL bytes ([`split_files`]), the k-th part getting the k-th name of the target's list.

use crate::input::{InputFile, TraceError};
use crate::scenario::Scenario;
use crate::trace::{self, TraceFormat};
use crate::workload::{self, WorkloadFormat};

/// Every target, as named in `fuzz/Cargo.toml` and `tests/fuzz-regressions/`.
pub const TARGETS: &[&str] = &[
    "link",
    "scenario_json",
    "gzip",
    "zip",
    "wide",
    "long_csv",
    "planetlab",
    "azure_arrivals",
    "azure_vmtable",
    "alibaba_gpu",
    "usage_readers",
    "model_files",
    "swim",
    "policy_file",
    "script",
];

/// The operation budget of one input of the `script` target (small, so a hostile input costs milliseconds).
pub const SCRIPT_BUDGET: u64 = 200_000;

/// The scenario the `policy_file` target loads its input into: the oversubscription model with one policy,
/// the trained-policy file `policy.json` (what `packlab oversub-train --preset E1.1 --pms 20 --seed 1` writes
/// fits it), evaluated on one episode.
pub const POLICY_FILE_SCENARIO: &str = r#"{"model":"oversub","seed":1,"oversub":{"preset":"E1.1","pms":20,"policies":["c2marl:policy.json"],"eval_episodes":1}}"#;

/// Splits `data` on NUL bytes into at most `names.len()` files (the last part keeps any further NULs); part
/// k is called `names[k]`. Empty parts are kept (an empty file is an input too).
pub fn split_files(data: &[u8], names: &[&str]) -> Vec<InputFile> {
    let mut out = Vec::new();
    let mut rest = data;
    for (k, name) in names.iter().enumerate() {
        let cut = if k + 1 == names.len() {
            None
        } else {
            rest.iter().position(|b| *b == 0)
        };
        let (part, next) = match cut {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        out.push(InputFile {
            name: name.to_string(),
            bytes: part.to_vec(),
        });
        match next {
            Some(n) => rest = n,
            None => break,
        }
    }
    out
}

fn one(name: &str, data: &[u8]) -> Vec<InputFile> {
    vec![InputFile {
        name: name.into(),
        bytes: data.to_vec(),
    }]
}

fn trace_result(r: Result<trace::UsageTrace, TraceError>) -> Result<(), String> {
    let t = r.map_err(|e| e.to_string())?;
    // what the page shows next: the trace panel's summary
    let s = t.summary();
    assert_eq!(s.vms, t.items.len());
    assert_eq!(t.usage.len(), t.items.len() * t.samples);
    Ok(())
}

fn workload_result(r: Result<workload::Workload, TraceError>) -> Result<(), String> {
    let w = r.map_err(|e| e.to_string())?;
    let s = w.summary();
    let _ = serde_json::to_string(&s).expect("a workload summary serializes");
    Ok(())
}

/// A valid scenario's link decodes to the same scenario (what a stranger opening it sees).
fn check_link_round_trip(sc: &Scenario) {
    let link = sc.to_link();
    let back = Scenario::from_link(&link)
        .unwrap_or_else(|e| panic!("the link {link} of a valid scenario does not decode: {e}"));
    assert_eq!(&back, sc, "link {link} does not round-trip");
}

/// Feeds `data` to the entry point of `target` ([`TARGETS`]); `None` for an unknown target.
pub fn run(target: &str, data: &[u8]) -> Option<Result<(), String>> {
    Some(match target {
        "link" => {
            let text = String::from_utf8_lossy(data);
            match Scenario::from_link(&text) {
                Ok(sc) => {
                    check_link_round_trip(&sc);
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            }
        }
        "scenario_json" => {
            let text = String::from_utf8_lossy(data);
            match Scenario::from_json(&text) {
                Ok(sc) => match sc.validate() {
                    Ok(()) => {
                        check_link_round_trip(&sc);
                        let _ = serde_json::to_string_pretty(&sc).expect("a scenario serializes");
                        Ok(())
                    }
                    Err(errs) => Err(errs[0].to_string()),
                },
                Err(e) => Err(e.to_string()),
            }
        }
        "gzip" => trace_result(trace::read_trace(
            "upload.tsv.gz",
            &one("upload.tsv.gz", data),
            None,
        )),
        "zip" => trace_result(trace::read_trace(
            "day.zip",
            &one("day.zip", data),
            Some(TraceFormat::PlanetLab),
        )),
        "wide" => trace_result(trace::read_trace(
            "trace.tsv",
            &one("trace.tsv", data),
            Some(TraceFormat::Wide),
        )),
        "long_csv" => trace_result(trace::read_trace(
            "trace.csv",
            &one("trace.csv", data),
            None,
        )),
        "planetlab" => {
            let files = split_files(
                data,
                &[
                    "day/vm-a",
                    "day/vm-b",
                    "day/vm-c",
                    "day/.DS_Store",
                    "day/vm-d",
                ],
            );
            let _ = trace_result(trace::read_trace("day", &files, None));
            trace_result(trace::read_trace(
                "day",
                &files,
                Some(TraceFormat::PlanetLab),
            ))
        }
        "azure_arrivals" => {
            let files = if data
                .starts_with(crate::workload::azure::arrivals::BUNDLE_MAGIC.as_bytes())
                || data.starts_with(&[0x1f, 0x8b])
            {
                one("arrivals.txt.gz", data)
            } else {
                split_files(
                    data,
                    &[
                        "maps/flav_map.txt",
                        "traces/v1.dev.txt",
                        "traces/v1.dev.c2100000.txt",
                        "traces/v1.test.txt",
                        "traces/v1.test.c2591400.txt",
                        // last: it may be gzip-compressed (NUL bytes)
                        "maps/v1.interval_map.txt",
                    ],
                )
            };
            workload_result(workload::read_workload(
                "arrivals",
                &files,
                Some(WorkloadFormat::AzureArrivals),
            ))
        }
        "azure_vmtable" => {
            let files = split_files(data, &["vmtable.csv", "vmtable-2.csv.gz"]);
            let _ = workload_result(workload::read_workload("vmtable", &files, None));
            workload_result(workload::read_workload(
                "vmtable",
                &files,
                Some(WorkloadFormat::AzureVmtable),
            ))
        }
        "swim" => workload_result(workload::read_workload(
            "jobs.tsv",
            &one("jobs.tsv", data),
            Some(WorkloadFormat::Swim),
        )),
        "alibaba_gpu" => {
            let files = split_files(
                data,
                &["openb_pod_list_default.csv", "openb_node_list_all_node.csv"],
            );
            workload_result(workload::read_workload(
                "openb",
                &files,
                Some(WorkloadFormat::AlibabaGpu2023),
            ))
        }
        "usage_readers" => {
            let (sel, rest) = data.split_first().unwrap_or((&0, &[]));
            let format = [
                TraceFormat::Bitbrains,
                TraceFormat::AzureReadingsAvg,
                TraceFormat::AzureReadingsMax,
                TraceFormat::AlibabaMachineUsage,
            ][usize::from(*sel) % 4];
            let files = split_files(rest, &["vms/1.csv", "vms/2.csv", "vms/3.csv"]);
            trace_result(trace::read_trace("vms", &files, Some(format)))
        }
        "model_files" => {
            let sc = Scenario::from_json(r#"{"model":"admission"}"#).expect("admission scenario");
            let files = one(crate::data::AZURE2017_ARRIVALS.file_name(), data);
            let inputs = crate::models::Inputs {
                files: &files,
                browser: true,
                ..Default::default()
            };
            crate::scenario::call(
                &sc,
                "azure_fit",
                &serde_json::Value::Null,
                &inputs,
                serde_json::value::Serializer,
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
        }
        "script" => script(data),
        "policy_file" => {
            // as an import on the page: the run is planned with the file (loaded, checked, matched against
            // the scenario), evaluated, and the loaded policy exported again
            let sc = Scenario::from_json(POLICY_FILE_SCENARIO).expect("oversub scenario");
            let files = one("policy.json", data);
            let inputs = crate::models::Inputs {
                files: &files,
                browser: true,
                ..Default::default()
            };
            match crate::scenario::start(&sc, &inputs) {
                Err(e) => Err(e.to_string()),
                Ok(mut run) => {
                    crate::experiment::drive(&mut run, &mut |_, _| true)
                        .unwrap_or_else(|e| panic!("a loaded policy's evaluation failed: {e}"));
                    let rep = run
                        .report(serde_json::value::Serializer)
                        .expect("a finished run has a report")
                        .expect("a report serializes");
                    assert_eq!(rep["rows"].as_array().map(Vec::len), Some(1));
                    let mut out = Vec::new();
                    run.query(
                        "policy",
                        &serde_json::json!({ "row": 0 }),
                        &mut serde_json::Serializer::new(&mut out),
                    )
                    .expect("the loaded policy exports");
                    let a = crate::models::oversub::c2marl::TrainedPolicy::from_json(data)
                        .expect("it loaded");
                    let b = crate::models::oversub::c2marl::TrainedPolicy::from_json(&out)
                        .expect("an exported policy loads");
                    assert!(a == b, "the exported policy differs from the loaded one");
                    Ok(())
                }
            }
        }
        _ => return None,
    })
}

/// The `script` target: `data` as a user's policy script (issue 31) compiled against each model's hook —
/// placement's fit test, oversubscription's rate, admission's admit rule, lifetime's host score, the
/// reservations' quote — and every hook it compiles for
/// called as its model calls it, each within [`SCRIPT_BUDGET`] operations. `Err("script: …")` for a script
/// no hook accepts (placement's message) or a run-time error.
fn script(data: &[u8]) -> Result<(), String> {
    use crate::models::{admission, era, lifetime, oversub, placement};
    let src = String::from_utf8_lossy(data);
    let compiled = [
        placement::policies::script::compile(&src).map(script_fit),
        oversub::policies::script::compile(&src).map(script_rate),
        admission::policies::script::compile(&src).map(|s| script_admit(s, &src)),
        lifetime::policies::script::compile(&src).map(script_score),
        era::policies::script::compile(&src).map(script_quote),
    ];
    if compiled.iter().all(|c| c.is_err()) {
        let Some(Err(e)) = compiled.into_iter().next() else {
            unreachable!("five results, all errors")
        };
        return Err(format!("script: {e}"));
    }
    for c in compiled.into_iter().flatten() {
        c.map_err(|e| format!("script: {e}"))?;
    }
    Ok(())
}

/// A placement script's hooks called as a packing calls them (an item's size from its observations, the fit
/// test and the Best Fit key on two machines).
fn script_fit(s: crate::script::Script) -> Result<(), crate::script::ScriptError> {
    use crate::models::placement::policies::fit_test::{BinLoad, FitTest, ItemStats};
    use crate::models::placement::policies::script::ScriptFit;
    let fit = ScriptFit::with_budget(std::sync::Arc::new(s), SCRIPT_BUDGET);
    let obs = [0.1, 0.2, 0.2, 0.5, 0.9];
    let size = fit.item_size(0.38, 0.29, &obs);
    let item = ItemStats {
        mean: 0.38,
        var: 0.0841,
        size,
    };
    for bin in [
        BinLoad::default(),
        BinLoad {
            n: 3,
            mean: 1.9,
            var: 0.3,
            size: 2.2,
        },
    ] {
        let _ = fit.fits(&bin, &item, 4.0);
        let _ = fit.best_fit_key(&bin, &item, 4.0);
    }
    assert!(
        fit.run.operations() <= SCRIPT_BUDGET,
        "the budget was overspent"
    );
    fit.run.take_error().map_or(Ok(()), Err)
}

/// An oversubscription script's `rate` for two subscribers over the hours of a short episode without VMs.
fn script_rate(s: crate::script::Script) -> Result<(), crate::script::ScriptError> {
    use crate::models::oversub::cluster::Cluster;
    use crate::models::oversub::policies::script::ScriptRate;
    use crate::models::oversub::policies::{Estimates, Predictor, RatePolicy};
    use crate::models::oversub::profile::Episode;
    use crate::models::oversub::OversubParams;
    let p = OversubParams::default();
    let est = Estimates {
        sl: vec![[0.3; 24], [0.7; 24]],
        mu: vec![[0.2; 24], [0.4; 24]],
        sd: vec![[0.05; 24], [0.1; 24]],
        kappa: vec![8.0, 2.0],
    };
    let ep = Episode::empty(2, 3);
    let mut c = Cluster::new(&p, std::borrow::Cow::Borrowed(&ep), false);
    let mut rate = ScriptRate::with_budget(
        std::sync::Arc::new(s),
        &est,
        4,
        Predictor::of(&p),
        SCRIPT_BUDGET,
    );
    let mut out = [1.0; 2];
    loop {
        rate.rates(&c, &mut out);
        assert!(
            out.iter().all(|x| (p.min_rate..=1.0).contains(x)),
            "a rate outside [min_rate, 1]: {out:?}"
        );
        if c.step(&out).done {
            break;
        }
    }
    assert!(
        rate.run.operations() <= SCRIPT_BUDGET,
        "the budget was overspent"
    );
    rate.run.take_error().map_or(Ok(()), Err)
}

/// A lifetime script's `least` and `score` on two hosts (an empty one and a loaded one) for one VM.
fn script_score(s: crate::script::Script) -> Result<(), crate::script::ScriptError> {
    use crate::models::lifetime::host::Host;
    use crate::models::lifetime::policies::script::ScriptScore;
    let score = ScriptScore::with_budget(std::sync::Arc::new(s), SCRIPT_BUDGET);
    let mut des = crate::substrate::des::Des::<u8>::new();
    let mut loaded = Host::new([40.0, 128.0, 0.0], des.new_key());
    loaded.used = [30.0, 100.0, 0.0];
    loaded.vms = vec![0, 1];
    for (host, exit) in [
        (Host::new([40.0, 128.0, 0.0], des.new_key()), 5.0),
        (loaded, 9.5),
    ] {
        if !score.run.ok() {
            break;
        }
        if let Err(e) = score.score(&host, &[2.0, 8.0, 0.0], exit, 7.0, 5.0) {
            score.run.fail(e);
        }
    }
    assert!(
        score.run.operations() <= SCRIPT_BUDGET,
        "the budget was overspent"
    );
    score.run.take_error().map_or(Ok(()), Err)
}

/// A reservation script's `quote` of one request on an empty plan and on a plan with no room.
fn script_quote(s: crate::script::Script) -> Result<(), crate::script::ScriptError> {
    use crate::models::era::jobs::Request;
    use crate::models::era::policies::script::ScriptQuote;
    use crate::models::era::policies::{Plan, QuotePolicy};
    let mut quote = ScriptQuote::with_budget(std::sync::Arc::new(s), 0.5, 1.0, SCRIPT_BUDGET);
    let r = Request {
        id: 0,
        arrival: 1,
        w: 2.0,
        t: 3,
        s: 2,
        d: 8,
        value: 10.0,
        class: 0,
    };
    for load in [0.0, 9.0] {
        let plan = Plan {
            cap: 10.0,
            load: vec![load; 10],
        };
        if let Some(q) = quote.quote(&plan, &r, 1, None) {
            assert!(q.price >= 0.0 && q.start >= r.s && q.start + r.t <= r.d);
        }
    }
    assert!(
        quote.run.operations() <= SCRIPT_BUDGET,
        "the budget was overspent"
    );
    quote.run.take_error().map_or(Ok(()), Err)
}

/// An admission script's `admit` on two arrivals (an empty cluster and a loaded one) on a look-ahead grid;
/// then `src` as wired (issue 31): the scenario's `admission.scripts` validated (its `threshold_scale()`
/// called), its arm `script:fuzz` built and run once on a small cluster (about 25 arrivals).
fn script_admit(s: crate::script::Script, src: &str) -> Result<(), crate::script::ScriptError> {
    use crate::models::admission::lookahead::LeadGrid;
    use crate::models::admission::policies::script::ScriptAdmit;
    use crate::models::admission::policies::{AdmissionPolicy, DecisionContext};
    let g = LeadGrid::new(&[200.0, 20.0, 1.0], 2, 0);
    let m = g.curve_t.len();
    let admit = ScriptAdmit::with_budget(std::sync::Arc::new(s), 100.0, SCRIPT_BUDGET);
    for (load, var) in [(0.0, 0.0), (90.0, 40.0)] {
        let (sm, sv) = (vec![load; m], vec![var; m]);
        let (cm, cv) = (vec![2.0; m], vec![1.5; m]);
        let _ = admit.accept(&DecisionContext {
            active: load,
            capacity: 128.0,
            n0: 4,
            grid: &g,
            sum_mean: &sm,
            sum_var: &sv,
            cand_mean: &cm,
            cand_var: &cv,
            marginal_eps: 0.1,
        });
    }
    assert!(
        admit.run.operations() <= SCRIPT_BUDGET,
        "the budget was overspent"
    );
    admit.run.take_error().map_or(Ok(()), Err)?;
    script_admission_run(src)
}

/// [`script_admit`]'s run as wired: scenario → validation → arm → one simulation run.
fn script_admission_run(src: &str) -> Result<(), crate::script::ScriptError> {
    use crate::models::admission::params::{PolicyKind, PolicySpec};
    use crate::models::admission::scenario::AdmissionScenario;
    use crate::models::admission::sim::{lead_grid, simulate_run, SimCache};
    let mut a = AdmissionScenario {
        runs: 1,
        policies: vec!["ZEROTH".into()],
        scripts: vec![crate::script::ScriptPolicy::new("fuzz", src)],
        ..AdmissionScenario::default()
    };
    let p = &mut a.params;
    p.capacity = 60.0;
    p.arrival_rate = 0.5;
    p.horizon_hours = 50.0;
    p.month_hours = 25.0;
    p.subhorizons = vec![50.0, 5.0];
    p.steps = 4;
    p.curve_points = 0;
    if let Some(e) = a.validate("admission.").into_iter().next() {
        return Err(crate::script::ScriptError {
            line: None,
            column: None,
            message: e.to_string(),
        });
    }
    let arms = a.arms().expect("a valid section has its arms");
    let arm = arms.last().expect("the script's arm");
    assert_eq!(arm.kind, PolicyKind::Script);
    let spec = PolicySpec {
        kind: arm.kind,
        threshold: 0.5,
        marginal: false,
    };
    let r = simulate_run(
        &arm.params,
        spec,
        1,
        &lead_grid(&arm.params),
        &mut SimCache::new(),
    );
    match r.script_error {
        Some(message) => Err(crate::script::ScriptError {
            line: None,
            column: None,
            message,
        }),
        None => Ok(()),
    }
}
