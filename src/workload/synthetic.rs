//! Synthetic VM workloads for tests and sensitivity studies of lifetime-aware allocation (seed 003):
//!
//! - [`generate`]: the pool workload of ALGORITHMS.md §5.7 — lifetimes from the two-component log-normal
//!   [`LifetimeMixture`] fitted to the anchors of seed 003 §2.1 and Fig. 2, Poisson arrivals at the rate that
//!   gives a target steady-state CPU allocation (Little's law), C2-like shapes of 4 GB per vCPU, and the pool's
//!   own inventory of 60 vCPU / 240 GB hosts;
//! - [`two_lifetime`]: the two-lifetime workload of seed 003 App. E (ALGORITHMS.md §5.9 "Theory"), jobs of
//!   lifetime `S` or `L` with a predicted class that is wrong with probability ε.
//!
//! Both give an ordinary [`Workload`] (so every policy, predictor and metric runs on it unchanged), are
//! deterministic from their seed (the engine's seeded streams, `libm` arithmetic: the same bits natively and in
//! wasm) and never panic: bad parameters are [`FieldError`]s naming the field.
//!
//! Units: hours for lifetimes and rates (per hour), vCPU cores and GB for shapes; the workload's times are
//! seconds from its origin, as for every workload.

use super::format::WorkloadFormat;
use super::record::{Host, Vm, Workload, MAX_VMS};
use crate::input::TraceError;
use crate::substrate::error::{FieldError, FieldErrors};
use crate::substrate::rng::{exp, normal, poisson, stream, uniform_open0};
use crate::substrate::stats::normal_sf;
use compact_str::format_compact;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Random-stream component of the §5.7 generator (arrivals, lifetimes, shapes; stream index 0) and of the
/// steady-state initial VMs (index 1).
const COMP_SYNTHETIC: u64 = 0x7379_6e74;
/// Random-stream component of the App. E generator.
const COMP_TWO_LIFETIME: u64 = 0x7477_6f6c;

/// The §5.7 lifetime mixture in hours (ALGORITHMS.md §5.7, fitted exactly to seed 003 §2.1 and Fig. 2: 88% of
/// VMs live < 1 h, `E[T]` = 0.2 d, `E[T − u | T > u]` = 4 d at u = 1 d and 10 d at u = 7 d):
/// `T ~ 0.9243·LogNormal(μ = −1.6488, s = 1.0) + 0.0757·LogNormal(μ = 3.0014, s = 1.4729)` (natural logs of
/// hours). The functions below are its closed forms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LifetimeMixture {
    /// Component weights (sum 1).
    pub weights: [f64; 2],
    /// Component log-means `μ` (ln hours).
    pub mu: [f64; 2],
    /// Component log-standard deviations `s`.
    pub sigma: [f64; 2],
}

/// The mixture of ALGORITHMS.md §5.7.
pub const LIFETIME_MIXTURE: LifetimeMixture = LifetimeMixture {
    weights: [0.9243, 0.0757],
    mu: [-1.6488, 3.0014],
    sigma: [1.0, 1.4729],
};

/// vCPU counts of the C2-like shapes (ALGORITHMS.md §5.7).
pub const SHAPE_VCPUS: [f64; 5] = [4.0, 8.0, 16.0, 30.0, 60.0];
/// Probabilities of [`SHAPE_VCPUS`] (ALGORITHMS.md §5.7).
pub const SHAPE_PROBS: [f64; 5] = [0.35, 0.3, 0.2, 0.1, 0.05];
/// Memory per vCPU, GB (ALGORITHMS.md §5.7).
pub const GB_PER_VCPU: f64 = 4.0;
/// Host vCPUs (ALGORITHMS.md §5.7).
pub const HOST_VCPUS: f64 = 60.0;
/// Host memory, GB (ALGORITHMS.md §5.7).
pub const HOST_MEMORY_GB: f64 = 240.0;
/// Most hosts a synthetic pool may have.
pub const MAX_SYNTHETIC_HOSTS: usize = 100_000;
/// Largest seed (2^53 − 1, exact in a JS number).
const MAX_SEED: u64 = (1 << 53) - 1;

