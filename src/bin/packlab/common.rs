//! What the model commands (`era`, `lifetime`, `oversub`) share: the scenario check, the run to the end with
//! a progress line, the workload argument, comma lists and the output lines.

use packlab::experiment::{run_to_end, Experiment};
use packlab::models::{Inputs, ModelDef};
use packlab::scenario::{Scenario, WorkloadRef};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `sc` once it validates; else its first problem (naming the field) as the error.
pub fn validated(sc: Scenario) -> Result<Scenario, String> {
    match sc.validate() {
        Ok(()) => Ok(sc),
        Err(errs) => Err(errs[0].to_string()),
    }
}

/// `--print-link`: prints the share-link payload of `sc` (`v2.d<k>.…`, what follows `#s=` in a playground
/// URL; [`Scenario::to_link`]) once it validates, instead of running it.
pub fn print_link(sc: &Scenario) -> Result<(), String> {
    let sc = validated(sc.clone())?;
    Out::new().line(sc.to_link())
}

/// `--print-link` of a scenario whose workload was given as a path (`path`, from [`workload_arg`]): the
/// workload becomes the upload reference the playground computes for the same files ([`print_link`]).
pub fn print_link_with_workload(mut sc: Scenario, path: Option<&Path>) -> Result<(), String> {
    if let Some(path) = path {
        sc.workload = crate::load::workload_upload_ref(path)?;
    }
    print_link(&sc)
}

/// The error of `--print-link` for a flag that changes what a command computes but has no scenario field
/// (`why`: what it is), so no link can reproduce the run.
pub fn not_in_scenario(flag: &str, why: &str) -> String {
    format!("--print-link: {flag} cannot be expressed in a scenario ({why}), so there is no link for this run")
}

/// Plans model `M`'s run of its `section` with the master `seed` and `inputs` and runs it to the end on all cores, with a progress line on
/// stderr (`what`: the command, `unit`: what the progress counts). Gives the finished run (for its
/// operations) and its report. Errors: planning, the run's own, or a cancelled run.
pub fn run_model<M: ModelDef>(
    section: &M::Section,
    seed: u64,
    inputs: &Inputs,
    what: &'static str,
    unit: &'static str,
) -> Result<(M::Run, <M::Run as Experiment>::Report), String> {
    // the one validation of a section given by flags (a scenario file is validated by `into_valid`)
    M::check(section).map_err(|e| e.to_string())?;
    let mut run = M::start(section, seed, inputs).map_err(|e| e.to_string())?;
    let mut progress = crate::progress::Progress::new(what, unit);
    let rep = run_to_end(&mut run, &mut |done, total| progress.update(done, total))
        .map_err(|e| e.to_string())?;
    progress.finish();
    Ok((run, rep))
}

/// Loads the workload `wref` (read from `path` when given, [`workload_arg`]) and runs model `M` on it
/// ([`run_model`]). Errors: the workload's, then [`run_model`]'s.
pub fn run_on_workload<M: ModelDef>(
    sc: &Scenario,
    section: &M::Section,
    path: Option<&Path>,
    what: &'static str,
    unit: &'static str,
) -> Result<<M::Run as Experiment>::Report, String> {
    let w = crate::load::load_workload(&sc.workload, path)?;
    let inputs = Inputs {
        workload: Some(&w),
        ..Default::default()
    };
    Ok(run_model::<M>(section, sc.seed, &inputs, what, unit)?.1)
}

/// The `--workload ID|PATH` argument: a bundled workload id (or one of `aliases`, pairs of alias and id),
/// else a path to read.
pub fn workload_arg(given: &str, aliases: &[(&str, &str)]) -> (WorkloadRef, Option<PathBuf>) {
    let id = aliases
        .iter()
        .find(|(a, _)| *a == given)
        .map_or(given, |(_, id)| id);
    if packlab::data::bundled(id).is_some_and(|b| b.kind.is_workload()) {
        (WorkloadRef::Bundled(id.into()), None)
    } else {
        (WorkloadRef::default(), Some(PathBuf::from(given)))
    }
}

/// The `--workload synthetic[:KEY=VALUE,…]` argument (the synthetic pool of ALGORITHMS.md §5.7): `None` when
/// `given` names another workload, else its parameters. Keys are the fields of
/// [`packlab::workload::synthetic::SyntheticParams`] (`hosts`, `weeks`, `target_allocation`, `start`, `seed`);
/// missing ones take the defaults, except `seed`, which defaults to `seed` (the command's `--seed`). Errors
/// name the key; the parameters are validated.
pub fn synthetic_arg(
    given: &str,
    seed: u64,
) -> Option<Result<packlab::workload::synthetic::SyntheticParams, String>> {
    let rest = given.strip_prefix("synthetic")?;
    if !(rest.is_empty() || rest.starts_with(':')) {
        return None;
    }
    let mut obj = serde_json::Map::new();
    obj.insert("seed".into(), seed.into());
    for kv in rest.trim_start_matches(':').split(',').map(str::trim) {
        if kv.is_empty() {
            continue;
        }
        let Some((k, v)) = kv.split_once('=') else {
            return Some(Err(format!(
                "--workload synthetic: '{kv}' is not KEY=VALUE (keys: hosts, weeks, target_allocation, start, seed)"
            )));
        };
        let value = serde_json::from_str::<serde_json::Value>(v.trim())
            .ok()
            .filter(serde_json::Value::is_number)
            .unwrap_or_else(|| v.trim().into());
        obj.insert(k.trim().to_string(), value);
    }
    Some(
        serde_json::from_value::<packlab::workload::synthetic::SyntheticParams>(obj.into())
            .map_err(|e| format!("--workload synthetic: {e}"))
            .and_then(|p| match p.validate("workload.synthetic.").first() {
                Some(e) => Err(format!("--workload: {e}")),
                None => Ok(p),
            }),
    )
}

