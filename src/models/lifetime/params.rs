//! The lifetime model's scenario section ([`LifetimeParams`]: pool, policies, predictor; its defaults and
//! validation) and the names it is written with ([`Policy`], [`PredictorKind`]) (ALGORITHMS.md §5, seed 003).

use super::predictor;
use crate::substrate::error::{FieldError, FieldErrors};
use serde::{Deserialize, Serialize};

/// A placement policy (ALGORITHMS.md §5.1, §5.3–5.5). Serialized as its name: `best-fit`, `la-binary`,
/// `nilas`, `lava`, or `script:NAME` (a user's host score of `lifetime.scripts`, issue 31).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Policy {
    /// The baseline scorer: multi-dimensional best fit (§5.1 [UNSTATED → best fit]).
    BestFit,
    /// One-shot binary lifetime classes at 2 h, same-class hosts first (§5.5).
    LaBinary,
    /// Non-invasive lifetime-aware scoring: the temporal cost ahead of best fit (§5.3).
    Nilas,
    /// Lifetime classes, host states and deadlines, NILAS within the chosen tier (§5.4).
    Lava,
    /// The user's host score of this name in `lifetime.scripts` ([`super::policies::script`]).
    Script(String),
}

impl Policy {
    /// Every built-in policy, baseline first.
    pub const ALL: [Policy; 4] = [
        Policy::BestFit,
        Policy::LaBinary,
        Policy::Nilas,
        Policy::Lava,
    ];

    /// The policy's name (`best-fit`, `la-binary`, `nilas`, `lava`, `script:NAME`).
    pub fn name(&self) -> String {
        match self {
            Policy::BestFit => "best-fit".into(),
            Policy::LaBinary => "la-binary".into(),
            Policy::Nilas => "nilas".into(),
            Policy::Lava => "lava".into(),
            Policy::Script(n) => format!("script:{n}"),
        }
    }

    /// The policy's name in the paper (`best fit`, `LA-Binary`, `NILAS`, `LAVA`; a script's `script:NAME`).
    pub fn title(&self) -> String {
        match self {
            Policy::BestFit => "best fit".into(),
            Policy::LaBinary => "LA-Binary".into(),
            Policy::Nilas => "NILAS".into(),
            Policy::Lava => "LAVA".into(),
            Policy::Script(_) => self.name(),
        }
    }

    /// One line on what the policy does, with its section (the playground's policy list).
    pub fn hint(&self) -> &'static str {
        match self {
            Policy::BestFit => {
                "multi-dimensional best fit: the baseline of every Δ, always simulated (§5.1)"
            }
            Policy::LaBinary => {
                "one-shot binary lifetime classes at 2 h, same-class hosts first (§5.5)"
            }
            Policy::Nilas => {
                "temporal cost of extending a host's exit time ahead of best fit, repredicted (§5.3)"
            }
            Policy::Lava => {
                "lifetime classes, host states and deadlines, NILAS inside the chosen tier (§5.4)"
            }
            Policy::Script(_) => "a user's host score (lifetime.scripts), ties by best fit",
        }
    }

    /// Every built-in policy with its title and hint, in [`Policy::ALL`]'s order (the model's `policies`
    /// operation).
    pub fn infos() -> Vec<crate::experiment::PolicyInfo> {
        Policy::ALL
            .into_iter()
            .map(|p| crate::experiment::PolicyInfo {
                name: p.name(),
                title: p.title(),
                hint: p.hint(),
            })
            .collect()
    }

    /// Parses a name of [`Policy::name`].
    pub fn parse(s: &str) -> Result<Policy, String> {
        let s = s.trim();
        if let Some(n) = s.strip_prefix("script:") {
            let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
            return if n.is_empty() || n.len() > 40 || !n.chars().all(ok) {
                Err(format!(
                    "policy '{s}': a script name of 1–40 letters, digits, '_' or '-' is needed"
                ))
            } else {
                Ok(Policy::Script(n.to_string()))
            };
        }
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown policy '{s}' (expected best-fit, la-binary, nilas, lava or script:NAME)"
                )
            })
    }
}

// Read from its name and written as its name (serde's `try_from` / `into`).
crate::serde_by_name!(Policy, parse: Policy::parse, name: Policy::name);

/// The lifetime predictor (ALGORITHMS.md §5.2). Serialized kebab-case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictorKind {
    /// True lifetimes (right-censored VMs: imputed, see [`pool::Job::life`]).
    Oracle,
    /// The App. G.1 noise model at [`LifetimeParams::accuracy`].
    Noisy,
    /// The population's `E[T − u | T > u]` (Kaplan–Meier of the training VMs), no features.
    Distributional,
    /// The learned distributional predictor: a discrete-time survival model on the training VMs' features
    /// and binned, censored lifetimes; `E[T − u | T > u]` under each job's distribution ([`learned`]).
    Learned,
}

