//! One 3-year run of SECOND with the full 5 × 600 look-ahead (ALGORITHMS.md §2.7) on the §2.13 defaults.
//! Plain `harness = false` main.
//!
//! Environment (all optional):
//! * `ADMIT_BENCH_HOURS` run length (hours, default 26,280).
//! * `ADMIT_BENCH_SEED` run seed (default 1); `ADMIT_BENCH_RUN_OF=S`: run 0 of master seed S instead (the run
//!   `scripts/bench-admission-run.mjs` times in wasm); `ADMIT_BENCH_SEEDS` seeds in compare mode (default 1);
//!   `ADMIT_BENCH_THRESHOLD` θ2 (default 0.01); `ADMIT_BENCH_CAPACITY` (cores), `ADMIT_BENCH_RATE` (per hour).
//! * A second line prints a digest of the whole result (every month and count, serialised): equal digests mean
//!   bit-identical runs.
//! * `ADMIT_BENCH_WARM=1`: also time a second run on the warm table cache (as in tuning).
//! * Cache overrides: `ADMIT_BENCH_DQ` (delta_quantum), `ADMIT_BENCH_REFRESH_TOL`, `ADMIT_BENCH_NTOL`
//!   (delta_n_tol), `ADMIT_BENCH_CURVE_POINTS`, `ADMIT_BENCH_NINTERP`, `ADMIT_BENCH_LATTICE` (0/1),
//!   `ADMIT_BENCH_PSI_GRID` (0/1),
//!   `ADMIT_BENCH_QUAD` ("16,8,4").
//! * `ADMIT_BENCH_COMPARE=1`: accuracy mode. Runs the configured (cached) path and a reference path
//!   (`ADMIT_BENCH_REF_*` overrides of the same names, defaults: delta_quantum 0, refresh_tol 0, delta_n_tol 0,
//!   curve_points 0, psi_grid off) on the same seeds (common random numbers) and prints utilization, failures and accepted
//!   arrivals of both, plus the agreement of the admit decisions.

use packlab::models::admission::params::{AdmitParams, PolicyKind, PolicySpec};
use packlab::models::admission::sim::{lead_grid, simulate_run, RunResult, SimCache};
use std::time::Instant;

fn env_f(name: &str) -> Option<f64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} must be a number"))
    })
}

fn apply(p: &mut AdmitParams, prefix: &str) {
    if let Some(v) = env_f(&format!("{prefix}DQ")) {
        p.delta_quantum = v;
    }
    if let Some(v) = env_f(&format!("{prefix}REFRESH_TOL")) {
        p.refresh_tol = v;
    }
    if let Some(v) = env_f(&format!("{prefix}NTOL")) {
        p.delta_n_tol = v;
    }
    if let Some(v) = env_f(&format!("{prefix}CURVE_POINTS")) {
        p.curve_points = v as usize;
    }
    if let Some(v) = env_f(&format!("{prefix}NINTERP")) {
        p.moments.n_interp = v as usize;
    }
    if let Some(v) = env_f(&format!("{prefix}PSI_GRID")) {
        p.psi_grid = v != 0.0;
    }
    if let Some(v) = env_f(&format!("{prefix}LATTICE")) {
        p.lattice = v != 0.0;
    }
    if let Ok(q) = std::env::var(format!("{prefix}QUAD")) {
        let v: Vec<usize> = q
            .split(',')
            .map(|x| x.trim().parse().expect("QUAD: three integers"))
            .collect();
        p.moments.j_tau = v[0];
        p.moments.j_nu = v[1];
        p.moments.j_sigma = v[2];
    }
}

fn run(p: &AdmitParams, spec: PolicySpec, seed: u64) -> (RunResult, f64, SimCache) {
    let grid = lead_grid(p);
    let mut cache = SimCache::new();
    let t0 = Instant::now();
    let r = simulate_run(p, spec, seed, &grid, &mut cache);
    (r, t0.elapsed().as_secs_f64(), cache)
}

