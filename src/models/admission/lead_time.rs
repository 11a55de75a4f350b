//! The lead-time diagnostic of FIRST/SECOND rejections (issue 32): where on the look-ahead the test without
//! MARGINAL first fails, in five buckets from < 1 h to > 1 mo, pooled over runs.

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

/// Where a FIRST/SECOND test without MARGINAL rejected a candidate ([`super::policies::MomentPolicy::rejection`]).
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

    #[test]
    fn buckets_hold_their_lower_end() {
        let b: Vec<usize> = [0.0, 0.99, 1.0, 23.9, 24.0, 167.0, 168.0, 729.0, 730.0, 1e5]
            .iter()
            .map(|&t| lead_bucket(t))
            .collect();
        assert_eq!(b, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn rejections_are_counted_by_bucket_and_pooled() {
        // buckets 0 (0.5 h), 3 (200 h), 4 (1000 h), 1 (10 h); one without the candidate
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
