//! Fit tests of stochastic bin packing (seed 002 §4, §5.1; ALGORITHMS.md §4.2).
//!
//! A fit test decides whether item k fits into bin j given per-item statistics from the observation set O.
//! Every test works on the same per-item statistics ([`ItemStats`]) and the same bin state ([`BinLoad`]):
//! the sums of means, variances and test-specific deterministic sizes.

use crate::substrate::stats::normal_quantile;
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// The load of a bin: sums over its items of mean, variance and deterministic size (VM units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BinLoad {
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
        self.mean += it.mean;
        self.var += it.var;
        self.size += it.size;
    }
}

/// A fit test (shared trait of seed 002's GPA, Cantelli, av, perc and max tests).
pub trait FitTest {
    /// The specification this test was built from.
    fn spec(&self) -> FitSpec;
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

    /// The bin `item` goes to among bins with loads `loads` (and [`FitTest::bin_bound`]s `bounds`): the first
    /// one it fits in (`first_fit`), or the one of smallest [`FitTest::best_fit_key`] it fits in, the lowest
    /// index on ties (a NaN key never wins); `None` when it fits in none (seed 002 Alg. 1). One scan per
    /// test type, so the tests inline. O(m) per item: the reference that the indexed packing
    /// ([`crate::models::placement::pack`]) equals, used where a test has no index.
    fn choose(
        &self,
        loads: &[BinLoad],
        bounds: &[f64],
        item: &ItemStats,
        c: f64,
        first_fit: bool,
    ) -> Option<usize> {
        let mut chosen: Option<(usize, f64)> = None;
        for (j, (load, bound)) in loads.iter().zip(bounds).enumerate() {
            if self.surely_not(load, *bound, item, c) || !self.fits(load, item, c) {
                continue;
            }
            if first_fit {
                return Some(j);
            }
            let key = self.best_fit_key(load, item, c);
            // strict '<' keeps the lowest index on ties; a NaN key never wins
            if chosen.is_none_or(|(_, best)| key < best) {
                chosen = Some((j, key));
            }
        }
        chosen.map(|(j, _)| j)
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

/// A fit-test specification, written `family:param` as in the CLI and scenarios: `gpa:0.05` (SLO ρ),
/// `gpa-cal:0.01` (target ρ of calibrated GPA), `cantelli:1.7` (b), `av:1.25` (factor f), `perc:95`
/// (percentile p in percent), `max`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FitSpec {
    /// Gaussian Percentile Approximation with SLO ρ ∈ (0, 1): fits iff μ' + z_{1−ρ}·σ' ≤ c.
    Gpa(f64),
    /// GPA calibrated on the observation set O for the target ρ ∈ (0, 1): the knob ρ' is searched so that
    /// the packing's overflow frequency on a held-out half of O is at most ρ (see
    /// [`crate::models::placement::Calibration`]; the search is in `Instance::pack_detailed`).
    GpaCal(f64),
    /// Cantelli with factor b ≥ 0: s_i = μ_i + b·σ_i.
    Cantelli(f64),
    /// Scaled average with factor f > 0: s_i = f·μ_i.
    Av(f64),
    /// Percentile p ∈ [0, 100] (linear interpolation): s_i = P_i(p).
    Perc(f64),
    /// The largest observation: s_i = max over O (perc 100).
    Max,
}

/// A fit-test family, the unit of a frontier series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// GPA (knob: ρ).
    Gpa,
    /// Calibrated GPA (knob: the target ρ), written `gpa-cal`.
    #[serde(rename = "gpa-cal")]
    GpaCal,
    /// Scaled average (knob: f).
    Av,
    /// Percentile (knob: p).
    Perc,
    /// Cantelli (knob: b).
    Cantelli,
    /// Maximum (no knob).
    Max,
}

impl Family {
    /// All families in display order.
    pub const ALL: [Family; 6] = [
        Family::Gpa,
        Family::GpaCal,
        Family::Av,
        Family::Perc,
        Family::Cantelli,
        Family::Max,
    ];