fn main() {
    let mut p = AdmitParams::default();
    if let Some(h) = env_f("ADMIT_BENCH_HOURS") {
        p.horizon_hours = h;
    }
    if let Some(c) = env_f("ADMIT_BENCH_CAPACITY") {
        p.capacity = c;
    }
    if let Some(r) = env_f("ADMIT_BENCH_RATE") {
        p.arrival_rate = r;
    }
    let mut seed = env_f("ADMIT_BENCH_SEED").unwrap_or(1.0) as u64;
    if let Ok(m) = std::env::var("ADMIT_BENCH_RUN_OF") {
        // run 0 of a scenario with this master seed (what `admission_series` simulates in wasm)
        seed = packlab::models::admission::tuning::run_seed(
            m.parse().expect("ADMIT_BENCH_RUN_OF: master seed"),
            0,
        );
    }
    let n_seeds = env_f("ADMIT_BENCH_SEEDS").unwrap_or(1.0) as u64;
    let th = env_f("ADMIT_BENCH_THRESHOLD").unwrap_or(0.01);
    let spec = PolicySpec {
        kind: PolicyKind::Second,
        threshold: th,
        marginal: false,
    };
    let mut fast = p.clone();
    apply(&mut fast, "ADMIT_BENCH_");
    let (r, dt, cache) = run(&fast, spec, seed);
    println!(
        "admit SECOND {} h: {:.2} s  (utilization {:.5}, failures {}/{}, arrivals {}, accepted {}, curve refreshes {}, \
         alive tables {}, Δ-memo hits {} misses {}, events {})",
        p.horizon_hours,
        dt,
        r.utilization,
        r.failures,
        r.requests,
        r.arrivals,
        r.accepted,
        r.curve_refreshes,
        cache.lattice.len(),
        cache.delta_hits,
        cache.delta_misses,
        r.events
    );
    // every field of the result (months, series, counts) bit for bit: serde_json writes f64 round-trip exact
    let json = serde_json::to_string(&r).expect("a run result serialises");
    println!(
        "result digest {:016x} ({} bytes of JSON)",
        packlab::substrate::rng::mix64(
            json.bytes()
                .fold(0u64, |h, c| packlab::substrate::rng::mix64(h ^ c as u64))
        ),
        json.len()
    );
    if std::env::var("ADMIT_BENCH_WARM").is_ok() {
        // second run on the warm cache (as inside tuning, where the cache is shared across runs)
        let grid = lead_grid(&fast);
        let mut cache = cache;
        let t0 = Instant::now();
        let r2 = simulate_run(&fast, spec, seed + 1, &grid, &mut cache);
        println!(
            "warm-cache run (seed {}): {:.2} s, utilization {:.5}",
            seed + 1,
            t0.elapsed().as_secs_f64(),
            r2.utilization
        );
    }
    if std::env::var("ADMIT_BENCH_COMPARE").is_ok() {
        let mut rp = p.clone();
        rp.delta_quantum = 0.0;
        rp.refresh_tol = 0.0;
        rp.delta_n_tol = 0.0;
        rp.curve_points = 0;
        rp.psi_grid = false;
        apply(&mut rp, "ADMIT_BENCH_REF_");
        let (mut su, mut sa, mut sf, mut sr, mut du, mut agree) =
            (0.0, 0i64, 0i64, 0i64, 0.0f64, 0u64);
        let (mut ta, mut tb) = (0.0, 0.0);
        for s in seed..seed + n_seeds {
            let (a, da, _) = if s == seed {
                (r.clone(), dt, SimCache::new())
            } else {
                run(&fast, spec, s)
            };
            let (b, db, _) = run(&rp, spec, s);
            ta += da;
            tb += db;
            println!(
                "seed {s}: cached util {:.5} acc {} fail {}/{} ({:.2} s) | reference util {:.5} acc {} fail {}/{} ({:.2} s)",
                a.utilization, a.accepted, a.failures, a.requests, da, b.utilization, b.accepted, b.failures, b.requests, db
            );
            su += a.utilization - b.utilization;
            du = du.max((a.utilization - b.utilization).abs());
            sa += a.accepted as i64 - b.accepted as i64;
            sf += a.failures as i64 - b.failures as i64;
            sr += b.failures as i64;
            agree += (a.accepted == b.accepted) as u64;
        }
        let n = n_seeds as f64;
        println!(
            "cached − reference over {n_seeds} seeds: mean Δutil {:+.5}, max |Δutil| {:.5}, mean Δaccepted {:+.1}, \
             Δfailures {:+} (reference failures {sr}), identical accepted counts {agree}/{n_seeds}; time {:.1} s vs {:.1} s",
            su / n,
            du,
            sa as f64 / n,
            sf,
            ta,
            tb
        );
    }
}
