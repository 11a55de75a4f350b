//! CLI handlers of the placement model (seed 002, ALGORITHMS.md §4): `packlab placement pack` and
//! `packlab placement frontier` (also reachable by their earlier names `packlab pack` / `packlab frontier`).

use crate::load::{load_trace, TraceArgs};
use clap::Args;
use packlab::models::placement::{self, FitSpec, Mode, PlacementParams, Rule};

#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Machine capacity c in VM units (1.0 = one VM's full CPU; > 0).
    #[arg(long, value_name = "C", default_value_t = placement::DEFAULT_CAPACITY, allow_negative_numbers = true)]
    pub capacity: f64,
    /// Packing rule: ff (First Fit) or bf (Best Fit).
    #[arg(long, value_name = "RULE", default_value = "bf")]
    pub rule: String,
    /// Clairvoyance ℓ in (0, 1]: statistics from the first ⌊ℓ·R⌋ samples, evaluation on the rest (1 = all).
    #[arg(
        long,
        value_name = "L",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    pub clairvoyance: f64,
    /// Turn rebalancing off (seed 002 Alg. 1; on by default).
    #[arg(long)]
    pub no_rebalance: bool,
    /// Realisations: aligned (column t = the same real interval for every VM) or resampled (R draws per VM
    /// from its own empirical distribution, seed 002 §3.1).
    #[arg(long, value_name = "MODE", default_value = "aligned")]
    pub mode: String,
    /// R, realisations per VM in resampled mode.
    #[arg(long, value_name = "R", default_value_t = 10_000)]
    pub realisations: usize,
    /// Seed of the resampling streams (integer 0..2^53).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Use a random subset of K of the trace's VMs (uniform without replacement, kept in trace order) as the
    /// instance, e.g. the random instances of the seed 002 protocols.
    #[arg(long, value_name = "K")]
    pub subset: Option<usize>,
    /// Seed of the random subset (integer 0..2^53).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub subset_seed: u64,
    /// A fit test of your own in the policy language (docs/policies.md): `FILE` or `NAME=FILE`
    /// (repeatable; NAME defaults to the file's stem). The frontier adds one point `script:NAME` per script;
    /// `pack --fit script:NAME` packs with it; `--print-link` carries its source.
    #[arg(long, value_name = "[NAME=]FILE")]
    pub script: Vec<String>,
    /// Print the share link (`v2.d<k>.…`, the part after `#s=`) of the placement scenario that runs these
    /// settings in the playground, instead of packing. A trace equal to a bundled one is referred to by its
    /// id, any other as an upload (name and SHA-256). `--subset` has no scenario field: an error.
    #[arg(long)]
    pub print_link: bool,
}

/// The trace of `--trace`, or its random subset with `--subset`.
fn instance_trace(t: &TraceArgs, m: &ModelArgs) -> Result<packlab::trace::UsageTrace, String> {
    if m.subset_seed > packlab::scenario::MAX_SEED {
        return Err(format!(
            "--subset-seed: must be at most {}",
            packlab::scenario::MAX_SEED
        ));
    }
    let trace = load_trace(t)?;
    match m.subset {
        None => Ok(trace),
        Some(k) => placement::random_subset(&trace, k, m.subset_seed)
            .map_err(|e| format!("--subset: {}", e.message)),
    }
}

#[derive(Args, Debug)]
pub struct PackArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Fit test: gpa:RHO (SLO, 0<RHO<1), gpa-cal:RHO (GPA calibrated on O for the target RHO), cantelli:B (B>=0), av:F (F>0), perc:P (P in 0..100 percent) or max.
    #[arg(long, value_name = "SPEC", default_value = "gpa:0.05")]
    pub fit: String,
    /// Print one JSON object (m_abs, m_norm, m, q, utilization, q_per_machine, items_per_machine).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct FrontierArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Families to sweep, comma-separated, of gpa, gpa-cal, av, perc, cantelli, max (default: all but gpa-cal).
    #[arg(long, value_name = "LIST")]
    pub families: Option<String>,
    /// Override a family's grid, e.g. `--grid gpa=0.1,0.05,0.01` (repeatable).
    #[arg(long, value_name = "FAMILY=V1,V2,..")]
    pub grid: Vec<String>,
    /// Print JSON instead of CSV.
    #[arg(long)]
    pub json: bool,
}

