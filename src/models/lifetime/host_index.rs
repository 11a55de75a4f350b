//! The pool's hosts indexed for best fit (issue 30): a segment tree over host ids holding, per subtree, the
//! least slack and the most free capacity per dimension, so that the best-fit host — the least
//! `(slack, host id)` among the schedulable hosts a shape fits (ALGORITHMS.md §5.1) — is found without
//! visiting every host. The search is a branch and bound that is exact: a subtree is skipped only when no
//! host in it can fit (some dimension's most free capacity is below the shape by more than the fit test's
//! tolerance and a rounding margin) or none can beat the best found in `(slack, id)`; every host it
//! returns passed the caller's exact test.

use std::cmp::Ordering;

/// Capacity dimensions (cores, memory GB, GPUs).
const DIMS: usize = super::pool::DIMS;

/// Per-node bounds: the least slack and the most free capacity per dimension in the subtree.
#[derive(Clone, Copy, Debug)]
struct Node {
    slack: f64,
    free: [f64; DIMS],
}

const NONE: Node = Node {
    slack: f64::INFINITY,
    free: [f64::NEG_INFINITY; DIMS],
};

fn join(a: &Node, b: &Node) -> Node {
    let mut free = a.free;
    for (f, g) in free.iter_mut().zip(b.free) {
        *f = f.max(g);
    }
    Node {
        slack: if a.slack.total_cmp(&b.slack) == Ordering::Greater {
            b.slack
        } else {
            a.slack
        },
        free,
    }
}

/// The hosts' slack and free capacity, by host id (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct HostIndex {
    t: Vec<Node>,
    cap: usize,
    /// Added to the fit test's tolerance when skipping a subtree: far above the rounding error of
    /// `used + shape ≤ cap + tolerance` at the pool's largest capacity.
    margin: f64,
    /// The fit test's tolerance.
    tolerance: f64,
}

impl HostIndex {
    /// An index of `n` hosts, all excluded until [`HostIndex::set`]; `largest` is the largest capacity of
    /// any host in any dimension, `tolerance` the fit test's (`used + shape ≤ cap + tolerance`).
    pub(super) fn new(n: usize, largest: f64, tolerance: f64) -> HostIndex {
        let cap = n.next_power_of_two().max(1);
        HostIndex {
            t: vec![NONE; 2 * cap],
            cap,
            margin: 1e-9 * (1.0 + largest.abs()),
            tolerance,
        }
    }

    /// Host `h` has slack `slack` and free capacity `cap − used` (`schedulable`), or takes no VM.
    pub(super) fn set(
        &mut self,
        h: usize,
        slack: f64,
        cap: &[f64; DIMS],
        used: &[f64; DIMS],
        schedulable: bool,
    ) {
        let mut i = self.cap + h;
        self.t[i] = if schedulable {
            let mut free = [0.0; DIMS];
            for r in 0..DIMS {
                free[r] = cap[r] - used[r];
            }
            Node { slack, free }
        } else {
            NONE
        };
        while i > 1 {
            i /= 2;
            self.t[i] = join(&self.t[2 * i], &self.t[2 * i + 1]);
        }
    }

    /// The least `(slack, host)` among the hosts for which `fits(h)` holds (the caller's exact test, which
    /// must imply `used_r + shape_r ≤ cap_r + tolerance` in every dimension, and be false for a host set
    /// unschedulable).
    pub(super) fn best(
        &self,
        shape: &[f64; DIMS],
        fits: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let mut need = [0.0; DIMS];
        for r in 0..DIMS {
            need[r] = shape[r] - self.tolerance - self.margin * (1.0 + shape[r].abs());
        }
        let mut best: Option<(f64, usize)> = None;
        self.visit(1, 0, self.cap, &need, fits, &mut best);
        best.map(|(_, h)| h)
    }

    fn visit(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        need: &[f64; DIMS],
        fits: &mut dyn FnMut(usize) -> bool,
        best: &mut Option<(f64, usize)>,
    ) {
        let n = &self.t[node];
        if (0..DIMS).any(|r| n.free[r] < need[r]) {
            return;
        }
        if let Some((s, h)) = *best {
            match n.slack.total_cmp(&s) {
                Ordering::Greater => return,
                Ordering::Equal if lo > h => return,
                _ => {}
            }
        }
        if hi - lo == 1 {
            // past the bound above, a leaf beats the best so far in (slack, id)
            if fits(lo) {
                *best = Some((n.slack, lo));
            }
            return;
        }
        let mid = (lo + hi) / 2;
        let (l, r) = (2 * node, 2 * node + 1);
        // the child with the smaller least slack first (the left, lower ids, on equal)
        if self.t[r].slack.total_cmp(&self.t[l].slack) == Ordering::Less {
            self.visit(r, mid, hi, need, fits, best);
            self.visit(l, lo, mid, need, fits, best);
        } else {
            self.visit(l, lo, mid, need, fits, best);
            self.visit(r, mid, hi, need, fits, best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pool's fit test and slack (sim.rs), restated for the reference scan.
    fn fits(used: &[f64; DIMS], cap: &[f64; DIMS], shape: &[f64; DIMS]) -> bool {
        (0..DIMS).all(|r| used[r] + shape[r] <= cap[r] + 1e-9)
    }
    fn slack(used: &[f64; DIMS], cap: &[f64; DIMS]) -> f64 {
        (0..DIMS)
            .filter(|&r| cap[r] > 0.0)
            .map(|r| (cap[r] - used[r]) / cap[r])
            .sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The indexed best fit equals the scan of every host (least slack, lowest id on ties, excluded
        /// hosts skipped), on hosts of a few shapes filled on a coarse grid (many equal slacks) and placed
        /// into one after another as the pool does.
        #[test]
        fn indexed_best_fit_equals_the_scan(
            caps in prop::collection::vec(prop::sample::select(vec![[32.0, 256.0, 0.0], [64.0, 512.0, 8.0], [8.0, 64.0, 0.0]]), 1..70),
            shapes in prop::collection::vec((0u32..17, 0u32..65, 0u32..3), 1..200),
            grid in prop::sample::select(vec![1.0f64, 0.5, 0.37]),
            excluded in prop::collection::vec(any::<bool>(), 70),
        ) {
            let n = caps.len();
            let mut used = vec![[0.0; DIMS]; n];
            let largest = caps.iter().flatten().fold(0.0f64, |m, &c| m.max(c));
            let mut index = HostIndex::new(n, largest, 1e-9);
            let skip = |h: usize| excluded[h] && h % 3 == 0;
            for h in 0..n {
                index.set(h, slack(&used[h], &caps[h]), &caps[h], &used[h], !skip(h));
            }
            for (c, m, g) in shapes {
                let shape = [c as f64 * grid, m as f64 * grid * 4.0, g as f64];
                let mut scan: Option<(f64, usize)> = None;
                for h in 0..n {
                    if !skip(h) && fits(&used[h], &caps[h], &shape) {
                        let s = slack(&used[h], &caps[h]);
                        if scan.is_none_or(|b| s < b.0) {
                            scan = Some((s, h));
                        }
                    }
                }
                let got = index.best(&shape, &mut |h| !skip(h) && fits(&used[h], &caps[h], &shape));
                prop_assert_eq!(got, scan.map(|(_, h)| h));
                if let Some(h) = got {
                    for r in 0..DIMS {
                        used[h][r] += shape[r];
                    }
                    index.set(h, slack(&used[h], &caps[h]), &caps[h], &used[h], !skip(h));
                }
            }
        }
    }
}
