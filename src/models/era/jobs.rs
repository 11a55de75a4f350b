//! Requests and capacity (ALGORITHMS.md §6.1, §6.5): E4.1 derives requests from SWIM MapReduce jobs (real
//! arrivals and bytes; derived units and durations; synthetic windows and values), E4.3 generates ERA jobs
//! from the §6.5 distributions and takes ERA's actual capacity from real Azure 2017 load (or the §6.5
//! synthetic load). Slots are minutes; slot 0 is the start of the history period.

use super::params::{
    CapacityBasis, E41Jobs, EraParams, Horizon, NonEraLoad, Preset, MAX_REQUESTS, MAX_SLOTS,
};
use crate::experiment::RunError;
use crate::substrate::rng::{exp, mix64, normal, poisson, stream};
use crate::workload::Workload;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Random-stream components.
const COMP_E41: u64 = 0x6534_31;
const COMP_E43_ARRIVALS: u64 = 0x6534_33;
const COMP_E43_JOB: u64 = 0x6534_34;
const COMP_NONERA: u64 = 0x6534_35;
const COMP_E41_SYN: u64 = 0x6534_36;

/// Minutes per slot.
pub const SLOT_MIN: f64 = 1.0;

/// One request in the single-resource bidding language (§6.1): `w` units for `t` consecutive slots inside
/// `[s, d)`, arriving at slot `arrival ≤ s`, worth `value` dollars.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Index in [`Setup::requests`].
    pub id: usize,
    /// Arrival slot `A_j`.
    pub arrival: i64,
    /// Units per slot `W_j` (an integer ≥ 1).
    pub w: f64,
    /// Duration `T_j`, slots (≥ 1).
    pub t: i64,
    /// Window start `s_j` (≥ arrival).
    pub s: i64,
    /// Window end `d_j` (exclusive; `d − s ≥ T`).
    pub d: i64,
    /// Value `V_j`, dollars.
    pub value: f64,
    /// Class (E4.1: class 0–5, 5 = the largest, "yahoo-5", at $1 per unit-slot; E4.3: 0).
    pub class: u8,
}

impl Request {
    /// Work `W·T`, unit-slots.
    pub fn work(&self) -> f64 {
        self.w * self.t as f64
    }

    /// Unit value `v = V/(W·T)`, dollars per unit-slot.
    pub fn unit_value(&self) -> f64 {
        self.value / self.work()
    }
}

/// A test request `id`: `w` units for `t` slots, arriving at slot `a` with its window `[a, d)`, worth `value`
/// dollars, class 0 (the fixture of the LP's and the scheduler's tests).
#[cfg(test)]
pub(crate) fn test_request(id: usize, a: i64, w: f64, t: i64, d: i64, value: f64) -> Request {
    Request {
        id,
        arrival: a,
        w,
        t,
        s: a,
        d,
        value,
        class: 0,
    }
}

/// A test set-up (the fixture of the scheduler's and the executor's tests): `requests` in periods of `period`
/// slots up to slot `end`, planned capacity `capacity` units, actual capacity `actual` per slot (`capacity`
/// beyond), BASIC_ECON's prices unbounded in [0, ∞), greedy's 0.5 and on-demand's 1 per unit-slot, no job
/// distributions.
#[cfg(test)]
pub(crate) fn test_setup(
    requests: Vec<Request>,
    period: i64,
    end: i64,
    capacity: f64,
    actual: Vec<f64>,
) -> Setup {
    Setup {
        requests,
        period,
        end,
        capacity,
        actual,
        prices: Prices {
            p_min: 0.0,
            p_max: f64::INFINITY,
            p_fix: 0.5,
            p_full: 1.0,
        },
        dist: None,
        summary: SetupSummary::default(),
    }
}

/// The distributions E4.3's jobs are drawn from, known to the "linear" predictor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobDist {
    /// Poisson arrivals per slot.
    pub rate: f64,
    /// Smallest and largest units (log-uniform).
    pub w_range: [f64; 2],
    /// Median duration, slots.
    pub t_median: f64,
    /// σ of the duration's log.
    pub t_sigma: f64,
    /// Mean of the deadline slack as a multiple of `T`.
    pub slack_mult: f64,
    /// Unit value range, dollars per unit-slot (uniform).
    pub v_range: [f64; 2],
}

/// Prices of the run (§6.3): BASIC_ECON's unit-price bounds, greedy's fixed price and on-demand's full price,
/// all per unit-slot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prices {
    /// Lower bound of a BASIC_ECON unit price.
    pub p_min: f64,
    /// Upper bound of a BASIC_ECON unit price (∞ = none; serialized as null, the same in JSON and in JS).
    #[serde(serialize_with = "finite_or_null")]
    pub p_max: f64,
    /// GREEDY_FIRSTFIT's fixed price.
    pub p_fix: f64,
    /// ON_DEMAND's price.
    pub p_full: f64,
}

/// A number, or null when it is not finite (JSON has no ∞; serde-wasm-bindgen would give JS `Infinity`).
fn finite_or_null<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

