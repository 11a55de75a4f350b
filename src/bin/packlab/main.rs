//! `packlab`: the command-line front end of the packlab engine (same engine as the browser playground).
//!
//! Every subcommand prints results on stdout (JSON with `--json`) and, on bad input, one line on stderr
//! naming the problem and exits non-zero; it never panics on user input.

mod admit;

use clap::{Args, Parser, Subcommand};
use packlab::placement::{self, FitSpec, Mode, PlacementParams, Rule};
use packlab::scenario::{Scenario, TraceRef};
use packlab::trace::{self, InputFile, TraceFormat, UsageTrace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "packlab",
    version,
    about = "Cloud resource management algorithms of five papers: stochastic bin packing (GPA), admission control, … — native CLI of the packlab playground"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pack one trace with one fit test and rule and print m_abs, m_norm, m, q (seed 002 §5.1).
    Pack(PackArgs),
    /// Sweep each fit family's knob and print the (m, q) frontier with the Pareto front (CSV or JSON).
    Frontier(FrontierArgs),
    /// Run a Scenario JSON file (or a share link) of any model exactly as the playground does; prints its report.
    Run(RunArgs),
    /// List the models of the registry and the bundled data (JSON).
    Models,
    /// Print summary statistics of a trace (VMs, samples, mean/s.d. usage in VM units).
    Summary(TraceArgs),
    /// Convert a trace into packlab's compact wide format (.tsv.gz), as used for the bundled traces.
    Bundle(BundleArgs),
    /// Cluster admission control (seed 000): run an experiment preset, tuning each policy to the SLA.
    Admit(admit::AdmitArgs),
    /// Posterior-integrated moments E[X_t], Var[X_t] of a deployment's cores (seed 000, ALGORITHMS.md §2.4–2.6).
    AdmitMoments(admit::MomentsArgs),
    /// Fit the admission model to Azure data by maximum likelihood (seed 000 App. B) and print the estimates.
    AdmitFit(admit::FitArgs),
}

#[derive(Args, Debug, Clone)]
struct TraceArgs {
    /// Trace path: a PlanetLab day folder (one file per VM, CPU % per line), a .zip of one, a long CSV
    /// `item,time,usage` (usage in VM units), or a packlab wide .tsv/.tsv.gz file.
    #[arg(long, value_name = "PATH")]
    trace: PathBuf,
    /// Trace format: planetlab | csv | wide (default: guessed from the path: folder or .zip = planetlab,
    /// .csv = csv, .tsv/.tsv.gz = wide).
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
}

#[derive(Args, Debug, Clone)]
struct ModelArgs {
    /// Machine capacity c in VM units (1.0 = one VM's full CPU; > 0).
    #[arg(long, value_name = "C", default_value_t = placement::DEFAULT_CAPACITY, allow_negative_numbers = true)]
    capacity: f64,
    /// Packing rule: ff (First Fit) or bf (Best Fit).
    #[arg(long, value_name = "RULE", default_value = "bf")]
    rule: String,
    /// Clairvoyance ℓ in (0, 1]: statistics from the first ⌊ℓ·R⌋ samples, evaluation on the rest (1 = all).
    #[arg(
        long,
        value_name = "L",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    clairvoyance: f64,
    /// Turn rebalancing off (seed 002 Alg. 1; on by default).
    #[arg(long)]
    no_rebalance: bool,
    /// Realisations: aligned (column t = the same real interval for every VM) or resampled (R draws per VM
    /// from its own empirical distribution, seed 002 §3.1).
    #[arg(long, value_name = "MODE", default_value = "aligned")]
    mode: String,
    /// R, realisations per VM in resampled mode.
    #[arg(long, value_name = "R", default_value_t = 10_000)]
    realisations: usize,
    /// Seed of the resampling streams (integer 0..2^53).
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
struct PackArgs {
    #[command(flatten)]
    trace: TraceArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Fit test: gpa:RHO (SLO, 0<RHO<1), cantelli:B (B>=0), av:F (F>0), perc:P (P in 0..100 percent) or max.
    #[arg(long, value_name = "SPEC", default_value = "gpa:0.05")]
    fit: String,
    /// Print one JSON object (m_abs, m_norm, m, q, utilization, q_per_machine, items_per_machine).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct FrontierArgs {
    #[command(flatten)]
    trace: TraceArgs,
    #[command(flatten)]
    model: ModelArgs,
    /// Families to sweep, comma-separated, of gpa, av, perc, cantelli, max (default: all).
    #[arg(long, value_name = "LIST")]
    families: Option<String>,
    /// Override a family's grid, e.g. `--grid gpa=0.1,0.05,0.01` (repeatable).
    #[arg(long, value_name = "FAMILY=V1,V2,..")]
    grid: Vec<String>,
    /// Print JSON instead of CSV.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Scenario JSON file (full or partial; missing fields take their defaults).
    #[arg(value_name = "SCENARIO.json", required_unless_present = "link")]
    scenario: Option<PathBuf>,
    /// A share link (`https://…#s=v2.d1.…`, `s=v2.d1.…` or `v2.d1.…`; old `v1.…` links too) instead of a file.
    #[arg(long, value_name = "LINK", conflicts_with = "scenario")]
    link: Option<String>,
    /// The uploaded trace a scenario refers to (its SHA-256 must match); also overrides a bundled trace.
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// Print JSON (the default for `run`; kept for symmetry).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct BundleArgs {
    #[command(flatten)]
    trace: TraceArgs,
    /// Output file (.tsv.gz, gzip-compressed; .tsv for plain text).
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// Extra header fields, e.g. `source=planetlab-cloudsim/20110303` (no spaces).
    #[arg(long, value_name = "K=V", default_value = "")]
    header: String,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            let text = e.render().to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            eprintln!("packlab: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match dispatch(&cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("packlab: {}", msg.lines().next().unwrap_or(""));
            ExitCode::FAILURE
        }
    }
}