impl PredictorKind {
    /// The name (`oracle`, `noisy`, `distributional`, `learned`).
    pub fn name(self) -> &'static str {
        match self {
            PredictorKind::Oracle => "oracle",
            PredictorKind::Noisy => "noisy",
            PredictorKind::Distributional => "distributional",
            PredictorKind::Learned => "learned",
        }
    }
}

/// The lifetime model's scenario section: the pool, the policies and the predictor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LifetimeParams {
    /// Policies to simulate, in order; best fit (the baseline of every Δ) is simulated first even when absent.
    pub policies: Vec<Policy>,
    /// The lifetime predictor.
    pub predictor: PredictorKind,
    /// Accuracy `A` of the noisy predictor, in [0, 1] (App. G.1).
    pub accuracy: f64,
    /// The noisy predictor's point estimate from its posterior (ALGORITHMS.md §5.2): `capped-mean` (§5.2's
    /// posterior mean, the default from defaults set 11), `median` (the default of sets 9–10) or `mean` (`T`
    /// uncapped).
    pub noisy_estimate: predictor::NoisyEstimate,
    /// Whether predictions are repredicted with the uptime (`false`: the one-shot ablation
    /// `max(L̂ − u, 0)` with `L̂ = R̂(0)` the first prediction, the same model without the update). LA-Binary
    /// never repredicts (§5.5): it counts `L̂` down.
    pub reprediction: bool,
    /// The split simulated: a deployment prefix of the Azure 2017 arrivals (`dev` or `test`); the other split
    /// trains the distributional and learned predictors. Empty = every VM of the workload.
    pub split: String,
    /// Fraction of tenant batches the pool receives, in (0, 1] (thinning by whole batches).
    pub share: f64,
    /// Hosts in the pool; 0 = the workload's own node inventory when it lists nodes (the Alibaba GPU 2023
    /// cluster), else sized to the share: the fewest hosts whose capacity the peak demand fills to at most
    /// `peak_allocation` in every dimension.
    pub hosts: usize,
    /// With `hosts` = 0: the largest fraction of the pool the peak demand may fill, in (0, 1].
    pub peak_allocation: f64,
    /// Cores per host.
    pub host_cores: f64,
    /// Memory per host, GB.
    pub host_memory_gb: f64,
    /// GPUs per host (0 for CPU pools).
    pub host_gpus: f64,
    /// Warm-up before measuring, hours (App. F, stated: 2 days).
    pub warmup_h: f64,
    /// NILAS host-exit cache refresh, seconds (§5.3, stated default 60 s; 0 = no cache).
    pub refresh_s: f64,
    /// Metric sampling period, minutes (§5.8: 5).
    pub sample_min: f64,
    /// Defragmentation with live migrations (§5.6, E3.5): each policy runs with drains in ascending start-time
    /// order, then the same drains replayed in the LARS order (longest predicted remaining lifetime first);
    /// the report carries both migration counts.
    pub defrag: bool,
    /// With `defrag`: maintenance-style drains (seed 003 App. H) instead of the 5%-empty-hosts rule — the
    /// fullest hosts not yet maintained, 3 at a time, each once ([`super::lars::Defrag::maintenance`]). `false` (the
    /// default, and every link made before this field) keeps the threshold rule.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub maintenance: bool,
    /// Stranding (inflation) sampling period, hours (0 = off) [UNSTATED: inflation at every 5-minute sample
    /// costs ~100× a run; every 6 h by default].
    pub stranding_h: f64,
    /// The simulator's warm-up of seed 003 App. F (ALGORITHMS.md §5.1): the workload's VMs outside the split
    /// that were created before the window and are alive at its start (for the Azure 2017 `test` split: the
    /// `dev` VMs still running at its cut) join the pool first, in start order, placed by best fit (the
    /// baseline), thinned by their tenant batches like the split; every VM of the window is then placed by the
    /// policy under test. `false` (the default, and every link made before this field): the pool starts empty
    /// and every VM is placed by the policy under test — the "ideal" setting of App. G.2 (no warm-up state),
    /// with `warmup_h` still excluded from the metrics.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub alive_at_start: bool,
    /// With `hosts` = 0 and the pool starting empty (`alive_at_start` off): size the pool from the peak demand of
    /// the window's VMs together with App. F's alive set (the VMs `alive_at_start` would place first; not placed
    /// here), so that the empty-start and warm-up runs of one share use the same pool (seed 1 of the defaults: 422
    /// hosts for both, against 341 from the window alone). `false` (the default, and every link made before this
    /// field): from the window's VMs alone. With `alive_at_start` on, the alive set is always counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub size_with_alive: bool,
    /// Whether each policy's result carries its placement and class counters (`diagnostics`, see
    /// [`super::sampling::Diagnostics`]); `false` keeps the report's shape of before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diagnostics: bool,
    /// Ablations of the rules the findings localise the gaps to the paper with (issue 27, sixth pass): the
    /// baseline scorer's host order, NILAS's temporal-cost scale, LAVA's deadline moves. The default (every
    /// link made before this field) is the model as specified.
    #[serde(skip_serializing_if = "Ablation::is_default")]
    pub ablation: Ablation,
    /// Users' host scores in the policy language (issue 31, [`super::policies::script`]), each run as
    /// `script:<name>` after the policy list's (empty by default; not written when empty, so scenarios
    /// without scripts encode as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<crate::script::ScriptPolicy>,
}