/// What a run schedules: the requests (history period first), the capacity and the prices.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Every request, by arrival (period 0 = history only).
    pub requests: Vec<Request>,
    /// Slots per prediction period.
    pub period: i64,
    /// First slot after the scheduled periods (requests arrive before it).
    pub end: i64,
    /// Planned capacity `C`, units (an integer).
    pub capacity: f64,
    /// Actual capacity `C_act(τ)` for slots `0..actual.len()` (`C` beyond).
    pub actual: Vec<f64>,
    /// Prices.
    pub prices: Prices,
    /// E4.3's job distributions (the linear predictor's knowledge).
    pub dist: Option<JobDist>,
    /// Summary for the report.
    pub summary: SetupSummary,
}

/// Facts about the set-up, for the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SetupSummary {
    /// The workload read (bundled id or upload name).
    pub workload: String,
    /// Requests in the history period.
    pub history_requests: usize,
    /// Requests scheduled (arriving in the scheduled periods).
    pub requests: usize,
    /// Planned capacity `C`, units.
    pub capacity: f64,
    /// Mean offered work per slot of the scheduled requests, units.
    pub offered_load: f64,
    /// Scheduled window `[start, end)`, slots.
    pub window: [i64; 2],
    /// Mean of `C_act / C` over the scheduled window.
    pub actual_mean: f64,
    /// Smallest `C_act / C` over the scheduled window.
    pub actual_min: f64,
    /// Per class: scheduled requests, their share of the work, mean units, mean duration (slots), unit value.
    pub classes: Vec<ClassSummary>,
    /// Scheduled requests wider than `C` before any clamp to `C` (E4.1; they can never run unless clamped).
    pub wider_than_capacity: usize,
    /// How the requests were made (one line each).
    pub notes: Vec<String>,
}

/// One request class of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    /// Class label (E4.1: `fb-0` … `fb-5` for SWIM, `yahoo-0` … `yahoo-5` synthetic, class 5 the largest at
    /// $1; E4.3: `era`).
    pub class: String,
    /// Scheduled requests.
    pub requests: usize,
    /// Share of the scheduled work.
    pub work_share: f64,
    /// Share of the scheduled value.
    pub value_share: f64,
    /// Mean units.
    pub mean_w: f64,
    /// Mean duration, slots.
    pub mean_t: f64,
    /// Mean unit value, dollars per unit-slot.
    pub mean_unit_value: f64,
}

/// Builds the set-up of `p.preset` from the workload `w` (E4.1: SWIM jobs; E4.3: Azure VMs for the non-ERA
/// load unless it is synthetic). Errors: a workload of the wrong kind (naming the field `workload`), too few
/// requests, limits ([`MAX_REQUESTS`], [`MAX_SLOTS`]).
pub fn build(w: &Workload, p: &EraParams, seed: u64) -> Result<Setup, RunError> {
    let period = (p.period_h * 60.0 / SLOT_MIN).round() as i64;
    let bucket = p.lp_bucket_min.round() as i64;
    if bucket < 1 || period % bucket != 0 {
        return Err(RunError::field(
            "era.lp_bucket_min",
            format!(
                "must divide the period of {period} minutes, got {}",
                p.lp_bucket_min
            ),
        ));
    }
    let s = match p.preset {
        Preset::E41 => e41(w, p, seed, period)?,
        Preset::E43 => e43(w, p, seed, period)?,
    };
    if s.requests.len() > MAX_REQUESTS {
        return Err(RunError::msg(format!(
            "{} requests exceed the limit of {MAX_REQUESTS}",
            s.requests.len()
        )));
    }
    if s.requests.iter().all(|r| r.arrival < period) {
        return Err(RunError::field(
            "era.period_h",
            "no request arrives after the history period",
        ));
    }
    Ok(s)
}

/// Units and duration of a SWIM job from its bytes (docs/era.md): the widest stage sets
/// the units, `W = clamp(⌈max(input, shuffle, output)/B⌉, 1, max_units)`, and the total bytes set the work,
/// `T = max(1, ⌈(input + shuffle + output)/(W·B)⌉)` slots, with `B` = bytes per unit-slot.
pub fn swim_shape(io: [f64; 3], unit_bytes: f64, max_units: f64) -> (f64, i64) {
    let widest = io[0].max(io[1]).max(io[2]);
    let w = (widest / unit_bytes)
        .ceil()
        .clamp(1.0, max_units.floor().max(1.0));
    let total = io[0] + io[1] + io[2];
    let t = ((total / (w * unit_bytes)).ceil() as i64).max(1);
    (w, t)
}

/// One E4.1 job before its width is clamped: arrival, class, shape source, and its window and value draws.
struct RawJob {
    arrival: i64,
    class: u8,
    shape: RawShape,
    /// Window slack factor draw (`d − s = T·(1 + slack)`), 0 without slack.
    slack: f64,
    /// Value noise factor, LogNormal(0, 0.3).
    noise: f64,
    /// Unit value before noise, dollars per unit-slot.
    unit: f64,
}

enum RawShape {
    /// SWIM bytes `[input, shuffle, output]`: [`swim_shape`] sets W and T.
    Swim([f64; 3]),
    /// Synthetic: unrounded width and duration, slots.
    Synthetic(f64, i64),
}

