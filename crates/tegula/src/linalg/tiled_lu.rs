//! LU with partial pivoting of a square matrix too big for one task, by tiles (right-looking,
//! by panels of columns, as LAPACK's blocked `getrf`): for each column of tiles in turn, its
//! rows from the diagonal down are factorised as one tall panel, the pivot of each column
//! chosen down the whole column (so the pivots, and NumPy's accuracy, are those of the
//! unblocked factorisation); every column block right of it, and of the right-hand sides,
//! takes the panel's row swaps and is updated by its factor (`LinalgOp::LuUpdate`), its top
//! tile becoming a tile of `U` (of `L^-1 P b`). `solve` and `inv` then substitute backwards
//! through `U`'s tiles; `det` and `slogdet` read `U`'s diagonal and count the swaps.

use super::tiled_triangular::{substitute, transposed};
use super::tiles::{assemble, first_rows, slice, spans, Span};
use crate::array::Array;
use crate::constant::{constant, whole};
use crate::ops::{IndexItem, ReduceSpec};
use tegula_core::{promote, BinaryOp, DType, LinalgOp, ReduceOp, Result, Scalar, UnaryOp};

/// The tiles of an LU factorisation `P a = L U` and of `L^-1 P b` for right-hand sides `b`.
struct TiledLu {
    /// `U`'s tiles on and above the diagonal: `upper[i][j - i]` at row `i`, column `j` (the
    /// diagonal tile holds `L`'s tile below its diagonal, which is never read).
    upper: Vec<Vec<Array>>,
    /// Each panel's row swaps (a row, `PanelLu`'s second result).
    swaps: Vec<Array>,
    /// For each column of tiles of `b`, its row tiles of `L^-1 P b`.
    forward: Vec<Vec<Array>>,
}

/// Factorises the square `a` in `tile`×`tile` tiles, taking the column blocks of `b` (as many
/// rows; `tile` columns each) through the same row swaps and forward elimination.
fn factorise(a: &Array, b: Option<&Array>, tile: usize, refuse_singular: bool) -> Result<TiledLu> {
    let n = a.shape()[0];
    let rows = spans(n, tile);
    let b_cols = b.map_or_else(Vec::new, |b| spans(b.shape()[1], tile));
    // What is left of each column block to factorise (or eliminate): its rows from the
    // current panel's first down.
    let mut left: Vec<Array> = rows.iter().map(|&c| slice(a, (0, n), c)).chain(b_cols.iter().map(|&c| slice(b.expect("b's columns"), (0, n), c))).collect::<Result<_>>()?;
    let (mut upper, mut swaps) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
    let mut forward: Vec<Vec<Array>> = vec![Vec::with_capacity(rows.len()); b_cols.len()];
    for (k, &(start, stop)) in rows.iter().enumerate() {
        let width = stop - start;
        let [packed, panel_swaps]: [Array; 2] =
            left[k].linalg_results(LinalgOp::PanelLu { refuse_singular, output: 0 }, &[])?.try_into().expect("the factor and the swaps");
        let mut row = vec![first_rows(&packed, width)?];
        for (j, block) in left.iter_mut().enumerate().skip(k + 1) {
            let updated = packed.linalg(LinalgOp::LuUpdate, &[&panel_swaps, block])?;
            let top = first_rows(&updated, width)?;
            *block = updated.index(&[IndexItem::Slice { start: Some(width as i64), stop: None, step: None }])?;
            match j.checked_sub(rows.len()) {
                Some(c) => forward[c].push(top),
                None => row.push(top),
            }
        }
        upper.push(row);
        swaps.push(panel_swaps);
    }
    Ok(TiledLu { upper, swaps, forward })
}

/// `a^-1 b` for the square `a` and `b` with as many rows (2-d both), by tiles of `tile`.
pub(super) fn tiled_solve(a: &Array, b: &Array, tile: usize) -> Result<Array> {
    let op = LinalgOp::Solve;
    for x in [a, b] {
        tegula_core::time::refuse_times(x.dtype(), op.name())?;
    }
    op.check(&[(a.shape()[0], a.shape()[1]), (b.shape()[0], b.shape()[1])])?;
    let dtype = op.compute_dtype(promote(a.dtype(), b.dtype()))?;
    let (a, b) = (a.astype(dtype)?, b.astype(dtype)?);
    let lu = factorise(&a, Some(&b), tile, true)?;
    let x = substitute(|i, j| Ok(lu.upper[i][j - i].clone()), lu.forward, false, false)?;
    let (rows, cols): (Vec<Span>, Vec<Span>) = (spans(a.shape()[0], tile), spans(b.shape()[1], tile));
    assemble(&transposed(x), &rows, &cols, dtype)
}

