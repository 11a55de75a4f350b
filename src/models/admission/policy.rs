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
        if !self.spec.kind.needs_curves() {
            return None;
        }
        (0..c.grid.policy_t.len())
            .filter_map(|k| match self.moment_point(c, k) {
                (false, mc) => Some(mc),
                _ => None,
            })
            .reduce(f64::max)
    }

    /// FIRST/SECOND at policy point k: (moment condition holds, candidate mean `μ_c(t_k)`).
    fn moment_point(&self, c: &DecisionContext, k: usize) -> (bool, f64) {
        let (g, th) = (c.grid, self.spec.threshold);
        let mc = g.at(c.cand_mean, k);
        let e = g.at(c.sum_mean, k) + mc;
        let ok = if self.spec.kind == PolicyKind::First {
            e < th
        } else {
            let v = g.at(c.sum_var, k) + g.at(c.cand_var, k);
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
