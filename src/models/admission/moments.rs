//! Moments of a deployment's future active cores `X_t` (ALGORITHMS.md §2.3–§2.6.3, seed 000 §4).
//!
//! * [`AliveTable`]: the dimensionless alive probability `S1(u)` (λ = 1) by S1-VOLTERRA / S1-RESCUE
//!   (canonical) or S1-HAZARD, and its convolutions `Φ1, Φ2` (ALGORITHMS.md §2.5).
//! * [`known_moments`]: `E[X_t]`, `Var[X_t]` for known (λ, ν, σ) (§2.4(d)).
//! * [`posterior_moments`]: posterior-integrated moments for independent Gamma beliefs (§2.6.3), with the
//!   paper-style factorised approximation and the no-absorption form as ablations ([`MomentMode`]).
//!
//! Units: t in hours, λ per hour, ν scale-outs per mean core lifetime (scale-out rate ν·λ per hour, η = 1),
//! σ extra cores per scale-out (size `1 + Poisson(σ)`), κ mean core lifetimes of maximum deployment lifetime.

use crate::substrate::hash::FxHashMap;
use crate::substrate::special::{
    beta_reg, exp_slice, expected_harmonic_k, gauss_laguerre_gamma, Lambda0,
};
use serde::{Deserialize, Serialize};

/// Offered load above which S1-RESCUE replaces S1-VOLTERRA (ALGORITHMS.md §2.5, `A_rescue`).
pub const A_RESCUE: f64 = 20.0;
/// Dimensionless horizon U of the alive tables (mean core lifetimes); an exponential tail is used beyond it.
pub const U_MAX: f64 = 40.0;

/// How the alive probability S1 is computed (ALGORITHMS.md §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum AliveMode {
    /// S1-VOLTERRA (first-passage renewal equation), S1-RESCUE when the offered load is ≥ 20. Canonical.
    #[default]
    Volterra,
    /// S1-HAZARD closed-form hazard approximation (cheap, biased up to −52% in E at long horizons).
    Hazard,
}

/// Which moment formula is used (ALGORITHMS.md §2.6.3, App. A.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum MomentMode {
    /// Closed form + absorption corrections by Gauss–Laguerre quadrature (canonical).
    #[default]
    Canonical,
    /// Seed 000 Prop. 4.3 / App. C style: separately integrated factors, alive fraction at posterior means.
    PaperFactorised,
    /// Ignore absorption at zero cores (un-absorbed closed form only; overestimates E by up to +446%).
    NoAbsorption,
}

/// Dimensionless alive table for one `(n0, ν, σ)` at λ = 1: `Φ1, Φ2` on a uniform grid `u_k = k·h` up to
/// `U = G·h ≥ 40`, plus the exponential tail of S1 beyond U (ALGORITHMS.md §2.5).
#[derive(Clone, Debug)]
pub struct AliveTable {
    h: f64,
    /// Number of grid steps G (U = G·h).
    g_n: usize,
    psi1: Vec<f64>,
    psi2: Vec<f64>,
    phi1_end: f64,
    phi2_end: f64,
    s_last: f64,
    gamma: f64,
    s: Vec<f64>,
}

impl AliveTable {
    /// Build the table for `n0 ≥ 1` cores now, normalised scale-out rate `ν ≥ 0`, size parameter `σ ≥ 0`.
    /// Cost O(G²) with G = 400 for ν ≤ 4 (S1-VOLTERRA), O(G) for S1-RESCUE or S1-HAZARD.
    pub fn new(n0: u32, nu: f64, sigma: f64, mode: AliveMode) -> AliveTable {
        let nu = nu.max(0.0);
        let sigma = sigma.max(0.0);
        let n0f = n0.max(1) as f64;
        let a = nu * expected_harmonic_k(sigma);
        let rescue = mode == AliveMode::Volterra && a >= A_RESCUE;
        let h = if rescue {
            0.1
        } else {
            (0.5 / (1.0 + nu)).min(0.1)
        };
        let g_n = (U_MAX / h - 1e-9).ceil() as usize;
        let mut s = vec![1.0; g_n + 1];
        if rescue {
            // probability the initial cohort dies before the first scale-out: Π k/(ν+k)
            let mut c = 1.0;
            for k in 1..=n0.max(1) {
                c *= k as f64 / (nu + k as f64);
                if c < 1e-300 {
                    break;
                }
            }
            if c > 1e-15 {
                for (k, sk) in s.iter_mut().enumerate() {
                    let x = libm::exp(-(k as f64) * h);
                    let ib = beta_reg(nu + 1.0, n0f, x);
                    *sk = 1.0 - c * (1.0 - if ib.is_finite() { ib } else { 1.0 });
                }
            }
        } else if mode == AliveMode::Volterra {
            let l0f = Lambda0::new(sigma);
            let kern: Vec<f64> = (0..g_n)
                .map(|m| libm::exp(-nu * l0f.at((m as f64 + 0.5) * h)))
                .collect();
            let mut df = vec![0.0; g_n + 1];
            let mut f: f64 = 0.0;
            // The sums acc_k = Σ_{j=1}^{k−1} df_j·kern_{k−j} of LANES consecutive k are formed together: first
            // their common terms j < k0 (independent chains, so the loop is not bound by the latency of one
            // addition), then each lane's own last terms in order once df_{k0..k−1} are known. Every acc_k adds
            // the same terms in the same order (j = 1, 2, …) as the one-at-a-time sum: bit-identical.
            const LANES: usize = 4;
            let mut k0 = 1;
            while k0 <= g_n {
                let lanes = LANES.min(g_n + 1 - k0);
                let mut acc = [0.0f64; LANES];
                if lanes == LANES {
                    for j in 1..k0 {
                        let kk = &kern[k0 - j..k0 - j + LANES];
                        let dj = df[j];
                        for l in 0..LANES {
                            acc[l] += dj * kk[l];
                        }
                    }
                } else {
                    for j in 1..k0 {
                        for l in 0..lanes {
                            acc[l] += df[j] * kern[k0 + l - j];
                        }
                    }
                }
                for l in 0..lanes {
                    let k = k0 + l;
                    let mut a = acc[l];
                    for j in k0..k {
                        a += df[j] * kern[k - j];
                    }
                    let u = k as f64 * h;
                    let gk = libm::pow(-libm::expm1(-u), n0f) * libm::exp(-nu * l0f.at(u));
                    let d = ((gk - a) / kern[0]).clamp(0.0, (1.0 - f).max(0.0));
                    df[k] = d;
                    f += d;
                    s[k] = 1.0 - f;
                }
                k0 += lanes;
            }
        } else {
            // S1-HAZARD: h(u) = P(Y=1)/(1−P(Y=0)), trapezoid cumulative hazard
            let l0f = Lambda0::new(sigma);
            let haz = |u: f64| -> f64 {
                let x = libm::exp(-u);
                let e0 = libm::exp(-nu * l0f.at(u));
                let omx = 1.0 - x;
                let p0 = libm::pow(omx, n0f) * e0;
                let l1 = omx * libm::exp(-sigma * x);
                let p1 = e0 * (n0f * x * libm::pow(omx, n0f - 1.0) + libm::pow(omx, n0f) * nu * l1);
                p1 / (1.0 - p0).max(1e-300)
            };
            let mut cum = 0.0;
            let mut prev = haz(0.0);
            for (k, sk) in s.iter_mut().enumerate().skip(1) {
                let cur = haz(k as f64 * h);
                cum += 0.5 * (prev + cur) * h;
                prev = cur;
                *sk = libm::exp(-cum);
            }
        }
        // clip and running minimum
        s[0] = 1.0;
        for k in 1..s.len() {
            s[k] = s[k].clamp(0.0, 1.0).min(s[k - 1]);
        }
        let u_end = g_n as f64 * h;
        let k10 = (((u_end - 10.0) / h) - 1e-9).ceil().max(0.0) as usize;
        let gamma = if s[g_n] > 1e-300 && s[k10] > 1e-300 {
            (libm::log(s[k10] / s[g_n]) / (u_end - k10 as f64 * h)).max(1e-12)
        } else {
            50.0
        };
        let mut phi1 = vec![0.0; g_n + 1];
        let mut phi2 = vec![0.0; g_n + 1];
        for (c, phi) in [(1.0f64, &mut phi1), (2.0f64, &mut phi2)] {
            let cd = c * h;
            let e = libm::exp(-cd);
            let i0 = -libm::expm1(-cd) / c;
            let i1 = (h - i0) / cd;
            for k in 1..=g_n {
                phi[k] = phi[k - 1] * e + s[k - 1] * (i0 - i1) + s[k] * i1;
            }
        }
        let psi1: Vec<f64> = (0..=g_n)
            .map(|k| -libm::expm1(-(k as f64) * h) - phi1[k])
            .collect();
        let psi2: Vec<f64> = (0..=g_n)
            .map(|k| -0.5 * libm::expm1(-2.0 * k as f64 * h) - phi2[k])
            .collect();
        AliveTable {
            h,
            g_n,
            psi1,
            psi2,
            phi1_end: phi1[g_n],
            phi2_end: phi2[g_n],
            s_last: s[g_n],
            gamma,
            s,
        }
    }

