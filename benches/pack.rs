//! Benchmark: pack + evaluate one PlanetLab day (1052 VMs × 288 samples, the bundled 20110303 trace),
//! GPA ρ = 0.05, Best Fit with rebalancing, at c = 1 and c = 4 VM units; plus the whole default frontier
//! (28 points) at c = 4. Run with `make bench` (`cargo bench --bench pack`).

use criterion::{criterion_group, criterion_main, Criterion};
use packlab::input::InputFile;
use packlab::models::placement::policies::script::{compile, ScriptFit, STARTER_GPA};
use packlab::models::placement::{
    run_frontier, BinLoad, FitSpec, FitTest, Instance, ItemStats, PlacementParams, Rule,
};
use packlab::trace::read_trace;
use std::hint::black_box;

fn day() -> packlab::trace::UsageTrace {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/static/traces/planetlab-20110303.tsv.gz"
    );
    let bytes = std::fs::read(path).expect("bundled trace");
    read_trace(
        "planetlab-20110303",
        &[InputFile {
            name: "planetlab-20110303.tsv.gz".into(),
            bytes,
        }],
        None,
    )
    .expect("reads")
}

fn bench(c: &mut Criterion) {
    let t = day();
    for cap in [1.0, 4.0] {
        let p = PlacementParams {
            capacity: cap,
            ..PlacementParams::default()
        };
        let inst = Instance::new(&t, &p, 1).unwrap();
        c.bench_function(&format!("pack+evaluate gpa:0.05 bf c={cap}"), |b| {
            b.iter(|| {
                let packing = inst.pack(&FitSpec::Gpa(0.05), Rule::BestFit, true);
                black_box(inst.evaluate(&FitSpec::Gpa(0.05), &packing))
            })
        });
    }
    // a user's script (issue 31): one call of the starter GPA script's `fits` against the built-in test's,
    // and the whole packing with it (a scan over the open bins, one script call per bin tried)
    let script = std::sync::Arc::new(compile(STARTER_GPA).unwrap());
    // no run budget here: the bench makes millions of calls (a run's budget would stop them)
    let fit = ScriptFit::with_budget(script.clone(), u64::MAX);
    let builtin = FitSpec::Gpa(0.05).test();
    let bin = BinLoad {
        n: 20,
        mean: 2.1,
        var: 0.09,
        size: 2.1,
    };
    let item = ItemStats {
        mean: 0.1,
        var: 0.004,
        size: 0.1,
    };
    c.bench_function("script gpa: one fits call", |b| {
        b.iter(|| black_box(fit.fits(black_box(&bin), &item, 4.0)))
    });
    c.bench_function("built-in gpa: one fits call", |b| {
        b.iter(|| black_box(builtin.fits(black_box(&bin), &item, 4.0)))
    });
    let p = PlacementParams::default();
    let inst = Instance::new(&t, &p, 1).unwrap();
    c.bench_function("pack+evaluate script gpa bf c=4", |b| {
        b.iter(|| {
            black_box(
                inst.pack_script(&script, "script:gpa".into(), Rule::BestFit, true)
                    .unwrap(),
            )
        })
    });
    c.bench_function(
        "frontier default (28 points) c=4, incl. instance build",
        |b| b.iter(|| black_box(run_frontier(&t, &p, 1, &mut |_, _| true).unwrap())),
    );
    c.bench_function("read bundled day (gunzip + parse)", |b| {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/static/traces/planetlab-20110303.tsv.gz"
        ))
        .unwrap();
        b.iter(|| {
            black_box(
                read_trace(
                    "d",
                    &[InputFile {
                        name: "d.tsv.gz".into(),
                        bytes: bytes.clone(),
                    }],
                    None,
                )
                .unwrap(),
            )
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
