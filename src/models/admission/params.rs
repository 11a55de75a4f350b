//! Parameters of the admission model and its experiments (ALGORITHMS.md §2.1, §2.7, §2.13). Serde-ready with
//! `#[serde(default)]` so that a Scenario can embed a partial object.

use super::moments::{MomentConfig, MomentMode};
use super::policies::script::{ArmScript, ThresholdScale};
use super::posterior::{Priors, UpdateMode};
use serde::{Deserialize, Serialize};

/// Initial size n0 of an arriving deployment (cores).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InitialSize {
    /// `n0 = 1 + Poisson(σ_d)` with the deployment's own σ (ALGORITHMS.md §2.1 default).
    #[default]
    OnePlusPoissonSigma,
    /// Empirical distribution: `sizes[i]` cores with probability ∝ `weights[i]` (e.g. fitted from Azure).
    Empirical {
        /// Sizes in cores (≥ 1).
        sizes: Vec<u32>,
        /// Non-negative weights (normalised internally).
        weights: Vec<f64>,
    },
}

/// Which admission policy (ALGORITHMS.md §2.7, §2.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PolicyKind {
    /// Accept iff `N + n0 < θ0` (seed 000 Def. 4.1). Threshold in cores.
    Zeroth,
    /// Accept iff `∀k: E_k < θ1` (seed 000 Def. 4.2). Threshold in cores.
    First,
    /// Accept iff `∀k: E_k < C and V_k/(V_k + (C−E_k)²) < θ2` (Cantelli, seed 000 Def. 4.4). Dimensionless.
    Second,
    /// Accept if it fits (`N + n0 ≤ C`), the upper bound of §2.10. No threshold.
    AcceptIfFits,
    /// A user's `admit` script (issue 31, arm `script:NAME`; the script is [`AdmitParams::script`]). Its
    /// threshold's scale is the script's ([`crate::models::admission::policies::script::ThresholdScale`]).
    Script,
}

impl PolicyKind {
    /// Upper-case name as printed by the CLI.
    pub fn name(&self) -> &'static str {
        match self {
            PolicyKind::Zeroth => "ZEROTH",
            PolicyKind::First => "FIRST",
            PolicyKind::Second => "SECOND",
            PolicyKind::AcceptIfFits => "ACCEPT_IF_FITS",
            PolicyKind::Script => "SCRIPT",
        }
    }
    /// Parse ZEROTH / FIRST / SECOND / ACCEPT_IF_FITS (case-insensitive; also 0, 1, 2, upper).
    pub fn parse(s: &str) -> Result<PolicyKind, String> {
        match s.trim().to_ascii_uppercase().as_str() {
            "ZEROTH" | "0" => Ok(PolicyKind::Zeroth),
            "FIRST" | "1" => Ok(PolicyKind::First),
            "SECOND" | "2" => Ok(PolicyKind::Second),
            "ACCEPT_IF_FITS" | "UPPER" | "FITS" => Ok(PolicyKind::AcceptIfFits),
            o => Err(format!(
                "unknown policy '{o}' (expected ZEROTH, FIRST, SECOND or ACCEPT_IF_FITS)"
            )),
        }
    }
    /// True if the policy needs the moment curves of §2.6.3 (a script receives them).
    pub fn needs_curves(&self) -> bool {
        matches!(
            self,
            PolicyKind::First | PolicyKind::Second | PolicyKind::Script
        )
    }
}

/// Parametrisation of SECOND (ALGORITHMS.md §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SecondParam {
    /// θ2 bounds the Cantelli ratio (canonical).
    #[default]
    Ratio,
    /// θ2 in cores: accept ⇔ `∀k: E_k + sqrt(V_k(1−δ2)/δ2) < θ2`.
    Cores {
        /// δ2 (default 0.01).
        delta: f64,
    },
}

/// A policy with its threshold (cores for ZEROTH/FIRST and SECOND-Cores; ratio for SECOND).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySpec {
    /// Policy.
    pub kind: PolicyKind,
    /// Threshold θ0/θ1 (cores) or θ2.
    pub threshold: f64,
    /// MARGINAL heuristic (seed 000 Def. 6.1): accept at step k also if `μ_c(t_k) < ε_m`.
    pub marginal: bool,
}

/// Labelling mode of §2.11 / E0.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Labelling {
    /// No user types: each arrival is drawn from the population (§2.1).
    #[default]
    Off,
    /// Two types per user; the deployment's type is submitted (labelled).
    Labelled,
    /// Two types per user; the provider keeps both posteriors and uses the ½/½ mixture.
    Unlabelled,
}