/// Class mean widths (units) of the §6.5 synthetic E4.1 generator, class 5 = "yahoo-5" (the largest, $1).
pub const SYNTHETIC_MEAN_W: [f64; 6] = [1.0, 2.0, 4.0, 8.0, 3.0, 32.0];
/// σ of the log of a synthetic width (LogNormal with the class mean) [UNSTATED → 1].
pub const SYNTHETIC_W_SIGMA: f64 = 1.0;
/// Median duration of a synthetic E4.1 job, slots (ALGORITHMS.md §6.5: 30 min).
pub const SYNTHETIC_T_MEDIAN: f64 = 30.0;

impl RawJob {
    /// Width before any clamp but `max_units`, units.
    fn width(&self, p: &EraParams) -> f64 {
        match self.shape {
            RawShape::Swim(io) => swim_shape(io, p.unit_bytes, p.max_units).0,
            RawShape::Synthetic(w, _) => w.round().clamp(1.0, p.max_units.floor().max(1.0)),
        }
    }

    /// The request with widths clamped to `clamp` units (SWIM: T grows so the bytes still fit) and its
    /// window cut at `cut` when given (`d ← max(min(d, cut), s + T)`).
    fn request(&self, id: usize, p: &EraParams, clamp: f64, cut: Option<i64>) -> Request {
        let (wu, t) = match self.shape {
            RawShape::Swim(io) => swim_shape(io, p.unit_bytes, p.max_units.min(clamp)),
            RawShape::Synthetic(w, t) => (
                w.round()
                    .clamp(1.0, p.max_units.min(clamp).floor().max(1.0)),
                t,
            ),
        };
        let win = ((t as f64) * (1.0 + self.slack)).ceil() as i64;
        let a = self.arrival;
        let mut d = a + win.max(t);
        if let Some(c) = cut {
            d = d.min(c).max(a + t);
        }
        Request {
            id,
            arrival: a,
            w: wu,
            t,
            s: a,
            d,
            value: self.unit * self.noise * wu * t as f64,
            class: self.class,
        }
    }
}

fn e41(w: &Workload, p: &EraParams, seed: u64, period: i64) -> Result<Setup, RunError> {
    let (raw, end, source_note, label) = match p.jobs {
        E41Jobs::Swim => {
            let (raw, end) = swim_jobs(w, p, seed)?;
            let note = format!(
                "SWIM jobs of '{}': arrivals and bytes real; units W = clamp(ceil(widest stage / {} MB), 1, {}), duration T = ceil(total bytes / (W·{} MB)) minutes; classes = six equal-count work sextiles (SWIM's fields are submit time and input/shuffle/output bytes: no job type or name to class by); unit values $10 (fb-0…fb-4) and $1 (fb-5, the largest) × LogNormal(0, 0.3), synthetic (§6.5)",
                w.name,
                p.unit_bytes / 1e6,
                if p.capacity_basis == CapacityBasis::Runnable { format!("min({}, C)", p.max_units) } else { p.max_units.to_string() },
                p.unit_bytes / 1e6
            );
            (raw, end, note, "fb")
        }
        E41Jobs::Synthetic => {
            let (raw, end) = synthetic_jobs(p, seed, period)?;
            let note = format!(
                "synthetic E4.1 (§6.5): six classes of {} jobs arriving uniformly over {} days (and the same rate in the history period), W LogNormal (σ {}) with class means {{1, 2, 4, 8, 3, 32}} units, T LogNormal (median {} min, σ {}); yahoo-5 (mean 32 units) $1 per unit-slot, the rest $10, × LogNormal(0, 0.3); the workload is not read",
                p.jobs_per_class, p.synthetic_days, SYNTHETIC_W_SIGMA, SYNTHETIC_T_MEDIAN, p.t_sigma
            );
            (raw, end, note, "yahoo")
        }
    };
    let cut = (p.horizon == Horizon::CutWindows).then_some(end);
    let make = |clamp: f64| -> Vec<Request> {
        raw.iter()
            .enumerate()
            .map(|(i, r)| r.request(i, p, clamp, cut))
            .collect()
    };
    let scheduled_work = |rs: &[Request]| -> f64 {
        rs.iter()
            .filter(|r| r.arrival >= period)
            .map(Request::work)
            .sum()
    };
    let unclamped = make(f64::INFINITY);
    let (capacity, requests, basis_note) = match p.capacity_basis {
        CapacityBasis::Arrivals => {
            let span = (end - period).max(1);
            let c = (p.capacity_frac * scheduled_work(&unclamped) / span as f64)
                .round()
                .max(1.0);
            let note = format!(
                "capacity C = {c} units = {} × the mean offered load over the arrival span (widths capped at {} units only)",
                p.capacity_frac, p.max_units
            );
            (c, unclamped.clone(), note)
        }
        CapacityBasis::Runnable => {
            // C = frac × Σ min(W, C)·T / (arrival span + work-weighted mean window): a fixed point
            let runnable = |rs: &[Request]| -> f64 {
                let sched = rs.iter().filter(|r| r.arrival >= period);
                let (work, wwin) = sched.fold((0.0, 0.0), |(a, b), r| {
                    (a + r.work(), b + r.work() * (r.d - r.s) as f64)
                });
                let span = (end - period) as f64 + wwin / work.max(1e-300);
                (p.capacity_frac * work / span.max(1.0)).round().max(1.0)
            };
            let mut c = runnable(&unclamped);
            let mut rs = make(c);
            for _ in 0..50 {
                let next = runnable(&rs);
                if next == c {
                    break;
                }
                c = next;
                rs = make(c);
            }
            let note = format!(
                "capacity C = {c} units = {} × the runnable work (widths clamped to C) per slot of the span it can run in (the arrival span plus the work-weighted mean window)",
                p.capacity_frac
            );
            (c, rs, note)
        }
    };
    let wider = raw
        .iter()
        .filter(|r| r.arrival >= period && r.width(p) > capacity)
        .count();
    let notes = vec![
        source_note,
        format!(
            "windows s = arrival, d − s = ceil(T·(1 + Exp(mean {}))){}",
            p.window_mean,
            if cut.is_some() { format!(", cut at the horizon (slot {end}): d ≤ max(end, s + T)") } else { String::new() }
        ),
        basis_note,
        format!(
            "{wider} scheduled jobs are wider than C{}",
            if p.capacity_basis == CapacityBasis::Runnable { " (clamped to C)" } else { " (they can never run)" }
        ),
        format!("horizon: {} (arrivals end at slot {end}; the run continues until every accepted job finishes)", p.horizon.name()),
    ];
    let prices = Prices {
        p_min: 0.0,
        p_max: f64::INFINITY,
        p_fix: p.p_fix,
        p_full: 1.0,
    };
    let mut s = finish(
        requests,
        period,
        end,
        capacity,
        Vec::new(),
        prices,
        None,
        &w.name,
        notes,
        Some(label),
    );
    s.summary.wider_than_capacity = wider;
    if p.jobs == E41Jobs::Synthetic {
        s.summary.workload = "synthetic E4.1 (§6.5)".into();
    }
    Ok(s)
}

