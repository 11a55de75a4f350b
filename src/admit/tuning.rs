//! Threshold tuning to the SLA by binary search with common random numbers, BCa bootstrap CIs, and the
//! named experiments E0.1–E0.4 (ALGORITHMS.md §2.8, §2.10, §2.12; seed 000 §5.2).

use super::params::{AdmitParams, Labelling, PolicyKind, PolicySpec};
use super::rng::{component as comp, mix64, stream};
use super::sim::{lead_grid, simulate_run, RunResult, SimCache};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// Progress/cancel hook: called with (runs done, runs planned); return false to cancel.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// Seed of run `r` of an experiment with master seed `seed` (identical across policies and thresholds: CRN).
pub fn run_seed(seed: u64, r: usize) -> u64 {
    mix64(seed ^ mix64(r as u64 + 1))
}

/// Aggregate of R runs at one threshold (ALGORITHMS.md §2.10; unweighted, i.e. no importance sampling).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Threshold evaluated.
    pub threshold: f64,
    /// Mean utilization over runs.
    pub utilization: f64,
    /// Pooled scale-out failure rate Σ fail / Σ req.
    pub failure_rate: f64,
    /// Upper end of its 95% CI (delta method over runs).
    pub failure_rate_upper: f64,
    /// Mean over runs and months of the monthly failure rates.
    pub monthly_failure_rate: f64,
    /// Fraction of runs with at least one failure.
    pub runs_with_failure: f64,
    /// Per-run utilizations (for bootstrap CIs).
    pub run_utilization: Vec<f64>,
}

/// Evaluate `spec` on the runs `seeds`; `None` if cancelled.
pub fn evaluate(
    p: &AdmitParams,
    spec: PolicySpec,
    seeds: &[u64],
    cache: &mut SimCache,
    done: &mut usize,
    total: usize,
    progress: Progress,
) -> Option<Evaluation> {
    let grid = lead_grid(p);
    let mut runs: Vec<RunResult> = Vec::with_capacity(seeds.len());
    for &s in seeds {
        runs.push(simulate_run(p, spec, s, &grid, cache));
        *done += 1;
        if !progress(*done, total) {
            return None;
        }
    }
    Some(summarise(spec.threshold, &runs))
}

/// Summarise runs (ALGORITHMS.md §2.10).
pub fn summarise(threshold: f64, runs: &[RunResult]) -> Evaluation {
    let r = runs.len().max(1) as f64;
    let req: f64 = runs.iter().map(|x| x.requests as f64).sum();
    let fail: f64 = runs.iter().map(|x| x.failures as f64).sum();
    let f = if req > 0.0 { fail / req } else { 0.0 };
    let mean_req = req / r;
    let var = if runs.len() > 1 {
        runs.iter()
            .map(|x| (x.failures as f64 - f * x.requests as f64).powi(2))
            .sum::<f64>()
            / (r - 1.0)
    } else {
        0.0
    };
    let se = if mean_req > 0.0 {
        (var / r).sqrt() / mean_req
    } else {
        0.0
    };
    let mut months = 0.0;
    let mut msum = 0.0;
    for x in runs {
        for m in &x.months {
            if m.requests > 0 {
                msum += m.failures as f64 / m.requests as f64;
            }
            months += 1.0;
        }
    }
    Evaluation {
        threshold,
        utilization: runs.iter().map(|x| x.utilization).sum::<f64>() / r,
        failure_rate: f,
        failure_rate_upper: f + 1.96 * se,
        monthly_failure_rate: if months > 0.0 { msum / months } else { 0.0 },
        runs_with_failure: runs.iter().filter(|x| x.failures > 0).count() as f64 / r,
        run_utilization: runs.iter().map(|x| x.utilization).collect(),
    }
}