fn params_from(m: &ModelArgs) -> Result<(PlacementParams, u64), String> {
    let mut p = PlacementParams {
        capacity: m.capacity,
        rule: Rule::parse(&m.rule)?,
        rebalance: !m.no_rebalance,
        clairvoyance: m.clairvoyance,
        realisations: m.realisations,
        ..PlacementParams::default()
    };
    p.mode = match m.mode.as_str() {
        "aligned" => Mode::Aligned,
        "resampled" => Mode::Resampled,
        other => {
            return Err(format!(
                "--mode: unknown realisation mode '{other}' (expected aligned or resampled)"
            ))
        }
    };
    for a in &m.script {
        p.scripts.push(crate::common::script_file(a, "--script")?);
    }
    if m.seed > packlab::scenario::MAX_SEED {
        return Err(format!(
            "--seed: must be at most {}",
            packlab::scenario::MAX_SEED
        ));
    }
    check(&p)?;
    Ok((p, m.seed))
}

/// Reports the first invalid parameter with its CLI flag name.
fn check(p: &PlacementParams) -> Result<(), String> {
    if let Some(e) = p.validate("").first() {
        let flag = match e.field.as_str() {
            "capacity" => "--capacity".to_string(),
            "clairvoyance" => "--clairvoyance".into(),
            "realisations" => "--realisations".into(),
            "fit" => "--fit".into(),
            f if f.starts_with("families") => "--grid".into(),
            f if f.starts_with("scripts[") => {
                // name the file's script by its name: `--script NAME: line L, column C: …`
                let k: usize = f["scripts[".len()..]
                    .split(']')
                    .next()
                    .and_then(|x| x.parse().ok())
                    .unwrap_or(0);
                let name = p.scripts.get(k).map_or("", |s| s.name.as_str());
                format!("--script {name} ({f})")
            }
            f => f.to_string(),
        };
        return Err(format!("{flag}: {}", e.message));
    }
    Ok(())
}

/// `--print-link`: the share link of the placement scenario of `p` on the trace of `t`, printed. Errors:
/// `--subset` (no scenario field), an unreadable trace, an invalid scenario.
fn print_link(t: &TraceArgs, m: &ModelArgs, p: PlacementParams, seed: u64) -> Result<(), String> {
    if m.subset.is_some() {
        return Err(crate::common::not_in_scenario(
            "--subset",
            "a scenario runs a whole trace, not a random subset of its VMs",
        ));
    }
    crate::common::print_link(&packlab::scenario::Scenario {
        model: packlab::scenario::Model::Placement,
        trace: crate::load::trace_ref_of(t)?,
        seed,
        placement: p,
        ..Default::default()
    })
}

pub fn cmd_pack(a: &PackArgs) -> Result<(), String> {
    let (mut p, seed) = params_from(&a.model)?;
    if let Some(name) = a.fit.trim().strip_prefix("script:") {
        return pack_script(a, &p, seed, name.trim());
    }
    p.fit = FitSpec::parse(&a.fit).map_err(|e| format!("--fit: {e}"))?;
    if a.model.print_link {
        // the playground's run is a frontier: the link's holds this one packing (its family at its knob),
        // which is also the teaching view's fit; a GPA knob is the SLO line drawn
        let (family, knob) = (p.fit.family(), p.fit.param());
        for fs in &mut p.families {
            fs.enabled = fs.family == family;
            if fs.enabled {
                fs.grid = knob.into_iter().collect();
            }
        }
        if let (placement::Family::Gpa | placement::Family::GpaCal, Some(rho)) = (family, knob) {
            p.target_rho = rho;
        }
        return print_link(&a.trace, &a.model, p, seed);
    }
    let t = instance_trace(&a.trace, &a.model)?;
    let inst = placement::Instance::new(&t, &p, seed).map_err(|e| e.to_string())?;
    let (_, r) = inst.pack_and_evaluate(&p.fit, p.rule, p.rebalance);
    if a.json {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
    } else {
        let (o, e) = inst.split();
        println!("trace {} · {} VMs × {} realisations (|O| = {o}, |E| = {e}) · c = {} · {} · rebalance {}", t.name, inst.items(), inst.realisations(), p.capacity, p.rule.name(), if p.rebalance { "on" } else { "off" });
        println!(
            "fit {}: m_abs = {}, m_norm = {}, m = {:.4}, q = {:.6e}, utilization = {:.4}",
            r.spec, r.m_abs, r.m_norm, r.m, r.q, r.utilization
        );
        if let Some(c) = &r.calibration {
            println!(
                "calibrated: rho' = {:.6e} on {} fit columns of O; q on the {} calibration columns = {} (target {}, {}; {} packings){}",
                c.rho,
                c.fit_columns,
                c.calibration_columns,
                c.q_calibration
                    .map_or("-".to_string(), |q| format!("{q:.6e}")),
                c.target,
                if c.met { "met" } else { "NOT met" },
                c.packings,
                c.note.as_deref().map_or(String::new(), |n| format!(": {n}"))
            );
        }
    }
    Ok(())
}

