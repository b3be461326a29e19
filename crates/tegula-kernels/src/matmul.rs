//! The products of the matrices (last two axes) of two blocks with the same stack axes.
//! float32/float64 use the BLAS installed at run time where one is (NumPy's, where faster than
//! faer: `blas.rs`), else faer's GEMM (on the threads of the current rayon pool that no other
//! task needs, so a big block alone uses every core); the other dtypes a generic
//! row-times-row loop with NumPy's arithmetic (wrapping integers, bool or/and).

use crate::blas::{self, Blas, BlasElement};
use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Num;
use crate::parallel::spare_threads;
use crate::with_dtype;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{ArrayD, ArrayView2, ArrayViewMut2, Axis, Ix2, Zip};
use tegula_core::{DType, Result, TegulaError};

/// `KernelOp::Matmul`: the matrix product of two 2-D blocks, computed in `dtype`.
pub fn matmul(dtype: DType, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (a, b) = (a.cast(dtype), b.cast(dtype));
    match dtype {
        DType::Float32 => stacked(a.typed::<f32>()?, b.typed::<f32>()?, fastest_gemm::<f32>),
        DType::Float64 => stacked(a.typed::<f64>()?, b.typed::<f64>()?, fastest_gemm::<f64>),
        _ => with_dtype!(dtype, T => stacked(a.typed::<T>()?, b.typed::<T>()?, generic::<T>)),
    }
}

/// A matrix product written into a zeroed row-major `m × n` slice.
type Product<T> = fn(ArrayView2<T>, ArrayView2<T>, &mut [T]) -> Result<()>;

/// `a @ b` for each matrix of two blocks of the same stack shape, by `product`.
fn stacked<T: Num + Wrap>(a: &Block<T>, b: &Block<T>, product: Product<T>) -> Result<Chunk> {
    let (sa, sb) = (a.shape(), b.shape());
    let nd = sa.len();
    if nd < 2 || sb.len() != nd || sa[..nd - 2] != sb[..nd - 2] || sa[nd - 1] != sb[nd - 2] {
        return Err(TegulaError::Internal(format!("matmul blocks {sa:?} and {sb:?}")));
    }
    let (m, n) = (sa[nd - 2], sb[nd - 1]);
    let mut shape = sa.to_vec();
    shape[nd - 1] = n;
    let len: usize = shape.iter().product();
    let mut out: Vec<T> = tegula_core::memory::big_vec(len);
    out.resize(len, T::zero());
    if m * n > 0 {
        for (s, dst) in out.chunks_mut(m * n).enumerate() {
            product(matrix(a, s)?, matrix(b, s)?, dst)?;
        }
    }
    let out = ArrayD::from_shape_vec(shape, out).map_err(|e| TegulaError::Internal(format!("matmul result: {e}")))?;
    Ok(T::wrap(out.into()))
}

/// The `s`-th matrix (in row-major order of the stack axes) of a block.
fn matrix<T>(a: &Block<T>, mut s: usize) -> Result<ArrayView2<'_, T>> {
    let stack = &a.shape()[..a.ndim() - 2];
    let mut at = vec![0; stack.len()];
    for (i, &d) in stack.iter().enumerate().rev() {
        at[i] = s % d;
        s /= d;
    }
    let mut v = a.view();
    for i in at {
        v = v.index_axis_move(Axis(0), i);
    }
    v.into_dimensionality::<Ix2>().map_err(|_| TegulaError::Internal(format!("matmul block {:?}", a.shape())))
}

/// Columns of a right operand up to which faer's path depends on its strides (see `gemm`), and
/// the side of an output up to which faer splits its sums across threads (see `parallelism`).
const NARROW: usize = 32;

/// `a @ b` by the installed BLAS (`blas.rs`) where it takes the operands and the product is not
/// narrow (whose bits faer keeps independent of threads and layouts, see `gemm`) nor a Gram
/// matrix (faer's triangular product does half the work); else by faer.
fn fastest_gemm<T: faer::traits::ComplexField + Num + BlasElement>(a: ArrayView2<T>, b: ArrayView2<T>, out: &mut [T]) -> Result<()> {
    let ((m, k), n) = (a.dim(), b.ncols());
    let wide = k > 0 && m.min(n) > NARROW && !is_transpose_of(&a, &b);
    match blas::installed() {
        Some(blas) if wide && blas.product(a.view(), b.view(), out) => Ok(()),
        _ => gemm(a, b, out),
    }
}