impl LifetimeMixture {
    /// `E[T]` of component `i`, hours: `exp(μ + s²/2)`.
    fn component_mean(&self, i: usize) -> f64 {
        libm::exp(self.mu[i] + 0.5 * self.sigma[i] * self.sigma[i])
    }

    /// `P(T ≤ t)`.
    pub fn cdf(&self, t: f64) -> f64 {
        1.0 - self.survival(t)
    }

    /// `P(T > t)` = `Σ w_i·(1 − Φ((ln t − μ_i)/s_i))` (1 for t ≤ 0).
    pub fn survival(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 1.0;
        }
        let lt = libm::log(t);
        (0..2)
            .map(|i| self.weights[i] * normal_sf((lt - self.mu[i]) / self.sigma[i]))
            .sum()
    }

    /// `E[T]`, hours: `Σ w_i·exp(μ_i + s_i²/2)` (4.80 h = 0.2 d for §5.7).
    pub fn mean(&self) -> f64 {
        (0..2)
            .map(|i| self.weights[i] * self.component_mean(i))
            .sum()
    }

    /// `E[T; T > u]` (the partial expectation), hours: `Σ w_i·exp(μ_i + s_i²/2)·Φ((μ_i + s_i² − ln u)/s_i)`.
    pub fn partial_mean_above(&self, u: f64) -> f64 {
        if u <= 0.0 {
            return self.mean();
        }
        let lu = libm::log(u);
        (0..2)
            .map(|i| {
                let s = self.sigma[i];
                self.weights[i] * self.component_mean(i) * normal_sf((lu - self.mu[i] - s * s) / s)
            })
            .sum()
    }

    /// The mean residual life `E[T − u | T > u]`, hours (ALGORITHMS.md §5.2 item 3: the distributional
    /// predictor of the mixture).
    pub fn mean_residual(&self, u: f64) -> f64 {
        let s = self.survival(u);
        if s <= 0.0 {
            return 0.0;
        }
        (self.partial_mean_above(u) / s - u.max(0.0)).max(0.0)
    }

    /// Share of VM-hours from VMs living at least `u` hours: `E[T; T > u] / E[T]` (ALGORITHMS.md §5.7: 95.5% at
    /// u = 1 h; the paper reports 98% of core-hours).
    pub fn time_share_above(&self, u: f64) -> f64 {
        self.partial_mean_above(u) / self.mean()
    }

    /// `E[min(T, t)] / E[T]`: the fraction of its steady-state allocation a pool fed from empty at the mixture's
    /// arrival rate reaches after `t` hours (M/G/∞: alive(t) = λ·∫₀ᵗ P(T > u) du = λ·E[min(T, t)]).
    pub fn ramp(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        (self.mean() - self.partial_mean_above(t) + t * self.survival(t)) / self.mean()
    }

    /// One lifetime draw, hours.
    pub fn sample<R: rand::Rng>(&self, r: &mut R) -> f64 {
        let i = usize::from(r.random::<f64>() >= self.weights[0]);
        libm::exp(self.mu[i] + self.sigma[i] * normal(r))
    }

    /// One draw of the remaining lifetime of a VM alive in the steady state (the equilibrium distribution, density
    /// `P(T > r)/E[T]`), hours: a length-biased lifetime (component i with probability `w_i·E_i[T]/E[T]`,
    /// `LogNormal(μ_i + s_i², s_i)`) times an independent uniform (the part still to run).
    pub fn sample_residual<R: rand::Rng>(&self, r: &mut R) -> f64 {
        let (t, v) = self.sample_alive(r);
        t * v
    }

    /// One VM alive in the steady state: its length-biased lifetime `T` (hours) and the uniform share `V` of it
    /// still to run (age `T·(1 − V)`, remaining `T·V`; both have the equilibrium distribution).
    pub fn sample_alive<R: rand::Rng>(&self, r: &mut R) -> (f64, f64) {
        let w0 = self.weights[0] * self.component_mean(0) / self.mean();
        let i = usize::from(r.random::<f64>() >= w0);
        let s = self.sigma[i];
        let t = libm::exp(self.mu[i] + s * s + s * normal(r));
        (t, uniform_open0(r))
    }
}