    /// Grid step h of the table (mean core lifetimes).
    pub fn step(&self) -> f64 {
        self.h
    }

    /// End U of the tabulated range (mean core lifetimes).
    pub fn u_end(&self) -> f64 {
        self.g_n as f64 * self.h
    }

    /// Drop the tabulated values and keep only the exponential tail beyond U (a table of
    /// [`TableLattice`] after its resampling on the τ grid, whose fast path reads the table itself only at
    /// τ ≥ [`PSI_GRID_HI`] > U). Afterwards only `psi(u)` for u > U may be called.
    fn compact(&mut self) {
        self.psi1 = Vec::new();
        self.psi2 = Vec::new();
        self.s = Vec::new();
    }

    /// True after [`AliveTable::compact`].
    fn is_compact(&self) -> bool {
        self.psi1.is_empty()
    }

    /// Alive probability `S1(u)` (linear interpolation; exponential tail beyond U).
    pub fn s1(&self, u: f64) -> f64 {
        let u = u.max(0.0);
        let ue = self.u_end();
        if u >= ue {
            return self.s_last * libm::exp(-self.gamma * (u - ue));
        }
        let x = u / self.h;
        let i = (x as usize).min(self.s.len() - 2);
        let f = x - i as f64;
        self.s[i] * (1.0 - f) + self.s[i + 1] * f
    }

    /// `(Φ1(u), Φ2(u))` (ALGORITHMS.md §2.4(d)); computed as `(1−e^{−u}) − Ψ1`, `(1−e^{−2u})/2 − Ψ2`.
    #[inline]
    pub fn phi(&self, u: f64) -> (f64, f64) {
        let u = u.max(0.0);
        let (a, b) = self.psi(u);
        (-libm::expm1(-u) - a, -0.5 * libm::expm1(-2.0 * u) - b)
    }

    /// Absorption corrections `(Ψ1(u), Ψ2(u)) = ((1−e^{−u}) − Φ1, (1−e^{−2u})/2 − Φ2)`, both ≥ 0.
    /// Ψ is tabulated and interpolated linearly in u on [0, U] (Ψ rather than Φ so that the interpolation is
    /// exact while S1 ≈ 1, i.e. at short horizons); beyond U the exponential tail of S1 gives Φ in closed form.
    #[inline]
    pub fn psi(&self, u: f64) -> (f64, f64) {
        let u = u.max(0.0);
        let n = self.g_n + 1;
        let ue = self.g_n as f64 * self.h;
        if u <= ue {
            assert!(
                !self.is_compact(),
                "AliveTable::psi inside U of a compacted table"
            );
            let x = u / self.h;
            let i = (x as usize).min(n - 2);
            let f = x - i as f64;
            (
                self.psi1[i] + (self.psi1[i + 1] - self.psi1[i]) * f,
                self.psi2[i] + (self.psi2[i + 1] - self.psi2[i]) * f,
            )
        } else {
            let d = u - ue;
            let tail = |c: f64| {
                if (c - self.gamma).abs() < 1e-9 {
                    self.s_last * d * libm::exp(-c * d)
                } else {
                    self.s_last * (libm::exp(-self.gamma * d) - libm::exp(-c * d))
                        / (c - self.gamma)
                }
            };
            let p1 = self.phi1_end * libm::exp(-d) + tail(1.0);
            let p2 = self.phi2_end * libm::exp(-2.0 * d) + tail(2.0);
            (
                (-libm::expm1(-u) - p1).max(0.0),
                (-0.5 * libm::expm1(-2.0 * u) - p2).max(0.0),
            )
        }
    }
}