/// E4.1's SWIM jobs (arrival order), six equal-count work sextiles as classes, and the first slot after the
/// last arrival.
fn swim_jobs(w: &Workload, p: &EraParams, seed: u64) -> Result<(Vec<RawJob>, i64), RunError> {
    if w.vms.iter().any(|v| v.io_bytes.is_none()) {
        return Err(RunError::field(
            "workload",
            format!(
                "E4.1 reads SWIM MapReduce jobs (submit times and bytes); the workload '{}' has none: use the bundled 'swim-fb2010', upload a SWIM file, or set era.jobs to synthetic",
                w.name
            ),
        ));
    }
    let start = w.trace_start_s;
    let mut shaped: Vec<(i64, f64, i64, [f64; 3])> = Vec::with_capacity(w.vms.len());
    for v in &w.vms {
        let a = ((v.created_s - start) / 60.0 / SLOT_MIN).floor() as i64;
        if a >= MAX_SLOTS {
            return Err(RunError::field(
                "workload",
                format!(
                    "job '{}' arrives after the limit of {MAX_SLOTS} slots",
                    v.id
                ),
            ));
        }
        let io = *v.io_bytes.as_deref().expect("checked");
        let (wu, t) = swim_shape(io, p.unit_bytes, p.max_units);
        shaped.push((a, wu, t, io));
    }
    // six classes of equal size by work (rank order; the many equal works, e.g. 1 unit × 1 slot, are ordered
    // by a hash of the job's index so that ties do not sort by arrival); class 5 = the largest ("yahoo-5")
    let n = shaped.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| {
        let wi = shaped[i].1 * shaped[i].2 as f64;
        let wj = shaped[j].1 * shaped[j].2 as f64;
        wi.total_cmp(&wj)
            .then(mix64(i as u64).cmp(&mix64(j as u64)))
            .then(i.cmp(&j))
    });
    let mut class = vec![0u8; n];
    for (rank, &i) in order.iter().enumerate() {
        class[i] = (rank * 6 / n.max(1)).min(5) as u8;
    }
    let mut raw = Vec::with_capacity(n);
    for (i, &(a, _, _, io)) in shaped.iter().enumerate() {
        let mut rng = stream(seed, COMP_E41, i as u64);
        let slack = exp(&mut rng, 1.0 / p.window_mean.max(1e-12));
        let noise = libm::exp(0.3 * normal(&mut rng));
        raw.push(RawJob {
            arrival: a,
            class: class[i],
            shape: RawShape::Swim(io),
            slack: if p.window_mean > 0.0 { slack } else { 0.0 },
            noise,
            unit: if class[i] == 5 { 1.0 } else { 10.0 },
        });
    }
    let end = raw.iter().map(|r| r.arrival).max().unwrap_or(0) + 1;
    Ok((raw, end))
}