/// `E[cores]` of the shape mix, vCPUs (13 for §5.7).
pub fn mean_shape_vcpus() -> f64 {
    SHAPE_VCPUS
        .iter()
        .zip(SHAPE_PROBS)
        .map(|(c, p)| c * p)
        .sum()
}

/// One shape draw, vCPUs.
fn sample_vcpus<R: rand::Rng>(r: &mut R) -> f64 {
    let u = r.random::<f64>();
    let mut acc = 0.0;
    for (c, p) in SHAPE_VCPUS.iter().zip(SHAPE_PROBS) {
        acc += p;
        if u < acc {
            return *c;
        }
    }
    SHAPE_VCPUS[SHAPE_VCPUS.len() - 1]
}

/// How a synthetic pool starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyntheticStart {
    /// In the steady state: at time 0 the pool holds the VMs alive in the M/G/∞ stationary state (a
    /// Poisson(λ·E[T]) number, remaining lifetimes from the equilibrium distribution), all created at the
    /// window's start (their age is unknown, as for VMs alive before a real trace's window).
    #[default]
    Steady,
    /// Empty: the first VM arrives after time 0 (the "ideal" runs of seed 003 App. G.2: every VM is placed by
    /// the policy under test). The allocation ramps up as [`LifetimeMixture::ramp`].
    Empty,
    /// Pre-populated as seed 003 App. F's reconstructed alive set: the M/G/∞ stationary VMs of [`Steady`]
    /// with their ages too (a length-biased lifetime split by an independent uniform into the age, before
    /// time 0, and the part still to run), as deployments `alive:<k>` created before the window; the arrivals
    /// are `synthetic:<k>`. With `lifetime.split = "synthetic"` and `lifetime.alive_at_start` the lifetime
    /// model places the alive VMs first by best fit (the same initial state for every policy) and the
    /// predictors see their true ages.
    ///
    /// [`Steady`]: SyntheticStart::Steady
    Stationary,
}

/// The parameters of the §5.7 synthetic pool workload (scenario `workload: { "synthetic": { … } }`, CLI
/// `--workload synthetic:hosts=…,weeks=…`). Missing fields take the defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SyntheticParams {
    /// Hosts of the pool (60 vCPU / 240 GB each), 1..=[`MAX_SYNTHETIC_HOSTS`]; the paper's pools have
    /// 100–2000 (seed 003 §6, ALGORITHMS.md §5.7).
    pub hosts: usize,
    /// Length of the trace, weeks (the paper's: 7), in (0, 520].
    pub weeks: f64,
    /// Target steady-state CPU allocation (allocated vCPUs / pool vCPUs), in (0, 1]; ALGORITHMS.md §5.7 asks
    /// for 70–85%.
    pub target_allocation: f64,
    /// How the pool starts.
    pub start: SyntheticStart,
    /// Seed of the generator's random streams, at most 2^53 − 1.
    pub seed: u64,
}

impl Default for SyntheticParams {
    /// The paper's smallest pool: 100 hosts, 7 weeks, 80% target allocation, steady start, seed 1.
    fn default() -> Self {
        SyntheticParams {
            hosts: 100,
            weeks: 7.0,
            target_allocation: 0.8,
            start: SyntheticStart::Steady,
            seed: 1,
        }
    }
}

impl SyntheticParams {
    /// The Poisson arrival rate, VMs per hour, by Little's law:
    /// `target_allocation · hosts · 60 / (E[T] · E[cores])`.
    pub fn arrival_rate(&self) -> f64 {
        self.target_allocation * self.hosts as f64 * HOST_VCPUS
            / (LIFETIME_MIXTURE.mean() * mean_shape_vcpus())
    }

    /// The trace's length, hours.
    pub fn duration_h(&self) -> f64 {
        self.weeks * 168.0
    }

