//! Admission policies and their look-ahead grid (ALGORITHMS.md §2.7, seed 000 Def. 4.1, 4.2, 4.4, 6.1).

use super::params::{PolicyKind, PolicySpec, SecondParam};

/// The look-ahead: union of sub-horizons `H` with `steps` points each, `t_{H,k} = k·H/steps` (hours), plus the
/// lead times at which per-deployment curves are stored and the interpolation map between the two.
#[derive(Clone, Debug)]
pub struct LeadGrid {
    /// Policy lead times (hours), `subhorizons.len()·steps` of them, in sub-horizon order.
    pub policy_t: Vec<f64>,
    /// Lead times (hours, ascending) at which curves are computed and summed.
    pub curve_t: Vec<f64>,
    map: Vec<(u32, f64)>,
}

impl LeadGrid {
    /// Build the grid. `curve_points = 0`: curves on the exact (deduplicated) policy grid; otherwise
    /// `curve_points` log-spaced lead times from the smallest to the largest policy lead time, and policy values
    /// are interpolated linearly in ln t.
    pub fn new(subhorizons: &[f64], steps: usize, curve_points: usize) -> LeadGrid {
        let mut policy_t = Vec::with_capacity(subhorizons.len() * steps);
        for &h in subhorizons {
            for k in 1..=steps {
                policy_t.push(k as f64 * h / steps as f64);
            }
        }
        let mut sorted = policy_t.clone();
        crate::substrate::stats::sort_f64(&mut sorted);
        sorted.dedup();
        if curve_points == 0 || sorted.len() < 2 {
            let map = policy_t
                .iter()
                .map(|x| {
                    (
                        sorted.binary_search_by(|p| p.total_cmp(x)).unwrap_or(0) as u32,
                        0.0,
                    )
                })
                .collect();
            return LeadGrid {
                policy_t,
                curve_t: sorted,
                map,
            };
        }
        let lg = super::moments::LogGrid::new(sorted[0], sorted[sorted.len() - 1], curve_points);
        let map = policy_t
            .iter()
            .map(|&x| {
                let (i, f) = lg.locate(x);
                (i as u32, f)
            })
            .collect();
        LeadGrid {
            policy_t,
            curve_t: lg.t,
            map,
        }
    }

    /// Value of a curve (given on `curve_t`) at lead time `t` (hours): linear in ln t between the two stored
    /// lead times around `t` (exact at a stored lead time), clamped to the first or last value outside them.
    /// Used for the predicted variance of the payment rule (ALGORITHMS.md §2.11).
    pub fn curve_at_time(&self, curve: &[f64], t: f64) -> f64 {
        let ts = &self.curve_t;
        if t <= ts[0] {
            return curve[0];
        }
        let last = ts.len() - 1;
        if t >= ts[last] {
            return curve[last];
        }
        let j = ts.partition_point(|&x| x <= t); // ts[j − 1] ≤ t < ts[j]
        let (a, b) = (ts[j - 1], ts[j]);
        if a == t {
            return curve[j - 1];
        }
        let f = libm::log(t / a) / libm::log(b / a); // libm: bit-identical natively and in wasm
        curve[j - 1] + (curve[j] - curve[j - 1]) * f
    }

    /// Value of a curve (given on `curve_t`) at policy point k.
    #[inline]
    pub fn at(&self, curve: &[f64], k: usize) -> f64 {
        let (i, f) = self.map[k];
        let i = i as usize;
        if f == 0.0 {
            curve[i]
        } else {
            curve[i] + (curve[i + 1] - curve[i]) * f
        }
    }
}

/// Everything a policy sees at an arrival (ALGORITHMS.md §2.7 pseudo-code).
pub struct DecisionContext<'a> {
    /// Active cores N now.
    pub active: f64,
    /// Capacity C (cores).
    pub capacity: f64,
    /// Candidate's initial cores n0.
    pub n0: u32,
    /// Lead-time grid.
    pub grid: &'a LeadGrid,
    /// Σ_d μ_d on `grid.curve_t` (cores); empty when the policy needs no curves.
    pub sum_mean: &'a [f64],
    /// Σ_d v_d on `grid.curve_t` (cores²).
    pub sum_var: &'a [f64],
    /// Candidate's μ_c on `grid.curve_t`.
    pub cand_mean: &'a [f64],
    /// Candidate's v_c on `grid.curve_t`.
    pub cand_var: &'a [f64],
    /// Marginal constant ε_m (cores).
    pub marginal_eps: f64,
}

