//! A packing instance built from a trace, its evaluation and the teaching view (seed 002 §5.1).

use super::calibrate::{self, Calibration};
use super::frontier::{Frontier, FrontierPoint};
use super::packing::{pack, rebalance, Packing};
use super::params::{Mode, PlacementError, PlacementParams, REBALANCE_MAX_FAILURES};
use super::policies::script::ScriptFit;
use super::policies::Rule;
use super::policies::{Family, FitSpec, FitTest, ItemStats};
use crate::script::{Script, ScriptError};
use crate::substrate::exact::ExactThreshold;
use crate::substrate::stats::{mean, normal_sf, population_variance};
use crate::trace::{Samples, UsageTrace};
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::OnceLock;

/// A stochastic bin packing instance (ALGORITHMS.md §4.1): N items × R realisations in VM units, the split
/// into observation set O and evaluation set E, per-item statistics from O and true means over all columns.
#[derive(Debug)]
pub struct Instance {
    name: String,
    n: usize,
    r: usize,
    /// realisations, row-major n × r (the trace's compact storage in aligned mode)
    x: Samples,
    obs: std::ops::Range<usize>,
    eval: std::ops::Range<usize>,
    means: Vec<f64>,
    vars: Vec<f64>,
    true_mean_total: f64,
    capacity: f64,
    /// the overflow test Σ_{i∈S_j} x[i][t] > c, exact on the trace's values as written (ALGORITHMS.md §4.4)
    overflow: ExactThreshold,
    /// ascending-sorted observations per item (row-major n × |O|), built on first use by a percentile test
    sorted_obs: OnceLock<Vec<f64>>,
    /// means and variances over the fit half of O (calibrated GPA), built on first use
    fit_half: OnceLock<(Vec<f64>, Vec<f64>)>,
}

/// A set of realisation columns `start, start + step, …` (`len` of them): O, E, or a half of O.
#[derive(Clone, Copy, Debug)]
struct Cols {
    start: usize,
    len: usize,
    step: usize,
}

impl Cols {
    fn range(r: &std::ops::Range<usize>) -> Cols {
        Cols {
            start: r.start,
            len: r.len(),
            step: 1,
        }
    }

    /// The halves of O for calibrated GPA: O's columns 0, 2, 4, … (fit) and 1, 3, 5, … (calibration).
    fn halves(o: &std::ops::Range<usize>) -> (Cols, Cols) {
        let n = o.len();
        (
            Cols {
                start: o.start,
                len: n.div_ceil(2),
                step: 2,
            },
            Cols {
                start: o.start + 1,
                len: n / 2,
                step: 2,
            },
        )
    }

    /// Index of the t-th column.
    fn col(&self, t: usize) -> usize {
        self.start + t * self.step
    }

    /// Adds item `i`'s values on these columns to `tot` (`tot.len() == self.len`), in column order.
    fn add_row(&self, x: &Samples, r: usize, i: usize, tot: &mut [f64]) {
        let begin = i * r + self.start;
        if self.step == 1 {
            for (t, v) in tot.iter_mut().zip(x.slice(begin..begin + self.len)) {
                *t += v;
            }
        } else if self.len > 0 {
            let end = begin + (self.len - 1) * self.step + 1;
            for (t, v) in tot
                .iter_mut()
                .zip(x.slice(begin..end).iter().step_by(self.step))
            {
                *t += v;
            }
        }
    }
}

/// Metrics of one packing (seed 002 §5.1; ALGORITHMS.md §4.4).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PackResult {
    /// The fit spec used.
    pub spec: String,
    /// Machines used (non-empty bins).
    pub m_abs: usize,
    /// ⌈Σ_i x̄_i / c⌉ with x̄_i the mean over all R columns (at least 1).
    pub m_norm: usize,
    /// m_abs / m_norm.
    pub m: f64,
    /// Overflow frequency: (1/(m_abs·|E|)) Σ_j #{t ∈ E : Σ_{i∈S_j} x[i][t] > c}, the sums compared with c
    /// exactly on the usage values as written in the trace (see [`Instance::evaluate`]).
    pub q: f64,
    /// Per-machine overflow frequency q(j)/|E|, machine order.
    pub q_per_machine: Vec<f64>,
    /// Items per machine.
    pub items_per_machine: Vec<usize>,
    /// Mean utilization: Σ_j Σ_{t∈E} total_j(t) / (m_abs · c · |E|).
    pub utilization: f64,
    /// For calibrated GPA (`gpa-cal:ρ`): the knob ρ' it packed with and how it was found; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// The teaching view of one machine: the empirical distribution of its total usage over E against the
