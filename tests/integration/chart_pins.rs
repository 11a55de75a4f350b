//! Every chart renders to the same SVG bytes as the engine before the experiment-contract refactor:
//! tests/pins/charts.txt holds `name length hash` of each SVG (FNV-style 64-bit fold of the bytes) as written
//! by that engine (b31f80f, through its `chart::*_svg` functions) for the inputs below. Charts added later are
//! pinned to their first version (`lifetime.empty`: the engine that introduced it); the era and oversub charts
//! by the engine before their frame set-up was shared (bfdb7a0), on the pinned CLI outputs of those models;
//! `lifetime.timeline` by the engine that introduced it, and again when its legend's swatches got an outline
//! (the white "empty" swatch was invisible); `lifetime.accuracy` by the engine that introduced it;
//! `era.frontier` and `era.efficiency` again when the frontier merged identical points, kept κ labels apart and
//! gave revenue in $M, and both y-axis descriptions were shortened so they are not clipped (issue 26); and again
//! when their input, tests/pins/era-e43-small.json, moved (earliest-start ties, defaults set 8; the renderer
//! unchanged); `oversub.training` again when λ moved to a right-hand axis and the reward and cost curves
//! joined the hot hours' place (issue 25).
//! `oversub.frontier` and `oversub.rates` again when their input, tests/pins/oversub-small.json,
//! moved (issue 25: normalised dual step, defaults set 10; delayed cost credit and λ ≤ 1,000, defaults set 12;
//! the environment calibrated at 500 PMs, 424 GB and occupancy 0.5, defaults set 13; the PM dual step with λ
//! held from 0.8 of training, defaults set 15; the renderer unchanged).
//! `placement.frontier`, `placement.machine`, `admission.frontier`, `oversub.frontier` and `oversub.rates` again
//! when their axis descriptions and titles were shortened and narrow charts got fewer ticks, fewer α labels and no
//! per-cell values where they do not fit (issue 28: the browser suite's chart-text check, tests/e2e/teaching.test.mjs, found them clipped or overlapping); `oversub.frontier` again when its point labels took the first free place around
//! their point instead of always above right, and `era.efficiency` when narrow charts got abbreviated policy names in two
//! staggered rows (issue 28: policies on almost the same point, and six names under six bars, overlapped).

use serde_json::json;

#[test]
fn charts_render_the_pinned_svgs() {
    let pts = json!([{"family":"gpa","spec":"gpa:0.1","m":1.1,"q":0.01,"pareto":true},{"family":"av","spec":"av:1","m":1.3,"q":0.0,"pareto":false},{"family":"max","spec":"max","m":1.9,"q":0.0,"pareto":true}]);
    let mv = json!({"machine":0,"totals":[0.5,0.7,0.9,1.2,0.4],"mean":0.7,"sd":0.3,"capacity":1.0,"empirical_overflow":0.2,"gaussian_overflow":0.16,"items":["a","b"]});
    let hist = json!({"histogram":[{"lo":0.0,"hi":0.5,"count":10},{"lo":0.5,"hi":1.0,"count":3}]});
    let curves = json!([{"label":"ZEROTH","points":[[0.4,0.0],[0.6,0.002]],"tuned":[0.4,0.0]},{"label":"SECOND","points":[[0.5,0.0],[0.65,0.0005]],"tuned":[0.65,0.0005]}]);
    let series = json!({"t":[0.0,1.0,2.0],"active":[10.0,20.0,15.0],"failures":[0.0,1.0,1.0],"accepted":[1.0,2.0,3.0],"rejected":[0.0,0.0,1.0],"capacity":30.0});
    let empty = json!([{"policy":"best-fit","empty_series":[1.0,0.6,0.4,0.35,0.3,0.31],"empty_hosts":0.31},{"policy":"lava","empty_series":[1.0,0.62,0.45,0.41,0.38,0.37],"empty_hosts":0.375,"failures":0}]);
    let pin = |f: &str| -> serde_json::Value {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pins")
            .join(f);
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let cells = pin("era-e43-small.json");
    let rows = pin("oversub-small.json");
    let rates = rows[3]["rates"].clone();
    let log = |e: u64, hot: f64, lambda: f64| json!({"episode":e,"steps":120,"hot_steps":hot,"reward_sum":30.0,"mean_reward":0.25,"mean_cost":0.1,"lambda":lambda,"epsilon":0.5,"mean_loss":0.01});
    let training = json!([{"policy":"c2marl:0.95","train_seed":0,"log":[log(0,40.0,0.0),log(1,22.0,0.3),log(2,9.0,0.8)]},{"policy":"c2marl:0.75","train_seed":0,"log":[log(0,35.0,0.0),log(1,30.0,0.1)]}]);
    let timeline = json!({"policy":"lava","warmup_h":1,"hosts":3,"hours":[0,1,2,3],"codes":[19,2,0, 19,1,0, 3,2,15, 0,0,4]});
    let accuracy = json!([{"policy":"best-fit","accuracy":[0.5,0.75,1.0],"delta_pp":[0.0,0.0,0.0],"oracle_pp":0.0},{"policy":"nilas","accuracy":[0.5,0.75,1.0],"delta_pp":[0.8,1.4,2.1],"oracle_pp":2.7},{"policy":"lava","accuracy":[0.5,0.75,1.0],"delta_pp":[-0.3,1.3,3.2],"oracle_pp":1.5}]);
    let mut out = String::new();
    for (n, d, o) in [
        (
            "placement.frontier",
            &pts,
            json!({"target_rho":0.05,"title":"t"}),
        ),
        ("placement.machine", &mv, json!({"scale":2})),
        ("trace.histogram", &hist, json!(null)),
        ("admission.frontier", &curves, json!({"sla":0.001})),
        ("admission.series", &series, json!(null)),
        ("lifetime.empty", &empty, json!({"warmup_h":2,"title":"t"})),
        ("era.frontier", &cells, json!({"title":"t"})),
        ("era.efficiency", &cells, json!({"scale":2})),
        ("oversub.frontier", &rows, json!({"title":"t"})),
        ("oversub.training", &training, json!(null)),
        ("oversub.rates", &rates, json!({"scale":1.5})),
        ("lifetime.timeline", &timeline, json!({"warmup_h":1})),
        ("lifetime.accuracy", &accuracy, json!({"title":"t"})),
    ] {
        let svg = packlab::models::chart_svg(n, d, &o, 640, 400).unwrap();
        out.push_str(&format!(
            "{n} {} {}\n",
            svg.len(),
            svg.bytes()
                .fold(0u64, |h, b| h.wrapping_mul(1099511628211) ^ b as u64)
        ));
    }
    let pinned = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pins/charts.txt"),
    )
    .unwrap();
    // PACKLAB_WRITE_CHART_PINS=FILE writes what this engine renders, to pin a new chart from its first engine
    if let Some(f) = std::env::var_os("PACKLAB_WRITE_CHART_PINS") {
        std::fs::write(f, &out).unwrap();
    }
    assert_eq!(out, pinned);
}