/// The §6.5 synthetic E4.1 jobs (arrival order) and the first slot after the scheduled days. Per class c:
/// `jobs_per_class` arrivals uniform over the scheduled days and the same rate over the history period;
/// `W = round(LogNormal)` with mean `SYNTHETIC_MEAN_W[c]` (≥ 1), `T = round(LogNormal(median 30, σ t_sigma))`
/// (≥ 1); every draw depends on the seed.
fn synthetic_jobs(p: &EraParams, seed: u64, period: i64) -> Result<(Vec<RawJob>, i64), RunError> {
    let end = period + (p.synthetic_days * 1440.0 / SLOT_MIN).round() as i64;
    if end > MAX_SLOTS {
        return Err(RunError::field(
            "era.synthetic_days",
            format!("the run would span more than {MAX_SLOTS} slots"),
        ));
    }
    let n = p.jobs_per_class.round().max(1.0) as usize;
    let days = (end - period) as f64;
    let n_hist = (n as f64 * period as f64 / days).round() as usize;
    if 6 * (n + n_hist) > MAX_REQUESTS {
        return Err(RunError::field(
            "era.jobs_per_class",
            format!("more than {MAX_REQUESTS} requests"),
        ));
    }
    let mut keyed = Vec::with_capacity(6 * (n + n_hist));
    for c in 0..6u8 {
        for j in 0..n + n_hist {
            let mut rng = stream(seed, COMP_E41_SYN, ((c as u64) << 32) | j as u64);
            let u: f64 = rng.random();
            let arrival = if j < n_hist {
                (u * period as f64).floor() as i64
            } else {
                period + (u * days).floor() as i64
            };
            let sw = SYNTHETIC_W_SIGMA;
            let wf =
                SYNTHETIC_MEAN_W[c as usize] * libm::exp(sw * normal(&mut rng) - sw * sw / 2.0);
            let t = (SYNTHETIC_T_MEDIAN * libm::exp(p.t_sigma * normal(&mut rng)))
                .round()
                .max(1.0) as i64;
            let slack = exp(&mut rng, 1.0 / p.window_mean.max(1e-12));
            let noise = libm::exp(0.3 * normal(&mut rng));
            keyed.push((
                (arrival, c, j),
                RawJob {
                    arrival,
                    class: c,
                    shape: RawShape::Synthetic(wf, t),
                    slack: if p.window_mean > 0.0 { slack } else { 0.0 },
                    noise,
                    unit: if c == 5 { 1.0 } else { 10.0 },
                },
            ));
        }
    }
    keyed.sort_by_key(|k| k.0);
    Ok((keyed.into_iter().map(|k| k.1).collect(), end))
}

/// One draw of units W, log-uniform on `[lo, hi]`, rounded to an integer (E4.3, ALGORITHMS.md §6.5).
fn log_uniform_units<R: rand::Rng>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    libm::exp(libm::log(lo) + u * (libm::log(hi) - libm::log(lo))).round()
}

