//! The fit-test trait of stochastic bin packing (seed 002 §4, §5.1; ALGORITHMS.md §4.2): what every test
//! sees, the per-item statistics from the observation set O ([`ItemStats`]) and a bin's load ([`BinLoad`]),
//! and how the open bins are indexed for it ([`IndexKind`]).

/// Per-item statistics from the observation set O, in VM units (ALGORITHMS.md §4.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemStats {
    /// Mean usage μ_i over O.
    pub mean: f64,
    /// Population variance σ_i² over O (ddof 0).
    pub var: f64,
    /// Deterministic size s_i under the fit test in use (GPA: μ_i; av: f·μ_i; perc: P_i(p); Cantelli:
    /// μ_i + b·σ_i; max: the largest observation).
    pub size: f64,
}

/// The load of a bin: its number of items and the sums over them of mean, variance and deterministic size
/// (VM units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BinLoad {
    /// Number of items n.
    pub n: usize,
    /// Σ μ_i.
    pub mean: f64,
    /// Σ σ_i².
    pub var: f64,
    /// Σ s_i (the deterministic load ℓ_j).
    pub size: f64,
}

impl BinLoad {
    /// Adds an item's statistics.
    pub fn add(&mut self, it: &ItemStats) {
        self.n += 1;
        self.mean += it.mean;
        self.var += it.var;
        self.size += it.size;
    }
}

/// A fit test (shared trait of seed 002's GPA, Cantelli, av, perc and max tests).
pub trait FitTest {
    /// Whether [`FitTest::item_size`] reads the item's sorted observations (otherwise it is given none).
    fn reads_observations(&self) -> bool {
        false
    }
    /// The deterministic size s_i of an item with mean `mean`, population s.d. `sd` and the ascending-sorted
    /// observations `sorted_obs` (VM units).
    fn item_size(&self, mean: f64, sd: f64, sorted_obs: &[f64]) -> f64;
    /// Whether `item` fits into a bin with load `bin` on a machine of capacity `c` (VM units).
    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool;
    /// Best Fit key of placing `item` into `bin` (only called when it fits): smaller is a tighter fit.
    /// Deterministic tests: the residual c − ℓ_j − s_k. GPA: z = (c − μ')/σ' (σ' = 0 ranks last, +∞), which
    /// orders bins as the seed's FitBin slack ρ − P(overflow) does (seed 002 Alg. 1, ALGORITHMS.md §4.3).
    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64;

    /// A number of the bin alone that [`FitTest::surely_not`] reads (recomputed whenever the bin's load
    /// changes); 0 unless the test uses it.
    fn bin_bound(&self, _bin: &BinLoad) -> f64 {
        0.0
    }

    /// A quick test that is true only if `item` does not fit into `bin` (whose [`FitTest::bin_bound`] is
    /// `bound`), so that a scan can skip the full test; `false` says nothing.
    fn surely_not(&self, _bin: &BinLoad, _bound: f64, _item: &ItemStats, _c: f64) -> bool {
        false
    }

    /// How [`crate::models::placement::pack`] indexes the open bins for this test (issue 30): by default not
    /// at all (the scan [`FitTest::choose`]).
    fn index(&self) -> IndexKind {
        IndexKind::Scan
    }

    /// The bin `item` goes to among bins with loads `loads` (and [`FitTest::bin_bound`]s `bounds`) under
    /// First Fit (`first_fit`, [`super::first_fit`]) or Best Fit ([`super::best_fit`]); `None`
    /// when it fits in none (seed 002 Alg. 1). One scan per test type, so the tests inline. O(m) per item:
    /// the reference that the indexed packing ([`crate::models::placement::pack`]) equals, used where a
    /// test has no index.
    fn choose(
        &self,
        loads: &[BinLoad],
        bounds: &[f64],
        item: &ItemStats,
        c: f64,
        first_fit: bool,
    ) -> Option<usize> {
        let fits = |(load, bound): (&BinLoad, &f64)| {
            !self.surely_not(load, *bound, item, c) && self.fits(load, item, c)
        };
        let bins = loads.iter().zip(bounds);
        if first_fit {
            super::first_fit::scan(bins.map(fits))
        } else {
            super::best_fit::scan(bins.map(|b| fits(b).then(|| self.best_fit_key(b.0, item, c))))
        }
    }
}

/// How the open bins are indexed for a fit test's choice (see `src/models/placement/index.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexKind {
    /// No index: every open bin is scanned.
    Scan,
    /// Whether an item fits and its Best Fit key depend on the bin's deterministic load ℓ_j alone
    /// (`BinLoad::size`), monotonically: bins ordered by ℓ_j.
    Size,
    /// GPA with z = z_{1−ρ} ≥ 0: bins ordered by their own quantile μ_j + z·σ_j, the exact test on the
    /// candidates.
    Gpa {
        /// z_{1−ρ}.
        z: f64,
    },
}
