//! Python numeric semantics needed to reproduce nltk exactly: exact
//! `fractions.Fraction` arithmetic that falls back to floats where Python
//! would, correctly rounded int/int division, and `math.fsum`.

use std::cmp::Ordering;

/// A number as nltk's BLEU code holds it: an exact fraction or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PyNum {
    /// `fractions.Fraction(num, den)`; kept unreduced like nltk's
    /// `_normalize=False` fractions (`den > 0`).
    Frac(i128, i128),
    /// A Python float.
    Float(f64),
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Correctly rounded `num / den` for non-negative integers, as Python's
/// `int / int` true division computes it (round half to even). A zero
/// denominator, where Python raises, gives NaN.
pub fn ratio_to_f64(num: u128, den: u128) -> f64 {
    if den == 0 {
        return f64::NAN;
    }
    if num == 0 {
        return 0.0;
    }
    const EXACT: u128 = 1 << 53;
    if num <= EXACT && den <= EXACT {
        return num as f64 / den as f64;
    }
    // Long division: produce 55 significant bits plus a sticky bit.
    let mut q = num / den;
    let mut r = num % den;
    let mut exp: i32 = 0;
    // Number of significant bits currently in q.
    let bits = |q: u128| 128 - q.leading_zeros() as i32;
    while bits(q) < 55 {
        // r < den, so 2r < 2^128 when den < 2^127.
        let (r2, overflow) = r.overflowing_mul(2);
        q <<= 1;
        if overflow || r2 >= den {
            q |= 1;
            r = r2.wrapping_sub(den);
        } else {
            r = r2;
        }
        exp -= 1;
    }
    // Reduce q to 54 bits (53 + guard) keeping a sticky bit.
    let mut sticky = r != 0;
    while bits(q) > 54 {
        sticky |= q & 1 == 1;
        q >>= 1;
        exp += 1;
    }
    let guard = q & 1 == 1;
    let mut mant = q >> 1;
    exp += 1;
    if guard && (sticky || mant & 1 == 1) {
        mant += 1;
    }
    (mant as f64) * 2f64.powi(exp)
}

impl PyNum {
    /// An integer.
    pub fn int(n: i128) -> Self {
        PyNum::Frac(n, 1)
    }

    /// Python's `float(x)`.
    pub fn to_f64(self) -> f64 {
        match self {
            PyNum::Float(f) => f,
            PyNum::Frac(n, d) => {
                let v = ratio_to_f64(n.unsigned_abs(), d.unsigned_abs());
                if (n < 0) != (d < 0) {
                    -v
                } else {
                    v
                }
            }
        }
    }

    /// The numerator as Python's `.numerator` reports it for nltk fractions.
    pub fn numerator(self) -> i128 {
        match self {
            PyNum::Frac(n, _) => n,
            PyNum::Float(f) => f as i128,
        }
    }

    fn reduced(n: i128, d: i128) -> Self {
        let g = gcd(n, d).max(1);
        let (n, d) = (n / g, d / g);
        if d < 0 {
            PyNum::Frac(-n, -d)
        } else {
            PyNum::Frac(n, d)
        }
    }

    fn frac_op(a: (i128, i128), b: (i128, i128), op: Op) -> Option<Self> {
        let (an, ad) = a;
        let (bn, bd) = b;
        let r = match op {
            Op::Add => {
                let n = an.checked_mul(bd)?.checked_add(bn.checked_mul(ad)?)?;
                (n, ad.checked_mul(bd)?)
            }
            Op::Mul => (an.checked_mul(bn)?, ad.checked_mul(bd)?),
            Op::Div => (an.checked_mul(bd)?, ad.checked_mul(bn)?),
        };
        if r.1 == 0 {
            return None;
        }
        Some(Self::reduced(r.0, r.1))
    }

    fn binop(self, other: PyNum, op: Op) -> PyNum {
        if let (PyNum::Frac(an, ad), PyNum::Frac(bn, bd)) = (self, other) {
            let (g1, g2) = (gcd(an, ad).max(1), gcd(bn, bd).max(1));
            if let Some(r) = Self::frac_op((an / g1, ad / g1), (bn / g2, bd / g2), op) {
                return r;
            }
            // Beyond 128 bits (or a zero divisor): continue in floating point.
        }
        PyNum::Float(float_op(self.to_f64(), other.to_f64(), op))
    }

    /// Python `a + b`.
    pub fn py_add(self, other: PyNum) -> PyNum {
        self.binop(other, Op::Add)
    }

    /// Python `a * b`.
    pub fn py_mul(self, other: PyNum) -> PyNum {
        self.binop(other, Op::Mul)
    }

    /// Python `a / b` (both operands non-zero denominators).
    pub fn py_div(self, other: PyNum) -> PyNum {
        self.binop(other, Op::Div)
    }

    /// Python `x == 0`.
    pub fn is_zero(self) -> bool {
        match self {
            PyNum::Frac(n, _) => n == 0,
            PyNum::Float(f) => f == 0.0,
        }
    }

    /// Python `x > 0`.
    pub fn is_positive(self) -> bool {
        match self {
            PyNum::Frac(n, d) => (n > 0) == (d > 0) && n != 0,
            PyNum::Float(f) => f.partial_cmp(&0.0) == Some(Ordering::Greater),
        }
    }
}

/// The arithmetic operators nltk's smoothing functions use.
#[derive(Debug, Clone, Copy)]
enum Op {
    Add,
    Mul,
    Div,
}

fn float_op(a: f64, b: f64, op: Op) -> f64 {
    match op {
        Op::Add => a + b,
        Op::Mul => a * b,
        Op::Div => a / b,
    }
}

/// Python's `math.fsum` for finite values: the correctly rounded sum.
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// numpy's pairwise summation of float64 (`pairwise_sum_DOUBLE`): blocks of
/// up to 128 values summed with eight accumulators, larger arrays split in
/// halves at multiples of eight.
fn numpy_pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        numpy_pairwise_sum(&a[..n2]) + numpy_pairwise_sum(&a[n2..])
    }
}

/// `numpy.mean` of a contiguous float64 array: `(0.0 + pairwise sum) / n`
/// (NaN for an empty array, as numpy returns).
pub fn numpy_mean(a: &[f64]) -> f64 {
    (0.0 + numpy_pairwise_sum(a)) / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_is_correctly_rounded() {
        assert_eq!(ratio_to_f64(1, 3), 1.0 / 3.0);
        let big = (1u128 << 80) + 1;
        assert_eq!(ratio_to_f64(big, 3), (big as f64) / 3.0);
        assert_eq!(ratio_to_f64(10u128.pow(30), 10u128.pow(29)), 10.0);
        assert_eq!(ratio_to_f64((1u128 << 60) * 7, 1u128 << 60), 7.0);
    }

    #[test]
    fn numpy_mean_uses_pairwise_blocks() {
        let v: Vec<f64> = (0..300).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        let m = numpy_mean(&v);
        let naive = v.iter().sum::<f64>() / 300.0;
        assert!((m - naive).abs() < 1e-15);
        assert_eq!(numpy_mean(&[1.0, 2.0]), 1.5);
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum([0.1; 10]), 1.0);
        assert_eq!(fsum([1e100, 1.0, -1e100]), 1.0);
    }

    #[test]
    fn fractions_add_exactly() {
        let a = PyNum::Frac(1, 3).py_add(PyNum::Frac(1, 6));
        assert_eq!(a, PyNum::Frac(1, 2));
        assert_eq!(PyNum::Frac(1, 2).py_add(PyNum::Float(0.25)), PyNum::Float(0.75));
    }
}
