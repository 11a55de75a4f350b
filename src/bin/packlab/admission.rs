//! CLI handlers of the admission model (seed 000, ALGORITHMS.md §2): `packlab admission tune`, `packlab admission
//! moments` and `packlab admission fit` (App. B maximum-likelihood fit to Azure data); the earlier names `packlab
//! admit`, `admit-moments` and `admit-fit` are hidden aliases with the same output.

use packlab::input::gzip;
use packlab::models::admission::experiment::{run_preset, run_section};
use packlab::models::admission::fit::{fit_azure_arrivals, fit_vmtable, AzureFit, FitOptions};
use packlab::models::admission::importance::ImportancePlan;
use packlab::models::admission::lead_time::{LeadTimeCounts, LEAD_BUCKET_LABELS};
use packlab::models::admission::load::cluster_share_rate;
use packlab::models::admission::moments::{
    known_moments, posterior_moments, AliveMode, Belief, Gamma, MomentConfig, MomentMode,
};
use packlab::models::admission::params::AdmitParams;
use packlab::models::admission::params::{PolicyKind, PolicySpec};
use packlab::models::admission::scenario::ParamSource;
use packlab::models::admission::sim::{lead_grid, simulate_runs, SimCache};
use packlab::models::admission::tuning::{
    summarise_weighted, ArmResult, Preset, RunPlan, TuneStatus,
};
use packlab::scenario::{Model, Scenario};
use packlab::workload::azure::arrivals::{
    read_arrivals_bundle, read_arrivals_files, write_arrivals_bundle, AzureArrivals, BUNDLE_MAGIC,
};
use packlab::workload::azure::vmtable::read_vmtable;
use std::path::Path;

/// The bundled derived Azure-2017 arrivals (static/traces/azure2017-arrivals.txt.gz; see ATTRIBUTION.md).
pub const AZURE_BUNDLE: &[u8] = include_bytes!("../../../static/traces/azure2017-arrivals.txt.gz");

/// `packlab admission tune`: run an experiment preset of ALGORITHMS.md §2.12 and print, per policy arm, the tuned
/// threshold, the utilization with its 95% BCa CI and the scale-out failure rate.
#[derive(clap::Args, Debug)]
pub struct AdmitArgs {
    /// Experiment preset: E0.1 (policies), E0.2 (prior information), E0.3 (MARGINAL ablation), E0.4 (labelling).
    #[arg(long, default_value = "E0.1")]
    pub preset: String,
    /// Runs R per threshold (common random numbers across policies and thresholds).
    #[arg(long, default_value_t = 8)]
    pub runs: usize,
    /// Policies, comma-separated: labels of the preset's arms (e.g. FIRST,SECOND; default every arm) and
    /// script:[NAME=]FILE (an admission rule of your own in the policy language, docs/policies.md; NAME
    /// defaults to the file's stem; the arm is script:NAME, tuned beside the preset's, and `--print-link`
    /// carries its source).
    #[arg(long)]
    pub policies: Option<String>,
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Run length in hours (default 26,280 = 3 years).
    #[arg(long)]
    pub hours: Option<f64>,
    /// Cluster capacity C in cores (default 20,000).
    #[arg(long)]
    pub capacity: Option<f64>,
    /// Deployment arrival rate per hour (default 1).
    #[arg(long)]
    pub arrival_rate: Option<f64>,
    /// SLA ε on the scale-out failure rate (default 1e-3).
    #[arg(long)]
    pub sla: Option<f64>,
    /// Binary-search iterations (default 14).
    #[arg(long)]
    pub iterations: Option<usize>,
    /// Bootstrap resamples for the BCa CI (default 10,000).
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Parameters from a JSON file (an AdmitParams object; missing fields take defaults); flags override it.
    #[arg(long, value_name = "PATH")]
    pub params: Option<std::path::PathBuf>,
    /// Use parameters fitted to Azure data (seed 000 App. B): without PATH the bundled Azure-2017 arrivals;
    /// PATH = an arrivals folder (Bergsma et al. layout), a bundle (.txt.gz) or a vmtable CSV. Applied after
    /// --params, before the other flags. ν, σ, κ keep their values unless a vmtable identifies them. The fitted
    /// arrival rate is a whole region's (Azure 2017: 619 deployments/h); unless --arrival-rate is given, the
    /// cluster gets the share of it that gives the §2.13 unconstrained-load ratio (≈ 1.37·C after 3 years).
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "")]
    pub azure: Option<String>,
    /// Importance sampling of runs (seed 000 App. D, ALGORITHMS.md §2.9): draw the R runs from badness
    /// buckets with the rejection scheme and weight them (defaults: 10,000 pre-draws, 500 pilot runs per
    /// bucket of SECOND at the mid threshold, mix 0.5). Off by default.
    #[arg(long)]
    pub importance: bool,
    /// Importance sampling: pilot simulation runs per badness bucket (default 500; 0 = no pilots, which
    /// gives plain sampling with weights 1). Needs --importance.
    #[arg(long, value_name = "N")]
    pub is_pilot: Option<usize>,
    /// Importance sampling: pre-draws whose badness sets the bucket bounds and probabilities (default
    /// 10,000; ≥ 1). Needs --importance.
    #[arg(long, value_name = "N")]
    pub is_predraws: Option<usize>,
    /// Variance-based payment rule (seed 000 §7.1, ALGORITHMS.md §2.11): per-hour payment
    /// `p_core·n + p_var·V̂` with V̂ the posterior-predictive Var[X] at 24 h; reports the mean payment of the
    /// arrivals and of the admitted deployments of FIRST and SECOND arms (E0.4: labelled vs unlabelled users).
    /// Off by default (then nothing is priced).
    #[arg(long, value_name = "P_CORE,P_VAR")]
    pub prices: Option<String>,
    /// Add each arm's per-run utilizations and run weights at the reported threshold to the JSON (for paired
    /// comparisons of arms on the same runs).
    #[arg(long)]
    pub run_detail: bool,
    /// Print the share link (`v2.d<k>.…`, the part after `#s=`) of the admission scenario these flags make
    /// (preset, runs, seed and every parameter, `--params` and `--azure` included), instead of tuning.
    #[arg(long)]
    pub print_link: bool,
    /// Instead of tuning, evaluate each arm at these thresholds (comma-separated; cores for ZEROTH/FIRST, the
    /// Cantelli ratio for SECOND) on the same R runs the tuning uses, and print one JSON object: per arm and
    /// threshold the utilization, failure counts, the 95% bounds and the SLA verdict of ALGORITHMS.md §2.8,
    /// each run's failures, and the MARGINAL counts (arrivals marginal somewhere, admissions it changed).
    #[arg(long, value_name = "T1,T2,...")]
    pub scan: Option<String>,
    /// Only the arm with this label (e.g. "FIRST+MARGINAL m=5"; default every arm): with --scan, evaluate it
    /// alone; otherwise tune it alone on the preset's runs and print its JSON object (needs --json; no
    /// comparison with ZEROTH; its utilization CI is bootstrapped with another seed than in the whole preset).
    #[arg(long, value_name = "LABEL")]
    pub arm: Option<String>,
    /// Instead of tuning, calibrate the MARGINAL constant ε_m (seed 000 App. E: with the global prior alone no
    /// deployment is marginal, with one observation few are): for the first N arrivals of the seed and
    /// m = 0, 1, 5, 50 pseudo-observations, the distribution of the candidate's smallest mean over the
    /// look-ahead and the share marginal somewhere at the current ε_m and at ε = 1e−9 … 1 (one per decade and
    /// the current value), with the suggested ε_m: the largest of those at which no m = 0 candidate and at most
    /// 10% of the m = 1 candidates are marginal (null if none), as JSON.
    #[arg(long, value_name = "N")]
    pub calibrate_eps: Option<usize>,
}

