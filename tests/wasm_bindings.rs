//! wasm-bindgen tests of the binding layer (src/wasm/), run in headless Chromium:
//! `cargo test --target wasm32-unknown-unknown --test wasm_bindings` with CHROMEDRIVER=/usr/bin/chromedriver
//! (scripts/test-web.sh). In a browser because chart text is measured through `window.document`
//! (../shared/TOOLCHAIN.md trap 2). Natively this file is empty.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect, JSON};
use packlab::wasm::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

/// The inputs of a run on the loaded trace `t`.
fn on_trace(t: &Trace) -> Option<RunInputs> {
    let mut i = RunInputs::new();
    i.use_trace(t);
    Some(i)
}

fn stringify(v: &JsValue) -> String {
    JSON::stringify(v).unwrap().as_string().unwrap()
}

/// A small generic long CSV: 6 items × 40 samples, deterministic.
fn small_csv() -> Vec<u8> {
    let mut s = String::from("item,time,usage\n");
    for i in 0..6 {
        for t in 0..40 {
            let u = 0.05 + 0.04 * i as f64 + 0.03 * (((t * (i + 3)) % 7) as f64);
            s.push_str(&format!("vm{i},{t},{u}\n"));
        }
    }
    s.into_bytes()
}

fn small_trace() -> Trace {
    let mut b = TraceBuilder::new();
    b.add("small.csv".into(), small_csv()).unwrap();
    b.finish(None).map_err(|e| stringify(&e)).unwrap()
}

