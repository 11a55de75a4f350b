//! The dimensionless alive probability `S1(u)` of a deployment (λ = 1) by S1-VOLTERRA / S1-RESCUE (canonical)
//! or S1-HAZARD, and its convolutions `Φ1, Φ2` on a uniform grid (ALGORITHMS.md §2.5, seed 000 §4).

use crate::substrate::hash::FxHashMap;
use crate::substrate::special::{beta_reg, exp_slice, expected_harmonic_k, Lambda0};
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

/// The terms of an alive table's grid `u_k = k·h` that depend only on h: `1 − e^{−u_k}` and
/// `(1 − e^{−2u_k})/2`, k = 0..=G.
#[derive(Debug)]
pub struct GridTerms {
    em1: Vec<f64>,
    em2: Vec<f64>,
}

/// Memo of [`GridTerms`] by h, of `(1 − e^{−u_k})^{n0}` by (h, n0) and of `Λ0` on the grid by (h, σ), shared by the tables of a lattice
/// ([`AliveTable::new_with`]); bounded (cleared beyond [`GRID_MEMO_CAP`] entries).
#[derive(Debug, Default)]
pub struct GridMemo {
    grids: FxHashMap<u64, std::sync::Arc<GridTerms>>,
    pows: FxHashMap<(u64, u64), std::sync::Arc<Vec<f64>>>,
    lambda0: FxHashMap<(u64, u64), std::sync::Arc<Lambda0Grid>>,
}

/// `Λ0(u)` of one σ on a grid of step h: at the half steps `(m + ½)h`, m < G, and at `kh`, k = 0..=G.
#[derive(Debug)]
struct Lambda0Grid {
    mid: Vec<f64>,
    at: Vec<f64>,
}

/// Entries of each map of [`GridMemo`] before it is cleared (bounds its memory).
const GRID_MEMO_CAP: usize = 4096;

impl GridMemo {
    /// The grid terms of step `h` with `g_n` steps (`g_n` is a function of h).
    fn grid(&mut self, h: f64, g_n: usize) -> std::sync::Arc<GridTerms> {
        if self.grids.len() >= GRID_MEMO_CAP {
            self.grids.clear();
        }
        self.grids
            .entry(h.to_bits())
            .or_insert_with(|| {
                std::sync::Arc::new(GridTerms {
                    em1: (0..=g_n).map(|k| -libm::expm1(-(k as f64) * h)).collect(),
                    em2: (0..=g_n)
                        .map(|k| -0.5 * libm::expm1(-2.0 * k as f64 * h))
                        .collect(),
                })
            })
            .clone()
    }

    /// `Λ0` of size parameter `sigma` on the grid of step `h` with `g_n` steps.
    fn lambda0(&mut self, h: f64, g_n: usize, sigma: f64) -> std::sync::Arc<Lambda0Grid> {
        if self.lambda0.len() >= GRID_MEMO_CAP {
            self.lambda0.clear();
        }
        self.lambda0
            .entry((h.to_bits(), sigma.to_bits()))
            .or_insert_with(|| {
                let l0f = Lambda0::new(sigma);
                std::sync::Arc::new(Lambda0Grid {
                    mid: (0..g_n).map(|m| l0f.at((m as f64 + 0.5) * h)).collect(),
                    at: (0..=g_n).map(|k| l0f.at(k as f64 * h)).collect(),
                })
            })
            .clone()
    }

    /// `(1 − e^{−u_k})^{n0}` for k = 0..=G from the grid's `em1` (= `1 − e^{−u_k}`).
    fn pow(&mut self, h: f64, n0f: f64, em1: &[f64]) -> std::sync::Arc<Vec<f64>> {
        if self.pows.len() >= GRID_MEMO_CAP {
            self.pows.clear();
        }
        self.pows
            .entry((h.to_bits(), n0f.to_bits()))
            .or_insert_with(|| {
                std::sync::Arc::new(em1.iter().map(|&x| libm::pow(x, n0f)).collect())
            })
            .clone()
    }
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
        Self::new_with(n0, nu, sigma, mode, &mut GridMemo::default())
    }

    /// [`AliveTable::new`] with the terms that depend only on the grid step h, n0 and σ (`1 − e^{−kh}`,
    /// `(1 − e^{−2kh})/2`, `(1 − e^{−kh})^{n0}`, `Λ0(kh)`) taken from `memo`, which many tables of a lattice share
    /// (every table with ν ≤ 4 has h = 0.1). The same values bit for bit.
    pub fn new_with(
        n0: u32,
        nu: f64,
        sigma: f64,
        mode: AliveMode,
        memo: &mut GridMemo,
    ) -> AliveTable {
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
        let grid = memo.grid(h, g_n);
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
            let lam = memo.lambda0(h, g_n, sigma);
            let mut kern: Vec<f64> = lam.mid.iter().map(|&l| -nu * l).collect();
            exp_slice(&mut kern);
            // e^{−ν·Λ0(u_k)} and (1 − e^{−u_k})^{n0} of the driving term g_k, k = 0..=G (index 0 unused)
            let mut drive: Vec<f64> = lam.at.iter().map(|&l| -nu * l).collect();
            exp_slice(&mut drive);
            let pw = memo.pow(h, n0f, &grid.em1);
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
                    let gk = pw[k] * drive[k];
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
        let psi1: Vec<f64> = (0..=g_n).map(|k| grid.em1[k] - phi1[k]).collect();
        let psi2: Vec<f64> = (0..=g_n).map(|k| grid.em2[k] - phi2[k]).collect();
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
    pub(super) fn compact(&mut self) {
        self.psi1 = Vec::new();
        self.psi2 = Vec::new();
        self.s = Vec::new();
    }

    /// True after [`AliveTable::compact`].
    pub(super) fn is_compact(&self) -> bool {
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
