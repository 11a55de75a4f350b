//! `packlab era run`: the reservation model (seed 004, ALGORITHMS.md §6) from the command line, through the
//! registry and the experiment contract (the same run the playground and `packlab run` make).

use crate::common::{
    list, named, print_link_with_workload, run_on_workload, set_given, validated, workload_arg,
    Out, OutputArgs,
};
use packlab::models::era::EraModel;
use packlab::models::era::{EraParams, NonEraLoad, Policy, Preset, PAPER_DATACENTER_CORES};
use packlab::scenario::{Model, Scenario};

/// `packlab era run`: compare the policies of a preset (E4.1 value efficiency, E4.3 late jobs vs revenue).
#[derive(clap::Args, Debug)]
pub struct EraArgs {
    /// The experiment: E4.1 (SWIM MapReduce jobs, value efficiency) or E4.3 (ERA's share of a datacenter
    /// beside real Azure load, late jobs vs revenue over κ_use).
    #[arg(long, default_value = "E4.3")]
    pub preset: String,
    /// The workload: a bundled id (`swim-fb2010`, the E4.1 default; `azure2017-arrivals`, the E4.3 default)
    /// or a path (a SWIM TSV for E4.1; Azure arrivals or vmtable files for E4.3's non-ERA load).
    #[arg(long, value_name = "ID|PATH")]
    pub workload: Option<String>,
    /// Policies, comma-separated: on-demand, greedy, basic-econ[:lp|:spread|:linear][:penalty] (default:
    /// the preset's), or script:[NAME=]FILE (a quote rule in the policy language, docs/policies.md; NAME
    /// defaults to the file's stem; the run has the policy script:NAME and `--print-link` carries its source).
    #[arg(long)]
    pub policies: Option<String>,
    /// Capacity fractions κ_use, comma-separated, in (0, 1] (default: the preset's).
    #[arg(long)]
    pub kappa: Option<String>,
    /// Prediction period, hours (the LP of each period is fitted on the previous one).
    #[arg(long)]
    pub period_h: Option<f64>,
    /// Bucket of the LP's time axis, minutes.
    #[arg(long)]
    pub lp_bucket_min: Option<f64>,
    /// E4.3: scheduled days after the history period.
    #[arg(long)]
    pub days: Option<f64>,
    /// E4.3: offered ERA work as a multiple of ERA's capacity.
    #[arg(long)]
    pub load: Option<f64>,
    /// E4.3: datacenter cores (ERA manages `era_share` of them) [default: 150000, the paper's; the playground's
    /// default scenario uses 100,000 so its view answers in seconds]
    #[arg(long)]
    pub datacenter_cores: Option<f64>,
    /// E4.3: the quantile of the Azure load's fluctuation the non-ERA share is provisioned for.
    #[arg(long)]
    pub nonera_quantile: Option<f64>,
    /// E4.3: synthetic non-ERA load (§6.5) instead of the Azure workload's.
    #[arg(long)]
    pub synthetic_load: bool,
    /// E4.1: capacity as a fraction of the mean offered load.
    #[arg(long)]
    pub capacity_frac: Option<f64>,
    /// What happens at the workload's end: open (the predictor assumes arrivals never stop; version 1),
    /// no-arrivals (the horizon-aware predictor, the default) or cut-windows (windows cut at the end).
    #[arg(long)]
    pub horizon: Option<String>,
    /// E4.1: the jobs: synthetic (the ALGORITHMS.md §6.5 generator, the paper's set-up; the default) or swim
    /// (the workload's SWIM jobs).
    #[arg(long)]
    pub jobs: Option<String>,
    /// E4.1: how C is set: runnable (work with widths clamped to C, over the arrival span plus the
    /// work-weighted mean window; the default) or arrivals (offered load over the arrival span; version 1).
    #[arg(long)]
    pub capacity_basis: Option<String>,
    /// E4.1 synthetic: jobs per class in the scheduled days.
    #[arg(long)]
    pub jobs_per_class: Option<f64>,
    /// E4.1 synthetic: scheduled days.
    #[arg(long)]
    pub synthetic_days: Option<f64>,
    /// E4.3: BASIC_ECON's price floor, as a multiple of p_full (stated 0.65); also greedy's fixed price unless
    /// --greedy-price is given.
    #[arg(long)]
    pub floor: Option<f64>,
    /// E4.3: greedy's fixed price, as a multiple of p_full (default: the floor).
    #[arg(long)]
    pub greedy_price: Option<f64>,
    /// Solve the LP predictor at κ_use·C instead of C.
    #[arg(long)]
    pub lp_at_kappa: bool,
    /// Seed (windows, values, E4.3 jobs, synthetic E4.1 jobs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// `--json` (one object per (policy, κ_use) with the §6.4 metrics), `--report`, `--print-link`.
    #[command(flatten)]
    pub output: OutputArgs,
}

