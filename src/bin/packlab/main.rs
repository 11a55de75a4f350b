//! `packlab`: the command-line front end of the packlab engine (same engine as the browser playground).
//!
//! Every subcommand prints results on stdout (JSON with `--json`) and, on bad input, one line on stderr
//! naming the problem and exits non-zero; it never panics on user input.

mod admission;
mod common;
mod era;
mod lifetime;
mod load;
mod oversub;
mod placement;
mod progress;
mod sweep;

use clap::{Args, Parser, Subcommand};
use load::{load_inputs, load_trace, run_report, TraceArgs};
use packlab::scenario::Scenario;
use packlab::trace;
use std::path::PathBuf;
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
    /// Run a Scenario JSON file (or a share link) of any model exactly as the playground does; prints its report.
    Run(RunArgs),
    /// Run a sweep file's cells (a scenario over axes of values and seeds), whole or one shard `--shard I/N`
    /// of a batch job; writes `shard-I-of-N.json` (and, whole, `results.json` and `results.csv`) in `--out`.
    Sweep(sweep::SweepArgs),
    /// Merge the shards' `shard-I-of-N.json` of a folder into `results.json` and `results.csv`, identical to
    /// the unsharded run's.
    Merge(sweep::MergeArgs),
    /// List the models of the registry (ids, charts, operations) and the bundled data (JSON).
    Models,
    /// Print summary statistics of a usage trace (VMs, samples, mean/s.d. usage in VM units).
    Summary(TraceArgs),
    /// Convert a usage trace into packlab's compact wide format (.tsv.gz), as used for the bundled traces.
    Bundle(BundleArgs),
    /// The placement model (seed 002): pack one trace, sweep the (m, q) frontier.
    #[command(subcommand)]
    Placement(PlacementCommand),
    /// The admission model (seed 000): tune a preset's policies, moments, the Azure fit.
    #[command(subcommand)]
    Admission(AdmissionCommand),
    /// The lifetime model (seed 003): best fit, LA-Binary, NILAS and LAVA on a pool's share of real arrivals.
    Lifetime(LifetimeGroup),
    /// The reservation model (seed 004): ERA's BASIC_ECON, greedy and on-demand on E4.1 or E4.3.
    Era(EraGroup),
    /// The oversubscription model (seed 001): evaluate rate policies on E1.1–E1.4, train C2MARL.
    Oversub(OversubGroup),
    /// = `packlab oversub train` (earlier name).
    #[command(hide = true)]
    OversubTrain(oversub::TrainArgs),
    /// = `packlab placement pack` (earlier name).
    #[command(hide = true)]
    Pack(placement::PackArgs),
    /// = `packlab placement frontier` (earlier name).
    #[command(hide = true)]
    Frontier(placement::FrontierArgs),
    /// = `packlab admission tune` (earlier name).
    #[command(hide = true)]
    Admit(admission::AdmitArgs),
    /// = `packlab admission moments` (earlier name).
    #[command(hide = true)]
    AdmitMoments(admission::MomentsArgs),
    /// = `packlab admission fit` (earlier name).
    #[command(hide = true)]
    AdmitFit(admission::FitArgs),
}

/// The help of a model's command group: its verbs only. The group also takes the earlier form's flags
/// (`packlab lifetime --share 0.03` = `packlab lifetime run --share 0.03`), which stay out of its help.
const GROUP_HELP: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\nCommands:\n{subcommands}{after-help}";

/// `packlab lifetime <verb>`; without a verb, the earlier form `packlab lifetime [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab lifetime <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct LifetimeGroup {
    #[command(subcommand)]
    verb: Option<LifetimeCommand>,
    #[command(flatten)]
    earlier: lifetime::LifetimeArgs,
}

/// Commands of the lifetime model.
#[derive(Subcommand, Debug)]
enum LifetimeCommand {
    /// Simulate the policies on one pool's share of a workload; one JSON object per policy with `--json`
    /// (`--model-metrics`: the learned predictor's model metrics instead).
    Run(lifetime::LifetimeArgs),
}

/// `packlab era <verb>`; without a verb, the earlier form `packlab era [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab era <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct EraGroup {
    #[command(subcommand)]
    verb: Option<EraCommand>,
    #[command(flatten)]
    earlier: era::EraArgs,
}

/// Commands of the reservation model.
#[derive(Subcommand, Debug)]
enum EraCommand {
    /// Run E4.1 (synthetic or SWIM jobs) or E4.3 (beside real Azure load); one JSON object per (policy, κ_use)
    /// with `--json`.
    Run(era::EraArgs),
}

