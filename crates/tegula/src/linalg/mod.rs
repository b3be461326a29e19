//! Linear algebra: [`Array::matmul`](crate::Array::matmul), the factorisations of each matrix
//! of a stack ([`Array::linalg`](crate::Array::linalg) with a [`LinalgOp`]), and the functions
//! of NumPy's `linalg` that choose an algorithm by size and chunking or compose others, as
//! methods of [`Linalg`]: a matrix whole in one task, a tall one in row blocks by TSQR, a big
//! one in several blocks by tiles (QR, Cholesky, LU).
//!
//! ```
//! use tegula::{Array, AxisChunks, ChunkSpec};
//! use tegula::linalg::{Linalg, LinalgOp};
//! let a = Array::from_ndarray(ndarray::arr2(&[[4.0, 1.0], [1.0, 3.0]]).into_dyn(), &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
//! let det = a.linalg(LinalgOp::Det, &[]).unwrap().compute().unwrap();
//! assert!((det.typed::<f64>().unwrap()[[]] - 11.0).abs() < 1e-12);
//! let (q, r) = Linalg::default().qr(&a, false).unwrap();
//! assert_eq!((q.shape(), r.shape()), (vec![2, 2], vec![2, 2]));
//! ```

mod compose;
mod least_squares;
mod norms;
mod randomized;
mod stacks;
mod tiled_cholesky;
mod tiled_lu;
mod tiled_qr;
mod tiled_triangular;
mod tiles;
mod tsqr;

use crate::array::Array;
use stacks::{each_matrix, each_matrix_one};
use tegula_core::{Result, UnaryOp};

pub use least_squares::Lstsq;
pub use norms::NormOrder;
pub use randomized::Sampling;
pub use tegula_core::LinalgOp;

/// The sizes at which the factorisations change algorithm (the defaults suit any machine; a
/// test lowers them so small inputs take the paths of big ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Linalg {
    /// The largest stack of row-block `R`s a tall-skinny QR factorises as one matrix; a taller
    /// one is cut into row blocks of about this size and factorised by TSQR again.
    pub tsqr_block_bytes: usize,
    /// The biggest matrix factorised whole in one task when it is in several blocks; a bigger
    /// one is factorised in tiles.
    pub whole_matrix_bytes: usize,
    /// The smallest tile of a Cholesky, LU or triangular solve by tiles, whatever the blocks:
    /// a task per tile costs about a millisecond of planning and scheduling, what a core's GEMM
    /// does on two 512² tiles.
    pub min_tile: usize,
}

impl Default for Linalg {
    fn default() -> Self {
        Linalg { tsqr_block_bytes: 128 << 20, whole_matrix_bytes: 256 << 20, min_tile: 512 }
    }
}

impl Linalg {
    /// `Q` and `R` of each matrix (`complete`: the square `Q`). A tall matrix in several row
    /// blocks is factorised by TSQR (reduced mode); a matrix bigger than `whole_matrix_bytes`
    /// in several column blocks (or, for the complete `Q`, in several blocks) in square tiles
    /// of its smaller first block length; a smaller one, or a stack, one whole matrix per task.
    pub fn qr(&self, x: &Array, complete: bool) -> Result<(Array, Array)> {
        if self.tiled(x, complete) {
            let tile = x.chunks().sizes()[0][0].min(x.chunks().sizes()[1][0]);
            return tiled_qr::tiled_qr(x, complete, tile);
        }
        if !complete && tall_skinny(x) {
            let (factor, r) = self.tsqr(x)?;
            return Ok((tsqr::qr_apply(x, &factor)?, r));
        }
        let [q, r]: [Array; 2] = x.linalg_results(LinalgOp::Qr { complete, output: 0 }, &[])?.try_into().expect("Q and R");
        Ok((q, r))
    }

    /// The lower Cholesky factor `L` of each Hermitian positive-definite matrix (`L^H` when
    /// `upper`; only the lower triangle is read). A matrix bigger than `whole_matrix_bytes` in
    /// several blocks is factorised by square tiles of its smaller first block length (at
    /// least `min_tile`), each matrix of a stack of them on its own; a smaller one one whole
    /// matrix per task.
    pub fn cholesky(&self, x: &Array, upper: bool) -> Result<Array> {
        match self.tile_of(x) {
            Some(_) if x.ndim() > 2 => each_matrix_one(&[x], |m| self.cholesky(&m[0], upper)),
            Some(tile) => tiled_cholesky::tiled_cholesky(x, upper, tile),
            None => x.linalg(LinalgOp::Cholesky { upper }, &[]),
        }
    }

