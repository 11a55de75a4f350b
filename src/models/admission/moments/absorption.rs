//! The absorption corrections `Δ1(t), Δ2(t)` of the posterior moments (ALGORITHMS.md §2.6.3: paths that reach
//! zero cores stay there), evaluated directly or through the lattice's resampled tables, and the closed-form
//! un-absorbed part.

use super::belief::{Belief, MomentConfig};
use super::lattice::{
    psi_grid_step, NodeCache, PsiSource, TableLattice, LOOK_HIGH, LOOK_LOW, PSI_GRID_HI,
    PSI_GRID_LO, PSI_GRID_N,
};
use crate::substrate::special::{exp_slice, log1p_slice};

/// The quadrature shared by both absorption-correction paths ([`absorption_corrections`],
/// [`absorption_corrections_lattice`]) for one belief: Gauss nodes and weights of the lifetime rate's
/// Gamma posterior (scaled later by β_t), and per (ν, σ) node pair its weight product and the scale-out
/// coefficients.
struct AbsorptionQuadrature<'n> {
    /// Nodes and weights of Γ(a_λ, 1).
    xt: &'n [f64],
    wt: &'n [f64],
    /// ln of `xt`.
    ln_xt: &'n [f64],
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
        nodes.ln_nodes(jt, b.lambda.shape);
        let nodes: &'n NodeCache = nodes;
        let (xt, wt) = nodes.peek(jt, b.lambda.shape);
        let ln_xt = nodes.peek_ln(jt, b.lambda.shape);
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
        AbsorptionQuadrature {
            xt,
            wt,
            ln_xt,
            pairs,
        }
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
    let AbsorptionQuadrature {
        xt,
        wt,
        ln_xt: nodes_ln,
        pairs,
    } = AbsorptionQuadrature::new(b, cfg, nodes, std::mem::take(&mut sc.pairs));
    lat.reset_handles();
    let ng = PSI_GRID_N;
    let step = psi_grid_step();
    let ln_lo = libm::log(PSI_GRID_LO);
    let lnx = nodes_ln;
    // Where G will be read: per lead time and τ node, below the grid, above it, or cell i with fraction f.
    // Only the cells read, [lo, hi], are summed below (each G(τ_i) is its own sum, so the values are the
    // same as with the whole grid summed).
    let (lead, look) = (&mut sc.lead, &mut sc.look);
    lead.clear();
    look.clear();
    let (mut lo, mut hi) = (ng, 0usize);
    // L(κ') of every positive lead time in two vectorised batches (bit for bit `lead_factors`'s)
    let lf = &mut sc.lf;
    lf.clear();
    lf.extend(
        times
            .iter()
            .filter(|&&t| t > 0.0)
            .map(|&t| kp * t / b.lambda.rate),
    );
    log1p_slice(lf);
    lf.iter_mut().for_each(|v| *v *= -b.lambda.shape);
    exp_slice(lf);
    let mut lfs = lf.iter();
    for &t in times {
        if t <= 0.0 {
            lead.push(None);
            continue;
        }
        let beta = b.lambda.rate / t + kp;
        let l0 = *lfs.next().expect("one L(κ') per positive lead time");
        lead.push(Some(l0));
        let ln_beta = libm::log(beta);
        for (x, lx) in xt.iter().zip(lnx) {
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
    let rung = lat.rung_of(b.n0.max(1));
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
    let m = b.scale_out_moments();
    let e = m.n0 * l1 + m.nu * m.m1 * (l0 - l1);
    let m2 = m.n0 * l1
        + m.n0 * (m.n0 - 1.0) * l2
        + 2.0 * m.n0 * m.nu * m.m1 * (l1 - l2)
        + m.nu * m.m1 * (l0 - l1)
        + 0.5 * m.nu * m.m2 * (l0 - l2)
        + m.nu2 * m.m1_sq * (l0 - 2.0 * l1 + l2);
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
    let AbsorptionQuadrature { xt, wt, pairs, .. } =
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