/// Variance-based payment rule (seed 000 §7.1, Prop. 7.1; ALGORITHMS.md §2.11): a deployment d pays per hour
/// `π_d = p_core·n_d + p_var·V̂_d`, with `V̂_d` the provider's posterior-predictive `Var[X^d_t]` at the lead time
/// `lead_hours` (§2.6.3; for an unlabelled deployment the variance of the ½/½ mixture of its user's two type
/// posteriors, §2.11). The price constants and the 24 h lead time are **[UNSTATED → config]**; the payment is
/// reported (at arrival, with the deployment's initial cores n0) and never changes an admission decision.
/// Computed by [`crate::models::admission::sim`] from the candidate's moment curves, so only for FIRST and SECOND.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Pricing {
    /// Price per active core and hour `p_core` (≥ 0, currency units / (core·h)). Default 1.
    pub p_core: f64,
    /// Price per unit of predicted variance and hour `p_var` (≥ 0, currency units / (core²·h)). Default 0.01.
    pub p_var: f64,
    /// Lead time t of `V̂_d = Var[X^d_t]` (hours, > 0). Default 24 (ALGORITHMS.md §2.11).
    pub lead_hours: f64,
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing {
            p_core: 1.0,
            p_var: 0.01,
            lead_hours: 24.0,
        }
    }
}

impl Pricing {
    /// The per-hour payment `π = p_core·n + p_var·v_hat` of a deployment with `n` cores and predicted variance
    /// `v_hat` (cores²), in currency units per hour (seed 000 §7.1).
    pub fn payment(&self, n: f64, v_hat: f64) -> f64 {
        self.p_core * n + self.p_var * v_hat
    }

    /// Check ranges; the error names the field (`pricing.…`).
    pub fn validate(&self) -> Result<(), String> {
        for (v, n) in [(self.p_core, "p_core"), (self.p_var, "p_var")] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("pricing.{n} must be ≥ 0 and finite (got {v})"));
            }
        }
        if !(self.lead_hours.is_finite() && self.lead_hours > 0.0) {
            return Err(format!(
                "pricing.lead_hours must be > 0 and finite (got {})",
                self.lead_hours
            ));
        }
        Ok(())
    }
}

/// Importance sampling of runs (seed 000 App. D, ALGORITHMS.md §2.9; implemented in
/// [`crate::models::admission::importance`]). Off by default: the tuning then uses R plain run seeds with weight 1 and its
/// results are bit-identical to a configuration without this field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportanceConfig {
    /// Draw the R runs from the importance distribution of §2.9 (badness buckets, rejection scheme) and weight
    /// them by `w = P_b / A_1(b)`. Default false.
    pub enabled: bool,
    /// Pre-draws N_pre (runs whose badness measure is computed, no simulation) that set the bucket bounds at
    /// the 90% and 99% quantiles of BM and estimate the nominal bucket probabilities P_i (§2.9 steps 1–2).
    /// Default 10,000 **[UNSTATED → default]**. Must be ≥ 1 when enabled.
    pub pre_draws: usize,
    /// Pilot simulation runs per bucket (SECOND at `pilot_threshold`) that estimate g_i = E[failed scale-outs
    /// per run | bucket i] (§2.9 step 5). Default 500 *(stated)*. 0 = no pilots: ρ = 0 (plain sampling, weights 1).
    pub pilot_runs_per_bucket: usize,
    /// Threshold of the pilot SECOND policy, in the parametrisation of `second_param` (Cantelli ratio, or cores
    /// for `SecondParam::Cores`). `None` (default) = the first point of SECOND's binary search (§2.8): the
    /// log10-midpoint of [1e−8, 1] ([`AdmitParams::threshold_bounds`]), 1e−4, for the ratio form; C for the
    /// cores form.
    pub pilot_threshold: Option<f64>,
    /// Weight of the nominal distribution in the target masses: `Q_i = (1 − mix)·P_i·g_i/Σ_k P_k·g_k + mix·P_i`
    /// (dimensionless, in (0, 1]; 1 = plain sampling). Default 0.5 (§2.9 step 5). Keeps every bucket's
    /// acceptance probability ≥ mix·P_i, so no weight exceeds 1/mix.
    pub mix: f64,
}

impl Default for ImportanceConfig {
    fn default() -> Self {
        ImportanceConfig {
            enabled: false,
            pre_draws: 10_000,
            pilot_runs_per_bucket: 500,
            pilot_threshold: None,
            mix: 0.5,
        }
    }
}