/// `a @ b` with faer, reading both operands in place whatever their strides, but for a narrow
/// `b` (a product by a few columns): there faer takes a path chosen by the operands' strides,
/// and its last bits differed between a window (a block of a NumPy array, on threads) and the
/// contiguous copy of it a worker process reads. Each operand of a narrow product that is not
/// contiguous is copied first, keeping its orientation (by rows or by columns), so the bits
/// depend on the values and the orientation only; blocks keep their orientation between
/// processes (`raw::with_bytes_in_memory_order`), so every executor gets the same bits.
pub(crate) fn gemm<T: faer::traits::ComplexField + Num>(a: ArrayView2<T>, b: ArrayView2<T>, out: &mut [T]) -> Result<()> {
    let ((m, k), n) = (a.dim(), b.ncols());
    if k == 0 {
        return Ok(());
    }
    let narrow = n <= NARROW && !is_transpose_of(&a, &b);
    let (copied_a, copied_b);
    let a = if narrow && !is_contiguous(&a) {
        copied_a = contiguous(&a);
        copied_a.view()
    } else {
        a
    };
    let b = if narrow && !is_contiguous(&b) {
        copied_b = contiguous(&b);
        copied_b.view()
    } else {
        b
    };
    // SAFETY: the pointers, extents and element strides are those of live ndarray views,
    // which outlive the product.
    let (lhs, rhs) = unsafe {
        (
            MatRef::from_raw_parts(a.as_ptr(), m, k, a.strides()[0], a.strides()[1]),
            MatRef::from_raw_parts(b.as_ptr(), k, n, b.strides()[0], b.strides()[1]),
        )
    };
    let one = T::one_impl();
    let dst = MatMut::from_row_major_slice_mut(out, m, n);
    if is_transpose_of(&a, &b) {
        gram(lhs, rhs, dst, one, parallelism(m, n));
        for i in 0..m {
            for j in 0..i {
                out[j * n + i] = out[i * n + j];
            }
        }
    } else if m.min(n) <= NARROW {
        small_sided(lhs, rhs, out, n);
    } else {
        faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, rhs, one, parallelism(m, n));
    }
    Ok(())
}

/// The side of the products `gemm_rates` times: that of the blocks small-block products are
/// merged into (tegula-plan's `product_blocks.rs`), where the two libraries' rates decide.
/// About a second in all, once per machine.
const RATE_SIDE: usize = 2048;

/// `blas`'s GEMM rate and faer's, in GFLOP/s per thread, as tegula runs them: every thread of
/// the current rayon pool computing a product of its own at once, of row-major operands as
/// blocks mostly are (faer's rate depends on the right operand's layout: here it ran 10-25%
/// faster on a column-major one, OpenBLAS alike on both), each a float64 product of a
/// `RATE_SIDE`² result over half that depth; the best of three, taken in turns (rates drift
/// by 10-20% between seconds on a shared machine).
pub fn gemm_rates(blas: &Blas) -> (f64, f64) {
    use rayon::prelude::*;
    let (m, k) = (RATE_SIDE, RATE_SIDE / 2);
    let a = ndarray::Array2::from_shape_fn((m, k), |(i, j)| ((i * 7 + j * 13) % 17) as f64 - 8.0);
    let b = a.t().as_standard_layout().into_owned();
    let threads = rayon::current_num_threads();
    let mut outs = vec![vec![0.0; m * m]; threads];
    let flops = 2.0 * (m * m * k) as f64 / 1e9;
    let timed = |outs: &mut Vec<Vec<f64>>, product: &(dyn Fn(&mut [f64]) + Sync)| {
        let start = std::time::Instant::now();
        outs.par_iter_mut().for_each(|out| product(out));
        start.elapsed().as_secs_f64()
    };
    let (mut blas_time, mut faer_time) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        blas_time = blas_time.min(timed(&mut outs, &|out| {
            blas.product_in(a.view(), b.view(), out, m);
        }));
        faer_time = faer_time.min(timed(&mut outs, &|out| {
            // Errors are for empty products; this one is not.
            let _ = crate::parallel::with_spare_threads(0, || gemm(a.view(), b.view(), out));
        }));
    }
    (flops / blas_time, flops / faer_time)
}

