//! QR of a matrix too big for one task, by tiles (the tiled algorithm of PLASMA and of
//! communication-avoiding QR): the matrix is cut into square tiles; for each diagonal tile, in
//! order, an orthogonal transform of two row tiles at a time (a Householder QR of the two tiles
//! of the current column, stacked) zeroes one tile below the diagonal and is applied to the rest
//! of both row tiles by `matmul`. Every transform is an explicit `Q` of at most two tiles'
//! height, so no task holds more than a few tiles, and the plan stays lazy: one graph, built
//! from whole-matrix QRs of tile pairs, slices, `matmul` and `concatenate`.

use super::adjoint;
use super::tiles::{assemble, filled, first_rows, range, slice, spans, Span, Tile};
use crate::array::Array;
use crate::constant::whole;
use tegula_core::{DType, LinalgOp, Result};
/// An orthogonal transform of row tile `k` and row tile `i` below it (`None`: `k` alone).
struct Transform {
    k: usize,
    i: Option<usize>,
    q: Array,
}

/// `(Q, R)` of the matrix `x` (reduced, or `complete`) in `tile`×`tile` tiles.
pub(super) fn tiled_qr(x: &Array, complete: bool, tile: usize) -> Result<(Array, Array)> {
    let (m, n) = (x.shape()[0], x.shape()[1]);
    let (rows, cols) = (spans(m, tile), spans(n, tile));
    let mut a: Vec<Vec<Tile>> = rows.iter().map(|r| cols.iter().map(|c| slice(x, *r, *c).map(Some)).collect()).collect::<Result<_>>()?;
    let mut transforms = Vec::new();
    for k in 0..rows.len().min(cols.len()) {
        transforms.extend(eliminate_column(&mut a, k)?);
    }
    let depth = if complete { m } else { m.min(n) };
    // The tiles below the diagonal are zeros now.
    let r = first_rows(&assemble(&a, &rows, &cols, x.dtype())?, depth)?;
    Ok((form_q(&transforms, &rows, &spans(depth, tile), x.dtype())?, r))
}

/// Zero the tiles of column `k` below the diagonal, one at a time, updating `a` in place.
fn eliminate_column(a: &mut [Vec<Tile>], k: usize) -> Result<Vec<Transform>> {
    let mut transforms = Vec::new();
    for i in std::iter::once(None).chain((k + 1..a.len()).map(Some)) {
        let diagonal = a[k][k].clone().expect("the diagonal tile is never zero");
        let below = i.and_then(|i| a[i][k].clone());
        let [q, r]: [Array; 2] =
            stacked(&diagonal, below.as_ref())?.linalg_results(LinalgOp::Qr { complete: true, output: 0 }, &[])?.try_into().expect("Q and R");
        a[k][k] = Some(first_rows(&r, diagonal.shape()[0])?);
        if let Some(i) = i {
            a[i][k] = None;
        }
        let q_adjoint = adjoint(&q)?;
        for j in k + 1..a[k].len() {
            let top = a[k][j].clone().expect("row tile k is never zero right of the diagonal");
            let bottom = i.and_then(|i| a[i][j].clone());
            let (new_top, new_bottom) = apply(&q_adjoint, &top, bottom.as_ref())?;
            a[k][j] = Some(new_top);
            if let Some(i) = i {
                a[i][j] = new_bottom;
            }
        }
        transforms.push(Transform { k, i, q });
    }
    Ok(transforms)
}

/// The tile `top` over `bottom`.
fn stacked(top: &Array, bottom: Option<&Array>) -> Result<Array> {
    match bottom {
        Some(b) => Array::concatenate(&[top, b], Some(0)),
        None => Ok(top.clone()),
    }
}

/// `q` times `top` over `bottom`, split back into those two tiles' rows.
fn apply(q: &Array, top: &Array, bottom: Option<&Array>) -> Result<(Array, Tile)> {
    let mixed = q.matmul(&stacked(top, bottom)?)?;
    let height = top.shape()[0];
    let rows = mixed.shape()[0];
    let below = bottom.map(|_| mixed.index(&[range((height, rows))])).transpose()?;
    Ok((first_rows(&mixed, height)?, below))
}

/// The transforms applied in reverse order to the first columns of the identity (tiles known
/// to be zero stay `None` and cost nothing until a transform mixes them in).
fn form_q(transforms: &[Transform], rows: &[Span], cols: &[Span], dtype: DType) -> Result<Array> {
    let mut e: Vec<Vec<Tile>> = rows.iter().map(|&r| cols.iter().map(|&c| identity_tile(r, c, dtype)).collect()).collect::<Result<_>>()?;
    for t in transforms.iter().rev() {
        for (j, &col) in cols.iter().enumerate() {
            let top = e[t.k][j].clone();
            let bottom = t.i.and_then(|i| e[i][j].clone());
            if top.is_none() && bottom.is_none() {
                continue;
            }
            let bottom = t.i.map(|i| filled(bottom, rows[i], col, dtype)).transpose()?;
            let (new_top, below) = apply(&t.q, &filled(top, rows[t.k], col, dtype)?, bottom.as_ref())?;
            e[t.k][j] = Some(new_top);
            if let Some(i) = t.i {
                e[i][j] = below;
            }
        }
    }
    assemble(&e, rows, cols, dtype)
}

/// The tile of the identity at `rows`×`cols`, or `None` when it holds only zeros.
fn identity_tile(rows: Span, cols: Span, dtype: DType) -> Result<Tile> {
    if rows.1 <= cols.0 || cols.1 <= rows.0 {
        return Ok(None);
    }
    let k = rows.0 as i64 - cols.0 as i64;
    Array::eye(rows.1 - rows.0, cols.1 - cols.0, k, dtype, &whole()).map(Some)
}
