//! The learned distributional lifetime predictor (seed 003 §3, App. B; ALGORITHMS.md §5.2): a discrete-time
//! survival model ([`super::hazard`]) over the lifetime bins of the data, trained on the training VMs'
//! features ([`super::features`]) and binned lifetimes with right-censoring, gives every job a lifetime
//! distribution. Its point estimate is the paper's (seed 003 App. B: a regression on `log10` lifetimes capped at
//! 168 h, trained on the remaining time `T_r` at augmented uptimes `T_u`, §3): the geometric mean of the
//! remaining time capped at 168 h, `R̂(u) = exp E[ln clamp(T − u, 2.5 min, 168 h) | T > u]`, so the first
//! prediction is `exp E[ln min(T, 168)]` and the estimate is positive at every uptime, with no jump at 168 h
//! (capping the total `min(T, 168)` instead sent `R̂` to 0 at 168 h and back up beyond it) and 168 h beyond the
//! grid's last point (the tail mass, a lower bound) [UNSTATED]. It still moves where a point's mass leaves
//! the conditioning. (The distribution's mean, [`Learned::mean_residual`], sits far in the 480 h tail and
//! overstates lifetimes: median |log10 error| 0.82 against 0.43.)
//!
//! Jobs with the same feature levels share one distribution, so memory grows with the distinct feature
//! combinations (2 × 48 numbers each), not with the jobs.

use super::features::{extract, Encoder, VmFeatures, DEFAULT_GROUPS, GROUPS};
use super::hazard::{steps_of_seconds, BinGrid, FitInfo, HazardModel, HazardSpec, Obs};
use super::pool::PoolJobs;
use super::predictor::{LifetimePredictor, TailSums};
use crate::experiment::RunError;
use crate::workload::{VmFacts, WorkloadFacts};
use std::collections::HashMap;

/// The cap of the learned point estimate's lifetimes, hours (seed 003 App. B, stated: 168 h).
pub const POINT_CAP_H: f64 = 168.0;
/// The floor of the point estimate's logarithm, hours: the mass of lattice value 0 (lifetimes under 5 minutes,
/// whose point is 0 h) counts as the middle of that span, 2.5 minutes [UNSTATED].
pub const POINT_FLOOR_H: f64 = 0.5 * super::hazard::STEP_H;

/// The training label of a VM (seconds → 5-minute lattice steps): an observed exit with its lifetime bin
/// (`lifetime_range_s`, or the exact lifetime), or a right-censored VM alive at its age when observation
/// ended (`censored_at_s`, else the workload's end).
pub fn obs_of(w: &WorkloadFacts, v: &VmFacts) -> Obs {
    let life = v.lifetime_s(w.trace_end_s);
    match (v.is_censored(), w.lifetime_range_s(v)) {
        (true, _) => {
            let a = steps_of_seconds(life);
            Obs {
                lo: a,
                hi: a,
                event: false,
            }
        }
        (false, Some([lo, hi])) => {
            let lo = steps_of_seconds(lo);
            Obs {
                lo,
                hi: steps_of_seconds(hi).max(lo),
                event: true,
            }
        }
        (false, None) => {
            let v = steps_of_seconds(life);
            Obs {
                lo: v,
                hi: v,
                event: true,
            }
        }
    }
}

/// Settings of the learned predictor: the hazard model's fit and the feature groups used.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnedSpec {
    /// The fit.
    pub hazard: HazardSpec,
    /// Feature groups used ([`super::features::GROUP_NAMES`] order).
    pub groups: [bool; GROUPS],
}

impl Default for LearnedSpec {
    /// [`HazardSpec::default`] with [`DEFAULT_GROUPS`].
    fn default() -> Self {
        LearnedSpec {
            hazard: HazardSpec::default(),
            groups: DEFAULT_GROUPS,
        }
    }
}

/// A fitted learned model: the feature encoder and the hazard model.
#[derive(Clone, Debug)]
pub struct LearnedModel {
    encoder: Encoder,
    hazard: HazardModel,
}

