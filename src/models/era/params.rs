//! The reservation model's scenario section (seed 004, ALGORITHMS.md §6.5): the preset, the policies
//! (algorithm × predictor, from their spec strings), the workload's shape, capacity and κ_use grid, with the
//! defaults and their validation.

pub use super::policies::spec::{Algorithm, Policy, Predictor};
use crate::substrate::error::{FieldError, FieldErrors};
use serde::{Deserialize, Serialize};

/// The experiment (ALGORITHMS.md §6.5). Serialized `E4.1` / `E4.3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// Real SWIM MapReduce arrivals and sizes, six size classes (the largest with unit value $1, the rest $10),
    /// a cluster far too small: value efficiency of BASIC_ECON vs GREEDY_FIRSTFIT.
    #[serde(rename = "E4.1")]
    E41,
    /// ERA's 20% of a 150K-core datacenter whose other 80% carries real Azure 2017 load; synthetic ERA jobs;
    /// late-job % vs accepted revenue as κ_use sweeps.
    #[serde(rename = "E4.3")]
    E43,
}

impl Preset {
    /// Both experiments.
    pub const ALL: [Preset; 2] = [Preset::E41, Preset::E43];

    /// `E4.1` or `E4.3`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::E41 => "E4.1",
            Preset::E43 => "E4.3",
        }
    }

    /// One line on the experiment (the playground's experiment list).
    pub fn title(self) -> &'static str {
        match self {
            Preset::E41 => "SWIM MapReduce jobs, value efficiency",
            Preset::E43 => "beside real Azure load, late jobs vs revenue",
        }
    }

    /// The bundled workload the experiment reads ([`crate::data`]): E4.1 the SWIM jobs, E4.3 the Azure VMs of
    /// its non-ERA load.
    pub fn workload(self) -> &'static str {
        match self {
            Preset::E41 => "swim-fb2010",
            Preset::E43 => "azure2017-arrivals",
        }
    }

    /// The policies the experiment compares when the section lists none ([`EraParams::policy_list`]).
    pub fn policies(self) -> Vec<Policy> {
        let names: &[&str] = match self {
            Preset::E41 => &["greedy", "basic-econ:lp", "basic-econ:spread"],
            Preset::E43 => &[
                "on-demand",
                "greedy",
                "basic-econ:linear",
                "basic-econ:linear:penalty",
                "basic-econ:lp",
                "basic-econ:lp:penalty",
            ],
        };
        names
            .iter()
            .map(|n| Policy::parse(n).expect("preset policy"))
            .collect()
    }

    /// Whether the experiment can run `policy` (E4.1 has no known job distributions for the linear predictor).
    pub fn accepts(self, policy: &Policy) -> bool {
        self == Preset::E43 || !policy.needs_known_distributions()
    }
}

/// An experiment as the playground lists it (the `presets` operation): its name, title, bundled workload,
/// the policies it compares by default and every policy it accepts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PresetInfo {
    /// `E4.1` or `E4.3`.
    pub name: &'static str,
    /// One line on the experiment.
    pub title: &'static str,
    /// The bundled workload id it reads.
    pub workload: &'static str,
    /// Its default policies, by name.
    pub policies: Vec<String>,
    /// Every policy name it accepts.
    pub accepts: Vec<String>,
}

impl PresetInfo {
    /// Both experiments.
    pub fn all() -> Vec<PresetInfo> {
        Preset::ALL
            .into_iter()
            .map(|p| PresetInfo {
                name: p.name(),
                title: p.title(),
                workload: p.workload(),
                policies: p.policies().iter().map(Policy::name).collect(),
                accepts: Policy::all()
                    .iter()
                    .filter(|q| p.accepts(q))
                    .map(Policy::name)
                    .collect(),
            })
            .collect()
    }
}

/// Where E4.3's non-ERA load comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonEraLoad {
    /// Cores alive per slot in the scenario's Azure workload, scaled to the non-ERA share at their
    /// [`EraParams::nonera_quantile`].
    Azure,
    /// The §6.5 synthetic load: a diurnal sinusoid (amplitude 10%) plus AR(1) noise (ρ = 0.95, σ = 2%).
    Synthetic,
}