    /// `t^-1 b` for each triangular matrix `t` (its `lower` or upper triangle read, ones on
    /// its diagonal where `unit_diagonal`) and matrix `b` with as many rows. A 2-d `t` bigger
    /// than `whole_matrix_bytes` in several blocks is solved by tiles (blocked substitution) of
    /// its smaller first block length, at least `min_tile` (each matrix of a stack of them on
    /// its own, `b` with the same stack axes); else one whole matrix per task.
    pub fn solve_triangular(&self, t: &Array, b: &Array, lower: bool, unit_diagonal: bool) -> Result<Array> {
        match self.tile_of(t) {
            Some(_) if same_stack(t, b) => return each_matrix_one(&[t, b], |m| self.solve_triangular(&m[0], &m[1], lower, unit_diagonal)),
            Some(tile) if t.ndim() == 2 && b.ndim() == 2 => return tiled_triangular::tiled_solve_triangular(t, b, lower, unit_diagonal, tile),
            _ => {}
        }
        t.linalg(LinalgOp::SolveTriangular { lower, unit_diagonal }, &[b])
    }

    /// `x^-1 b` for the Hermitian positive-definite `x` whose Cholesky factor is `c` (lower,
    /// `x = c c^H`, where `lower`; else upper, `x = c^H c`), as SciPy's `cho_solve`: two
    /// triangular solves, each by tiles where `c` is big and in several blocks.
    pub fn cho_solve(&self, c: &Array, lower: bool, b: &Array) -> Result<Array> {
        // x = L^-H (L^-1 b) for x = L L^H, lower L either `c` or `c^H`.
        let (l, l_adjoint) = if lower { (c.clone(), adjoint(c)?) } else { (adjoint(c)?, c.clone()) };
        let half = self.solve_triangular(&l, b, true, false)?;
        self.solve_triangular(&l_adjoint, &half, false, false)
    }

    /// `a^-1 b` for each square `a` and matrix `b` with as many rows (NumPy's `solve` of stacks
    /// of matrices). A 2-d `a` bigger than `whole_matrix_bytes` in several blocks is solved by
    /// an LU factorisation with partial pivoting by tiles of its smaller first block length (at
    /// least `min_tile`), `b` carried through it (each matrix of a stack of them on its own,
    /// `b` with the same stack axes); else one whole matrix per task. A singular `a` (an
    /// exactly zero pivot) is NumPy's `LinAlgError` when computed.
    pub fn solve(&self, a: &Array, b: &Array) -> Result<Array> {
        match self.tile_of(a) {
            Some(_) if same_stack(a, b) => each_matrix_one(&[a, b], |m| self.solve(&m[0], &m[1])),
            Some(tile) if a.ndim() == 2 && b.ndim() == 2 => tiled_lu::tiled_solve(a, b, tile),
            _ => a.linalg(LinalgOp::Solve, &[b]),
        }
    }

    /// The inverse of each square matrix: by tiles (the LU of `solve`, with the identity as
    /// `b`) where `x`'s matrices are bigger than `whole_matrix_bytes` in several blocks.
    pub fn inv(&self, x: &Array) -> Result<Array> {
        match self.tile_of(x) {
            Some(_) if x.ndim() > 2 => each_matrix_one(&[x], |m| self.inv(&m[0])),
            Some(tile) => tiled_lu::tiled_inv(x, tile),
            None => x.linalg(LinalgOp::Inv, &[]),
        }
    }

    /// The determinant of each square matrix, as NumPy computes it (`sign * exp(log|det|)`; 0
    /// for a singular one): by tiles (the LU of `solve`) where `x`'s matrices are bigger than
    /// `whole_matrix_bytes` in several blocks.
    pub fn det(&self, x: &Array) -> Result<Array> {
        match self.tile_of(x) {
            Some(_) if x.ndim() > 2 => each_matrix_one(&[x], |m| self.det(&m[0])),
            Some(tile) => tiled_lu::tiled_det(x, tile),
            None => x.linalg(LinalgOp::Det, &[]),
        }
    }

