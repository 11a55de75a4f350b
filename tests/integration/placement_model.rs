//! Placement model (seed 002) against hand-worked instances and invariants that must hold on any input.

use packlab::models::placement::{
    run_frontier, FitSpec, Instance, Mode, Packing, PlacementParams, Rule,
};
use packlab::trace::UsageTrace;
use proptest::prelude::*;

use crate::common::percent_trace;

fn trace(series: Vec<Vec<f64>>) -> UsageTrace {
    let items = (0..series.len()).map(|i| format!("vm{i}")).collect();
    UsageTrace::from_series("hand", items, series, 300.0).unwrap()
}

fn params(c: f64, fit: FitSpec, rule: Rule, rebalance: bool) -> PlacementParams {
    PlacementParams {
        capacity: c,
        fit,
        rule,
        rebalance,
        ..PlacementParams::default()
    }
}

/// Worked by hand (see the comments): c = 1, GPA ρ = 0.3 (z_{0.7} = 0.5244005), four items × 4 realisations.
///   a = [.2 .4 .2 .4] μ .3 σ² .01 · b = [.5 .5 .5 .5] μ .5 σ² 0 · c = [.1 .3 .3 .1] μ .2 σ² .01
///   d = [0 .8 0 .8] μ .4 σ² .16
/// a → bin0. b → bin0: .8 + z·.1 = .852 ≤ 1. c → bin0: 1.0 + z·√.02 = 1.074 > 1 → bin1.
/// d → bin0: μ' = 1.2 > 1 no; bin1: .6 + z·√.17 = .816 ≤ 1 → bin1. Bins [a b] [c d] (FF and BF alike).
/// Rebalance: a into bin1: .9 + z·√.18 = 1.122 > 1, five failures, unchanged.
/// Totals bin0 [.7 .9 .7 .9] no overflow; bin1 [.1 1.1 .3 .9]: one overflow → q = 1/(2·4) = 0.125.
/// m_norm = ⌈.3+.5+.2+.4⌉ = 2, m = 1; utilization = (3.2 + 2.4)/(2·1·4) = 0.7.
/// Teaching view of bin1: μ' = .6, σ' = √.17 = 0.412311, Gaussian overflow 1 − Φ(.4/σ') = 0.1659877, empirical .25.
#[test]
fn hand_worked_gpa_instance() {
    let t = trace(vec![
        vec![0.2, 0.4, 0.2, 0.4],
        vec![0.5; 4],
        vec![0.1, 0.3, 0.3, 0.1],
        vec![0.0, 0.8, 0.0, 0.8],
    ]);
    for rule in [Rule::FirstFit, Rule::BestFit] {
        let p = params(1.0, FitSpec::Gpa(0.3), rule, true);
        let inst = Instance::new(&t, &p, 1).unwrap();
        let packing = inst.pack(&p.fit, rule, true);
        assert_eq!(packing.bins, vec![vec![0, 1], vec![2, 3]], "{rule:?}");
        let r = inst.evaluate(&p.fit, &packing);
        assert_eq!((r.m_abs, r.m_norm, r.m), (2, 2, 1.0));
        assert_eq!(r.q, 0.125);
        assert_eq!(r.q_per_machine, vec![0.0, 0.25]);
        assert!((r.utilization - 0.7).abs() < 1e-15);
        let v = inst.machine_view(&packing, 1, &t.items).unwrap();
        assert_eq!(v.items, vec!["vm2", "vm3"]);
        assert!((v.mean - 0.6).abs() < 1e-15);
        assert!((v.sd - 0.17f64.sqrt()).abs() < 1e-15);
        assert!(
            (v.gaussian_overflow - 0.16598773).abs() < 1e-7,
            "{}",
            v.gaussian_overflow
        );
        assert_eq!(v.empirical_overflow, 0.25);
        assert!(inst.machine_view(&packing, 2, &t.items).is_err());
    }
    // ρ = 0.05 (z = 1.645): b → bin0 needs .8 + .1645 ≤ 1 (fits); d → bin1 needs .6 + 1.645·.4123 = 1.278 > 1 → bin2.
    let p = params(1.0, FitSpec::Gpa(0.05), Rule::FirstFit, false);
    let inst = Instance::new(&t, &p, 1).unwrap();
    assert_eq!(
        inst.pack(&p.fit, Rule::FirstFit, false).bins,
        vec![vec![0, 1], vec![2], vec![3]]
    );
}