/// First two moments of `X_t` at one lead time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    /// Lead time t (hours).
    pub t: f64,
    /// `E[X_t]` (cores).
    pub mean: f64,
    /// `Var[X_t]` (cores²).
    pub var: f64,
}

/// Known-parameter moments of `X_t` (ALGORITHMS.md §2.4(d), η = 1) at lead times `t` (hours):
/// `n0` current cores, `lambda` per-core death rate (per hour), `nu` normalised scale-out rate (scale-out rate
/// `ν·λ` per hour), `sigma` size parameter, `kappa` kill factor (max lifetime `Exp(λ/κ)`).
/// `mode` = NoAbsorption gives §2.4(b); PaperFactorised is treated as Canonical here (no posterior).
pub fn known_moments(
    n0: u32,
    lambda: f64,
    nu: f64,
    sigma: f64,
    kappa: f64,
    t: &[f64],
    alive: AliveMode,
    mode: MomentMode,
) -> Vec<Moment> {
    let n0f = n0 as f64;
    let m1 = 1.0 + sigma;
    let m2 = sigma * (2.0 + sigma);
    let table = if n0 == 0 || mode == MomentMode::NoAbsorption {
        None
    } else {
        Some(AliveTable::new(n0, nu, sigma, alive))
    };
    t.iter()
        .map(|&tt| {
            let tau = lambda * tt.max(0.0);
            let p = libm::exp(-tau);
            let q = libm::exp(-tau / kappa);
            let one_m_p = -libm::expm1(-tau);
            let (p1, p2) = match &table {
                Some(tb) => tb.phi(tau),
                None => {
                    if n0 == 0 {
                        (0.0, 0.0)
                    } else {
                        (one_m_p, -0.5 * libm::expm1(-2.0 * tau))
                    }
                }
            };
            let e = q * (n0f * p + nu * m1 * p1);
            let e2 = q
                * (n0f * p * one_m_p
                    + n0f * n0f * p * p
                    + 2.0 * n0f * p * nu * m1 * one_m_p
                    + nu * m1 * p1
                    + nu * m2 * p2
                    + 2.0 * nu * nu * m1 * m1 * (p1 - p2));
            Moment {
                t: tt,
                mean: e,
                var: (e2 - e * e).max(0.0),
            }
        })
        .collect()
}

/// A Gamma distribution, shape `a` and **rate** `b` (mean a/b), ALGORITHMS.md §0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gamma {
    /// Shape a (> 0).
    pub shape: f64,
    /// Rate b (> 0).
    pub rate: f64,
}

impl Gamma {
    /// Γ(shape, rate).
    pub const fn new(shape: f64, rate: f64) -> Gamma {
        Gamma { shape, rate }
    }
    /// Mean a/b.
    pub fn mean(&self) -> f64 {
        self.shape / self.rate
    }
    /// Second raw moment a(a+1)/b².
    pub fn second(&self) -> f64 {
        self.shape * (self.shape + 1.0) / (self.rate * self.rate)
    }
    /// True if shape and rate are finite and positive.
    pub fn is_valid(&self) -> bool {
        self.shape.is_finite() && self.rate.is_finite() && self.shape > 0.0 && self.rate > 0.0
    }
}

/// Belief about one deployment: current cores and independent Gamma posteriors over (λ per hour, ν, σ)
/// (ALGORITHMS.md §2.6.3 inputs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    /// Current active cores n0 (0 = dead: all moments 0).
    pub n0: u32,
    /// Posterior of the per-core death rate λ (per hour).
    pub lambda: Gamma,
    /// Posterior of the normalised scale-out rate ν (scale-outs per mean core lifetime).
    pub nu: Gamma,
    /// Posterior of the scale-out size parameter σ (extra cores).
    pub sigma: Gamma,
}

/// Quadrature and interpolation settings of §2.6.3. Defaults `(J_τ, J_ν, J_σ) = (16, 8, 4)`, 64 log-spaced
/// lead times for the absorption corrections.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MomentConfig {
    /// Moment formula (canonical / paper-style factorised / no absorption).
    pub mode: MomentMode,
    /// S1 method.
    pub alive: AliveMode,
    /// Gauss–Laguerre nodes over τ = λt.
    pub j_tau: usize,
    /// Nodes over ν.
    pub j_nu: usize,
    /// Nodes over σ.
    pub j_sigma: usize,
    /// Number of log-spaced lead times at which the absorption corrections Δ1, Δ2 are computed when more than
    /// this many lead times are requested (interpolated linearly in ln t, Δ(0) = 0).
    pub n_interp: usize,
}

impl Default for MomentConfig {
    fn default() -> Self {
        MomentConfig {
            mode: MomentMode::Canonical,
            alive: AliveMode::Volterra,
            j_tau: 16,
            j_nu: 8,
            j_sigma: 4,
            n_interp: 64,
        }
    }
}

impl MomentConfig {
    /// The "fast" quadrature preset (8, 4, 2) of §2.6.3 (|rel. error of E| ≤ 4.5%).
    pub fn fast() -> Self {
        MomentConfig {
            j_tau: 8,
            j_nu: 4,
            j_sigma: 2,
            ..Default::default()
        }
    }
}

/// Source of alive tables for given `(n0, ν, σ)`: exact construction or a memoising lattice
/// ([`TableLattice`]). `psi_sum` returns Σ over the table(s) of weight·Ψ(u).
pub trait PsiSource {
    /// Prepare the (possibly blended) table for `(n0, ν, σ)`; returns an opaque handle used by [`PsiSource::psi`].
    fn prepare(&mut self, n0: u32, nu: f64, sigma: f64, alive: AliveMode) -> usize;
    /// `(Ψ1(u), Ψ2(u))` of the prepared handle.
    fn psi(&self, handle: usize, u: f64) -> (f64, f64);
}