/// BCa bootstrap CI (level `level`, e.g. 0.95) of the mean of `x` with `b` resamples from stream `seed`
/// (Efron 1987; seed 000 §5.2). Returns (lo, hi); degenerate samples give (mean, mean).
pub fn bca_mean_ci(x: &[f64], b: usize, level: f64, seed: u64) -> (f64, f64) {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 || b == 0 || x.iter().all(|v| *v == x[0]) {
        return (mean, mean);
    }
    let nd = Normal::new(0.0, 1.0).expect("standard normal");
    let mut r = stream(seed, comp::BOOTSTRAP, 0);
    let mut boots: Vec<f64> = (0..b)
        .map(|_| {
            (0..n)
                .map(|_| x[(r.random::<u64>() % n as u64) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    boots.sort_by(|a, c| a.total_cmp(c));
    let below = boots.iter().filter(|v| **v < mean).count() as f64;
    let prop = ((below + 0.5 * boots.iter().filter(|v| **v == mean).count() as f64) / b as f64)
        .clamp(1e-6, 1.0 - 1e-6);
    let z0 = nd.inverse_cdf(prop);
    let sum: f64 = x.iter().sum();
    let jack: Vec<f64> = x.iter().map(|v| (sum - v) / (n - 1) as f64).collect();
    let jm = jack.iter().sum::<f64>() / n as f64;
    let num: f64 = jack.iter().map(|j| (jm - j).powi(3)).sum();
    let den: f64 = jack.iter().map(|j| (jm - j).powi(2)).sum::<f64>().powf(1.5);
    let a = if den > 0.0 { num / (6.0 * den) } else { 0.0 };
    let q = |alpha: f64| {
        let z = nd.inverse_cdf(alpha);
        let adj = nd.cdf(z0 + (z0 + z) / (1.0 - a * (z0 + z)));
        let idx = ((adj * b as f64).floor() as isize).clamp(0, b as isize - 1) as usize;
        boots[idx]
    };
    let al = (1.0 - level) / 2.0;
    (q(al), q(1.0 - al))
}

/// Result of tuning one policy (one row of seed 000 Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneResult {
    /// Display name, e.g. "SECOND+MARGINAL".
    pub policy: String,
    /// Policy kind.
    pub kind: PolicyKind,
    /// MARGINAL heuristic on.
    pub marginal: bool,
    /// Tuned threshold (cores for ZEROTH/FIRST, Cantelli ratio for SECOND).
    pub threshold: f64,
    /// Evaluation at the tuned threshold.
    pub tuned: Evaluation,
    /// 95% BCa CI of the utilization.
    pub utilization_ci: (f64, f64),
    /// All thresholds evaluated during the search (the frontier: utilization vs failure rate).
    pub sweep: Vec<Evaluation>,
}

/// Tune the threshold of `kind` to the SLA `p.sla` by binary search over R = `runs` common-random-number runs
/// (ALGORITHMS.md §2.8). ACCEPT_IF_FITS has no threshold and is evaluated once. Errors: invalid parameters,
/// `runs == 0`, or "cancelled" if the progress hook returned false.
pub fn tune(
    p: &AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    runs: usize,
    seed: u64,
    cache: &mut SimCache,
    progress: Progress,
) -> Result<TuneResult, String> {
    p.validate()?;
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    let seeds: Vec<u64> = (0..runs).map(|r| run_seed(seed, r)).collect();
    let iters = if kind == PolicyKind::AcceptIfFits {
        0
    } else {
        p.tune_iterations
    };
    let total = runs * (iters + 1);
    let mut done = 0usize;
    let mut sweep = Vec::new();
    let (mut lo, mut hi) = p.threshold_bounds(kind);
    let log_space =
        kind == PolicyKind::Second && matches!(p.second_param, super::params::SecondParam::Ratio);
    if log_space {
        lo = lo.log10();
        hi = hi.log10();
    }
    let to_th = |x: f64| if log_space { 10f64.powf(x) } else { x };
    let mut best: Option<Evaluation> = None;
    for _ in 0..iters {
        let mid = 0.5 * (lo + hi);
        let spec = PolicySpec {
            kind,
            threshold: to_th(mid),
            marginal,
        };
        let ev = evaluate(p, spec, &seeds, cache, &mut done, total, progress).ok_or("cancelled")?;
        if ev.failure_rate_upper <= p.sla {
            lo = mid;
            best = Some(ev.clone());
        } else {
            hi = mid;
        }
        sweep.push(ev);
    }
    let threshold = to_th(lo);
    let tuned = match best {
        Some(b) if b.threshold == threshold => {
            done += runs;
            if !progress(done, total) {
                return Err("cancelled".into());
            }
            b
        }
        _ => {
            let spec = PolicySpec {
                kind,
                threshold,
                marginal,
            };
            let ev =
                evaluate(p, spec, &seeds, cache, &mut done, total, progress).ok_or("cancelled")?;
            sweep.push(ev.clone());
            ev
        }
    };
    let ci = bca_mean_ci(&tuned.run_utilization, p.bootstrap, 0.95, seed);
    let mut name = kind.name().to_string();
    if marginal {
        name.push_str("+MARGINAL");
    }
    sweep.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
    Ok(TuneResult {
        policy: name,
        kind,
        marginal,
        threshold,
        tuned,
        utilization_ci: ci,
        sweep,
    })
}

/// Named experiment presets of ALGORITHMS.md §2.12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// E0.1 baseline vs moment policies (ZEROTH, FIRST, SECOND; plus the accept-if-fits upper bound).
    E01,
    /// E0.2 value of prior information: m ∈ {0, 1, 5, 50} × {FIRST, SECOND} with MARGINAL.
    E02,
    /// E0.3 MARGINAL ablation: m ∈ {1, 5, 50} × SECOND with and without MARGINAL.
    E03,
    /// E0.4 labelling: labelled vs unlabelled, SECOND, m = 1 per type.
    E04,
}

impl Preset {
    /// Parse "E0.1" … "E0.4" (also "e01", "1" …).
    pub fn parse(s: &str) -> Result<Preset, String> {
        match s
            .trim()
            .to_ascii_uppercase()
            .replace(['.', '_'], "")
            .as_str()
        {
            "E01" | "1" => Ok(Preset::E01),
            "E02" | "2" => Ok(Preset::E02),
            "E03" | "3" => Ok(Preset::E03),
            "E04" | "4" => Ok(Preset::E04),
            o => Err(format!(
                "unknown preset '{o}' (expected E0.1, E0.2, E0.3 or E0.4)"
            )),
        }
    }
    /// Canonical name "E0.1" … "E0.4".
    pub fn name(&self) -> &'static str {
        match self {
            Preset::E01 => "E0.1",
            Preset::E02 => "E0.2",
            Preset::E03 => "E0.3",
            Preset::E04 => "E0.4",
        }
    }
    /// The experiment's arms: (label, params, policy, marginal).
    pub fn arms(&self, base: &AdmitParams) -> Vec<(String, AdmitParams, PolicyKind, bool)> {
        let with = |m: u32, l: Labelling| {
            let mut p = base.clone();
            p.pseudo_obs = m;
            p.labelling = l;
            p
        };
        match self {
            Preset::E01 => vec![
                ("ZEROTH".into(), base.clone(), PolicyKind::Zeroth, false),
                ("FIRST".into(), base.clone(), PolicyKind::First, false),
                ("SECOND".into(), base.clone(), PolicyKind::Second, false),
                (
                    "UPPER_BOUND".into(),
                    base.clone(),
                    PolicyKind::AcceptIfFits,
                    false,
                ),
            ],
            Preset::E02 => {
                let mut v = vec![(
                    "ZEROTH".to_string(),
                    base.clone(),
                    PolicyKind::Zeroth,
                    false,
                )];
                for m in [0u32, 1, 5, 50] {
                    for k in [PolicyKind::First, PolicyKind::Second] {
                        v.push((
                            format!("{}+MARGINAL m={m}", k.name()),
                            with(m, Labelling::Off),
                            k,
                            true,
                        ));
                    }
                }
                v
            }
            Preset::E03 => {
                let mut v = Vec::new();
                for m in [1u32, 5, 50] {
                    for mg in [false, true] {
                        let name = if mg {
                            format!("SECOND+MARGINAL m={m}")
                        } else {
                            format!("SECOND m={m}")
                        };
                        v.push((name, with(m, Labelling::Off), PolicyKind::Second, mg));
                    }
                }
                v
            }
            Preset::E04 => vec![
                (
                    "SECOND labelled".into(),
                    with(0, Labelling::Labelled),
                    PolicyKind::Second,
                    false,
                ),
                (
                    "SECOND unlabelled".into(),
                    with(0, Labelling::Unlabelled),
                    PolicyKind::Second,
                    false,
                ),
            ],
        }
    }
}

/// One arm of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmResult {
    /// Arm label, e.g. "FIRST+MARGINAL m=5".
    pub label: String,
    /// Pseudo-observations m.
    pub pseudo_obs: u32,
    /// Labelling mode.
    pub labelling: Labelling,
    /// Tuning result.
    pub result: TuneResult,
    /// Relative utilization gain vs the ZEROTH arm of the same experiment, if present.
    pub gain_vs_zeroth: Option<f64>,
}