/// The host order of the baseline scorer (ALGORITHMS.md §5.1 [UNSTATED → multi-dimensional best fit]; seed
/// 003's production scorer, Borg's waste minimisation under business objectives, is not public). NILAS and
/// LAVA break their ties with it too. Serialized kebab-case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scorer {
    /// Least slack `Σ_r (cap_r − used_r)/cap_r` first (the default).
    #[default]
    BestFit,
    /// Lowest host id first (no packing preference).
    FirstFit,
    /// Most slack first (load spreading).
    WorstFit,
}

impl Scorer {
    /// The host's key in the pool's scan order (lower first, ties by host id) from its slack.
    pub fn key(self, slack: f64) -> f64 {
        match self {
            Scorer::BestFit => slack,
            Scorer::FirstFit => 0.0,
            Scorer::WorstFit => -slack,
        }
    }
}

/// NILAS's temporal-cost scale (seed 003 Alg. 2). Serialized kebab-case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CostScale {
    /// The stated bounds 0, 30 min, …, 168 h (cost 0–10; the default).
    #[default]
    Stated,
    /// Finer: `⌈8·log2(1 + ΔT/1 min)⌉` capped at 255 (steps of 9%, no 168 h ceiling below 2^31 min).
    Fine,
    /// Binary: 0 if the host outlives the VM, else 1 (every extension alike).
    Binary,
}

/// LAVA's deadline moves on a placement (ALGORITHMS.md §5.4; ours vs the spec's ON_PLACE). Serialized
/// kebab-case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LavaRules {
    /// Ours (the default): a same-class VM on an OPEN host resets the deadline, and any other VM on a
    /// non-empty host moves it out to cover the VM's class.
    #[default]
    Ours,
    /// Without the OPEN-host reset (the cover rule kept).
    NoOpenMove,
    /// Without the cover rule (the OPEN-host reset kept).
    NoCover,
    /// §5.4's ON_PLACE as written: neither (only an empty host's opening and a class raise set a deadline).
    Spec,
    /// Ours, with NILAS's temporal cost ranked ahead of LAVA's tiers (the tiers then break its ties, before
    /// best fit): whether the tiers' preference over the cost is what LAVA pays for with exact lifetimes.
    CostFirst,
}

/// The ablation knobs of [`LifetimeParams::ablation`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ablation {
    /// The baseline scorer's host order.
    pub scorer: Scorer,
    /// NILAS's (and LAVA's in-tier) temporal-cost scale.
    pub nilas_cost: CostScale,
    /// LAVA's deadline moves.
    pub lava_rules: LavaRules,
}

impl Ablation {
    /// Whether every knob is the model as specified.
    pub fn is_default(&self) -> bool {
        *self == Ablation::default()
    }
}

impl Default for LifetimeParams {
    /// The defaults: all four policies with the oracle on the Azure 2017 `test` split; a pool of 40-core /
    /// 128 GB hosts receiving 20% of the tenant batches, sized so that the peak demand fills 95% of it (see
    /// docs/lifetime.md for the figures behind these choices).
    fn default() -> Self {
        LifetimeParams {
            policies: Policy::ALL.to_vec(),
            predictor: PredictorKind::Oracle,
            accuracy: 0.9,
            noisy_estimate: predictor::NoisyEstimate::CappedMean,
            reprediction: true,
            split: "test".into(),
            share: 0.2,
            hosts: 0,
            peak_allocation: 0.95,
            host_cores: 40.0,
            host_memory_gb: 128.0,
            host_gpus: 0.0,
            warmup_h: 48.0,
            refresh_s: 60.0,
            sample_min: 5.0,
            defrag: false,
            maintenance: false,
            stranding_h: 6.0,
            alive_at_start: false,
            size_with_alive: false,
            diagnostics: false,
            ablation: Ablation::default(),
            scripts: Vec::new(),
        }
    }
}

