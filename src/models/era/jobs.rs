//! Requests and capacity (ALGORITHMS.md §6.1, §6.5): E4.1 derives requests from SWIM MapReduce jobs (real
//! arrivals and bytes; derived units and durations; synthetic windows and values), E4.3 generates ERA jobs
//! from the §6.5 distributions and takes ERA's actual capacity from real Azure 2017 load (or the §6.5
//! synthetic load). Slots are minutes; slot 0 is the start of the history period.

use super::{EraParams, NonEraLoad, Preset, MAX_REQUESTS, MAX_SLOTS};
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
    /// Class (E4.1: size class 0–5, 5 = the largest, "yahoo-5"; E4.3: 0).
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
    /// How the requests were made (one line each).
    pub notes: Vec<String>,
}

/// One request class of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    /// Class label (E4.1: `fb-0` … `fb-5`, `fb-5` the largest; E4.3: `era`).
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

/// Units and duration of a SWIM job from its bytes (README "Economic reservations"): the widest stage sets
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

fn e41(w: &Workload, p: &EraParams, seed: u64, period: i64) -> Result<Setup, RunError> {
    if w.vms.iter().any(|v| v.io_bytes.is_none()) {
        return Err(RunError::field(
            "workload",
            format!(
                "E4.1 reads SWIM MapReduce jobs (submit times and bytes); the workload '{}' has none: use the bundled 'swim-fb2010' or upload a SWIM file",
                w.name
            ),
        ));
    }
    let start = w.trace_start_s;
    let mut shaped: Vec<(i64, f64, i64)> = Vec::with_capacity(w.vms.len());
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
        let (wu, t) = swim_shape(v.io_bytes.expect("checked"), p.unit_bytes, p.max_units);
        shaped.push((a, wu, t));
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
    let mut requests = Vec::with_capacity(n);
    for (i, &(a, wu, t)) in shaped.iter().enumerate() {
        let mut rng = stream(seed, COMP_E41, i as u64);
        let slack = exp(&mut rng, 1.0 / p.window_mean.max(1e-12));
        let win =
            ((t as f64) * (1.0 + if p.window_mean > 0.0 { slack } else { 0.0 })).ceil() as i64;
        let unit = if class[i] == 5 { 1.0 } else { 10.0 };
        let noise = libm::exp(0.3 * normal(&mut rng));
        requests.push(Request {
            id: i,
            arrival: a,
            w: wu,
            t,
            s: a,
            d: a + win.max(t),
            value: unit * noise * wu * t as f64,
            class: class[i],
        });
    }
    let end = requests.iter().map(|r| r.arrival).max().unwrap_or(0) + 1;
    let span = (end - period).max(1);
    let offered: f64 = requests
        .iter()
        .filter(|r| r.arrival >= period)
        .map(Request::work)
        .sum::<f64>()
        / span as f64;
    let capacity = (p.capacity_frac * offered).round().max(1.0);
    let notes = vec![
        format!(
            "SWIM jobs of '{}': arrivals and bytes real; units W = clamp(ceil(widest stage / {} MB), 1, {}), duration T = ceil(total bytes / (W·{} MB)) minutes",
            w.name,
            p.unit_bytes / 1e6,
            p.max_units,
            p.unit_bytes / 1e6
        ),
        format!(
            "windows s = arrival, d − s = ceil(T·(1 + Exp(mean {}))); unit values $10 (classes fb-0…fb-4) and $1 (fb-5, the largest work sextile) × LogNormal(0, 0.3): synthetic (§6.5)",
            p.window_mean
        ),
        format!(
            "capacity C = {} units = {} × the mean offered load of the scheduled periods",
            capacity, p.capacity_frac
        ),
    ];
    let prices = Prices {
        p_min: 0.0,
        p_max: f64::INFINITY,
        p_fix: p.p_fix,
        p_full: 1.0,
    };
    Ok(finish(
        requests,
        period,
        end,
        capacity,
        Vec::new(),
        prices,
        None,
        &w.name,
        notes,
        true,
    ))
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
                d: a + t + slack,
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
        "prices per core-minute in units of p_full: BASIC_ECON within [0.65, 1], greedy 0.65, on-demand 1 (stated)".into(),
    ];
    let prices = Prices {
        p_min: 0.65,
        p_max: 1.0,
        p_fix: 0.65,
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
        false,
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
    classes6: bool,
) -> Setup {
    let sched: Vec<&Request> = requests.iter().filter(|r| r.arrival >= period).collect();
    let span = (end - period).max(1);
    let total_work: f64 = sched.iter().map(|r| r.work()).sum();
    let total_value: f64 = sched.iter().map(|r| r.value).sum();
    let ncls = if classes6 { 6 } else { 1 };
    let classes = (0..ncls)
        .map(|c| {
            let rs: Vec<&&Request> = sched.iter().filter(|r| r.class as usize == c).collect();
            let k = rs.len().max(1) as f64;
            ClassSummary {
                class: if classes6 {
                    format!("fb-{c}")
                } else {
                    "era".into()
                },
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
}
