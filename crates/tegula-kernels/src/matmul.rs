//! The product of two 2-D blocks. float32/float64 use ndarray's packed GEMM; the other
//! dtypes a generic row-times-row loop with NumPy's arithmetic (wrapping integers, bool or/and).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Num;
use crate::with_dtype;
use ndarray::{Array2, ArrayView2, Ix2, Zip};
use tegula_core::{DType, Result, TegulaError};

pub fn matmul(dtype: DType, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (a, b) = (a.cast(dtype), b.cast(dtype));
    match dtype {
        DType::Float32 => Ok(f32::wrap(as2(a.typed::<f32>()?)?.dot(&as2(b.typed::<f32>()?)?).into_dyn().into_shared())),
        DType::Float64 => Ok(f64::wrap(as2(a.typed::<f64>()?)?.dot(&as2(b.typed::<f64>()?)?).into_dyn().into_shared())),
        _ => with_dtype!(dtype, T => generic::<T>(as2(a.typed::<T>()?)?, as2(b.typed::<T>()?)?)),
    }
}

fn as2<T>(a: &Block<T>) -> Result<ArrayView2<'_, T>> {
    a.view()
        .into_dimensionality::<Ix2>()
        .map_err(|_| TegulaError::Internal(format!("matmul block is not 2-D: {:?}", a.shape())))
}

fn generic<T: Num + Wrap>(a: ArrayView2<T>, b: ArrayView2<T>) -> Result<Chunk> {
    let (m, k) = a.dim();
    let n = b.ncols();
    if b.nrows() != k {
        return Err(TegulaError::Internal(format!("matmul blocks {:?} and {:?}", a.dim(), b.dim())));
    }
    let mut out = Array2::from_elem((m, n), T::zero());
    for (i, mut row) in out.rows_mut().into_iter().enumerate() {
        for p in 0..k {
            let aip = a[[i, p]];
            Zip::from(&mut row).and(b.row(p)).for_each(|o, &bv| *o = o.add(aip.mul(bv)));
        }
    }
    Ok(T::wrap(out.into_dyn().into_shared()))
}
