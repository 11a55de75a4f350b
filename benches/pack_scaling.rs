//! Scaling of placement's packing (issue 30): the indexed First Fit / Best Fit (`pack`) against the linear
//! scan of every open bin (`pack_scan`, the code before), per fit family, on wide traces of growing size.
//! Plain `harness = false` main, run by `scripts/bench-pack-scaling.sh` (which generates the traces with
//! `scripts/gen-wide-trace.py`):
//!
//!     cargo bench --bench pack_scaling -- [--scan-max N] TRACE...
//!
//! For each trace (default placement parameters: c = 4, clairvoyance 1) and each fit test, Best Fit without
//! rebalancing: the packing time of the index and, up to `--scan-max` VMs (default 200,000), of the scan,
//! which must give the same bins (checked). Times are the least wall clock of 3 packings up to 100,000 VMs,
//! of one above (the item statistics are computed before and not timed).

use packlab::input::InputFile;
use packlab::models::placement::{pack, pack_scan, FitSpec, Instance, PlacementParams, Rule};
use packlab::trace::read_trace;
use std::time::Instant;

/// The result of `f` and its least wall time over `reps` runs, seconds.
fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        out = Some(f());
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (out.unwrap(), best)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut scan_max = 200_000usize;
    let mut traces = Vec::new();
    while let Some(a) = args.next() {
        if a == "--scan-max" {
            scan_max = args
                .next()
                .and_then(|v| v.parse().ok())
                .expect("--scan-max N");
        } else {
            traces.push(a);
        }
    }
    let fits = [
        "gpa:0.05",
        "gpa:0.001",
        "av:1",
        "perc:95",
        "cantelli:1.7",
        "max",
    ];
    let p = PlacementParams::default();
    println!(
        "{:>9} {:<13} {:>2} {:>8} {:>10} {:>10} {:>8}",
        "VMs", "fit", "rl", "bins", "index s", "scan s", "scan/idx"
    );
    for path in traces {
        let bytes = std::fs::read(&path).expect("trace file");
        let name = std::path::Path::new(&path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let t = read_trace(
            &name,
            &[InputFile {
                name: name.clone(),
                bytes,
            }],
            None,
        )
        .expect("reads");
        let inst = Instance::new(&t, &p, 1).expect("instance");
        let n = inst.items();
        let reps = if n <= 100_000 { 3 } else { 1 };
        for fit in fits {
            for rule in [Rule::BestFit, Rule::FirstFit] {
                let test = FitSpec::parse(fit).unwrap().test();
                let items = inst.item_stats(&*test);
                let (indexed, ti) = best_of(reps, || pack(&items, &*test, p.capacity, rule).0);
                let (ts, ratio) = if n <= scan_max {
                    let (scan, ts) =
                        best_of(reps, || pack_scan(&items, &*test, p.capacity, rule).0);
                    assert_eq!(
                        scan.bins,
                        indexed.bins,
                        "{fit} {}: index and scan differ",
                        rule.name()
                    );
                    (format!("{ts:.4}"), format!("{:.1}", ts / ti))
                } else {
                    ("-".into(), "-".into())
                };
                println!(
                    "{n:>9} {fit:<13} {:>2} {:>8} {ti:>10.4} {ts:>10} {ratio:>8}",
                    rule.name(),
                    indexed.bins.len()
                );
            }
        }
    }
}