fn dispatch(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Pack(a) => cmd_pack(a),
        Command::Frontier(a) => cmd_frontier(a),
        Command::Run(a) => cmd_run(a),
        Command::Models => {
            let out = serde_json::json!({
                "models": packlab::models::MODELS,
                "bundled_data": packlab::data::BUNDLED_DATA,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::Summary(a) => {
            let t = load_trace(a)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&t.summary()).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::Bundle(a) => cmd_bundle(a),
        Command::Admit(a) => admit::run_admit(a),
        Command::AdmitMoments(a) => admit::run_moments(a),
        Command::AdmitFit(a) => admit::run_fit(a),
    }
}

/// Reads a path into input files: a folder's regular files (names relative to the folder's parent, so the
/// folder name is kept), or a single file.
fn read_files(path: &Path) -> Result<Vec<InputFile>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        let folder = path
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| ".".into());
        let mut out = Vec::new();
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for ent in entries {
            let ent = ent.map_err(|e| format!("{}: {e}", path.display()))?;
            let p = ent.path();
            if p.is_file() {
                let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                out.push(InputFile {
                    name: format!("{folder}/{}", ent.file_name().to_string_lossy()),
                    bytes,
                });
            }
        }
        if out.is_empty() {
            return Err(format!("{}: the folder holds no files", path.display()));
        }
        Ok(out)
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| path.display().to_string());
        Ok(vec![InputFile { name, bytes }])
    }
}

fn load_files(
    files: &[InputFile],
    path: &Path,
    format: Option<&str>,
) -> Result<UsageTrace, String> {
    let fmt = format.map(TraceFormat::parse).transpose()?;
    let name = trace::upload_name(files);
    let name = if name == "upload" {
        path.display().to_string()
    } else {
        name
    };
    trace::read_trace(&name, files, fmt).map_err(|e| e.to_string())
}

fn load_trace(a: &TraceArgs) -> Result<UsageTrace, String> {
    let files = read_files(&a.trace)?;
    load_files(&files, &a.trace, a.format.as_deref())
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
            f => f.to_string(),
        };
        return Err(format!("{flag}: {}", e.message));
    }
    Ok(())
}

fn cmd_pack(a: &PackArgs) -> Result<(), String> {
    let (mut p, seed) = params_from(&a.model)?;
    p.fit = FitSpec::parse(&a.fit).map_err(|e| format!("--fit: {e}"))?;
    let t = load_trace(&a.trace)?;
    let inst = placement::Instance::new(&t, &p, seed).map_err(|e| e.to_string())?;
    let packing = inst.pack(&p.fit, p.rule, p.rebalance);
    let r = inst.evaluate(&p.fit, &packing);
    if a.json {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
    } else {
        let (o, e) = inst.split();
        println!("trace {} · {} VMs × {} realisations (|O| = {o}, |E| = {e}) · c = {} · {} · rebalance {}", t.name, inst.items(), inst.realisations(), p.capacity, p.rule.name(), if p.rebalance { "on" } else { "off" });
        println!(
            "fit {}: m_abs = {}, m_norm = {}, m = {:.4}, q = {:.6e}, utilization = {:.4}",
            r.spec, r.m_abs, r.m_norm, r.m, r.q, r.utilization
        );
    }
    Ok(())
}