/// Builds exact tables on demand (no memoisation across calls of `prepare` with different inputs).
#[derive(Default)]
pub struct ExactTables {
    tables: Vec<AliveTable>,
}

impl PsiSource for ExactTables {
    fn prepare(&mut self, n0: u32, nu: f64, sigma: f64, alive: AliveMode) -> usize {
        self.tables.push(AliveTable::new(n0, nu, sigma, alive));
        self.tables.len() - 1
    }
    fn psi(&self, handle: usize, u: f64) -> (f64, f64) {
        self.tables[handle].psi(u)
    }
}

/// Memoised alive tables on a lattice (ALGORITHMS.md §2.7 optional speed-up, coarsened for speed): 48 log-spaced
/// ν in [1e−3, 200], 16 √-spaced σ in [0, 60], exact n0 ≤ 12 then a geometric ladder (ratio 1.25, nearest rung
/// in ln n0). Unit-tested against exact tables at ≤ 1% of (1 − e^{−u}).
/// Ψ is interpolated bilinearly in (ln ν, σ). Values outside the lattice are clamped to it.
pub struct TableLattice {
    /// n0 rung → page of `slots` (one page of `PAGE` slots per rung).
    pages: FxHashMap<u32, usize>,
    /// Arena index + 1 of the table at (page, ν index, σ index, alive mode); 0 = not built yet.
    slots: Vec<u32>,
    /// The last (rung, page) looked up (the ≤ 4·J_ν·J_σ tables of one belief share their rung).
    last_page: Option<(u32, usize)>,
    arena: Vec<AliveTable>,
    blends: Vec<[(usize, f64); 4]>,
    /// Ψ1, Ψ2 of every memoised table resampled on the log-spaced τ grid [`PSI_GRID_LO`, `PSI_GRID_HI`]
    /// ([`PSI_GRID_N`] points, stored as f32): block `i·2·PSI_GRID_N` holds Ψ1 then Ψ2 of table `i`.
    res: Vec<f32>,
    /// ln ν_lo and ln(ν_hi/ν_lo) of the ν axis.
    ln_nu_lo: f64,
    ln_nu_span: f64,
    /// τ of the resampling grid points ([`psi_grid_tau`]).
    taus: Vec<f64>,
    /// Work buffers of [`absorption_corrections_lattice`] (kept to avoid allocating per call).
    scratch: LatticeScratch,
    /// Number of tables built so far.
    pub built: usize,
}

/// Work buffers of [`absorption_corrections_lattice`].
#[derive(Default)]
struct LatticeScratch {
    g1: Vec<f64>,
    g2: Vec<f64>,
    combos: Vec<(usize, f64, f64, f64)>,
    pairs: Vec<(f64, f64, f64, f64, f64, f64)>,
    lnx: Vec<f64>,
    /// Per lead time: L(κ'), or `None` for t ≤ 0.
    lead: Vec<Option<f64>>,
    /// Per (lead time, τ node): where G is read (see [`absorption_corrections_lattice_into`]).
    look: Vec<(u32, f64)>,
}

/// [`LatticeScratch::look`] kind: τ ≤ [`PSI_GRID_LO`], the value is τ / PSI_GRID_LO.
const LOOK_LOW: u32 = u32::MAX - 1;
/// [`LatticeScratch::look`] kind: τ ≥ [`PSI_GRID_HI`], the value is τ.
const LOOK_HIGH: u32 = u32::MAX;

/// Slots per n0 rung: ν index × σ index × alive mode.
const PAGE: usize = N_NU * N_SIG * 2;

const NU_LO: f64 = 1e-3;
const NU_HI: f64 = 200.0;
const N_NU: usize = 64;
const N_SIG: usize = 24;
const N0_EXACT: u32 = 12;
const SIG_HI: f64 = 60.0;

impl Default for TableLattice {
    fn default() -> Self {
        TableLattice {
            pages: FxHashMap::default(),
            slots: Vec::new(),
            last_page: None,
            arena: Vec::new(),
            blends: Vec::new(),
            res: Vec::new(),
            ln_nu_lo: libm::log(NU_LO),
            ln_nu_span: libm::log(NU_HI / NU_LO),
            taus: (0..PSI_GRID_N).map(psi_grid_tau).collect(),
            scratch: LatticeScratch::default(),
            built: 0,
        }
    }
}

impl TableLattice {
    /// Empty lattice.
    pub fn new() -> Self {
        Self::default()
    }
    /// Clear per-curve handles (keeps the memoised tables). Called automatically by [`posterior_moments_with`].
    pub fn reset_handles(&mut self) {
        self.blends.clear();
    }
    /// Number of memoised tables.
    pub fn len(&self) -> usize {
        self.arena.len()
    }
    /// True if no table has been built.
    pub fn is_empty(&self) -> bool {
        self.arena.is_empty()
    }
    fn nu_value(i: usize) -> f64 {
        libm::exp(libm::log(NU_LO) + libm::log(NU_HI / NU_LO) * i as f64 / (N_NU - 1) as f64)
    }
    fn sig_value(k: usize) -> f64 {
        let r = k as f64 / (N_SIG - 1) as f64;
        SIG_HI * r * r
    }
    /// Lattice rung for n0: exact up to 12, then 12·1.25^k rounded (nearest rung in ln n0).
    pub fn n0_rung(n0: u32) -> u32 {
        if n0 <= N0_EXACT {
            return n0;
        }
        let base = N0_EXACT as f64;
        let k = (libm::log(n0 as f64 / base) / libm::log(1.25f64)).round();
        (base * libm::pow(1.25f64, k)).round() as u32
    }
}

impl TableLattice {
    /// The page of slots of rung `n` (created empty on first use).
    fn page(&mut self, n: u32) -> usize {
        if let Some((m, p)) = self.last_page {
            if m == n {
                return p;
            }
        }
        let next = self.pages.len();
        let p = *self.pages.entry(n).or_insert(next);
        if p == next {
            self.slots.resize((p + 1) * PAGE, 0);
        }
        self.last_page = Some((n, p));
        p
    }

