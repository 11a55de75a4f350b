//! The learned lifetime predictor and the model metrics on the bundled Azure 2017 arrivals (seed 003 §3, §6.4,
//! §6.5; ALGORITHMS.md §5.2, §5.8): the predictor's answers against its own distributions summed directly,
//! two trainings giving the same bits, a simulation with it, and the metrics of the oracle (all perfect).

use packlab::experiment::{run_to_end, Experiment};
use packlab::models::lifetime::features::extract;
use packlab::models::lifetime::learned::{LearnedModel, LearnedSpec};
use packlab::models::lifetime::model_metrics::{evaluate, UPTIME_QUANTILES};
use packlab::models::lifetime::pool::{select, PoolJobs};
use packlab::models::lifetime::predictor::{LifetimePredictor, Oracle};
use packlab::models::lifetime::{LifetimeParams, LifetimeRun, PredictorKind};
use packlab::workload::WorkloadFacts;

fn arrivals() -> WorkloadFacts {
    let b = packlab::data::AZURE2017_ARRIVALS;
    b.read_facts_at(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
        .expect("the bundled arrivals")
}

/// A small share of the `test` split (training: the `dev` split).
fn small_pool(w: &WorkloadFacts) -> PoolJobs {
    let p = LifetimeParams {
        share: 0.02,
        hosts: 1,
        ..LifetimeParams::default()
    };
    select(w, &p, 4).expect("a pool")
}

#[test]
fn learned_answers_follow_its_distributions_and_training_is_deterministic() {
    let w = arrivals();
    let pool = small_pool(&w);
    let feats = extract(&w);
    let spec = LearnedSpec::default();
    let model = LearnedModel::train(&w, &feats, &pool.training, &spec).unwrap();
    assert!(model.info().converged, "{:?}", model.info());
    assert_eq!(model.info().examples, 259_159); // the dev split (SOURCE.md)
    let pred = model.predictor(&feats, &pool.vms);
    assert!(pred.distributions() <= pool.jobs.len());
    let (mut t, mut p) = (Vec::new(), Vec::new());
    for j in (0..pool.jobs.len()).step_by(97) {
        model.distribution(&feats[pool.vms[j]], &mut t, &mut p);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        // the point estimate (seed 003 App. B): the geometric mean of min(T, 168 h), summed directly (the mass
        // under 5 minutes, at 0 h, counted as 2.5 minutes)
        let geo: f64 = t
            .iter()
            .zip(&p)
            .map(|(t, p)| p * t.min(168.0).max(2.5 / 60.0).ln())
            .sum::<f64>()
            .exp();
        assert!(
            (pred.first(j) - geo).abs() < 1e-9 * geo.max(1.0),
            "job {j}: {} vs {geo}",
            pred.first(j)
        );
        for u in [0.0, 0.04, 0.5, 3.0, 30.0, 100.0, 400.0, 1e4] {
            // over the points beyond u, summed directly: E[T − u | T > u] (the distribution's mean residual)
            let (mut m, mut s) = (0.0, 0.0);
            for (t, p) in t.iter().zip(&p).filter(|(t, _)| **t > u) {
                m += p * (t - u);
                s += p;
            }
            let want = if s > 0.0 { m / s } else { 0.0 };
            let got = pred.mean_residual(j, u);
            assert!(
                (got - want).abs() < 1e-9 * want.max(1.0),
                "job {j}, u = {u}: {got} vs {want}"
            );
            // the point estimate: exp E[ln clamp(T − u, 2.5 min, 168 h) | T > u], at u = 0 every point (the one
            // at 0 h included), the tail (the last point, beyond the data) always, at 168 h
            let last = t.len() - 1;
            let (mut lg, mut s) = (0.0, 0.0);
            for (k, (t, p)) in t.iter().zip(&p).enumerate() {
                if k == last {
                    lg += p * 168f64.ln();
                } else if *t > u || u <= 0.0 {
                    lg += p * (t - u.max(0.0)).clamp(2.5 / 60.0, 168.0).ln();
                } else {
                    continue;
                }
                s += p;
            }
            let want = if s > 0.0 { (lg / s).exp() } else { 0.0 };
            let got = pred.remaining(j, u);
            assert!(
                (got - want).abs() < 1e-9 * want.max(1.0),
                "job {j}, u = {u}: point {got} vs {want}"
            );
        }
    }
    // a second training gives the same bits
    let again = LearnedModel::train(&w, &feats, &pool.training, &spec)
        .unwrap()
        .predictor(&feats, &pool.vms);
    for j in 0..pool.jobs.len() {
        assert_eq!(pred.first(j).to_bits(), again.first(j).to_bits());
        assert_eq!(
            pred.remaining(j, 5.0).to_bits(),
            again.remaining(j, 5.0).to_bits()
        );
    }
    // a job the predictor does not know gets 0, no panic
    assert_eq!(pred.first(usize::MAX), 0.0);
    assert_eq!(pred.remaining(pool.jobs.len(), 1.0), 0.0);
}

#[test]
fn the_oracle_scores_perfectly() {
    let w = arrivals();
    let pool = small_pool(&w);
    let life: Vec<f64> = pool.jobs.iter().map(|j| j.life).collect();
    let m = evaluate(&pool, &Oracle::new(life), "oracle", 24.0);
    assert!(m.long > 0 && m.labelled < m.vms && m.censored > 0, "{m:?}");
    assert_eq!((m.precision, m.recall, m.f1), (Some(1.0), Some(1.0), 1.0));
    assert_eq!(m.f1_by_uptime_quantile, vec![1.0; UPTIME_QUANTILES]);
    assert_eq!(m.median_abs_log10_error, 0.0);
    // only ties of an exit with a censoring at the same time can miss (the oracle's imputed lifetime of a
    // VM beyond the training window's Kaplan–Meier support is its age)
    assert!(m.c_index.unwrap() > 0.999, "{:?}", m.c_index);
}

#[test]
fn a_simulation_with_the_learned_predictor() {
    let w = arrivals();
    let p = LifetimeParams {
        predictor: PredictorKind::Learned,
        share: 0.03,
        stranding_h: 0.0,
        ..LifetimeParams::default()
    };
    let mut run = LifetimeRun::new(&w, &p, 2).unwrap();
    assert_eq!(run.total(), 4);
    let rep = run_to_end(&mut run, &mut |_, _| true).unwrap();
    assert_eq!(rep.predictor, "learned");
    assert_eq!(rep.results.len(), 4);
    for r in &rep.results {
        assert!(r.empty_hosts <= r.optimum_empty_hosts + 1e-12, "{r:?}");
    }
    let one_shot = LifetimeParams {
        reprediction: false,
        ..p
    };
    assert_eq!(one_shot.predictor_label(), "learned one-shot");
    assert!(LifetimeRun::new(&w, &one_shot, 2).is_ok());
}