    /// The expected number of VMs: `λ·duration` arrivals plus `λ·E[T]` initial VMs with a steady start.
    pub fn expected_vms(&self) -> f64 {
        let lambda = self.arrival_rate();
        lambda * self.duration_h()
            + match self.start {
                SyntheticStart::Steady | SyntheticStart::Stationary => {
                    lambda * LIFETIME_MIXTURE.mean()
                }
                SyntheticStart::Empty => 0.0,
            }
    }

    /// Every problem, field paths prefixed with `prefix` (e.g. `workload.synthetic.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if !(1..=MAX_SYNTHETIC_HOSTS).contains(&self.hosts) {
            errs.add(
                "hosts",
                format!("must lie in 1..={MAX_SYNTHETIC_HOSTS}, got {}", self.hosts),
            );
        }
        if !(self.weeks.is_finite() && self.weeks > 0.0 && self.weeks <= 520.0) {
            errs.add("weeks", format!("must lie in (0, 520], got {}", self.weeks));
        }
        if !(self.target_allocation > 0.0 && self.target_allocation <= 1.0) {
            errs.add(
                "target_allocation",
                format!("must lie in (0, 1], got {}", self.target_allocation),
            );
        }
        if self.seed > MAX_SEED {
            errs.add("seed", format!("must be at most {MAX_SEED}"));
        }
        let n = self.expected_vms();
        // the Poisson count stays below MAX_VMS with overwhelming probability (sd = √n ≤ 1,600)
        let too_many = n > 0.9 * MAX_VMS as f64;
        if errs.is_empty() && too_many {
            errs.add(
                "weeks",
                format!(
                    "the pool would receive about {:.0} VMs, more than {} (0.9 × the workload limit): lower hosts or weeks",
                    n,
                    (0.9 * MAX_VMS as f64) as u64
                ),
            );
        }
        errs.into_vec()
    }
}

fn field_error(e: FieldError) -> TraceError {
    TraceError::new("synthetic", None, None, e.to_string())
}

fn vm(k: usize, deployment: &str, cores: f64, created_h: f64, life_h: f64, end_h: f64) -> Vm {
    let exit = created_h + life_h;
    Vm {
        id: format_compact!("vm{k}"),
        tenant: None,
        deployment: Some(format_compact!("{deployment}:{k}")),
        category: None,
        cores,
        memory_gb: GB_PER_VCPU * cores,
        gpus: 0.0,
        created_s: created_h * 3600.0,
        started_s: None,
        // exact lifetimes; a VM that outlives the trace is right-censored, as in the real workloads
        deleted_s: (exit < end_h).then_some(exit * 3600.0),
        censored_at_s: None,
        lifetime_range_s: None,
        io_bytes: None,
        usage: None,
    }
}

fn hosts(n: usize, cores: f64, memory_gb: f64) -> Vec<Host> {
    (0..n)
        .map(|i| Host {
            id: format!("h{i}"),
            cores,
            memory_gb,
            gpus: 0.0,
            model: None,
        })
        .collect()
}