    /// The family's name as written in specs.
    pub fn name(self) -> &'static str {
        match self {
            Family::Gpa => "gpa",
            Family::GpaCal => "gpa-cal",
            Family::Av => "av",
            Family::Perc => "perc",
            Family::Cantelli => "cantelli",
            Family::Max => "max",
        }
    }

    /// Builds the spec of this family with knob value `param` (ignored for `max`), validating its range.
    pub fn spec(self, param: f64) -> Result<FitSpec, String> {
        let s = match self {
            Family::Gpa => FitSpec::Gpa(param),
            Family::GpaCal => FitSpec::GpaCal(param),
            Family::Av => FitSpec::Av(param),
            Family::Perc => FitSpec::Perc(param),
            Family::Cantelli => FitSpec::Cantelli(param),
            Family::Max => FitSpec::Max,
        };
        s.validate()?;
        Ok(s)
    }
}

impl FitSpec {
    /// Parses `family:param` (see [`FitSpec`]). Errors say which part is wrong and the valid range.
    pub fn parse(s: &str) -> Result<FitSpec, String> {
        let s = s.trim();
        let (fam, param) = match s.split_once(':') {
            Some((f, p)) => (f.trim().to_ascii_lowercase(), Some(p.trim())),
            None => (s.to_ascii_lowercase(), None),
        };
        let family = match fam.as_str() {
"gpa" => Family::Gpa,
            "gpa-cal" => Family::GpaCal,
            "cantelli" => Family::Cantelli,
            "av" => Family::Av,
            "perc" => Family::Perc,
            "max" => Family::Max,
            other => {
                return Err(format!(
                "unknown fit test '{other}' (expected gpa:RHO, gpa-cal:RHO, cantelli:B, av:F, perc:P or max)"
            ))
            }
        };
        if family == Family::Max {
            return match param {
                None => Ok(FitSpec::Max),
                Some(p) => Err(format!("'max' takes no parameter (got '{p}')")),
            };
        }
        let Some(p) = param else {
            return Err(format!(
                "fit test '{fam}' needs a parameter, e.g. {}",
                FitSpec::example(family)
            ));
        };
        let v: f64 = p
            .parse()
            .map_err(|_| format!("'{p}' is not a number in fit test '{s}'"))?;
        family.spec(v)
    }