/// The inverse of the square `a`: `a^-1 I` by tiles of `tile`.
pub(super) fn tiled_inv(a: &Array, tile: usize) -> Result<Array> {
    let op = LinalgOp::Inv;
    op.check(&[(a.shape()[0], a.shape()[1])])?;
    let dtype = op.compute_dtype(a.dtype())?;
    let n = a.shape()[0];
    let identity = Array::eye(n, n, 0, dtype, &tegula_core::ChunkSpec::All(tegula_core::AxisChunks::Size(tile)))?;
    tiled_solve(a, &identity, tile)
}

/// The sign (a unit complex number for complex `a`; 0 when singular) and `log|det|` of the
/// square `a`, by tiles of `tile`: NumPy's `slogdet`.
pub(super) fn tiled_slogdet(a: &Array, tile: usize) -> Result<(Array, Array)> {
    let op = LinalgOp::Slogdet { output: 0 };
    tegula_core::time::refuse_times(a.dtype(), op.name())?;
    op.check(&[(a.shape()[0], a.shape()[1])])?;
    let dtype = op.compute_dtype(a.dtype())?;
    let lu = factorise(&a.astype(dtype)?, None, tile, false)?;
    // U's diagonal and the swaps, in double precision (as the whole-matrix kernel sums).
    let wide = if dtype.is_complex() { DType::Complex128 } else { DType::Float64 };
    let diagonals = lu.upper.iter().map(|row| row[0].diagonal(0)?.astype(wide)).collect::<Result<Vec<_>>>()?;
    let d = Array::concatenate(&diagonals.iter().collect::<Vec<_>>(), Some(0))?;
    let modulus = d.unary(UnaryOp::Abs)?;
    let zero = constant(Scalar::Int(0), wide)?;
    let zeros = d.binary(BinaryOp::Equal, &zero)?;
    let singular = zeros.reduce(&ReduceSpec::new(ReduceOp::Any))?;
    // Each diagonal element's phase (0 for a zero, counted by `singular`), times -1 per swap.
    let phases = Array::where_(&zeros, &zero, &d.binary(BinaryOp::Divide, &modulus)?)?;
    let sign = phases.reduce(&ReduceSpec::new(ReduceOp::Prod))?.mul(&swap_sign(&lu.swaps)?)?;
    let log = modulus.unary(UnaryOp::Log)?.reduce(&ReduceSpec::new(ReduceOp::Sum))?;
    let sign = Array::where_(&singular, &zero, &sign)?.astype(dtype)?;
    let log = Array::where_(&singular, &constant(Scalar::Float(f64::NEG_INFINITY), DType::Float64)?, &log)?;
    Ok((sign, log.astype(dtype.real_part())?))
}

/// `(-1)` to the number of rows the panels' `swaps` moved (an int64 0-d array of 1 or -1).
fn swap_sign(swaps: &[Array]) -> Result<Array> {
    let moved = swaps
        .iter()
        .map(|s| {
            let width = s.shape()[1];
            let stay = Array::arange(Scalar::Int(0), Scalar::Int(width as i128), Scalar::Int(1), Some(s.dtype()), &whole())?;
            s.index(&[IndexItem::Int(0)])?.binary(BinaryOp::NotEqual, &stay)
        })
        .collect::<Result<Vec<_>>>()?;
    let count = Array::concatenate(&moved.iter().collect::<Vec<_>>(), Some(0))?
        .reduce(&ReduceSpec { dtype: Some(DType::Int64), ..ReduceSpec::new(ReduceOp::Sum) })?;
    // 1 - 2 (count mod 2)
    count
        .binary_scalar(BinaryOp::Remainder, Scalar::Int(2), false)?
        .binary_scalar(BinaryOp::Multiply, Scalar::Int(-2), false)?
        .binary_scalar(BinaryOp::Add, Scalar::Int(1), false)
}

/// NumPy's `det` by tiles of `tile`: `sign * exp(log|det|)`, as NumPy computes it.
pub(super) fn tiled_det(a: &Array, tile: usize) -> Result<Array> {
    let (sign, log) = tiled_slogdet(a, tile)?;
    let dtype = sign.dtype();
    sign.mul(&log.unary(UnaryOp::Exp)?)?.astype(dtype)
}