fn params(a: &EraArgs) -> Result<EraParams, String> {
    let preset: Preset = named("preset", &a.preset.to_ascii_uppercase(), "E4.1 or E4.3")?;
    let mut p = EraParams {
        preset,
        ..EraParams::default()
    };
    if let Some(s) = &a.policies {
        for name in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            if let Some(file) = name.strip_prefix("script:") {
                // a script file travels in the scenario (and its link) as era.scripts
                let sp = crate::common::script_file(file, "--policies script:")?;
                p.policies.push(Policy::script(&sp.name));
                p.scripts.push(sp);
            } else {
                p.policies
                    .push(Policy::parse(name).map_err(|e| format!("--policies: {e}"))?);
            }
        }
    }
    if let Some(s) = &a.kappa {
        p.kappa = list(s, |x| {
            x.parse::<f64>()
                .map_err(|_| format!("--kappa: '{x}' is not a number"))
        })?;
    }
    if preset == Preset::E43 {
        p.datacenter_cores = a.datacenter_cores.unwrap_or(PAPER_DATACENTER_CORES);
    }
    if a.synthetic_load {
        p.nonera = NonEraLoad::Synthetic;
    }
    p.lp_at_kappa = a.lp_at_kappa;
    if a.greedy_price.is_some() {
        p.e43_greedy_price = a.greedy_price;
    }
    if let Some(h) = &a.horizon {
        p.horizon = named("horizon", h, "open, no-arrivals or cut-windows")?;
    }
    if let Some(j) = &a.jobs {
        p.jobs = named("jobs", j, "swim or synthetic")?;
    }
    if let Some(b) = &a.capacity_basis {
        p.capacity_basis = named("capacity-basis", b, "arrivals or runnable")?;
    }
    set_given!(
        p;
        period_h = a.period_h,
        lp_bucket_min = a.lp_bucket_min,
        days = a.days,
        load = a.load,
        nonera_quantile = a.nonera_quantile,
        capacity_frac = a.capacity_frac,
        jobs_per_class = a.jobs_per_class,
        synthetic_days = a.synthetic_days,
        e43_floor = a.floor
    );
    Ok(p)
}

/// Runs `packlab era run`.
pub fn run(a: &EraArgs) -> Result<(), String> {
    let era = params(a)?;
    let (wref, path) = workload_arg(a.workload.as_deref().unwrap_or(era.preset.workload()), &[]);
    let sc = validated(Scenario {
        model: Model::Era,
        workload: wref.clone(),
        seed: a.seed,
        era,
        ..Scenario::default()
    })?;
    if a.output.print_link {
        return print_link_with_workload(sc, path.as_deref());
    }
    let rep =
        run_on_workload::<EraModel>(&sc, &sc.era, path.as_deref(), "packlab era run", "cells")?;
    let mut out = Out::new();
    if let Some(done) = out.report_or_rows(&a.output, &rep, || &rep.cells) {
        return done;
    }
    let s = &rep.setup;
    out.line(format!(
            "# {} on '{}': {} requests scheduled ({} history), capacity {} units, offered {:.0} units/slot, actual capacity mean {:.1}% (min {:.1}%)",
            rep.preset, s.workload, s.requests, s.history_requests, s.capacity, s.offered_load,
            100.0 * s.actual_mean, 100.0 * s.actual_min
        ),
    )?;
    // the name column widens only for longer (script) names
    let w = rep
        .cells
        .iter()
        .map(|c| c.policy.chars().count())
        .max()
        .unwrap_or(0)
        .max(28);
    out.line(format!(
        "{:<w$}  κ_use  value_eff%  revenue_$      late%  util%  accepted/requests",
        "policy"
    ))?;
    for c in &rep.cells {
        if let Some(e) = &c.error {
            // a user's script that failed: its error; it quoted nothing from then on
            eprintln!("packlab era run: {} at κ_use {}: {e}", c.policy, c.kappa);
        }
        out.line(format!(
            "{:<w$} {:6.2} {:11.2} {:12.0} {:7.2} {:6.1}  {}/{}{}",
            c.policy,
            c.kappa,
            100.0 * c.value_efficiency,
            c.revenue,
            c.late_pct,
            100.0 * c.utilization,
            c.accepted,
            c.requests,
            if c.error.is_some() {
                "  failed (then no quotes)"
            } else {
                ""
            }
        ))?;
    }
    for p in &rep.paper {
        out.line(format!(
            "# paper (seed 004 §4): {} {} = {}",
            p.policy, p.metric, p.value
        ))?;
    }
    Ok(())
}
