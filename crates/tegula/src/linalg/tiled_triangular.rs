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
    let b_tiles = cols.iter().map(|&c| rows.iter().map(|&r| slice(&b, r, c)).collect()).collect::<Result<_>>()?;
    let x = substitute(|i, j| slice(&t, rows[i], rows[j]), b_tiles, lower, unit_diagonal)?;
    assemble(&transposed(x), &rows, &cols, dtype)
}

/// Blocked substitution: the row tiles of `t^-1 b` for each column of tiles of `b`
/// (`b[c][i]`: row tile `i` of column `c`), `t`'s tile at row `i` and column `j` given by
/// `t(i, j)` (only those of its `lower` or upper triangle asked for).
pub(super) fn substitute(t: impl Fn(usize, usize) -> Result<Array>, b: Vec<Vec<Array>>, lower: bool, unit_diagonal: bool) -> Result<Vec<Vec<Array>>> {
    let op = LinalgOp::SolveTriangular { lower, unit_diagonal };
    b.into_iter()
        .map(|column| {
            let count = column.len();
            // Row tiles in the order they are solved.
            let order: Vec<usize> = if lower { (0..count).collect() } else { (0..count).rev().collect() };
            let mut x: Vec<Tile> = vec![None; count];
            for (done, &i) in order.iter().enumerate() {
                let mut rest = column[i].clone();
                for &j in &order[..done] {
                    rest = rest.sub(&t(i, j)?.matmul(x[j].as_ref().expect("solved before"))?)?;
                }
                x[i] = Some(t(i, i)?.linalg(op, &[&rest])?);
            }
            Ok(x.into_iter().map(|tile| tile.expect("every row tile solved")).collect())
        })
        .collect()
}

/// Columns of tiles as rows of tiles (`x[c][i]` as `out[i][c]`).
pub(super) fn transposed(x: Vec<Vec<Array>>) -> Vec<Vec<Tile>> {
    let rows = x.first().map_or(0, Vec::len);
    (0..rows).map(|i| x.iter().map(|column| Some(column[i].clone())).collect()).collect()
}