/// What the run does at the workload's end `end` (the first slot after the last arrival; ALGORITHMS.md §6.5
/// "Horizon"): arrivals stop there while the execution continues until every accepted job has finished.
/// Serialized `open`, `no-arrivals`, `cut-windows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Horizon {
    /// The version-1 behaviour: the predictor assumes arrivals never stop, so it prices slots after `end` for
    /// demand that never comes.
    Open,
    /// The horizon-aware predictor: predicted demand at slot τ counts only predicted requests arriving before
    /// `end` (in `[now, min(τ, end − 1)]`, at the predictor's bucket resolution).
    NoArrivals,
    /// Every request's window is cut at the horizon: `d ← max(min(d, end), s + T)`, so no policy schedules
    /// work into the idle tail (the predictor is the version-1 one; its history is cut the same way).
    CutWindows,
}

impl Horizon {
    /// `open`, `no-arrivals` or `cut-windows`.
    pub fn name(self) -> &'static str {
        match self {
            Horizon::Open => "open",
            Horizon::NoArrivals => "no-arrivals",
            Horizon::CutWindows => "cut-windows",
        }
    }
}

/// Where E4.1's requests come from. Serialized `swim`, `synthetic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum E41Jobs {
    /// The scenario's SWIM workload: real arrivals and bytes, six equal-count work sextiles as classes.
    Swim,
    /// The ALGORITHMS.md §6.5 generator: six classes of [`EraParams::jobs_per_class`] jobs arriving uniformly
    /// over [`EraParams::synthetic_days`], mean widths {1, 2, 4, 8, 3, 32} units, "yahoo-5" (32 units) at $1
    /// per unit-slot, the rest $10 (the paper's E4.1).
    Synthetic,
}

/// How E4.1's capacity `C` is set. Serialized `arrivals`, `runnable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapacityBasis {
    /// The version-1 rule: `C = capacity_frac × offered work / (slots of the arrival span)`, widths capped at
    /// `max_units` only (jobs wider than `C` can never run).
    Arrivals,
    /// `C = capacity_frac × runnable work / span`: the runnable work `Σ min(W, C)·T` has every width clamped
    /// to `C`, and the span it can run in is the arrival span plus the work-weighted mean window
    /// `Σ W·T·(d − s) / Σ W·T` (windows reach past the last arrival); a fixed point, found by iteration.
    Runnable,
}

/// E4.3's datacenter in the paper (seed 004 §6.5, ALGORITHMS.md §6.5), cores: `packlab era run`'s default;
/// the scenario default ([`EraParams::default`]) is smaller so the playground's default view answers in seconds.
pub const PAPER_DATACENTER_CORES: f64 = 150_000.0;

