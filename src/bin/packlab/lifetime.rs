//! `packlab lifetime run`: the lifetime model (seed 003, ALGORITHMS.md §5) from the command line, through the
//! registry and the experiment contract (the same run the playground and `packlab run` make).

use crate::common::{
    named, print_link_with_workload, run_model, set_given, synthetic_arg, validated, workload_arg,
    Out, OutputArgs,
};
use packlab::models::lifetime::predictor::NoisyEstimate;
use packlab::models::lifetime::{LifetimeModel, LifetimeParams, Policy, PredictorKind};
use packlab::models::Inputs;
use packlab::scenario::{Model, Scenario, WorkloadRef};
use std::io::Write;

/// `packlab lifetime run`: simulate the policies on one pool's share of a workload.
#[derive(clap::Args, Debug)]
pub struct LifetimeArgs {
    /// The workload: a bundled id (`azure2017` = `azure2017-arrivals`, the default), a path (the Azure 2017
    /// arrivals folder or bundle, Azure vmtable CSV files, an Alibaba GPU 2023 folder), or the synthetic pool of
    /// ALGORITHMS.md §5.7, `synthetic[:hosts=H,weeks=W,target_allocation=A,start=steady|empty,seed=S]`
    /// (defaults 100 hosts, 7 weeks, 0.8, steady, the --seed; its split defaults to "" and its share to 1).
    #[arg(
        long,
        alias = "trace",
        value_name = "ID|PATH",
        default_value = "azure2017"
    )]
    pub workload: String,
    /// Policies, comma-separated: best-fit, la-binary, nilas, lava (best fit always runs as the baseline), and
    /// script:[NAME=]FILE (a host score in the policy language, docs/policies.md; NAME defaults to the file's
    /// stem; the run has the row script:NAME and `--print-link` carries its source).
    #[arg(long, default_value = "best-fit,la-binary,nilas,lava")]
    pub policies: String,
    /// Predictor: oracle | noisy:A | distributional | learned | one-shot:A (noisy at accuracy A without
    /// reprediction).
    #[arg(long, default_value = "oracle")]
    pub predictor: String,
    /// Turn reprediction off for any predictor (the one-shot ablation).
    #[arg(long)]
    pub no_reprediction: bool,
    /// The noisy predictor's point estimate from its posterior (ALGORITHMS.md §5.2): capped-mean (default;
    /// §5.2's posterior mean, T capped at 14 days) | median | mean (T uncapped).
    #[arg(long, default_value = "capped-mean")]
    pub noisy_estimate: String,
    /// The split simulated (`test` or `dev` of the Azure 2017 arrivals; empty = every VM).
    #[arg(long)]
    pub split: Option<String>,
    /// Ablation: the baseline scorer's host order, which NILAS and LAVA break ties with: best-fit (default) |
    /// first-fit | worst-fit.
    #[arg(long, default_value = "best-fit")]
    pub scorer: String,
    /// Ablation: NILAS's temporal-cost scale: stated (default; Alg. 2's bounds) | fine | binary.
    #[arg(long, default_value = "stated")]
    pub nilas_cost: String,
    /// Ablation: LAVA's deadline moves on a placement: ours (default) | no-open-move | no-cover | spec
    /// (ALGORITHMS.md §5.4's ON_PLACE: neither) | cost-first (ours, NILAS's temporal cost ranked ahead of
    /// LAVA's tiers).
    #[arg(long, default_value = "ours")]
    pub lava_rules: String,
    /// Fraction of tenant batches the pool receives, (0, 1].
    #[arg(long)]
    pub share: Option<f64>,
    /// Hosts in the pool.
    #[arg(long)]
    pub hosts: Option<usize>,
    /// With the pool sized to the share (no --hosts): the largest fraction of the pool the peak demand may
    /// fill, in (0, 1] (default 0.95; 1.0 is the fuller pool of the seed 003 findings' ablation).
    #[arg(long)]
    pub peak_allocation: Option<f64>,
    /// Cores per host.
    #[arg(long)]
    pub host_cores: Option<f64>,
    /// Memory per host, GB.
    #[arg(long)]
    pub host_memory: Option<f64>,
    /// Warm-up before measuring, hours.
    #[arg(long)]
    pub warmup_h: Option<f64>,
    /// NILAS host-exit cache refresh, seconds (0 = none).
    #[arg(long)]
    pub refresh_s: Option<f64>,
    /// Stranding sampling period, hours (0 = off).
    #[arg(long)]
    pub stranding_h: Option<f64>,
    /// Defragmentation with live migrations (E3.5): each policy in start-time order, then the same drains in
    /// the LARS order; prints both migration counts.
    #[arg(long)]
    pub defrag: bool,
    /// With --defrag: maintenance-style drains (App. H) of the fullest hosts, each once, instead of the
    /// 5%-empty-hosts rule.
    #[arg(long)]
    pub maintenance: bool,
    /// The warm-up of seed 003 App. F: the VMs alive at the window's start (created before it, outside the
    /// split) join the pool first, placed by best fit; without it the pool starts empty (App. G.2's ideal).
    #[arg(long)]
    pub alive_at_start: bool,
    /// With the pool sized to the share and starting empty: size it from the window's VMs and App. F's alive
    /// set together (the pool of `--alive-at-start`), so both settings compare on the same pool.
    #[arg(long)]
    pub size_with_alive: bool,
    /// Add each policy's placement and class counters (`diagnostics`: placements by tier, LA-Binary's class
    /// mix, LAVA's class changes, NILAS's temporal costs).
    #[arg(long)]
    pub diagnostics: bool,
    /// Seed (pool share, noisy predictions, inflation draws).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `--json` (one object per policy, without the hourly series), `--report`, `--print-link` (with
    /// `--model-metrics`, which has no scenario field: an error).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Instead of simulating: train the learned predictor on the VMs outside the split and print the model
    /// metrics (seed 003 §6.4–6.5, App. C; ALGORITHMS.md §5.8, E3.6) of it and of the Kaplan–Meier
    /// (distributional) predictor on every VM of the split, as JSON.
    #[arg(long)]
    pub model_metrics: bool,
    /// With --model-metrics: the cutoff of the long-lived class, hours.
    #[arg(long, default_value_t = 24.0)]
    pub long_h: f64,
    /// With --model-metrics: the learned model's feature groups, comma-separated (flavour, batch_size,
    /// batch_position, hour_of_day, day_of_week, recent_arrivals; all); default: all but day_of_week.
    #[arg(long, value_name = "GROUPS")]
    pub features: Option<String>,
    /// With --model-metrics: segments of the feature effects, their upper bounds in hours, comma-separated
    /// (multiples of 5 minutes; default none: proportional hazards).
    #[arg(long, value_name = "HOURS")]
    pub segments_h: Option<String>,
}

