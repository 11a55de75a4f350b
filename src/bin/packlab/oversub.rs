//! `packlab oversub run` and `packlab oversub train`: the oversubscription model (seed 001, ALGORITHMS.md §3)
//! from the command line, through the registry's model and the experiment contract (the same run the
//! playground and `packlab run` make).

use crate::common::{
    named, not_in_scenario, policies_with_scripts, print_link, run_model, set_given, validated,
    Out, OutputArgs,
};
use packlab::input::InputFile;
use packlab::models::oversub::{
    OversubModel, OversubParams, OversubReport, OversubRun, Policy, Preset,
};
use packlab::models::Inputs;
use packlab::scenario::{Model, Scenario};

/// The scenario options both commands share.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// The experiment: E1.1 (synthetic internal cloud, cold start), E1.2 (warm start), E1.3 (Azure-derived
    /// subscribers), E1.4 (E1.1 reported as C-Hot-R beside PM-Hot-R).
    #[arg(long, default_value = "E1.1")]
    pub preset: String,
    /// PMs K (default: the preset's, 500 internal, 200 Azure).
    #[arg(long)]
    pub pms: Option<u32>,
    /// Hot threshold β (fraction of a PM's cores).
    #[arg(long)]
    pub beta: Option<f64>,
    /// Requested-core occupancy of the cluster without oversubscription (sets the arrival rate).
    #[arg(long)]
    pub occupancy: Option<f64>,
    /// Evaluation episodes per policy.
    #[arg(long)]
    pub eval_episodes: Option<u32>,
    /// Seed (subscribers, episodes, learners).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `packlab oversub run`: evaluate rate policies (and train C2MARL arms named `c2marl:α`).
#[derive(clap::Args, Debug)]
pub struct OversubArgs {
    #[command(flatten)]
    pub common: Common,
    /// Policies, comma-separated: grid:X, ma, sl, peak:pP, peak:Nsigma, gpa:ALPHA, c2marl:ALPHA (trained in
    /// the run), c2marl:FILE (a policy written by `packlab oversub train`), script:[NAME=]FILE (a rate policy
    /// of your own in the policy language, docs/policies.md; NAME defaults to the file's stem; the row is
    /// script:NAME and `--print-link` carries its source). Default: the preset's.
    #[arg(long)]
    pub policies: Option<String>,
    /// Training episodes of each C2MARL arm trained in the run.
    #[arg(long)]
    pub train_episodes: Option<u32>,
    /// `--json` (one object per policy), `--report`, `--print-link` (a `c2marl:FILE` policy has no scenario
    /// field: an error).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Also write the run's C2MARL arm, once trained, with its recipe (the bundled policy's form, read back by
    /// the playground instead of training: `make oversub-pretrained`) to this file; `.gz` compresses it. The
    /// run must train exactly one C2MARL arm.
    #[arg(long)]
    pub pretrained_out: Option<std::path::PathBuf>,
}

/// `packlab oversub train`: train C2MARL at one safety level and write the trained policy.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    pub common: Common,
    /// Safety level α (the chance constraint's target is (1 − α)·δ).
    #[arg(long, default_value_t = 0.95)]
    pub alpha: f64,
    /// Training episodes.
    #[arg(long, default_value_t = 1800)]
    pub episodes: u32,
    /// Where to write the trained policy (JSON).
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// What the progress line of both commands counts.
const UNIT: &str = "episodes (training, then evaluation)";

fn scenario(
    c: &Common,
    f: impl FnOnce(&mut OversubParams) -> Result<(), String>,
) -> Result<Scenario, String> {
    let preset: Preset = named(
        "preset",
        &c.preset.to_ascii_uppercase(),
        "E1.1, E1.2, E1.3 or E1.4",
    )?;
    let mut p = OversubParams {
        preset,
        ..OversubParams::default()
    };
    set_given!(
        p;
        pms = c.pms,
        beta = c.beta,
        occupancy = c.occupancy,
        eval_episodes = c.eval_episodes
    );
    f(&mut p)?;
    let sc = Scenario {
        model: Model::Oversub,
        seed: c.seed,
        oversub: p,
        ..Scenario::default()
    };
    validated(sc)
}

