//! A small multilayer perceptron with Adam, written out by hand for C2MARL's Q-networks (seed 001 §5.3,
//! ALGORITHMS.md §3.3, §3.7: "MLP with 2 hidden layers of 64 units, ReLU").
//!
//! Why not an ML crate: training must give **bit-identical weights natively and in wasm32** (the report of a
//! run depends only on its scenario and seed, ARCHITECTURE.md "The experiment contract"), and the wasm
//! module must stay small. So every training computation here uses only `+ − × ÷` and `sqrt`, which IEEE 754
//! rounds correctly on every target, plus comparisons; no `exp`/`ln`/`tanh`/`powf` (std's transcendental
//! functions may differ between the native libm and the wasm one), no fused multiply-add (Rust never
//! contracts `a*b + c` by itself), and sums in a fixed order. Adam's bias corrections `β^t` are kept as
//! running products. The compiler may still vectorise the loops: lane-wise vector arithmetic gives the same
//! bits as the scalar loop, and the only reduction (`dot`) fixes its own eight-lane order.
//!
//! Precision: the engine trains in `f32` ([`Mlp`]'s default). The network code is generic over [`Real`] so
//! that the gradient check runs the very same code in `f64` (tests) and the two can be compared. Measured
//! natively (x86-64 SSE2, release, `cargo bench --bench oversub`, network `[31, 64, 64, 6]`, batch 10, one
//! forward and one backward pass): f32 24–28 µs, f64 28–34 µs, i.e. f32 only 1.0–1.4× faster, since these small layers are
//! bound by loads and loop overhead more than by vector lanes. f32 still wins on memory: the replay memory
//! and the policy file (~0.9 MB for 12 agents) are half the size, and the environment's observations are
//! `f32` already ([`super::c2marl::MarlEnv`]). Its ~1e-7 relative accuracy is far beyond what TD learning
//! needs.
//!
//! Layout: a network of layer sizes `[n_0, …, n_L]` keeps all parameters in one flat vector, layer after
//! layer: first the weights of layer `l` as an `n_l × n_{l+1}` matrix, **input-major** (row `i` = the
//! weights from input `i` to every output, so `W[i·n_{l+1} + j]`), then its `n_{l+1}` biases. The forward
//! pass is then a sum of rows scaled by the inputs, which vectorises without reordering any sum
//! (`accumulate`).
//! Hidden layers use ReLU, the output layer is linear.

use rand::RngExt;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

/// Most parameters one network may have (file and memory limit of [`Mlp`] files).
pub const MAX_PARAMS: usize = 1_000_000;
/// Most layers (including the input and the output layer) of one network.
pub const MAX_LAYERS: usize = 16;

/// The floating-point types a network computes in: `f32` (the engine) or `f64` (the gradient check).
/// Only the correctly rounded operations are offered.
pub trait Real:
    Copy
    + Default
    + PartialOrd
    + fmt::Debug
    + fmt::Display
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + Serialize
    + DeserializeOwned
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// The value nearest to `x` (exact for `f64`; correctly rounded for `f32`).
    fn from_f64(x: f64) -> Self;
    /// The value as `f64` (exact).
    fn to_f64(self) -> f64;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
}

/// ReLU written as a comparison: `x` if `x > 0`, else `+0` (also for NaN and `−0`), the same bits on every
/// target (`f32::max` leaves the sign of a zero result unspecified).
#[inline]
fn relu<F: Real>(x: F) -> F {
    if x > F::ZERO {
        x
    } else {
        F::ZERO
    }
}

/// Columns per block of [`accumulate`]: 16 accumulators (4 SSE or 2 AVX registers for `f32`) in flight.
const BLOCK: usize = 16;

/// `out[j] ← out[j] + Σ_t a_t·rows[o_t + j]` for every column `j`, the terms `(o_t, a_t)` added **in their
/// order**, one after the other: the same sums as `for (o, a) in terms { out += a·rows[o..] }`, but with
/// blocks of [`BLOCK`] columns kept in registers across the terms (vectorisable, no reordering). The last
/// `n mod BLOCK` columns (all of them in the 6-wide output layer) are a shorter block of the same form, so
/// each term reads a contiguous piece of its row.
#[inline]
fn accumulate<F: Real>(out: &mut [F], terms: &[(usize, F)], rows: &[F]) {
    let n = out.len();
    let mut blocks = out.chunks_exact_mut(BLOCK);
    for (blk, y) in (&mut blocks).enumerate() {
        let j = blk * BLOCK;
        let mut acc = [F::ZERO; BLOCK];
        acc.copy_from_slice(y);
        for &(o, a) in terms {
            let r: &[F; BLOCK] = rows[o + j..o + j + BLOCK].try_into().unwrap();
            for k in 0..BLOCK {
                acc[k] += a * r[k];
            }
        }
        y.copy_from_slice(&acc);
    }
    let y = blocks.into_remainder();
    let (j, w) = (n - n % BLOCK, y.len());
    if w > 0 {
        let mut acc = [F::ZERO; BLOCK];
        let acc = &mut acc[..w];
        acc.copy_from_slice(y);
        for &(o, a) in terms {
            for (v, &r) in acc.iter_mut().zip(&rows[o + j..o + j + w]) {
                *v += a * r;
            }
        }
        y.copy_from_slice(acc);
    }
}