    /// [`PsiSource::prepare`] for an n0 already on its rung (`n = n0_rung(n0.max(1))`). `full`: the handle
    /// will be read inside U (direct lookups); otherwise only the resampled Ψ and the tails beyond U are read
    /// ([`absorption_corrections_lattice`]), and tables built here are compacted after their resampling.
    fn prepare_rung(&mut self, n: u32, nu: f64, sigma: f64, alive: AliveMode, full: bool) -> usize {
        let ln_nu = libm::log(nu.clamp(NU_LO, NU_HI));
        let xi = (ln_nu - self.ln_nu_lo) / self.ln_nu_span * (N_NU - 1) as f64;
        let i0 = (xi.floor() as usize).min(N_NU - 2);
        let fi = (xi - i0 as f64).clamp(0.0, 1.0);
        let ys = (sigma.clamp(0.0, SIG_HI) / SIG_HI).sqrt() * (N_SIG - 1) as f64;
        let k0 = (ys.floor() as usize).min(N_SIG - 2);
        // bilinear in σ (not √σ): weight from σ values
        let s_lo = Self::sig_value(k0);
        let s_hi = Self::sig_value(k0 + 1);
        let fk = ((sigma.clamp(0.0, SIG_HI) - s_lo) / (s_hi - s_lo)).clamp(0.0, 1.0);
        let am = if alive == AliveMode::Hazard { 1 } else { 0 };
        let page = self.page(n) * PAGE;
        let mut blend = [(0usize, 0.0f64); 4];
        let mut slot = 0;
        for (di, wi) in [(0usize, 1.0 - fi), (1, fi)] {
            for (dk, wk) in [(0usize, 1.0 - fk), (1, fk)] {
                let si = page + ((i0 + di) * N_SIG + k0 + dk) * 2 + am;
                let idx = match self.slots[si] {
                    0 => {
                        let t = AliveTable::new(
                            n,
                            Self::nu_value(i0 + di),
                            Self::sig_value(k0 + dk),
                            alive,
                        );
                        // stored as f32 (relative precision 6e−8): the Δ sums are memory-bound
                        let at = self.res.len();
                        self.res.resize(at + 2 * PSI_GRID_N, 0.0);
                        let (p1, p2) = self.res[at..].split_at_mut(PSI_GRID_N);
                        for ((x1, x2), &tau) in p1.iter_mut().zip(p2.iter_mut()).zip(&self.taus) {
                            let (a, b) = t.psi(tau);
                            *x1 = a as f32;
                            *x2 = b as f32;
                        }
                        let mut t = t;
                        if !full {
                            // the table's values (≈ 3·8·G bytes) are not read again on this path
                            t.compact();
                        }
                        self.arena.push(t);
                        self.slots[si] = self.arena.len() as u32;
                        self.built += 1;
                        self.arena.len() - 1
                    }
                    ix => {
                        let ix = ix as usize - 1;
                        if full && self.arena[ix].is_compact() {
                            // rebuilt exactly as before (deterministic)
                            self.arena[ix] = AliveTable::new(
                                n,
                                Self::nu_value(i0 + di),
                                Self::sig_value(k0 + dk),
                                alive,
                            );
                        }
                        ix
                    }
                };
                blend[slot] = (idx, wi * wk);
                slot += 1;
            }
        }
        self.blends.push(blend);
        self.blends.len() - 1
    }
}

impl PsiSource for TableLattice {
    fn prepare(&mut self, n0: u32, nu: f64, sigma: f64, alive: AliveMode) -> usize {
        self.prepare_rung(Self::n0_rung(n0.max(1)), nu, sigma, alive, true)
    }
    #[inline]
    fn psi(&self, handle: usize, u: f64) -> (f64, f64) {
        let mut out = (0.0, 0.0);
        for &(ix, w) in &self.blends[handle] {
            if w != 0.0 {
                let (a, c) = self.arena[ix].psi(u);
                out.0 += w * a;
                out.1 += w * c;
            }
        }
        out
    }
}

/// Cache of Gauss–Laguerre nodes keyed by (n, shape bits).
#[derive(Default)]
pub struct NodeCache {
    map: FxHashMap<(usize, u64), (Vec<f64>, Vec<f64>)>,
}

impl NodeCache {
    /// Nodes/weights for Γ(shape, 1) with n points (memoised).
    pub fn get(&mut self, n: usize, shape: f64) -> &(Vec<f64>, Vec<f64>) {
        self.map
            .entry((n, shape.to_bits()))
            .or_insert_with(|| gauss_laguerre_gamma(n, shape))
    }

    /// Nodes/weights already memoised by [`NodeCache::get`]; panics otherwise.
    fn peek(&self, n: usize, shape: f64) -> &(Vec<f64>, Vec<f64>) {
        &self.map[&(n, shape.to_bits())]
    }
}

/// Number of points of the log-spaced τ grid (dimensionless lead time λt) on which lattice tables are
/// resampled for the fast absorption corrections ([`absorption_corrections_lattice`]).
pub const PSI_GRID_N: usize = 160;
/// Smallest τ of the resampling grid (below it Ψ is interpolated linearly from Ψ(0) = 0).
pub const PSI_GRID_LO: f64 = 1e-3;
/// Largest τ of the resampling grid (beyond it the table's own tail formula is used).
pub const PSI_GRID_HI: f64 = 2e3;

fn psi_grid_step() -> f64 {
    libm::log(PSI_GRID_HI / PSI_GRID_LO) / (PSI_GRID_N - 1) as f64
}

/// τ of resampling grid point `g` (dimensionless).
pub fn psi_grid_tau(g: usize) -> f64 {
    if g == PSI_GRID_N - 1 {
        PSI_GRID_HI
    } else {
        PSI_GRID_LO * libm::exp(psi_grid_step() * g as f64)
    }
}

/// The quadrature shared by both absorption-correction paths ([`absorption_corrections`],
/// [`absorption_corrections_lattice`]) for one belief: Gauss nodes and weights of the lifetime rate's
/// Gamma posterior (scaled later by β_t), and per (ν, σ) node pair its weight product and the scale-out
/// coefficients.
struct AbsorptionQuadrature<'n> {
    /// Nodes and weights of Γ(a_λ, 1).
    xt: &'n [f64],
    wt: &'n [f64],
    /// Per (ν, σ) node pair: (ν, σ, v·w, c1 = ν·m1, c2 = ν·m2, c3 = 2ν²m1²) with m1 = 1 + σ, m2 = σ(2 + σ).
    pairs: Vec<(f64, f64, f64, f64, f64, f64)>,
}