/// Output rows per task, and rows of the contracted axis per partial product, of a product
/// with an output side of at most `NARROW` (`small_sided`).
const PANEL: usize = 8192;

/// A product whose output has a side of at most `NARROW` (a matrix times a vector or a few
/// columns, a Gram matrix of few columns): faer would split its sums across the pool's threads,
/// so its bits would depend on their number (a worker process has one thread). It is split
/// here instead, at places that depend on its shape only, each piece on one thread: a tall
/// output in panels of `PANEL` rows, else a long sum in slabs of `PANEL` whose partial
/// products are added in order.
fn small_sided<T: faer::traits::ComplexField + Num>(lhs: MatRef<T>, rhs: MatRef<T>, out: &mut [T], n: usize) {
    use faer::linalg::matmul::matmul;
    use rayon::prelude::*;
    let (m, k) = (lhs.nrows(), lhs.ncols());
    let one = T::one_impl();
    if m > PANEL {
        out.par_chunks_mut(PANEL * n).enumerate().for_each(|(i, panel)| {
            let rows = panel.len() / n;
            matmul(MatMut::from_row_major_slice_mut(panel, rows, n), Accum::Replace, lhs.subrows(i * PANEL, rows), rhs, one, Par::Seq);
        });
    } else if k > PANEL {
        let starts: Vec<usize> = (0..k).step_by(PANEL).collect();
        let partials: Vec<Vec<T>> = starts
            .par_iter()
            .map(|&start| {
                let depth = PANEL.min(k - start);
                let mut partial = vec![T::zero(); m * n];
                let dst = MatMut::from_row_major_slice_mut(&mut partial, m, n);
                matmul(dst, Accum::Replace, lhs.subcols(start, depth), rhs.subrows(start, depth), one, Par::Seq);
                partial
            })
            .collect();
        out.copy_from_slice(&partials[0]);
        for partial in &partials[1..] {
            out.iter_mut().zip(partial).for_each(|(o, &p)| *o = Num::add(*o, p));
        }
    } else {
        matmul(MatMut::from_row_major_slice_mut(out, m, n), Accum::Replace, lhs, rhs, one, Par::Seq);
    }
}

/// Rows of `x` per triangular product in `gram`. faer's own depth blocking reads the unpacked
/// `x.T` of a row-major block (rows thousands of bytes apart) in strips longer than the L1
/// cache holds; slabs of this many rows, summed into the result, measured ~13% faster on one
/// core for a 10⁵ × 500 block (and no slower on two).
const GRAM_SLAB: usize = 128;

/// The lower triangle of the symmetric `x.T @ x` (`lhs` = `x.T`) by faer's triangular product,
/// which computes only the blocks on and below the diagonal: about half the flops of the full
/// product (a `syrk`), and faster than splitting it into column panels of ordinary GEMMs.
fn gram<T: faer::traits::ComplexField>(lhs: MatRef<T>, rhs: MatRef<T>, mut dst: MatMut<T>, one: T, par: Par) {
    use faer::linalg::matmul::triangular::{matmul, BlockStructure};
    let full = BlockStructure::Rectangular;
    let depth = lhs.ncols();
    for start in (0..depth).step_by(GRAM_SLAB) {
        let rows = GRAM_SLAB.min(depth - start);
        let accum = if start == 0 { Accum::Replace } else { Accum::Add };
        let (lhs, rhs) = (lhs.subcols(start, rows), rhs.subrows(start, rows));
        matmul(dst.as_mut(), BlockStructure::TriangularLower, accum, lhs, full, rhs, full, one.clone(), par);
    }
}

