//! The variance-based payment rule of seed 000 §7.1 (ALGORITHMS.md §2.11): `π_d = p_core·n_d + p_var·V̂_d` with
//! `V̂_d` the provider's posterior-predictive `Var[X^d_24h]`, against values computed here by hand, and the law of
//! total variance behind Prop. 7.1 (labelling never costs the user more).

use packlab::models::admission::moments::{known_moments, AliveMode, Gamma, MomentMode};
use packlab::models::admission::params::{AdmitParams, Labelling, PolicyKind, PolicySpec, Pricing};
use packlab::models::admission::posterior::Priors;
use packlab::models::admission::sim::{lead_grid, mixture_moments, simulate_run, SimCache};

/// A deployment without scale-outs, `X_t = D_t·A_t` with `A_t ~ Binomial(n0, p)`, `p = e^{−λt}`, and the kill
/// indicator `D_t ~ Bernoulli(q)`, `q = e^{−λt/κ}`, independent: `E[X] = q·n0·p` and
/// `E[X²] = q·(n0·p(1−p) + (n0·p)²)` (ALGORITHMS.md §2.3, by hand). Returns (E[X], E[X²]).
fn no_scaleout_raw_moments(n0: f64, lambda: f64, kappa: f64, t: f64) -> (f64, f64) {
    let p = (-lambda * t).exp();
    let q = (-lambda * t / kappa).exp();
    (q * n0 * p, q * (n0 * p * (1.0 - p) + (n0 * p).powi(2)))
}

/// Two known types of one user (no scale-outs, so §2.4 is the binomial-with-kill closed form): the engine's
/// moments of each type match the hand formula, and the engine's ½/½ mixture (the unlabelled deployment)
/// matches the mixture computed from raw moments, `Var_mix = ½(E_A[X²] + E_B[X²]) − (½(μ_A + μ_B))²`, a route
/// that does not use the law of total variance. Labelling saves the user exactly `¼(μ_A − μ_B)²` of predicted
/// variance in expectation over the type coin, and nothing when the types' means agree.
#[test]
fn unlabelled_mixture_variance_by_hand_and_the_law_of_total_variance() {
    let (kappa, t) = (20.0, 24.0);
    // (n0, λ per hour): a long-lived and a short-lived type; a small slow type and a large fast one; two types
    // with nearly equal means but different variances (n0 = 4 at p = ½ and n0 = 2 at p ≈ 1)
    let pairs = [
        ((3u32, 0.02), (3u32, 0.1)),
        ((1u32, 0.005), (8u32, 0.2)),
        ((4u32, std::f64::consts::LN_2 / 24.0), (2u32, 1e-12)),
    ];
    for ((na, la), (nb, lb)) in pairs {
        let mut mv = Vec::new();
        let mut raw = Vec::new();
        for (n, l) in [(na, la), (nb, lb)] {
            let m = known_moments(
                n,
                l,
                0.0,
                0.0,
                kappa,
                &[t],
                AliveMode::default(),
                MomentMode::Canonical,
            )[0];
            let (e, e2) = no_scaleout_raw_moments(n as f64, l, kappa, t);
            assert!(
                (m.mean - e).abs() < 1e-12,
                "E of ({n}, {l}): {} vs {e}",
                m.mean
            );
            assert!(
                (m.var - (e2 - e * e)).abs() < 1e-12,
                "Var of ({n}, {l}): {} vs {}",
                m.var,
                e2 - e * e
            );
            mv.push((m.mean, m.var));
            raw.push((e, e2));
        }
        let (mu, var) = mixture_moments(mv[0], mv[1]);
        let mu_hand = 0.5 * (raw[0].0 + raw[1].0);
        let var_hand = 0.5 * (raw[0].1 + raw[1].1) - mu_hand * mu_hand;
        assert!((mu - mu_hand).abs() < 1e-12);
        assert!(
            (var - var_hand).abs() < 1e-12,
            "mixture variance {var} vs {var_hand} by hand"
        );
        let labelled = 0.5 * (mv[0].1 + mv[1].1); // the labelled user's expected V̂
        let saving = 0.25 * (mv[0].0 - mv[1].0).powi(2);
        assert!(var >= labelled, "labelling cost more: {labelled} > {var}");
        assert!((var - labelled - saving).abs() < 1e-12);
        // with any p_var ≥ 0 the labelled user's expected payment is at most the unlabelled one
        let pr = Pricing {
            p_core: 1.0,
            p_var: 0.37,
            lead_hours: t,
        };
        let n_mean = 0.5 * (na + nb) as f64;
        let pay_l = 0.5 * (pr.payment(na as f64, mv[0].1) + pr.payment(nb as f64, mv[1].1));
        assert!(pay_l <= pr.payment(n_mean, var) + 1e-12);
    }
}

