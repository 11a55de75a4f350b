//! The admission tab's default view (E0.1, C = 1,000 cores, 1,460 h, R = 2 runs, 6 search steps, seed 1;
//! `AdmissionScenario::default`): every policy must be tuned to a threshold that admits deployments and whose
//! failure rate is certified against the SLA (ALGORITHMS.md §2.8). Before the search kept "too few scale-out
//! requests to tell" apart from "infeasible", SECOND was "tuned" to θ2 = 2.14e−4, which admitted none of the
//! 2,952 arrivals (utilization 0). The report is `packlab run`'s on the default view's link, shared with the saved
//! admission-default links of tests/links/ (cli_pins) when they decode to the same scenario (`link_runs`).

use packlab::scenario::{Model, Scenario};
use serde_json::Value;

/// P(Poisson(mu) ≤ k), summed term by term (independent of the engine's gamma-function bound).
fn poisson_cdf(k: u64, mu: f64) -> f64 {
    let mut term = (-mu).exp();
    let mut sum = term;
    for i in 1..=k {
        term *= mu / i as f64;
        sum += term;
    }
    sum
}

/// Each policy admits something and meets the SLA by the exact 95% Poisson bound. The bound U on the rate
/// after F failures in Q requests solves P(Poisson(U·Q) ≤ F) = 0.05 and that probability falls as the mean
/// grows, so U ≤ ε exactly when P(Poisson(ε·Q) ≤ F) ≤ 0.05 (checked here from the reported counts; R = 2
/// unweighted runs, so the effective request count is the pooled one).
///
/// The ordering SECOND ≥ FIRST ≥ ZEROTH of §2.12 is not asserted. At this scale the engine gives ZEROTH 0.790
/// [0.778, 0.802], FIRST 0.738 [0.719, 0.756], SECOND 0.770 [0.764, 0.777]: the CIs are disjoint but
/// ZEROTH is highest. Disjoint CIs prove little here. With R = 2 the BCa CI only covers the spread of two
/// runs at the chosen threshold, not the choice itself: FIRST's search rejects θ1 = 750 because one run had
/// 7 failures, although the more permissive 765.6 and 781.25 have none in about 6,100 requests each
/// (certified, utilization 0.761 and 0.778). With R = 8 the FIRST and ZEROTH CIs overlap (0.776 [0.767, 0.784]
/// vs 0.784 [0.772, 0.798]). With hundreds of deployments in a 1,000-core cluster, the E0.1 finding (results/000/tables.md)
/// also applies: the moment policies beat ZEROTH only in small clusters (1/40 scale). Capping the look-ahead
/// at the run length left FIRST's threshold unchanged (734.375), so it is not an end-of-run effect.
#[test]
fn default_view_tunes_every_policy_to_a_threshold_that_admits() {
    let sc = Scenario {
        model: Model::Admission,
        ..Scenario::default()
    };
    let a = &sc.admission;
    assert_eq!(
        (
            a.params.capacity,
            a.params.horizon_hours,
            a.runs,
            a.params.tune_iterations,
            sc.seed
        ),
        (1000.0, 1460.0, 2, 6, 1),
        "the default view's scale"
    );
    let sla = a.params.sla;
    assert_eq!(sla, 1e-3);
    // the report of `packlab run` on the default view's link: the same run as the saved admission-default
    // links of tests/links/ when they decode to this scenario, computed once for both (`link_runs`)
    let rep: Value = serde_json::from_str(&crate::link_runs::run_link(&sc.to_link(), None))
        .expect("the default scenario's report is JSON");
    let arms = rep["arms"].as_array().expect("arms");
    let labels: Vec<&str> = arms.iter().map(|x| x["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["ZEROTH", "FIRST", "SECOND", "UPPER_BOUND"]);
    let num = |arm: &Value, k: &str| {
        arm[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{}: no number {k}", arm["label"]))
    };
    let bound = num(&arms[3], "utilization");
    assert_eq!(arms[3]["status"], "bound");
    for arm in &arms[..3] {
        let l = arm["label"].as_str().unwrap();
        assert_eq!(arm["status"], "tuned", "{l}: {}", arm["status_reason"]);
        assert_eq!(arm["status_reason"], "", "{l}");
        let utilization = num(arm, "utilization");
        assert!(
            arm["accepted"].as_u64().unwrap() > 0 && utilization > 0.0,
            "{l} admits nothing: {arm}"
        );
        assert!(
            arm["arrivals"].as_u64().unwrap() > 2000,
            "{l}: about 1,460 arrivals per run"
        );
        // the threshold lies inside its bracket (ALGORITHMS.md §2.8; θ2 ∈ (1e−8, 1) searched in log10)
        let (lo, hi) = if arm["kind"] == "SECOND" {
            (1e-8, 1.0)
        } else {
            (0.0, 1000.0)
        };
        let threshold = num(arm, "threshold");
        assert!(threshold > lo && threshold < hi, "{l}: {threshold}");
        // certified: the exact bound from the counts, and the reported bound
        let q = arm["requests"].as_u64().unwrap() as f64;
        let failures = arm["failures"].as_u64().unwrap();
        assert!(
            q >= -(0.05f64.ln()) / sla,
            "{l}: {q} requests cannot certify ε"
        );
        assert!(
            poisson_cdf(failures, sla * q) <= 0.05,
            "{l}: {failures} failures in {q} requests exceed ε at 95%"
        );
        assert!(num(arm, "failure_rate_upper95") <= sla, "{l}");
        assert!(utilization < bound, "{l}: above the accept-if-fits bound");
        let ci = arm["utilization_ci"].as_array().expect("utilization_ci");
        assert!(ci[0].as_f64().unwrap() <= utilization && utilization <= ci[1].as_f64().unwrap());
    }
}