/// `packlab oversub <verb>`; without a verb, the earlier form `packlab oversub [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab oversub <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct OversubGroup {
    #[command(subcommand)]
    verb: Option<OversubCommand>,
    #[command(flatten)]
    earlier: oversub::OversubArgs,
}

/// Commands of the oversubscription model.
#[derive(Subcommand, Debug)]
enum OversubCommand {
    /// Evaluate rate policies (Grid-x, MA, SL, peak, GPA, C2MARL trained in the run or from a file) on
    /// E1.1–E1.4; one JSON object per policy with `--json`.
    Run(oversub::OversubArgs),
    /// Train C2MARL at one safety level and write the trained policy (evaluate it with
    /// `packlab oversub run --policies c2marl:FILE`).
    Train(oversub::TrainArgs),
}

/// Commands of the placement model (one group per model of the registry, named by its id).
#[derive(Subcommand, Debug)]
enum PlacementCommand {
    /// Pack one trace with one fit test and rule and print m_abs, m_norm, m, q (seed 002 §5.1).
    Pack(placement::PackArgs),
    /// Sweep each fit family's knob and print the (m, q) frontier with the Pareto front (CSV or JSON).
    Frontier(placement::FrontierArgs),
}

/// Commands of the admission model.
#[derive(Subcommand, Debug)]
enum AdmissionCommand {
    /// Run an experiment preset (E0.1–E0.4), tuning each policy to the SLA.
    Tune(admission::AdmitArgs),
    /// Posterior-integrated moments E[X_t], Var[X_t] of a deployment's cores (ALGORITHMS.md §2.4–2.6).
    Moments(admission::MomentsArgs),
    /// Fit the model to Azure data by maximum likelihood (seed 000 App. B) and print the estimates.
    Fit(admission::FitArgs),
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
    /// The uploaded workload a scenario refers to (its SHA-256 must match); also overrides a bundled one.
    #[arg(long, value_name = "PATH")]
    workload: Option<PathBuf>,
    /// Print JSON (the default for `run`; kept for symmetry).
    #[arg(long)]
    json: bool,
    /// Print the scenario's share link (`v2.d<k>.…`, the part after `#s=`) instead of running it.
    #[arg(long)]
    print_link: bool,
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
        Command::Pack(a) | Command::Placement(PlacementCommand::Pack(a)) => placement::cmd_pack(a),
        Command::Frontier(a) | Command::Placement(PlacementCommand::Frontier(a)) => {
            placement::cmd_frontier(a)
        }
        Command::Run(a) => cmd_run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Merge(a) => sweep::merge(a),
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
        Command::Lifetime(g) => lifetime::run(match &g.verb {
            Some(LifetimeCommand::Run(a)) => a,
            None => &g.earlier,
        }),
        Command::Era(g) => era::run(match &g.verb {
            Some(EraCommand::Run(a)) => a,
            None => &g.earlier,
        }),
        Command::Oversub(g) => match &g.verb {
            Some(OversubCommand::Run(a)) => oversub::run(a),
            Some(OversubCommand::Train(a)) => oversub::train(a),
            None => oversub::run(&g.earlier),
        },
        Command::OversubTrain(a) => oversub::train(a),
        Command::Admit(a) | Command::Admission(AdmissionCommand::Tune(a)) => {
            admission::run_admit(a)
        }
        Command::AdmitMoments(a) | Command::Admission(AdmissionCommand::Moments(a)) => {
            admission::run_moments(a)
        }
        Command::AdmitFit(a) | Command::Admission(AdmissionCommand::Fit(a)) => {
            admission::run_fit(a)
        }
    }
}

fn cmd_run(a: &RunArgs) -> Result<(), String> {
    let sc = match (&a.scenario, &a.link) {
        (_, Some(link)) => Scenario::from_link_valid(link).map_err(|e| format!("--link: {e}"))?,
        (Some(path), None) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let sc = Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            sc.into_valid()
                .map_err(|errs| format!("{}: {}", path.display(), errs[0]))?
        }
        (None, None) => return Err("give a scenario file or --link".into()),
    };
    let _ = a.json;
    if a.print_link {
        for (flag, given) in [
            ("--trace", a.trace.is_some()),
            ("--workload", a.workload.is_some()),
        ] {
            if given {
                return Err(common::not_in_scenario(
                    flag,
                    "a file given beside a scenario is not part of it; name it in the scenario's upload reference",
                ));
            }
        }
        return common::print_link(&sc);
    }
    let loaded = load_inputs(&sc, a.trace.as_deref(), a.workload.as_deref())?;
    let mut progress = progress::Progress::new("packlab run", "units of work");
    let report = run_report(&sc, &loaded, &mut |d, t| progress.update(d, t));
    progress.finish();
    println!("{}", report?);
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