/// `set_given!(p; field = option, …)`: each `option` that is `Some(v)` sets `p.field = v` (the command-line
/// flags that override a scenario section's defaults).
macro_rules! set_given {
    ($p:ident; $($f:ident = $v:expr),* $(,)?) => { $( if let Some(v) = $v { $p.$f = v; } )* };
}
pub(crate) use set_given;

/// A choice given by its name on the command line (`--flag NAME`), read as the scenario's serde name of `T`;
/// errors: "--flag: unknown 'NAME' (expected …)", with `expected` listing the names in words.
pub fn named<T: serde::de::DeserializeOwned>(
    flag: &str,
    v: &str,
    expected: &str,
) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(v.trim().to_string()))
        .map_err(|_| format!("--{flag}: unknown '{v}' (expected {expected})"))
}

/// A comma-separated list (blank items skipped), each item parsed with `f`.
pub fn list<T>(s: &str, f: impl FnMut(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(f)
        .collect()
}

/// The output flags of the model commands (`era`, `lifetime`, `oversub` `run`); what their rows are is said in
/// each command's help.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// Print the rows of the text table as one JSON array, one object per row.
    #[arg(long)]
    pub json: bool,
    /// Print the whole report (set-up, rows, series, the paper's figures) as JSON, as `packlab run` does.
    #[arg(long)]
    pub report: bool,
    /// Print the share link (`v2.d<k>.…`, the part after `#s=`) of the scenario these flags make, instead of
    /// running it (a workload path becomes an upload reference; a flag with no scenario field is an error).
    #[arg(long)]
    pub print_link: bool,
}

/// Standard output, locked, one line at a time; write errors (e.g. a closed pipe) become messages.
pub struct Out(std::io::StdoutLock<'static>);

impl Out {
    /// Locks standard output.
    pub fn new() -> Out {
        Out(std::io::stdout().lock())
    }

    /// Writes `s` and a newline.
    pub fn line(&mut self, s: impl std::fmt::Display) -> Result<(), String> {
        writeln!(self.0, "{s}").map_err(|e| e.to_string())
    }

    /// `--report` writes the whole report `rep`, else `--json` the rows `rows()`, as one line of JSON:
    /// `Some` of the result when either flag is set, `None` for the text table.
    pub fn report_or_rows<R: Serialize, T: Serialize>(
        &mut self,
        flags: &OutputArgs,
        rep: &R,
        rows: impl FnOnce() -> T,
    ) -> Option<Result<(), String>> {
        if flags.report {
            Some(self.json(rep))
        } else if flags.json {
            Some(self.json(&rows()))
        } else {
            None
        }
    }

    /// Writes `v` as one line of JSON.
    pub fn json<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), String> {
        let s = serde_json::to_string(v).map_err(|e| e.to_string())?;
        self.line(s)
    }
}

/// A `--policies` list whose items may be scripts: `script:[NAME=]FILE` is read into `scripts`
/// ([`script_file`]; it travels in the scenario and its link) and becomes the policy `script(NAME)`; any other
/// item is parsed with `parse`.
pub fn policies_with_scripts<P>(
    s: &str,
    scripts: &mut Vec<packlab::script::ScriptPolicy>,
    script: impl Fn(String) -> P,
    mut parse: impl FnMut(&str) -> Result<P, String>,
) -> Result<Vec<P>, String> {
    list(s, |item| match item.strip_prefix("script:") {
        Some(file) => {
            let sp = script_file(file, "--policies script:")?;
            let policy = script(sp.name.clone());
            scripts.push(sp);
            Ok(policy)
        }
        None => parse(item),
    })
}

/// A script file of the command line, `FILE` or `NAME=FILE` (NAME defaults to the file's stem), read into a
/// scenario's script (docs/policies.md). Errors name `flag` and the file.
pub fn script_file(arg: &str, flag: &str) -> Result<packlab::script::ScriptPolicy, String> {
    let (name, file) = match arg.split_once('=') {
        Some((n, f)) => (n.trim().to_string(), f.trim()),
        None => {
            let stem = std::path::Path::new(arg.trim())
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            (stem, arg.trim())
        }
    };
    let source =
        std::fs::read_to_string(file).map_err(|e| format!("{flag}: cannot read '{file}': {e}"))?;
    Ok(packlab::script::ScriptPolicy::new(&name, &source))
}