/// Runs `packlab oversub run`.
pub fn run(a: &OversubArgs) -> Result<(), String> {
    let mut files = Vec::new();
    let sc = scenario(&a.common, |p| {
        if let Some(s) = &a.policies {
            let parsed = policies_with_scripts(s, &mut p.scripts, Policy::Script, |name| {
                let pol = Policy::parse(name).map_err(|e| format!("--policies: {e}"))?;
                if let Policy::C2marlFile(path) = &pol {
                    if a.output.print_link {
                        return Err(not_in_scenario(
                            "--policies c2marl:FILE",
                            "a trained policy file is an input beside the scenario",
                        ));
                    }
                    let bytes =
                        std::fs::read(path).map_err(|e| format!("--policies: {path}: {e}"))?;
                    files.push(InputFile {
                        name: path.clone(),
                        bytes,
                    });
                }
                Ok(pol)
            })?;
            p.policies.extend(parsed);
        }
        set_given!(p; train_episodes = a.train_episodes);
        Ok(())
    })?;
    if a.output.print_link {
        return print_link(&sc);
    }
    let inputs = Inputs {
        files: &files,
        ..Default::default()
    };
    let (run, rep) =
        run_model::<OversubModel>(&sc.oversub, sc.seed, &inputs, "packlab oversub run", UNIT)?;
    if let Some(path) = &a.pretrained_out {
        write_pretrained(&run, &rep, path)?;
    }
    let mut out = Out::new();
    if let Some(done) = out.report_or_rows(&a.output, &rep, || &rep.rows) {
        return done;
    }
    let s = &rep.setup;
    out.line(format!(
            "# {} ({}): {} subscribers, {} PMs, {:.1} new VMs/h, mean duration {:.2} h, mean usage {:.3}",
            rep.preset,
            s.profiles,
            s.subscribers.len(),
            s.pms,
            s.arrivals_per_hour,
            s.mean_duration_h,
            s.mean_usage
        ),
    )?;
    let name_of = |r: &packlab::models::oversub::experiment::PolicyRow| match r.train_seed {
        Some(s) if s > 0 => format!("{} #{}", r.policy, s + 1),
        _ => r.policy.clone(),
    };
    // the name column: 16 characters, wider when a name is longer (a script's script:NAME, up to 47)
    let w = rep
        .rows
        .iter()
        .map(|r| name_of(r).chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    out.line(format!(
        "{:<h$}PM-Hot-R% [95% CI]        C-Hot-R%   S-Cores%  safe@.75/.85/.95  hotPMh/ep  activePMs  util%",
        "policy",
        h = w + 2
    ))?;
    for r in &rep.rows {
        let name = name_of(r);
        if let Some(e) = &r.error {
            out.line(format!("{name:<w$} failed: {e}"))?;
            continue;
        }
        let tick = |b: bool| if b { "✓" } else { "✗" };
        out.line(format!(
                "{:<w$} {:6.1} [{:5.1}, {:5.1}]   {:8.1} {:9.1}   {} {} {}        {:9.1} {:10.1} {:6.1}",
                name,
                100.0 * r.pm_hot_r,
                100.0 * r.pm_hot_r_lo,
                100.0 * r.pm_hot_r_hi,
                100.0 * r.c_hot_r,
                100.0 * r.s_cores,
                tick(r.safe[0]),
                tick(r.safe[1]),
                tick(r.safe[2]),
                r.hot_pm_hours,
                r.active_pms,
                100.0 * r.utilization
            ),
        )?;
    }
    for p in &rep.paper {
        out.line(format!(
            "# paper (seed 001 Tables 1–3): {} PM-Hot-R {:.1}%{}",
            p.policy,
            100.0 * p.pm_hot_r,
            p.s_cores
                .map_or(String::new(), |s| format!(", S-Cores {:.1}%", 100.0 * s))
        ))?;
    }
    Ok(())
}

/// Runs `packlab oversub train`.
pub fn train(a: &TrainArgs) -> Result<(), String> {
    let sc = scenario(&a.common, |p| {
        p.policies = vec![Policy::C2marl(a.alpha)];
        p.train_episodes = a.episodes;
        if a.common.eval_episodes.is_none() {
            p.eval_episodes = 10;
        }
        Ok(())
    })?;
    let (run, rep) = run_model::<OversubModel>(
        &sc.oversub,
        sc.seed,
        &Inputs::default(),
        "packlab oversub train",
        UNIT,
    )?;
    let buf = query_row(&run, "policy", 0)?;
    std::fs::write(&a.out, &buf).map_err(|e| format!("--out {}: {e}", a.out.display()))?;
    let r = &rep.rows[0];
    eprintln!(
        "packlab oversub train: wrote {} ({} bytes); on {} evaluation episodes PM-Hot-R {:.1}%, C-Hot-R {:.1}%, S-Cores {:.1}%",
        a.out.display(),
        buf.len(),
        r.episodes,
        100.0 * r.pm_hot_r,
        100.0 * r.c_hot_r,
        100.0 * r.s_cores
    );
    Ok(())
}

/// The JSON answer of the run's operation `op` (`policy`, `pretrained`) for report row `row`.
fn query_row(run: &OversubRun, op: &str, row: usize) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    packlab::experiment::Experiment::query(
        run,
        op,
        &serde_json::json!({ "row": row }),
        &mut serde_json::Serializer::new(&mut buf),
    )
    .map_err(|e| e.to_string())?;
    Ok(buf)
}

/// Writes the one C2MARL arm trained in the run, with its recipe, to `path` (gzip when it ends in `.gz`;
/// deterministic bytes: no file name or time in the gzip header).
fn write_pretrained(
    run: &OversubRun,
    rep: &OversubReport,
    path: &std::path::Path,
) -> Result<(), String> {
    let arms: Vec<usize> = rep
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.train_seed.is_some())
        .map(|(i, _)| i)
        .collect();
    let [row] = arms[..] else {
        return Err(format!(
            "--pretrained-out: the run trains {} C2MARL arms; exactly one is written (name one c2marl:α policy and one training seed)",
            arms.len()
        ));
    };
    let mut buf = query_row(run, "pretrained", row)?;
    buf.push(b'\n');
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        use std::io::Write;
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        gz.write_all(&buf).map_err(|e| e.to_string())?;
        gz.finish().map_err(|e| e.to_string())?
    } else {
        buf
    };
    std::fs::write(path, &bytes)
        .map_err(|e| format!("--pretrained-out {}: {e}", path.display()))?;
    eprintln!(
        "packlab oversub: wrote the pretrained arm {} to {} ({} bytes)",
        rep.rows[row].policy,
        path.display(),
        bytes.len()
    );
    Ok(())
}