/// Share of the quantile levels of `--calibrate-eps` ("few" = 10% at m = 1).
const EPS_FEW: f64 = 0.10;

/// `packlab admission tune --calibrate-eps N` ([`AdmitArgs::calibrate_eps`]).
fn run_calibrate_eps(p: &AdmitParams, n: usize, seed: u64) -> Result<(), String> {
    if n == 0 {
        return Err("--calibrate-eps must be ≥ 1".into());
    }
    let q = |v: &[f64], f: f64| v[((f * v.len() as f64) as usize).min(v.len() - 1)];
    let mut per_m = Vec::new();
    for m in [0u32, 1, 5, 50] {
        let mut v = packlab::models::admission::sim::candidate_min_means(p, m, n, seed);
        v.sort_by(f64::total_cmp);
        per_m.push((m, v));
    }
    let m0_min = per_m[0].1[0];
    let below = |v: &[f64], e: f64| v.iter().filter(|x| **x < e).count() as f64 / v.len() as f64;
    let mut levels: Vec<f64> = (-9..=0).map(|k| 10f64.powi(k)).collect();
    levels.push(p.marginal_eps);
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let suggested = levels
        .iter()
        .copied()
        .filter(|&e| below(&per_m[0].1, e) == 0.0 && below(&per_m[1].1, e) <= EPS_FEW)
        .fold(None, |a: Option<f64>, e| Some(a.map_or(e, |a| a.max(e))));
    let out: Vec<serde_json::Value> = per_m
        .iter()
        .map(|(m, v)| {
            serde_json::json!({
                "m": m, "arrivals": v.len(), "min": v[0], "q01": q(v, 0.01), "q05": q(v, 0.05),
                "q10": q(v, 0.10), "q25": q(v, 0.25), "median": q(v, 0.5), "max": v[v.len() - 1],
                "share_marginal_current": below(v, p.marginal_eps),
                "share_zero": below(v, f64::MIN_POSITIVE),
                "share_marginal_at": levels.iter().map(|&e| [e, below(v, e)]).collect::<Vec<_>>(),
            })
        })
        .collect();
    let v = serde_json::json!({
        "seed": seed, "arrivals": n, "eps_current": p.marginal_eps, "global_prior_min": m0_min,
        "few": EPS_FEW, "eps_suggested": suggested, "per_m": out,
        "kappa": p.priors.kappa, "priors": p.priors,
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn load_params(a: &AdmitArgs) -> Result<AdmitParams, String> {
    let mut p = match &a.params {
        Some(path) => {
            let s =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::from_str::<AdmitParams>(&s).map_err(|e| {
                format!(
                    "{}: line {}, column {}: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                )
            })?
        }
        None => AdmitParams::default(),
    };
    if let Some(src) = &a.azure {
        let fit = fit_source(
            if src.is_empty() {
                None
            } else {
                Some(Path::new(src))
            },
            None,
            &FitOptions::default(),
        )?;
        fit.apply(&mut p);
        if a.arrival_rate.is_none() {
            // The fitted stream is a whole region's; run one cluster's share of it (ALGORITHMS.md §2.13 load
            // ratio, see packlab::models::admission::load). The capacity it is computed for is the final one.
            if let Some(c) = a.capacity {
                p.capacity = c;
            }
            let fitted = p.arrival_rate;
            p.arrival_rate = cluster_share_rate(&p, 300);
            eprintln!(
                "azure: fitted arrival rate {fitted:.1}/h is the whole region's; this cluster of {} cores \
                 gets the share with the §2.13 load ratio: {:.4}/h ({:.3}% of the stream; --arrival-rate overrides)",
                p.capacity,
                p.arrival_rate,
                100.0 * p.arrival_rate / fitted
            );
        }
    }
    if let Some(h) = a.hours {
        p.horizon_hours = h;
    }
    if let Some(c) = a.capacity {
        p.capacity = c;
    }
    if let Some(r) = a.arrival_rate {
        p.arrival_rate = r;
    }
    if let Some(s) = a.sla {
        p.sla = s;
    }
    if let Some(i) = a.iterations {
        p.tune_iterations = i;
    }
    if let Some(b) = a.bootstrap {
        p.bootstrap = b;
    }
    if !a.importance && (a.is_pilot.is_some() || a.is_predraws.is_some()) {
        return Err("--is-pilot and --is-predraws need --importance".into());
    }
    if a.importance {
        p.importance.enabled = true;
    }
    if let Some(n) = a.is_pilot {
        p.importance.pilot_runs_per_bucket = n;
    }
    if let Some(n) = a.is_predraws {
        if n == 0 {
            return Err("--is-predraws must be ≥ 1".into());
        }
        p.importance.pre_draws = n;
    }
    if let Some(pr) = &a.prices {
        let v = parse_list(pr, "--prices")?;
        if v.len() != 2 {
            return Err(format!(
                "--prices needs two numbers P_CORE,P_VAR (got {})",
                v.len()
            ));
        }
        let mut pricing = p.pricing.unwrap_or_default();
        pricing.p_core = v[0];
        pricing.p_var = v[1];
        p.pricing = Some(pricing);
    }
    p.validate()?;
    Ok(p)
}

/// The variance-based payments of one arm (ALGORITHMS.md §2.11) in `packlab admission tune --json`.
fn pricing_json(
    pr: &packlab::models::admission::params::Pricing,
    s: &packlab::models::admission::tuning::PricingSummary,
) -> serde_json::Value {
    serde_json::json!({
        "p_core": pr.p_core, "p_var": pr.p_var, "lead_hours": pr.lead_hours,
        "arrivals": s.arrivals, "arrival_mean_cores": s.arrival_mean_cores,
        "arrival_mean_var": s.arrival_mean_var,
        "arrival_mean_payment": pr.payment(s.arrival_mean_cores, s.arrival_mean_var),
        "admitted": s.admitted, "admitted_mean_cores": s.admitted_mean_cores,
        "admitted_mean_var": s.admitted_mean_var,
        "admitted_mean_payment": pr.payment(s.admitted_mean_cores, s.admitted_mean_var),
    })
}

/// The importance-sampling diagnostics of one arm in `packlab admission tune --json` (ALGORITHMS.md §2.9).
fn importance_json(is: &ImportancePlan) -> serde_json::Value {
    let d = &is.diagnostics;
    serde_json::json!({
        "p": is.p, "p_se": d.p_se, "q": is.q, "rho": is.rho, "accept": is.accept,
        "bucket_weights": is.bucket_weights, "bounds": is.bounds,
        "run_weights": is.weights, "run_buckets": is.buckets,
        "effective_sample_size": d.effective_sample_size,
        "pre_draws": d.pre_draws, "pre_draw_counts": d.pre_draw_counts,
        "pilot_threshold": d.pilot_threshold, "pilot_runs": d.pilot_runs,
        "pilot_extra_draws": d.pilot_extra_draws,
        "pilot_failures_per_run": d.pilot_failures_per_run,
        "pilot_failure_rate": d.pilot_failure_rate,
        "nominal_fallback": d.nominal_fallback, "candidates": d.candidates,
    })
}

/// The lead-time diagnostic of one evaluation in `packlab admission tune --json` (issue 32): rejections of the moment
/// test without MARGINAL, their first failing lead time per bucket (counts and shares) and how many fail
/// without the candidate.
fn lead_time_json(l: &LeadTimeCounts) -> serde_json::Value {
    serde_json::json!({
        "rejections": l.rejections, "buckets": LEAD_BUCKET_LABELS, "first_failure": l.first_failure,
        "first_failure_share": l.shares(), "without_candidate": l.without_candidate,
        "without_candidate_share": l.without_candidate_share(),
    })
}

/// Share (0–1) of all core-hours `Σ_runs ∫N dt = utilization·C·T·R` (mean utilization over the runs) that
/// the deployments MARGINAL admitted used (0 without core-hours).
fn marginal_share(t: &packlab::models::admission::tuning::Evaluation, p: &AdmitParams) -> f64 {
    let total = t.utilization * p.capacity * p.horizon_hours * t.run_utilization.len() as f64;
    if total > 0.0 {
        t.marginal.core_hours / total
    } else {
        0.0
    }
}

/// One line of the lead-time diagnostic for the text output of `packlab admission tune`.
fn lead_time_line(label: &str, l: &LeadTimeCounts) -> String {
    let parts: Vec<String> = LEAD_BUCKET_LABELS
        .iter()
        .zip(l.shares())
        .map(|(b, s)| format!("{b} {:.1}%", 100.0 * s))
        .collect();
    format!(
        "{label}: first failing lead time of {} rejections: {}; {:.1}% fail without the candidate",
        l.rejections,
        parts.join(", "),
        100.0 * l.without_candidate_share()
    )
}

/// The status as printed and in JSON: `tuned`, `untunable` or `bound`.
fn status_name(s: TuneStatus) -> &'static str {
    match s {
        TuneStatus::Tuned => "tuned",
        TuneStatus::Untunable => "untunable",
        TuneStatus::Bound => "bound",
    }
}

/// One arm of `packlab admission tune --json` (`sla` for the verdict of each evaluated threshold); `importance` only
/// when importance sampling was on.
fn arm_json(a: &ArmResult, p: &AdmitParams, run_detail: bool) -> serde_json::Value {
    let sla = p.sla;
    let t = &a.result.tuned;
    let mut v = serde_json::json!({
        "label": a.label, "policy": a.result.policy, "pseudo_obs": a.pseudo_obs,
        "labelling": a.labelling, "status": status_name(a.result.status),
        "status_reason": a.result.status_reason, "threshold": a.result.threshold,
        "admitted": t.accepted, "arrivals": t.arrivals, "requests": t.requests, "failures": t.failures,
        "utilization": a.result.tuned.utilization,
        "utilization_ci": [a.result.utilization_ci.0, a.result.utilization_ci.1],
        "failure_rate": a.result.tuned.failure_rate,
        "failure_rate_upper95": a.result.tuned.failure_rate_upper,
        "monthly_failure_rate": a.result.tuned.monthly_failure_rate,
        "runs_with_failure": a.result.tuned.runs_with_failure,
        "gain_vs_zeroth": a.gain_vs_zeroth,
        "failure_rate_upper95_delta": a.result.tuned.failure_rate_upper_delta,
        "failure_rate_upper95_exact": a.result.tuned.failure_rate_upper_exact,
        "sweep": a.result.sweep.iter().map(|e| serde_json::json!({
            "threshold": e.threshold, "utilization": e.utilization, "failure_rate": e.failure_rate,
            "failure_rate_upper95": e.failure_rate_upper, "admitted": e.accepted,
            "requests": e.requests, "failures": e.failures, "verdict": e.feasibility(sla),
        })).collect::<Vec<_>>(),
    });
    if let Some(is) = &a.importance {
        v["importance"] = importance_json(is);
    }
    if let (Some(pr), Some(ps)) = (&p.pricing, &t.pricing) {
        v["pricing"] = pricing_json(pr, ps);
    }
    if a.result.marginal {
        v["marginal_candidates"] = serde_json::json!(t.marginal.candidates);
        v["marginal_accepts"] = serde_json::json!(t.marginal.accepts);
        v["marginal_closest"] = serde_json::json!(t.marginal.closest);
        v["marginal_core_hours"] = serde_json::json!(t.marginal.core_hours);
        v["marginal_core_hours_share"] = serde_json::json!(marginal_share(t, p));
    }
    if !t.lead_time.is_empty() {
        v["lead_time"] = lead_time_json(&t.lead_time);
    }
    if let Some(e) = &a.result.error {
        v["error"] = serde_json::json!(e);
    }
    if run_detail {
        v["run_utilization"] = serde_json::json!(t.run_utilization);
        v["run_weights"] = serde_json::json!(t.run_weights);
    }
    v
}

/// The admission scenario of `packlab admission tune`'s flags (ALGORITHMS.md §2.12): the preset, the runs R, the
/// seed and the parameters of [`load_params`]; both the run and `--print-link` are made from it. Errors name
/// the flag.
fn admit_scenario(a: &AdmitArgs) -> Result<Scenario, String> {
    let preset = Preset::parse(&a.preset)?;
    if a.runs == 0 {
        return Err("--runs must be ≥ 1".into());
    }
    let mut sc = Scenario {
        model: Model::Admission,
        seed: a.seed,
        ..Scenario::default()
    };
    sc.admission.preset = preset.name().into();
    sc.admission.runs = a.runs;
    sc.admission.source = if a.azure.is_some() {
        ParamSource::Azure
    } else {
        ParamSource::Custom
    };
    sc.admission.params = load_params(a)?;
    for name in a
        .policies
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|x| !x.is_empty())
    {
        match name.strip_prefix("script:") {
            // a script file travels in the scenario (and its link) as admission.scripts
            Some(file) => sc
                .admission
                .scripts
                .push(crate::common::script_file(file, "--policies script:")?),
            None => sc.admission.policies.push(name.to_string()),
        }
    }
    if let Some(e) = sc.admission.validate("admission.").first() {
        if a.policies.is_some() {
            return Err(format!("--policies: {e}"));
        }
    }
    Ok(sc)
}

/// Handler of `packlab admission tune`. Errors are one-line strings.
pub fn run_admit(args: &AdmitArgs) -> Result<(), String> {
    let sc = admit_scenario(args)?;
    if args.print_link {
        if args.scan.is_some() {
            return Err(crate::common::not_in_scenario(
                "--scan",
                "a diagnostic of given thresholds",
            ));
        }
        if args.arm.is_some() {
            return Err(crate::common::not_in_scenario(
                "--arm",
                "one arm of the preset alone",
            ));
        }
        return crate::common::print_link(&sc);
    }
    if args.policies.is_some() && (args.scan.is_some() || args.arm.is_some()) {
        return Err(
            "--policies picks the arms of a whole tuning; --scan and --arm pick their own".into(),
        );
    }
    let p = &sc.admission.params;
    if let Some(n) = args.calibrate_eps {
        return run_calibrate_eps(p, n, sc.seed);
    }
    if let Some(list) = &args.scan {
        return run_scan(
            sc.admission.preset()?,
            p,
            args,
            &parse_list(list, "--scan")?,
        );
    }
    if let Some(label) = &args.arm {
        return run_one_arm(sc.admission.preset()?, p, args, label);
    }
    let mut progress = crate::progress::Progress::new("packlab admission tune", "simulation runs");
    let res = if args.policies.is_some() {
        run_section(&sc.admission, sc.seed, &mut |d, t| progress.update(d, t))
    } else {
        run_preset(
            sc.admission.preset()?,
            p,
            sc.admission.runs,
            sc.seed,
            &mut |d, t| progress.update(d, t),
        )
    };
    progress.finish();
    let res = res?;
    if args.json {
        let v = serde_json::json!({
            "preset": res.preset, "runs": res.runs, "seed": res.seed,
            "capacity": p.capacity, "hours": p.horizon_hours, "sla": p.sla,
            "arms": res.arms.iter().map(|a| arm_json(a, p, args.run_detail)).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "{} — {} runs of {} h, C = {} cores, SLA {}",
            res.preset, res.runs, p.horizon_hours, p.capacity, p.sla
        );
        println!(
            "{:<26} {:>10} {:>12} {:>10} {:>21} {:>12} {:>13} {:>9}",
            "policy",
            "status",
            "threshold",
            "util",
            "95% BCa CI",
            "fail rate",
            "admitted",
            "vs ZEROTH"
        );
        for a in &res.arms {
            let r = &a.result;
            println!(
                "{:<26} {:>10} {:>12.6} {:>10.4} [{:>8.4}, {:>8.4}] {:>12.3e} {:>13} {:>9}",
                a.label,
                status_name(r.status),
                r.threshold,
                r.tuned.utilization,
                r.utilization_ci.0,
                r.utilization_ci.1,
                r.tuned.failure_rate,
                format!("{}/{}", r.tuned.accepted, r.tuned.arrivals),
                a.gain_vs_zeroth
                    .map(|g| format!("{:+.1}%", 100.0 * g))
                    .unwrap_or_default()
            );
        }
        for a in &res.arms {
            let t = &a.result.tuned;
            if !t.lead_time.is_empty() {
                println!("{}", lead_time_line(&a.label, &t.lead_time));
            }
            if a.result.marginal {
                println!(
                    "{}: MARGINAL admitted {} deployments ({:.0} core-hours, {:.3}% of ∫N dt)",
                    a.label,
                    t.marginal.accepts,
                    t.marginal.core_hours,
                    100.0 * marginal_share(t, p)
                );
            }
        }
        if let Some(pr) = &p.pricing {
            for a in &res.arms {
                if let Some(s) = &a.result.tuned.pricing {
                    println!(
                        "{}: payment per hour (p_core {}, p_var {}, V̂ = Var[X_{}h]): arrivals {:.4} (mean n0 {:.3}, V̂ {:.3}), admitted {:.4} (n0 {:.3}, V̂ {:.3})",
                        a.label, pr.p_core, pr.p_var, pr.lead_hours,
                        pr.payment(s.arrival_mean_cores, s.arrival_mean_var),
                        s.arrival_mean_cores, s.arrival_mean_var,
                        pr.payment(s.admitted_mean_cores, s.admitted_mean_var),
                        s.admitted_mean_cores, s.admitted_mean_var
                    );
                }
            }
        }
        for a in res
            .arms
            .iter()
            .filter(|a| a.result.status == TuneStatus::Untunable)
        {
            println!("{}: {}", a.label, a.result.status_reason);
        }
        if let Some(is) = res.arms.iter().find_map(|a| a.importance.as_ref()) {
            let d = &is.diagnostics;
            println!(
                "importance sampling (§2.9, shared by all arms): P = [{:.4}, {:.4}, {:.4}], ρ = [{:.4}, {:.4}, {:.4}], \
                 bucket weights [{:.3}, {:.3}, {:.3}], ESS {:.1} of {}, pilot failures/run [{:.3}, {:.3}, {:.3}]",
                is.p[0], is.p[1], is.p[2], is.rho[0], is.rho[1], is.rho[2],
                is.bucket_weights[0], is.bucket_weights[1], is.bucket_weights[2],
                d.effective_sample_size, is.seeds.len(),
                d.pilot_failures_per_run[0], d.pilot_failures_per_run[1], d.pilot_failures_per_run[2]
            );
        }
    }
    Ok(())
}

/// `packlab admission tune --arm LABEL` (without --scan): tune one arm of `preset` on the preset's run plan
/// ([`packlab::models::admission::experiment::tune`]) and print its `--json` object.
fn run_one_arm(
    preset: Preset,
    p: &AdmitParams,
    args: &AdmitArgs,
    label: &str,
) -> Result<(), String> {
    if !args.json {
        return Err("--arm without --scan needs --json".into());
    }
    let arms = preset.arms(p);
    let (_, ap, kind, marginal) = arms.iter().find(|a| a.0 == label).ok_or_else(|| {
        let labels: Vec<&str> = arms.iter().map(|a| a.0.as_str()).collect();
        format!(
            "--arm: no arm '{label}' in {} (arms: {})",
            preset.name(),
            labels.join(", ")
        )
    })?;
    let mut progress =
        crate::progress::Progress::new("packlab admission tune --arm", "simulation runs");
    let r = packlab::models::admission::experiment::tune(
        ap,
        *kind,
        *marginal,
        args.runs,
        args.seed,
        &mut SimCache::default(),
        &mut |d, t| progress.update(d, t),
    );
    progress.finish();
    let a = ArmResult {
        label: label.to_string(),
        pseudo_obs: ap.pseudo_obs,
        labelling: ap.labelling,
        result: r?,
        gain_vs_zeroth: None,
        importance: None,
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&arm_json(&a, ap, args.run_detail))
            .map_err(|e| e.to_string())?
    );
    Ok(())
}

/// `packlab admission tune --scan`: every (selected) arm of `preset` evaluated at `thresholds` on the run plan its tuning
/// uses ([`RunPlan::build`], common random numbers), as one JSON object on stdout.
fn run_scan(
    preset: Preset,
    p: &AdmitParams,
    args: &AdmitArgs,
    thresholds: &[f64],
) -> Result<(), String> {
    if thresholds.is_empty() {
        return Err("--scan: no threshold given".into());
    }
    let arms: Vec<_> = preset
        .arms(p)
        .into_iter()
        .filter(|a| a.2 != PolicyKind::AcceptIfFits)
        .filter(|a| args.arm.as_ref().is_none_or(|l| *l == a.0))
        .collect();
    if arms.is_empty() {
        let labels: Vec<String> = preset.arms(p).into_iter().map(|a| a.0).collect();
        return Err(format!(
            "--arm: no arm '{}' in {} (arms: {})",
            args.arm.as_deref().unwrap_or(""),
            preset.name(),
            labels.join(", ")
        ));
    }
    let mut cache = SimCache::default();
    let mut progress =
        crate::progress::Progress::new("packlab admission tune --scan", "simulation runs");
    let mut out = Vec::new();
    for (label, ap, kind, marginal) in &arms {
        let plan = RunPlan::build(ap, args.runs, args.seed, &mut cache, &mut |_, _| true)?;
        let mut evs = Vec::new();
        for &th in thresholds {
            let spec = PolicySpec {
                kind: *kind,
                threshold: th,
                marginal: *marginal,
            };
            let grid = lead_grid(ap);
            let runs = simulate_runs(ap, spec, &plan.seeds, &grid, &mut cache, &mut |_| true)
                .ok_or("cancelled")?;
            let e = summarise_weighted(th, &runs, &plan.weights);
            evs.push(serde_json::json!({
                "threshold": th, "utilization": e.utilization, "failure_rate": e.failure_rate,
                "failure_rate_upper95": e.failure_rate_upper,
                "failure_rate_upper95_delta": e.failure_rate_upper_delta,
                "failure_rate_upper95_exact": e.failure_rate_upper_exact,
                "verdict": e.feasibility(ap.sla), "admitted": e.accepted, "arrivals": e.arrivals,
                "requests": e.requests, "failures": e.failures,
                "run_failures": runs.iter().map(|r| r.failures).collect::<Vec<_>>(),
                "marginal_candidates": e.marginal.candidates, "marginal_accepts": e.marginal.accepts,
                "marginal_closest": e.marginal.closest,
                "marginal_core_hours": e.marginal.core_hours,
                "lead_time": lead_time_json(&e.lead_time),
            }));
            progress.update(
                out.len() * thresholds.len() + evs.len(),
                arms.len() * thresholds.len(),
            );
        }
        out.push(serde_json::json!({
            "label": label, "pseudo_obs": ap.pseudo_obs, "marginal": marginal, "evaluations": evs,
        }));
    }
    progress.finish();
    let v = serde_json::json!({
        "preset": preset.name(), "runs": args.runs, "seed": args.seed, "capacity": p.capacity,
        "arrival_rate": p.arrival_rate, "hours": p.horizon_hours, "sla": p.sla, "arms": out,
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
    );
    Ok(())
}

/// `packlab admission moments`: E[X_t] and Var[X_t] of one deployment (ALGORITHMS.md §2.4, §2.6.3) as a JSON
/// array of `{"t", "mean", "var"}`; t in hours.
#[derive(clap::Args, Debug)]
pub struct MomentsArgs {
    /// Current active cores n0 (≥ 0).
    #[arg(long)]
    pub n0: u32,
    /// Known per-core death rate λ (per hour). Use with --nu and --sigma.
    #[arg(long)]
    pub lambda: Option<f64>,
    /// Known normalised scale-out rate ν (scale-out rate ν·λ per hour).
    #[arg(long)]
    pub nu: Option<f64>,
    /// Known scale-out size parameter σ (size 1 + Poisson(σ) cores).
    #[arg(long)]
    pub sigma: Option<f64>,
    /// Gamma posteriors instead of known parameters: A_L,B_L,A_NU,B_NU,A_S,B_S (shape, rate).
    #[arg(long, value_name = "A_L,B_L,A_NU,B_NU,A_S,B_S")]
    pub posterior: Option<String>,
    /// Kill factor κ (maximum lifetime Exp(λ/κ)).
    #[arg(long)]
    pub kappa: f64,
    /// Lead times in hours, comma-separated.
    #[arg(long, value_name = "T1,T2,...")]
    pub t: String,
    /// Moment formula: canonical | factorised | no-absorption.
    #[arg(long, default_value = "canonical")]
    pub mode: String,
    /// Alive probability method: volterra | hazard.
    #[arg(long, default_value = "volterra")]
    pub alive: String,
    /// Use the fast quadrature (8, 4, 2) instead of (16, 8, 4).
    #[arg(long)]
    pub fast: bool,
    /// Print JSON (the only output format; accepted for symmetry).
    #[arg(long)]
    pub json: bool,
}

fn parse_list(s: &str, what: &str) -> Result<Vec<f64>, String> {
    s.split(',')
        .enumerate()
        .map(|(i, x)| {
            let v: f64 = x
                .trim()
                .parse()
                .map_err(|_| format!("{what}: item {} '{}' is not a number", i + 1, x.trim()))?;
            if !v.is_finite() {
                return Err(format!("{what}: item {} is not finite", i + 1));
            }
            Ok(v)
        })
        .collect()
}

/// Handler of `packlab admission moments`. Errors are one-line strings.
pub fn run_moments(a: &MomentsArgs) -> Result<(), String> {
    let t = parse_list(&a.t, "--t")?;
    if t.is_empty() || t.iter().any(|x| *x < 0.0) {
        return Err("--t: lead times must be ≥ 0 hours".into());
    }
    if !(a.kappa.is_finite() && a.kappa > 0.0) {
        return Err(format!("--kappa must be > 0 (got {})", a.kappa));
    }
    let mode = match a.mode.as_str() {
        "canonical" => MomentMode::Canonical,
        "factorised" | "factorized" | "paper" => MomentMode::PaperFactorised,
        "no-absorption" | "unabsorbed" => MomentMode::NoAbsorption,
        o => {
            return Err(format!(
                "--mode: unknown '{o}' (canonical, factorised, no-absorption)"
            ))
        }
    };
    let alive = match a.alive.as_str() {
        "volterra" => AliveMode::Volterra,
        "hazard" => AliveMode::Hazard,
        o => return Err(format!("--alive: unknown '{o}' (volterra, hazard)")),
    };
    let out = match (&a.posterior, a.lambda, a.nu, a.sigma) {
        (Some(ps), None, None, None) => {
            let v = parse_list(ps, "--posterior")?;
            if v.len() != 6 || v.iter().any(|x| *x <= 0.0) {
                return Err(
                    "--posterior needs six positive numbers A_L,B_L,A_NU,B_NU,A_S,B_S".into(),
                );
            }
            let b = Belief {
                n0: a.n0,
                lambda: Gamma::new(v[0], v[1]),
                nu: Gamma::new(v[2], v[3]),
                sigma: Gamma::new(v[4], v[5]),
            };
            let base = if a.fast {
                MomentConfig::fast()
            } else {
                MomentConfig::default()
            };
            posterior_moments(
                &b,
                a.kappa,
                &t,
                &MomentConfig {
                    mode,
                    alive,
                    ..base
                },
            )
        }
        (None, Some(l), Some(n), Some(s)) => {
            if !(l > 0.0 && l.is_finite())
                || !(n >= 0.0 && n.is_finite())
                || !(s >= 0.0 && s.is_finite())
            {
                return Err("--lambda must be > 0, --nu and --sigma ≥ 0".into());
            }
            known_moments(a.n0, l, n, s, a.kappa, &t, alive, mode)
        }
        _ => return Err(
            "give either --lambda, --nu and --sigma (known parameters) or --posterior (not both)"
                .into(),
        ),
    };
    println!(
        "{}",
        serde_json::to_string(&out).map_err(|e| e.to_string())?
    );
    Ok(())
}

/// `packlab admission fit`: maximum-likelihood fit of the admission model to Azure data (seed 000 App. B) and
/// print the report (estimates with standard errors; JSON with --json).
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// Arrivals folder (Bergsma et al. layout: maps/flav_map.txt, maps/v1.interval_map.txt,
    /// traces/<p>.txt + <p>.c<cut>.txt) or a derived bundle (.txt.gz). Default: the bundled arrivals.
    #[arg(long, value_name = "PATH", conflicts_with = "vmtable")]
    pub arrivals: Option<std::path::PathBuf>,
    /// Azure vmtable CSV (2017 V1 or 2019 V2 schema, with deployment ids).
    #[arg(long, value_name = "PATH")]
    pub vmtable: Option<std::path::PathBuf>,
    /// Fit only this split of the arrivals (e.g. dev, test); default all splits pooled.
    #[arg(long)]
    pub split: Option<String>,
    /// Count each VM once in the lifetime likelihood instead of once per core.
    #[arg(long)]
    pub per_vm: bool,
    /// Also write the derived bundle of the arrivals read (gzip) to this path (how
    /// static/traces/azure2017-arrivals.txt.gz is made).
    #[arg(long, value_name = "OUT")]
    pub write_bundle: Option<std::path::PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Reads an arrivals folder (its files and those of its immediate subfolders) or a bundle file.
fn load_arrivals(path: Option<&Path>) -> Result<AzureArrivals, String> {
    let Some(path) = path else {
        return read_arrivals_bundle("azure2017-arrivals.txt.gz (bundled)", AZURE_BUNDLE)
            .map_err(|e| e.to_string());
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        return read_arrivals_bundle(&path.display().to_string(), &b).map_err(|e| e.to_string());
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    for sub in std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))? {
        let p = sub.map_err(|e| format!("{}: {e}", path.display()))?.path();
        if p.is_dir() {
            dirs.push(p);
        }
    }
    for d in dirs {
        let mut names: Vec<_> = std::fs::read_dir(&d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "txt"))
            .collect();
        names.sort();
        for p in names {
            let t = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            files.push((p.display().to_string(), t));
        }
    }
    let src = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| path.display().to_string());
    read_arrivals_files(&src, &files).map_err(|e| e.to_string())
}

