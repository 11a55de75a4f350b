//! Wider vector lanes where the CPU has them, with the same bits: [`wide_lanes!`](crate::wide_lanes) defines a
//! function whose body is compiled twice on x86-64, for the baseline target (SSE2: 2 f64 lanes) and with AVX2
//! enabled (4 f64 lanes), and picks the AVX2 copy at run time when the CPU reports it
//! (`is_x86_feature_detected!`, cached by std after the first call). Other targets (wasm32 with SIMD128,
//! aarch64) compile the body once.
//!
//! Why the values are the same: both copies run the same IEEE-754 operations (add, mul, div, sqrt,
//! conversions, comparisons, selects) in the same order on each element; only the number of elements per
//! instruction differs. FMA is not enabled (a fused multiply-add rounds once instead of twice), and Rust never
//! contracts `a * b + c` on its own. Tests: `wide_and_baseline_copies_agree` (here) and the callers' tests
//! against libm and the scalar forms.

/// Defines `fn NAME(ARGS) -> RET { BODY }` (plain arguments `name: Type`, no generics, no `self`) whose
/// body runs in an AVX2 copy on x86-64 CPUs that have AVX2 and in the baseline copy otherwise; see the
/// [module documentation](crate::substrate::lanes).
#[macro_export]
macro_rules! wide_lanes {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn wide($($arg: $ty),*) $(-> $ret)? {
                    $body
                }
                if $crate::substrate::lanes::wide_allowed() && ::std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    return unsafe { wide($($arg),*) };
                }
            }
            $body
        }
    };
}

#[cfg(test)]
thread_local! {
    static BASELINE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// False inside [`baseline`] (tests only); true otherwise.
#[doc(hidden)]
#[inline(always)]
pub fn wide_allowed() -> bool {
    #[cfg(test)]
    if BASELINE_ONLY.with(|b| b.get()) {
        return false;
    }
    true
}

/// Runs `f` with every [`crate::wide_lanes`] function of this thread in its baseline copy (tests: the two
/// copies give the same bits).
#[cfg(test)]
pub fn baseline<R>(f: impl FnOnce() -> R) -> R {
    BASELINE_ONLY.with(|b| b.set(true));
    let r = f();
    BASELINE_ONLY.with(|b| b.set(false));
    r
}

#[cfg(test)]
mod tests {
    /// √|a·x + y| / (1 + x²) over slices, into y (the kind of loop the callers have).
    #[inline(always)]
    fn kernel(a: f64, x: &[f64], y: &mut [f64]) {
        for (y, &x) in y.iter_mut().zip(x) {
            *y = (a * x + *y).abs().sqrt() / (1.0 + x * x);
        }
    }

    crate::wide_lanes! {
        fn wide(a: f64, x: &[f64], y: &mut [f64]) {
            kernel(a, x, y)
        }
    }

    fn plain(a: f64, x: &[f64], y: &mut [f64]) {
        kernel(a, x, y)
    }

    #[test]
    fn wide_and_baseline_copies_agree() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            f64::from_bits((s >> 12) | 0x3ff0_0000_0000_0000) * 3.0 - 4.5
        };
        let x: Vec<f64> = (0..1003).map(|_| next()).collect();
        let y0: Vec<f64> = (0..1003).map(|_| next()).collect();
        let (mut y1, mut y2, mut y3) = (y0.clone(), y0.clone(), y0.clone());
        wide(0.37, &x, &mut y1);
        plain(0.37, &x, &mut y2);
        super::baseline(|| wide(0.37, &x, &mut y3));
        assert!(y1.iter().zip(&y2).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(y3.iter().zip(&y2).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(y1.iter().zip(&y0).any(|(a, b)| a != b));
    }
}