/// Gaussian N(μ', σ'²) the GPA assumes from O, with both overflow probabilities.
///
/// Read back (`Deserialize`) as the data of the chart `placement.machine`, where `items` may be left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineView {
    /// Machine index (0-based).
    pub machine: usize,
    /// Items on it.
    #[serde(default)]
    pub items: Vec<String>,
    /// Total usage at each t ∈ E, VM units: f64 sums in placement order, so a total that equals c exactly as
    /// written may show an ulp above c; `empirical_overflow` decides such ties exactly.
    pub totals: Vec<f64>,
    /// μ' = Σ μ_i from O.
    pub mean: f64,
    /// σ' = sqrt(Σ σ_i²) from O.
    pub sd: f64,
    /// Capacity c.
    pub capacity: f64,
    /// Empirical overflow frequency over E (exact, as [`PackResult::q`]).
    pub empirical_overflow: f64,
    /// Gaussian overflow probability 1 − Φ((c − μ')/σ') (0 or 1 when σ' = 0).
    pub gaussian_overflow: f64,
}

/// Component id of the placement model's random VM subsets ([`random_subset`]) in [`crate::substrate::rng`].
pub const SUBSET_STREAM: u64 = 0x5002;

/// A random subset of `k` of `trace`'s VMs, drawn uniformly without replacement with seed `seed` (stream
/// [`SUBSET_STREAM`]) and kept in trace order, as an extra instance of the seed 002 protocols (the paper
/// samples each of its 50 instances from a pool of tasks, seed 002 §5.1). The values and their decimal grid
/// are the trace's; the name records the subset. Errors: `k` = 0 or more than the trace's VMs (field
/// `subset`).
pub fn random_subset(
    trace: &UsageTrace,
    k: usize,
    seed: u64,
) -> Result<UsageTrace, PlacementError> {
    let n = trace.items.len();
    if k == 0 || k > n {
        return Err(PlacementError {
            field: Some("subset".into()),
            message: format!("a subset needs 1 to {n} VMs (the trace's), got {k}"),
        });
    }
    // partial Fisher–Yates: the first k entries of a seeded shuffle, then trace order
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = crate::substrate::rng::stream(seed, SUBSET_STREAM, 0);
    for i in 0..k {
        let j = rng.random_range(i..n);
        idx.swap(i, j);
    }
    let mut pick = idx[..k].to_vec();
    pick.sort_unstable();
    let mut usage = Vec::with_capacity(k * trace.samples);
    for &i in &pick {
        usage.extend(trace.series(i).iter());
    }
    Ok(UsageTrace {
        name: format!("{} (subset {k} of {n}, seed {seed})", trace.name),
        items: pick.iter().map(|&i| trace.items[i].clone()).collect(),
        samples: trace.samples,
        usage: Samples::from(usage),
        interval_s: trace.interval_s,
        grid: trace.grid,
    })
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Instance {
    /// Builds the instance from `trace` with `params` (mode, realisations, clairvoyance, capacity) and `seed`
    /// (used in resampled mode only: task i draws from its own stream seeded by (seed, i)).
    ///
    /// Errors: invalid parameters (naming the field), or a split that leaves O empty (ℓ·R < 1).
    pub fn new(
        trace: &UsageTrace,
        params: &PlacementParams,
        seed: u64,
    ) -> Result<Self, PlacementError> {
        let errs = params.validate("placement.");
        if !errs.is_empty() {
            return Err(errs.into());
        }
        Instance::planned(trace, params, seed)
    }

    /// [`Instance::new`] of parameters already validated ([`crate::experiment::ModelDef::start`], after the
    /// scenario's one validation). Errors: a split that leaves O empty.
    pub(crate) fn planned(
        trace: &UsageTrace,
        params: &PlacementParams,
        seed: u64,
    ) -> Result<Self, PlacementError> {
        let n = trace.items.len();
        if n == 0 || trace.samples == 0 {
            return Err(PlacementError {
                field: Some("trace".into()),
                message: "the trace is empty".into(),
            });
        }
        let (r, x) = match params.mode {
            Mode::Aligned => (trace.samples, trace.usage.clone()),
            Mode::Resampled => {
                let r = params.realisations;
                let mut x = Vec::with_capacity(n * r);
                for i in 0..n {
                    let s = trace.series(i);
                    let mut rng =
                        rand_pcg::Pcg64Mcg::seed_from_u64(splitmix(seed ^ splitmix(i as u64)));
                    x.extend((0..r).map(|_| s[rng.random_range(0..s.len())]));
                }
                (r, Samples::from(x))
            }
        };
        let l = params.clairvoyance;
        let (obs, eval) = if l >= 1.0 {
            (0..r, 0..r)
        } else {
            let o = (l * r as f64).floor() as usize;
            if o == 0 {
                return Err(PlacementError {
                    field: Some("placement.clairvoyance".into()),
                    message: format!("clairvoyance {l} × {r} realisations leaves no observations; raise it to at least {}", 1.0 / r as f64),
                });
            }
            (0..o, o..r)
        };
        let mut means = Vec::with_capacity(n);
        let mut vars = Vec::with_capacity(n);
        let mut true_mean_total = 0.0;
        let mut row = Vec::with_capacity(r);
        for i in 0..n {
            row.clear();
            row.extend(x.slice(i * r..(i + 1) * r));
            means.push(mean(&row[obs.clone()]));
            vars.push(population_variance(&row[obs.clone()]));
            true_mean_total += mean(&row);
        }
        Ok(Instance {
            name: trace.name.clone(),
            n,
            r,
            x,
            obs,
            eval,
            means,
            vars,
            true_mean_total,
            capacity: params.capacity,
            overflow: ExactThreshold::new(params.capacity, trace.grid),
            sorted_obs: OnceLock::new(),
            fit_half: OnceLock::new(),
        })
    }

    /// Number of items N.
    pub fn items(&self) -> usize {
        self.n
    }

    /// Realisations per item R.
    pub fn realisations(&self) -> usize {
        self.r
    }

    /// |O| and |E|.
    pub fn split(&self) -> (usize, usize) {
        (self.obs.len(), self.eval.len())
    }

    /// m_norm = ⌈Σ true means / c⌉, at least 1 (an all-zero trace would give 0).
    pub fn m_norm(&self) -> usize {
        ((self.true_mean_total / self.capacity).ceil() as usize).max(1)
    }

    /// Item statistics under `test`: mean and variance from O and the test's deterministic size.
    pub fn item_stats(&self, test: &dyn FitTest) -> Vec<ItemStats> {
        self.item_stats_with(test, &self.means, &self.vars)
    }

    /// Item statistics under `test` with the given per-item means and variances (a percentile test reads
    /// the sorted observations of O).
    fn item_stats_with(&self, test: &dyn FitTest, means: &[f64], vars: &[f64]) -> Vec<ItemStats> {
        let needs_sorted = test.reads_observations();
        let o = self.obs.len();
        let sorted: &[f64] = if needs_sorted {
            self.sorted_obs.get_or_init(|| {
                let mut s = Vec::with_capacity(self.n * o);
                for i in 0..self.n {
                    let start = s.len();
                    s.extend(
                        self.x
                            .slice(i * self.r + self.obs.start..i * self.r + self.obs.end),
                    );
                    crate::substrate::stats::sort_f64(&mut s[start..]);
                }
                s
            })
        } else {
            &[]
        };
        (0..self.n)
            .map(|i| {
                let obs = if needs_sorted {
                    &sorted[i * o..(i + 1) * o]
                } else {
                    &[][..]
                };
                ItemStats {
                    mean: means[i],
                    var: vars[i],
                    size: test.item_size(means[i], vars[i].sqrt(), obs),
                }
            })
            .collect()
    }

    /// Packs the items in trace order with `fit` and `rule`, then rebalances if `rebalance` is set
    /// (seed 002 Alg. 1). `fit` must be valid. For `gpa-cal:ρ` see [`Instance::pack_detailed`].
    pub fn pack(&self, fit: &FitSpec, rule: Rule, rebalance_on: bool) -> Packing {
        self.pack_detailed(fit, rule, rebalance_on).0
    }

    /// [`Instance::pack`], and for calibrated GPA (`gpa-cal:ρ`, [`super::calibrate`]) how its knob ρ' was
    /// found: on the fit half of O (columns 0, 2, 4, … of O) the means and variances, on the calibration
    /// half (columns 1, 3, 5, …) the overflow frequency of GPA(ρ')'s packing, searched by
    /// [`calibrate::search`] until it is at most ρ; the packing returned is GPA(ρ')'s on the fit-half
    /// statistics. With fewer than 2 columns in O there is nothing to hold out: GPA(ρ) on O's statistics is
    /// used and the calibration says so (`met = false`). Other specs: `None`.
    pub fn pack_detailed(
        &self,
        fit: &FitSpec,
        rule: Rule,
        rebalance_on: bool,
    ) -> (Packing, Option<Calibration>) {
        let FitSpec::GpaCal(target) = *fit else {
            let test = fit.test();
            let items = self.item_stats(&*test);
            return (self.pack_items(&*test, &items, rule, rebalance_on), None);
        };
        let (fit_cols, cal_cols) = Cols::halves(&self.obs);
        if cal_cols.len == 0 {
            let test = FitSpec::Gpa(target).test();
            let items = self.item_stats(&*test);
            let packing = self.pack_items(&*test, &items, rule, rebalance_on);
            let cal = Calibration {
                target,
                rho: target,
                q_calibration: None,
                met: false,
                fit_columns: self.obs.len(),
                calibration_columns: 0,
                packings: 1,
                note: Some(format!(
                    "the observation set has {} column(s), none left to calibrate on: plain GPA at the target",
                    self.obs.len()
                )),
            };
            return (packing, Some(cal));
        }
        let (means, vars) = self.fit_half.get_or_init(|| {
            let mut row = vec![0.0; fit_cols.len];
            let mut means = Vec::with_capacity(self.n);
            let mut vars = Vec::with_capacity(self.n);
            for i in 0..self.n {
                row.iter_mut().for_each(|v| *v = 0.0);
                fit_cols.add_row(&self.x, self.r, i, &mut row);
                means.push(mean(&row));
                vars.push(population_variance(&row));
            }
            (means, vars)
        });
        let mut tried: Vec<(f64, Packing)> = Vec::new();
        let found = calibrate::search(target, |rho| {
            let test = FitSpec::Gpa(rho).test();
            let items = self.item_stats_with(&*test, means, vars);
            let packing = self.pack_items(&*test, &items, rule, rebalance_on);
            let q = self.overflow_frequency(&packing, cal_cols);
            tried.push((rho, packing));
            q
        });
        let packing = tried
            .into_iter()
            .rev()
            .find(|(rho, _)| *rho == found.rho)
            .map(|(_, p)| p)
            .unwrap_or(Packing { bins: Vec::new() });
        let cal = Calibration {
            target,
            rho: found.rho,
            q_calibration: Some(found.q),
            met: found.met,
            fit_columns: fit_cols.len,
            calibration_columns: cal_cols.len,
            packings: found.evaluations,
            note: (!found.met).then(|| {
                format!(
                    "no knob in [{:e}, {}] meets the target on the calibration half: the most conservative one is used",
                    calibrate::RHO_MIN,
                    calibrate::RHO_MAX
                )
            }),
        };
        (packing, Some(cal))
    }

    /// Packs `items` with `test` and `rule`, then rebalances if `rebalance_on` (seed 002 Alg. 1).
    fn pack_items(
        &self,
        test: &dyn FitTest,
        items: &[ItemStats],
        rule: Rule,
        rebalance_on: bool,
    ) -> Packing {
        let (mut packing, mut loads) = pack(items, test, self.capacity, rule);
        if rebalance_on {
            rebalance(
                &mut packing,
                &mut loads,
                items,
                test,
                self.capacity,
                REBALANCE_MAX_FAILURES,
            );
        }
        packing
    }

    /// Overflow frequency of `packing` on the columns `cols`: machine-samples over c / (m_abs · columns), 0
    /// for no machines or no columns (the q of ALGORITHMS.md §4.4 on other columns than E).
    fn overflow_frequency(&self, packing: &Packing, cols: Cols) -> f64 {
        let over: usize = packing.bins.iter().map(|b| self.totals(b, cols).1).sum();
        let n = packing.bins.len() * cols.len;
        if n == 0 {
            0.0
        } else {
            over as f64 / n as f64
        }
    }

    /// Total usage of machine `bin` at each column of `cols` (E, or a half of O for calibrated GPA; VM units,
    /// items summed in placement order) and the number of those columns where the machine overflows, Σ_{i∈S_j} x[i][t] > c, decided exactly on the
    /// values as written and whatever the item order ([`ExactThreshold`]: the f64 total decides unless it is
    /// within its rounding error of c; then the column is summed on the trace's decimal grid, or exactly in
    /// binary off a grid).
    fn totals(&self, bin: &[usize], cols: Cols) -> (Vec<f64>, usize) {
        let mut tot = vec![0.0; cols.len];
        for &i in bin {
            cols.add_row(&self.x, self.r, i, &mut tot);
        }
        let column = |t: usize| bin.iter().map(move |&i| self.x[i * self.r + cols.col(t)]);
        let over = self
            .overflow
            .sums_of(bin.len())
            .count_exceeding(&tot, column);
        (tot, over)
    }

    /// Evaluates a packing on E (seed 002 §5.1; ALGORITHMS.md §4.4). q counts the machine-samples whose total
    /// exceeds c exactly, with respect to the usage values as written in the trace (issue 12: integer CPU %
    /// often add up to c exactly, and a plain f64 sum counts some of those ties as overflows); utilization
    /// sums the f64 totals.
    pub fn evaluate(&self, spec: &FitSpec, packing: &Packing) -> PackResult {
        self.evaluate_named(spec.to_string(), packing)
    }

    /// [`Instance::evaluate`] of a packing by any fit test, recorded under the spec `spec`.
    pub fn evaluate_named(&self, spec: String, packing: &Packing) -> PackResult {
        let c = self.capacity;
        let e = self.eval.len() as f64;
        let mut q_per_machine = Vec::with_capacity(packing.bins.len());
        let mut overflows = 0usize;
        let mut usage = 0.0;
        for bin in &packing.bins {
            let (tot, over) = self.totals(bin, Cols::range(&self.eval));
            overflows += over;
            usage += tot.iter().sum::<f64>();
            q_per_machine.push(over as f64 / e);
        }
        let m_abs = packing.bins.len();
        let m_norm = self.m_norm();
        PackResult {
            spec,
            m_abs,
            m_norm,
            m: m_abs as f64 / m_norm as f64,
            q: if m_abs == 0 {
                0.0
            } else {
                overflows as f64 / (m_abs as f64 * e)
            },
            q_per_machine,
            items_per_machine: packing.bins.iter().map(|b| b.len()).collect(),
            utilization: if m_abs == 0 {
                0.0
            } else {
                usage / (m_abs as f64 * c * e)
            },
            calibration: None,
        }
    }

    /// Packs with `spec` ([`Instance::pack_detailed`]) and evaluates on E, the calibration (if any) attached
    /// to the result.
    pub fn pack_and_evaluate(
        &self,
        spec: &FitSpec,
        rule: Rule,
        rebalance_on: bool,
    ) -> (Packing, PackResult) {
        let (packing, calibration) = self.pack_detailed(spec, rule, rebalance_on);
        let mut r = self.evaluate(spec, &packing);
        r.calibration = calibration;
        (packing, r)
    }

    /// Packs with `spec` and evaluates: one frontier point (pareto flag unset).
    pub fn frontier_point(&self, spec: &FitSpec, rule: Rule, rebalance_on: bool) -> FrontierPoint {
        let (_, r) = self.pack_and_evaluate(spec, rule, rebalance_on);
        point(spec.family(), spec.param(), r)
    }

    /// Packs with a user's script (issue 31; [`ScriptFit`]) under `rule` and rebalancing, and evaluates on
    /// E under the spec `spec` (`script:<name>`). Errors: the script's first run-time error (a limit, a
    /// wrong type), at its line and column.
    pub fn pack_script(
        &self,
        script: &Arc<Script>,
        spec: String,
        rule: Rule,
        rebalance_on: bool,
    ) -> Result<(Packing, PackResult), ScriptError> {
        let test = ScriptFit::new(script.clone());
        let items = self.item_stats(&test);
        let packing = self.pack_items(&test, &items, rule, rebalance_on);
        if let Some(e) = test.run.take_error() {
            return Err(e);
        }
        let r = self.evaluate_named(spec, &packing);
        Ok((packing, r))
    }

    /// [`Instance::pack_script`] as a frontier point of the family `script` (pareto flag unset).
    pub fn script_point(
        &self,
        script: &Arc<Script>,
        spec: String,
        rule: Rule,
        rebalance_on: bool,
    ) -> Result<FrontierPoint, ScriptError> {
        let (_, r) = self.pack_script(script, spec, rule, rebalance_on)?;
        Ok(point(Family::Script, None, r))
    }

    /// Wraps evaluated points into a [`Frontier`] record with this instance's parameters.
    pub fn frontier(&self, params: &PlacementParams, points: Vec<FrontierPoint>) -> Frontier {
        Frontier {
            trace: self.name.clone(),
            items: self.n,
            realisations: self.r,
            observations: self.obs.len(),
            evaluations: self.eval.len(),
            capacity: self.capacity,
            rule: params.rule,
            rebalance: params.rebalance,
            target_rho: params.target_rho,
            points,
        }
    }

    /// The teaching view of machine `machine` of `packing` (see [`MachineView`]). `item_names` are the
    /// trace's item ids. Errors when `machine` is out of range.
    pub fn machine_view(
        &self,
        packing: &Packing,
        machine: usize,
        item_names: &[String],
    ) -> Result<MachineView, PlacementError> {
        let Some(bin) = packing.bins.get(machine) else {
            return Err(PlacementError {
                field: Some("machine".into()),
                message: format!(
                    "machine {machine} does not exist (the packing has {} machines)",
                    packing.bins.len()
                ),
            });
        };
        let (totals, over) = self.totals(bin, Cols::range(&self.eval));
        let mean: f64 = bin.iter().map(|&i| self.means[i]).sum();
        let sd = bin.iter().map(|&i| self.vars[i]).sum::<f64>().sqrt();
        let c = self.capacity;
        let gaussian_overflow = if sd == 0.0 {
            f64::from(mean > c)
        } else {
            normal_sf((c - mean) / sd)
        };
        Ok(MachineView {
            machine,
            items: bin
                .iter()
                .map(|&i| {
                    item_names
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| format!("#{i}"))
                })
                .collect(),
            empirical_overflow: over as f64 / totals.len() as f64,
            totals,
            mean,
            sd,
            capacity: c,
            gaussian_overflow,
        })
    }
}

/// A frontier point of `family` at knob `param` from an evaluated packing (pareto flag unset).
fn point(family: Family, param: Option<f64>, r: PackResult) -> FrontierPoint {
    FrontierPoint {
        family,
        param,
        spec: r.spec,
        m_abs: r.m_abs,
        m_norm: r.m_norm,
        m: r.m,
        q: r.q,
        utilization: r.utilization,
        pareto: false,
        calibration: r.calibration,
        error: None,
    }
}