/// `Σ_k a_k·b_k` in a fixed order: eight interleaved partial sums (lane `k mod 8`), combined pairwise, then
/// the tail. The order is part of the definition, so the result is the same on every target.
#[inline]
fn dot<F: Real>(a: &[F], b: &[F]) -> F {
    let mut acc = [F::ZERO; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (&x, &y) in ta.iter().zip(tb) {
        s += x * y;
    }
    s
}

/// Puts the terms `term(k)`, `k = 0..n`, whose factor is not 0 at the front of `terms`, in order, and returns
/// how many there are. Branch-free (every term is written, the count advances only for non-zeros): ReLU
/// zeros are unpredictable, and a branch per term cost more than the terms it saved.
#[inline]
fn nonzero_terms<F: Real>(
    terms: &mut Vec<(usize, F)>,
    n: usize,
    term: impl Fn(usize) -> (usize, F),
) -> usize {
    if terms.len() < n {
        terms.resize(n, (0, F::ZERO));
    }
    let mut m = 0;
    for k in 0..n {
        let t = term(k);
        terms[m] = t;
        m += usize::from(t.1 != F::ZERO);
    }
    m
}

/// Number of parameters of a network with layer sizes `sizes`, or `None` on overflow.
pub fn param_count(sizes: &[usize]) -> Option<usize> {
    sizes.windows(2).try_fold(0usize, |acc, w| {
        w[0].checked_add(1)?.checked_mul(w[1])?.checked_add(acc)
    })
}

/// Checks layer sizes: at least an input and an output layer, at most [`MAX_LAYERS`], every width ≥ 1, at
/// most [`MAX_PARAMS`] parameters. Returns the parameter count.
pub fn check_sizes(sizes: &[usize]) -> Result<usize, String> {
    if sizes.len() < 2 || sizes.len() > MAX_LAYERS {
        return Err(format!(
            "a network needs 2 to {MAX_LAYERS} layer sizes (input, hidden…, output), got {}",
            sizes.len()
        ));
    }
    if let Some(k) = sizes.iter().position(|&n| n == 0) {
        return Err(format!("layer {k} has width 0"));
    }
    match param_count(sizes) {
        Some(n) if n <= MAX_PARAMS => Ok(n),
        _ => Err(format!(
            "layer sizes {sizes:?} give more than {MAX_PARAMS} parameters"
        )),
    }
}

/// A fully connected network: ReLU hidden layers, a linear output layer, parameters in one flat vector (layout
/// in the module documentation), and a gradient accumulator of the same length.
///
/// Serialized as `{"sizes": [...], "params": [...]}` (the gradient is not saved); loading validates the
/// sizes, the length of `params` and that every parameter is finite, and fails with a message (never a
/// panic). With `serde_json`'s `float_roundtrip` feature (the engine's), `f32` parameters read back bit for
/// bit from the text this writes, and also from text written after widening them to `f64` (e.g. through a
/// JS object and `JSON.stringify`): that decimal is so close to the `f32` value that it rounds back to it.
#[derive(Clone, Debug)]
pub struct Mlp<F: Real = f32> {
    sizes: Vec<usize>,
    params: Vec<F>,
    grad: Vec<F>,
}

/// Activations and back-propagated errors of one (batched) pass: what [`Mlp::backward_batch`] needs from the
/// [`Mlp::forward_batch`] before it. Made by [`Mlp::scratch`]; grows on demand, so passes allocate nothing
/// once it is large enough.
#[derive(Clone, Debug, Default)]
pub struct Scratch<F: Real = f32> {
    /// `acts[l]`: batch × n_l activations of layer `l` (`acts[0]` = the inputs, the last = the outputs).
    acts: Vec<Vec<F>>,
    /// Two batch × max-width buffers of errors dLoss/d(pre-activation), used in turn.
    delta: [Vec<F>; 2],
    /// Rows of the last forward pass.
    batch: usize,
    /// The non-zero terms `(row offset, factor)` of one [`accumulate`].
    terms: Vec<(usize, F)>,
}

impl<F: Real> Mlp<F> {
    /// A network with layer sizes `sizes` (e.g. `[31, 64, 64, 6]`), its weights drawn from `rng`: He-uniform
    /// `U(±√(6/n_in))` for layers followed by ReLU, Xavier-uniform `U(±√(6/(n_in + n_out)))` for the linear
    /// output layer; biases 0. Draw order: layer by layer, weights in storage order (one `f64` each).
    /// Errors: invalid sizes ([`check_sizes`]).
    pub fn new<R: rand::Rng>(sizes: &[usize], rng: &mut R) -> Result<Self, String> {
        let n = check_sizes(sizes)?;
        let mut params = Vec::with_capacity(n);
        let last = sizes.len() - 2;
        for (l, w) in sizes.windows(2).enumerate() {
            let (n_in, n_out) = (w[0], w[1]);
            let bound = if l < last {
                (6.0 / n_in as f64).sqrt()
            } else {
                (6.0 / (n_in + n_out) as f64).sqrt()
            };
            for _ in 0..n_in * n_out {
                let u: f64 = rng.random();
                params.push(F::from_f64((2.0 * u - 1.0) * bound));
            }
            params.extend(std::iter::repeat_n(F::ZERO, n_out));
        }
        Ok(Mlp {
            sizes: sizes.to_vec(),
            grad: vec![F::ZERO; n],
            params,
        })
    }

    /// A network from its layer sizes and flat parameters (layout in the module documentation). Errors: bad
    /// sizes, a `params` length that does not match them, a non-finite parameter (named by index).
    pub fn from_parts(sizes: Vec<usize>, params: Vec<F>) -> Result<Self, String> {
        let n = check_sizes(&sizes).map_err(|e| format!("sizes: {e}"))?;
        if params.len() != n {
            return Err(format!(
                "params: layer sizes {sizes:?} need {n} parameters, got {}",
                params.len()
            ));
        }
        if let Some(k) = params.iter().position(|p| !p.is_finite()) {
            return Err(format!("params[{k}]: not finite ({})", params[k]));
        }
        Ok(Mlp {
            sizes,
            grad: vec![F::ZERO; n],
            params,
        })
    }

    /// Layer sizes `[n_0 (inputs), …, n_L (outputs)]`.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Input width `n_0`.
    pub fn n_inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Output width `n_L`.
    pub fn n_outputs(&self) -> usize {
        self.sizes[self.sizes.len() - 1]
    }

    /// The flat parameters.
    pub fn params(&self) -> &[F] {
        &self.params
    }

    /// The flat parameters, writable (e.g. a finite-difference check). Keep them finite.
    pub fn params_mut(&mut self) -> &mut [F] {
        &mut self.params
    }

    /// The accumulated gradient dLoss/dparams, same layout as [`Mlp::params`].
    pub fn grad(&self) -> &[F] {
        &self.grad
    }

    /// Sets the accumulated gradient to 0.
    pub fn zero_grad(&mut self) {
        self.grad.fill(F::ZERO);
    }

    /// A scratch space for passes of up to `batch` inputs (it grows if a larger batch comes).
    pub fn scratch(&self, batch: usize) -> Scratch<F> {
        let mut s = Scratch::default();
        s.ensure(&self.sizes, batch);
        s
    }

    /// The output (`n_L` values) for one input (`n_0` values). Panics if `input.len() != n_0`.
    pub fn forward<'s>(&self, input: &[F], s: &'s mut Scratch<F>) -> &'s [F] {
        self.forward_batch(input, 1, s)
    }

    /// The outputs (`batch × n_L`, row-major) for `batch` inputs (`inputs`: `batch × n_0`, row-major), keeping
    /// the activations in `s` for [`Mlp::backward_batch`]. Panics if `inputs.len() != batch·n_0`.
    pub fn forward_batch<'s>(&self, inputs: &[F], batch: usize, s: &'s mut Scratch<F>) -> &'s [F] {
        assert_eq!(
            inputs.len(),
            batch * self.sizes[0],
            "Mlp::forward_batch: {} inputs for a batch of {batch} × {}",
            inputs.len(),
            self.sizes[0]
        );
        s.ensure(&self.sizes, batch);
        s.batch = batch;
        s.acts[0][..inputs.len()].copy_from_slice(inputs);
        let n_layers = self.sizes.len() - 1;
        let mut off = 0;
        for l in 0..n_layers {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let w = &self.params[off..off + n_in * n_out];
            let bias = &self.params[off + n_in * n_out..off + (n_in + 1) * n_out];
            off += (n_in + 1) * n_out;
            let (lo, hi) = s.acts.split_at_mut(l + 1);
            let (a_in, a_out) = (&lo[l], &mut hi[0]);
            for b in 0..batch {
                let x = &a_in[b * n_in..(b + 1) * n_in];
                let y = &mut a_out[b * n_out..(b + 1) * n_out];
                y.copy_from_slice(bias);
                // y = bias + Σ_i x_i·W[i, ·], i ascending; exact zeros (ReLU, one-hot inputs) add nothing.
                let m = nonzero_terms(&mut s.terms, n_in, |i| (i * n_out, x[i]));
                accumulate(y, &s.terms[..m], w);
                if l + 1 < n_layers {
                    for v in y.iter_mut() {
                        *v = relu(*v);
                    }
                }
            }
        }
        &s.acts[n_layers][..batch * self.sizes[n_layers]]
    }

    /// Back-propagates `d_out` = dLoss/dOutput (`batch × n_L`, row-major, for the rows of the last
    /// [`Mlp::forward_batch`] on `s`) and **adds** dLoss/dparams to the gradient ([`Mlp::grad`]). Rows are
    /// summed in order, so the gradient of a mean loss needs `d_out` already divided by the batch size.
    /// Panics if `d_out.len()` does not match the last forward pass.
    pub fn backward_batch(&mut self, d_out: &[F], s: &mut Scratch<F>) {
        let batch = s.batch;
        let n_layers = self.sizes.len() - 1;
        assert_eq!(
            d_out.len(),
            batch * self.sizes[n_layers],
            "Mlp::backward_batch: {} output errors for the last forward pass of {batch} × {}",
            d_out.len(),
            self.sizes[n_layers]
        );
        let [d_cur, d_prev] = &mut s.delta;
        d_cur[..d_out.len()].copy_from_slice(d_out);
        let mut off = self.params.len();
        for l in (0..n_layers).rev() {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            off -= (n_in + 1) * n_out;
            let (gw, gb) = self.grad[off..off + (n_in + 1) * n_out].split_at_mut(n_in * n_out);
            let w = &self.params[off..off + n_in * n_out];
            let a_in = &s.acts[l];
            // dW[i, ·] += Σ_b x_{b,i}·d_b, rows b ascending (exact zeros skipped).
            for (i, g) in gw.chunks_exact_mut(n_out).enumerate() {
                let m = nonzero_terms(&mut s.terms, batch, |b| (b * n_out, a_in[b * n_in + i]));
                accumulate(g, &s.terms[..m], d_cur);
            }
            for b in 0..batch {
                let d = &d_cur[b * n_out..(b + 1) * n_out];
                for (g, &v) in gb.iter_mut().zip(d) {
                    *g += v;
                }
                let x = &a_in[b * n_in..(b + 1) * n_in];
                if l > 0 {
                    // dLoss/d(pre-activation of layer l) = (Wᵀ d) ⊙ 1{a_in > 0}.
                    let dp = &mut d_prev[b * n_in..(b + 1) * n_in];
                    for (i, (p, &xi)) in dp.iter_mut().zip(x).enumerate() {
                        *p = if xi > F::ZERO {
                            dot(&w[i * n_out..(i + 1) * n_out], d)
                        } else {
                            F::ZERO
                        };
                    }
                }
            }
            std::mem::swap(d_cur, d_prev);
        }
    }
}