/// `pack --fit script:NAME`: packs with the `--script` named NAME and prints as `pack` does.
fn pack_script(a: &PackArgs, p: &PlacementParams, seed: u64, name: &str) -> Result<(), String> {
    let Some(k) = p.scripts.iter().position(|s| s.name == name) else {
        return Err(format!(
            "--fit: no --script is named '{name}' (give it with --script {name}=FILE)"
        ));
    };
    if a.model.print_link {
        return Err("--print-link: a link of one script packing is not supported; print the frontier's link (packlab placement frontier --script … --print-link)".into());
    }
    let script = std::sync::Arc::new(
        placement::policies::script::compile(&p.scripts[k].source)
            .map_err(|e| format!("--script {name}: {e}"))?,
    );
    let t = instance_trace(&a.trace, &a.model)?;
    let inst = placement::Instance::new(&t, p, seed).map_err(|e| e.to_string())?;
    let (_, r) = inst
        .pack_script(&script, p.scripts[k].spec(), p.rule, p.rebalance)
        .map_err(|e| format!("--script {name}: {e}"))?;
    if a.json {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
    } else {
        println!(
            "fit {}: m_abs = {}, m_norm = {}, m = {:.4}, q = {:.6e}, utilization = {:.4}",
            r.spec, r.m_abs, r.m_norm, r.m, r.q, r.utilization
        );
    }
    Ok(())
}

pub fn cmd_frontier(a: &FrontierArgs) -> Result<(), String> {
    let (mut p, seed) = params_from(&a.model)?;
    if let Some(list) = &a.families {
        let wanted: Vec<String> = list
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        for w in &wanted {
            if !placement::Family::ALL.iter().any(|f| f.name() == w) {
                return Err(format!(
                    "--families: unknown family '{w}' (gpa, gpa-cal, av, perc, cantelli, max)"
                ));
            }
        }
        for fs in &mut p.families {
            fs.enabled = wanted.iter().any(|w| w == fs.family.name());
        }
    }
    for g in &a.grid {
        let (fam, vals) = g
            .split_once('=')
            .ok_or_else(|| format!("--grid: expected FAMILY=V1,V2,… (got '{g}')"))?;
        let fs = p
            .families
            .iter_mut()
            .find(|f| f.family.name() == fam.trim().to_ascii_lowercase())
            .ok_or_else(|| format!("--grid: unknown family '{fam}'"))?;
        fs.grid = vals
            .split(',')
            .map(|v| {
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("--grid: '{v}' is not a number"))
            })
            .collect::<Result<_, _>>()?;
    }
    check(&p)?;
    if a.model.print_link {
        return print_link(&a.trace, &a.model, p, seed);
    }
    let t = instance_trace(&a.trace, &a.model)?;
    let mut progress =
        crate::progress::Progress::new("packlab placement frontier", "frontier points");
    let f = placement::run_frontier(&t, &p, seed, &mut |d, n| progress.update(d, n));
    progress.finish();
    let f = f.map_err(|e| e.to_string())?;
    print_frontier(&f, a.json)
}

fn print_frontier(f: &placement::Frontier, json: bool) -> Result<(), String> {
    if json {
        println!("{}", serde_json::to_string(f).map_err(|e| e.to_string())?);
    } else {
        println!("family,param,spec,m_abs,m_norm,m,q,utilization,pareto");
        for p in &f.points {
            if let Some(e) = &p.error {
                // the CSV row keeps its columns, the figures empty; the error goes to stderr
                eprintln!("{} failed: {e}", p.spec);
                println!("{},,{},,{},,,,false", p.family.name(), p.spec, p.m_norm);
                continue;
            }
            println!(
                "{},{},{},{},{},{},{},{},{}",
                p.family.name(),
                p.param.map(|x| x.to_string()).unwrap_or_default(),
                p.spec,
                p.m_abs,
                p.m_norm,
                p.m,
                p.q,
                p.utilization,
                p.pareto
            );
        }
    }
    Ok(())
}