impl LearnedModel {
    /// Trains on the VMs `training` (indices into `w.vms`) with their features `feats` (every VM of `w`, from
    /// [`extract`]) over the Azure V1 lifetime bins ([`BinGrid::azure_v1`]). Errors (naming `workload`): no
    /// training VM, no exit to learn from.
    pub fn train(
        w: &WorkloadFacts,
        feats: &[VmFeatures],
        training: &[usize],
        spec: &LearnedSpec,
    ) -> Result<LearnedModel, RunError> {
        let train: Vec<usize> = training
            .iter()
            .copied()
            .filter(|&i| i < w.vms.len() && i < feats.len())
            .collect();
        if train.is_empty() {
            return Err(RunError::field(
                "workload",
                "no training VM for the learned predictor",
            ));
        }
        let refs: Vec<&VmFeatures> = train.iter().map(|&i| &feats[i]).collect();
        let encoder = Encoder::fit(&refs, spec.groups);
        let levels: Vec<u16> = refs.iter().flat_map(|f| encoder.encode(f)).collect();
        let obs: Vec<Obs> = train.iter().map(|&i| obs_of(w, &w.vms[i])).collect();
        let hazard = HazardModel::fit(
            &BinGrid::azure_v1(),
            &encoder.levels(),
            &levels,
            &obs,
            &spec.hazard,
        )
        .map_err(|e| RunError::field("workload", format!("learned predictor: {e}")))?;
        Ok(LearnedModel { encoder, hazard })
    }

    /// How the fit went.
    pub fn info(&self) -> &FitInfo {
        &self.hazard.info
    }

    /// The lifetime distribution of a VM with features `f`: points (hours, ascending: the bins' midpoints and
    /// the grid's last value) and their probabilities, written into the buffers ([`HazardModel::distribution`]).
    pub fn distribution(&self, f: &VmFeatures, points: &mut Vec<f64>, probs: &mut Vec<f64>) {
        self.hazard
            .distribution(&self.encoder.encode(f), points, probs);
    }

    /// The predictor for the jobs whose workload VMs are `vms` (job `j` = `vms[j]`, an index into `feats`;
    /// an index out of range gets the features of "nothing known": every group at level 0).
    pub fn predictor(&self, feats: &[VmFeatures], vms: &[usize]) -> Learned {
        let width = self.hazard.bins() + 1;
        let mut index: HashMap<[u16; GROUPS], u32> = HashMap::new();
        let (mut points, mut probs) = (Vec::new(), Vec::new());
        let mut tails: Vec<f64> = Vec::new();
        let mut grid: Vec<f64> = Vec::new();
        let of_job = vms
            .iter()
            .map(|&i| {
                // an unknown VM: every group at level 0
                let x = feats
                    .get(i)
                    .map(|f| self.encoder.encode(f))
                    .unwrap_or([0; GROUPS]);
                *index.entry(x).or_insert_with(|| {
                    self.hazard.distribution(&x, &mut points, &mut probs);
                    if grid.is_empty() {
                        grid = points.clone();
                    }
                    push_distribution(&mut tails, width, &points, &probs)
                })
            })
            .collect();
        Learned {
            grid,
            width,
            tails,
            of_job,
        }
    }
}

/// Appends one distribution's suffix sums (masses `probs` on `points`, at most `width` of them) to `tails` in
/// [`Learned`]'s layout; returns its index.
fn push_distribution(tails: &mut Vec<f64>, width: usize, points: &[f64], probs: &[f64]) -> u32 {
    let at = tails.len();
    tails.resize(at + 2 * (width + 1), 0.0);
    let (tp, tpt) = tails[at..].split_at_mut(width + 1);
    TailSums::fill(points, probs, tp, tpt);
    (at / (2 * (width + 1))) as u32
}

/// The learned predictor over the jobs of one simulation (see the module documentation).
pub struct Learned {
    /// Points (hours) of the bins and the tail, shared by every distribution.
    grid: Vec<f64>,
    /// Points per distribution.
    width: usize,
    /// Per distribution: `tail_p` (`width + 1`), then `tail_pt` (`width + 1`).
    tails: Vec<f64>,
    of_job: Vec<u32>,
}