/// Generates the §5.7 synthetic pool workload (ALGORITHMS.md §5.7): Poisson arrivals at
/// [`SyntheticParams::arrival_rate`] over `weeks`, each VM with a lifetime from [`LIFETIME_MIXTURE`] and a shape
/// from [`SHAPE_VCPUS`] / [`SHAPE_PROBS`] (4 GB per vCPU), plus the steady state's initial VMs at time 0 when
/// `start` is steady; the node list is the pool: `hosts` hosts of 60 vCPU / 240 GB (so the lifetime model
/// simulates that pool when `lifetime.hosts` = 0). Lifetimes are exact; VMs that outlive the trace are
/// right-censored (no `deleted_s`), as in the real workloads. Every VM is its own tenant batch (deployment
/// `synthetic:<k>`): arrivals are single VMs. Errors: invalid parameters, naming the field.
pub fn generate(p: &SyntheticParams) -> Result<Workload, TraceError> {
    if let Some(e) = p.validate("workload.synthetic.").into_iter().next() {
        return Err(field_error(e));
    }
    let mix = LIFETIME_MIXTURE;
    let lambda = p.arrival_rate();
    let end = p.duration_h();
    let mut vms = Vec::new();
    let limit = |n: usize| {
        (n >= MAX_VMS).then(|| {
            TraceError::new(
                "synthetic",
                None,
                None,
                format!("more than {MAX_VMS} VMs drawn: lower hosts or weeks"),
            )
        })
    };
    let mut initial = 0usize;
    if p.start != SyntheticStart::Empty {
        let mut r = stream(p.seed, COMP_SYNTHETIC, 1);
        let n0 = poisson(&mut r, lambda * mix.mean()) as usize;
        if let Some(e) = limit(n0) {
            return Err(e);
        }
        for _ in 0..n0 {
            let (t, v) = mix.sample_alive(&mut r);
            let cores = sample_vcpus(&mut r);
            if p.start == SyntheticStart::Stationary {
                // created at −age; one alive past the trace is censored at its end (alive, exit unknown)
                let age = t * (1.0 - v);
                let mut x = vm(vms.len(), "alive", cores, -age, t, end);
                if x.deleted_s.is_none() {
                    x.censored_at_s = Some(end * 3600.0);
                }
                vms.push(x);
            } else {
                vms.push(vm(vms.len(), "synthetic", cores, 0.0, t * v, end));
            }
        }
        initial = n0;
    }
    let mut r = stream(p.seed, COMP_SYNTHETIC, 0);
    let mut t = exp(&mut r, lambda);
    while t < end {
        if let Some(e) = limit(vms.len()) {
            return Err(e);
        }
        let life = mix.sample(&mut r);
        let cores = sample_vcpus(&mut r);
        vms.push(vm(vms.len(), "synthetic", cores, t, life, end));
        t += exp(&mut r, lambda);
    }
    if vms.is_empty() {
        return Err(field_error(FieldError {
            field: "workload.synthetic.weeks".into(),
            message: "no VM arrived in the trace: raise weeks or hosts".into(),
        }));
    }
    let censored = vms.iter().filter(|v| v.deleted_s.is_none()).count();
    let notes = vec![
        format!(
            "synthetic pool (ALGORITHMS.md §5.7): {} hosts of {HOST_VCPUS} vCPU / {HOST_MEMORY_GB} GB, {} weeks, seed {}",
            p.hosts, p.weeks, p.seed
        ),
        format!(
            "Poisson arrivals at {lambda:.3} VMs/h (Little's law for {:.0}% CPU allocation: E[T] = {:.3} h, E[cores] = {})",
            100.0 * p.target_allocation,
            mix.mean(),
            mean_shape_vcpus()
        ),
        match p.start {
            SyntheticStart::Steady => format!(
                "steady start: {initial} VMs alive at time 0 (stationary count and remaining lifetimes; their ages are unknown)"
            ),
            SyntheticStart::Stationary => format!(
                "stationary start: {initial} VMs alive at time 0 (deployments alive:<k>, created before it: stationary count, ages and remaining lifetimes); simulate the split 'synthetic' with alive_at_start to place them first by best fit"
            ),
            SyntheticStart::Empty => format!(
                "empty start: the allocation ramps up (to {:.0}% of its steady state after 1 week, {:.0}% after 7)",
                100.0 * mix.ramp(168.0),
                100.0 * mix.ramp(7.0 * 168.0)
            ),
        },
        format!("{censored} VMs outlive the trace (right-censored)"),
    ];
    Workload {
        name: "synthetic".into(),
        source: WorkloadFormat::Synthetic,
        vms,
        hosts: hosts(p.hosts, HOST_VCPUS, HOST_MEMORY_GB),
        trace_start_s: 0.0,
        trace_end_s: end * 3600.0,
        notes,
    }
    .finish()
}