fn e43(w: &Workload, p: &EraParams, seed: u64, period: i64) -> Result<Setup, RunError> {
    let capacity = (p.datacenter_cores * p.era_share).round().max(1.0);
    let end = period + (p.days * 1440.0 / SLOT_MIN).round() as i64;
    if end > MAX_SLOTS {
        return Err(RunError::field(
            "era.days",
            format!("the run would span more than {MAX_SLOTS} slots"),
        ));
    }
    let (w_lo, w_hi) = (8.0, 512.0);
    let mean_w = (w_hi - w_lo) / libm::log(w_hi / w_lo);
    let t_median = 60.0 / SLOT_MIN;
    let mean_t = t_median * libm::exp(p.t_sigma * p.t_sigma / 2.0);
    let rate = p.load * capacity / (mean_w * mean_t);
    let dist = JobDist {
        rate,
        w_range: [w_lo, w_hi],
        t_median,
        t_sigma: p.t_sigma,
        slack_mult: 2.0,
        v_range: [0.65, 1.3],
    };
    let mut requests = Vec::new();
    for a in 0..end {
        let mut rng = stream(seed, COMP_E43_ARRIVALS, a as u64);
        let k = poisson(&mut rng, rate);
        for _ in 0..k {
            let id = requests.len();
            if id >= MAX_REQUESTS {
                return Err(RunError::field(
                    "era.load",
                    format!("more than {MAX_REQUESTS} requests"),
                ));
            }
            let mut r = stream(seed, COMP_E43_JOB, id as u64);
            let wu = log_uniform_units(&mut r, w_lo, w_hi);
            let t = (t_median * libm::exp(p.t_sigma * normal(&mut r)))
                .round()
                .max(1.0) as i64;
            let slack = exp(&mut r, 1.0 / (2.0 * t as f64)).ceil() as i64;
            let v: f64 = 0.65 + 0.65 * r.random::<f64>();
            requests.push(Request {
                id,
                arrival: a,
                w: wu,
                t,
                s: a,
                d: if p.horizon == Horizon::CutWindows {
                    (a + t + slack).min(end).max(a + t)
                } else {
                    a + t + slack
                },
                value: v * wu * t as f64,
                class: 0,
            });
        }
    }
    let excess = match p.nonera {
        NonEraLoad::Azure => azure_excess(w, p, end)?,
        NonEraLoad::Synthetic => {
            let mut rng = stream(seed, COMP_NONERA, 0);
            let sd = 0.02 * (1.0f64 - 0.95 * 0.95).sqrt();
            let mut x = 0.0;
            (0..end)
                .map(|t| {
                    x = 0.95 * x + sd * normal(&mut rng);
                    capacity
                        * (0.1 * libm::sin(std::f64::consts::TAU * t as f64 * SLOT_MIN / 1440.0)
                            + x)
                })
                .collect()
        }
    };
    let actual: Vec<f64> = excess
        .iter()
        .map(|e| (capacity - e).clamp(0.0, capacity))
        .collect();
    let notes = vec![
        format!(
            "ERA jobs synthetic (§6.5): Poisson {:.3}/min (offered load {} × C), W log-uniform on [8, 512] cores, T LogNormal (median 60 min, σ {}), slack Exp(mean 2T), unit value U(0.65, 1.3)·p_full",
            rate, p.load, p.t_sigma
        ),
        match p.nonera {
            NonEraLoad::Azure => format!(
                "non-ERA load real: cores alive per minute in '{}' from hour {} on, relative to their 24-hour centred mean; the other {}% of a {}-core datacenter is provisioned for the {}th percentile of that fluctuation; ERA's actual capacity = C minus the excess above it",
                w.name,
                p.nonera_start_h,
                100.0 * (1.0 - p.era_share),
                p.datacenter_cores,
                100.0 * p.nonera_quantile
            ),
            NonEraLoad::Synthetic => "non-ERA load synthetic (§6.5): 10% diurnal sinusoid + AR(1) (ρ 0.95, σ 2%) of C".into(),
        },
    ];
    let mut notes = notes;
    let p_fix = p.e43_greedy_price.unwrap_or(p.e43_floor);
    notes.push(if p.e43_floor == 0.65 && p_fix == 0.65 {
        "prices per core-minute in units of p_full: BASIC_ECON within [0.65, 1], greedy 0.65, on-demand 1 (stated)".into()
    } else if p_fix == p.e43_floor {
        format!("prices per core-minute in units of p_full: BASIC_ECON within [{f}, 1], greedy {f} (matched floors; stated: 0.65), on-demand 1", f = p.e43_floor)
    } else {
        format!("prices per core-minute in units of p_full: BASIC_ECON within [{f}, 1], greedy {p_fix} (floors apart; stated: both 0.65), on-demand 1", f = p.e43_floor)
    });
    if p.horizon != Horizon::Open {
        notes.push(format!("horizon: {} (arrivals end at slot {end}; the run continues until every accepted job finishes)", p.horizon.name()));
    }
    let prices = Prices {
        p_min: p.e43_floor,
        p_max: 1.0,
        p_fix,
        p_full: 1.0,
    };
    Ok(finish(
        requests,
        period,
        end,
        capacity,
        actual,
        prices,
        Some(dist),
        &w.name,
        notes,
        None,
    ))
}

/// Non-ERA excess over its share, cores per slot `0..end`: the Azure workload's cores alive per minute from
/// `nonera_start_h` after its first arrival, relative to their 24-hour centred mean (`f = alive/mean − 1`),
/// with the non-ERA share of the datacenter provisioned for the `nonera_quantile` `f_q` of `f` over the
/// window: `(1 − share)·D·(f − f_q)` (negative = room left, which ERA does not get beyond its planned `C`).
fn azure_excess(w: &Workload, p: &EraParams, end: i64) -> Result<Vec<f64>, RunError> {
    if w.vms.iter().any(|v| v.io_bytes.is_some()) || w.vms.iter().all(|v| v.cores <= 0.0) {
        return Err(RunError::field(
            "workload",
            format!(
                "E4.3's non-ERA load reads VMs with cores and lifetimes (Azure); the workload '{}' has none: use 'azure2017-arrivals' or set era.nonera to synthetic",
                w.name
            ),
        ));
    }
    let t0 = w.vms.first().map_or(0.0, |v| v.created_s) + p.nonera_start_h * 3600.0;
    let half = 720i64;
    let n = end + 2 * half;
    // cores alive at the start of each minute of [t0 − 12 h, t0 + end + 12 h)
    let mut delta = vec![0.0f64; (n + 1) as usize];
    let origin = t0 - half as f64 * 60.0;
    let idx = |t: f64| -> usize { (((t - origin) / 60.0).ceil().max(0.0) as i64).min(n) as usize };
    for v in &w.vms {
        let d = v.deleted_s.unwrap_or(f64::INFINITY);
        if d <= origin || v.created_s >= origin + n as f64 * 60.0 {
            continue;
        }
        delta[idx(v.created_s)] += v.cores;
        if d.is_finite() {
            delta[idx(d)] -= v.cores;
        }
    }
    if w.trace_end_s < origin + n as f64 * 60.0 {
        return Err(RunError::field(
            "era.days",
            format!(
                "the workload '{}' ends {:.1} h after its start: too short for nonera_start_h + the history period + {} days + 12 h",
                w.name,
                (w.trace_end_s - w.vms.first().map_or(0.0, |v| v.created_s)) / 3600.0,
                p.days
            ),
        ));
    }
    let mut alive = Vec::with_capacity(n as usize);
    let mut acc = 0.0;
    for d in delta.iter().take(n as usize) {
        acc += d;
        alive.push(acc);
    }
    // detrended: relative to the 24-hour centred mean (the arrivals start empty, so long-lived VMs pile up)
    let mut prefix = vec![0.0f64; alive.len() + 1];
    for (i, a) in alive.iter().enumerate() {
        prefix[i + 1] = prefix[i] + a;
    }
    let rel: Vec<f64> = (0..end)
        .map(|t| {
            let c = (t + half) as usize;
            let mean = (prefix[c + half as usize] - prefix[c - half as usize]) / (2 * half) as f64;
            if mean > 0.0 {
                alive[c] / mean - 1.0
            } else {
                0.0
            }
        })
        .collect();
    // the non-ERA part is provisioned for the `nonera_quantile` of that fluctuation over the scheduled window:
    // it spills into ERA's share only above it
    let mut sorted = rel.clone();
    sorted.sort_by(f64::total_cmp);
    let q = sorted
        [((p.nonera_quantile * (sorted.len() - 1) as f64).round() as usize).min(sorted.len() - 1)];
    let other = (1.0 - p.era_share) * p.datacenter_cores;
    Ok(rel.iter().map(|f| other * (f - q)).collect())
}

