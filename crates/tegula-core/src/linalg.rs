//! The dense linear algebra of the array API's `linalg` extension: which factorisation a task
//! computes for each matrix (the last two axes) of its block, and the shape and dtype rules of
//! each. A function with several results (`qr`, `svd`, `eigh`, `eig`, `slogdet`) is one op per
//! result; where a plan asks for several results of one matrix, they share one factorisation
//! (`factorisation`), computed by one task with several outputs.

use crate::dtype::{complex_for, DType};
use crate::error::Result;
use crate::{dtype_err, linalg_err};
use serde::{Deserialize, Serialize};

/// A linear algebra function of each matrix of a block, as one op per result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum LinalgOp {
    /// The lower Cholesky factor `L`, or `L^H` when `upper`.
    Cholesky {
        /// Give the upper factor `L^H` instead of `L`.
        upper: bool,
    },
    /// The inverse of a square matrix (NumPy's `inv`).
    Inv,
    /// `x1^-1 x2` for a square `x1` and a matrix `x2` with as many rows (two inputs).
    Solve,
    /// `x1^-1 x2` for a triangular `x1` (only its lower or upper triangle read) and a matrix
    /// `x2` with as many rows (SciPy's `solve_triangular`; two inputs).
    SolveTriangular {
        /// `x1` is lower triangular (else upper).
        lower: bool,
        /// The diagonal of `x1` is taken as ones, and not read.
        unit_diagonal: bool,
    },
    /// The determinant of a square matrix.
    Det,
    /// `output` 0: the sign (a unit complex number for complex input), 1: `log|det|`.
    Slogdet {
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// `output` 0: `Q`, 1: `R`.
    Qr {
        /// NumPy's `mode='complete'`: `Q` square, `R` as tall as the input.
        complete: bool,
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// `output` 0: `U`, 1: the singular values (computed without vectors), 2: `Vh`.
    Svd {
        /// NumPy's `full_matrices`: `U` and `Vh` square.
        full: bool,
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// `output` 0: the eigenvalues (computed without vectors), 1: the eigenvectors.
    Eigh {
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// A general square matrix's complex eigenpairs. `output` 0: the eigenvalues in the order
    /// of the eigenvectors, 1: the eigenvectors (unit columns), 2: the eigenvalues computed
    /// without vectors.
    Eig {
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// Singular values above `rtol` times the largest are inverted (default `max(M, N) * eps`).
    Pinv {
        /// The cutoff relative to the largest singular value (`None`: the default).
        rtol: Option<f64>,
    },
    /// The reduced `Q` of input 0 times input 1 (a matrix with `min(M, N)` rows): a block of
    /// a tall-skinny QR's `Q`, whose local factor is recomputed rather than kept.
    QrApply,
    /// A step of an LU factorisation by tiles: partial pivoting down a tall panel of columns
    /// (the rows from the diagonal down). `output` 0: the panel's rows swapped, its unit lower
    /// factor `L` below the diagonal and `U` on and above it (LAPACK's packed form); 1: the
    /// swaps as a `1 × width` row, element `i` the row swapped with row `i` (from `i` on, in
    /// order), as whole numbers in the matrix's dtype (exact in float32 for any square matrix
    /// that fits in memory: fewer than 2^24 rows).
    PanelLu {
        /// A zero pivot is NumPy's `Singular matrix` error (for `solve` and `inv`; `det` and
        /// `slogdet` take a singular matrix's factors, whose zero pivot gives 0).
        refuse_singular: bool,
        /// Which result of the function this op gives (see the variant).
        output: u8,
    },
    /// The update of a column block by a factorised panel (`PanelLu`'s two results, inputs 0
    /// and 1; the block, input 2, with the panel's rows): its rows swapped as the panel's,
    /// its top rows divided by the panel's unit lower `L`, the rest less `L`'s lower rows
    /// times those top rows.
    LuUpdate,
    /// A step of a Cholesky factorisation by tiles: a tall panel of columns (the rows from
    /// the diagonal down; a diagonal tile alone in a factorisation by tiles) with its top
    /// square's lower factor `L` (zeros above its diagonal; only its lower triangle read) and
    /// the rows below divided by `L^H` on the right.
    CholeskyPanel {
        /// The panel's diagonal tile, which an error names.
        at: TileAt,
    },
    /// A tile below a factorised diagonal tile (`CholeskyPanel`'s result, input 0) divided by
    /// its factor's adjoint on the right (input 1, `B L^-H`): a tile of `L` below the diagonal.
    CholeskyBelow {
        /// The tile it divides.
        at: TileAt,
    },
    /// A tile of the trailing matrix (input 1) less the product of two tiles of `L` left of it,
    /// the one level with it (input 0) times the adjoint of the one level with its column's
    /// diagonal (input 2).
    CholeskyUpdate {
        /// The tile it updates.
        at: TileAt,
    },
    /// A diagonal tile of the trailing matrix (input 1) less the product of the tile of `L`
    /// level with it (input 0) and that tile's adjoint, on and below the diagonal only (a
    /// SYRK: half the flops; the factorisation never reads above the diagonal).
    CholeskyDiagonalUpdate {
        /// The tile it updates.
        at: TileAt,
    },
}

/// Where the tile a step of a factorisation by tiles makes lies in its matrix: a cluster lays
/// the tiles out over a grid of nodes, as ScaLAPACK lays a matrix out, and runs each step
/// where its tile is, so only the factors it reads move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileAt {
    /// Its row of tiles.
    pub row: u32,
    /// Its column of tiles.
    pub column: u32,
    /// The matrix's tiles along each side.
    pub tiles: u32,
}

impl LinalgOp {
    /// The factorisation this result is one of, as the op of its first result, and which
    /// result it is; `None` for an op with one result, or computed on its own (`eigvals`).
    pub fn factorisation(self) -> Option<(LinalgOp, u8)> {
        use LinalgOp::*;
        match self {
            Slogdet { output } => Some((Slogdet { output: 0 }, output)),
            Qr { complete, output } => Some((Qr { complete, output: 0 }, output)),
            Svd { full, output } => Some((Svd { full, output: 0 }, output)),
            Eigh { output } => Some((Eigh { output: 0 }, output)),
            Eig { output: output @ (0 | 1) } => Some((Eig { output: 0 }, output)),
            PanelLu { refuse_singular, output } => Some((PanelLu { refuse_singular, output: 0 }, output)),
            _ => None,
        }
    }

    /// The ops of every result of this factorisation, in order.
    pub fn results(self) -> Vec<LinalgOp> {
        use LinalgOp::*;
        match self {
            Slogdet { .. } => (0..2).map(|output| Slogdet { output }).collect(),
            Qr { complete, .. } => (0..2).map(|output| Qr { complete, output }).collect(),
            Svd { full, .. } => (0..3).map(|output| Svd { full, output }).collect(),
            Eigh { .. } => (0..2).map(|output| Eigh { output }).collect(),
            Eig { .. } => (0..2).map(|output| Eig { output }).collect(),
            PanelLu { refuse_singular, .. } => (0..2).map(|output| PanelLu { refuse_singular, output }).collect(),
            _ => vec![self],
        }
    }

    /// NumPy's name of the function (`"svdvals"` for the singular values alone).
    pub fn name(self) -> &'static str {
        match self {
            LinalgOp::Cholesky { .. } => "cholesky",
            LinalgOp::Inv => "inv",
            LinalgOp::Solve => "solve",
            LinalgOp::SolveTriangular { .. } => "solve_triangular",
            LinalgOp::Det => "det",
            LinalgOp::Slogdet { .. } => "slogdet",
            LinalgOp::Qr { .. } => "qr",
            LinalgOp::Svd { output: 1, .. } => "svdvals",
            LinalgOp::Svd { .. } => "svd",
            LinalgOp::Eigh { output: 0 } => "eigvalsh",
            LinalgOp::Eigh { .. } => "eigh",
            LinalgOp::Eig { output: 2 } => "eigvals",
            LinalgOp::Eig { .. } => "eig",
            LinalgOp::Pinv { .. } => "pinv",
            LinalgOp::QrApply => "qr-apply",
            LinalgOp::PanelLu { .. } => "panel-lu",
            LinalgOp::LuUpdate => "lu-update",
            LinalgOp::CholeskyPanel { .. } => "cholesky-panel",
            LinalgOp::CholeskyBelow { .. } => "cholesky-below",
            LinalgOp::CholeskyUpdate { .. } => "cholesky-update",
            LinalgOp::CholeskyDiagonalUpdate { .. } => "cholesky-diagonal-update",
        }
    }

    /// The number of inputs: 2 for the solves, the QR apply, a tile below a Cholesky factor
    /// and a diagonal tile's update, 3 for the LU and Cholesky updates, else 1.
    pub fn arity(self) -> usize {
        match self {
            LinalgOp::Solve
            | LinalgOp::SolveTriangular { .. }
            | LinalgOp::QrApply
            | LinalgOp::CholeskyBelow { .. }
            | LinalgOp::CholeskyDiagonalUpdate { .. } => 2,
            LinalgOp::LuUpdate | LinalgOp::CholeskyUpdate { .. } => 3,
            _ => 1,
        }
    }

    /// The input a step of a factorisation by tiles or panels updates, its result taking that
    /// block's place: on a cluster the step runs where that block is (owner computes, as in
    /// ScaLAPACK), so only the factors it reads move.
    pub fn updated_input(self) -> Option<usize> {
        match self {
            LinalgOp::PanelLu { .. } | LinalgOp::CholeskyPanel { .. } => Some(0),
            LinalgOp::CholeskyBelow { .. } | LinalgOp::CholeskyUpdate { .. } | LinalgOp::CholeskyDiagonalUpdate { .. } => Some(1),
            LinalgOp::LuUpdate => Some(2),
            _ => None,
        }
    }

    /// Where the tile this step of a factorisation by tiles makes lies, if it is one.
    pub fn tile_at(self) -> Option<TileAt> {
        match self {
            LinalgOp::CholeskyPanel { at }
            | LinalgOp::CholeskyBelow { at }
            | LinalgOp::CholeskyUpdate { at }
            | LinalgOp::CholeskyDiagonalUpdate { at } => Some(at),
            _ => None,
        }
    }

    fn needs_square(self) -> bool {
        use LinalgOp::*;
        matches!(self, Cholesky { .. } | Inv | Solve | SolveTriangular { .. } | Det | Slogdet { .. } | Eigh { .. } | Eig { .. })
    }

    /// The dtype the factorisation runs in, NumPy's: integers and bools as float64; float16
    /// has no LAPACK routines.
    pub fn compute_dtype(self, d: DType) -> Result<DType> {
        match d {
            DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(d),
            DType::Float16 => Err(dtype_err!("array type float16 is unsupported in linalg")),
            _ => Ok(DType::Float64),
        }
    }

    /// Whether the result holds real values of a complex input (singular values, eigenvalues,
    /// `log|det|`).
    pub fn real_output(self) -> bool {
        matches!(self, LinalgOp::Slogdet { output: 1 } | LinalgOp::Svd { output: 1, .. } | LinalgOp::Eigh { output: 0 })
    }

    /// The dtype of the result for a factorisation computed in `compute`.
    pub fn output_dtype(self, compute: DType) -> DType {
        if let LinalgOp::Eig { .. } = self {
            complex_for(compute.real_part())
        } else if self.real_output() {
            compute.real_part()
        } else {
            compute
        }
    }

    /// Checks the matrix shapes, `(m, n)` of each input: `LinAlgError`s as NumPy's.
    pub fn check(self, matrices: &[(usize, usize)]) -> Result<()> {
        if self.needs_square() && matrices[0].0 != matrices[0].1 {
            return Err(linalg_err!("Last 2 dimensions of the array must be square"));
        }
        if matches!(self, LinalgOp::PanelLu { .. } | LinalgOp::CholeskyPanel { .. }) && matrices[0].0 < matrices[0].1 {
            return Err(crate::shape_err!("{}: a panel of {} rows is wider ({})", self.name(), matrices[0].0, matrices[0].1));
        }
        if matches!(self, LinalgOp::CholeskyBelow { .. }) && (matrices[0].0 != matrices[0].1 || matrices[1].1 != matrices[0].0) {
            return Err(crate::shape_err!("cholesky-below: a factor of shape {:?}, tile {:?}", matrices[0], matrices[1]));
        }
        if let (LinalgOp::CholeskyUpdate { .. }, [left, tile, right]) = (self, matrices) {
            if left.0 != tile.0 || right.0 != tile.1 || left.1 != right.1 {
                return Err(crate::shape_err!("cholesky-update: tiles of shapes {left:?}, {tile:?}, {right:?}"));
            }
        }
        // Its tile level with the left one's rows: the check of every two-input op below.
        if matches!(self, LinalgOp::CholeskyDiagonalUpdate { .. }) && matrices[1].0 != matrices[1].1 {
            return Err(crate::shape_err!("cholesky-diagonal-update: a diagonal tile of shape {:?}", matrices[1]));
        }
        if self == LinalgOp::LuUpdate && (matrices[1] != (1, matrices[0].1) || matrices[2].0 != matrices[0].0) {
            return Err(crate::shape_err!("lu-update: a panel of shape {:?}, swaps {:?}, block {:?}", matrices[0], matrices[1], matrices[2]));
        }
        if self.arity() == 2 && !matches!(self, LinalgOp::QrApply | LinalgOp::CholeskyBelow { .. }) && matrices[1].0 != matrices[0].0 {
            return Err(crate::shape_err!(
                "{}: Input operand 1 has a mismatch in its core dimension 0 (size {} is different from {})",
                self.name(),
                matrices[1].0,
                matrices[0].0
            ));
        }
        let k = matrices[0].0.min(matrices[0].1);
        if self == LinalgOp::QrApply && matrices[1].0 != k {
            return Err(crate::shape_err!("qr-apply: the right factor has {} rows, not {k}", matrices[1].0));
        }
        Ok(())
    }

    /// The trailing shape of each matrix's result, from the input matrices' shapes.
    pub fn result_shape(self, matrices: &[(usize, usize)]) -> Vec<usize> {
        use LinalgOp::*;
        let (m, n) = matrices[0];
        let k = m.min(n);
        match self {
            Cholesky { .. } | Inv => vec![n, n],
            Solve | SolveTriangular { .. } => vec![n, matrices[1].1],
            Det | Slogdet { .. } => vec![],
            Qr { complete: false, output: 0 } => vec![m, k],
            Qr { complete: false, .. } => vec![k, n],
            Qr { complete: true, output: 0 } => vec![m, m],
            Qr { complete: true, .. } => vec![m, n],
            Svd { output: 1, .. } => vec![k],
            Svd { full: true, output: 0 } => vec![m, m],
            Svd { full: false, output: 0 } => vec![m, k],
            Svd { full: true, .. } => vec![n, n],
            Svd { full: false, .. } => vec![k, n],
            Eigh { output: 0 } => vec![n],
            Eigh { .. } => vec![n, n],
            Eig { output: 1 } => vec![n, n],
            Eig { .. } => vec![n],
            Pinv { .. } => vec![n, m],
            QrApply => vec![m, matrices[1].1],
            PanelLu { output: 0, .. } => vec![m, n],
            PanelLu { .. } => vec![1, n],
            LuUpdate => vec![m, matrices[2].1],
            CholeskyPanel { .. } => vec![m, n],
            CholeskyBelow { .. } | CholeskyUpdate { .. } | CholeskyDiagonalUpdate { .. } => vec![matrices[1].0, matrices[1].1],
        }
    }
}
