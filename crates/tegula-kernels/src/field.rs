//! The element types faer factorises (float32/float64/complex64/complex128), with their real
//! and complex counterparts: what the per-matrix linear algebra and the tall QR share.

use crate::band_svd::singular_values_two_stage;
use crate::chunk::Wrap;
use crate::element::{C128, C64};
use faer::complex::Complex;
use faer::traits::{ComplexField, RealField};
use faer::MatRef;
use tegula_core::Result;
use std::ops::{Add, Mul, SubAssign};
use std::sync::Once;

/// The ways faer's factorisations split their work. faer's default follows the machine's
/// cores, and a factorisation split another way rounds differently: with a fixed count, a
/// block's factors are the same bits whichever executor, thread pool or machine computes them.
const FACTOR_SPLITS: usize = 8;

/// Fixes faer's parallelism (for every factorisation in this process) before the first one.
pub(crate) fn fixed_splits() {
    static FIXED: Once = Once::new();
    FIXED.call_once(|| faer::set_global_parallelism(faer::Par::rayon(FACTOR_SPLITS)));
}

/// An element type faer factorises, with its real counterpart.
pub trait Field:
    ComplexField<Real = Self::R> + Wrap + Copy + Add<Output = Self> + SubAssign + Mul<Output = Self>
{
    type R: RealField + Wrap + Copy;
    /// The complex type of the same precision (general eigenpairs).
    type Z: Wrap + Copy + From<Complex<Self::R>>;
    /// The singular values of a big real `x` by the two-stage reduction (`band_svd`); `None`
    /// for a small or complex one, left to faer's one-stage SVD.
    fn two_stage_singular_values(x: MatRef<'_, Self>) -> Option<Result<Vec<Self::R>>>;
}
impl Field for f32 {
    type R = f32;
    type Z = C64;
    fn two_stage_singular_values(x: MatRef<'_, f32>) -> Option<Result<Vec<f32>>> {
        singular_values_two_stage(x)
    }
}
impl Field for f64 {
    type R = f64;
    type Z = C128;
    fn two_stage_singular_values(x: MatRef<'_, f64>) -> Option<Result<Vec<f64>>> {
        singular_values_two_stage(x)
    }
}
impl Field for C64 {
    type R = f32;
    type Z = C64;
    fn two_stage_singular_values(_: MatRef<'_, C64>) -> Option<Result<Vec<f32>>> {
        None
    }
}
impl Field for C128 {
    type R = f64;
    type Z = C128;
    fn two_stage_singular_values(_: MatRef<'_, C128>) -> Option<Result<Vec<f64>>> {
        None
    }
}
