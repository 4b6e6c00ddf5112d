//! Elementary functions in straight-line f32 arithmetic that compiles to vector instructions
//! (the C library's `expf` is a call per element), and a way to compile a loop for the
//! widest vector instructions the CPU has.

/// `exp(x)` to within 2 ulp for `x <= 88`, 0 below -87 (where `exp` is under 1.7e-38):
/// Cephes' `expf` (a range reduction by ln 2 and a degree-7 polynomial) in straight-line
/// arithmetic that the compiler turns into vector instructions, unlike the C library's call.
#[inline(always)]
pub(crate) fn exp_fast(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // 1.5 * 2^23: adding and subtracting it rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let xc = x.clamp(-87.0, 88.0);
    let shifted = xc * LOG2E + ROUND;
    let n = shifted - ROUND;
    // The integer `n` read from the low mantissa bits of `shifted` (whose exponent is that
    // of ROUND): integer arithmetic that vectorizes, where `n as i32` (a saturating
    // conversion) compiles to one scalar conversion per element.
    let n_int = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    let r = (xc - n * 0.693_359_4) - n * -2.121_944_4e-4;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 1.666_666_5e-1)
        * r
        + 0.5;
    let y = (p * r * r + r + 1.0) * f32::from_bits(((n_int + 127) << 23) as u32);
    if x < -87.0 {
        0.0
    } else {
        y
    }
}

/// Folds `xs` into 16 lanes, element `i` into lane `i % 16`: a reduction whose 16 running
/// values sit in vector registers instead of one serial chain of dependent operations.
#[inline(always)]
pub(crate) fn lanes(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> [f32; 16] {
    let mut acc = [init; 16];
    let mut chunks = xs.chunks_exact(16);
    for c in &mut chunks {
        for i in 0..16 {
            acc[i] = f(acc[i], c[i]);
        }
    }
    for (a, &x) in acc.iter_mut().zip(chunks.remainder()) {
        *a = f(*a, x);
    }
    acc
}

/// Runs `body` compiled for AVX-512 or AVX2 where the CPU has them (`body` must be
/// `#[inline(always)]` for its loops to be compiled for those instructions). The arithmetic,
/// and so the result, is the same on every path: only the vector width differs.
macro_rules! widest_simd {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) => $body:path) => {
        $(#[$doc])*
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                unsafe fn avx512($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn avx2($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F.
                    return unsafe { avx512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use widest_simd;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_is_accurate() {
        for i in -9000..=879 {
            let x = i as f32 / 10.0 + 0.037;
            let (got, want) = (exp_fast(x), x.exp());
            assert!((got - want).abs() <= 3e-7 * want + 1e-37, "exp({x}) = {got} vs {want}");
        }
        assert_eq!(exp_fast(-1e9), 0.0);
        assert_eq!(exp_fast(0.0), 1.0);
    }
}