    fn example(f: Family) -> &'static str {
        match f {
            Family::Gpa => "gpa:0.05",
            Family::GpaCal => "gpa-cal:0.01",
            Family::Cantelli => "cantelli:1.7",
            Family::Av => "av:1.25",
            Family::Perc => "perc:95",
            Family::Max => "max",
        }
    }

    /// Checks the knob's range: ρ ∈ (0, 1) (GPA and calibrated GPA's target), b ≥ 0, f > 0, p ∈ [0, 100], all finite.
    pub fn validate(&self) -> Result<(), String> {
        let ok = |c: bool, msg: &str| {
            if c {
                Ok(())
            } else {
                Err(format!("{msg} (got {self})"))
            }
        };
        match *self {
            FitSpec::Gpa(r) => ok(
                r.is_finite() && r > 0.0 && r < 1.0,
                "GPA's SLO rho must be in (0, 1)",
            ),
            FitSpec::GpaCal(r) => ok(
                r.is_finite() && r > 0.0 && r < 1.0,
                "calibrated GPA's target rho must be in (0, 1)",
            ),
            FitSpec::Cantelli(b) => ok(
                b.is_finite() && b >= 0.0,
                "Cantelli's b must be a finite number >= 0",
            ),
            FitSpec::Av(f) => ok(
                f.is_finite() && f > 0.0,
                "av's factor f must be a finite number > 0",
            ),
            FitSpec::Perc(p) => ok(
                p.is_finite() && (0.0..=100.0).contains(&p),
                "perc's p must be in [0, 100] (percent)",
            ),
            FitSpec::Max => Ok(()),
        }
    }

    /// The family of this spec.
    pub fn family(&self) -> Family {
        match self {
            FitSpec::Gpa(_) => Family::Gpa,
            FitSpec::GpaCal(_) => Family::GpaCal,
            FitSpec::Cantelli(_) => Family::Cantelli,
            FitSpec::Av(_) => Family::Av,
            FitSpec::Perc(_) => Family::Perc,
            FitSpec::Max => Family::Max,
        }
    }

    /// The knob value (`None` for max).
    pub fn param(&self) -> Option<f64> {
        match *self {
            FitSpec::Gpa(x)
            | FitSpec::GpaCal(x)
            | FitSpec::Cantelli(x)
            | FitSpec::Av(x)
            | FitSpec::Perc(x) => Some(x),
            FitSpec::Max => None,
        }
    }

    /// The fit test this spec describes. The spec must be valid ([`FitSpec::validate`]). For `gpa-cal:ρ` this
    /// is GPA at the target ρ before calibration; packing with it goes through `Instance::pack_detailed`,
    /// which searches the calibrated knob ρ' and packs with GPA(ρ').
    pub fn test(&self) -> Box<dyn FitTest> {
        match *self {
            FitSpec::Gpa(rho) | FitSpec::GpaCal(rho) => Box::new(Gpa::new(rho)),
            FitSpec::Cantelli(b) => Box::new(Deterministic {
                spec: *self,
                size: Size::Cantelli(b),
            }),
            FitSpec::Av(f) => Box::new(Deterministic {
                spec: *self,
                size: Size::Av(f),
            }),
            FitSpec::Perc(p) => Box::new(Deterministic {
                spec: *self,
                size: Size::Perc(p),
            }),
            FitSpec::Max => Box::new(Deterministic {
                spec: *self,
                size: Size::Perc(100.0),
            }),
        }
    }
}

impl fmt::Display for FitSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.param() {
            Some(p) => write!(f, "{}:{}", self.family().name(), p),
            None => write!(f, "{}", self.family().name()),
        }
    }
}

impl TryFrom<String> for FitSpec {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        FitSpec::parse(&s)
    }
}

impl From<FitSpec> for String {
    fn from(s: FitSpec) -> String {
        s.to_string()
    }
}

impl std::str::FromStr for FitSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        FitSpec::parse(s)
    }
}

/// The GPA fit test (seed 002 §4): the bin's total is taken as Gaussian N(μ', σ'²) and the item fits iff the
/// (1 − ρ) quantile does not exceed c, i.e. μ' + z_{1−ρ}·σ' ≤ c; when σ' = 0, iff μ' ≤ c.
#[derive(Clone, Copy, Debug)]
pub struct Gpa {
    /// SLO ρ: the target overflow probability.
    pub rho: f64,
    /// z_{1−ρ}.
    pub z: f64,
}

impl Gpa {
    /// GPA with SLO `rho` ∈ (0, 1).
    pub fn new(rho: f64) -> Self {
        Gpa {
            rho,
            z: normal_quantile(1.0 - rho),
        }
    }
}

impl FitTest for Gpa {
    fn spec(&self) -> FitSpec {
        FitSpec::Gpa(self.rho)
    }
    fn item_size(&self, mean: f64, _sd: f64, _sorted: &[f64]) -> f64 {
        mean
    }
    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool {
        let mu = bin.mean + item.mean;
        let sd = (bin.var + item.var).sqrt();
        if sd == 0.0 {
            mu <= c
        } else {
            mu + self.z * sd <= c
        }
    }
    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64 {
        let sd = (bin.var + item.var).sqrt();
        if sd == 0.0 {
            f64::INFINITY
        } else {
            (c - bin.mean - item.mean) / sd
        }
    }
    fn index(&self) -> IndexKind {
        if self.z >= 0.0 {
            IndexKind::Gpa { z: self.z }
        } else {
            IndexKind::Scan
        }
    }
    /// σ of the bin alone, √(Σ σ_i²).
    fn bin_bound(&self, bin: &BinLoad) -> f64 {
        bin.var.sqrt()
    }
    /// μ' + z·σ_bin > c with z ≥ 0: every step of `fits`' μ' + z·σ' is a rounded operation that does not
    /// decrease as σ' grows from σ_bin (σ'² = σ_bin² + σ_i² ≥ σ_bin²), so `fits` is false too (also when
    /// σ' = 0, as then σ_bin = 0 and μ' > c).
    #[inline]
    fn surely_not(&self, bin: &BinLoad, bound: f64, item: &ItemStats, c: f64) -> bool {
        self.z >= 0.0 && bin.mean + item.mean + self.z * bound > c
    }
}