/// Clairvoyance: ℓ = 0.5 of R = 4 gives O = columns 0..2, E = columns 2..4. With a = [.1 .1 .9 .9] the
/// statistics from O say μ = .1, σ = 0, so av:1 packs a and b = [.8 .8 .8 .8] together (.9 ≤ 1), and E then
/// overflows at both columns (1.7 > 1): q = 1.
#[test]
fn clairvoyance_splits_observation_and_evaluation() {
    let t = trace(vec![vec![0.1, 0.1, 0.9, 0.9], vec![0.8; 4]]);
    let mut p = params(1.0, FitSpec::Av(1.0), Rule::FirstFit, false);
    p.clairvoyance = 0.5;
    let inst = Instance::new(&t, &p, 1).unwrap();
    assert_eq!(inst.split(), (2, 2));
    let packing = inst.pack(&p.fit, p.rule, false);
    assert_eq!(packing.bins, vec![vec![0, 1]]);
    assert_eq!(inst.evaluate(&p.fit, &packing).q, 1.0);
    // m_norm from the true means over all columns: ⌈.5 + .8⌉ = 2
    assert_eq!(inst.m_norm(), 2);
    p.clairvoyance = 0.2; // ⌊0.8⌋ = 0 observations
    let e = Instance::new(&t, &p, 1).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("placement.clairvoyance"));
}

/// Worked by hand (issue 12): c = 1, one machine holding a = [33 34 33], b = [56 56 56], d = [11 10 12] CPU %.
/// Its totals are 100, 100 and 101 %: one overflow (t = 2), q = 1/3. Summed left to right in f64, the first two
/// totals are 0.33 + 0.56 + 0.11 = 0.34 + 0.56 + 0.10 = 1.0000000000000002 > 1, so a plain `total > c` gave
/// q = 1; in the reverse order (0.11 + 0.56 + 0.33 = 0.10 + 0.56 + 0.34 = 1.0) it gave 1/3. The exact count
/// is 1/3 in every order.
#[test]
fn q_counts_exact_ties_with_the_capacity_as_no_overflow() {
    let t = percent_trace(&[vec![33, 34, 33], vec![56; 3], vec![11, 10, 12]]);
    assert_eq!(
        t.grid.map(|g| g.decimals()),
        Some(2),
        "integer % lie on the grid 0.01"
    );
    let p = params(1.0, FitSpec::Max, Rule::FirstFit, false);
    let inst = Instance::new(&t, &p, 1).unwrap();
    for bin in [vec![0, 1, 2], vec![2, 1, 0], vec![1, 2, 0]] {
        let packing = Packing { bins: vec![bin] };
        let r = inst.evaluate(&p.fit, &packing);
        assert_eq!(r.q, 1.0 / 3.0, "{:?}", packing.bins);
        assert_eq!(r.q_per_machine, vec![1.0 / 3.0]);
        let v = inst.machine_view(&packing, 0, &t.items).unwrap();
        assert_eq!(v.empirical_overflow, 1.0 / 3.0);
    }
    // the f64 totals of the teaching view keep the placement-order sums
    let v = inst
        .machine_view(
            &Packing {
                bins: vec![vec![0, 1, 2]],
            },
            0,
            &t.items,
        )
        .unwrap();
    assert_eq!(v.totals[..2], [1.0000000000000002; 2]);
    // a capacity with more decimals than the data: 99.9 % < 100 %, so all three columns overflow
    let p = params(0.999, FitSpec::Max, Rule::FirstFit, false);
    let inst = Instance::new(&t, &p, 1).unwrap();
    let r = inst.evaluate(
        &p.fit,
        &Packing {
            bins: vec![vec![0, 1, 2]],
        },
    );
    assert_eq!(r.q, 1.0);
}

