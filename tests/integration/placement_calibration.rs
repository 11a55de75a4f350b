//! Calibrated GPA (`gpa-cal:ρ`, issue 12) against hand-worked instances, an independent recount of its
//! held-out overflow frequency, and the bundled PlanetLab day; plain GPA's q ≈ ρ there (issue 12's
//! paper-level outcome); random VM subsets as instances.

use packlab::models::placement::{
    calibrate, random_subset, FitSpec, Instance, Mode, PlacementParams, Rule,
};
use packlab::trace::UsageTrace;
use proptest::prelude::*;

use crate::common::{flag, percent_trace, seed_002_runs};

fn params(c: f64, rebalance: bool) -> PlacementParams {
    PlacementParams {
        capacity: c,
        rule: Rule::BestFit,
        rebalance,
        ..PlacementParams::default()
    }
}

/// Interleaves a fit-half row (O's columns 0, 2, …) and a calibration-half row (columns 1, 3, …).
fn interleave(fit: &[i64], cal: &[i64]) -> Vec<i64> {
    fit.iter().zip(cal).flat_map(|(a, b)| [*a, *b]).collect()
}

/// Worked by hand: c = 1, ℓ = 1 (O = E = 8 columns; fit half = columns 0, 2, 4, 6, calibration half = 1, 3,
/// 5, 7).
///   a: fit [20 40 20 40] % → μ = 0.3, σ² = 0.01; calibration [20 40 20 60]
///   b: fit [50 50 50 50] % → μ = 0.5, σ² = 0;    calibration [50 50 50 50]
/// GPA(ρ') puts b with a iff 0.8 + z_{1−ρ'}·0.1 ≤ 1 ⇔ z ≤ 2 ⇔ ρ' ≥ ρ* = 1 − Φ(2) = 0.022750131948179.
/// Together, the calibration totals are [0.7 0.9 0.7 1.1]: 1 overflow in 1·4 machine-samples, q = 0.25;
/// apart, no total exceeds 0.6 and q = 0. So for a target ρ < 0.25 calibration must return ρ' just below ρ*
/// (two machines), and for ρ ≥ 0.25 the most permissive knob (one machine).
/// On E (all 8 columns): apart q = 0; together the fit columns [0.7 0.9 0.7 0.9] add no overflow, q = 1/8.
#[test]
fn hand_worked_calibration_brackets_the_threshold() {
    let t = percent_trace(&[
        interleave(&[20, 40, 20, 40], &[20, 40, 20, 60]),
        interleave(&[50, 50, 50, 50], &[50, 50, 50, 50]),
    ]);
    let star = 0.022_750_131_948_179_2;
    let width = (calibrate::RHO_MAX / calibrate::RHO_MIN).ln() / (1u64 << calibrate::STEPS) as f64;
    for rebalance in [false, true] {
        let p = params(1.0, rebalance);
        let inst = Instance::new(&t, &p, 1).unwrap();
        let (packing, r) = inst.pack_and_evaluate(&FitSpec::GpaCal(0.1), Rule::BestFit, rebalance);
        let c = r.calibration.expect("calibration reported");
        assert!(c.met);
        assert!(
            c.rho < star && c.rho > star * (-2.0 * width).exp(),
            "rho' {}",
            c.rho
        );
        assert_eq!(c.q_calibration, Some(0.0));
        assert_eq!((c.fit_columns, c.calibration_columns), (4, 4));
        assert_eq!(c.packings, 2 + calibrate::STEPS);
        assert_eq!(packing.bins, vec![vec![0], vec![1]]);
        assert_eq!((r.m_abs, r.q), (2, 0.0));
        // plain GPA uses all of O: a has μ = 0.325, σ² = 0.125 − 0.325² = 0.019375 (σ = 0.139194), so it
        // packs them together iff 0.825 + z·0.139194 ≤ 1 ⇔ z ≤ 1.25724 ⇔ ρ ≥ 0.10433: apart at 0.1,
        // together at 0.2 (whose q on E is 1/8, above the target 0.1)
        let apart = inst.pack(&FitSpec::Gpa(0.1), Rule::BestFit, rebalance);
        assert_eq!(apart.bins, vec![vec![0], vec![1]]);
        let (together, g) = inst.pack_and_evaluate(&FitSpec::Gpa(0.2), Rule::BestFit, rebalance);
        assert_eq!(together.bins, vec![vec![0, 1]]);
        assert_eq!((g.q, g.calibration), (0.125, None));

        let (packing, r) = inst.pack_and_evaluate(&FitSpec::GpaCal(0.25), Rule::BestFit, rebalance);
        let c = r.calibration.unwrap();
        assert!(c.met);
        assert_eq!(
            (c.rho, c.q_calibration, c.packings),
            (calibrate::RHO_MAX, Some(0.25), 1)
        );
        assert_eq!(packing.bins, vec![vec![0, 1]]);
        assert_eq!((r.m_abs, r.q), (1, 0.125));
    }
}

