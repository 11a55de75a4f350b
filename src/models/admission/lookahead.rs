//! The look-ahead of the admission policies (ALGORITHMS.md §2.7): the policy lead times of every sub-horizon,
//! the lead times at which moment curves are stored, and the interpolation between the two.

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