/// Off a decimal grid the doubles themselves are compared exactly: 0.1 + 0.2 (= 0.30000000000000004) and
/// 0.7000000000000001 add up to 1.0 in f64, but their exact sum is 1 + 2^-53·(…) > 1 (Python:
/// `Fraction(0.1 + 0.2) + Fraction(0.7000000000000001) > 1` is True), so the machine overflows: q = 1.
#[test]
fn off_the_grid_q_compares_the_exact_sum_of_the_doubles() {
    let t = trace(vec![vec![0.1 + 0.2], vec![0.7000000000000001]]);
    assert_eq!(t.grid, None);
    assert_eq!((0.1 + 0.2) + 0.7000000000000001, 1.0);
    let p = params(1.0, FitSpec::Max, Rule::FirstFit, false);
    let inst = Instance::new(&t, &p, 1).unwrap();
    let r = inst.evaluate(
        &p.fit,
        &Packing {
            bins: vec![vec![0, 1]],
        },
    );
    assert_eq!(r.q, 1.0);
}

#[test]
fn resampled_mode_is_seeded_and_uses_only_observed_values() {
    let t = trace(vec![vec![0.0, 0.5, 1.0], vec![0.2, 0.2, 0.4]]);
    let mut p = PlacementParams {
        mode: Mode::Resampled,
        realisations: 5000,
        capacity: 1.0,
        ..PlacementParams::default()
    };
    let run = |p: &PlacementParams, seed| run_frontier(&t, p, seed, &mut |_, _| true).unwrap();
    assert_eq!(run(&p, 7), run(&p, 7));
    assert_ne!(run(&p, 7).points, run(&p, 8).points);
    p.families
        .retain(|f| f.family == packlab::models::placement::Family::Max);
    let f = run(&p, 3);
    assert_eq!(f.realisations, 5000);
    // the max of 5000 draws from {0, .5, 1} and {.2, .4} is 1 and .4: max packs them apart, q = 0
    assert_eq!(f.points[0].m_abs, 2);
    assert_eq!(f.points[0].q, 0.0);
}

