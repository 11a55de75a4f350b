//! Benchmark: pack + evaluate one PlanetLab day (1052 VMs × 288 samples, the bundled 20110303 trace),
//! GPA ρ = 0.05, Best Fit with rebalancing, at c = 1 and c = 4 VM units; plus the whole default frontier
//! (28 points) at c = 4. Run with `make bench` (`cargo bench --bench pack`).

use criterion::{criterion_group, criterion_main, Criterion};
use packlab::input::InputFile;
use packlab::models::placement::{run_frontier, FitSpec, Instance, PlacementParams, Rule};
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
    let p = PlacementParams::default();
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