/// An admission policy: accept or reject one arriving deployment. Later models' policies mirror this trait.
pub trait AdmissionPolicy {
    /// Display name, e.g. "SECOND+MARGINAL".
    fn name(&self) -> String;
    /// True if [`DecisionContext`] must carry the moment curves.
    fn needs_curves(&self) -> bool;
    /// The policy's own test (the cluster additionally requires `N + n0 ≤ C`).
    fn accept(&self, ctx: &DecisionContext) -> bool;
}

/// The policies of §2.7 as one configurable struct.
#[derive(Clone, Copy, Debug)]
pub struct MomentPolicy {
    /// Policy, threshold and MARGINAL flag.
    pub spec: PolicySpec,
    /// Parametrisation of SECOND.
    pub second: SecondParam,
}

impl AdmissionPolicy for MomentPolicy {
    fn name(&self) -> String {
        let mut s = self.spec.kind.name().to_string();
        if self.spec.marginal {
            s.push_str("+MARGINAL");
        }
        s
    }
    fn needs_curves(&self) -> bool {
        self.spec.kind.needs_curves()
    }
    fn accept(&self, c: &DecisionContext) -> bool {
        self.test(c, self.spec.marginal)
    }
}

impl MomentPolicy {
    /// The policy's test with the MARGINAL heuristic on or off (`marginal`), whatever `spec.marginal` says:
    /// ZEROTH/FIRST/SECOND of ALGORITHMS.md §2.7, and with `marginal` a lead time also passes when the
    /// candidate's mean `μ_c(t_k)` is below `ε_m` (seed 000 Def. 6.1).
    pub fn test(&self, c: &DecisionContext, marginal: bool) -> bool {
        match self.spec.kind {
            PolicyKind::AcceptIfFits => true,
            PolicyKind::Zeroth => c.active + (c.n0 as f64) < self.spec.threshold,
            PolicyKind::First | PolicyKind::Second => (0..c.grid.policy_t.len()).all(|k| {
                let (ok, mc) = self.moment_point(c, k);
                ok || (marginal && mc < c.marginal_eps)
            }),
        }
    }

    /// FIRST/SECOND without MARGINAL: `None` if the candidate passes, else the largest candidate mean
    /// `max μ_c(t_k)` (cores) over the lead times where the moment condition fails. MARGINAL accepts the
    /// candidate exactly when this is below `ε_m` (seed 000 Def. 6.1, ALGORITHMS.md §2.7 pseudo-code line 8).
    /// `None` for ZEROTH and ACCEPT_IF_FITS.
    pub fn failing_candidate_mean(&self, c: &DecisionContext) -> Option<f64> {
        self.rejection(c).map(|r| r.max_candidate_mean)
    }

    /// Where the test without MARGINAL fails ([`Rejection`]); `None` if the candidate passes, and for ZEROTH
    /// and ACCEPT_IF_FITS. The lead-time diagnostic of [`LeadTimeCounts`] (issue 32) is made of these.
    pub fn rejection(&self, c: &DecisionContext) -> Option<Rejection> {
        if !self.spec.kind.needs_curves() {
            return None;
        }
        let mut out: Option<Rejection> = None;
        for k in 0..c.grid.policy_t.len() {
            if let (false, mc) = self.moment_point(c, k) {
                let t = c.grid.policy_t[k];
                let r = out.get_or_insert(Rejection {
                    first_lead_hours: t,
                    max_candidate_mean: mc,
                    without_candidate: false,
                });
                r.first_lead_hours = r.first_lead_hours.min(t);
                r.max_candidate_mean = r.max_candidate_mean.max(mc);
            }
        }
        if let Some(r) = &mut out {
            r.without_candidate =
                (0..c.grid.policy_t.len()).any(|k| !self.moment_point_with(c, k, false).0);
        }
        out
    }

    /// FIRST/SECOND at policy point k: (moment condition holds, candidate mean `μ_c(t_k)`).
    fn moment_point(&self, c: &DecisionContext, k: usize) -> (bool, f64) {
        self.moment_point_with(c, k, true)
    }

    /// [`Self::moment_point`] with the candidate's curves included (`with_candidate`) or left out (the
    /// admitted deployments alone).
    fn moment_point_with(
        &self,
        c: &DecisionContext,
        k: usize,
        with_candidate: bool,
    ) -> (bool, f64) {
        let (g, th) = (c.grid, self.spec.threshold);
        let mc = g.at(c.cand_mean, k);
        let w = if with_candidate { 1.0 } else { 0.0 };
        let e = g.at(c.sum_mean, k) + w * mc;
        let ok = if self.spec.kind == PolicyKind::First {
            e < th
        } else {
            let v = g.at(c.sum_var, k) + w * g.at(c.cand_var, k);
            match self.second {
                SecondParam::Ratio => {
                    let d = c.capacity - e;
                    e < c.capacity && v / (v + d * d) < th
                }
                SecondParam::Cores { delta } => e + (v * (1.0 - delta) / delta).sqrt() < th,
            }
        };
        (ok, mc)
    }

