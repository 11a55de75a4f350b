//! Posterior-integrated moment curves `E[X_t]`, `Var[X_t]` of a deployment (ALGORITHMS.md §2.6.3, the
//! paper-style factorised form as an ablation) on a grid of lead times, and their cached form for the
//! policies (`CurvePlan`, `CurveBasis`: §2.7 caching).

use super::absorption::{
    absorption_corrections, absorption_corrections_lattice_into, unabsorbed_posterior,
};
use super::alive::AliveTable;
use super::belief::{Belief, MomentConfig, MomentMode};
use super::known::Moment;
use super::lattice::{ExactTables, NodeCache, PsiSource, TableLattice};
use crate::substrate::special::{exp_slice, log1p_slice};

/// Paper-style factorised moments (App. A.2 "factorised", seed 000 Prop. 4.3 / App. C) at lead time t (hours).
fn factorised_moment(b: &Belief, kappa: f64, t: f64, table: &AliveTable) -> (f64, f64) {
    let kp = 1.0 / kappa;
    let a = b.lambda.shape;
    let l = |c: f64| libm::exp(-a * libm::log1p(c * t / b.lambda.rate));
    let m = b.scale_out_moments();
    let lbar = b.lambda.mean();
    let (p1, _) = table.phi(lbar * t);
    let denom = -libm::expm1(-lbar * t);
    let r = if denom > 1e-300 { p1 / denom } else { 1.0 };
    let ed = l(kp);
    let ea = m.n0 * l(1.0);
    let ea2 = m.n0 * l(1.0) + m.n0 * (m.n0 - 1.0) * l(2.0);
    let eb = r * m.nu * m.m1 * (1.0 - l(1.0));
    let eb2 = r
        * (m.nu * m.m1 * (1.0 - l(1.0))
            + 0.5 * m.nu * m.m2 * (1.0 - l(2.0))
            + m.nu2 * m.m1_sq * (1.0 - 2.0 * l(1.0) + l(2.0)));
    let e = ed * (ea + eb);
    let e2 = ed * (ea2 + 2.0 * ea * eb + eb2);
    (e, e2 - e * e)
}

/// Posterior-integrated moments `E[X_t]`, `Var[X_t]` (ALGORITHMS.md §2.6.3) at lead times `t` (hours, ≥ 0,
/// any order) for a deployment with belief `b` and kill factor `kappa`, with exact alive tables.
/// When more than `cfg.n_interp` distinct positive lead times are asked, Δ1, Δ2 are computed at
/// `cfg.n_interp` log-spaced points between min and max t and interpolated in ln t.
pub fn posterior_moments(b: &Belief, kappa: f64, t: &[f64], cfg: &MomentConfig) -> Vec<Moment> {
    let mut src = ExactTables::default();
    let mut nodes = NodeCache::default();
    posterior_moments_with(b, kappa, t, cfg, &mut src, &mut nodes)
}