fn small_scenario() -> JsValue {
    json(r#"{"placement":{"capacity":0.6,"target_rho":0.1,"fit":"gpa:0.1"}}"#)
}

#[wasm_bindgen_test]
fn engine_facts() {
    assert!(!engine_version().is_empty());
    let b = bundled_data().unwrap();
    let first = Array::from(&b).get(0);
    assert_eq!(get(&first, "id").as_string().unwrap(), "planetlab-20110303");
    // the model registry: ids in tab order, with their charts
    let m = models().unwrap();
    let ids: Vec<String> = Array::from(&m)
        .iter()
        .map(|x| get(&x, "id").as_string().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["placement", "admission", "lifetime", "era", "oversub"]
    );
    assert_eq!(
        get(&Array::from(&m).get(0), "uses_trace").as_bool(),
        Some(true)
    );
    // the lifetime model replays a workload (the worker gives it to `ExperimentRun::new` in a `RunInputs`)
    let lifetime = Array::from(&m).get(2);
    assert_eq!(get(&lifetime, "uses_workload").as_bool(), Some(true));
    assert_eq!(
        Array::from(&get(&lifetime, "charts"))
            .get(0)
            .as_string()
            .as_deref(),
        Some("lifetime.empty")
    );
    let d = default_scenario().unwrap();
    assert_eq!(get(&d, "model").as_string().unwrap(), "placement");
    assert_eq!(
        get(&get(&d, "trace"), "bundled").as_string().unwrap(),
        "planetlab-20110303"
    );
}

#[wasm_bindgen_test]
fn links_round_trip_and_bad_links_are_errors() {
    let s = json(r#"{"seed":42,"placement":{"capacity":2.5,"rule":"ff","fit":"perc:95"}}"#);
    let link = scenario_to_link(s).unwrap();
    let set = packlab::scenario::DEFAULTS_SET;
    let cur = format!("v2.d{set}.");
    assert!(link.starts_with(&cur), "{link}");
    let back = scenario_from_link(&format!("#s={link}")).unwrap();
    assert_eq!(get(&back, "seed").as_f64(), Some(42.0));
    assert_eq!(
        get(&get(&back, "placement"), "capacity").as_f64(),
        Some(2.5)
    );
    assert_eq!(
        get(&get(&back, "placement"), "fit").as_string().unwrap(),
        "perc:95"
    );
    // same link again from the decoded object
    assert_eq!(scenario_to_link(back).unwrap(), link);
    for bad in ["", "v1.!!!", "v9.AAAA", "v1.AAAA", "v2.AAAA", "garbage"] {
        let e = scenario_from_link(bad).unwrap_err();
        assert_eq!(get(&e, "kind").as_string().unwrap(), "scenario", "{bad}");
        assert!(get(&e, "message").as_string().is_some());
    }
    // a link made under a defaults set this engine does not know names the field
    let newer = link.replacen(&cur, &format!("v2.d{}.", set + 1), 1);
    let e = scenario_from_link(&newer).unwrap_err();
    assert_eq!(get(&e, "field").as_string().as_deref(), Some("defaults"));
    assert!(get(&e, "message")
        .as_string()
        .unwrap()
        .contains(&format!("defaults set {}", set + 1)));
    // the old v1 form of the same link (same JSON payload) still loads, as the same scenario as its v2.d1
    // form: a v1 payload is read over defaults set 1 (newer sets may have grown since, e.g. set 5's
    // calibrated GPA family)
    let old = link.replacen(&cur, "v1.", 1);
    let d1 = link.replacen(&cur, "v2.d1.", 1);
    assert_eq!(
        stringify(&scenario_from_link(&old).unwrap()),
        stringify(&scenario_from_link(&d1).unwrap())
    );
    let long = format!("v1.{}", "A".repeat(100_000));
    assert!(scenario_from_link(&long).is_err());
}

#[wasm_bindgen_test]
fn validation_names_fields_and_wrong_types_do_not_panic() {
    let c = check_scenario(json(r#"{"placement":{"capacity":-1,"target_rho":1.5}}"#)).unwrap();
    let fields: Vec<String> = Array::from(&get(&c, "errors"))
        .iter()
        .map(|e| get(&e, "field").as_string().unwrap())
        .collect();
    assert_eq!(fields, vec!["placement.capacity", "placement.target_rho"]);
    let e = check_scenario(json(r#"{"placement":{"capacity":"abc"}}"#)).unwrap_err();
    assert_eq!(get(&e, "kind").as_string().unwrap(), "scenario");
    let e = check_scenario(json(r#"{"placement":{"capacty":2}}"#)).unwrap_err();
    assert!(get(&e, "message").as_string().unwrap().contains("capacty"));
    let e = scenario_to_link(json(r#"{"placement":{"capacity":0}}"#)).unwrap_err();
    assert_eq!(get(&e, "field").as_string().unwrap(), "placement.capacity");
    assert_eq!(Array::from(&get(&e, "errors")).length(), 1);
    assert!(scenario_json(JsValue::UNDEFINED)
        .unwrap()
        .contains("\"placement\""));
}

#[wasm_bindgen_test]
fn malformed_upload_reports_file_line_column() {
    let mut b = TraceBuilder::new();
    b.add(
        "bad.csv".into(),
        b"item,time,usage\nvm1,0,0.5\nvm1,1,zero\n".to_vec(),
    )
    .unwrap();
    let e = b.finish(None).err().expect("malformed CSV must fail");
    assert_eq!(get(&e, "kind").as_string().unwrap(), "trace");
    assert_eq!(get(&e, "file").as_string().unwrap(), "bad.csv");
    assert_eq!(get(&e, "line").as_f64(), Some(3.0));
    assert!(get(&e, "column").as_f64().is_some());
    assert!(get(&e, "display")
        .as_string()
        .unwrap()
        .starts_with("bad.csv:3:"));
    // no files at all
    assert!(TraceBuilder::new().finish(None).is_err());
}

#[wasm_bindgen_test]
fn stepwise_frontier_equals_run_frontier() {
    let t = small_trace();
    assert_eq!(t.vms(), 6);
    assert_eq!(t.samples(), 40);
    assert_eq!(t.sha256().len(), 64);
    let summary = t.summary().unwrap();
    assert_eq!(get(&summary, "vms").as_f64(), Some(6.0));

    let mut run = ExperimentRun::new(small_scenario(), on_trace(&t)).unwrap();
    let total = run.total();
    assert!(total > 20);
    for k in 0..total {
        let p = run.step().unwrap();
        assert_eq!(get(&p, "first").as_f64(), Some(k as f64));
        let pts = Array::from(&get(&p, "points"));
        assert_eq!(pts.length(), 1, "one unit per step in the browser");
        assert!(get(&pts.get(0), "m").as_f64().unwrap() >= 0.0);
        assert_eq!(run.done(), k + 1);
    }
    assert!(
        run.step().unwrap().is_null(),
        "stepping past the end gives null, not a panic"
    );
    let stepwise = run.report().unwrap();
    let whole = ExperimentRun::new(small_scenario(), on_trace(&t))
        .unwrap()
        .run_all()
        .unwrap();
    assert_eq!(stringify(&stepwise), stringify(&whole));
    let points = Array::from(&get(&whole, "points"));
    assert!(points
        .iter()
        .any(|p| get(&p, "pareto").as_bool() == Some(true)));
}

#[wasm_bindgen_test]
fn unfinished_run_and_bad_scenarios_are_errors() {
    let t = small_trace();
    let run = ExperimentRun::new(small_scenario(), on_trace(&t)).unwrap();
    assert!(run.report().is_err());
    let e = ExperimentRun::new(
        json(r#"{"placement":{"clairvoyance":0.001}}"#),
        on_trace(&t),
    )
    .err()
    .unwrap();
    assert_eq!(
        get(&e, "field").as_string().unwrap(),
        "placement.clairvoyance"
    );
}

#[wasm_bindgen_test]
fn teaching_view() {
    let t = small_trace();
    let run = ExperimentRun::new(small_scenario(), on_trace(&t)).unwrap();
    let out = run
        .query("machine", json(r#"{"fit":"gpa:0.1","machine":0}"#))
        .unwrap();
    let view = get(&out, "view");
    assert_eq!(get(&view, "machine").as_f64(), Some(0.0));
    assert_eq!(Array::from(&get(&view, "totals")).length(), 40);
    let g = get(&view, "gaussian_overflow").as_f64().unwrap();
    assert!((0.0..=1.0).contains(&g));
    let m_abs = get(&get(&out, "packing"), "m_abs").as_f64().unwrap() as usize;
    let e = run
        .query(
            "machine",
            json(&format!(r#"{{"fit":"gpa:0.1","machine":{m_abs}}}"#)),
        )
        .err()
        .unwrap();
    assert_eq!(get(&e, "field").as_string().unwrap(), "machine");
    let e = run
        .query("machine", json(r#"{"fit":"gpa:7","machine":0}"#))
        .err()
        .unwrap();
    assert_eq!(get(&e, "field").as_string().unwrap(), "placement.fit");
    let svg = chart_svg("placement.machine", view, JsValue::NULL, 600, 300).unwrap();
    assert!(svg.contains("<svg") && svg.contains("capacity c"));
}

fn canvas(w: u32, h: u32) -> web_sys::HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

/// Number of pixels that are neither white nor transparent.
fn ink(c: &web_sys::HtmlCanvasElement) -> usize {
    let ctx: web_sys::CanvasRenderingContext2d =
        c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let data = ctx
        .get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64)
        .unwrap()
        .data();
    data.chunks(4)
        .filter(|p| p[3] > 0 && (p[0] < 240 || p[1] < 240 || p[2] < 240))
        .count()
}

#[wasm_bindgen_test]
fn charts_draw_on_canvas_and_svg() {
    let t = small_trace();
    let f = ExperimentRun::new(small_scenario(), on_trace(&t))
        .unwrap()
        .run_all()
        .unwrap();
    let points = get(&f, "points");
    let c = canvas(800, 480);
    let layout = draw_chart(
        c.clone(),
        "placement.frontier",
        points.clone(),
        json(r#"{"target_rho":0.1,"highlight":"gpa:0.1","scale":1}"#),
    )
    .unwrap();
    assert_eq!(
        Array::from(&get(&layout, "points")).length(),
        Array::from(&points).length()
    );
    assert!(ink(&c) > 2000, "the frontier canvas is blank");
    let svg = chart_svg(
        "placement.frontier",
        points.clone(),
        JsValue::NULL,
        640,
        400,
    )
    .unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("target") == false);
    let h = canvas(400, 200);
    draw_chart(
        h.clone(),
        "trace.histogram",
        t.summary().unwrap(),
        json(r#"{"scale":1}"#),
    )
    .unwrap();
    assert!(ink(&h) > 500);
    // bad inputs are errors
    assert!(draw_chart(
        c.clone(),
        "placement.frontier",
        json(r#"[{"family":"gpa"}]"#),
        JsValue::NULL
    )
    .is_err());
    assert!(draw_chart(h.clone(), "trace.histogram", json("{}"), JsValue::NULL).is_err());
    assert!(draw_chart(h, "no.such.chart", json("{}"), JsValue::NULL).is_err());
    assert!(draw_chart(
        c,
        "placement.machine",
        json(r#"{"machine":0}"#),
        JsValue::NULL
    )
    .is_err());
}

/// `expect` ⊆ `got` (objects by key, arrays element by element, numbers by value: JS has no 1 vs 1.0).
fn contains(got: &serde_json::Value, expect: &serde_json::Value) -> bool {
    match (got, expect) {
        (serde_json::Value::Object(g), serde_json::Value::Object(e)) => e
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| contains(gv, v))),
        (serde_json::Value::Array(g), serde_json::Value::Array(e)) => {
            g.len() == e.len() && g.iter().zip(e).all(|(a, b)| contains(a, b))
        }
        (g, e) => g == e || (g.as_f64().is_some() && g.as_f64() == e.as_f64()),
    }
}

#[wasm_bindgen_test]
fn saved_links_keep_loading() {
    let corpus = [
        include_str!("links/v1.jsonl"),
        include_str!("links/v2.jsonl"),
    ]
    .concat();
    let mut n = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let link = entry["link"].as_str().unwrap();
        let decoded = scenario_from_link(link).map_err(|e| stringify(&e)).unwrap();
        let got: serde_json::Value = serde_wasm_bindgen::from_value(decoded).unwrap();
        assert!(
            contains(&got, &entry["expect"]),
            "{}: {got} does not contain {}",
            entry["note"],
            entry["expect"]
        );
        n += 1;
    }
    assert!(n >= 14);
}

// ---------------------------------------------------------------------------------------------------------
// the admission model (seed 000)

/// A tiny admission scenario (C = 150 cores, 120 h, 2 runs, 2 search steps, a short look-ahead).
fn tiny_admission() -> JsValue {
    json(
        r#"{"model":"admission","seed":4,"admission":{"runs":2,"policies":["ZEROTH","SECOND"],
            "params":{"capacity":150,"horizon_hours":120,"tune_iterations":2,"bootstrap":100,"subhorizons":[120,24],"steps":10}}}"#,
    )
}

#[wasm_bindgen_test]
fn admission_arms_list_the_preset() {
    let arms = model_call(
        json(r#"{"model":"admission"}"#),
        "arms",
        JsValue::NULL,
        None,
        None,
    )
    .unwrap();
    let labels: Vec<String> = Array::from(&arms)
        .iter()
        .map(|a| get(&a, "label").as_string().unwrap())
        .collect();
    assert_eq!(labels, ["ZEROTH", "FIRST", "SECOND", "UPPER_BOUND"]);
    let e3 = model_call(
        json(r#"{"model":"admission","admission":{"preset":"E0.3"}}"#),
        "arms",
        JsValue::NULL,
        None,
        None,
    )
    .unwrap();
    // E0.3 ablates MARGINAL for FIRST and SECOND at m = 1, 5, 50 (issue 32): 12 arms
    assert_eq!(Array::from(&e3).length(), 12);
    let e = model_call(
        json(r#"{"model":"admission","admission":{"preset":"E9"}}"#),
        "arms",
        JsValue::NULL,
        None,
        None,
    )
    .unwrap_err();
    assert_eq!(
        get(&e, "field").as_string().as_deref(),
        Some("admission.preset")
    );
    assert_eq!(arm_color(0), "#0072b2");
}

#[wasm_bindgen_test]
fn admission_run_steps_equal_the_one_call_run() {
    let mut run = ExperimentRun::new(tiny_admission(), None).unwrap();
    let total = run.total();
    assert!(total > 0 && run.done() == 0);
    assert!(run.report().is_err(), "no report before the end");
    let mut steps = 0;
    loop {
        let st = run.step().unwrap();
        if st.is_null() {
            break;
        }
        steps += 1;
        assert!(get(&st, "done").as_f64().unwrap() as usize <= total);
    }
    assert!(steps > 0 && run.done() == total);
    let stepped = stringify(&run.report().unwrap());
    let whole = stringify(
        &ExperimentRun::new(tiny_admission(), None)
            .unwrap()
            .run_all()
            .unwrap(),
    );
    assert_eq!(stepped, whole);
    let rep = json(&whole);
    assert_eq!(get(&rep, "model").as_string().as_deref(), Some("admission"));
    assert_eq!(Array::from(&get(&rep, "arms")).length(), 2);
}

#[wasm_bindgen_test]
fn admission_errors_name_the_field() {
    let e = ExperimentRun::new(
        json(r#"{"model":"admission","admission":{"params":{"sla":1.5}}}"#),
        None,
    )
    .err()
    .unwrap();
    assert_eq!(
        get(&e, "field").as_string().as_deref(),
        Some("admission.params.sla")
    );
    let e = ExperimentRun::new(
        json(r#"{"model":"admission","admission":{"runs":0}}"#),
        None,
    )
    .err()
    .unwrap();
    assert_eq!(
        get(&e, "field").as_string().as_deref(),
        Some("admission.runs")
    );
    // a placement run needs the loaded trace
    let e = ExperimentRun::new(json(r#"{"model":"placement"}"#), None)
        .err()
        .unwrap();
    assert_eq!(get(&e, "field").as_string().as_deref(), Some("trace"));
    assert!(ExperimentRun::new(
        json(r#"{"model":"admission","admission":{"nope":1}}"#),
        None
    )
    .is_err());
    assert!(model_call(
        tiny_admission(),
        "series",
        json(r#"{"label":"NOPE","threshold":10,"run":0,"points":50}"#),
        None,
        None
    )
    .is_err());
    assert!(model_call(tiny_admission(), "nope", JsValue::NULL, None, None).is_err());
}

#[wasm_bindgen_test]
fn admission_charts_and_series_draw() {
    let s = model_call(
        tiny_admission(),
        "series",
        json(r#"{"label":"ZEROTH","threshold":100,"run":1,"points":60}"#),
        None,
        None,
    )
    .unwrap();
    let n = Array::from(&get(&s, "t")).length();
    assert!(n >= 50, "{n} samples");
    for k in ["active", "failures", "accepted", "rejected"] {
        assert_eq!(Array::from(&get(&s, k)).length(), n, "{k}");
    }
    assert_eq!(get(&s, "capacity").as_f64(), Some(150.0));
    let c = canvas(800, 400);
    draw_chart(c.clone(), "admission.series", s.clone(), JsValue::NULL).unwrap();
    assert!(ink(&c) > 2000, "the series canvas is blank");
    assert!(chart_svg("admission.series", s, JsValue::NULL, 600, 400)
        .unwrap()
        .starts_with("<svg"));

    let curves = json(
        r#"[{"label":"ZEROTH","points":[[0.4,0],[0.6,0.002],[0.7,0.01]],"tuned":[0.4,0]},
                         {"label":"SECOND","points":[[0.5,0],[0.65,0.0005]],"tuned":[0.65,0.0005]}]"#,
    );
    let f = canvas(800, 440);
    draw_chart(
        f.clone(),
        "admission.frontier",
        curves.clone(),
        json(r#"{"sla":0.001,"scale":1}"#),
    )
    .unwrap();
    assert!(ink(&f) > 3000, "the admission frontier canvas is blank");
    let svg = chart_svg("admission.frontier", curves, JsValue::NULL, 640, 400).unwrap();
    assert!(svg.contains("SECOND") && svg.contains("tuned"));
    assert!(draw_chart(
        f,
        "admission.frontier",
        json(r#"[{"points":"x"}]"#),
        JsValue::NULL
    )
    .is_err());
}

/// The lifetime model in wasm on the bundled Azure 2017 arrivals gives bit for bit the numbers the native CLI
/// printed for the same scenario (`tests/pins/lifetime-small.json`: `packlab lifetime --share 0.03 --seed 2
/// --json`).
#[wasm_bindgen_test]
fn lifetime_run_in_wasm_equals_the_native_cli() {
    let mut b = TraceBuilder::new();
    b.add(
        "azure2017-arrivals.txt.gz".into(),
        include_bytes!("../static/traces/azure2017-arrivals.txt.gz").to_vec(),
    )
    .unwrap();
    let w = b
        .finish_workload(Some("azure2017-arrivals".into()))
        .unwrap();
    let mut inputs = RunInputs::new();
    inputs.use_workload(&w);
    let mut run = ExperimentRun::new(
        json(r#"{"model":"lifetime","seed":2,"lifetime":{"share":0.03}}"#),
        Some(inputs),
    )
    .unwrap();
    assert_eq!(run.total(), 4);
    let rep = run.run_all().unwrap();
    let results = Array::from(&get(&rep, "results"));
    let pinned: serde_json::Value =
        serde_json::from_str(include_str!("pins/lifetime-small.json")).unwrap();
    let pinned = pinned.as_array().unwrap();
    assert_eq!(results.length() as usize, pinned.len());
    for (i, p) in pinned.iter().enumerate() {
        let r = results.get(i as u32);
        assert_eq!(
            get(&r, "policy").as_string().unwrap(),
            p["policy"].as_str().unwrap()
        );
        for f in [
            "empty_hosts",
            "empty_hosts_pp_vs_best_fit",
            "optimum_empty_hosts",
            "packing_density",
            "stranded_cpu",
            "stranded_mem",
            "allocation",
        ] {
            assert_eq!(
                get(&r, f).as_f64().unwrap(),
                p[f].as_f64().unwrap(),
                "{f} of {}",
                p["policy"]
            );
        }
        assert_eq!(
            get(&r, "failures").as_f64().unwrap(),
            p["failures"].as_f64().unwrap()
        );
    }
    // the report's results draw as the chart `lifetime.empty`; malformed data is an error, not a panic
    let c = canvas(800, 480);
    draw_chart(
        c.clone(),
        "lifetime.empty",
        get(&rep, "results"),
        json(r#"{"warmup_h":48,"scale":1}"#),
    )
    .unwrap();
    assert!(ink(&c) > 2000, "the lifetime chart is blank");
    assert!(draw_chart(
        c,
        "lifetime.empty",
        json(r#"[{"policy":1}]"#),
        JsValue::NULL
    )
    .is_err());
    // a workload model without a workload is a clear error naming the field
    let e = ExperimentRun::new(json(r#"{"model":"lifetime"}"#), None)
        .err()
        .unwrap();
    assert_eq!(get(&e, "field").as_string().as_deref(), Some("workload"));
}

/// Hostile input through the exports (the fuzz findings' kind, docs/input-formats.md "Limits on untrusted input"): every call
/// returns an error object naming the file:line:column or the field, and the engine keeps working after it (a
/// panic would abort the module: the calls after it would trap).
#[wasm_bindgen_test]
fn hostile_inputs_are_error_objects_and_the_engine_keeps_working() {
    // a zip bomb's cousin: a gzip stream that lies about its content, a line too long, a truncated zip
    let mut long = b"#packlab-wide v1 unit=vm interval_s=300\nvm\t".to_vec();
    long.extend(std::iter::repeat_n(
        b'1',
        packlab::input::MAX_LINE_BYTES + 1,
    ));
    for (name, bytes, line) in [
        (
            "x.tsv.gz",
            vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff],
            None,
        ),
        ("long.tsv", long, Some(2)),
        ("day.zip", b"PK\x03\x04\x14\x00\x00\x00".to_vec(), None),
    ] {
        let mut b = TraceBuilder::new();
        b.add(name.into(), bytes).unwrap();
        let e = b.finish(None).err().expect(name);
        assert_eq!(get(&e, "kind"), "trace", "{name}");
        assert_eq!(get(&e, "file"), name);
        assert_eq!(get(&e, "line").as_f64().map(|l| l as usize), line, "{name}");
    }
    // a scenario that would allocate without bound is refused on its field
    let e = ExperimentRun::new(
        json(r#"{"model":"admission","admission":{"params":{"steps":4000000000}}}"#),
        None,
    )
    .err()
    .expect("refused");
    assert_eq!(get(&e, "field"), "admission.params");
    assert!(get(&e, "message")
        .as_string()
        .unwrap()
        .contains("steps must be at most"));
    // tampered and oversized links
    for link in [
        "v2.d1.%%%",
        "v2.d99.AAAA",
        &format!("v2.d1.{}", "A".repeat(20_000)),
    ] {
        let e = scenario_from_link(link).err().expect(link);
        assert_eq!(get(&e, "kind"), "scenario");
    }
    // still alive: a run plans and steps
    let mut r = ExperimentRun::new(small_scenario(), on_trace(&small_trace())).unwrap();
    assert!(!r.step().unwrap().is_null());
}