/// Output of [`run_preset`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// Preset name.
    pub preset: String,
    /// Runs per threshold.
    pub runs: usize,
    /// Master seed.
    pub seed: u64,
    /// Parameters used (base).
    pub params: AdmitParams,
    /// One entry per arm.
    pub arms: Vec<ArmResult>,
}

/// Run a preset (ALGORITHMS.md §2.12): tune every arm to the SLA on the same run seeds. The progress hook sees
/// runs done / planned over the whole experiment; returning false cancels (error "cancelled").
pub fn run_preset(
    preset: Preset,
    base: &AdmitParams,
    runs: usize,
    seed: u64,
    progress: Progress,
) -> Result<ExperimentResult, String> {
    base.validate()?;
    let arms = preset.arms(base);
    let per_arm: Vec<usize> = arms
        .iter()
        .map(|a| {
            runs * (if a.2 == PolicyKind::AcceptIfFits {
                1
            } else {
                base.tune_iterations + 1
            })
        })
        .collect();
    let total: usize = per_arm.iter().sum();
    let mut offset = 0usize;
    let mut cache = SimCache::new();
    let mut out = Vec::new();
    for (i, (label, p, kind, marginal)) in arms.into_iter().enumerate() {
        let off = offset;
        let mut hook = |d: usize, _t: usize| progress(off + d, total);
        let r = tune(&p, kind, marginal, runs, seed, &mut cache, &mut hook)?;
        offset += per_arm[i];
        out.push(ArmResult {
            label,
            pseudo_obs: p.pseudo_obs,
            labelling: p.labelling,
            result: r,
            gain_vs_zeroth: None,
        });
    }
    if let Some(z) = out
        .iter()
        .find(|a| a.result.kind == PolicyKind::Zeroth)
        .map(|a| a.result.tuned.utilization)
    {
        for a in &mut out {
            if z > 0.0 {
                a.gain_vs_zeroth = Some(a.result.tuned.utilization / z - 1.0);
            }
        }
    }
    Ok(ExperimentResult {
        preset: preset.name().into(),
        runs,
        seed,
        params: base.clone(),
        arms: out,
    })
}