impl<F: Real> Scratch<F> {
    /// Makes room for `batch` rows of a network with layer sizes `sizes`.
    fn ensure(&mut self, sizes: &[usize], batch: usize) {
        if self.acts.len() != sizes.len() {
            self.acts = vec![Vec::new(); sizes.len()];
        }
        for (a, &n) in self.acts.iter_mut().zip(sizes) {
            if a.len() < batch * n {
                a.resize(batch * n, F::ZERO);
            }
        }
        let widest = sizes.iter().copied().max().unwrap_or(0);
        for d in &mut self.delta {
            if d.len() < batch * widest {
                d.resize(batch * widest, F::ZERO);
            }
        }
    }
}

/// `target ← τ·online + (1 − τ)·target`, parameter by parameter (Polyak averaging, ALGORITHMS.md §3.3; the
/// standard form, not seed 001's printed `(1−τ)θ + τθ̄`). Panics if the two networks' sizes differ.
pub fn polyak<F: Real>(target: &mut Mlp<F>, online: &Mlp<F>, tau: F) {
    assert_eq!(
        target.sizes, online.sizes,
        "polyak: networks of different sizes"
    );
    let keep = F::from_f64(1.0) - tau;
    for (t, &o) in target.params.iter_mut().zip(&online.params) {
        *t = tau * o + keep * *t;
    }
}

