//! Where the absorption corrections read alive tables (ALGORITHMS.md §2.7 caching): exact tables built on
//! demand, or memoised tables on a (n0, ν, σ) lattice resampled on a log-spaced τ grid; Gauss–Laguerre nodes.

use super::alive::{AliveMode, AliveTable, GridMemo};
use crate::substrate::hash::FxHashMap;
use crate::substrate::special::gauss_laguerre_gamma;

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
    pub(super) blends: Vec<[(usize, f64); 4]>,
    /// Ψ1, Ψ2 of every memoised table resampled on the log-spaced τ grid [`PSI_GRID_LO`, `PSI_GRID_HI`]
    /// ([`PSI_GRID_N`] points, stored as f32): block `i·2·PSI_GRID_N` holds Ψ1 then Ψ2 of table `i`.
    pub(super) res: Vec<f32>,
    /// ln ν_lo and ln(ν_hi/ν_lo) of the ν axis.
    ln_nu_lo: f64,
    ln_nu_span: f64,
    /// τ of the resampling grid points ([`psi_grid_tau`]).
    taus: Vec<f64>,
    /// Work buffers of [`absorption_corrections_lattice`] (kept to avoid allocating per call).
    pub(super) scratch: LatticeScratch,
    /// Number of tables built so far.
    pub built: usize,
    /// `n0_rung(n0)` by n0 (0 = not computed yet), for n0 < [`RUNG_MEMO`].
    rungs: Vec<u32>,
    /// The grid terms the tables share ([`AliveTable::new_with`]).
    grid_memo: GridMemo,
}

/// n0 below which [`TableLattice::rung_of`] memoises [`TableLattice::n0_rung`].
const RUNG_MEMO: u32 = 1 << 14;

/// Work buffers of [`absorption_corrections_lattice`].
#[derive(Default)]
pub(super) struct LatticeScratch {
    pub(super) g1: Vec<f64>,
    pub(super) g2: Vec<f64>,
    pub(super) combos: Vec<(usize, f64, f64, f64)>,
    pub(super) pairs: Vec<(f64, f64, f64, f64, f64, f64)>,
    /// Per positive lead time: L(κ') (computed in batches).
    pub(super) lf: Vec<f64>,
    /// Per lead time: L(κ'), or `None` for t ≤ 0.
    pub(super) lead: Vec<Option<f64>>,
    /// Per (lead time, τ node): where G is read (see [`absorption_corrections_lattice_into`]).
    pub(super) look: Vec<(u32, f64)>,
}

/// [`LatticeScratch::look`] kind: τ ≤ [`PSI_GRID_LO`], the value is τ / PSI_GRID_LO.
pub(super) const LOOK_LOW: u32 = u32::MAX - 1;
/// [`LatticeScratch::look`] kind: τ ≥ [`PSI_GRID_HI`], the value is τ.
pub(super) const LOOK_HIGH: u32 = u32::MAX;

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
            rungs: Vec::new(),
            grid_memo: GridMemo::default(),
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
    /// [`TableLattice::n0_rung`], memoised for n0 < 16,384 (the same values; it costs two logarithms and a
    /// power per call, once per curve refresh).
    pub fn rung_of(&mut self, n0: u32) -> u32 {
        if n0 >= RUNG_MEMO {
            return Self::n0_rung(n0);
        }
        let i = n0 as usize;
        if i >= self.rungs.len() {
            self.rungs.resize(i + 1, 0);
        }
        if self.rungs[i] == 0 {
            self.rungs[i] = Self::n0_rung(n0);
        }
        self.rungs[i]
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
    pub(super) fn prepare_rung(
        &mut self,
        n: u32,
        nu: f64,
        sigma: f64,
        alive: AliveMode,
        full: bool,
    ) -> usize {
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
                        let t = AliveTable::new_with(
                            n,
                            Self::nu_value(i0 + di),
                            Self::sig_value(k0 + dk),
                            alive,
                            &mut self.grid_memo,
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
                            self.arena[ix] = AliveTable::new_with(
                                n,
                                Self::nu_value(i0 + di),
                                Self::sig_value(k0 + dk),
                                alive,
                                &mut self.grid_memo,
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
    /// ln of the nodes, by the same key.
    ln: FxHashMap<(usize, u64), Vec<f64>>,
}

impl NodeCache {
    /// Nodes/weights for Γ(shape, 1) with n points (memoised).
    pub fn get(&mut self, n: usize, shape: f64) -> &(Vec<f64>, Vec<f64>) {
        self.map
            .entry((n, shape.to_bits()))
            .or_insert_with(|| gauss_laguerre_gamma(n, shape))
    }

    /// Nodes/weights already memoised by [`NodeCache::get`]; panics otherwise.
    pub(super) fn peek(&self, n: usize, shape: f64) -> &(Vec<f64>, Vec<f64>) {
        &self.map[&(n, shape.to_bits())]
    }

    /// Memoises `ln x_i` of the nodes of [`NodeCache::get`] (n, shape) (computed then if needed).
    pub(super) fn ln_nodes(&mut self, n: usize, shape: f64) {
        let key = (n, shape.to_bits());
        if !self.ln.contains_key(&key) {
            let ln = self.get(n, shape).0.iter().map(|&x| libm::log(x)).collect();
            self.ln.insert(key, ln);
        }
    }

    /// The logarithms memoised by [`NodeCache::ln_nodes`]; panics otherwise.
    pub(super) fn peek_ln(&self, n: usize, shape: f64) -> &[f64] {
        &self.ln[&(n, shape.to_bits())]
    }
}

/// Number of points of the log-spaced τ grid (dimensionless lead time λt) on which lattice tables are
/// resampled for the fast absorption corrections ([`absorption_corrections_lattice`]).
pub const PSI_GRID_N: usize = 160;
/// Smallest τ of the resampling grid (below it Ψ is interpolated linearly from Ψ(0) = 0).
pub const PSI_GRID_LO: f64 = 1e-3;
/// Largest τ of the resampling grid (beyond it the table's own tail formula is used).
pub const PSI_GRID_HI: f64 = 2e3;

pub(super) fn psi_grid_step() -> f64 {
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