impl ImportanceConfig {
    /// True if every field has its default value (then it is not serialized).
    pub fn is_default(&self) -> bool {
        *self == ImportanceConfig::default()
    }

    /// Check ranges; the error names the field (`importance.…`).
    pub fn validate(&self) -> Result<(), String> {
        if self.enabled && self.pre_draws == 0 {
            return Err(
                "importance.pre_draws must be ≥ 1 when importance sampling is enabled".into(),
            );
        }
        if !(self.mix > 0.0 && self.mix <= 1.0) {
            return Err(format!(
                "importance.mix must be in (0, 1] (got {})",
                self.mix
            ));
        }
        if let Some(t) = self.pilot_threshold {
            if !(t.is_finite() && t > 0.0) {
                return Err(format!(
                    "importance.pilot_threshold must be > 0 and finite (got {t})"
                ));
            }
        }
        Ok(())
    }
}

/// All parameters of one admission-control configuration (ALGORITHMS.md §2.13 defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AdmitParams {
    /// Cluster capacity C (cores). Default 20,000.
    pub capacity: f64,
    /// Deployment arrival rate ρ_arr (per hour). Default 1.
    pub arrival_rate: f64,
    /// Run length T_run (hours). Default 26,280 (3 years).
    pub horizon_hours: f64,
    /// Metric month (hours). Default 730.
    pub month_hours: f64,
    /// SLA ε on the scale-out failure rate. Default 1e−3.
    pub sla: f64,
    /// Population priors and κ (§2.13).
    pub priors: Priors,
    /// Initial size distribution.
    pub initial_size: InitialSize,
    /// Pseudo-observations m per scaling process (§2.11). Default 0.
    pub pseudo_obs: u32,
    /// Labelling mode (§2.11). Default off.
    pub labelling: Labelling,
    /// Pseudo-observations per user type in labelling runs (default 1).
    pub labelling_obs: u32,
    /// Marginal constant ε_m (cores). Default 0.1.
    pub marginal_eps: f64,
    /// Posterior update variant (§2.6.2).
    pub update: UpdateMode,
    /// Moment formula and quadrature (§2.6.3) used inside the simulator. Default: canonical formula with the
    /// "fast" quadrature (8, 4, 2) and Δ at 24 log-spaced lead times (speed; see the accuracy test).
    pub moments: MomentConfig,
    /// Sub-horizons of the look-ahead (hours). Default {26280, 8760, 730, 168, 24}.
    pub subhorizons: Vec<f64>,
    /// Steps per sub-horizon. Default 600.
    pub steps: usize,
    /// Number of log-spaced lead times at which per-deployment curves are stored (0 = the exact policy grid).
    /// Policy-grid values are interpolated in ln t. Default 128 (see the accuracy test in tests/integration/admit_sim.rs).
    pub curve_points: usize,
    /// Curve refresh tolerance (ALGORITHMS.md §2.7 caching): a deployment's posterior and absorption
    /// corrections are recomputed when its age has grown by this fraction since the last recompute (the
    /// posterior rates then changed by at most about this fraction). 0 = recompute every deployment at every
    /// arrival (reference). Default 0.5.
    pub refresh_tol: f64,
    /// Relative change of a deployment's core count (at least 1 core) that triggers recomputing its absorption
    /// corrections; smaller changes re-evaluate the closed-form part exactly at the new count. Default 0.25.
    pub delta_n_tol: f64,
    /// Memoise alive tables on the lattice of §2.7 (default true; false = exact tables, slow).
    pub lattice: bool,
    /// Δ-memo quantum (ALGORITHMS.md §2.7 caching, speed): with `lattice` on, the absorption corrections Δ1, Δ2
    /// of a deployment are computed for its belief with the continuous posterior rates b_λ, b_ν rounded to the
    /// nearest multiple of this step in ln b (dimensionless; 0.02 = 2% relative) and n0 rounded to its lattice
    /// rung, and memoised across deployments and runs under that key. The closed-form part stays exact.
    /// 0 = off (Δ computed for the exact belief). Default 0 (off): at 0.02 only ≈ 5–15% of lookups hit, so it
    /// saved no time in benches/admit.rs, while changing utilization by ≈ 1e−5.
    pub delta_quantum: f64,
    /// With `lattice` on, evaluate Δ from the lattice tables resampled on a 160-point log grid in τ = λt
    /// (`moments::absorption_corrections_lattice`; a 3,000-h SECOND run took 5.4 s instead of 17.5 s CPU) instead of
    /// per-node table lookups; decisions were identical on 3 common-random-number runs (benches/admit.rs).
    /// Default true; false = direct lookups (reference for the accuracy measurement).
    pub psi_grid: bool,
    /// Parametrisation of SECOND.
    pub second_param: SecondParam,
    /// Binary-search iterations of the tuning (§2.8). Default 14.
    pub tune_iterations: usize,
    /// Bootstrap resamples for BCa CIs. Default 10,000.
    pub bootstrap: usize,
    /// Sample the time series of one run every this many hours (0 = off).
    pub series_every_hours: f64,
    /// Importance sampling of runs (seed 000 App. D, ALGORITHMS.md §2.9). Default off. Not serialized while
    /// it equals its default, so the JSON of a configuration without importance sampling (share links, the
    /// frozen defaults sets of `src/scenario.rs`) is unchanged by this field.
    #[serde(skip_serializing_if = "ImportanceConfig::is_default")]
    pub importance: ImportanceConfig,
    /// Variance-based payment rule of §2.11 ([`Pricing`]): when set, every run reports the payments of the
    /// arrivals and admitted deployments (FIRST and SECOND only). Default `None` (no payments computed); not
    /// serialized while `None`, so older scenarios and share links keep their JSON and their numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<Pricing>,
    /// The compiled script of a `script:NAME` arm ([`PolicyKind::Script`]; issue 31), set by
    /// [`crate::models::admission::scenario::AdmissionScenario::arms`] from `admission.scripts`. Never
    /// serialized: the source travels in the scenario's `scripts`.
    #[serde(skip)]
    pub script: Option<ArmScript>,
}