#[test]
fn cancel_stops_a_frontier() {
    let t = trace(vec![vec![0.1, 0.2]; 10]);
    let mut calls = 0;
    let e = run_frontier(&t, &PlacementParams::default(), 1, &mut |done, _| {
        calls += 1;
        done < 3
    })
    .unwrap_err();
    assert_eq!(e.message, "cancelled");
    assert_eq!(calls, 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Integer CPU % with many machine totals equal to c exactly (`tie` fills a machine's last item up to
    /// 100·c where it can): q is the same for any order of the items within the machines, and equals the
    /// count computed with integer sums, Σ % > 100·c.
    #[test]
    fn q_is_exact_and_independent_of_the_item_order(
        mut percent in prop::collection::vec(prop::collection::vec(0i64..=60, 6), 2..30),
        tie in prop::collection::vec(any::<bool>(), 6),
        keys in prop::collection::vec(any::<u64>(), 30),
        machines in 1usize..6,
        c in 1i64..4,
    ) {
        let machines = machines.min(percent.len());
        let bins: Vec<Vec<usize>> = (0..machines)
            .map(|j| (j..percent.len()).step_by(machines).collect())
            .collect();
        for b in &bins {
            let (last, rest) = b.split_last().unwrap();
            for t in 0..6 {
                let others: i64 = rest.iter().map(|&i| percent[i][t]).sum();
                if tie[t] && (0..=100).contains(&(100 * c - others)) {
                    percent[*last][t] = 100 * c - others;
                }
            }
        }
        let truth = bins
            .iter()
            .map(|b| (0..6).filter(|&t| b.iter().map(|&i| percent[i][t]).sum::<i64>() > 100 * c).count())
            .sum::<usize>() as f64
            / (machines * 6) as f64;
        let t = percent_trace(&percent);
        let p = params(c as f64, FitSpec::Max, Rule::FirstFit, false);
        let inst = Instance::new(&t, &p, 1).unwrap();
        let q = inst.evaluate(&p.fit, &Packing { bins: bins.clone() }).q;
        let shuffled = bins
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b.sort_by_key(|&i| keys[i]);
                b
            })
            .collect();
        let q_shuffled = inst.evaluate(&p.fit, &Packing { bins: shuffled }).q;
        let reversed = bins.iter().map(|b| b.iter().rev().copied().collect()).collect();
        let q_reversed = inst.evaluate(&p.fit, &Packing { bins: reversed }).q;
        prop_assert_eq!(q, truth);
        prop_assert_eq!(q_shuffled, truth);
        prop_assert_eq!(q_reversed, truth);
    }

    /// On any instance: every item in exactly one bin; with a deterministic test no bin's load exceeds c
    /// unless it holds a single oversized item; `max` with ℓ = 1 never overflows; GPA bins satisfy the
    /// quantile condition unless singletons.
    #[test]
    fn packing_invariants(
        series in prop::collection::vec(prop::collection::vec(0.0f64..0.7, 12), 1..40),
        c in 0.3f64..3.0,
        fam in 0usize..5,
        knob in 0.0f64..1.0,
        bf in any::<bool>(),
        reb in any::<bool>(),
    ) {
        let fit = match fam {
            0 => FitSpec::Gpa(0.001 + 0.4 * knob),
            1 => FitSpec::Av(0.8 + 2.0 * knob),
            2 => FitSpec::Perc(100.0 * knob),
            3 => FitSpec::Cantelli(4.0 * knob),
            _ => FitSpec::Max,
        };
        let rule = if bf { Rule::BestFit } else { Rule::FirstFit };
        let t = trace(series.clone());
        let p = params(c, fit, rule, reb);
        let inst = Instance::new(&t, &p, 1).unwrap();
        let packing = inst.pack(&fit, rule, reb);
        let mut seen = vec![0usize; series.len()];
        for b in &packing.bins {
            prop_assert!(!b.is_empty());
            for &i in b { seen[i] += 1; }
        }
        prop_assert!(seen.iter().all(|&k| k == 1), "items not in exactly one bin: {seen:?}");
        let test = fit.test();
        let stats = inst.item_stats(&*test);
        for b in &packing.bins {
            if b.len() == 1 { continue; }
            let mut load = packlab::models::placement::BinLoad::default();
            for &i in b { load.add(&stats[i]); }
            match fit {
                FitSpec::Gpa(rho) => {
                    let z = packlab::substrate::stats::normal_quantile(1.0 - rho);
                    prop_assert!(load.mean + z * load.var.sqrt() <= c + 1e-12);
                }
                _ => prop_assert!(load.size <= c + 1e-12, "bin load {} > c {}", load.size, c),
            }
        }
        if fit == FitSpec::Max {
            // a bin overflows only if it is a singleton whose own maximum exceeds c
            let r = inst.evaluate(&fit, &packing);
            for (b, q) in packing.bins.iter().zip(&r.q_per_machine) {
                if b.len() > 1 || stats[b[0]].size <= c {
                    prop_assert_eq!(*q, 0.0);
                }
            }
        }
    }
}