/// As [`posterior_moments`], with a caller-provided table source (e.g. a [`TableLattice`]) and node cache.
pub fn posterior_moments_with(
    b: &Belief,
    kappa: f64,
    t: &[f64],
    cfg: &MomentConfig,
    src: &mut dyn PsiSource,
    nodes: &mut NodeCache,
) -> Vec<Moment> {
    match cfg.mode {
        MomentMode::PaperFactorised => {
            if b.n0 == 0 {
                return t
                    .iter()
                    .map(|&tt| Moment {
                        t: tt,
                        mean: 0.0,
                        var: 0.0,
                    })
                    .collect();
            }
            let table = AliveTable::new(b.n0, b.nu.mean(), b.sigma.mean(), cfg.alive);
            t.iter()
                .map(|&tt| {
                    let (e, v) = factorised_moment(b, kappa, tt.max(0.0), &table);
                    Moment {
                        t: tt,
                        mean: e,
                        var: v.max(0.0),
                    }
                })
                .collect()
        }
        MomentMode::NoAbsorption | MomentMode::Canonical => {
            let deltas: Vec<(f64, f64)> = if cfg.mode == MomentMode::NoAbsorption || b.n0 == 0 {
                vec![(0.0, 0.0); t.len()]
            } else {
                let pos: Vec<f64> = t.iter().copied().filter(|&x| x > 0.0).collect();
                let mut uniq = pos.clone();
                crate::substrate::stats::sort_f64(&mut uniq);
                uniq.dedup();
                if uniq.len() <= cfg.n_interp.max(2) {
                    let d = absorption_corrections(b, kappa, &uniq, cfg, src, nodes);
                    t.iter()
                        .map(|&x| {
                            if x <= 0.0 {
                                (0.0, 0.0)
                            } else {
                                let i = uniq.binary_search_by(|p| p.total_cmp(&x)).unwrap_or(0);
                                d[i]
                            }
                        })
                        .collect()
                } else {
                    let lg = LogGrid::new(uniq[0], uniq[uniq.len() - 1], cfg.n_interp);
                    let d = absorption_corrections(b, kappa, &lg.t, cfg, src, nodes);
                    t.iter().map(|&x| lg.interp_pair(&d, x)).collect()
                }
            };
            t.iter()
                .zip(deltas)
                .map(|(&tt, (d1, d2))| {
                    let (e0, m20, _) = unabsorbed_posterior(b, kappa, tt);
                    let e = e0 - d1;
                    let e2 = m20 - d2;
                    Moment {
                        t: tt,
                        mean: e.max(0.0),
                        var: (e2 - e * e).max(0.0),
                    }
                })
                .collect()
        }
    }
}

/// `n` log-spaced lead times between `lo` and `hi` (hours), with linear interpolation in ln t.
#[derive(Clone, Debug)]
pub struct LogGrid {
    /// The lead times (hours), ascending.
    pub t: Vec<f64>,
    ln_lo: f64,
    step: f64,
}

impl LogGrid {
    /// `n ≥ 2` points from `lo > 0` to `hi ≥ lo` (hours).
    pub fn new(lo: f64, hi: f64, n: usize) -> LogGrid {
        let n = n.max(2);
        let ln_lo = libm::log(lo);
        let step = if hi > lo {
            (libm::log(hi) - ln_lo) / (n - 1) as f64
        } else {
            1.0
        };
        let t = (0..n)
            .map(|i| {
                if i == n - 1 {
                    hi
                } else {
                    libm::exp(ln_lo + step * i as f64)
                }
            })
            .collect();
        LogGrid { t, ln_lo, step }
    }
    /// Position of lead time x in index units (fractional); clamped to the grid.
    #[inline]
    pub fn locate(&self, x: f64) -> (usize, f64) {
        let n = self.t.len();
        let p = ((libm::log(x) - self.ln_lo) / self.step).clamp(0.0, (n - 1) as f64);
        let i = (p as usize).min(n - 2);
        (i, p - i as f64)
    }
    /// Interpolate a pair-valued curve given at the grid points; x ≤ 0 gives (0, 0); below the first point
    /// the value of the first point is used (Δ is tiny there).
    pub fn interp_pair(&self, d: &[(f64, f64)], x: f64) -> (f64, f64) {
        if x <= 0.0 {
            return (0.0, 0.0);
        }
        let (i, f) = self.locate(x);
        (
            d[i].0 + (d[i + 1].0 - d[i].0) * f,
            d[i].1 + (d[i + 1].1 - d[i].1) * f,
        )
    }
}

/// The lead-time geometry of [`CurveBasis`] for one ascending grid of lead times `t` (hours) and one
/// [`MomentConfig::n_interp`], computed once and reused for every deployment (ALGORITHMS.md §2.7 caching): the
/// coarse grid on which Δ1, Δ2 are computed ([`CurveBasis::coarse_deltas`]) and where each lead time falls on
/// it (the ln t interpolation of [`LogGrid::interp_pair`]). Using it gives bit-identical values.
#[derive(Clone, Debug, Default)]
pub struct CurvePlan {
    t: Vec<f64>,
    n_interp: usize,
    /// `t.len() ≤ max(n_interp, 2)`: Δ is computed on `t` itself.
    fine: bool,
    /// The log-spaced coarse grid (hours) when not `fine`.
    coarse: Vec<f64>,
    /// Per lead time when not `fine`: `None` for t ≤ 0 (Δ = 0), else its (index, fraction) on `coarse`.
    interp: Vec<Option<(usize, f64)>>,
}