impl<'n> AbsorptionQuadrature<'n> {
    /// The quadrature of belief `b`; `pairs` is a reusable buffer (cleared).
    fn new(
        b: &Belief,
        cfg: &MomentConfig,
        nodes: &'n mut NodeCache,
        mut pairs: Vec<(f64, f64, f64, f64, f64, f64)>,
    ) -> AbsorptionQuadrature<'n> {
        let (jt, jn, js) = (cfg.j_tau.max(1), cfg.j_nu.max(1), cfg.j_sigma.max(1));
        nodes.get(jt, b.lambda.shape);
        nodes.get(jn, b.nu.shape);
        nodes.get(js, b.sigma.shape);
        let nodes: &'n NodeCache = nodes;
        let (xt, wt) = nodes.peek(jt, b.lambda.shape);
        let (yn, vn) = nodes.peek(jn, b.nu.shape);
        let (zs, ws) = nodes.peek(js, b.sigma.shape);
        pairs.clear();
        for (y, v) in yn.iter().zip(vn) {
            let nu = y / b.nu.rate;
            for (z, w) in zs.iter().zip(ws) {
                let sg = z / b.sigma.rate;
                let m1 = 1.0 + sg;
                let m2 = sg * (2.0 + sg);
                pairs.push((nu, sg, v * w, nu * m1, nu * m2, 2.0 * nu * nu * m1 * m1));
            }
        }
        AbsorptionQuadrature { xt, wt, pairs }
    }
}

/// β_t = b_λ/t + 1/κ and L(κ') = (1 + κ'·t/b_λ)^(−a_λ) at lead time t > 0 (hours), §2.6.3.
fn lead_factors(b: &Belief, kp: f64, t: f64) -> (f64, f64) {
    let beta = b.lambda.rate / t + kp;
    let l0 = libm::exp(-b.lambda.shape * libm::log1p(kp * t / b.lambda.rate));
    (beta, l0)
}

/// Absorption corrections `(Δ1(t), Δ2(t))` of §2.6.3 at lead times `times` (hours) using the lattice tables
/// resampled on the τ grid (speed path of §2.7 caching). Because Δq is linear in Ψ, the 8-combination sums
/// `G1(τ) = Σ_c w_c·ν_c m1_c·Ψ1_c(τ)` and `G2(τ)` are formed once on the τ grid (Σ over ≤ 4·J_ν·J_σ tables of
/// a contiguous 2·[`PSI_GRID_N`]-vector), then `Δq(t) = L(κ')·Σ_i w_i·Gq(x_i/β_t)` with G interpolated
/// linearly in ln τ. Outside the grid the tables are evaluated directly. Accuracy against
/// [`absorption_corrections`] on the same lattice: unit test `lattice_fast_deltas_match_direct`.
pub fn absorption_corrections_lattice(
    b: &Belief,
    kappa: f64,
    times: &[f64],
    cfg: &MomentConfig,
    lat: &mut TableLattice,
    nodes: &mut NodeCache,
) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(times.len());
    absorption_corrections_lattice_into(b, kappa, times, cfg, lat, nodes, &mut out);
    out
}

/// [`absorption_corrections_lattice`] into `out` (cleared first; no allocation once the buffers are warm).
pub fn absorption_corrections_lattice_into(
    b: &Belief,
    kappa: f64,
    times: &[f64],
    cfg: &MomentConfig,
    lat: &mut TableLattice,
    nodes: &mut NodeCache,
    out: &mut Vec<(f64, f64)>,
) {
    out.clear();
    if b.n0 == 0 {
        out.resize(times.len(), (0.0, 0.0));
        return;
    }
    let kp = 1.0 / kappa;
    let mut sc = std::mem::take(&mut lat.scratch);
    let AbsorptionQuadrature { xt, wt, pairs } =
        AbsorptionQuadrature::new(b, cfg, nodes, std::mem::take(&mut sc.pairs));
    lat.reset_handles();
    let ng = PSI_GRID_N;
    let step = psi_grid_step();
    let ln_lo = libm::log(PSI_GRID_LO);
    let lnx = &mut sc.lnx;
    lnx.clear();
    lnx.extend(xt.iter().map(|&x| libm::log(x)));
    // Where G will be read: per lead time and τ node, below the grid, above it, or cell i with fraction f.
    // Only the cells read, [lo, hi], are summed below (each G(τ_i) is its own sum, so the values are the
    // same as with the whole grid summed).
    let (lead, look) = (&mut sc.lead, &mut sc.look);
    lead.clear();
    look.clear();
    let (mut lo, mut hi) = (ng, 0usize);
    for &t in times {
        if t <= 0.0 {
            lead.push(None);
            continue;
        }
        let (beta, l0) = lead_factors(b, kp, t);
        lead.push(Some(l0));
        let ln_beta = libm::log(beta);
        for (x, lx) in xt.iter().zip(&sc.lnx) {
            let tau = x / beta;
            if tau <= PSI_GRID_LO {
                look.push((LOOK_LOW, tau / PSI_GRID_LO));
                lo = 0;
            } else if tau >= PSI_GRID_HI {
                look.push((LOOK_HIGH, tau));
            } else {
                let p = ((lx - ln_beta - ln_lo) / step).clamp(0.0, (ng - 1) as f64);
                let i = (p as usize).min(ng - 2);
                look.push((i as u32, p - i as f64));
                lo = lo.min(i);
                hi = hi.max(i + 1);
            }
        }
    }
    let (g1, g2) = (&mut sc.g1, &mut sc.g2);
    g1.clear();
    g1.resize(ng, 0.0);
    g2.clear();
    g2.resize(ng, 0.0);
    let cells = if lo <= hi { lo..hi + 1 } else { 0..0 };
    // (handle, coefficient of Ψ1 in G1, of Ψ1 in G2, of Ψ2 in G2)
    let combos = &mut sc.combos;
    combos.clear();
    let rung = TableLattice::n0_rung(b.n0.max(1));
    for &(nu, sg, vw, c1, c2, c3) in &pairs {
        let hd = lat.prepare_rung(rung, nu, sg, cfg.alive, false);
        let (a1, a2, a3) = (vw * c1, vw * (c1 + c3), vw * (c2 - c3));
        combos.push((hd, a1, a2, a3));
        for &(ix, bw) in &lat.blends[hd] {
            if bw == 0.0 {
                continue;
            }
            let blk = &lat.res[ix * 2 * ng..(ix + 1) * 2 * ng];
            let (p1, p2) = blk.split_at(ng);
            let (p1, p2) = (&p1[cells.clone()], &p2[cells.clone()]);
            let (e1, e2, e3) = (bw * a1, bw * a2, bw * a3);
            // zipped slices (no bounds checks) so that the loop vectorises
            let (x1s, x2s) = (&mut g1[cells.clone()], &mut g2[cells.clone()]);
            for ((x1, x2), (&q1, &q2)) in x1s.iter_mut().zip(x2s.iter_mut()).zip(p1.iter().zip(p2))
            {
                let (q1, q2) = (q1 as f64, q2 as f64);
                *x1 += e1 * q1;
                *x2 += e2 * q1 + e3 * q2;
            }
        }
    }
    let (g1, g2, combos) = (&sc.g1[..], &sc.g2[..], &sc.combos[..]);
    let lat_r: &TableLattice = lat;
    let eval_g = |(i, f): (u32, f64)| -> (f64, f64) {
        if i == LOOK_LOW {
            (g1[0] * f, g2[0] * f)
        } else if i == LOOK_HIGH {
            let mut o = (0.0, 0.0);
            for &(hd, a1, a2, a3) in combos {
                let (p1, p2) = lat_r.psi(hd, f);
                o.0 += a1 * p1;
                o.1 += a2 * p1 + a3 * p2;
            }
            o
        } else {
            let i = i as usize;
            (
                g1[i] + (g1[i + 1] - g1[i]) * f,
                g2[i] + (g2[i + 1] - g2[i]) * f,
            )
        }
    };
    let nx = xt.len();
    let mut k = 0;
    out.extend(sc.lead.iter().map(|l0| match *l0 {
        None => (0.0, 0.0),
        Some(l0) => {
            let mut d1 = 0.0;
            let mut d2 = 0.0;
            for (wi, &lk) in wt.iter().zip(&sc.look[k..k + nx]) {
                let (s1, s2) = eval_g(lk);
                d1 += wi * s1;
                d2 += wi * s2;
            }
            k += nx;
            (l0 * d1, l0 * d2)
        }
    }));
    sc.pairs = pairs;
    lat.scratch = sc;
}