/// Gradients smaller than this in magnitude (2⁻⁵⁶ ≈ 1.4e-17) enter Adam as 0, so that `(1 − β2)·g²` stays a
/// normal `f32` (≥ 2⁻¹²²). See [`FLUSH_MOMENT`].
pub const FLUSH_GRAD: f64 = 1.0 / (1u128 << 56) as f64;
/// Adam moments smaller than this in magnitude (2⁻¹⁰⁰ ≈ 7.9e-31) are set to 0. Without it, the moments of a
/// weight whose gradient stays 0 (a dead ReLU unit, an input that is always 0) decay geometrically into the
/// subnormal range, where x86 arithmetic is ~100× slower: 1,800 E1.1 episodes took 522 s on one core, 138 s
/// with the CPU's flush-to-zero mode forced from outside (issue 25/30). Flushing in the engine, with
/// comparisons only, gives the same bits natively and in wasm32 (which has no flush-to-zero mode). Such
/// moments move a weight by at most `lr·2⁻¹⁰⁰/ε`, i.e. not at all in `f32`.
pub const FLUSH_MOMENT: f64 = 1.0 / (1u128 << 100) as f64;

/// Adam (Kingma & Ba 2015) for one network: its first and second moment buffers and the step count.
/// Hyperparameters are `f64`; the update runs in the network's type:
/// `m ← β1·m + (1−β1)·g`, `v ← β2·v + (1−β2)·g²`, `p ← p − lr·(m/(1−β1^t)) / (√(v/(1−β2^t)) + ε)`,
/// with `β^t` a running product (no `powi`).
#[derive(Clone, Debug)]
pub struct Adam<F: Real = f32> {
    /// Learning rate.
    pub lr: f64,
    /// First-moment decay β1 (0.9).
    pub beta1: f64,
    /// Second-moment decay β2 (0.999).
    pub beta2: f64,
    /// ε (1e-8).
    pub eps: f64,
    t: u64,
    beta1_t: f64,
    beta2_t: f64,
    m: Vec<F>,
    v: Vec<F>,
}

