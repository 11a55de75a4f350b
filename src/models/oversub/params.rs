//! The oversubscription model's scenario section ([`OversubParams`], ALGORITHMS.md §3.7), its presets and
//! limits, and the random-stream ids of a run.

use super::c2marl::C2marlConfig;
#[cfg(doc)]
use super::policies::spec::ALPHA_RANGE;
use super::policies::spec::{Peak, Policy};
use crate::substrate::error::{FieldError, FieldErrors};
use serde::{Deserialize, Serialize};

/// Component ids of the model's random streams ([`crate::substrate::rng::stream`]).
pub mod component {
    /// The synthetic subscriber profiles of a run.
    pub const PROFILES: u64 = 0x0510;
    /// Training episodes (index = episode).
    pub const TRAIN: u64 = 0x0511;
    /// Evaluation episodes (index = episode): the same for every policy.
    pub const EVAL: u64 = 0x0512;
    /// History episodes the SL, peak and GPA estimates are fitted on (index = day).
    pub const HISTORY: u64 = 0x0513;
    /// C2MARL's network initialisation and exploration (index = training arm).
    pub const LEARNER: u64 = 0x0514;
}

/// The order in which one hour's new VMs reach the allocator (ALGORITHMS.md §3.1). Serialized `subscriber`,
/// `mixed`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalOrder {
    /// Subscriber by subscriber (then draw order): the default of defaults sets 4–8, kept so old links keep
    /// their numbers. It co-locates one subscriber's VMs and lines up their peaks (issue 25: C-Hot-R 30–300×
    /// PM-Hot-R, against 1.3–3.2× in seed 001 Table 5).
    #[default]
    Subscriber,
    /// One seeded random order across subscribers per hour (ALGORITHMS.md §3.1 as corrected; the default from
    /// defaults set 9).
    Mixed,
}

/// The experiment (ALGORITHMS.md §3.6). Serialized `E1.1` … `E1.4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// Synthetic internal cloud, cold start (every PM empty at the episode start).
    #[serde(rename = "E1.1")]
    E11,
    /// Synthetic internal cloud, warm start (the VMs alive at the start are pre-placed, not oversubscribed).
    #[serde(rename = "E1.2")]
    E12,
    /// Azure-derived subscribers (fitted from the Azure 2019 CPU readings and the 2017 arrivals), cold start.
    #[serde(rename = "E1.3")]
    E13,
    /// The cluster vs PM hot ratio (App. B.2): E1.1's setting, reported as C-Hot-R beside PM-Hot-R.
    #[serde(rename = "E1.4")]
    E14,
}

impl Preset {
    /// `E1.1` … `E1.4`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::E11 => "E1.1",
            Preset::E12 => "E1.2",
            Preset::E13 => "E1.3",
            Preset::E14 => "E1.4",
        }
    }

    /// Whether the subscribers are the Azure-derived fit (E1.3) rather than the synthetic internal cloud.
    pub fn azure(self) -> bool {
        self == Preset::E13
    }

    /// Whether episodes start warm (E1.2).
    pub fn warm(self) -> bool {
        self == Preset::E12
    }
}

/// What the page shows of a section before it runs (the `setup` operation): the policies an empty list
/// stands for, the PM count K and the α range, so the page copies none of them.
#[derive(Serialize)]
pub struct SectionSetup {
    /// [`OversubParams::policy_list`] as spec strings.
    pub policies: Vec<Policy>,
    /// [`OversubParams::pm_count`].
    pub pms: u32,
    /// [`ALPHA_RANGE`] as `[min, max]`.
    pub alpha: [f64; 2],
}