/// The reservation model's scenario section. Empty `policies` / `kappa` take the preset's lists
/// ([`EraParams::policy_list`], [`EraParams::kappa_list`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EraParams {
    /// The experiment.
    pub preset: Preset,
    /// Policies to compare (empty = the preset's).
    pub policies: Vec<Policy>,
    /// Capacity fractions κ_use in (0, 1] (empty = the preset's: E4.1 `[1]`, E4.3 `[0.6, 0.7, 0.8, 0.9, 1]`).
    pub kappa: Vec<f64>,
    /// Length of a prediction period, hours: the LP (and the spreading predictor) of period k are fitted on the
    /// requests that arrived in period k − 1; period 0 is history only and is not scheduled.
    pub period_h: f64,
    /// Bucket of the LP's time axis, minutes (the LP's variables are per job and bucket of its window).
    pub lp_bucket_min: f64,
    /// γ_pen of the late-start penalty `exp(γ_pen·(x − s)/(d − s))`.
    pub gamma_pen: f64,
    /// E4.1: cluster capacity as a fraction of the mean offered load of the scheduled periods.
    pub capacity_frac: f64,
    /// E4.1: bytes one unit processes per slot (one task slot, one minute), bytes.
    pub unit_bytes: f64,
    /// E4.1: most units one job may ask for.
    pub max_units: f64,
    /// E4.1: mean of the window slack factor: `d − s = T·(1 + Exp(mean))`.
    pub window_mean: f64,
    /// E4.1: the greedy fixed price per unit-slot, $.
    pub p_fix: f64,
    /// E4.3: datacenter cores (default 100,000, the playground's teaching size: its 30-cell view answers in
    /// seconds; the paper's 150,000 (§6.5) is `packlab era run`'s default and the findings' set-up).
    pub datacenter_cores: f64,
    /// E4.3: ERA's share of the datacenter, in (0, 1).
    pub era_share: f64,
    /// E4.3: scheduled days after the history period.
    pub days: f64,
    /// E4.3: offered ERA work per slot as a multiple of ERA's capacity [UNSTATED].
    pub load: f64,
    /// E4.3: σ of the job duration's log (median 1 h) [UNSTATED].
    pub t_sigma: f64,
    /// E4.3: where the non-ERA load comes from.
    pub nonera: NonEraLoad,
    /// E4.3: the quantile of the Azure load (over the scheduled window) that exactly fills the non-ERA share;
    /// above it the non-ERA load takes ERA's cores [UNSTATED].
    pub nonera_quantile: f64,
    /// E4.3: start of the Azure window used, hours after the workload's first arrival (the first day ramps
    /// up from an empty datacenter).
    pub nonera_start_h: f64,
    /// What happens at the workload's end ([`Horizon`]; default `no-arrivals`, §6.5: the predictor must not
    /// price capacity after the last arrival; links of defaults sets 3–6 decode to `open`, the version-1
    /// behaviour).
    pub horizon: Horizon,
    /// E4.1: where the requests come from ([`E41Jobs`]; default `synthetic`, the paper's set-up; links of
    /// defaults sets 3–6 decode to `swim`).
    pub jobs: E41Jobs,
    /// E4.1: how `C` is set ([`CapacityBasis`]; default `runnable`; links of defaults sets 3–6 decode to
    /// `arrivals`, the version-1 rule).
    pub capacity_basis: CapacityBasis,
    /// E4.1 synthetic: jobs per class arriving in the scheduled days (ALGORITHMS.md §6.5: about 1,450).
    pub jobs_per_class: f64,
    /// E4.1 synthetic: scheduled days after the history period (arrivals uniform over them; §6.5: 7).
    pub synthetic_days: f64,
    /// E4.3: BASIC_ECON's price floor `p_min` as a multiple of `p_full` (stated: 0.65; a swept parameter).
    pub e43_floor: f64,
    /// E4.3: greedy's fixed price `p_fix` as a multiple of `p_full`; `None` (null) = `e43_floor` (the stated
    /// set-up: both 0.65). Swept apart from the floor so that neither comparison is built in.
    pub e43_greedy_price: Option<f64>,
    /// Solve the LP predictor at `κ_use·C` (the capacity BASIC_ECON plans against) instead of `C`.
    pub lp_at_kappa: bool,
    /// Users' quote rules in the policy language (issue 31, [`super::policies::script`]), each run as
    /// `script:<name>` where the policy list names it, else after the list (empty by default; not written
    /// when empty, so scenarios without scripts encode as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<crate::script::ScriptPolicy>,
}

impl Default for EraParams {
    /// The defaults: E4.3 (real Azure non-ERA load, the preset's policies and κ grid) in a 100,000-core
    /// datacenter (2/3 of the paper's, [`PAPER_DATACENTER_CORES`]; defaults set 14), 12-hour periods,
    /// 30-minute LP buckets, γ_pen = 0.5; E4.1's derivation from SWIM bytes (64 MB per unit-slot, at most
    /// 1,000 units, capacity 25% of the offered load).
    fn default() -> Self {
        EraParams {
            preset: Preset::E43,
            policies: Vec::new(),
            kappa: Vec::new(),
            period_h: 12.0,
            lp_bucket_min: 30.0,
            gamma_pen: 0.5,
            capacity_frac: 0.25,
            unit_bytes: 64e6,
            max_units: 1000.0,
            window_mean: 3.0,
            p_fix: 0.5,
            datacenter_cores: 100_000.0,
            era_share: 0.2,
            days: 1.0,
            load: 1.0,
            t_sigma: 1.0,
            nonera: NonEraLoad::Azure,
            nonera_quantile: 0.75,
            nonera_start_h: 24.0,
            horizon: Horizon::NoArrivals,
            jobs: E41Jobs::Synthetic,
            capacity_basis: CapacityBasis::Runnable,
            jobs_per_class: 1450.0,
            synthetic_days: 7.0,
            e43_floor: 0.65,
            e43_greedy_price: None,
            lp_at_kappa: false,
            scripts: Vec::new(),
        }
    }
}

/// Most requests one run may schedule (history included).
pub const MAX_REQUESTS: usize = 200_000;
/// Most slots (minutes) one run may span: 60 days.
pub const MAX_SLOTS: i64 = 60 * 1440;