    /// Whether the candidate is marginal somewhere on the look-ahead: `min_k μ_c(t_k) < ε_m` (seed 000
    /// Def. 6.1; false for policies without curves). Only such candidates can be accepted by MARGINAL alone.
    pub fn marginal_somewhere(&self, c: &DecisionContext) -> bool {
        !c.cand_mean.is_empty()
            && (0..c.grid.policy_t.len()).any(|k| c.grid.at(c.cand_mean, k) < c.marginal_eps)
    }
}

/// Upper ends (hours) of the first four buckets of the lead-time diagnostic: < 1 h, 1 h–1 d, 1 d–1 wk,
/// 1 wk–1 mo (730 h, the run's month), and > 1 mo beyond the last (issue 32; seed 000 §6.1's premise is a
/// critical event "months or even years in the future").
pub const LEAD_BUCKET_HOURS: [f64; 4] = [1.0, 24.0, 168.0, 730.0];

/// Labels of the five lead-time buckets, in order.
pub const LEAD_BUCKET_LABELS: [&str; 5] = ["< 1 h", "1 h–1 d", "1 d–1 wk", "1 wk–1 mo", "> 1 mo"];

/// Bucket (0–4) of a lead time `t` (hours): the first bucket whose upper end exceeds `t` (a bucket holds its
/// lower end), 4 beyond a month.
pub fn lead_bucket(t: f64) -> usize {
    LEAD_BUCKET_HOURS.iter().position(|&u| t < u).unwrap_or(4)
}

/// Where a FIRST/SECOND test without MARGINAL rejected a candidate ([`MomentPolicy::rejection`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rejection {
    /// Smallest lead time (hours) at which the moment condition fails.
    pub first_lead_hours: f64,
    /// Largest candidate mean `μ_c(t_k)` (cores) over the failing lead times.
    pub max_candidate_mean: f64,
    /// The condition also fails at some lead time without the candidate (the admitted deployments alone).
    pub without_candidate: bool,
}

/// The lead-time diagnostic of a run or of pooled runs (issue 32): over the arrivals the FIRST/SECOND test
/// without MARGINAL rejects, the distribution of their first failing lead time ([`lead_bucket`]) and how many
/// fail even without the candidate. MARGINAL (seed 000 Def. 6.1) can only admit a candidate whose mean is
/// below ε_m at every failing lead time, so it needs first failures months ahead. All zero for ZEROTH and
/// ACCEPT_IF_FITS.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LeadTimeCounts {
    /// Arrivals the test without MARGINAL rejected.
    pub rejections: u64,
    /// Of them, per bucket of the first failing lead time (< 1 h, 1 h–1 d, 1 d–1 wk, 1 wk–1 mo, > 1 mo).
    pub first_failure: [u64; 5],
    /// Of them, those whose test also fails without the candidate.
    pub without_candidate: u64,
}

impl LeadTimeCounts {
    /// Count one rejection.
    pub fn add(&mut self, r: &Rejection) {
        self.rejections += 1;
        self.first_failure[lead_bucket(r.first_lead_hours)] += 1;
        self.without_candidate += r.without_candidate as u64;
    }