impl Learned {
    /// The suffix sums of job `j`'s distribution (an empty distribution for an unknown job).
    fn tails(&self, j: usize) -> TailSums<'_> {
        let w = self.width + 1;
        match self.of_job.get(j) {
            Some(&d) => {
                let at = d as usize * 2 * w;
                TailSums {
                    t: &self.grid,
                    tail_p: &self.tails[at..at + w],
                    tail_pt: &self.tails[at + w..at + 2 * w],
                }
            }
            None => TailSums {
                t: &[],
                tail_p: &[],
                tail_pt: &[],
            },
        }
    }

    /// The point estimate of job `j`'s remaining lifetime at uptime `u` hours (see the module documentation):
    /// `exp E[ln clamp(T − u, 2.5 min, 168 h) | T > u]`, every point at `u ≤ 0`; the tail mass (the grid's
    /// last point: lifetimes beyond the data's range, a lower bound) counts at the cap at every uptime, so a
    /// VM older than the grid still has 168 h ahead. 0 for an unknown job.
    pub fn point(&self, j: usize, u: f64) -> f64 {
        let ts = self.tails(j);
        let n = ts.t.len();
        if n == 0 {
            return 0.0;
        }
        let last = n - 1;
        // at uptime 0 every point counts, the mass under 5 minutes (at 0 h) included; the tail always
        let i = if u <= 0.0 {
            0
        } else {
            ts.t.partition_point(|&x| x <= u).min(last)
        };
        let p = ts.tail_p[i];
        if p <= 0.0 {
            return 0.0;
        }
        // points at least 168 h ahead (and the tail) contribute ln 168
        let far =
            ts.t.partition_point(|&x| x < u + POINT_CAP_H)
                .clamp(i, last);
        let near: f64 = (i..far)
            .map(|k| {
                (ts.tail_p[k] - ts.tail_p[k + 1])
                    * (ts.t[k] - u.max(0.0))
                        .clamp(POINT_FLOOR_H, POINT_CAP_H)
                        .ln()
            })
            .sum();
        ((near + ts.tail_p[far] * POINT_CAP_H.ln()) / p).exp()
    }

    /// `E[T − u | T > u]` under job `j`'s distribution, hours (the distribution's mean residual, which the
    /// point estimate replaced).
    pub fn mean_residual(&self, j: usize, u: f64) -> f64 {
        self.tails(j).mean_residual(u)
    }

    /// `P(T > u)` under job `j`'s distribution (0 for an unknown job).
    pub fn survival(&self, j: usize, u: f64) -> f64 {
        self.tails(j).survival(u)
    }

    /// Distinct distributions held.
    pub fn distributions(&self) -> usize {
        self.tails.len() / (2 * (self.width + 1))
    }
}

impl LifetimePredictor for Learned {
    /// The point estimate at uptime 0: `exp E[ln clamp(T, 2.5 min, 168 h)]`, hours.
    fn first(&self, j: usize) -> f64 {
        self.point(j, 0.0)
    }
    /// The point estimate of the remaining lifetime at uptime `u`, hours (> 0 for a known job).
    fn remaining(&self, j: usize, u: f64) -> f64 {
        self.point(j, u)
    }
}