#[allow(clippy::too_many_arguments)]
fn finish(
    requests: Vec<Request>,
    period: i64,
    end: i64,
    capacity: f64,
    actual: Vec<f64>,
    prices: Prices,
    dist: Option<JobDist>,
    workload: &str,
    notes: Vec<String>,
    classes6: Option<&str>,
) -> Setup {
    let sched: Vec<&Request> = requests.iter().filter(|r| r.arrival >= period).collect();
    let span = (end - period).max(1);
    let total_work: f64 = sched.iter().map(|r| r.work()).sum();
    let total_value: f64 = sched.iter().map(|r| r.value).sum();
    let ncls = if classes6.is_some() { 6 } else { 1 };
    let classes = (0..ncls)
        .map(|c| {
            let rs: Vec<&&Request> = sched.iter().filter(|r| r.class as usize == c).collect();
            let k = rs.len().max(1) as f64;
            ClassSummary {
                class: classes6.map_or_else(|| "era".into(), |l| format!("{l}-{c}")),
                requests: rs.len(),
                work_share: rs.iter().map(|r| r.work()).sum::<f64>() / total_work.max(1e-300),
                value_share: rs.iter().map(|r| r.value).sum::<f64>() / total_value.max(1e-300),
                mean_w: rs.iter().map(|r| r.w).sum::<f64>() / k,
                mean_t: rs.iter().map(|r| r.t as f64).sum::<f64>() / k,
                mean_unit_value: rs.iter().map(|r| r.unit_value()).sum::<f64>() / k,
            }
        })
        .collect();
    let act = |t: i64| actual.get(t as usize).copied().unwrap_or(capacity) / capacity;
    let (mut sum, mut min) = (0.0, f64::INFINITY);
    for t in period..end {
        sum += act(t);
        min = min.min(act(t));
    }
    let summary = SetupSummary {
        workload: workload.to_string(),
        history_requests: requests.len() - sched.len(),
        requests: sched.len(),
        capacity,
        offered_load: total_work / span as f64,
        window: [period, end],
        actual_mean: sum / span as f64,
        actual_min: if min.is_finite() { min } else { 1.0 },
        classes,
        wider_than_capacity: 0,
        notes,
    };
    Setup {
        requests,
        period,
        end,
        capacity,
        actual,
        prices,
        dist,
        summary,
    }
}

