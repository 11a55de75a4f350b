//! Unit tests of the moments (closed forms, exact against lattice tables).

use super::*;

#[test]
fn nu_zero_survival_is_cohort_survival() {
    // ν = 0: S1(u) = 1 − (1 − e^{−u})^{n0}
    let tb = AliveTable::new(3, 0.0, 1.0, AliveMode::Volterra);
    for &u in &[0.3, 1.0, 2.5] {
        let exact = 1.0 - (1.0 - libm::exp(-u as f64)).powi(3);
        assert!(
            (tb.s1(u) - exact).abs() < 3e-3,
            "{u}: {} {}",
            tb.s1(u),
            exact
        );
    }
}

#[test]
fn no_absorption_matches_closed_form() {
    // §2.4(a)-(b) directly
    let (n0, lam, nu, sig, kappa) = (4u32, 0.2, 3.0, 2.0, 10.0);
    let t = 5.0;
    let m = known_moments(
        n0,
        lam,
        nu,
        sig,
        kappa,
        &[t],
        AliveMode::Volterra,
        MomentMode::NoAbsorption,
    )[0];
    let r = nu * lam;
    let (m1, m2) = (1.0 + sig, sig * (2.0 + sig));
    let p = libm::exp(-lam * t as f64);
    let q = libm::exp(-lam * t / kappa as f64);
    let i1 = (1.0 - p) / lam;
    let i2 = (1.0 - p * p) / (2.0 * lam);
    let ey = 4.0 * p + r * m1 * i1;
    let vy = 4.0 * p * (1.0 - p) + r * (m1 * i1 + m2 * i2);
    assert!((m.mean - q * ey).abs() < 1e-9);
    assert!((m.var - (q * vy + q * (1.0 - q) * ey * ey)).abs() < 1e-8);
}

#[test]
fn lattice_interpolation_close_to_exact() {
    let mut lat = TableLattice::new();
    let mut worst: f64 = 0.0;
    for &(n0, nu, sg) in &[
        (1u32, 0.37, 2.3),
        (3, 1.7, 0.4),
        (7, 0.05, 11.0),
        (2, 3.3, 5.5),
        (20, 0.8, 1.1),
    ] {
        let ex = AliveTable::new(n0, nu, sg, AliveMode::Volterra);
        let hd = lat.prepare(n0, nu, sg, AliveMode::Volterra);
        for &u in &[0.2, 1.0, 3.0, 8.0, 30.0, 60.0] {
            let (a, b) = ex.psi(u);
            let (c, d) = lat.psi(hd, u);
            let scale = (1.0 - libm::exp(-u as f64)).max(1e-9);
            worst = worst
                .max(((a - c) / scale).abs())
                .max(((b - d) / scale).abs());
        }
    }
    assert!(worst < 0.01, "lattice Ψ error {worst}");
}

#[test]
fn lattice_fast_deltas_match_direct() {
    // the resampled-grid Δ against the direct per-node table lookups on the same lattice
    let cfg = MomentConfig::fast();
    let ts: Vec<f64> = (0..24)
        .map(|i| 0.04 * libm::pow(26_280.0f64 / 0.04, i as f64 / 23.0))
        .collect();
    let mut worst: f64 = 0.0;
    for (n0, al, bl, an, bn, as_, bs) in [
        (1u32, 1.2, 60.0, 1.0, 0.5, 1.0, 0.2),
        (3, 4.2, 150.0, 3.0, 1.3, 5.0, 2.2),
        (8, 40.2, 2000.0, 30.0, 10.0, 90.0, 20.2),
        (2, 400.2, 8000.0, 200.0, 90.0, 20.0, 100.2),
    ] {
        let b = Belief {
            n0,
            lambda: Gamma::new(al, bl),
            nu: Gamma::new(an, bn),
            sigma: Gamma::new(as_, bs),
        };
        let mut lat = TableLattice::new();
        let mut nodes = NodeCache::default();
        let d = absorption_corrections(&b, 20.0, &ts, &cfg, &mut lat, &mut nodes);
        let f = absorption_corrections_lattice(&b, 20.0, &ts, &cfg, &mut lat, &mut nodes);
        let m = posterior_moments(&b, 20.0, &ts, &cfg);
        for k in 0..ts.len() {
            // error relative to the larger of the correction and the moment (E[X_t] = E0 − Δ1 can cancel to
            // ≈ 0 when almost every path is absorbed; the policy sums absolute cores)
            let e1 = (d[k].0 - f[k].0).abs() / m[k].mean.max(d[k].0).max(1e-3);
            let e2 =
                (d[k].1 - f[k].1).abs() / (m[k].var + m[k].mean * m[k].mean).max(d[k].1).max(1e-3);
            worst = worst.max(e1).max(e2);
        }
    }
    assert!(worst < 0.005, "resampled Δ error {worst}");
}

#[test]
fn tables_sharing_grid_terms_equal_tables_built_alone() {
    // one memo across tables of the same step h (ν ≤ 4), of other steps, n0 and σ, both modes and S1-RESCUE
    let mut memo = GridMemo::default();
    let cases = [
        (3, 0.5, 1.0, AliveMode::Volterra),
        (3, 2.0, 1.0, AliveMode::Volterra),
        (7, 2.0, 1.0, AliveMode::Volterra),
        (7, 2.0, 9.0, AliveMode::Volterra),
        (7, 9.0, 0.0, AliveMode::Volterra),
        (3, 0.5, 1.0, AliveMode::Hazard),
        (12, 60.0, 4.0, AliveMode::Volterra),
        (3, 0.5, 1.0, AliveMode::Volterra),
    ];
    for (n0, nu, sg, mode) in cases {
        let a = AliveTable::new_with(n0, nu, sg, mode, &mut memo);
        let b = AliveTable::new(n0, nu, sg, mode);
        for k in 0..400 {
            let u = 0.137 * k as f64;
            assert_eq!(
                a.s1(u).to_bits(),
                b.s1(u).to_bits(),
                "S1 {n0} {nu} {sg} {u}"
            );
            let (p, q) = (a.psi(u), b.psi(u));
            assert_eq!(
                (p.0.to_bits(), p.1.to_bits()),
                (q.0.to_bits(), q.1.to_bits()),
                "Ψ {n0} {nu} {sg} {u}"
            );
        }
    }
}