impl Default for AdmitParams {
    fn default() -> Self {
        AdmitParams {
            capacity: 20_000.0,
            arrival_rate: 1.0,
            horizon_hours: 26_280.0,
            month_hours: 730.0,
            sla: 1e-3,
            priors: Priors::default(),
            initial_size: InitialSize::OnePlusPoissonSigma,
            pseudo_obs: 0,
            labelling: Labelling::Off,
            labelling_obs: 1,
            marginal_eps: 0.1,
            update: UpdateMode::Vb,
            moments: MomentConfig {
                mode: MomentMode::Canonical,
                n_interp: 24,
                ..MomentConfig::fast()
            },
            subhorizons: vec![26_280.0, 8_760.0, 730.0, 168.0, 24.0],
            steps: 600,
            curve_points: 128,
            refresh_tol: 0.5,
            delta_n_tol: 0.25,
            lattice: true,
            delta_quantum: 0.0,
            psi_grid: true,
            second_param: SecondParam::Ratio,
            tune_iterations: 14,
            bootstrap: 10_000,
            series_every_hours: 0.0,
            importance: ImportanceConfig::default(),
            pricing: None,
            script: None,
        }
    }
}

impl AdmitParams {
    /// Check ranges; the error names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64, n: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{n} must be > 0 (got {v})"))
            }
        };
        pos(self.capacity, "capacity")?;
        pos(self.arrival_rate, "arrival_rate")?;
        pos(self.horizon_hours, "horizon_hours")?;
        pos(self.month_hours, "month_hours")?;
        pos(self.priors.kappa, "priors.kappa")?;
        if !(self.sla > 0.0 && self.sla < 1.0) {
            return Err(format!("sla must be in (0, 1) (got {})", self.sla));
        }
        for (g, n) in [
            (self.priors.lambda, "lambda"),
            (self.priors.nu, "nu"),
            (self.priors.sigma, "sigma"),
        ] {
            if !g.is_valid() {
                return Err(format!(
                    "priors.{n} must have positive finite shape and rate"
                ));
            }
        }
        if self.subhorizons.is_empty()
            || self
                .subhorizons
                .iter()
                .any(|h| !(h.is_finite() && *h > 0.0))
        {
            return Err("subhorizons must be a non-empty list of positive hours".into());
        }
        if self.steps == 0 {
            return Err("steps must be ≥ 1".into());
        }
        if self.tune_iterations == 0 {
            return Err("tune_iterations must be ≥ 1".into());
        }
        if self.moments.j_tau == 0 || self.moments.j_nu == 0 || self.moments.j_sigma == 0 {
            return Err("quadrature sizes must be ≥ 1".into());
        }
        if let InitialSize::Empirical { sizes, weights } = &self.initial_size {
            if sizes.is_empty() || sizes.len() != weights.len() || sizes.contains(&0) {
                return Err(
                    "initial_size: sizes (≥ 1) and weights must be non-empty and of equal length"
                        .into(),
                );
            }
            if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0))
                || weights.iter().sum::<f64>() <= 0.0
            {
                return Err(
                    "initial_size: weights must be non-negative with a positive sum".into(),
                );
            }
        }
        if !(self.delta_quantum >= 0.0 && self.delta_quantum.is_finite()) {
            return Err("delta_quantum must be ≥ 0".into());
        }
        self.check_sizes()?;
        if !(self.refresh_tol >= 0.0) {
            return Err("refresh_tol must be ≥ 0".into());
        }
        self.importance.validate()?;
        if let Some(pr) = &self.pricing {
            pr.validate()?;
        }
        Ok(())
    }

    /// The sizes a run allocates or loops over, bounded so that a scenario from a link cannot exhaust the
    /// browser's memory or hang the page (docs/input-formats.md "Limits on untrusted input"): the lead-time grid, curve points,
    /// quadrature tables, initial-size lists, pseudo-observations, months and series samples of the horizon,
    /// importance-sampling draws. The defaults are far below every bound.
    pub fn check_sizes(&self) -> Result<(), String> {
        let at_most = |v: f64, max: f64, what: &str| {
            if v <= max {
                Ok(())
            } else {
                Err(format!("{what} must be at most {max} (got {v})"))
            }
        };
        at_most(
            self.subhorizons.len() as f64,
            64.0,
            "the number of subhorizons",
        )?;
        at_most(self.steps as f64, 100_000.0, "steps")?;
        at_most(
            (self.subhorizons.len() * self.steps) as f64, // both bounded above
            1_000_000.0,
            "subhorizons × steps (the policy's lead-time grid)",
        )?;
        at_most(self.curve_points as f64, 100_000.0, "curve_points")?;
        let m = &self.moments;
        for (v, n) in [
            (m.j_tau, "moments.j_tau"),
            (m.j_nu, "moments.j_nu"),
            (m.j_sigma, "moments.j_sigma"),
        ] {
            at_most(v as f64, 1_000.0, n)?;
        }
        at_most(
            (m.j_tau * m.j_nu * m.j_sigma) as f64,
            1_000_000.0,
            "moments.j_tau × j_nu × j_sigma (the quadrature nodes)",
        )?;
        at_most(m.n_interp as f64, 100_000.0, "moments.n_interp")?;
        if let InitialSize::Empirical { sizes, .. } = &self.initial_size {
            at_most(sizes.len() as f64, 10_000.0, "the number of initial sizes")?;
            at_most(
                sizes.iter().copied().max().unwrap_or(0) as f64,
                1_000_000.0,
                "an initial size (cores)",
            )?;
        }
        at_most(self.pseudo_obs as f64, 1_000_000.0, "pseudo_obs")?;
        at_most(self.labelling_obs as f64, 1_000_000.0, "labelling_obs")?;
        at_most(
            self.horizon_hours / self.month_hours,
            1_000_000.0,
            "horizon_hours / month_hours (months simulated)",
        )?;
        if self.series_every_hours > 0.0 {
            at_most(
                self.horizon_hours / self.series_every_hours,
                1_000_000.0,
                "horizon_hours / series_every_hours (series samples)",
            )?;
        }
        at_most(
            self.importance.pre_draws as f64,
            10_000_000.0,
            "importance.pre_draws",
        )?;
        at_most(
            self.importance.pilot_runs_per_bucket as f64,
            1_000_000.0,
            "importance.pilot_runs_per_bucket",
        )?;
        Ok(())
    }

    /// Search bounds of the threshold of `kind` (ALGORITHMS.md §2.8): θ0, θ1 ∈ [0, C] (cores);
    /// θ2 ∈ [1e−8, 1] (dimensionless, searched in log10); SECOND-Cores ∈ [0, 2C] (cores); a script's as
    /// FIRST's or SECOND's ratio form, by its scale.
    ///
    /// θ2's upper end is 1, not §2.8's 0.5, because §2.7 gives no reason to stop at 0.5: with δ = C − E_k > 0
    /// (which SECOND requires anyway) the Cantelli ratio r = V/(V + δ²) lies in [0, 1), and r < θ2 ⇔
    /// E_k + sqrt(V_k·(1 − θ2)/θ2) < C, a buffer of sqrt((1 − θ2)/θ2) standard deviations. θ2 = 0.5 is a
    /// one-s.d. buffer; θ2 → 1 shrinks it to 0, where SECOND is "∀k: E_k < C" = FIRST at θ1 = C, the upper
    /// end of FIRST's bracket. Capping at 0.5 forbade buffers below one s.d. (in log space the search could not
    /// get above 10^(−0.301 − 7.7/2^n) ≈ 0.38 after n = 6 steps) and reported the cap as tuned when the SLA
    /// allowed more, e.g. for ε ≥ 0.03 at the playground's scale.
    pub fn threshold_bounds(&self, kind: PolicyKind) -> (f64, f64) {
        match kind {
            PolicyKind::Zeroth | PolicyKind::First => (0.0, self.capacity),
            PolicyKind::Second => match self.second_param {
                SecondParam::Ratio => (1e-8, 1.0),
                SecondParam::Cores { .. } => (0.0, 2.0 * self.capacity),
            },
            PolicyKind::AcceptIfFits => (0.0, 0.0),
            PolicyKind::Script => match self.script_scale() {
                ThresholdScale::Cores => (0.0, self.capacity),
                ThresholdScale::Probability => (1e-8, 1.0),
            },
        }
    }

    /// Whether `kind`'s threshold is bisected in log10 space: SECOND's ratio form, and a script whose
    /// threshold is a probability.
    pub fn threshold_in_log_space(&self, kind: PolicyKind) -> bool {
        match kind {
            PolicyKind::Second => self.second_param == SecondParam::Ratio,
            PolicyKind::Script => self.script_scale() == ThresholdScale::Probability,
            _ => false,
        }
    }

    fn script_scale(&self) -> ThresholdScale {
        self.script.as_ref().map(|s| s.scale).unwrap_or_default()
    }
}

