//! A triangular solve `T^-1 B` for a triangular `T` too big for one task, by tiles (blocked
//! substitution, as LAPACK's TRSM by blocks): forwards for a lower `T`, backwards for an upper
//! one, each row tile of the solution the diagonal tile's solve of its row of `B` less the
//! products of the tiles of `T` left of (right of) the diagonal with the solution's row tiles
//! found before. The columns of `B` are cut into tiles too, and each column of tiles is solved
//! apart, in parallel. Only `T`'s own triangle is read; the plan stays lazy.

use super::tiles::{assemble, slice, spans, Tile};
use crate::array::Array;
use tegula_core::{promote, LinalgOp, Result};

/// `t^-1 b` for the triangular `t` (its `lower` or upper triangle, ones on the diagonal where
/// `unit_diagonal`) and `b` with as many rows, in `tile`×`tile` tiles.
pub(super) fn tiled_solve_triangular(t: &Array, b: &Array, lower: bool, unit_diagonal: bool, tile: usize) -> Result<Array> {
    let op = LinalgOp::SolveTriangular { lower, unit_diagonal };
    op.check(&[(t.shape()[0], t.shape()[1]), (b.shape()[0], b.shape()[1])])?;
    let dtype = op.compute_dtype(promote(t.dtype(), b.dtype()))?;
    let (t, b) = (t.astype(dtype)?, b.astype(dtype)?);
    let rows = spans(t.shape()[0], tile);
    let cols = spans(b.shape()[1], tile);
    // Row tiles in the order they are solved.
    let order: Vec<usize> = if lower { (0..rows.len()).collect() } else { (0..rows.len()).rev().collect() };
    let mut x: Vec<Vec<Tile>> = vec![vec![None; cols.len()]; rows.len()];
    for (c, &col) in cols.iter().enumerate() {
        for (done, &i) in order.iter().enumerate() {
            let mut rest = slice(&b, rows[i], col)?;
            for &j in &order[..done] {
                let found = x[j][c].as_ref().expect("solved before");
                rest = rest.sub(&slice(&t, rows[i], rows[j])?.matmul(found)?)?;
            }
            x[i][c] = Some(slice(&t, rows[i], rows[i])?.linalg(op, &[&rest])?);
        }
    }
    assemble(&x, &rows, &cols, dtype)
}