/// Trains the learned model on the pool's training VMs and returns the predictor of its jobs (with
/// reprediction; the caller wraps it in [`super::predictor::OneShot`] for the ablation), with the default
/// [`LearnedSpec`].
pub fn for_pool(
    w: &WorkloadFacts,
    pool: &PoolJobs,
) -> Result<Box<dyn LifetimePredictor>, RunError> {
    let feats = extract(w);
    let model = LearnedModel::train(w, &feats, &pool.training, &LearnedSpec::default())?;
    Ok(Box::new(model.predictor(&feats, &pool.vms)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Vm, Workload, WorkloadFormat};

    /// The training label of one VM `v` in a workload ending at `trace_end_s`, through its compact record.
    fn obs_of(v: &Vm, trace_end_s: f64) -> Obs {
        let w = Workload {
            name: "w".into(),
            source: WorkloadFormat::AzureArrivals,
            vms: vec![v.clone()],
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s,
            notes: Vec::new(),
        };
        let f = WorkloadFacts::from_workload(&w).unwrap();
        super::obs_of(&f, &f.vms[0])
    }

    fn vm(deleted: Option<f64>, range: Option<[f64; 2]>, censored_at: Option<f64>) -> Vm {
        Vm {
            id: "v".into(),
            tenant: None,
            deployment: None,
            category: None,
            cores: 1.0,
            memory_gb: 1.0,
            gpus: 0.0,
            created_s: 1000.0,
            started_s: None,
            deleted_s: deleted,
            censored_at_s: censored_at,
            lifetime_range_s: range,
            io_bytes: None,
            usage: None,
        }
    }

    fn learned(grid: Vec<f64>, probs: &[f64]) -> Learned {
        let mut tails = Vec::new();
        push_distribution(&mut tails, grid.len(), &grid, probs);
        Learned {
            width: grid.len(),
            grid,
            tails,
            of_job: vec![0],
        }
    }

    /// The point estimate by hand: masses 0.5, 0.3, 0.2 on 1, 100 and 480 h (the last: the tail).
    #[test]
    fn point_estimate_is_the_capped_geometric_mean_by_hand() {
        let p = learned(vec![1.0, 100.0, 480.0], &[0.5, 0.3, 0.2]);
        // u = 0: 1^0.5 · 100^0.3 · 168^0.2 (480 capped at 168)
        let g0 = 100f64.powf(0.3) * 168f64.powf(0.2);
        assert!((p.first(0) - g0).abs() < 1e-9 * g0, "{}", p.first(0));
        assert_eq!(p.first(0).to_bits(), p.remaining(0, 0.0).to_bits());
        // u = 1 h: given T > 1, masses 0.6, 0.4 on 99 h and 168 h (capped) ahead
        let g1 = 99f64.powf(0.6) * 168f64.powf(0.4);
        assert!((p.remaining(0, 1.0) - g1).abs() < 1e-9 * g1);
        // u = 50 h: 50 h and 168 h ahead
        let g50 = 50f64.powf(0.6) * 168f64.powf(0.4);
        assert!((p.remaining(0, 50.0) - g50).abs() < 1e-9 * g50);
        // only the tail beyond: 168 h ahead, on both sides of the 168 h cap and beyond the last point
        for u in [150.0, 167.9, 168.1, 479.0, 480.0, 2000.0] {
            assert!((p.remaining(0, u) - 168.0).abs() < 1e-9, "u = {u}");
        }
        // the distribution's mean residual is still there: E[T] = 0.5 + 30 + 96
        assert!((p.mean_residual(0, 0.0) - 126.5).abs() < 1e-9);
    }

    /// Continuous across the 168 h cap where no point's mass leaves: masses on 1, 100, 250 h and the tail;
    /// at u = 168 h ± 0.01 the points ahead are 82 h and the tail. Positive everywhere on a fine sweep.
    #[test]
    fn remaining_estimate_is_continuous_at_the_cap_and_positive() {
        let p = learned(vec![1.0, 100.0, 250.0, 480.0], &[0.4, 0.3, 0.2, 0.1]);
        let (a, b) = (p.remaining(0, 167.99), p.remaining(0, 168.01));
        let want = (82f64.ln() * 2.0 / 3.0 + 168f64.ln() / 3.0).exp();
        assert!(
            (a - want).abs() < 0.01 && (b - want).abs() < 0.01,
            "{a} {b} {want}"
        );
        assert!((0..3000).all(|k| p.remaining(0, k as f64 * 0.25) > 0.0));
        // an unknown job has no estimate
        assert_eq!(p.remaining(7, 3.0), 0.0);
    }

    #[test]
    fn training_labels_from_the_records() {
        // binned exit: bin 13 = 3,900–7,200 s → steps 13–24
        let o = obs_of(
            &vm(Some(1000.0 + 5550.0), Some([3900.0, 7200.0]), None),
            9e9,
        );
        assert_eq!(
            o,
            Obs {
                lo: 13,
                hi: 24,
                event: true
            }
        );
        // exact exit after 610 s: value 2 (the span [600, 900) s)
        let o = obs_of(&vm(Some(1610.0), None, None), 9e9);
        assert_eq!(
            o,
            Obs {
                lo: 2,
                hi: 2,
                event: true
            }
        );
        // censored at its split's cut (3,700 s after creation), or at the workload's end
        let o = obs_of(&vm(None, None, Some(4700.0)), 9e9);
        assert_eq!(
            o,
            Obs {
                lo: 12,
                hi: 12,
                event: false
            }
        );
        let o = obs_of(&vm(None, None, None), 1000.0 + 86_400.0);
        assert_eq!(
            o,
            Obs {
                lo: 288,
                hi: 288,
                event: false
            }
        );
    }
}