/// The two-lifetime workload of seed 003 App. E (ALGORITHMS.md §5.9 "Theory"): Poisson arrivals at
/// `rate_per_h`, each job long (`long_h`) with probability `long_fraction` (ρ_L), else short (`short_h`); its
/// predicted class is wrong with probability `misprediction_rate` (ε). Every job takes one core and 4 GB; the
/// pool is `hosts` hosts of `jobs_per_host` cores (App. E's "each host holds at most k jobs").
#[derive(Clone, Debug, PartialEq)]
pub struct TwoLifetimeParams {
    /// `S`, hours.
    pub short_h: f64,
    /// `L`, hours (`S ≪ L`).
    pub long_h: f64,
    /// `λ_a`, jobs per hour (App. E assumes `λ_a ≥ 1/S`).
    pub rate_per_h: f64,
    /// `ρ_L`, in [0, 1].
    pub long_fraction: f64,
    /// `ε`, in [0, 1].
    pub misprediction_rate: f64,
    /// Trace length, hours.
    pub hours: f64,
    /// Hosts `m`.
    pub hosts: usize,
    /// Jobs per host `k` (cores per host).
    pub jobs_per_host: usize,
    /// Seed.
    pub seed: u64,
}

/// A draw of [`two_lifetime`]: the workload and, per VM (in the workload's order), its true and predicted class.
#[derive(Clone, Debug)]
pub struct TwoLifetimeDraw {
    /// The jobs (lifetimes exact; jobs that outlive the trace right-censored) and the pool's hosts.
    pub workload: Workload,
    /// Whether each job is long.
    pub long: Vec<bool>,
    /// Whether each job is predicted long.
    pub predicted_long: Vec<bool>,
}