impl<F: Real> Adam<F> {
    /// Adam for `net` with learning rate `lr` and the usual β1 = 0.9, β2 = 0.999, ε = 1e-8.
    pub fn new(net: &Mlp<F>, lr: f64) -> Self {
        Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            t: 0,
            beta1_t: 1.0,
            beta2_t: 1.0,
            m: vec![F::ZERO; net.params.len()],
            v: vec![F::ZERO; net.params.len()],
        }
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// One step on `net` with its accumulated gradient (which it leaves as it is). Panics if `net` is not the
    /// size this optimiser was made for.
    pub fn step(&mut self, net: &mut Mlp<F>) {
        assert_eq!(self.m.len(), net.params.len(), "Adam::step: wrong network");
        self.t += 1;
        self.beta1_t *= self.beta1;
        self.beta2_t *= self.beta2;
        let b1 = F::from_f64(self.beta1);
        let b2 = F::from_f64(self.beta2);
        let ob1 = F::from_f64(1.0 - self.beta1);
        let ob2 = F::from_f64(1.0 - self.beta2);
        let c1 = F::from_f64(1.0 / (1.0 - self.beta1_t));
        let c2 = F::from_f64(1.0 / (1.0 - self.beta2_t));
        let lr = F::from_f64(self.lr);
        let eps = F::from_f64(self.eps);
        let (g_tiny, mv_tiny) = (F::from_f64(FLUSH_GRAD), F::from_f64(FLUSH_MOMENT));
        let flush = |x: F, tiny: F| {
            if x < tiny && x > F::ZERO - tiny {
                F::ZERO
            } else {
                x
            }
        };
        for (((p, &g), m), v) in net
            .params
            .iter_mut()
            .zip(&net.grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            let g = flush(g, g_tiny);
            *m = flush(b1 * *m + ob1 * g, mv_tiny);
            *v = flush(b2 * *v + ob2 * (g * g), mv_tiny);
            let step = lr * (*m * c1) / ((*v * c2).sqrt() + eps);
            *p = *p - step;
        }
    }
}

/// The file form of an [`Mlp`]: what is serialized, and what is validated on load.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlpFile<F> {
    /// Layer sizes.
    pub sizes: Vec<usize>,
    /// Flat parameters.
    pub params: Vec<F>,
}

#[derive(Serialize)]
struct MlpRef<'a, F> {
    sizes: &'a [usize],
    params: &'a [F],
}

impl<F: Real> Serialize for Mlp<F> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        MlpRef {
            sizes: &self.sizes,
            params: &self.params,
        }
        .serialize(ser)
    }
}

impl<'de, F: Real> Deserialize<'de> for Mlp<F> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let f = MlpFile::<F>::deserialize(de)?;
        Mlp::from_parts(f.sizes, f.params).map_err(D::Error::custom)
    }
}