    /// Counts of several runs summed.
    pub fn pooled<'a>(runs: impl IntoIterator<Item = &'a LeadTimeCounts>) -> LeadTimeCounts {
        runs.into_iter()
            .fold(LeadTimeCounts::default(), |mut a, x| {
                a.rejections += x.rejections;
                for (s, v) in a.first_failure.iter_mut().zip(x.first_failure) {
                    *s += v;
                }
                a.without_candidate += x.without_candidate;
                a
            })
    }

    /// No rejection counted.
    pub fn is_empty(&self) -> bool {
        self.rejections == 0
    }

    /// Shares (0–1) of the rejections per bucket (all 0 without rejections).
    pub fn shares(&self) -> [f64; 5] {
        let n = self.rejections.max(1) as f64;
        self.first_failure.map(|c| c as f64 / n)
    }

    /// Share (0–1) of the rejections that fail without the candidate (0 without rejections).
    pub fn without_candidate_share(&self) -> f64 {
        self.without_candidate as f64 / self.rejections.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-made look-ahead with lead times 0.5, 1, 10, 20, 100, 200, 1000, 2000 h (exact curve grid).
    fn grid() -> LeadGrid {
        LeadGrid::new(&[2000.0, 200.0, 20.0, 1.0], 2, 0)
    }

    fn first(th: f64) -> MomentPolicy {
        MomentPolicy {
            spec: PolicySpec {
                kind: PolicyKind::First,
                threshold: th,
                marginal: false,
            },
            second: SecondParam::Ratio,
        }
    }

    fn ctx<'a>(
        g: &'a LeadGrid,
        sm: &'a [f64],
        sv: &'a [f64],
        cm: &'a [f64],
        cv: &'a [f64],
    ) -> DecisionContext<'a> {
        DecisionContext {
            active: 0.0,
            capacity: 10.0,
            n0: 1,
            grid: g,
            sum_mean: sm,
            sum_var: sv,
            cand_mean: cm,
            cand_var: cv,
            marginal_eps: 0.1,
        }
    }

    #[test]
    fn buckets_hold_their_lower_end() {
        let b: Vec<usize> = [0.0, 0.99, 1.0, 23.9, 24.0, 167.0, 168.0, 729.0, 730.0, 1e5]
            .iter()
            .map(|&t| lead_bucket(t))
            .collect();
        assert_eq!(b, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn first_failing_lead_time_and_failure_without_the_candidate_on_hand_made_curves() {
        let g = grid();
        assert_eq!(
            g.curve_t,
            [0.5, 1.0, 10.0, 20.0, 100.0, 200.0, 1000.0, 2000.0]
        );
        let zero = [0.0; 8];
        let p = first(10.0);
        // FIRST, E = Σμ + μ_c < 10. (a) cluster 5 everywhere, candidate 6 up to 20 h then 1: fails at 0.5, 1,
        // 10, 20 h, first at 0.5 h (< 1 h), largest failing μ_c 6, passes without the candidate.
        let sm = [5.0; 8];
        let cm = [6.0, 6.0, 6.0, 6.0, 1.0, 1.0, 1.0, 1.0];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (0.5, 6.0, false)
        );
        // (b) cluster 5 up to 100 h, then 12 (the admitted deployments alone exceed 10 from 200 h), candidate
        // 0.5: first failure at 200 h (1 wk–1 mo), also without the candidate.
        let sm = [5.0, 5.0, 5.0, 5.0, 5.0, 12.0, 12.0, 12.0];
        let cm = [0.5; 8];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (200.0, 0.5, true)
        );
        // (c) cluster 9.5 only at 1000 and 2000 h, candidate 0.7: fails at 1000 and 2000 h only (> 1 mo), passes
        // without the candidate (9.5 < 10)
        let sm = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.5, 9.5];
        let cm = [0.7; 8];
        let r = p.rejection(&ctx(&g, &sm, &zero, &cm, &zero)).unwrap();
        assert_eq!((r.first_lead_hours, r.without_candidate), (1000.0, false));
        // (d) passes everywhere: no rejection
        assert_eq!(p.rejection(&ctx(&g, &zero, &zero, &cm, &zero)), None);
        // SECOND (ratio, C = 10): v/(v + (C − E)²) < θ2 = 0.2. Cluster E = 6, v = 1 everywhere (1/17 passes);
        // the candidate adds E 1, v 3 at 10 and 20 h: 4/(4 + 9) = 0.31 fails there, first at 10 h
        // (1 h–1 d); without it 1/17 passes.
        let second = MomentPolicy {
            spec: PolicySpec {
                kind: PolicyKind::Second,
                threshold: 0.2,
                marginal: false,
            },
            second: SecondParam::Ratio,
        };
        let (sm, sv) = ([6.0; 8], [1.0; 8]);
        let cm = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let cv = [0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0];
        let r = second.rejection(&ctx(&g, &sm, &sv, &cm, &cv)).unwrap();
        assert_eq!(
            (
                r.first_lead_hours,
                r.max_candidate_mean,
                r.without_candidate
            ),
            (10.0, 1.0, false)
        );
        // counting: buckets 0 (a), 3 (b), 4 (c), 1 (SECOND); one without the candidate
        let mut n = LeadTimeCounts::default();
        for t in [(0.5, false), (200.0, true), (1000.0, false), (10.0, false)] {
            n.add(&Rejection {
                first_lead_hours: t.0,
                max_candidate_mean: 0.0,
                without_candidate: t.1,
            });
        }
        assert_eq!(
            (n.rejections, n.first_failure, n.without_candidate),
            (4, [1, 1, 0, 1, 1], 1)
        );
        assert_eq!(n.shares(), [0.25, 0.25, 0.0, 0.25, 0.25]);
        let both = LeadTimeCounts::pooled([&n, &n]);
        assert_eq!(
            (both.rejections, both.first_failure, both.without_candidate),
            (8, [2, 2, 0, 2, 2], 2)
        );
    }
}