/// Most hosts a pool may have (the browser holds one state per host).
pub const MAX_POOL_HOSTS: usize = 100_000;

impl LifetimeParams {
    /// Every problem, field paths prefixed with `prefix` (e.g. `lifetime.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if self.policies.is_empty() {
            errs.add("policies", "give at least one policy".into());
        }
        if !(0.0..=1.0).contains(&self.accuracy) {
            errs.add(
                "accuracy",
                format!("must lie in [0, 1], got {}", self.accuracy),
            );
        }
        if !(self.share > 0.0 && self.share <= 1.0) {
            errs.add("share", format!("must lie in (0, 1], got {}", self.share));
        }
        if self.hosts > MAX_POOL_HOSTS {
            errs.add(
                "hosts",
                format!(
                    "must lie in 0..={MAX_POOL_HOSTS} (0 = sized to the share), got {}",
                    self.hosts
                ),
            );
        }
        if !(self.peak_allocation > 0.0 && self.peak_allocation <= 1.0) {
            errs.add(
                "peak_allocation",
                format!("must lie in (0, 1], got {}", self.peak_allocation),
            );
        }
        for (f, v, lo) in [
            ("host_cores", self.host_cores, f64::MIN_POSITIVE),
            ("host_memory_gb", self.host_memory_gb, 0.0),
            ("host_gpus", self.host_gpus, 0.0),
        ] {
            if !(v.is_finite() && v >= lo && v <= 1e6) {
                errs.add(f, format!("must be a number in [{lo}, 1e6], got {v}"));
            }
        }
        for (f, v) in [
            ("warmup_h", self.warmup_h),
            ("refresh_s", self.refresh_s),
            ("stranding_h", self.stranding_h),
        ] {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                errs.add(f, format!("must be a number in [0, 1e6], got {v}"));
            }
        }
        if !(self.sample_min.is_finite() && self.sample_min >= 1.0 && self.sample_min <= 1440.0) {
            errs.add(
                "sample_min",
                format!("must lie in [1, 1440] minutes, got {}", self.sample_min),
            );
        }
        if self.split.len() > 64 {
            errs.add("split", "at most 64 characters".into());
        }
        for p in &self.policies {
            if let Policy::Script(n) = p {
                if !self.scripts.iter().any(|s| &s.name == n) {
                    errs.add(
                        "policies",
                        format!("'script:{n}' names no script of lifetime.scripts"),
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

    /// The policies simulated: best fit first, then the others in the given order without repeats, then
    /// `script:<name>` of every enabled script not listed (a listed script that is disabled is dropped).
    pub fn runs(&self) -> Vec<Policy> {
        let mut out = vec![Policy::BestFit];
        let enabled = |n: &String| self.scripts.iter().any(|s| &s.name == n && s.enabled);
        for p in &self.policies {
            if let Policy::Script(n) = p {
                if !enabled(n) {
                    continue;
                }
            }
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        for s in self.scripts.iter().filter(|s| s.enabled) {
            let p = Policy::Script(s.name.clone());
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// The predictor's label, e.g. `oracle`, `noisy:0.9`, `noisy:0.9 one-shot`.
    pub fn predictor_label(&self) -> String {
        let base = match self.predictor {
            PredictorKind::Noisy => match self.noisy_estimate {
                predictor::NoisyEstimate::CappedMean => format!("noisy:{}", self.accuracy),
                e => format!("noisy:{} {}", self.accuracy, e.name()),
            },
            k => k.name().to_string(),
        };
        if self.reprediction || self.predictor == PredictorKind::Oracle {
            base
        } else {
            format!("{base} one-shot")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default ablation is not written (links made before it keep their bytes); a set knob is written by
    /// name and read back; an unknown name is refused.
    #[test]
    fn ablation_is_written_only_when_set() {
        let p = LifetimeParams::default();
        let json = serde_json::to_value(&p).unwrap();
        assert!(json.get("ablation").is_none(), "{json}");
        let mut q = p.clone();
        q.ablation.scorer = Scorer::WorstFit;
        q.ablation.lava_rules = LavaRules::CostFirst;
        let json = serde_json::to_value(&q).unwrap();
        assert_eq!(
            json["ablation"],
            serde_json::json!({"scorer": "worst-fit", "nilas_cost": "stated", "lava_rules": "cost-first"})
        );
        assert_eq!(serde_json::from_value::<LifetimeParams>(json).unwrap(), q);
        let bad = serde_json::json!({"ablation": {"scorer": "random-fit"}});
        assert!(serde_json::from_value::<LifetimeParams>(bad).is_err());
    }
}