/// Closed-form un-absorbed posterior part `(E0(t), M2₀(t), L(κ'))` of §2.6.3 at one lead time t (hours).
#[inline]
pub fn unabsorbed_posterior(b: &Belief, kappa: f64, t: f64) -> (f64, f64, f64) {
    let kp = 1.0 / kappa;
    let a = b.lambda.shape;
    let r = t.max(0.0) / b.lambda.rate;
    let l = |c: f64| libm::exp(-a * libm::log1p(c * r));
    let l0 = l(kp);
    let l1 = l(kp + 1.0);
    let l2 = l(kp + 2.0);
    let n0 = b.n0 as f64;
    let enu = b.nu.mean();
    let enu2 = b.nu.second();
    let es = b.sigma.mean();
    let es2 = b.sigma.second();
    let em1 = 1.0 + es;
    let em2 = 2.0 * es + es2;
    let em1sq = 1.0 + 2.0 * es + es2;
    let e = n0 * l1 + enu * em1 * (l0 - l1);
    let m2 = n0 * l1
        + n0 * (n0 - 1.0) * l2
        + 2.0 * n0 * enu * em1 * (l1 - l2)
        + enu * em1 * (l0 - l1)
        + 0.5 * enu * em2 * (l0 - l2)
        + enu2 * em1sq * (l0 - 2.0 * l1 + l2);
    (e, m2, l0)
}

/// Absorption corrections `(Δ1(t), Δ2(t))` of §2.6.3 at each lead time in `times` (hours), evaluated directly.
pub fn absorption_corrections(
    b: &Belief,
    kappa: f64,
    times: &[f64],
    cfg: &MomentConfig,
    src: &mut dyn PsiSource,
    nodes: &mut NodeCache,
) -> Vec<(f64, f64)> {
    if b.n0 == 0 {
        return vec![(0.0, 0.0); times.len()];
    }
    let kp = 1.0 / kappa;
    let AbsorptionQuadrature { xt, wt, pairs } =
        AbsorptionQuadrature::new(b, cfg, nodes, Vec::new());
    let combos: Vec<_> = pairs
        .iter()
        .map(|&(nu, sg, vw, c1, c2, c3)| (src.prepare(b.n0, nu, sg, cfg.alive), vw, c1, c2, c3))
        .collect();
    times
        .iter()
        .map(|&t| {
            if t <= 0.0 {
                return (0.0, 0.0);
            }
            let (beta, l0) = lead_factors(b, kp, t);
            let mut d1 = 0.0;
            let mut d2 = 0.0;
            for &(hd, w, c1, c2, c3) in &combos {
                let mut s1 = 0.0;
                let mut s2 = 0.0;
                for (x, wi) in xt.iter().zip(wt) {
                    let (p1, p2) = src.psi(hd, x / beta);
                    s1 += wi * p1;
                    s2 += wi * p2;
                }
                d1 += w * c1 * s1;
                d2 += w * (c1 * s1 + c2 * s2 + c3 * (s1 - s2));
            }
            (l0 * d1, l0 * d2)
        })
        .collect()
}