impl CurvePlan {
    /// The plan of lead times `t` (hours, ascending) under `cfg`.
    pub fn new(t: &[f64], cfg: &MomentConfig) -> CurvePlan {
        let fine = t.len() <= cfg.n_interp.max(2);
        let (coarse, interp) = if fine {
            (Vec::new(), Vec::new())
        } else {
            let lg = LogGrid::new(t[0], t[t.len() - 1], cfg.n_interp);
            let interp = t
                .iter()
                .map(|&x| if x <= 0.0 { None } else { Some(lg.locate(x)) })
                .collect();
            (lg.t, interp)
        };
        CurvePlan {
            t: t.to_vec(),
            n_interp: cfg.n_interp,
            fine,
            coarse,
            interp,
        }
    }

    /// True if this is the plan of `t` under `cfg` (same lead times bit for bit, same `n_interp`).
    pub fn is_for(&self, t: &[f64], cfg: &MomentConfig) -> bool {
        self.n_interp == cfg.n_interp
            && self.t.len() == t.len()
            && self
                .t
                .iter()
                .zip(t)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }

    /// The lead times (hours).
    pub fn t(&self) -> &[f64] {
        &self.t
    }

    /// The lead times (hours) at which Δ is computed.
    fn coarse(&self) -> &[f64] {
        if self.fine {
            &self.t
        } else {
            &self.coarse
        }
    }

    /// Length of the Δ vector of [`CurveBasis::coarse_deltas`] (also when every Δ is 0).
    fn coarse_len(&self) -> usize {
        if self.fine {
            self.t.len()
        } else {
            self.n_interp
        }
    }
}

/// A deployment's moment curve in a form that is cheap to re-evaluate when only its core count changes
/// (ALGORITHMS.md §2.7 caching): the Lomax factors `L(κ'), L(κ'+1), L(κ'+2)` and the ν, σ moment constants of
/// §2.6.3 on a lead-time grid, plus the absorption corrections Δ1, Δ2 computed at the core count `n_delta`.
/// `eval(n)` is exact in n for the closed-form part; Δ is the one at `n_delta` (refresh it when n drifts).
#[derive(Clone, Debug, Default)]
pub struct CurveBasis {
    l0: Vec<f64>,
    l1: Vec<f64>,
    l2: Vec<f64>,
    c1: f64,
    c2: f64,
    c3: f64,
    d1: Vec<f64>,
    d2: Vec<f64>,
    /// Core count at which Δ was computed.
    pub n_delta: u32,
    fixed: Option<(Vec<f64>, Vec<f64>)>,
}

impl CurveBasis {
    /// Build on lead times `t` (hours, ascending, > 0) for belief `b` (its `n0` is `n_delta`).
    pub fn new(
        b: &Belief,
        kappa: f64,
        t: &[f64],
        cfg: &MomentConfig,
        src: &mut dyn PsiSource,
        nodes: &mut NodeCache,
    ) -> CurveBasis {
        if cfg.mode == MomentMode::PaperFactorised {
            let m = posterior_moments_with(b, kappa, t, cfg, src, nodes);
            return CurveBasis {
                n_delta: b.n0,
                fixed: Some((
                    m.iter().map(|x| x.mean).collect(),
                    m.iter().map(|x| x.var).collect(),
                )),
                ..Default::default()
            };
        }
        let d = Self::coarse_deltas(b, kappa, t, cfg, src, nodes);
        Self::from_deltas(b, kappa, t, cfg, &d)
    }

