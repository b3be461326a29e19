//! Discrete Fourier transforms along one axis of a block that holds the whole axis, with
//! `rustfft` (unnormalised in both directions, as NumPy's "backward" forward transform; the
//! caller scales).

use crate::chunk::{Block, Chunk, Wrap};
use ndarray::Axis;
use num_complex::Complex;
use num_traits::Float;
use rustfft::{FftNum, FftPlanner};
use tegula_core::{Result, TegulaError};

/// The transform of every lane of `x` along `axis` (`inverse`: the sign of the exponent is +).
pub fn fft(x: &Chunk, axis: usize, inverse: bool) -> Result<Chunk> {
    if axis >= x.ndim() {
        return Err(TegulaError::Internal(format!("fft along axis {axis} of a {}-d block", x.ndim())));
    }
    match x {
        Chunk::Complex64(a) => Ok(Wrap::wrap(transform::<f32>(a, axis, inverse))),
        Chunk::Complex128(a) => Ok(Wrap::wrap(transform::<f64>(a, axis, inverse))),
        _ => Err(TegulaError::Internal(format!("fft of a {} block", x.dtype()))),
    }
}

fn transform<F: FftNum + Float>(a: &Block<Complex<F>>, axis: usize, inverse: bool) -> Block<Complex<F>> {
    let n = a.shape()[axis];
    let mut out = a.to_owned();
    if n == 0 {
        return out.into();
    }
    let mut planner = FftPlanner::<F>::new();
    let plan = if inverse { planner.plan_fft_inverse(n) } else { planner.plan_fft_forward(n) };
    let mut lane_buf = vec![Complex::new(F::zero(), F::zero()); n];
    let mut scratch = vec![Complex::new(F::zero(), F::zero()); plan.get_inplace_scratch_len()];
    for mut lane in out.lanes_mut(Axis(axis)) {
        lane_buf.iter_mut().zip(lane.iter()).for_each(|(b, v)| *b = *v);
        plan.process_with_scratch(&mut lane_buf, &mut scratch);
        lane.iter_mut().zip(&lane_buf).for_each(|(v, b)| *v = *b);
    }
    out.into()
}