/// The oversubscription model's scenario section (ALGORITHMS.md §3.7 defaults; every unstated choice is a
/// field). `0` in `pms`, `subscribers` and empty `policies` mean the preset's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OversubParams {
    /// The experiment.
    pub preset: Preset,
    /// Policies to compare (empty = the preset's, [`OversubParams::policy_list`]).
    pub policies: Vec<Policy>,
    /// PMs K (0 = the preset's: 500 internal, 200 Azure).
    pub pms: u32,
    /// Subscribers N of the synthetic cloud (0 = the preset's 12; E1.3 has the fit's 9).
    pub subscribers: u32,
    /// PM CPU capacity B, cores.
    pub pm_cores: f64,
    /// PM memory, GB. Default 424 (issue 25's calibration search at 500 PMs against seed 001 Tables 1 and 5,
    /// results/001/calibration.md; 384 in sets 9–12, 1,536 until set 8): at 4 GB per requested core memory
    /// binds at 106 requested cores per PM, ≈ 2.2·B, so rates below ≈ 0.45 pack about as densely as 0.45
    /// (seed 001 Table 1's Grid-0.2 is hot about as often as Grid-0.4, so memory binds there too).
    pub pm_mem_gb: f64,
    /// PM network, Gb/s.
    pub pm_net_gbps: f64,
    /// Synthetic cloud: range of the base usage `b_n` of the diurnal mean (ALGORITHMS.md §3.6).
    pub base: [f64; 2],
    /// Synthetic cloud: range of the diurnal amplitude `A_n`. ALGORITHMS.md §3.6 suggests [0.05, 0.45]; with
    /// it, peaks reach μ = 0.6 = β, so PMs full of one subscriber's VMs are hot at their peak even without
    /// oversubscription (Grid-1 is hot in every episode at the cluster level) and the chance constraint cannot be
    /// met by any policy; the default [0.05, 0.25] keeps the stated anchors instead (seed 001 §6.3: usage /
    /// requested between 0.1 and 0.3; Table 1: Grid-0.6 never unsafe). results/001/tables.md has both runs.
    pub amplitude: [f64; 2],
    /// VM memory per requested core, GB (synthetic cloud; E1.3 takes the fit's).
    pub vm_mem_gb_per_core: f64,
    /// Factor on every subscriber's usage mean and s.d. (the mean clipped at 1), in (0, 10]. Default 1 (the
    /// profiles as generated or fitted). For E1.3 it scales the Azure fit, whose mean usage (0.12) is far below
    /// what seed 001 §6.7 / Table 3 imply ("much higher than the internal cloud": MA and SL save 8%); issue 25's
    /// E1.3 calibration (results/001/calibration-e13.md) chooses it.
    pub usage_scale: f64,
    /// Upper bound on every subscriber's hourly usage mean after [`OversubParams::usage_scale`], in (0, 1].
    /// Default 1 (the mean's clip at 1, as before). Ours (issue 25, B1 a): with E1.3's × 2.5 only the Azure
    /// fit's busiest subscriber (0XnZZ8sM, mean peak 0.63 → 1) reaches it below 1, so a cap lowers its peak
    /// hours (which make Grid-1 hot) and leaves the others; results/001/calibration-e13.md has the search.
    pub usage_cap: f64,
    /// The rate at which a warm start (E1.2) places the history's VMs, in (0, 1]. Default 1 (assigned =
    /// requested: the warm cluster starts as if never oversubscribed, ALGORITHMS.md §3.6). Seed 001 does not
    /// state it; its Table 2 (Grid-0.2 / 0.4 hot in 95.4 / 100% of the episodes, against 30.9 / 22.7% cold)
    /// implies a warm cluster that starts denser; results/001/calibration-e12.md has the search (issue 25, B5).
    pub warm_rate: f64,
    /// VM network per requested core, Gb/s.
    pub vm_net_gbps_per_core: f64,
    /// The order of one hour's new VMs at the allocator (default `mixed`, ALGORITHMS.md §3.1 as corrected;
    /// `subscriber` until defaults set 8, see [`ArrivalOrder`]).
    pub arrival_order: ArrivalOrder,
    /// Hot threshold β: a PM is hot in an hour when its VMs' usage reaches β·B.
    pub beta: f64,
    /// δ: a PM is unsafe in an episode when it is hot in at least δ·T hours.
    pub delta: f64,
    /// Hours T per episode (120 = five weekdays).
    pub hours: u32,
    /// Requested cores alive as a fraction of the cluster's cores (without oversubscription), on average: sets
    /// the arrival rate by Little's law. Default 0.5 (issue 25's calibration search at 500 PMs; 0.4 in sets
    /// 9–12).
    pub occupancy: f64,
    /// The action set of C2MARL (rates in (0, 1]).
    pub actions: Vec<f64>,
    /// Evaluation episodes E per policy.
    pub eval_episodes: u32,
    /// Training episodes per C2MARL arm.
    pub train_episodes: u32,
    /// Training seeds per C2MARL safety level (each one an arm of its own).
    pub train_seeds: u32,
    /// History days the SL maximum and the GPA moments are fitted on (episodes of their own seeds).
    pub history_days: u32,
    /// MA's window, hours.
    pub ma_window_h: u32,
    /// The peak predictor's window, hours.
    pub peak_window_h: u32,
    /// GPA: the hours ahead (from a VM's creation) whose hot probability the rate must bound.
    pub gpa_horizon_h: u32,
    /// Lowest rate of the MA, SL, peak and GPA policies (the paper's clip at 0.2).
    pub min_rate: f64,
    /// The usage fraction of a full PM the MA, SL and peak predictors aim at: rate = prediction / target
    /// (`0` = β, the default: a full PM's predicted usage at the hot line; `1` = ALGORITHMS.md §3.4's plain
    /// clip of the prediction, see [`super::policies`]).
    pub predictor_target: f64,
    /// C2MARL's learner (ALGORITHMS.md §3.7 defaults). Its `alpha`, `delta` and `episodes` are the run's —
    /// the policy name's α (`c2marl:0.95`), [`OversubParams::delta`] and [`OversubParams::train_episodes`] —
    /// and must stay at their defaults here.
    pub c2marl: C2marlConfig,
    /// Users' rate policies in the policy language (issue 31, [`super::policies::script`]), each a row
    /// `script:<name>` after the policy list's (empty by default; not written when empty, so scenarios
    /// without scripts encode as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<crate::script::ScriptPolicy>,
}