    /// Absorption corrections `(Δ1, Δ2)` of §2.6.3 for belief `b` on the coarse lead-time grid used by
    /// [`CurveBasis::from_deltas`] for the lead times `t` (hours, ascending, > 0): `t` itself when
    /// `t.len() ≤ cfg.n_interp`, else `cfg.n_interp` log-spaced points from `t[0]` to `t[last]`.
    /// All zeros for `MomentMode::NoAbsorption` or `n0 = 0`. Units: cores (Δ1) and cores² (Δ2).
    pub fn coarse_deltas(
        b: &Belief,
        kappa: f64,
        t: &[f64],
        cfg: &MomentConfig,
        src: &mut dyn PsiSource,
        nodes: &mut NodeCache,
    ) -> Vec<(f64, f64)> {
        match Self::coarse_grid(b, t, cfg) {
            Ok(g) => absorption_corrections(b, kappa, &g, cfg, src, nodes),
            Err(n) => vec![(0.0, 0.0); n],
        }
    }

    /// The coarse lead-time grid of [`CurveBasis::coarse_deltas`]: `t` itself when `t.len() ≤ cfg.n_interp`,
    /// else `cfg.n_interp` log-spaced points from `t[0]` to `t[last]`; or `Err(len)` with its length when
    /// every correction is 0 (`MomentMode::NoAbsorption`, `n0 = 0`, no lead time).
    fn coarse_grid<'t>(
        b: &Belief,
        t: &'t [f64],
        cfg: &MomentConfig,
    ) -> Result<std::borrow::Cow<'t, [f64]>, usize> {
        let fine = t.len() <= cfg.n_interp.max(2);
        if cfg.mode == MomentMode::NoAbsorption || b.n0 == 0 || t.is_empty() {
            return Err(if fine { t.len() } else { cfg.n_interp });
        }
        Ok(if fine {
            std::borrow::Cow::Borrowed(t)
        } else {
            std::borrow::Cow::Owned(LogGrid::new(t[0], t[t.len() - 1], cfg.n_interp).t)
        })
    }

    /// As [`CurveBasis::coarse_deltas`] with the fast resampled-lattice path
    /// ([`absorption_corrections_lattice`]).
    pub fn coarse_deltas_lattice(
        b: &Belief,
        kappa: f64,
        t: &[f64],
        cfg: &MomentConfig,
        lat: &mut TableLattice,
        nodes: &mut NodeCache,
    ) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        Self::coarse_deltas_lattice_into(
            b,
            kappa,
            &CurvePlan::new(t, cfg),
            cfg,
            lat,
            nodes,
            &mut out,
        );
        out
    }

    /// [`CurveBasis::coarse_deltas_lattice`] on a precomputed plan of its lead times (`plan` from
    /// [`CurvePlan::new`] of the same `t` and `cfg`), into `out` (cleared first). Same values, no allocation
    /// once the buffers are warm.
    pub fn coarse_deltas_lattice_into(
        b: &Belief,
        kappa: f64,
        plan: &CurvePlan,
        cfg: &MomentConfig,
        lat: &mut TableLattice,
        nodes: &mut NodeCache,
        out: &mut Vec<(f64, f64)>,
    ) {
        if cfg.mode == MomentMode::NoAbsorption || b.n0 == 0 || plan.t.is_empty() {
            out.clear();
            out.resize(plan.coarse_len(), (0.0, 0.0));
            return;
        }
        absorption_corrections_lattice_into(b, kappa, plan.coarse(), cfg, lat, nodes, out);
    }

    /// Build from precomputed absorption corrections `d` (output of [`CurveBasis::coarse_deltas`] for the same
    /// `t` and `cfg`, possibly computed for a nearby belief: the Δ-memo of the simulator). The closed-form part
    /// is computed exactly for `b`. Panics if `d` has the wrong length.
    pub fn from_deltas(
        b: &Belief,
        kappa: f64,
        t: &[f64],
        cfg: &MomentConfig,
        d: &[(f64, f64)],
    ) -> CurveBasis {
        let mut cb = CurveBasis::default();
        cb.set_from_deltas(b, kappa, &CurvePlan::new(t, cfg), d);
        cb
    }

    /// [`CurveBasis::from_deltas`] in place on a precomputed plan of the lead times (`plan` from
    /// [`CurvePlan::new`] of the same `t` and `cfg`): reuses this basis's buffers, same values.
    pub fn set_from_deltas(&mut self, b: &Belief, kappa: f64, plan: &CurvePlan, d: &[(f64, f64)]) {
        let t = &plan.t[..];
        let kp = 1.0 / kappa;
        let a = b.lambda.shape;
        let (l0, l1, l2) = (&mut self.l0, &mut self.l1, &mut self.l2);
        l0.clear();
        l1.clear();
        l2.clear();
        for &x in t {
            let r = x / b.lambda.rate;
            l0.push(kp * r);
            l1.push((kp + 1.0) * r);
            l2.push((kp + 2.0) * r);
        }
        // L(c) = exp(−a·ln(1 + c·t/b)), the logarithms and exponentials in vectorised batches (bit-identical
        // to libm's log1p and exp)
        for l in [l0, l1, l2] {
            log1p_slice(l);
            l.iter_mut().for_each(|v| *v *= -a);
            exp_slice(l);
        }
        let m = b.scale_out_moments();
        self.c1 = m.nu * m.m1;
        self.c2 = m.nu * m.m2;
        self.c3 = m.nu2 * m.m1_sq;
        let (d1, d2) = (&mut self.d1, &mut self.d2);
        d1.clear();
        d2.clear();
        if plan.fine {
            assert_eq!(d.len(), t.len(), "from_deltas: wrong Δ length");
            d1.extend(d.iter().map(|x| x.0));
            d2.extend(d.iter().map(|x| x.1));
        } else {
            assert_eq!(d.len(), plan.n_interp, "from_deltas: wrong Δ length");
            // LogGrid::interp_pair at the precomputed positions
            for p in &plan.interp {
                let (x, y) = match *p {
                    None => (0.0, 0.0),
                    Some((i, f)) => (
                        d[i].0 + (d[i + 1].0 - d[i].0) * f,
                        d[i].1 + (d[i + 1].1 - d[i].1) * f,
                    ),
                };
                d1.push(x);
                d2.push(y);
            }
        }
        self.n_delta = b.n0;
        self.fixed = None;
    }

    /// Write `E[X_t]` and `Var[X_t]` for current core count `n` into `e`, `v` (same length as the grid).
    pub fn eval(&self, n: u32, e: &mut [f64], v: &mut [f64]) {
        if let Some((fe, fv)) = &self.fixed {
            e.copy_from_slice(fe);
            v.copy_from_slice(fv);
            return;
        }
        if n == 0 {
            e.iter_mut().for_each(|x| *x = 0.0);
            v.iter_mut().for_each(|x| *x = 0.0);
            return;
        }
        let nf = n as f64;
        let k = e.len();
        let (l0s, l1s, l2s) = (&self.l0[..k], &self.l1[..k], &self.l2[..k]);
        let (d1s, d2s) = (&self.d1[..k], &self.d2[..k]);
        let v = &mut v[..k];
        for k in 0..k {
            let (l0, l1, l2) = (l0s[k], l1s[k], l2s[k]);
            let m = nf * l1 + self.c1 * (l0 - l1) - d1s[k];
            let m2 = nf * l1
                + nf * (nf - 1.0) * l2
                + 2.0 * nf * self.c1 * (l1 - l2)
                + self.c1 * (l0 - l1)
                + 0.5 * self.c2 * (l0 - l2)
                + self.c3 * (l0 - 2.0 * l1 + l2)
                - d2s[k];
            // `x > 0 ? x : 0` rather than `x.max(0.0)`: the same value here (neither can be −0.0: every sum
            // starts from n·L ≥ +0), but a compare and select in wasm, where `f64::max` is a call to `fmax`
            // (its NaN rule differs from wasm's f64.max), so that the loop vectorises in both targets
            let m = if m > 0.0 { m } else { 0.0 };
            e[k] = m;
            let v2 = m2 - m * m;
            v[k] = if v2 > 0.0 { v2 } else { 0.0 };
        }
    }
}