/// The payment of one deployment by hand. The population priors are concentrated (shape 10⁶) at λ = 0.02/h,
/// ν = σ = 10⁻⁶, so every arrival has n0 = 1 core, (almost surely) no scale-outs, and the provider's
/// posterior-predictive variance at 24 h is the binomial-with-kill closed form at λ = 0.02:
/// `V̂ = q·p(1−p) + q(1−q)·p²` with `p = e^{−0.48}`, `q = e^{−0.024}`, = 0.239161…; with p_core = 2 and
/// p_var = 0.5 the deployment pays `2·1 + 0.5·V̂` per hour. The curve is evaluated on the exact policy grid
/// (`curve_points = 0`, which holds t = 24 h), so only the §2.6.3 quadrature stands between the two.
#[test]
fn payment_of_one_deployment_by_hand() {
    let big = 1e6;
    let p = AdmitParams {
        capacity: 1000.0,
        arrival_rate: 0.05,
        horizon_hours: 600.0,
        priors: Priors {
            lambda: Gamma::new(big, big / 0.02),
            nu: Gamma::new(big, big / 1e-6),
            sigma: Gamma::new(big, big / 1e-6),
            kappa: 20.0,
        },
        curve_points: 0,
        pricing: Some(Pricing {
            p_core: 2.0,
            p_var: 0.5,
            lead_hours: 24.0,
        }),
        ..AdmitParams::default()
    };
    p.validate().unwrap();
    let spec = PolicySpec {
        kind: PolicyKind::Second,
        threshold: 1.0,
        marginal: false,
    };
    let grid = lead_grid(&p);
    let r = simulate_run(&p, spec, 7, &grid, &mut SimCache::new());
    let pr = r.pricing.expect("priced");
    assert_eq!(pr.arrivals, r.arrivals);
    assert!(r.arrivals >= 15, "{} arrivals", r.arrivals);
    assert_eq!(pr.arrival_cores, r.arrivals as f64, "every n0 is 1");
    assert_eq!(pr.admitted, r.accepted);
    assert_eq!(r.accepted, r.arrivals, "a 1,000-core cluster admits all");
    let (e, e2) = no_scaleout_raw_moments(1.0, 0.02, 20.0, 24.0);
    let v_hand = e2 - e * e;
    assert!((v_hand - 0.239161).abs() < 1e-6, "{v_hand}");
    let v = pr.arrival_var / pr.arrivals as f64;
    assert!(
        (v - v_hand).abs() < 1e-4 * v_hand,
        "engine V̂ {v} vs {v_hand} by hand"
    );
    let pay = p.pricing.unwrap().payment(1.0, v);
    assert!((pay - (2.0 + 0.5 * v_hand)).abs() < 1e-4);
}

/// E0.4 on one run: the labelled and unlabelled arms see the same arrivals (common random numbers), and the
/// provider predicts a smaller variance for the labelled ones on average — the law of total variance,
/// per arrival in expectation over the type coin. A run without `pricing` carries no payment sums, and a
/// configuration without it serializes no `pricing` key (older links keep their JSON).
#[test]
fn labelled_users_are_priced_below_unlabelled_ones_on_the_same_arrivals() {
    let base = AdmitParams {
        capacity: 500.0,
        arrival_rate: 0.025,
        horizon_hours: 4000.0,
        labelling_obs: 1,
        pricing: Some(Pricing::default()),
        ..AdmitParams::default()
    };
    let spec = PolicySpec {
        kind: PolicyKind::Second,
        threshold: 0.05,
        marginal: false,
    };
    let run = |l: Labelling| {
        let p = AdmitParams {
            labelling: l,
            ..base.clone()
        };
        simulate_run(&p, spec, 3, &lead_grid(&p), &mut SimCache::new())
    };
    let (lab, unl) = (run(Labelling::Labelled), run(Labelling::Unlabelled));
    let (pl, pu) = (lab.pricing.unwrap(), unl.pricing.unwrap());
    assert_eq!(lab.arrivals, unl.arrivals);
    assert!(pl.arrivals > 50, "{} arrivals", pl.arrivals);
    assert_eq!(pl.arrival_cores, pu.arrival_cores, "same arrivals, same n0");
    assert!(
        pl.arrival_var < pu.arrival_var,
        "labelled Σ V̂ {} vs unlabelled {}",
        pl.arrival_var,
        pu.arrival_var
    );
    let pr = Pricing::default();
    let n = pl.arrivals as f64;
    assert!(
        pr.payment(pl.arrival_cores / n, pl.arrival_var / n)
            < pr.payment(pu.arrival_cores / n, pu.arrival_var / n)
    );
    // without prices: nothing priced, and the same run bit for bit (prices never change a decision)
    let p = AdmitParams {
        pricing: None,
        labelling: Labelling::Labelled,
        ..base.clone()
    };
    let r = simulate_run(&p, spec, 3, &lead_grid(&p), &mut SimCache::new());
    assert!(r.pricing.is_none());
    assert_eq!(
        (r.utilization.to_bits(), r.accepted, r.requests, r.failures),
        (
            lab.utilization.to_bits(),
            lab.accepted,
            lab.requests,
            lab.failures
        )
    );
    let json = serde_json::to_value(AdmitParams::default()).unwrap();
    assert!(json.get("pricing").is_none());
    // bad prices are refused with the field's name
    let bad = AdmitParams {
        pricing: Some(Pricing {
            p_var: -1.0,
            ..Pricing::default()
        }),
        ..AdmitParams::default()
    };
    assert!(bad.validate().unwrap_err().contains("pricing.p_var"));
}