/// Bitwise equality of sizes and parameters (the gradient is ignored).
impl<F: Real> PartialEq for Mlp<F> {
    fn eq(&self, other: &Self) -> bool {
        self.sizes == other.sizes
            && self.params.len() == other.params.len()
            && self
                .params
                .iter()
                .zip(&other.params)
                .all(|(a, b)| a.to_f64().to_bits() == b.to_f64().to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::substrate::rng::stream;

    /// Squared error on output `k` of one input: `L = ½·(y_k − t)²` (so dL/dy_k = y_k − t).
    fn loss<F: Real>(net: &Mlp<F>, x: &[F], k: usize, t: f64, s: &mut Scratch<F>) -> f64 {
        let y = net.forward(x, s)[k].to_f64();
        0.5 * (y - t) * (y - t)
    }

    fn random_inputs(seed: u64, n: usize, len: usize) -> Vec<Vec<f64>> {
        let mut r = stream(seed, 99, 0);
        (0..n)
            .map(|_| (0..len).map(|_| r.random::<f64>() * 4.0 - 2.0).collect())
            .collect()
    }

    /// Every parameter's analytic gradient (summed over several inputs through one batched backward pass,
    /// with dLoss/dOutput multiplied by `corrupt`, 1 for the true gradient) against central finite
    /// differences, in f64. Returns the largest relative error.
    fn grad_check_error(
        net: &mut Mlp<f64>,
        inputs: &[Vec<f64>],
        k: usize,
        target: f64,
        corrupt: f64,
    ) -> f64 {
        let n_out = net.n_outputs();
        let batch = inputs.len();
        let mut s = net.scratch(batch);
        let flat: Vec<f64> = inputs.concat();
        let out = net.forward_batch(&flat, batch, &mut s).to_vec();
        let mut d_out = vec![0.0; batch * n_out];
        for b in 0..batch {
            d_out[b * n_out + k] = (out[b * n_out + k] - target) * corrupt;
        }
        net.zero_grad();
        net.backward_batch(&d_out, &mut s);
        let analytic = net.grad().to_vec();
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        let mut s1 = net.scratch(1);
        for (p, &a) in analytic.iter().enumerate() {
            let orig = net.params()[p];
            let total = |net: &Mlp<f64>, s1: &mut Scratch<f64>| -> f64 {
                inputs.iter().map(|x| loss(net, x, k, target, s1)).sum()
            };
            net.params_mut()[p] = orig + h;
            let up = total(net, &mut s1);
            net.params_mut()[p] = orig - h;
            let down = total(net, &mut s1);
            net.params_mut()[p] = orig;
            let numeric = (up - down) / (2.0 * h);
            // Relative error, with an absolute floor for the finite difference's rounding (~1e-10 here).
            let err = (numeric - a).abs() / (1e-4 + numeric.abs().max(a.abs()));
            worst = worst.max(err);
        }
        worst
    }

    fn perturbed_net(seed: u64) -> Mlp<f64> {
        let mut net = Mlp::<f64>::new(&[5, 7, 6, 3], &mut stream(seed, 1, 0)).unwrap();
        // Non-zero biases so that ReLU kinks are not all at the same place.
        let mut r = stream(seed, 2, 0);
        for p in net.params_mut() {
            *p += (r.random::<f64>() - 0.5) * 0.2;
        }
        net
    }

    #[test]
    fn gradient_matches_central_differences_for_every_parameter() {
        for seed in 0..3 {
            let mut net = perturbed_net(seed);
            let inputs = random_inputs(seed, 4, 5);
            for k in 0..3 {
                let err = grad_check_error(&mut net, &inputs, k, 0.3, 1.0);
                assert!(err < 1e-5, "seed {seed} output {k}: relative error {err}");
            }
        }
    }

    #[test]
    fn gradient_check_detects_a_wrong_gradient() {
        // The check must be able to fail: a gradient of the wrong sign, or 0.1% too large.
        let mut net = perturbed_net(7);
        let inputs = random_inputs(7, 3, 5);
        assert!(grad_check_error(&mut net, &inputs, 1, 0.3, -1.0) > 0.5);
        assert!(grad_check_error(&mut net, &inputs, 1, 0.3, 1.001) > 1e-4);
    }

    #[test]
    fn f32_gradient_agrees_with_f64() {
        // The f32 network (same parameters rounded) gives the f64 gradient to f32 accuracy.
        let net64 = Mlp::<f64>::new(&[5, 7, 6, 3], &mut stream(3, 1, 0)).unwrap();
        let mut net32 = Mlp::<f32>::from_parts(
            net64.sizes().to_vec(),
            net64.params().iter().map(|&p| p as f32).collect(),
        )
        .unwrap();
        let mut net64 = Mlp::<f64>::from_parts(
            net64.sizes().to_vec(),
            net32.params().iter().map(|&p| p as f64).collect(),
        )
        .unwrap();
        let inputs = random_inputs(3, 4, 5);
        let x64: Vec<f64> = inputs.concat();
        let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        let x64: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        let (mut s32, mut s64) = (net32.scratch(4), net64.scratch(4));
        let y32 = net32.forward_batch(&x32, 4, &mut s32).to_vec();
        let y64 = net64.forward_batch(&x64, 4, &mut s64).to_vec();
        for (a, b) in y32.iter().zip(&y64) {
            assert!((*a as f64 - b).abs() < 1e-5 * (1.0 + b.abs()));
        }
        let d32: Vec<f32> = y32.iter().map(|v| v - 0.3).collect();
        let d64: Vec<f64> = y64.iter().map(|v| v - 0.3).collect();
        net32.backward_batch(&d32, &mut s32);
        net64.backward_batch(&d64, &mut s64);
        for (a, b) in net32.grad().iter().zip(net64.grad()) {
            assert!((*a as f64 - b).abs() < 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn forward_matches_a_hand_computed_network() {
        // [2, 2, 1]: hidden = relu(W1ᵀx + b1), out = W2ᵀh + b2, input-major weights.
        // W1 rows (from x0: [1, -1], from x1: [2, 0.5]), b1 = [0.5, -3]; W2 = [[3], [-2]], b2 = [0.25].
        let net = Mlp::<f64>::from_parts(
            vec![2, 2, 1],
            vec![1.0, -1.0, 2.0, 0.5, 0.5, -3.0, 3.0, -2.0, 0.25],
        )
        .unwrap();
        let mut s = net.scratch(1);
        // x = [1, 2]: z = [1 + 4 + 0.5, -1 + 1 - 3] = [5.5, -3] → h = [5.5, 0] → out = 16.5 + 0.25.
        assert_eq!(net.forward(&[1.0, 2.0], &mut s), &[16.75]);
        // x = [-1, 1]: z = [-1 + 2 + 0.5, 1 + 0.5 - 3] = [1.5, -1.5] → out = 4.5 + 0.25.
        assert_eq!(net.forward(&[-1.0, 1.0], &mut s), &[4.75]);
    }

    #[test]
    fn init_bounds_and_zero_biases() {
        let net = Mlp::<f32>::new(&[31, 64, 64, 6], &mut stream(1, 1, 0)).unwrap();
        assert_eq!(net.params().len(), 32 * 64 + 65 * 64 + 65 * 6);
        let he = (6.0f64 / 31.0).sqrt() as f32;
        assert!(net.params()[..31 * 64].iter().all(|w| w.abs() <= he));
        assert!(net.params()[31 * 64..32 * 64].iter().all(|&b| b == 0.0));
        let xavier = (6.0f64 / 70.0).sqrt() as f32;
        let out = &net.params()[32 * 64 + 65 * 64..];
        assert!(out[..64 * 6].iter().all(|w| w.abs() <= xavier));
        assert!(out[..64 * 6].iter().any(|w| w.abs() > 0.8 * xavier));
        let again = Mlp::<f32>::new(&[31, 64, 64, 6], &mut stream(1, 1, 0)).unwrap();
        assert_eq!(net, again);
    }

    #[test]
    fn adam_converges_on_a_convex_quadratic() {
        // L(p) = ½ Σ_k c_k (p_k − t_k)² with one bias-only "network" [1, 1] (weight, bias).
        let mut net = Mlp::<f32>::from_parts(vec![1, 1], vec![5.0, -4.0]).unwrap();
        let (t, c) = ([1.5f32, -0.5f32], [1.0f32, 10.0f32]);
        let mut adam = Adam::new(&net, 0.05);
        for _ in 0..2000 {
            net.zero_grad();
            let p = net.params().to_vec();
            net.grad[0] = c[0] * (p[0] - t[0]);
            net.grad[1] = c[1] * (p[1] - t[1]);
            adam.step(&mut net);
        }
        assert_eq!(adam.steps(), 2000);
        assert!((net.params()[0] - 1.5).abs() < 1e-3, "{:?}", net.params());
        assert!((net.params()[1] + 0.5).abs() < 1e-3, "{:?}", net.params());
    }

    #[test]
    fn adam_first_step_is_lr_times_sign() {
        // After one step m̂ = g and v̂ = g², so the step is lr·g/(|g| + ε) ≈ lr·sign(g).
        let mut net = Mlp::<f64>::from_parts(vec![1, 1], vec![1.0, 1.0]).unwrap();
        net.grad[0] = 4.0;
        net.grad[1] = -0.5;
        let mut adam = Adam::new(&net, 0.1);
        adam.step(&mut net);
        assert!((net.params()[0] - 0.9).abs() < 1e-7);
        assert!((net.params()[1] - 1.1).abs() < 1e-7);
    }

    #[test]
    fn adam_trains_a_network_to_fit_a_function() {
        // y = |x0| − x1 on [-1, 1]²: a ReLU network fits it; the mean squared error must fall 100-fold.
        let mut net = Mlp::<f32>::new(&[2, 16, 1], &mut stream(4, 1, 0)).unwrap();
        let mut adam = Adam::new(&net, 0.01);
        let mut r = stream(4, 2, 0);
        let mut s = net.scratch(16);
        let mse = |net: &Mlp<f32>| -> f64 {
            let mut s = net.scratch(1);
            let mut tot = 0.0;
            for a in 0..11 {
                for b in 0..11 {
                    let x = [a as f32 / 5.0 - 1.0, b as f32 / 5.0 - 1.0];
                    let y = net.forward(&x, &mut s)[0] as f64;
                    let t = (x[0].abs() - x[1]) as f64;
                    tot += (y - t) * (y - t);
                }
            }
            tot / 121.0
        };
        let before = mse(&net);
        for _ in 0..1500 {
            let xs: Vec<f32> = (0..32).map(|_| r.random::<f32>() * 2.0 - 1.0).collect();
            let y = net.forward_batch(&xs, 16, &mut s).to_vec();
            let d: Vec<f32> = (0..16)
                .map(|b| 2.0 * (y[b] - (xs[2 * b].abs() - xs[2 * b + 1])) / 16.0)
                .collect();
            net.zero_grad();
            net.backward_batch(&d, &mut s);
            adam.step(&mut net);
        }
        let after = mse(&net);
        assert!(after < before / 100.0, "mse {before} → {after}");
    }

    #[test]
    fn polyak_by_hand() {
        let online = Mlp::<f64>::from_parts(vec![1, 1], vec![2.0, -4.0]).unwrap();
        let mut target = Mlp::<f64>::from_parts(vec![1, 1], vec![1.0, 1.0]).unwrap();
        polyak(&mut target, &online, 0.25);
        // 0.25·2 + 0.75·1 = 1.25; 0.25·(−4) + 0.75·1 = −0.25.
        assert_eq!(target.params(), &[1.25, -0.25]);
        polyak(&mut target, &online, 0.5);
        // 0.5·2 + 0.5·1.25 = 1.625; 0.5·(−4) + 0.5·(−0.25) = −2.125.
        assert_eq!(target.params(), &[1.625, -2.125]);
    }

    #[test]
    fn serde_round_trip_is_bit_exact() {
        let mut net = Mlp::<f32>::new(&[31, 64, 64, 6], &mut stream(5, 1, 0)).unwrap();
        // Add awkward values: tiny, huge, subnormal, negative zero.
        let p = net.params_mut();
        p[0] = 1e-38;
        p[1] = 3.4e38;
        p[2] = 1e-45;
        p[3] = -0.0;
        p[4] = 0.1;
        let json = serde_json::to_string(&net).unwrap();
        let back: Mlp<f32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.sizes(), net.sizes());
        for (a, b) in back.params().iter().zip(net.params()) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        // Widened to f64 on the way (a JS object and JSON.stringify): still bit for bit.
        let wide = MlpFile {
            sizes: net.sizes().to_vec(),
            params: net.params().iter().map(|&p| p as f64).collect(),
        };
        let back: Mlp<f32> = serde_json::from_str(&serde_json::to_string(&wide).unwrap()).unwrap();
        assert_eq!(back, net);
        let net64 = Mlp::<f64>::new(&[3, 4, 2], &mut stream(5, 1, 1)).unwrap();
        let back64: Mlp<f64> =
            serde_json::from_str(&serde_json::to_string(&net64).unwrap()).unwrap();
        assert_eq!(back64, net64);
    }

    #[test]
    fn corrupt_files_are_refused_with_messages() {
        let cases: [(&str, &str); 9] = [
            (
                r#"{"sizes": [2, 1], "params": [1, 2]}"#,
                "need 3 parameters, got 2",
            ),
            (r#"{"sizes": [2], "params": []}"#, "2 to 16 layer sizes"),
            (
                r#"{"sizes": [2, 0, 1], "params": []}"#,
                "layer 1 has width 0",
            ),
            (
                r#"{"sizes": [1000, 1001, 1], "params": []}"#,
                "more than 1000000 parameters",
            ),
            (
                r#"{"sizes": [18446744073709551615, 2], "params": []}"#,
                "more than 1000000 parameters",
            ),
            (r#"{"sizes": [2, 1], "params": [1, 2, 1e39]}"#, ""),
            (r#"{"sizes": [2, 1], "params": [1, 2, NaN]}"#, ""),
            (
                r#"{"sizes": [2, 1], "params": [1, 2, 3], "grad": []}"#,
                "unknown field",
            ),
            (r#"{"sizes": [2, 1], "params": [1, 2"#, "EOF"),
        ];
        for (text, msg) in cases {
            let err = serde_json::from_str::<Mlp<f32>>(text)
                .unwrap_err()
                .to_string();
            assert!(err.contains(msg), "{text}: {err}");
        }
        // A non-finite value that the parser accepts is named by index.
        let err = Mlp::<f32>::from_parts(vec![2, 1], vec![1.0, f32::INFINITY, 0.0]).unwrap_err();
        assert_eq!(err, "params[1]: not finite (inf)");
        let err = Mlp::<f64>::from_parts(vec![2, 1], vec![1.0, 0.0, f64::NAN]).unwrap_err();
        assert_eq!(err, "params[2]: not finite (NaN)");
    }
}