/// Draws the App. E workload ([`TwoLifetimeParams`]). Errors: parameters out of range (naming the field).
pub fn two_lifetime(p: &TwoLifetimeParams) -> Result<TwoLifetimeDraw, TraceError> {
    let fields = [
        ("short_h", p.short_h > 0.0 && p.short_h.is_finite()),
        ("long_h", p.long_h > p.short_h && p.long_h.is_finite()),
        ("rate_per_h", p.rate_per_h > 0.0 && p.rate_per_h.is_finite()),
        ("long_fraction", (0.0..=1.0).contains(&p.long_fraction)),
        (
            "misprediction_rate",
            (0.0..=1.0).contains(&p.misprediction_rate),
        ),
        ("hours", p.hours > 0.0 && p.hours.is_finite()),
        ("hosts", (1..=MAX_SYNTHETIC_HOSTS).contains(&p.hosts)),
        ("jobs_per_host", (1..=1_000_000).contains(&p.jobs_per_host)),
        (
            "hours",
            p.rate_per_h * p.hours < 0.9 * MAX_VMS as f64 || !p.rate_per_h.is_finite(),
        ),
    ];
    if let Some((f, _)) = fields.iter().find(|(_, ok)| !ok) {
        return Err(TraceError::new(
            "two-lifetime",
            None,
            None,
            format!("{f}: out of range in {p:?}"),
        ));
    }
    let mut r = stream(p.seed, COMP_TWO_LIFETIME, 0);
    let (mut vms, mut long, mut predicted_long) = (Vec::new(), Vec::new(), Vec::new());
    let mut t = exp(&mut r, p.rate_per_h);
    while t < p.hours {
        let is_long = r.random::<f64>() < p.long_fraction;
        let wrong = r.random::<f64>() < p.misprediction_rate;
        let life = if is_long { p.long_h } else { p.short_h };
        vms.push(vm(vms.len(), "two-lifetime", 1.0, t, life, p.hours));
        long.push(is_long);
        predicted_long.push(is_long != wrong);
        t += exp(&mut r, p.rate_per_h);
    }
    if vms.is_empty() {
        return Err(TraceError::new(
            "two-lifetime",
            None,
            None,
            "hours: no job arrived",
        ));
    }
    let workload = Workload {
        name: "two-lifetime".into(),
        source: WorkloadFormat::Synthetic,
        vms,
        hosts: hosts(
            p.hosts,
            p.jobs_per_host as f64,
            GB_PER_VCPU * p.jobs_per_host as f64,
        ),
        trace_start_s: 0.0,
        trace_end_s: p.hours * 3600.0,
        notes: vec![format!("two-lifetime workload of seed 003 App. E: {p:?}")],
    }
    .finish()?;
    Ok(TwoLifetimeDraw {
        workload,
        long,
        predicted_long,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mixture reproduces the four anchors of seed 003 §2.1 / Fig. 2 in closed form (ALGORITHMS.md §A.4: the
    /// fit is exact to its 4-decimal rounding).
    #[test]
    fn mixture_reproduces_the_four_anchors() {
        let m = LIFETIME_MIXTURE;
        assert!((m.cdf(1.0) - 0.88).abs() < 5e-4, "{}", m.cdf(1.0));
        assert!((m.mean() - 4.8).abs() < 5e-3, "{}", m.mean());
        assert!(
            (m.mean_residual(24.0) - 96.0).abs() < 0.1,
            "{}",
            m.mean_residual(24.0)
        );
        assert!(
            (m.mean_residual(168.0) - 240.0).abs() < 0.25,
            "{}",
            m.mean_residual(168.0)
        );
        // medians 0.19 h and 20.1 h; 95.5% of VM-hours from VMs living ≥ 1 h (§5.7, rounded: 95.45%)
        assert!((libm::exp(m.mu[0]) - 0.192).abs() < 1e-3);
        assert!((libm::exp(m.mu[1]) - 20.1).abs() < 0.05);
        assert!(
            (m.time_share_above(1.0) - 0.955).abs() < 1e-3,
            "{}",
            m.time_share_above(1.0)
        );
        // the ramp is 0 at 0, increasing, and tends to 1
        assert_eq!(m.ramp(0.0), 0.0);
        assert!(m.ramp(168.0) < m.ramp(336.0) && m.ramp(1e7) > 0.999);
    }

    #[test]
    fn arrival_rate_is_littles_law() {
        let p = SyntheticParams::default();
        // by hand: 0.8 · 100 · 60 / (4.8 h · 13 vCPUs) = 76.9 VMs/h (E[T] = 4.7997 h)
        assert_eq!(mean_shape_vcpus(), 13.0);
        let by_hand = 0.8 * 100.0 * 60.0 / (LIFETIME_MIXTURE.mean() * 13.0);
        assert_eq!(p.arrival_rate(), by_hand);
        assert!((p.arrival_rate() - 76.92).abs() < 0.1);
    }

    #[test]
    fn generation_is_deterministic_and_validated() {
        let p = SyntheticParams {
            hosts: 5,
            weeks: 0.5,
            ..SyntheticParams::default()
        };
        let a = generate(&p).unwrap();
        assert_eq!(a, generate(&p).unwrap());
        let b = generate(&SyntheticParams {
            seed: 2,
            ..p.clone()
        })
        .unwrap();
        assert_ne!(a.vms, b.vms);
        assert_eq!(a.hosts.len(), 5);
        assert!(a
            .hosts
            .iter()
            .all(|h| h.cores == 60.0 && h.memory_gb == 240.0));
        for v in &a.vms {
            assert_eq!(v.memory_gb, 4.0 * v.cores);
            assert!(SHAPE_VCPUS.contains(&v.cores));
            assert!(v.created_s >= 0.0 && v.created_s < a.trace_end_s);
            match v.deleted_s {
                Some(d) => assert!(d > v.created_s && d < a.trace_end_s),
                None => assert!(v.lifetime_s(a.trace_end_s) > 0.0),
            }
        }
        // steady start: VMs at time 0; empty start: none
        assert!(a.vms.iter().any(|v| v.created_s == 0.0));
        let e = generate(&SyntheticParams {
            start: SyntheticStart::Empty,
            ..p.clone()
        })
        .unwrap();
        assert!(e.vms.iter().all(|v| v.created_s > 0.0));
        // stationary start: the same alive VMs with their ages: created before 0, the same exits (remaining
        // lifetimes) and shapes as the steady start's, the same arrivals after
        let st = generate(&SyntheticParams {
            start: SyntheticStart::Stationary,
            ..p.clone()
        })
        .unwrap();
        assert_eq!(st.vms.len(), a.vms.len());
        let by_id: std::collections::HashMap<&str, &crate::workload::Vm> =
            a.vms.iter().map(|v| (v.id.as_str(), v)).collect();
        let mut aged = 0;
        for x in &st.vms {
            let y = by_id[x.id.as_str()];
            assert_eq!(x.cores, y.cores);
            if y.created_s == 0.0 {
                aged += 1;
                assert!(x.created_s < 0.0);
                assert!(x.deployment.as_deref().unwrap().starts_with("alive:"));
                match (x.deleted_s, y.deleted_s) {
                    (Some(dx), Some(dy)) => assert!((dx - dy).abs() <= 1e-6 * dy.max(1.0)),
                    (None, None) => assert_eq!(x.censored_at_s, Some(st.trace_end_s)),
                    _ => {} // an exit within 1e-9 h of the end either way
                }
            } else {
                assert_eq!((x.created_s, x.deleted_s), (y.created_s, y.deleted_s));
            }
        }
        assert!(aged > 0);
        for (bad, field) in [
            (
                SyntheticParams {
                    hosts: 0,
                    ..p.clone()
                },
                "hosts",
            ),
            (
                SyntheticParams {
                    weeks: f64::NAN,
                    ..p.clone()
                },
                "weeks",
            ),
            (
                SyntheticParams {
                    weeks: -1.0,
                    ..p.clone()
                },
                "weeks",
            ),
            (
                SyntheticParams {
                    target_allocation: 1.5,
                    ..p.clone()
                },
                "target_allocation",
            ),
            (
                SyntheticParams {
                    seed: u64::MAX,
                    ..p.clone()
                },
                "seed",
            ),
            // too many VMs: 100,000 hosts for 520 weeks
            (
                SyntheticParams {
                    hosts: 100_000,
                    weeks: 520.0,
                    ..p.clone()
                },
                "weeks",
            ),
        ] {
            let errs = bad.validate("workload.synthetic.");
            assert_eq!(
                errs[0].field,
                format!("workload.synthetic.{field}"),
                "{bad:?}"
            );
            let e = generate(&bad).unwrap_err();
            assert!(
                e.message.contains(&format!("workload.synthetic.{field}")),
                "{e}"
            );
        }
        // JSON: partial objects take the defaults, unknown fields are errors
        let q: SyntheticParams = serde_json::from_str(r#"{"hosts":7,"start":"empty"}"#).unwrap();
        assert_eq!((q.hosts, q.weeks, q.start), (7, 7.0, SyntheticStart::Empty));
        assert!(serde_json::from_str::<SyntheticParams>(r#"{"host":7}"#).is_err());
    }

    #[test]
    fn two_lifetime_draws_classes_and_mispredictions() {
        let p = TwoLifetimeParams {
            short_h: 1.0,
            long_h: 100.0,
            rate_per_h: 10.0,
            long_fraction: 0.2,
            misprediction_rate: 0.1,
            hours: 2000.0,
            hosts: 10,
            jobs_per_host: 8,
            seed: 3,
        };
        let d = two_lifetime(&p).unwrap();
        let n = d.long.len() as f64;
        assert_eq!(d.workload.vms.len(), d.long.len());
        // ~20,000 jobs: sd of the long fraction 0.003, of the wrong fraction 0.002
        let long = d.long.iter().filter(|&&l| l).count() as f64 / n;
        let wrong = d
            .long
            .iter()
            .zip(&d.predicted_long)
            .filter(|(a, b)| a != b)
            .count() as f64
            / n;
        assert!((long - 0.2).abs() < 0.012, "{long}");
        assert!((wrong - 0.1).abs() < 0.01, "{wrong}");
        for (v, &l) in d.workload.vms.iter().zip(&d.long) {
            let life = v.lifetime_s(d.workload.trace_end_s) / 3600.0;
            if v.deleted_s.is_some() {
                assert!((life - if l { 100.0 } else { 1.0 }).abs() < 1e-9);
            }
        }
        assert!(two_lifetime(&TwoLifetimeParams { long_h: 0.5, ..p }).is_err());
    }
}
