//! Complex arithmetic with NumPy's algorithms, so that results match NumPy's to the bit where
//! NumPy's own code (not the C library) computes them: Smith's division, power by repeated
//! multiplication for small integer exponents, `expm1` without cancellation and `log1p` that
//! keeps a zero's sign. (The other complex functions are the C library's, in `cmath.rs`.)

use crate::cmath;
use crate::element::{C128, C64};
use num_complex::Complex;
use num_traits::{Float, FloatConst};

/// Evaluating a complex function through complex128: complex64 transcendental functions are
/// computed in double precision and rounded once, as accurate as the C library's single
/// precision functions NumPy calls (num-complex's formulas in single precision lose digits to
/// cancellation).
pub trait Wide: Copy {
    /// `f` of this value, computed in complex128 and rounded back.
    fn via(self, f: impl Fn(C128) -> C128) -> Self;
    /// `f` of this value and `other`, computed in complex128 and rounded back.
    fn via2(self, other: Self, f: impl Fn(C128, C128) -> C128) -> Self;
}
impl Wide for C64 {
    fn via(self, f: impl Fn(C128) -> C128) -> C64 {
        narrow(f(widen(self)))
    }
    fn via2(self, other: C64, f: impl Fn(C128, C128) -> C128) -> C64 {
        narrow(f(widen(self), widen(other)))
    }
}
impl Wide for C128 {
    fn via(self, f: impl Fn(C128) -> C128) -> C128 {
        f(self)
    }
    fn via2(self, other: C128, f: impl Fn(C128, C128) -> C128) -> C128 {
        f(self, other)
    }
}

fn widen(x: C64) -> C128 {
    C128::new(x.re as f64, x.im as f64)
}

fn narrow(x: C128) -> C64 {
    C64::new(x.re as f32, x.im as f32)
}

/// NumPy's complex division (Smith's method); a zero divisor divides each part by zero.
pub fn div<F: Float>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let (abs_br, abs_bi) = (b.re.abs(), b.im.abs());
    if abs_br >= abs_bi {
        if abs_br == F::zero() && abs_bi == F::zero() {
            return Complex::new(a.re / abs_br, a.im / abs_br);
        }
        let rat = b.im / b.re;
        let scl = F::one() / (b.re + b.im * rat);
        Complex::new((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
    } else {
        let rat = b.re / b.im;
        let scl = F::one() / (b.im + b.re * rat);
        Complex::new((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
    }
}

/// NumPy's complex power: `x ** 0` is 1, `0 ** y` is 0 (or NaN when `y.re <= 0`), integer
/// exponents below 100 in magnitude multiply (in the operands' precision, as NumPy), others
/// use `exp(y * ln(x))` as glibc's `cpow` (through complex128).
pub fn pow<F: Float + FloatConst>(a: Complex<F>, b: Complex<F>) -> Complex<F>
where
    Complex<F>: Wide,
{
    let one = Complex::new(F::one(), F::zero());
    if b.re == F::zero() && b.im == F::zero() {
        return one;
    }
    if a.re == F::zero() && a.im == F::zero() {
        return if b.re > F::zero() {
            Complex::new(F::zero(), F::zero())
        } else {
            Complex::new(F::nan(), F::nan())
        };
    }
    let hundred = F::from(100.0).unwrap_or_else(F::max_value);
    if b.im == F::zero() && b.re == b.re.trunc() && b.re.abs() < hundred {
        return int_pow(a, b.re);
    }
    a.via2(b, |x, y| cmath::cexp(y * cmath::clog(x)))
}

/// `a ** n` for a whole `n` with `|n| < 100`, multiplying as NumPy does.
fn int_pow<F: Float>(a: Complex<F>, n: F) -> Complex<F> {
    let one = Complex::new(F::one(), F::zero());
    let mut k = n.abs().to_u32().unwrap_or(0);
    let r = match k {
        1 => a,
        2 => a * a,
        3 => a * (a * a),
        _ => {
            let (mut acc, mut p) = (one, a);
            loop {
                if k & 1 == 1 {
                    acc = acc * p;
                }
                k >>= 1;
                if k == 0 {
                    break acc;
                }
                p = p * p;
            }
        }
    };
    if n < F::zero() {
        div(one, r)
    } else {
        r
    }
}

/// NumPy's complex `log1p`: `ln|x + 1| + i atan2(im, re + 1)`, keeping the sign of a zero
/// imaginary part (which picks the side of the branch cut) that `(x + 1).ln()` would lose.
pub fn log1p<F: Float>(x: Complex<F>) -> Complex<F> {
    let re = x.re + F::one();
    Complex::new(re.hypot(x.im).ln(), x.im.atan2(re))
}

/// NumPy's complex `expm1`: accurate for small arguments, unlike `exp(x) - 1`.
pub fn expm1<F: Float>(x: Complex<F>) -> Complex<F> {
    let two = F::one() + F::one();
    let a = (x.im / two).sin();
    Complex::new(x.re.exp_m1() * x.im.cos() - two * a * a, x.re.exp() * x.im.sin())
}