    /// The sign (a unit complex number for complex input; 0 for a singular matrix) and
    /// `log|det|` of each square matrix, by tiles as `det`.
    pub fn slogdet(&self, x: &Array) -> Result<(Array, Array)> {
        match self.tile_of(x) {
            Some(_) if x.ndim() > 2 => {
                let [sign, log]: [Array; 2] = each_matrix(&[x], |m| Ok(<[Array; 2]>::from(self.slogdet(&m[0])?).into()))?.try_into().expect("the sign and the log");
                return Ok((sign, log));
            }
            Some(tile) => return tiled_lu::tiled_slogdet(x, tile),
            None => {}
        }
        let [sign, log]: [Array; 2] = x.linalg_results(LinalgOp::Slogdet { output: 0 }, &[])?.try_into().expect("the sign and the log");
        Ok((sign, log))
    }

    /// The tile a factorisation or solve by tiles takes for each matrix of `x` (the last two
    /// axes): where each is bigger than `whole_matrix_bytes` in several blocks, its smaller
    /// first block length, at least `min_tile`.
    fn tile_of(&self, x: &Array) -> Option<usize> {
        let n = x.ndim();
        let count: usize = x.shape().iter().take(n.saturating_sub(2)).product();
        if n < 2 || count == 0 {
            return None;
        }
        let sizes = &x.chunks().sizes()[n - 2..];
        let tiled = x.nbytes() / count > self.whole_matrix_bytes && sizes.iter().any(|s| s.len() > 1);
        tiled.then(|| sizes[0][0].min(sizes[1][0]).max(self.min_tile))
    }

    /// `U`, the singular values (descending) and `Vh` of each matrix. Without `full`, a tall
    /// matrix in several row blocks goes through TSQR: the SVD of its small `R` gives `S` and
    /// `Vh`, and `U` is `Q` times `R`'s left vectors.
    pub fn svd(&self, x: &Array, full: bool) -> Result<(Array, Array, Array)> {
        if !full && tall_skinny(x) {
            let (factor, r) = self.tsqr(x)?;
            let (u, s, vh) = self.svd(&r, false)?;
            return Ok((tsqr::qr_apply(x, &factor.matmul(&u)?)?, s, vh));
        }
        let [u, s, vh]: [Array; 3] = x.linalg_results(LinalgOp::Svd { full, output: 0 }, &[])?.try_into().expect("U, S and Vh");
        Ok((u, s, vh))
    }

    /// The singular values of each matrix, in descending order (a tall matrix in several row
    /// blocks: those of its TSQR `R`).
    pub fn svdvals(&self, x: &Array) -> Result<Array> {
        let x = if tall_skinny(x) { self.tsqr(x)?.1 } else { x.clone() };
        x.linalg(LinalgOp::Svd { full: false, output: 1 }, &[])
    }

    /// Whether `x` is one matrix too big to factorise whole, in several column blocks (a
    /// tall-skinny one in row blocks only goes through TSQR, unless the complete `Q` is asked
    /// for).
    fn tiled(&self, x: &Array, complete: bool) -> bool {
        let blocks = x.chunks().numblocks();
        let big = x.ndim() == 2 && x.nbytes() > self.whole_matrix_bytes;
        big && (blocks[1] > 1 || complete && blocks[0] > 1)
    }
}

/// Whether `b` is a stack of matrices (more than one) with `a`'s stack axes.
fn same_stack(a: &Array, b: &Array) -> bool {
    a.ndim() > 2 && b.ndim() == a.ndim() && a.shape()[..a.ndim() - 2] == b.shape()[..b.ndim() - 2]
}

/// Whether `x` is one matrix taller than wide in several row blocks.
fn tall_skinny(x: &Array) -> bool {
    let shape = x.shape();
    x.ndim() == 2 && shape[0] > shape[1] && shape[1] > 0 && x.chunks().numblocks()[0] > 1
}

/// The conjugate transpose of each matrix.
pub(crate) fn adjoint(x: &Array) -> Result<Array> {
    let conjugated = if x.dtype().is_complex() { x.unary(UnaryOp::Conj)? } else { x.clone() };
    matrix_transpose(&conjugated)
}

/// The last two axes swapped.
pub(crate) fn matrix_transpose(x: &Array) -> Result<Array> {
    let n = x.ndim() as i64;
    let mut order: Vec<i64> = (0..n).collect();
    order.swap(n as usize - 2, n as usize - 1);
    x.transpose(Some(&order))
}