fn cmd_frontier(a: &FrontierArgs) -> Result<(), String> {
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
                    "--families: unknown family '{w}' (gpa, av, perc, cantelli, max)"
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
    let t = load_trace(&a.trace)?;
    let f = placement::run_frontier(&t, &p, seed, &mut |_, _| true).map_err(|e| e.to_string())?;
    print_frontier(&f, a.json)
}

fn print_frontier(f: &placement::Frontier, json: bool) -> Result<(), String> {
    if json {
        println!("{}", serde_json::to_string(f).map_err(|e| e.to_string())?);
    } else {
        println!("family,param,spec,m_abs,m_norm,m,q,utilization,pareto");
        for p in &f.points {
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

/// Finds a bundled trace's file: relative to the working directory, to the executable's repository
/// (target/<profile>/packlab → repository root), or to the source tree this binary was built from.
fn bundled_path(rel: &str) -> Option<PathBuf> {
    let mut cands = vec![PathBuf::from(rel)];
    if let Ok(exe) = std::env::current_exe() {
        for anc in exe.ancestors().skip(1).take(4) {
            cands.push(anc.join(rel));
        }
    }
    cands.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel));
    cands.into_iter().find(|p| p.is_file())
}

fn cmd_run(a: &RunArgs) -> Result<(), String> {
    let sc = match (&a.scenario, &a.link) {
        (_, Some(link)) => Scenario::from_link(link).map_err(|e| format!("--link: {e}"))?,
        (Some(path), None) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let sc = Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            if let Err(errs) = sc.validate() {
                return Err(format!("{}: {}", path.display(), errs[0]));
            }
            sc
        }
        (None, None) => return Err("give a scenario file or --link".into()),
    };
    let info = sc.model.info();
    if !info.uses_trace {
        // e.g. the admission model (seed 000) needs no trace
        return run_scenario(&sc, None);
    }
    let t = match (&sc.trace, &a.trace) {
        (_, Some(path)) => {
            let files = read_files(path)?;
            if let TraceRef::Upload { sha256, name } = &sc.trace {
                let got = trace::upload_sha256(&files);
                if &got != sha256 {
                    return Err(format!("{}: SHA-256 {got} differs from the scenario's upload '{name}' ({sha256}); not the same trace", path.display()));
                }
            }
            load_files(&files, path, None)?
        }
        (TraceRef::Bundled(id), None) => {
            let b = trace::bundled(id).ok_or_else(|| format!("no bundled trace '{id}'"))?;
            let path = bundled_path(b.path).ok_or_else(|| {
                format!(
                    "bundled trace file {} not found (run from the repository)",
                    b.path
                )
            })?;
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = path
                .file_name()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            trace::read_trace(id, &[InputFile { name: file, bytes }], b.format)
                .map_err(|e| e.to_string())?
        }
        (TraceRef::Upload { name, .. }, None) => {
            return Err(format!(
                "the scenario uses the uploaded trace '{name}': pass it with --trace PATH"
            ))
        }
    };
    let _ = a.json;
    run_scenario(&sc, Some(&t))
}

/// Runs any model's scenario to the end through the registry and the experiment contract (all cores) and
/// prints its report as one JSON line.
fn run_scenario(sc: &Scenario, trace: Option<&UsageTrace>) -> Result<(), String> {
    let inputs = packlab::models::Inputs {
        trace,
        ..Default::default()
    };
    let mut exp = packlab::models::start(sc, &inputs).map_err(|e| e.to_string())?;
    let report = packlab::experiment::run_dyn_to_end(exp.as_mut(), &mut |_, _| true)
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        serde_json::to_string(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn cmd_bundle(a: &BundleArgs) -> Result<(), String> {
    use std::io::Write;
    if a.header.contains(char::is_whitespace) {
        return Err("--header: no spaces allowed".into());
    }
    let t = load_trace(&a.trace)?;
    let text = trace::write_wide(&t, &a.header);
    let out = if a.out.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        gz.finish().map_err(|e| e.to_string())?
    } else {
        text.into_bytes()
    };
    std::fs::write(&a.out, &out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!(
        "wrote {} ({} VMs × {} samples, {} bytes)",
        a.out.display(),
        t.items.len(),
        t.samples,
        out.len()
    );
    Ok(())
}