/// No knob meets the target: a third VM alone exceeds c = 1 in one calibration column (120 %), so even the
/// most conservative knob (one VM per machine: 3 machines) gives q = 1/(3·4) on the calibration half > 0.05.
/// The most conservative knob is used and the result says so. With a single column in O nothing is held out.
#[test]
fn unmet_target_and_no_held_out_columns_are_reported() {
    let t = percent_trace(&[
        interleave(&[20, 40, 20, 40], &[20, 40, 20, 60]),
        interleave(&[50, 50, 50, 50], &[50, 50, 50, 50]),
        interleave(&[10, 30, 10, 30], &[10, 120, 10, 30]),
    ]);
    let p = params(1.0, true);
    let inst = Instance::new(&t, &p, 1).unwrap();
    let (packing, r) = inst.pack_and_evaluate(&FitSpec::GpaCal(0.05), Rule::BestFit, true);
    let c = r.calibration.unwrap();
    assert!(!c.met);
    assert_eq!(c.rho, calibrate::RHO_MIN);
    assert_eq!(c.q_calibration, Some(1.0 / 12.0));
    assert!(c.note.as_deref().unwrap().contains("most conservative"));
    assert_eq!(packing.bins, vec![vec![0], vec![1], vec![2]]);

    // ℓ = 1/8: O = the first column only
    let p = PlacementParams {
        clairvoyance: 0.125,
        ..params(1.0, true)
    };
    let inst = Instance::new(&t, &p, 1).unwrap();
    let (packing, r) = inst.pack_and_evaluate(&FitSpec::GpaCal(0.05), Rule::BestFit, true);
    let c = r.calibration.clone().unwrap();
    assert!(!c.met && c.q_calibration.is_none() && c.calibration_columns == 0);
    assert_eq!(c.rho, 0.05);
    assert_eq!(packing, inst.pack(&FitSpec::Gpa(0.05), Rule::BestFit, true));
    // the report serializes (no NaN) and the JSON says why
    let j = serde_json::to_string(&r).unwrap();
    assert!(j.contains("\"q_calibration\":null") && j.contains("none left to calibrate"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// After calibration (when met), the overflow frequency of the packing on the calibration half of O —
    /// recounted here from the integer CPU % (Σ % > 100·c), independently of the engine's evaluation — is at
    /// most the target and equals the reported one; every VM is placed once.
    #[test]
    fn held_out_q_after_calibration_is_at_most_the_target(
        rows in prop::collection::vec(prop::collection::vec(0i64..=100, 24), 3..14),
        c in prop::sample::select(vec![1.0, 1.5, 2.0]),
        target in 0.01f64..0.4,
        l in prop::sample::select(vec![0.5, 0.75, 1.0]),
        rebalance in any::<bool>(),
        ff in any::<bool>(),
    ) {
        let t = percent_trace(&rows);
        let rule = if ff { Rule::FirstFit } else { Rule::BestFit };
        let p = PlacementParams { clairvoyance: l, rule, ..params(c, rebalance) };
        let inst = Instance::new(&t, &p, 1).unwrap();
        let (packing, r) = inst.pack_and_evaluate(&FitSpec::GpaCal(target), rule, rebalance);
        let cal = r.calibration.unwrap();
        let o = (l * 24.0).floor() as usize;
        let o = if l >= 1.0 { 24 } else { o };
        let cal_cols: Vec<usize> = (1..o).step_by(2).collect();
        prop_assert_eq!(cal.calibration_columns, cal_cols.len());
        let mut placed: Vec<usize> = packing.bins.concat();
        placed.sort_unstable();
        prop_assert_eq!(placed, (0..rows.len()).collect::<Vec<_>>());
        let cap = (100.0 * c) as i64;
        let over: usize = packing.bins.iter().map(|b| {
            cal_cols.iter().filter(|&&t| b.iter().map(|&i| rows[i][t]).sum::<i64>() > cap).count()
        }).sum();
        let q = over as f64 / (packing.bins.len() * cal_cols.len()) as f64;
        prop_assert_eq!(cal.q_calibration, Some(q));
        if cal.met {
            prop_assert!(q <= target, "q {} > target {}", q, target);
        } else {
            prop_assert_eq!(cal.rho, calibrate::RHO_MIN);
            prop_assert!(q > target);
        }
    }
}

fn planetlab_day() -> UsageTrace {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/static/traces/planetlab-20110303.tsv.gz"
    );
    let bytes = std::fs::read(path).unwrap();
    packlab::trace::read_upload(vec![("planetlab-20110303.tsv.gz".into(), bytes)]).unwrap()
}

/// On the bundled PlanetLab day (1052 VMs × 288 samples), calibrated GPA's q on E is closer to the target
/// than plain GPA's at ρ = 0.01 and 0.001, at c = 1 and c = 4: aligned with ℓ = 1 (E2.2's protocol) and,
/// truly held back, resampled (R = 2000, seed 1) with ℓ = 0.5 (E = the 1000 draws not in O). The figures are
/// printed (`--nocapture`) and stored by scripts/seed002_findings.py for every day.
#[test]
fn calibrated_q_is_closer_to_the_target_on_the_planetlab_day() {
    let t = planetlab_day();
    for (mode, l) in [(Mode::Aligned, 1.0), (Mode::Resampled, 0.5)] {
        for c in [1.0, 4.0] {
            let p = PlacementParams {
                mode,
                clairvoyance: l,
                realisations: 2000,
                ..params(c, true)
            };
            let inst = Instance::new(&t, &p, 1).unwrap();
            for rho in [0.01, 0.001] {
                let (_, g) = inst.pack_and_evaluate(&FitSpec::Gpa(rho), Rule::BestFit, true);
                let (_, k) = inst.pack_and_evaluate(&FitSpec::GpaCal(rho), Rule::BestFit, true);
                let cal = k.calibration.as_ref().unwrap();
                eprintln!(
                    "{mode:?} l={l} c={c} rho={rho}: GPA q {:.3e} m_abs {} | calibrated q {:.3e} m_abs {} rho' {:.3e} met {} q_cal {:?}",
                    g.q, g.m_abs, k.q, k.m_abs, cal.rho, cal.met, cal.q_calibration
                );
                assert!(
                    (k.q - rho).abs() < (g.q - rho).abs(),
                    "{mode:?} l={l} c={c} rho={rho}: calibrated q {} not closer than GPA's {}",
                    k.q,
                    g.q
                );
            }
        }
    }
}

/// Paper-level outcome (seed 002 §5.3, Fig. 9; issue 12): on resampled data GPA keeps its promise, the overflow
/// frequency q is close to the SLO ρ. The bundled PlanetLab day (20110303, one of the 7 stored days) is packed
/// at c = 1 with Best Fit and rebalancing, resampled, ℓ = 0.5 (E = the draws not in O: a held-back
/// evaluation), R and the seed read from the stored runs (R = 10,000, seed 1), at ρ = 0.1 and 0.05.
///
/// Tolerance, from the stored results (results/002/runs.json, the same protocol on all 7 days, computed here
/// at run time): with e_d = (q_d − ρ)/ρ the relative error of day d, ē and s their mean and s.d. over the
/// days, the test asserts |q − ρ|/ρ ≤ |ē| + 3s: GPA's systematic error on this trace plus three
/// between-day standard deviations, what another day of the same kind may show. At the time of writing
/// ē = −10% and +7%, s ≈ 2.4% and 3.6%, so the tolerance is about 17–18% of ρ. The check can fail: two
/// estimators aimed at the same SLO miss it by far more, Cantelli with b = √((1 − ρ)/ρ) (the one-sided
/// Chebyshev bound, which guarantees q ≤ ρ for any distribution) and the sum of the VMs' 99th percentiles;
/// both are packed here and must fall outside the tolerance.
#[test]
fn gpa_q_is_close_to_rho_on_the_resampled_planetlab_day() {
    let stored = seed_002_runs();
    let protocol = |r: &&serde_json::Value| {
        let cmd = r["command"].as_str().unwrap();
        !r["instance"].as_str().unwrap().contains('/')
            && flag(cmd, "--trace").is_some_and(|t| t.contains("planetlab"))
            && flag(cmd, "--mode") == Some("resampled")
            && flag(cmd, "--clairvoyance") == Some("0.5")
            && flag(cmd, "--capacity") == Some("1")
            && flag(cmd, "--rule") == Some("bf")
            && !cmd.contains("--no-rebalance")
    };
    let t = planetlab_day();
    let mut inst = None;
    for rho in [0.1, 0.05] {
        let days: Vec<&serde_json::Value> = stored
            .iter()
            .filter(protocol)
            .filter(|r| {
                flag(r["command"].as_str().unwrap(), "--fit") == Some(&format!("gpa:{rho}"))
            })
            .collect();
        assert_eq!(
            days.len(),
            7,
            "results/002/runs.json: GPA {rho} on the 7 days"
        );
        let e: Vec<f64> = days
            .iter()
            .map(|r| (r["result"]["q"].as_f64().unwrap() - rho) / rho)
            .collect();
        let mean = e.iter().sum::<f64>() / e.len() as f64;
        let sd = (e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (e.len() - 1) as f64).sqrt();
        let tol = mean.abs() + 3.0 * sd;
        let inst = inst.get_or_insert_with(|| {
            let cmd = days[0]["command"].as_str().unwrap();
            let p = PlacementParams {
                mode: Mode::Resampled,
                clairvoyance: 0.5,
                realisations: flag(cmd, "--realisations").unwrap().parse().unwrap(),
                ..params(1.0, true)
            };
            Instance::new(&t, &p, days[0]["seed"].as_u64().unwrap()).unwrap()
        });
        let rel = |fit: FitSpec| {
            let (_, r) = inst.pack_and_evaluate(&fit, Rule::BestFit, true);
            ((r.q - rho) / rho, r.q, r.m_abs)
        };
        let (err, q, m) = rel(FitSpec::Gpa(rho));
        eprintln!(
            "rho={rho}: stored days' relative error mean {mean:+.3} s.d. {sd:.3} -> tolerance {tol:.3}; \
             bundled day GPA q {q:.4e} ({err:+.3}), m_abs {m}"
        );
        assert!(
            err.abs() <= tol,
            "GPA {rho}: q {q} is {err:+.3} of rho off, beyond the stored spread's {tol:.3}"
        );
        for fit in [
            FitSpec::Cantelli(((1.0 - rho) / rho).sqrt()),
            FitSpec::Perc(99.0),
        ] {
            let (e_other, q_other, m_other) = rel(fit);
            eprintln!("rho={rho}: {fit:?} q {q_other:.4e} ({e_other:+.3}), m_abs {m_other}");
            assert!(
                e_other.abs() > tol,
                "{fit:?} at rho {rho}: q {q_other} within the tolerance, which then cannot tell GPA apart"
            );
        }
    }
}

/// Random subsets: k distinct VMs in trace order, the trace's values and grid; the same seed gives the same
/// subset, another seed another; k out of range is an error naming the field.
#[test]
fn random_subsets_are_reproducible_subsets_in_trace_order() {
    let rows: Vec<Vec<i64>> = (0..50).map(|i| vec![i, 2 * i, 3 * i]).collect();
    let t = percent_trace(&rows);
    let a = random_subset(&t, 20, 7).unwrap();
    let b = random_subset(&t, 20, 7).unwrap();
    let other = random_subset(&t, 20, 8).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.items, other.items);
    assert_eq!(a.items.len(), 20);
    assert_eq!(a.grid, t.grid);
    let idx: Vec<usize> = a.items.iter().map(|s| s[2..].parse().unwrap()).collect();
    assert!(idx.windows(2).all(|w| w[0] < w[1]), "{idx:?}");
    for (k, &i) in idx.iter().enumerate() {
        assert_eq!(a.series(k).to_vec(), t.series(i).to_vec());
    }
    assert_eq!(random_subset(&t, 50, 1).unwrap().items, t.items);
    for bad in [0, 51] {
        let e = random_subset(&t, bad, 1).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("subset"));
    }
}