/// faer's parallelism for a product of `m × n`: the calling thread alone when every other
/// thread of the pool has a task of its own (two GEMMs splitting each other's work across two
/// busy cores ran 10-25% slower than each on its core, at 750² to 3000² blocks), else the spare
/// threads too. Products of at most 512² are always split: faer's one-thread kernel runs them
/// at about two thirds of its rate (500³: 46 against 69 GFLOP/s at 1000³ on one core), halves
/// of them at full rate. Results are the same either way: faer splits the output, never the
/// sum over the contracted axis — but for an output with a side of at most `NARROW` (a vector
/// times a matrix), whose sums it splits: those run on the calling thread (Gram products) or
/// are split by `small_sided`, so that their bits do not depend on the number of threads.
pub(crate) fn parallelism(m: usize, n: usize) -> Par {
    const SMALL: usize = 512 * 512;
    match spare_threads() {
        _ if m.min(n) <= NARROW => Par::Seq,
        Some(0) if m * n > SMALL => Par::Seq,
        Some(spare) if m * n > SMALL => Par::rayon(spare + 1),
        _ => Par::rayon(0),
    }
}

/// Whether `m`'s elements lie one after another, by rows or by columns.
fn is_contiguous<T>(m: &ArrayView2<T>) -> bool {
    m.is_standard_layout() || m.t().is_standard_layout()
}

/// A contiguous copy of `m` in its orientation: by columns when its rows are one element apart
/// (a transposed block), else by rows.
fn contiguous<T: Clone>(m: &ArrayView2<T>) -> ndarray::Array2<T> {
    if m.strides()[0] == 1 && m.strides()[1] != 1 {
        m.t().to_owned().reversed_axes()
    } else {
        m.to_owned()
    }
}

/// Whether `a` is `b` transposed (the same elements, axes swapped).
fn is_transpose_of<T>(a: &ArrayView2<T>, b: &ArrayView2<T>) -> bool {
    a.as_ptr() == b.as_ptr() && a.dim() == (b.ncols(), b.nrows()) && a.strides() == [b.strides()[1], b.strides()[0]]
}