/// Items for the indexed-versus-scan comparison: `grid` > 0 puts every mean, s.d. and size on multiples of
/// 1/grid (many equal loads and keys, so ties decide), 0 leaves them continuous; `zero_var` makes every
/// item's variance 0 (GPA's σ' = 0 keys, +∞).
fn index_items(
    raw: &[(f64, f64, f64)],
    grid: u32,
    zero_var: bool,
) -> Vec<packlab::models::placement::ItemStats> {
    let snap = |x: f64| {
        if grid > 0 {
            (x * grid as f64).round() / grid as f64
        } else {
            x
        }
    };
    raw.iter()
        .map(|&(m, sd, s)| {
            let sd = if zero_var { 0.0 } else { snap(sd) };
            packlab::models::placement::ItemStats {
                mean: snap(m),
                var: sd * sd,
                size: snap(s),
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The indexed First Fit and Best Fit (issue 30) choose the same bins as the linear scan of every open
    /// bin, for every fit family, on continuous and gridded (tie-heavy) items, with equal loads.
    #[test]
    fn indexed_packing_equals_the_scan(
        raw in prop::collection::vec((0.0f64..0.6, 0.0f64..0.25, 0.0f64..0.9), 1..250),
        grid in prop::sample::select(vec![0u32, 4, 16, 100]),
        zero_var in prop::bool::weighted(0.1),
        c in prop::sample::select(vec![1.0f64, 1.5, 2.0, 4.0, 0.73]),
        fam in 0usize..5,
        knob in 0.0f64..1.0,
        bf in any::<bool>(),
    ) {
        use packlab::models::placement::{pack, pack_scan};
        let fit = match fam {
            0 => FitSpec::Gpa(0.0005 + 0.9 * knob),
            1 => FitSpec::Av(0.5 + knob),
            2 => FitSpec::Perc(100.0 * knob),
            3 => FitSpec::Cantelli(2.0 * knob),
            _ => FitSpec::Max,
        };
        let test = fit.test();
        let mut items = index_items(&raw, grid, zero_var);
        if fam == 0 {
            for it in &mut items {
                it.size = it.mean;
            }
        }
        let rule = if bf { Rule::BestFit } else { Rule::FirstFit };
        let (p, l) = pack(&items, &*test, c, rule);
        let (p_scan, l_scan) = pack_scan(&items, &*test, c, rule);
        prop_assert_eq!(p.bins, p_scan.bins);
        prop_assert_eq!(l, l_scan);
    }
}

// ---------------------------------------------------------------------------------------------------------
// users' scripts (issue 31): the placement hook

use packlab::models::placement::policies::script::{
    compile, STARTERS, STARTER_CANTELLI_TOTAL, STARTER_GPA,
};
use packlab::models::placement::{Family, ScriptPolicy};
use std::sync::Arc;

/// A random subset of `k` VMs (seed 1) of the bundled PlanetLab day (288 five-minute samples): a real
/// instance.
fn planetlab(k: usize) -> UsageTrace {
    let b = packlab::data::PLANETLAB_20110303;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path);
    let file = packlab::input::InputFile {
        name: "planetlab-20110303.tsv.gz".into(),
        bytes: std::fs::read(&path).unwrap(),
    };
    let t = packlab::trace::read_trace(b.id, &[file], b.format).unwrap();
    packlab::models::placement::random_subset(&t, k, 1).unwrap()
}

/// The starter GPA script packs exactly as the built-in `gpa:0.05` (same bins, bit-identical m and q) under
/// First Fit and Best Fit, with and without rebalancing, on 300 real VMs and with clairvoyance 0.5.
#[test]
fn starter_gpa_script_equals_builtin_gpa_bit_for_bit() {
    let t = planetlab(300);
    let script = Arc::new(compile(STARTER_GPA).unwrap());
    for clairvoyance in [1.0, 0.5] {
        let p = PlacementParams {
            clairvoyance,
            ..PlacementParams::default()
        };
        let inst = Instance::new(&t, &p, 1).unwrap();
        for rule in [Rule::FirstFit, Rule::BestFit] {
            for rebalance in [false, true] {
                let builtin = inst.pack(&FitSpec::Gpa(0.05), rule, rebalance);
                let (packing, r) = inst
                    .pack_script(&script, "script:gpa".into(), rule, rebalance)
                    .unwrap();
                assert_eq!(packing.bins, builtin.bins, "{rule:?} rebalance {rebalance}");
                let b = inst.evaluate(&FitSpec::Gpa(0.05), &builtin);
                assert!(b.m_abs > 5, "a real packing: {}", b.m_abs);
                assert_eq!(
                    (r.m.to_bits(), r.q.to_bits()),
                    (b.m.to_bits(), b.q.to_bits())
                );
                assert_eq!(r.spec, "script:gpa");
            }
        }
    }
}

/// Cantelli on the machine's total is GPA with z = √((1 − ρ)/ρ): the same packing as built-in GPA at the
/// ρ' with z_{1−ρ'} = √19, i.e. ρ' = Φ̄(√19), up to ties in the last bit (First Fit, no rebalancing).
#[test]
fn starter_cantelli_total_is_gpa_at_the_matching_z() {
    let t = planetlab(200);
    let p = PlacementParams::default();
    let inst = Instance::new(&t, &p, 1).unwrap();
    let script = Arc::new(compile(STARTER_CANTELLI_TOTAL).unwrap());
    let (mine, _) = inst
        .pack_script(&script, "script:c".into(), Rule::FirstFit, false)
        .unwrap();
    let rho = packlab::substrate::stats::normal_sf(19f64.sqrt());
    let gpa = inst.pack(&FitSpec::Gpa(rho), Rule::FirstFit, false);
    assert_eq!(mine.bins.len(), gpa.bins.len());
    // more conservative than GPA at 0.05: more machines
    let g05 = inst.pack(&FitSpec::Gpa(0.05), Rule::FirstFit, false);
    assert!(
        mine.bins.len() > g05.bins.len(),
        "{} vs {}",
        mine.bins.len(),
        g05.bins.len()
    );
}

/// A script with a `size` hook reading the observations: perc 95 re-expressed (s_i = P_i(95), linear
/// interpolation; fits iff load + s_k ≤ c) packs as the built-in `perc:95`.
#[test]
fn size_hook_reads_observations_like_perc() {
    let src = r#"
        fn size(mean, sd, obs) {
            let h = (obs.len() - 1) * 0.95;
            let i = h.floor().to_int();
            if i + 1 >= obs.len() { obs[i] } else { obs[i] + (h - i) * (obs[i + 1] - obs[i]) }
        }
        fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k) { load + s_k <= c }
    "#;
    let t = planetlab(120);
    let p = PlacementParams::default();
    let inst = Instance::new(&t, &p, 1).unwrap();
    let script = Arc::new(compile(src).unwrap());
    let (mine, _) = inst
        .pack_script(&script, "script:p".into(), Rule::BestFit, true)
        .unwrap();
    assert_eq!(
        mine.bins,
        inst.pack(&FitSpec::Perc(95.0), Rule::BestFit, true).bins
    );
}

/// Scripts in the scenario: one frontier point each after the families', family `script`; a run-time
/// failure (the operation limit, the run's budget) fails only its point, with the error; bad sources are
/// reported by validation with the field, line and column.
#[test]
fn scripts_in_the_frontier_and_their_errors() {
    let t = planetlab(60);
    let mut p = PlacementParams::default();
    for f in &mut p.families {
        f.enabled = f.family == Family::Gpa;
        f.grid = vec![0.05];
    }
    p.scripts = STARTERS
        .iter()
        .map(|(n, s)| ScriptPolicy::new(n, s))
        .collect();
    let f = run_frontier(&t, &p, 1, &mut |_, _| true).unwrap();
    let specs: Vec<&str> = f.points.iter().map(|x| x.spec.as_str()).collect();
    assert_eq!(specs, ["gpa:0.05", "script:gpa", "script:cantelli-total"]);
    assert_eq!(f.points[1].family, Family::Script);
    assert_eq!(
        (f.points[1].m, f.points[1].q),
        (f.points[0].m, f.points[0].q)
    );

    // a script that fails at run time fails only its point: the error on it, off the
    // Pareto front, every other point bit for bit as without it
    let ok = f.clone();
    p.scripts.push(ScriptPolicy::new(
        "spin",
        "fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k) {\n  loop {}\n}",
    ));
    let f = run_frontier(&t, &p, 1, &mut |_, _| true).unwrap();
    assert_eq!(f.points[..3], ok.points[..]);
    let e = f.points[3].error.as_deref().unwrap();
    assert_eq!(f.points[3].spec, "script:spin");
    assert!(!f.points[3].pareto);
    assert_eq!(
        e,
        "'fits' ran over the operation limit of one call (an endless loop?)"
    );

    // under the per-call limit (~45 000 operations a call) but over the run's budget in ~450 of the ~1 800
    // calls of a packing that opens a machine per VM: stopped, its point says so
    p.scripts[2] = ScriptPolicy::new(
        "burn",
        "fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k) {\n  let i = 0;\n  while i < 7500 { i += 1; }\n  false\n}",
    );
    let f = run_frontier(&t, &p, 1, &mut |_, _| true).unwrap();
    assert_eq!(f.points[..3], ok.points[..]);
    let e = f.points[3].error.as_deref().unwrap();
    assert!(
        e.contains("'fits' ran over the operation budget of one run (20000000 operations"),
        "{e}"
    );

    p.scripts[2] = ScriptPolicy::new(
        "bad",
        "fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k) {\n  mu +\n}",
    );
    p.scripts.push(ScriptPolicy::new("bad", STARTER_GPA));
    let errs = p.validate("placement.");
    let got: Vec<String> = errs
        .iter()
        .map(|e| format!("{}: {}", e.field, e.message))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].starts_with("placement.scripts[2].source: line 3, column 1: "),
        "{got:?}"
    );
    assert_eq!(
        got[1],
        "placement.scripts[3].name: the name 'bad' is used twice"
    );
}