impl Setup {
    /// Actual capacity at slot `t`.
    pub fn actual_at(&self, t: i64) -> f64 {
        if t < 0 {
            return self.capacity;
        }
        self.actual
            .get(t as usize)
            .copied()
            .unwrap_or(self.capacity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swim_shape_by_hand() {
        let mb = 64e6;
        // 1 byte in → 1 unit, 1 slot
        assert_eq!(swim_shape([1.0, 0.0, 0.0], mb, 1000.0), (1.0, 1));
        // widest stage 200 MB → 4 units; 300 MB in total → ceil(300/256) = 2 slots
        assert_eq!(swim_shape([200e6, 60e6, 40e6], mb, 1000.0), (4.0, 2));
        // capped units: 6.4 TB → 100,000 units capped at 1,000; T = ceil(6.4e12 / 6.4e10) = 100
        assert_eq!(swim_shape([6.4e12, 0.0, 0.0], mb, 1000.0), (1000.0, 100));
        // all zero → 1 unit, 1 slot
        assert_eq!(swim_shape([0.0; 3], mb, 1000.0), (1.0, 1));
    }

    fn empty_workload() -> Workload {
        Workload {
            name: "none".into(),
            source: crate::workload::WorkloadFormat::Swim,
            vms: Vec::new(),
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s: 0.0,
            notes: Vec::new(),
        }
    }

    fn synthetic(n: f64, days: f64, basis: CapacityBasis, horizon: Horizon) -> EraParams {
        EraParams {
            preset: Preset::E41,
            jobs: E41Jobs::Synthetic,
            jobs_per_class: n,
            synthetic_days: days,
            capacity_basis: basis,
            horizon,
            ..EraParams::default()
        }
    }

    /// The clamp by hand: a synthetic width 50.4 clamped to 20 units keeps T; a SWIM job of 6.4 TB clamped to
    /// 200 units runs longer, T = ceil(6.4e12 / (200 · 64 MB)) = 500 slots; windows cut at 100 keep T.
    #[test]
    fn clamp_to_capacity_by_hand() {
        let p = EraParams::default();
        let job = |shape| RawJob {
            arrival: 90,
            class: 5,
            shape,
            slack: 1.0,
            noise: 1.0,
            unit: 1.0,
        };
        let r = job(RawShape::Synthetic(50.4, 10)).request(0, &p, 20.0, None);
        assert_eq!((r.w, r.t, r.s, r.d, r.value), (20.0, 10, 90, 110, 200.0));
        assert_eq!(
            job(RawShape::Synthetic(50.4, 10))
                .request(0, &p, f64::INFINITY, None)
                .w,
            50.0
        );
        let r = job(RawShape::Swim([6.4e12, 0.0, 0.0])).request(0, &p, 200.0, None);
        assert_eq!((r.w, r.t), (200.0, 500));
        // window [90, 110) cut at 100 → [90, 100); a 10-slot job arriving at 95 keeps s + T = 105
        let r = job(RawShape::Synthetic(3.0, 10)).request(0, &p, 20.0, Some(100));
        assert_eq!(r.d, 100);
        let late = RawJob {
            arrival: 95,
            ..job(RawShape::Synthetic(3.0, 10))
        };
        assert_eq!(late.request(0, &p, 20.0, Some(100)).d, 105);
    }

    /// The §6.5 generator: exactly `n` jobs per class in the scheduled days and round(n · 12 h / days) in the
    /// history; yahoo-5 has the largest mean width (32 units before the clamp) and mean unit value $1 ×
    /// E[LogNormal(0, 0.3)] = e^{0.045} = 1.046, the rest $10.46; C is the fixed point
    /// `round(0.25 · Σ min(W, C)·T / (arrival span + Σ W·T·(d − s) / Σ W·T))` and no width exceeds it.
    #[test]
    fn synthetic_e41_classes_counts_and_capacity() {
        let p = synthetic(400.0, 2.0, CapacityBasis::Runnable, Horizon::Open);
        let s = build(&empty_workload(), &p, 7).unwrap();
        let period = 720;
        assert_eq!(s.period, period);
        assert_eq!(s.end, period + 2 * 1440);
        let hist = (400.0f64 * 720.0 / 2880.0).round() as usize;
        for c in 0..6u8 {
            let sched = s
                .requests
                .iter()
                .filter(|r| r.class == c && r.arrival >= period)
                .count();
            let h = s
                .requests
                .iter()
                .filter(|r| r.class == c && r.arrival < period)
                .count();
            assert_eq!((sched, h), (400, hist), "class {c}");
        }
        assert!(s.requests.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(s.requests.iter().enumerate().all(|(i, r)| r.id == i));
        let cl = &s.summary.classes;
        assert_eq!(cl[5].class, "yahoo-5");
        for (c, x) in cl.iter().enumerate() {
            let unit = if c == 5 { 1.0 } else { 10.0 };
            assert!(
                (x.mean_unit_value / (unit * 0.045f64.exp()) - 1.0).abs() < 0.04,
                "{c}: {x:?}"
            );
        }
        // the work is dominated by yahoo-5 (mean width 32 of 50 in all)
        assert!(cl[5].work_share > 0.5, "{:?}", cl[5]);
        let c = s.capacity;
        assert!(s.requests.iter().all(|r| r.w <= c));
        let sched: Vec<&Request> = s.requests.iter().filter(|r| r.arrival >= period).collect();
        let work: f64 = sched.iter().map(|r| r.work()).sum();
        let wwin: f64 = sched
            .iter()
            .map(|r| r.work() * (r.d - r.s) as f64)
            .sum::<f64>()
            / work;
        assert_eq!(c, (0.25 * work / (2880.0 + wwin)).round());
        // some yahoo-5 widths exceed C before the clamp (LogNormal tail)
        let wider = s.summary.wider_than_capacity;
        assert!(wider > 0 && wider < 400, "{wider}");
        // seeds resample the jobs themselves
        let s2 = build(&empty_workload(), &p, 8).unwrap();
        assert_ne!(s.requests[..50], s2.requests[..50]);
        // cut windows: no deadline after max(end, s + T)
        let p = synthetic(400.0, 2.0, CapacityBasis::Runnable, Horizon::CutWindows);
        let s = build(&empty_workload(), &p, 7).unwrap();
        assert!(s.requests.iter().all(|r| r.d <= s.end.max(r.s + r.t)));
        assert!(s.requests.iter().any(|r| r.d == s.end));
    }
}