impl EraParams {
    /// The policies compared: the section's, or the preset's (E4.1: greedy, BASIC_ECON with the LP and with
    /// spreading; E4.3: on-demand, greedy, BASIC_ECON with the linear and the LP predictor, each with and
    /// without the penalty), without repeats; then `script:<name>` of every enabled script of `scripts` not
    /// listed (a listed script that is disabled is dropped).
    pub fn policy_list(&self) -> Vec<Policy> {
        let listed = if self.policies.is_empty() {
            self.preset.policies()
        } else {
            self.policies.clone()
        };
        let enabled = |p: &Policy| match &p.script {
            Some(n) => self.scripts.iter().any(|s| &s.name == n && s.enabled),
            None => true,
        };
        let mut out: Vec<Policy> = Vec::new();
        let scripts = self
            .scripts
            .iter()
            .filter(|s| s.enabled)
            .map(|s| Policy::script(&s.name));
        for p in listed.into_iter().filter(enabled).chain(scripts) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// The compiled source of script policy `policy` (`None` for a built-in one or a script that is not in
    /// `scripts` or does not compile: validation refuses both).
    pub fn script_of(&self, policy: &Policy) -> Option<std::sync::Arc<crate::script::Script>> {
        let n = policy.script.as_ref()?;
        let s = self.scripts.iter().find(|s| &s.name == n)?;
        super::policies::hook::compile(&s.source)
            .ok()
            .map(std::sync::Arc::new)
    }

    /// The κ_use values swept: the section's, or the preset's.
    pub fn kappa_list(&self) -> Vec<f64> {
        if !self.kappa.is_empty() {
            return self.kappa.clone();
        }
        match self.preset {
            Preset::E41 => vec![1.0],
            Preset::E43 => vec![0.6, 0.7, 0.8, 0.9, 1.0],
        }
    }

    /// Every problem, field paths prefixed with `prefix` (e.g. `era.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if self.policies.len() > 16 {
            errs.add("policies", "at most 16 policies".into());
        }
        if self.kappa.len() > 20 {
            errs.add("kappa", "at most 20 values".into());
        }
        for (i, k) in self.kappa.iter().enumerate() {
            if !(*k > 0.0 && *k <= 1.0) {
                errs.add(
                    &format!("kappa[{i}]"),
                    format!("must lie in (0, 1], got {k}"),
                );
            }
        }
        if self.policy_list().iter().any(|p| !self.preset.accepts(p)) {
            errs.add(
                "policies",
                "the linear predictor needs the known job distributions of E4.3".into(),
            );
        }
        for n in self.policies.iter().filter_map(|p| p.script.as_ref()) {
            if !self.scripts.iter().any(|s| &s.name == n) {
                errs.add(
                    "policies",
                    format!("'script:{n}' names no script of era.scripts"),
                );
            }
        }
        crate::script::policy::validate_scripts(
            &self.scripts,
            super::policies::hook::compile,
            &mut errs,
        );
        let ranges: [(&str, f64, f64, f64); 18] = [
            ("jobs_per_class", self.jobs_per_class, 1.0, 20_000.0),
            (
                "e43_greedy_price",
                self.e43_greedy_price.unwrap_or(self.e43_floor),
                0.0,
                1.0,
            ),
            ("synthetic_days", self.synthetic_days, 0.01, 30.0),
            ("e43_floor", self.e43_floor, 0.0, 1.0),
            ("nonera_quantile", self.nonera_quantile, 0.0, 1.0),
            ("period_h", self.period_h, 1.0, 168.0),
            ("lp_bucket_min", self.lp_bucket_min, 1.0, 240.0),
            ("gamma_pen", self.gamma_pen, 0.0, 50.0),
            ("capacity_frac", self.capacity_frac, 1e-3, 10.0),
            ("unit_bytes", self.unit_bytes, 1.0, 1e15),
            ("max_units", self.max_units, 1.0, 1e6),
            ("window_mean", self.window_mean, 0.0, 100.0),
            ("p_fix", self.p_fix, 0.0, 1e6),
            ("datacenter_cores", self.datacenter_cores, 1.0, 1e8),
            ("era_share", self.era_share, 1e-3, 1.0),
            ("days", self.days, 0.01, 30.0),
            ("load", self.load, 0.01, 20.0),
            ("t_sigma", self.t_sigma, 0.0, 3.0),
        ];
        errs.check_ranges(&ranges);
        if !(self.nonera_start_h.is_finite() && (0.0..=1e5).contains(&self.nonera_start_h)) {
            errs.add(
                "nonera_start_h",
                format!("must be a number in [0, 1e5], got {}", self.nonera_start_h),
            );
        }
        errs.into_vec()
    }
}
