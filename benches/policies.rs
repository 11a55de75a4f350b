//! The per-call cost of users' policy scripts (issue 31; docs/policies.md) at the oversubscription and
//! admission hooks, beside the built-in policy they re-express (criterion; `cargo bench --bench policies`,
//! stored in results/policies/speed.txt). Placement's fit test is timed in `benches/pack.rs`.
//!
//! * oversub: the rates of all 12 subscribers at hour 48 of an E1.1 evaluation episode (one `rate` call per
//!   subscriber, the arrays over `ma_window_h` = 24 hours built for each), the MA starter against built-in MA;
//! * admission: one arrival's decision on a look-ahead of 4 sub-horizons × 4 steps (16 lead times, the arrays
//!   interpolated for each call), the FIRST starter against the built-in FIRST;
//! * lifetime: one host's score for one VM (13 numbers in, NILAS's temporal cost out), the NILAS starter
//!   against the built-in temporal cost (`temporal_cost`, the host's exit given: both read NILAS's cache);
//! * era: one request's quote (a 3-slot request in a 30-slot window, the arrays built for the call), the
//!   greedy starter against the built-in GREEDY_FIRSTFIT.

use criterion::{criterion_group, criterion_main, Criterion};
use packlab::models::admission::lookahead::LeadGrid;
use packlab::models::admission::params::{PolicyKind, PolicySpec, SecondParam};
use packlab::models::admission::policies::script as admit_script;
use packlab::models::admission::policies::{AdmissionPolicy, DecisionContext, MomentPolicy};
use packlab::models::era::jobs::Request;
use packlab::models::era::policies::greedy::Greedy;
use packlab::models::era::policies::script as era_script;
use packlab::models::era::policies::{Plan, QuotePolicy};
use packlab::models::lifetime::host::Host;
use packlab::models::lifetime::policies::nilas::temporal_cost;
use packlab::models::lifetime::policies::script as life_script;
use packlab::models::oversub::cluster::Cluster;
use packlab::models::oversub::params::component;
use packlab::models::oversub::policies::ma::Ma;
use packlab::models::oversub::policies::script::{compile, ScriptRate, STARTER_MA};
use packlab::models::oversub::policies::{Estimates, Predictor, RatePolicy};
use packlab::models::oversub::profile::{Episode, Profiles};
use packlab::models::oversub::OversubParams;
use packlab::substrate::des::Des;
use std::borrow::Cow;
use std::hint::black_box;
use std::sync::Arc;

fn bench(c: &mut Criterion) {
    let params = OversubParams {
        pms: 100,
        ..OversubParams::default()
    };
    let profiles = Profiles::of(&params, 1).unwrap();
    let means = profiles.arrival_means(&params);
    let est = Estimates::fit(&profiles, &params, &means, 1);
    let ep = Episode::generate(&profiles, &params, &means, 1, component::EVAL, 0);
    let clip = Predictor::of(&params);
    let mut cl = Cluster::new(&params, Cow::Borrowed(&ep), false);
    let mut out = vec![1.0; ep.subs];
    let mut ma = Ma { window: 24, clip };
    while cl.hour() < 48 {
        ma.rates(&cl, &mut out);
        cl.step(&out);
    }
    let script = Arc::new(compile(STARTER_MA).unwrap());
    c.bench_function(
        "oversub script ma: rates of 12 subscribers (12 rate calls)",
        |b| {
            b.iter(|| {
                // a fresh policy per iteration: the run's budget is per episode
                let mut s = ScriptRate::new(script.clone(), &est, 24, clip);
                s.rates(black_box(&cl), &mut out);
                black_box(&out);
            })
        },
    );
    c.bench_function("oversub built-in ma: rates of 12 subscribers", |b| {
        b.iter(|| {
            ma.rates(black_box(&cl), &mut out);
            black_box(&out);
        })
    });

    let g = LeadGrid::new(&[2000.0, 200.0, 20.0, 1.0], 4, 0);
    let m = g.curve_t.len();
    let sm: Vec<f64> = (0..m).map(|k| 80.0 + k as f64).collect();
    let sv: Vec<f64> = (0..m).map(|k| 100.0 + 3.0 * k as f64).collect();
    let cm = vec![3.0; m];
    let cv = vec![2.0; m];
    let ctx = DecisionContext {
        active: 80.0,
        capacity: 128.0,
        n0: 4,
        grid: &g,
        sum_mean: &sm,
        sum_var: &sv,
        cand_mean: &cm,
        cand_var: &cv,
        marginal_eps: 0.1,
    };
    let first = MomentPolicy {
        spec: PolicySpec {
            kind: PolicyKind::First,
            threshold: 120.0,
            marginal: false,
        },
        second: SecondParam::Ratio,
    };
    let script = Arc::new(admit_script::compile(admit_script::STARTER_FIRST).unwrap());
    assert!(first.accept(&ctx));
    c.bench_function(
        "admission script first: one admit call (16 lead times)",
        |b| {
            b.iter(|| {
                let s = admit_script::ScriptAdmit::new(script.clone(), 120.0);
                black_box(s.accept(black_box(&ctx)))
            })
        },
    );
    c.bench_function(
        "admission built-in first: one decision (16 lead times)",
        |b| b.iter(|| black_box(first.accept(black_box(&ctx)))),
    );

    // a 40-core, 128 GB host holding 10 cores and 30 GB, exiting at 30 h; a 2-core VM exiting at 31.2 h
    let mut host = Host::new([40.0, 128.0, 0.0], Des::<u8>::new().new_key());
    host.used = [10.0, 30.0, 0.0];
    host.vms = vec![0, 1, 2];
    let (shape, he, ve, now) = ([2.0, 8.0, 0.0], 30.0, 31.2, 12.0);
    let script = Arc::new(life_script::compile(life_script::STARTER_NILAS).unwrap());
    let s = life_script::ScriptScore::new(script.clone());
    assert_eq!(s.score(&host, &shape, he, ve, now).unwrap(), 2.0);
    c.bench_function("lifetime script nilas: one score call", |b| {
        b.iter(|| black_box(s.score(black_box(&host), &shape, he, black_box(ve), now)))
    });
    c.bench_function("lifetime built-in nilas: one temporal cost", |b| {
        b.iter(|| black_box(temporal_cost(black_box(ve) - black_box(he))))
    });

    // a plan of 10 units with 8 committed on slots 10..20; a 2-unit, 3-slot request in [10, 40)
    let mut plan = Plan {
        cap: 10.0,
        load: vec![0.0; 60],
    };
    plan.commit(10, 10, 8.0);
    let r = Request {
        id: 0,
        arrival: 10,
        w: 3.0,
        t: 3,
        s: 10,
        d: 40,
        value: 5.0,
        class: 0,
    };
    let script = Arc::new(era_script::compile(era_script::STARTER_GREEDY).unwrap());
    let mut greedy = Greedy { p_fix: 0.5 };
    let mut mine = era_script::ScriptQuote::new(script.clone(), 0.5, 1.0);
    assert_eq!(
        mine.quote(&plan, &r, 10, None),
        greedy.quote(&plan, &r, 10, None)
    );
    c.bench_function("era script greedy: one quote call (30-slot window)", |b| {
        b.iter(|| {
            // a fresh rule per iteration: the run's budget would run out over criterion's calls
            let s = era_script::ScriptQuote::new(script.clone(), 0.5, 1.0);
            black_box(s.call(black_box(&plan), &r, 10).unwrap())
        })
    });
    c.bench_function("era built-in greedy: one quote (30-slot window)", |b| {
        b.iter(|| black_box(greedy.quote(black_box(&plan), &r, 10, None)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