#[derive(Clone, Copy, Debug)]
enum Size {
    Cantelli(f64),
    Av(f64),
    Perc(f64),
}

/// The deterministic fit tests (Cantelli, av, perc, max): each item gets a size s_i and fits iff ℓ_j + s_k ≤ c.
#[derive(Clone, Copy, Debug)]
struct Deterministic {
    spec: FitSpec,
    size: Size,
}

impl FitTest for Deterministic {
    fn spec(&self) -> FitSpec {
        self.spec
    }
    fn item_size(&self, mean: f64, sd: f64, sorted: &[f64]) -> f64 {
        match self.size {
            Size::Cantelli(b) => mean + b * sd,
            Size::Av(f) => f * mean,
            Size::Perc(p) => crate::substrate::stats::percentile_sorted(sorted, p),
        }
    }
    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool {
        bin.size + item.size <= c
    }
    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64 {
        c - bin.size - item.size
    }
    fn index(&self) -> IndexKind {
        IndexKind::Size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(mean: f64, sd: f64) -> ItemStats {
        ItemStats {
            mean,
            var: sd * sd,
            size: mean,
        }
    }

    #[test]
    fn parse_and_display() {
        assert_eq!(FitSpec::parse("gpa:0.05").unwrap(), FitSpec::Gpa(0.05));
        assert_eq!(FitSpec::parse(" Perc : 95 ").unwrap(), FitSpec::Perc(95.0));
        assert_eq!(FitSpec::parse("max").unwrap(), FitSpec::Max);
        assert_eq!(FitSpec::Cantelli(1.7).to_string(), "cantelli:1.7");
        assert_eq!(
            FitSpec::parse("GPA-Cal:0.01").unwrap(),
            FitSpec::GpaCal(0.01)
        );
        assert_eq!(FitSpec::GpaCal(0.001).to_string(), "gpa-cal:0.001");
        assert_eq!(
            serde_json::to_string(&Family::GpaCal).unwrap(),
            "\"gpa-cal\""
        );
        for bad in [
            "gpa",
            "gpa:0",
            "gpa:1",
            "gpa:NaN",
            "gpa:x",
            "av:0",
            "av:-1",
            "perc:101",
            "cantelli:-0.1",
            "max:3",
            "foo:1",
            "av:inf",
            "gpa-cal",
            "gpa-cal:0",
            "gpa-cal:1",
            "gpa-cal:-0.1",
            "gpa-cal:NaN",
        ] {
            assert!(FitSpec::parse(bad).is_err(), "{bad} should be rejected");
        }
        let j: FitSpec = serde_json::from_str("\"av:1.25\"").unwrap();
        assert_eq!(j, FitSpec::Av(1.25));
        assert!(serde_json::from_str::<FitSpec>("\"gpa:2\"").is_err());
    }

    #[test]
    fn gpa_fit_by_hand() {
        // rho = 0.05: z = 1.6448536. Bin mean 0.5, sd 0.2; item mean 0.2, sd 0.1.
        // mu' = 0.7, sd' = sqrt(0.05) = 0.2236068; mu' + z sd' = 0.7 + 0.3678 = 1.0678 > 1 -> no fit.
        let g = Gpa::new(0.05);
        assert!((g.z - 1.6448536269514722).abs() < 1e-9);
        let bin = BinLoad {
            mean: 0.5,
            var: 0.04,
            size: 0.5,
        };
        assert!(!g.fits(&bin, &item(0.2, 0.1), 1.0));
        // with c = 1.07 it fits (1.0678 <= 1.07)
        assert!(g.fits(&bin, &item(0.2, 0.1), 1.07));
        // rho = 0.2: z = 0.8416212; 0.7 + 0.8416*0.2236 = 0.8882 <= 1 -> fits
        assert!(Gpa::new(0.2).fits(&bin, &item(0.2, 0.1), 1.0));
        // sigma' = 0: fits iff mu' <= c
        let zero = BinLoad {
            mean: 0.6,
            var: 0.0,
            size: 0.6,
        };
        assert!(g.fits(&zero, &item(0.4, 0.0), 1.0));
        assert!(!g.fits(&zero, &item(0.41, 0.0), 1.0));
        assert_eq!(g.best_fit_key(&zero, &item(0.4, 0.0), 1.0), f64::INFINITY);
        // key z = (c - mu')/sd' = 0.3/0.2236068 = 1.3416408
        assert!(
            (Gpa::new(0.2).best_fit_key(&bin, &item(0.2, 0.1), 1.0) - 1.3416407864998738).abs()
                < 1e-12
        );
    }

    #[test]
    fn gpa_quantile_form_equals_cdf_form() {
        // ALGORITHMS.md §4.2: slack = rho - (1 - Phi((c - mu')/sd')) >= 0  <=>  mu' + z sd' <= c.
        let mut s: u64 = 12345;
        let mut u = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20000 {
            let rho = 0.0005 + 0.4 * u();
            let (bm, bs, im, is) = (u(), 0.3 * u(), 0.3 * u(), 0.2 * u());
            let g = Gpa::new(rho);
            let bin = BinLoad {
                mean: bm,
                var: bs * bs,
                size: bm,
            };
            let it = item(im, is);
            let sd = (bs * bs + is * is).sqrt();
            let slack = rho - crate::substrate::stats::normal_sf((1.0 - bm - im) / sd);
            if slack.abs() > 1e-9 {
                assert_eq!(
                    g.fits(&bin, &it, 1.0),
                    slack >= 0.0,
                    "rho {rho} bin {bm},{bs} item {im},{is}"
                );
            }
        }
    }

    #[test]
    fn deterministic_sizes_by_hand() {
        let obs = [0.0, 0.1, 0.2, 0.3, 0.4];
        let (mean, sd) = (0.2, (0.02f64).sqrt());
        assert!((FitSpec::Av(1.25).test().item_size(mean, sd, &obs) - 0.25).abs() < 1e-15);
        assert!(
            (FitSpec::Cantelli(1.0).test().item_size(mean, sd, &obs) - (0.2 + 0.1414213562373095))
                .abs()
                < 1e-12
        );
        assert!((FitSpec::Perc(90.0).test().item_size(mean, sd, &obs) - 0.36).abs() < 1e-12);
        assert_eq!(FitSpec::Max.test().item_size(mean, sd, &obs), 0.4);
        let t = FitSpec::Av(1.0).test();
        let bin = BinLoad {
            mean: 0.0,
            var: 0.0,
            size: 0.7,
        };
        assert!(t.fits(
            &bin,
            &ItemStats {
                mean: 0.3,
                var: 0.0,
                size: 0.3
            },
            1.0
        ));
        assert!(!t.fits(
            &bin,
            &ItemStats {
                mean: 0.31,
                var: 0.0,
                size: 0.31
            },
            1.0
        ));
        assert!(
            (t.best_fit_key(
                &bin,
                &ItemStats {
                    mean: 0.2,
                    var: 0.0,
                    size: 0.2
                },
                1.0
            ) - 0.1)
                .abs()
                < 1e-15
        );
    }
}