/// The learned model's settings from --features and --segments-h.
fn learned_spec(
    a: &LifetimeArgs,
) -> Result<packlab::models::lifetime::learned::LearnedSpec, String> {
    use packlab::models::lifetime::{features, hazard};
    let mut spec = packlab::models::lifetime::learned::LearnedSpec::default();
    if let Some(f) = &a.features {
        spec.groups = features::parse_groups(f).map_err(|e| format!("--features: {e}"))?;
    }
    if let Some(s) = &a.segments_h {
        spec.hazard.segment_bounds = s
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| match x.parse::<f64>() {
                Ok(h) if h.is_finite() && (0.0..=1e5).contains(&h) => {
                    Ok(hazard::steps_of_seconds(h * 3600.0))
                }
                _ => Err(format!(
                    "--segments-h: '{x}' is not a number of hours in [0, 1e5]"
                )),
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(spec)
}

fn params(a: &LifetimeArgs) -> Result<LifetimeParams, String> {
    let mut p = LifetimeParams {
        policies: Vec::new(),
        ..LifetimeParams::default()
    };
    for name in a
        .policies
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
    {
        if let Some(file) = name.strip_prefix("script:") {
            // a script file travels in the scenario (and its link) as lifetime.scripts
            let sp = crate::common::script_file(file, "--policies script:")?;
            p.policies.push(Policy::Script(sp.name.clone()));
            p.scripts.push(sp);
        } else {
            p.policies
                .push(Policy::parse(name).map_err(|e| format!("--policies: {e}"))?);
        }
    }
    let accuracy = |s: &str| -> Result<f64, String> {
        s.parse::<f64>()
            .map_err(|_| format!("--predictor: '{s}' is not an accuracy in [0, 1]"))
    };
    match a.predictor.split_once(':') {
        None if a.predictor == "oracle" => p.predictor = PredictorKind::Oracle,
        None if a.predictor == "distributional" => p.predictor = PredictorKind::Distributional,
        None if a.predictor == "learned" => p.predictor = PredictorKind::Learned,
        Some(("noisy", x)) => {
            p.predictor = PredictorKind::Noisy;
            p.accuracy = accuracy(x)?;
        }
        Some(("one-shot", x)) => {
            p.predictor = PredictorKind::Noisy;
            p.accuracy = accuracy(x)?;
            p.reprediction = false;
        }
        _ => {
            return Err(format!(
            "--predictor: unknown '{}' (expected oracle, noisy:A, distributional, learned or one-shot:A)",
            a.predictor
        ))
        }
    }
    if a.no_reprediction {
        p.reprediction = false;
    }
    p.noisy_estimate = match a.noisy_estimate.as_str() {
        "capped-mean" => NoisyEstimate::CappedMean,
        "median" => NoisyEstimate::Median,
        "mean" => NoisyEstimate::Mean,
        x => {
            return Err(format!(
                "--noisy-estimate: unknown '{x}' (expected capped-mean, median or mean)"
            ))
        }
    };
    p.ablation.scorer = named("scorer", &a.scorer, "best-fit, first-fit or worst-fit")?;
    p.ablation.nilas_cost = named("nilas-cost", &a.nilas_cost, "stated, fine or binary")?;
    p.ablation.lava_rules = named(
        "lava-rules",
        &a.lava_rules,
        "ours, no-open-move, no-cover, spec or cost-first",
    )?;
    p.defrag = a.defrag;
    p.maintenance = a.maintenance;
    p.alive_at_start = a.alive_at_start;
    p.size_with_alive = a.size_with_alive;
    p.diagnostics = a.diagnostics;
    if let Some(s) = &a.split {
        p.split = s.clone();
    }
    set_given!(
        p;
        share = a.share,
        hosts = a.hosts,
        peak_allocation = a.peak_allocation,
        host_cores = a.host_cores,
        host_memory_gb = a.host_memory,
        warmup_h = a.warmup_h,
        refresh_s = a.refresh_s,
        stranding_h = a.stranding_h
    );
    Ok(p)
}

/// Runs `packlab lifetime run`.
pub fn run(a: &LifetimeArgs) -> Result<(), String> {
    let mut lifetime = params(a)?;
    let (wref, path) = match synthetic_arg(&a.workload, a.seed) {
        Some(p) => {
            // a synthetic pool is one pool of single-VM batches: all of it, unless asked otherwise
            if a.split.is_none() {
                lifetime.split = String::new();
            }
            if a.share.is_none() {
                lifetime.share = 1.0;
            }
            (WorkloadRef::Synthetic(p?), None)
        }
        None => workload_arg(&a.workload, &[("azure2017", "azure2017-arrivals")]),
    };
    let sc = validated(Scenario {
        model: Model::Lifetime,
        workload: wref.clone(),
        seed: a.seed,
        lifetime,
        ..Scenario::default()
    })?;
    if a.output.print_link {
        if a.model_metrics {
            return Err(crate::common::not_in_scenario(
                "--model-metrics",
                "the model metrics are a CLI-only evaluation of the predictors, not a simulation",
            ));
        }
        return print_link_with_workload(sc, path.as_deref());
    }
    if a.model_metrics {
        let w = crate::load::load_facts(&wref, path.as_deref())?;
        let spec = learned_spec(a)?;
        let mut last = std::time::Instant::now();
        let mut err = std::io::stderr();
        let m = packlab::models::lifetime::model_metrics::model_metrics(
            &w,
            &sc.lifetime,
            a.long_h,
            &spec,
            &mut |phase| {
                let _ = writeln!(
                    err,
                    "lifetime: model metrics: {phase} in {:.2} s",
                    last.elapsed().as_secs_f64()
                );
                last = std::time::Instant::now();
            },
        )
        .map_err(|e| e.to_string())?;
        return writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        )
        .map_err(|e| e.to_string());
    }
    // the run reads the workload's compact records, read without a VM record per VM (issue 30)
    let facts = crate::load::load_facts(&sc.workload, path.as_deref())?;
    let inputs = Inputs {
        facts: Some(&facts),
        ..Default::default()
    };
    let rep = run_model::<LifetimeModel>(
        &sc.lifetime,
        sc.seed,
        &inputs,
        "packlab lifetime run",
        "policies",
    )?
    .1;
    let mut out = Out::new();
    // --json: one object per policy without the hourly series, with the predictor (and the pool when VMs
    // alive at the start were placed)
    let rows = || -> Vec<serde_json::Value> {
        rep.results
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.remove("empty_series");
                    o.insert("predictor".into(), rep.predictor.clone().into());
                    if rep.setup.alive_at_start > 0 {
                        o.insert("hosts".into(), rep.hosts.into());
                        o.insert("alive_at_start".into(), rep.setup.alive_at_start.into());
                        o.insert(
                            "alive_at_start_drawn".into(),
                            rep.setup.alive_at_start_drawn.into(),
                        );
                    }
                }
                v
            })
            .collect()
    };
    if let Some(done) = out.report_or_rows(&a.output, &rep, rows) {
        return done;
    }
    let s = &rep.setup;
    out.line(format!(
            "# {} split '{}': {} of {} VMs ({} of {} tenant batches), {:.1} h, warm-up {} h; {} hosts, {} cores / {} GB / {} GPUs in all; offered allocation {:.1}%; predictor {}",
            s.workload, s.split, s.vms, s.split_vms, s.batches, s.split_batches, s.window_h, rep.warmup_h,
            rep.hosts, rep.pool_capacity[0], rep.pool_capacity[1], rep.pool_capacity[2],
            100.0 * s.offered_allocation, rep.predictor
        ),
    )?;
    // the name column widens only for longer (script) names
    let w = rep
        .results
        .iter()
        .map(|r| r.policy.name().chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    out.line(format!("{:<w$}  empty%  Δpp_vs_bf  optimum%  empty/free  density  alloc%  strand_cpu%  strand_mem%  failures", "policy"))?;
    for r in &rep.results {
        if let Some(e) = &r.error {
            // a user's script that failed: its error, the rest of its run placed by best fit
            eprintln!("packlab lifetime run: {}: {e}", r.policy.name());
        }
        out.line(format!(
            "{:<w$} {:7.2} {:10.2} {:9.2} {:11.3} {:8.3} {:7.2} {:12.2} {:12.2} {:9}{}",
            r.policy.name(),
            100.0 * r.empty_hosts,
            r.empty_hosts_pp_vs_best_fit,
            100.0 * r.optimum_empty_hosts,
            r.empty_to_free,
            r.packing_density,
            100.0 * r.allocation,
            100.0 * r.stranded_cpu,
            100.0 * r.stranded_mem,
            r.failures,
            if r.error.is_some() {
                "  failed (then best fit)"
            } else {
                ""
            }
        ))?;
    }
    Ok(())
}