fn generic<T: Num>(a: ArrayView2<T>, b: ArrayView2<T>, out: &mut [T]) -> Result<()> {
    let (m, k) = a.dim();
    let mut out = ArrayViewMut2::from_shape((m, b.ncols()), out).map_err(|e| TegulaError::Internal(format!("matmul: {e}")))?;
    for (i, mut row) in out.rows_mut().into_iter().enumerate() {
        for p in 0..k {
            let aip = a[[i, p]];
            Zip::from(&mut row).and(b.row(p)).for_each(|o, &bv| *o = o.add(aip.mul(bv)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::with_spare_threads;
    use ndarray::Array2;

    #[test]
    fn a_product_is_the_same_on_one_thread_and_on_several() {
        let (m, k, n) = (613, 517, 441); // above the size always split
        let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 7919 + j * 104729) % 1000) as f64 / 997.0 - 0.5);
        let b = Array2::from_shape_fn((k, n), |(i, j)| ((i * 15485863 + j * 32452843) % 1000) as f64 / 991.0 - 0.5);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let product = |spare| {
            let mut out = vec![0.0; m * n];
            pool.install(|| with_spare_threads(spare, || gemm(a.view(), b.view(), &mut out))).unwrap();
            out
        };
        assert_eq!(product(0), product(2));
        let mut unhinted = vec![0.0; m * n];
        pool.install(|| gemm(a.view(), b.view(), &mut unhinted)).unwrap();
        assert_eq!(product(0), unhinted);
    }

    #[test]
    fn products_of_every_shape_are_the_same_on_one_thread_and_on_several() {
        let value = |i: usize, j: usize, p: usize| ((i * p + j * 104729) % 1000) as f64 / 997.0 - 0.5;
        // Narrow ones (a gradient `x.T @ r`, `v @ x`, a Hessian), small outputs of long sums
        // and tall ones (both split by `small_sided`), and Gram products `x.T @ x`.
        for (m, k, n) in [(20, 5000, 1), (1, 5000, 20), (20, 5000, 20), (7, 300, 32), (50, 4000, 50), (3, 20000, 3), (200, 3000, 40), (1, 20000, 5), (9000, 40, 2)] {
            let a = Array2::from_shape_fn((m, k), |(i, j)| value(i, j, 7919));
            let b = Array2::from_shape_fn((k, n), |(i, j)| value(i, j, 15485863));
            let x = Array2::from_shape_fn((k, m), |(i, j)| value(i, j, 31));
            let on = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let (mut product, mut gram) = (vec![0.0; m * n], vec![0.0; m * m]);
                pool.install(|| {
                    gemm(a.view(), b.view(), &mut product).unwrap();
                    gemm(x.t(), x.view(), &mut gram).unwrap();
                });
                (product, gram)
            };
            let (product, gram) = on(1);
            assert_eq!((product.clone(), gram), on(3), "{m}x{k}x{n}");
            let expected = a.dot(&b);
            assert!(product.iter().zip(expected.iter()).all(|(p, e)| (p - e).abs() <= 1e-9 * (k as f64)), "{m}x{k}x{n}");
        }
    }

    #[test]
    fn a_narrow_product_is_the_same_whatever_the_operands_layouts() {
        for (k, n, rows) in [(4, 1, 9), (4, 2, 9), (16, 5, 21), (300, 2, 700), (64, 32, 100)] {
            let a = Array2::from_shape_fn((7, k), |(i, j)| ((i * 7919 + j * 104729) % 1000) as f64 / 997.0 - 0.5);
            let whole = Array2::from_shape_fn((rows, rows), |(i, j)| ((i * 15485863 + j * 32452843) % 1000) as f64 / 991.0 - 0.5);
            let window = whole.slice(ndarray::s![1..k + 1, 3..n + 3]);
            let copy = window.to_owned();
            let (mut from_window, mut from_copy) = (vec![0.0; 7 * n], vec![0.0; 7 * n]);
            gemm(a.view(), window, &mut from_window).unwrap();
            gemm(a.view(), copy.view(), &mut from_copy).unwrap();
            assert_eq!(from_window, from_copy, "{k}x{n}");
            // The same for a transposed window and the transpose of a contiguous block.
            let wide = whole.slice(ndarray::s![3..n + 3, 1..k + 1]);
            let copy_t = wide.to_owned();
            let (mut from_wide, mut from_copy_t) = (vec![0.0; 7 * n], vec![0.0; 7 * n]);
            gemm(a.view(), wide.t(), &mut from_wide).unwrap();
            gemm(a.view(), copy_t.t(), &mut from_copy_t).unwrap();
            assert_eq!(from_wide, from_copy_t, "{k}x{n} transposed");
            // A transposed window as the left operand (`x.T` of a block of a NumPy array, on
            // threads) and the transposed contiguous block a worker process reads back.
            let tall = whole.slice(ndarray::s![2..k + 2, 0..7]);
            let tall_copy = tall.to_owned();
            let (mut from_transposed, mut from_copy) = (vec![0.0; 7 * n], vec![0.0; 7 * n]);
            gemm(tall.t(), window, &mut from_transposed).unwrap();
            gemm(tall_copy.t(), copy.view(), &mut from_copy).unwrap();
            assert_eq!(from_transposed, from_copy, "{k}x{n} with a transposed left operand");
        }
    }

    #[test]
    fn a_transpose_times_itself_equals_the_plain_product() {
        for (m, n) in [(1, 1), (7, 3), (300, 130), (64, 257)] {
            // Small integers: every sum is exact, so the two products must agree bit for bit.
            let x = Array2::from_shape_fn((m, n), |(i, j)| ((i * 31 + j * 17) % 23) as f64 - 11.0);
            let (mut fast, mut plain) = (vec![0.0; n * n], vec![0.0; n * n]);
            gemm(x.t(), x.view(), &mut fast).unwrap();
            generic(x.t(), x.view(), &mut plain).unwrap();
            assert_eq!(fast, plain, "{m}x{n}");
        }
    }
}
