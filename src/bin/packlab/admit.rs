//! CLI handlers of the admission model (seed 000, ALGORITHMS.md §2): `packlab admit` and `packlab admit-moments`.

use packlab::admit::moments::{known_moments, posterior_moments, AliveMode, Belief, Gamma, MomentConfig, MomentMode};
use packlab::admit::params::AdmitParams;
use packlab::admit::tuning::{run_preset, Preset};

/// `packlab admit`: run an experiment preset of ALGORITHMS.md §2.12 and print, per policy arm, the tuned
/// threshold, the utilization with its 95% BCa CI and the scale-out failure rate.
#[derive(clap::Args, Debug)]
pub struct AdmitArgs {
    /// Experiment preset: E0.1 (policies), E0.2 (prior information), E0.3 (MARGINAL ablation), E0.4 (labelling).
    #[arg(long, default_value = "E0.1")]
    pub preset: String,
    /// Runs R per threshold (common random numbers across policies and thresholds).
    #[arg(long, default_value_t = 8)]
    pub runs: usize,
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
}

fn load_params(a: &AdmitArgs) -> Result<AdmitParams, String> {
    let mut p = match &a.params {
        Some(path) => {
            let s = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::from_str::<AdmitParams>(&s)
                .map_err(|e| format!("{}: line {}, column {}: {e}", path.display(), e.line(), e.column()))?
        }
        None => AdmitParams::default(),
    };
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
    p.validate()?;
    Ok(p)
}

/// Handler of `packlab admit`. Errors are one-line strings.
pub fn run_admit(args: &AdmitArgs) -> Result<(), String> {
    let preset = Preset::parse(&args.preset)?;
    if args.runs == 0 {
        return Err("--runs must be ≥ 1".into());
    }
    let p = load_params(args)?;
    let mut last = 0usize;
    let mut hook = |d: usize, t: usize| {
        if !args.json && (d * 20 / t.max(1)) != last {
            last = d * 20 / t.max(1);
            eprint!("\r{} runs of {}", d, t);
        }
        true
    };
    let res = run_preset(preset, &p, args.runs, args.seed, &mut hook)?;
    if args.json {
        let v = serde_json::json!({
            "preset": res.preset, "runs": res.runs, "seed": res.seed,
            "capacity": p.capacity, "hours": p.horizon_hours, "sla": p.sla,
            "arms": res.arms.iter().map(|a| serde_json::json!({
                "label": a.label, "policy": a.result.policy, "pseudo_obs": a.pseudo_obs,
                "labelling": a.labelling, "threshold": a.result.threshold,
                "utilization": a.result.tuned.utilization,
                "utilization_ci": [a.result.utilization_ci.0, a.result.utilization_ci.1],
                "failure_rate": a.result.tuned.failure_rate,
                "failure_rate_upper95": a.result.tuned.failure_rate_upper,
                "monthly_failure_rate": a.result.tuned.monthly_failure_rate,
                "runs_with_failure": a.result.tuned.runs_with_failure,
                "gain_vs_zeroth": a.gain_vs_zeroth,
                "sweep": a.result.sweep.iter().map(|e| serde_json::json!({
                    "threshold": e.threshold, "utilization": e.utilization, "failure_rate": e.failure_rate
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
    } else {
        eprintln!();
        println!("{} — {} runs of {} h, C = {} cores, SLA {}", res.preset, res.runs, p.horizon_hours, p.capacity, p.sla);
        println!("{:<26} {:>12} {:>10} {:>21} {:>12} {:>9}", "policy", "threshold", "util", "95% BCa CI", "fail rate", "vs ZEROTH");
        for a in &res.arms {
            println!(
                "{:<26} {:>12.6} {:>10.4} [{:>8.4}, {:>8.4}] {:>12.3e} {:>9}",
                a.label,
                a.result.threshold,
                a.result.tuned.utilization,
                a.result.utilization_ci.0,
                a.result.utilization_ci.1,
                a.result.tuned.failure_rate,
                a.gain_vs_zeroth.map(|g| format!("{:+.1}%", 100.0 * g)).unwrap_or_default()
            );
        }
    }
    Ok(())
}

/// `packlab admit-moments`: E[X_t] and Var[X_t] of one deployment (ALGORITHMS.md §2.4, §2.6.3) as a JSON
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
            let v: f64 = x.trim().parse().map_err(|_| format!("{what}: item {} '{}' is not a number", i + 1, x.trim()))?;
            if !v.is_finite() {
                return Err(format!("{what}: item {} is not finite", i + 1));
            }
            Ok(v)
        })
        .collect()
}

/// Handler of `packlab admit-moments`. Errors are one-line strings.
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
        o => return Err(format!("--mode: unknown '{o}' (canonical, factorised, no-absorption)")),
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
                return Err("--posterior needs six positive numbers A_L,B_L,A_NU,B_NU,A_S,B_S".into());
            }
            let b = Belief {
                n0: a.n0,
                lambda: Gamma::new(v[0], v[1]),
                nu: Gamma::new(v[2], v[3]),
                sigma: Gamma::new(v[4], v[5]),
            };
            let base = if a.fast { MomentConfig::fast() } else { MomentConfig::default() };
            posterior_moments(&b, a.kappa, &t, &MomentConfig { mode, alive, ..base })
        }
        (None, Some(l), Some(n), Some(s)) => {
            if !(l > 0.0 && l.is_finite()) || !(n >= 0.0 && n.is_finite()) || !(s >= 0.0 && s.is_finite()) {
                return Err("--lambda must be > 0, --nu and --sigma ≥ 0".into());
            }
            known_moments(a.n0, l, n, s, a.kappa, &t, alive, mode)
        }
        _ => return Err("give either --lambda, --nu and --sigma (known parameters) or --posterior (not both)".into()),
    };
    println!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
    Ok(())
}
