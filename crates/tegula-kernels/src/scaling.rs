//! Scaling a matrix by the power of two that brings its largest magnitude into `[1, 2)`, where
//! sums of squares neither overflow nor underflow and faer's SVD and eigensolvers converge
//! (LAPACK scales the same way): exact, but for elements that end up subnormal.

/// For a matrix whose largest magnitude is `largest` (positive and finite): two factors whose
/// product is that power of two, and its reciprocal, which singular values and eigenvalues are
/// multiplied by after. The power can exceed the element type's largest (up to 2¹⁴⁹ for a
/// float32 matrix of subnormals, whose largest power of two is 2¹²⁷), so it is applied as two
/// halves, each within range. The reciprocal is an f64, exact also when subnormal.
pub(crate) fn power_of_two_scaling(largest: f64) -> ([f64; 2], f64) {
    let exponent = largest.log2().floor() as i32;
    let half = exponent / 2;
    ([2f64.powi(-half), 2f64.powi(half - exponent)], two_to_the(exponent))
}

/// `2^exponent` as an f64, exact also when subnormal: in two steps, as `powi` computes `2⁻ᵏ`
/// as `1 / 2ᵏ`, which overflows there.
pub(crate) fn two_to_the(exponent: i32) -> f64 {
    2f64.powi(exponent / 2) * 2f64.powi(exponent - exponent / 2)
}