impl Default for OversubParams {
    /// The defaults: E1.1, the preset's policies, ALGORITHMS.md §3.7 (B = 48 cores, β = 0.6, δ = 1/40,
    /// T = 120), the settings calibrated at 500 PMs against seed 001 Tables 1 and 5 (results/001/calibration.md:
    /// 424 GB per PM, occupancy 0.5, mixed arrivals; defaults set 13), 100 evaluation and 200 training episodes (the paper's 300
    /// and 1,800 are a CLI flag away).
    fn default() -> Self {
        OversubParams {
            preset: Preset::E11,
            policies: Vec::new(),
            pms: 0,
            subscribers: 0,
            pm_cores: 48.0,
            pm_mem_gb: 424.0,
            pm_net_gbps: 40.0,
            base: [0.05, 0.15],
            amplitude: [0.05, 0.25],
            vm_mem_gb_per_core: 4.0,
            usage_scale: 1.0,
            usage_cap: 1.0,
            warm_rate: 1.0,
            vm_net_gbps_per_core: 0.1,
            arrival_order: ArrivalOrder::Mixed,
            beta: 0.6,
            delta: 1.0 / 40.0,
            hours: 120,
            occupancy: 0.5,
            actions: vec![0.2, 0.3, 0.4, 0.5, 0.6, 1.0],
            eval_episodes: 100,
            train_episodes: 200,
            train_seeds: 1,
            history_days: 5,
            ma_window_h: 24,
            peak_window_h: 24,
            gpa_horizon_h: 24,
            min_rate: 0.2,
            predictor_target: 0.0,
            c2marl: C2marlConfig::default(),
            scripts: Vec::new(),
        }
    }
}

/// Most PMs one run may simulate.
pub const MAX_PMS: u32 = 5_000;
/// Most evaluation plus training episodes of one run (each policy's evaluation counts).
pub const MAX_EPISODES: u64 = 200_000;

impl OversubParams {
    /// The policies compared: the section's (duplicates dropped), or the preset's: Grid-0.2/0.4/0.6 (and
    /// Grid-1.0 for E1.3), MA, SL, the peak predictor p95, GPA at α = 0.95 and C2MARL at α = 0.95; then
    /// `script:<name>` of every enabled script not listed (a listed script that is disabled is dropped).
    pub fn policy_list(&self) -> Vec<Policy> {
        let mut v = self.listed_policies();
        v.retain(|p| match p {
            Policy::Script(n) => self.scripts.iter().any(|s| &s.name == n && s.enabled),
            _ => true,
        });
        for s in self.scripts.iter().filter(|s| s.enabled) {
            let p = Policy::Script(s.name.clone());
            if !v.contains(&p) {
                v.push(p);
            }
        }
        v
    }