/// Where the admission parameters come from (informational for the playground: the values are always in
/// [`AdmissionScenario::params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ParamSource {
    /// The documented defaults of ALGORITHMS.md §2.13 (priors, κ, rates), at the playground's scale.
    #[default]
    Defaults,
    /// Values edited by the user.
    Custom,
    /// Fitted to the Azure 2017 arrivals (arrival rate, initial sizes, core-lifetime prior; seed 000 App. B).
    Azure,
}

/// The admission-control experiment of a scenario: an experiment preset (its policy arms), the model
/// parameters, the runs per threshold and the run shown in the time-series view. The seed is
/// [`Scenario::seed`]. Defaults are the playground's quick scale (not §2.13's full scale, see
/// [`AdmissionScenario::default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdmissionScenario {
    /// Experiment preset "E0.1" … "E0.4" (ALGORITHMS.md §2.12): which policy arms are tuned.
    pub preset: String,
    /// Where `params` came from.
    pub source: ParamSource,
    /// Runs R per threshold (common random numbers across policies and thresholds), 1..=1000.
    pub runs: usize,
    /// Labels of the preset's arms to run (e.g. "ZEROTH", "SECOND+MARGINAL m=5"); empty = all arms.
    pub policies: Vec<String>,
    /// Arm whose tuned threshold drives the time-series view ("" = the first arm run).
    pub series_arm: String,
    /// Run index (0-based, < runs) shown in the time-series view.
    pub series_run: usize,
    /// Model and tuning parameters (capacity in cores, rates per hour, horizon in hours, SLA ε, …).
    pub params: AdmitParams,
    /// Users' admission rules in the policy language (issue 31, [`super::policies::script`]): every enabled
    /// one is an arm `script:<name>` after the preset's (empty by default; not written when empty, so
    /// scenarios without scripts encode as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<crate::script::ScriptPolicy>,
}

/// Largest runs per threshold accepted in a scenario.
pub const MAX_ADMISSION_RUNS: usize = 1000;

impl Default for AdmissionScenario {
    /// The playground's quick scale, chosen so a whole E0.1 finishes in well under a minute in a browser:
    /// C = 1,000 cores, 2 months (1,460 h), R = 2 runs, 6 binary-search iterations, 1,000 bootstrap
    /// resamples. Every other parameter keeps the §2.13 default of [`AdmitParams::default`].
    fn default() -> Self {
        AdmissionScenario {
            preset: "E0.1".into(),
            source: ParamSource::Defaults,
            runs: 2,
            policies: Vec::new(),
            series_arm: String::new(),
            series_run: 0,
            params: AdmitParams {
                capacity: 1000.0,
                horizon_hours: 1460.0,
                tune_iterations: 6,
                bootstrap: 1000,
                ..AdmitParams::default()
            },
            scripts: Vec::new(),
        }
    }
}
