//! Matrices between faer's views and the row-major blocks tegula keeps: copies in bands of
//! rows that stay in cache whatever the two layouts.

use faer::traits::ComplexField;
use faer::{MatMut, MatRef};

/// `dst = src` in bands of rows of about 128 KB, so that whatever the two layouts, each band's
/// reads and writes stay in cache.
pub(crate) fn banded_copy<T: ComplexField>(mut dst: MatMut<T>, src: MatRef<T>) {
    let (m, n) = (src.nrows(), src.ncols());
    let band = (16_384 / n.max(1)).max(1);
    for r0 in (0..m).step_by(band) {
        let h = band.min(m - r0);
        dst.as_mut().submatrix_mut(r0, 0, h, n).copy_from(src.submatrix(r0, 0, h, n));
    }
}

/// A matrix's elements in row-major order.
pub(crate) fn rows<T: ComplexField + Copy>(x: MatRef<T>) -> Vec<T> {
    let mut out = vec![T::zero_impl(); x.nrows() * x.ncols()];
    banded_copy(MatMut::from_row_major_slice_mut(&mut out, x.nrows(), x.ncols()), x);
    out
}