    /// The section's policies (duplicates dropped), or the preset's.
    fn listed_policies(&self) -> Vec<Policy> {
        if !self.policies.is_empty() {
            let mut out: Vec<Policy> = Vec::new();
            for p in &self.policies {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
            return out;
        }
        let mut v = vec![Policy::Grid(0.2), Policy::Grid(0.4), Policy::Grid(0.6)];
        if self.preset.azure() {
            v.push(Policy::Grid(1.0));
        }
        v.extend([
            Policy::Ma,
            Policy::Sl,
            Policy::Peak(Peak::Percentile(95.0)),
            Policy::Gpa(0.95),
            Policy::C2marl(0.95),
        ]);
        v
    }

    /// K: the section's, or the preset's (500 internal, 200 Azure).
    pub fn pm_count(&self) -> u32 {
        match (self.pms, self.preset.azure()) {
            (0, false) => 500,
            (0, true) => 200,
            (k, _) => k,
        }
    }

    /// N of the synthetic cloud: the section's, or 12.
    pub fn subscriber_count(&self) -> u32 {
        if self.subscribers == 0 {
            12
        } else {
            self.subscribers
        }
    }

    /// Every problem, field paths prefixed with `prefix` (e.g. `oversub.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if self.policies.len() > 24 {
            errs.add("policies", "at most 24 policies".into());
        }
        if self.pm_count() > MAX_PMS {
            errs.add("pms", format!("at most {MAX_PMS} PMs"));
        }
        if self.subscriber_count() > 64 {
            errs.add("subscribers", "at most 64 subscribers".into());
        }
        if self.actions.is_empty() || self.actions.len() > 16 {
            errs.add("actions", "between 1 and 16 rates".into());
        }
        for (i, a) in self.actions.iter().enumerate() {
            if !(*a > 0.0 && *a <= 1.0) {
                errs.add(
                    &format!("actions[{i}]"),
                    format!("must lie in (0, 1], got {a}"),
                );
            }
        }
        for (f, r) in [("base", self.base), ("amplitude", self.amplitude)] {
            if !(r[0].is_finite() && r[1].is_finite() && 0.0 <= r[0] && r[0] <= r[1] && r[1] <= 1.0)
            {
                errs.add(
                    f,
                    format!(
                        "must be [lo, hi] with 0 ≤ lo ≤ hi ≤ 1, got [{}, {}]",
                        r[0], r[1]
                    ),
                );
            } else if r[1]
                + if f == "base" {
                    self.amplitude[1]
                } else {
                    self.base[1]
                }
                > 1.0
            {
                errs.add(
                    f,
                    "base + amplitude must stay ≤ 1 (a usage fraction)".into(),
                );
            }
        }
        let ranges: [(&str, f64, f64, f64); 13] = [
            ("pm_cores", self.pm_cores, 1.0, 1024.0),
            ("pm_mem_gb", self.pm_mem_gb, 1.0, 1e6),
            ("pm_net_gbps", self.pm_net_gbps, 0.01, 1e5),
            ("vm_mem_gb_per_core", self.vm_mem_gb_per_core, 0.0, 1e3),
            ("vm_net_gbps_per_core", self.vm_net_gbps_per_core, 0.0, 1e3),
            ("usage_scale", self.usage_scale, 1e-3, 10.0),
            ("usage_cap", self.usage_cap, 1e-3, 1.0),
            ("warm_rate", self.warm_rate, 0.01, 1.0),
            ("beta", self.beta, 0.01, 1.0),
            ("delta", self.delta, 1e-4, 1.0),
            ("occupancy", self.occupancy, 0.01, 1.0),
            ("min_rate", self.min_rate, 0.01, 1.0),
            ("predictor_target", self.predictor_target, 0.0, 1.0),
        ];
        errs.check_ranges(&ranges);
        let counts: [(&str, u32, u32, u32); 8] = [
            ("hours", self.hours, 1, 24 * 28),
            ("eval_episodes", self.eval_episodes, 1, 10_000),
            ("train_episodes", self.train_episodes, 1, 100_000),
            ("train_seeds", self.train_seeds, 1, 10),
            ("history_days", self.history_days, 1, 60),
            ("ma_window_h", self.ma_window_h, 1, 48),
            ("peak_window_h", self.peak_window_h, 1, 48),
            ("gpa_horizon_h", self.gpa_horizon_h, 1, 168),
        ];
        for (f, v, lo, hi) in counts {
            if v < lo || v > hi {
                errs.add(f, format!("must be an integer in [{lo}, {hi}], got {v}"));
            }
        }
        let list = self.policy_list();
        let arms = list
            .iter()
            .filter(|p| matches!(p, Policy::C2marl(_)))
            .count() as u64
            * self.train_seeds as u64;
        let episodes =
            arms * self.train_episodes as u64 + list.len() as u64 * self.eval_episodes as u64;
        if episodes > MAX_EPISODES {
            errs.add(
                "eval_episodes",
                format!("the run would simulate {episodes} episodes; at most {MAX_EPISODES}"),
            );
        }
        let d = C2marlConfig::default();
        for (f, set) in [
            ("alpha", self.c2marl.alpha != d.alpha),
            ("delta", self.c2marl.delta != d.delta),
            ("episodes", self.c2marl.episodes != d.episodes),
        ] {
            if set {
                errs.add(
                    &format!("c2marl.{f}"),
                    "is the run's (the policy name c2marl:α, oversub.delta, oversub.train_episodes); leave it out".into(),
                );
            }
        }
        for e in self.c2marl.validate_fields() {
            errs.add(&format!("c2marl.{}", e.field), e.message);
        }
        for p in &self.policies {
            if let Policy::Script(n) = p {
                if !self.scripts.iter().any(|s| &s.name == n) {
                    errs.add(
                        "policies",
                        format!("'script:{n}' names no script of oversub.scripts"),
                    );
                }
            }
        }
        crate::script::policy::validate_scripts(
            &self.scripts,
            super::policies::hook::compile,
            &mut errs,
        );
        errs.into_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_fields() {
        let p = OversubParams {
            beta: f64::NAN,
            actions: vec![0.5, 1.5],
            hours: 0,
            ..OversubParams::default()
        };
        let f: Vec<String> = p
            .validate("oversub.")
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(f, ["oversub.actions[1]", "oversub.beta", "oversub.hours"]);
        assert!(OversubParams::default().validate("oversub.").is_empty());
    }
}