/// Paper-style factorised moments (App. A.2 "factorised", seed 000 Prop. 4.3 / App. C) at lead time t (hours).
fn factorised_moment(b: &Belief, kappa: f64, t: f64, table: &AliveTable) -> (f64, f64) {
    let kp = 1.0 / kappa;
    let a = b.lambda.shape;
    let l = |c: f64| libm::exp(-a * libm::log1p(c * t / b.lambda.rate));
    let n0 = b.n0 as f64;
    let enu = b.nu.mean();
    let enu2 = b.nu.second();
    let es = b.sigma.mean();
    let es2 = b.sigma.second();
    let em1 = 1.0 + es;
    let em2 = 2.0 * es + es2;
    let em1sq = 1.0 + 2.0 * es + es2;
    let lbar = b.lambda.mean();
    let (p1, _) = table.phi(lbar * t);
    let denom = -libm::expm1(-lbar * t);
    let r = if denom > 1e-300 { p1 / denom } else { 1.0 };
    let ed = l(kp);
    let ea = n0 * l(1.0);
    let ea2 = n0 * l(1.0) + n0 * (n0 - 1.0) * l(2.0);
    let eb = r * enu * em1 * (1.0 - l(1.0));
    let eb2 = r
        * (enu * em1 * (1.0 - l(1.0))
            + 0.5 * enu * em2 * (1.0 - l(2.0))
            + enu2 * em1sq * (1.0 - 2.0 * l(1.0) + l(2.0)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nu_zero_survival_is_cohort_survival() {
        // ν = 0: S1(u) = 1 − (1 − e^{−u})^{n0}
        let tb = AliveTable::new(3, 0.0, 1.0, AliveMode::Volterra);
        for &u in &[0.3, 1.0, 2.5] {
            let exact = 1.0 - (1.0 - libm::exp(-u as f64)).powi(3);
            assert!(
                (tb.s1(u) - exact).abs() < 3e-3,
                "{u}: {} {}",
                tb.s1(u),
                exact
            );
        }
    }

    #[test]
    fn no_absorption_matches_closed_form() {
        // §2.4(a)-(b) directly
        let (n0, lam, nu, sig, kappa) = (4u32, 0.2, 3.0, 2.0, 10.0);
        let t = 5.0;
        let m = known_moments(
            n0,
            lam,
            nu,
            sig,
            kappa,
            &[t],
            AliveMode::Volterra,
            MomentMode::NoAbsorption,
        )[0];
        let r = nu * lam;
        let (m1, m2) = (1.0 + sig, sig * (2.0 + sig));
        let p = libm::exp(-lam * t as f64);
        let q = libm::exp(-lam * t / kappa as f64);
        let i1 = (1.0 - p) / lam;
        let i2 = (1.0 - p * p) / (2.0 * lam);
        let ey = 4.0 * p + r * m1 * i1;
        let vy = 4.0 * p * (1.0 - p) + r * (m1 * i1 + m2 * i2);
        assert!((m.mean - q * ey).abs() < 1e-9);
        assert!((m.var - (q * vy + q * (1.0 - q) * ey * ey)).abs() < 1e-8);
    }

    #[test]
    fn lattice_interpolation_close_to_exact() {
        let mut lat = TableLattice::new();
        let mut worst: f64 = 0.0;
        for &(n0, nu, sg) in &[
            (1u32, 0.37, 2.3),
            (3, 1.7, 0.4),
            (7, 0.05, 11.0),
            (2, 3.3, 5.5),
            (20, 0.8, 1.1),
        ] {
            let ex = AliveTable::new(n0, nu, sg, AliveMode::Volterra);
            let hd = lat.prepare(n0, nu, sg, AliveMode::Volterra);
            for &u in &[0.2, 1.0, 3.0, 8.0, 30.0, 60.0] {
                let (a, b) = ex.psi(u);
                let (c, d) = lat.psi(hd, u);
                let scale = (1.0 - libm::exp(-u as f64)).max(1e-9);
                worst = worst
                    .max(((a - c) / scale).abs())
                    .max(((b - d) / scale).abs());
            }
        }
        assert!(worst < 0.01, "lattice Ψ error {worst}");
    }

    #[test]
    fn lattice_fast_deltas_match_direct() {
        // the resampled-grid Δ against the direct per-node table lookups on the same lattice
        let cfg = MomentConfig::fast();
        let ts: Vec<f64> = (0..24)
            .map(|i| 0.04 * libm::pow(26_280.0f64 / 0.04, i as f64 / 23.0))
            .collect();
        let mut worst: f64 = 0.0;
        for (n0, al, bl, an, bn, as_, bs) in [
            (1u32, 1.2, 60.0, 1.0, 0.5, 1.0, 0.2),
            (3, 4.2, 150.0, 3.0, 1.3, 5.0, 2.2),
            (8, 40.2, 2000.0, 30.0, 10.0, 90.0, 20.2),
            (2, 400.2, 8000.0, 200.0, 90.0, 20.0, 100.2),
        ] {
            let b = Belief {
                n0,
                lambda: Gamma::new(al, bl),
                nu: Gamma::new(an, bn),
                sigma: Gamma::new(as_, bs),
            };
            let mut lat = TableLattice::new();
            let mut nodes = NodeCache::default();
            let d = absorption_corrections(&b, 20.0, &ts, &cfg, &mut lat, &mut nodes);
            let f = absorption_corrections_lattice(&b, 20.0, &ts, &cfg, &mut lat, &mut nodes);
            let m = posterior_moments(&b, 20.0, &ts, &cfg);
            for k in 0..ts.len() {
                // error relative to the larger of the correction and the moment (E[X_t] = E0 − Δ1 can cancel to
                // ≈ 0 when almost every path is absorbed; the policy sums absolute cores)
                let e1 = (d[k].0 - f[k].0).abs() / m[k].mean.max(d[k].0).max(1e-3);
                let e2 = (d[k].1 - f[k].1).abs()
                    / (m[k].var + m[k].mean * m[k].mean).max(d[k].1).max(1e-3);
                worst = worst.max(e1).max(e2);
            }
        }
        assert!(worst < 0.005, "resampled Δ error {worst}");
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
            l0.push(-a * libm::log1p(kp * r));
            l1.push(-a * libm::log1p((kp + 1.0) * r));
            l2.push(-a * libm::log1p((kp + 2.0) * r));
        }
        // L(c) = exp(−a·ln(1 + c·t/b)), the exponentials in vectorised batches (bit-identical to libm::exp)
        exp_slice(l0);
        exp_slice(l1);
        exp_slice(l2);
        let es = b.sigma.mean();
        let es2 = b.sigma.second();
        self.c1 = b.nu.mean() * (1.0 + es);
        self.c2 = b.nu.mean() * (2.0 * es + es2);
        self.c3 = b.nu.second() * (1.0 + 2.0 * es + es2);
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