/// Fits from an arrivals folder / bundle (or the bundled arrivals when `path` is None) or a vmtable CSV.
fn fit_source(
    path: Option<&Path>,
    split: Option<&str>,
    opts: &FitOptions,
) -> Result<AzureFit, String> {
    if let Some(p) = path {
        if p.is_file() {
            let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let is_bundle = b.starts_with(&[0x1f, 0x8b]) || b.starts_with(BUNDLE_MAGIC.as_bytes());
            if !is_bundle {
                let text =
                    String::from_utf8(b).map_err(|_| format!("{}: not UTF-8 text", p.display()))?;
                let t = read_vmtable(&p.display().to_string(), &text).map_err(|e| e.to_string())?;
                return fit_vmtable(&t, opts);
            }
        }
    }
    let mut d = load_arrivals(path)?;
    if let Some(s) = split {
        d.splits.retain(|x| x.name == s);
        if d.splits.is_empty() {
            return Err(format!("--split: no split named '{s}'"));
        }
    }
    fit_azure_arrivals(&d, opts)
}

/// Handler of `packlab admission fit`. Errors are one-line strings.
pub fn run_fit(a: &FitArgs) -> Result<(), String> {
    let opts = FitOptions {
        per_core: !a.per_vm,
    };
    if let Some(out) = &a.write_bundle {
        if a.vmtable.is_some() {
            return Err("--write-bundle needs --arrivals (a folder)".into());
        }
        let d = load_arrivals(a.arrivals.as_deref())?;
        std::fs::write(out, gzip(write_arrivals_bundle(&d).as_bytes()))
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let fit = match &a.vmtable {
        Some(v) => {
            if !v.is_file() {
                return Err(format!("{}: not a file", v.display()));
            }
            let text = std::fs::read_to_string(v).map_err(|e| format!("{}: {e}", v.display()))?;
            let t = read_vmtable(&v.display().to_string(), &text).map_err(|e| e.to_string())?;
            fit_vmtable(&t, &opts)?
        }
        None => {
            if let Some(p) = &a.arrivals {
                if p.is_file() {
                    let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
                    if !(b.starts_with(&[0x1f, 0x8b]) || b.starts_with(BUNDLE_MAGIC.as_bytes())) {
                        return Err(format!("{}: not an arrivals folder or bundle (use --vmtable for a vmtable CSV)", p.display()));
                    }
                }
            }
            fit_source(a.arrivals.as_deref(), a.split.as_deref(), &opts)?
        }
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&fit).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!("{}", fit.source);
    for s in &fit.splits {
        println!(
            "  {}: {:.2} h, {} deployments, {} VMs ({} censored), {} cores",
            s.name, s.window_hours, s.deployments, s.vms, s.censored_vms, s.cores
        );
    }
    println!(
        "arrival rate      {:.4} ± {:.4} per hour",
        fit.arrival_rate.value, fit.arrival_rate.se
    );
    println!(
        "initial size      mean {:.4} ± {:.4} cores; 1 + Poisson(σ0): σ0 = {:.4} ± {:.4}",
        fit.initial_size.mean_cores.value,
        fit.initial_size.mean_cores.se,
        fit.initial_size.poisson_sigma.value,
        fit.initial_size.poisson_sigma.se
    );
    let g = |n: &str, f: &Option<packlab::models::admission::fit::GammaFit>| match f {
        Some(f) => println!(
            "{n:<17} Γ(shape {:.5} ± {:.5}, rate {:.5} ± {:.5}), mean {:.5} ± {:.5}, corr {:.3}{}",
            f.shape.value,
            f.shape.se,
            f.rate.value,
            f.rate.se,
            f.mean.value,
            f.mean.se,
            f.correlation,
            if f.converged { "" } else { " (NOT converged)" }
        ),
        None => println!("{n:<17} not identified (default kept)"),
    };
    g("lambda (per h)", &fit.lambda);
    g("nu", &fit.nu);
    g("sigma", &fit.sigma);
    match &fit.kappa {
        Some(k) => println!("kappa             {:.4} ± {:.4}", k.value, k.se),
        None => println!("kappa             not identified (default kept)"),
    }
    for n in &fit.notes {
        println!("note: {n}");
    }
    Ok(())
}
