//! A matrix as square tiles, for the factorisations by tiles (`tiled_qr.rs`,
//! `tiled_cholesky.rs`): each tile a lazy slice of the matrix, updated as a lazy array of its
//! own, and the tiles concatenated back into one matrix at the end.

use crate::array::Array;
use crate::constant::whole;
use crate::ops::IndexItem;
use tegula_core::{DType, Result};

/// A tile, or `None` where it holds only zeros.
pub(super) type Tile = Option<Array>;
/// A tile's extent along one axis.
pub(super) type Span = (usize, usize);

/// The extents of the tiles of `tile` elements along an axis of `length` (the last one
/// shorter where `tile` does not divide it; one empty tile for an empty axis).
pub(super) fn spans(length: usize, tile: usize) -> Vec<Span> {
    let spans: Vec<Span> = (0..length).step_by(tile.max(1)).map(|start| (start, (start + tile).min(length))).collect();
    if spans.is_empty() {
        vec![(0, 0)]
    } else {
        spans
    }
}

pub(super) fn range(span: Span) -> IndexItem {
    IndexItem::Slice { start: Some(span.0 as i64), stop: Some(span.1 as i64), step: None }
}

/// The tile of `x` at `rows`×`cols`.
pub(super) fn slice(x: &Array, rows: Span, cols: Span) -> Result<Array> {
    x.index(&[range(rows), range(cols)])
}

pub(super) fn first_rows(x: &Array, count: usize) -> Result<Array> {
    x.index(&[range((0, count))])
}

/// `tile`, or zeros of its extent `rows`×`cols` where it is `None`.
pub(super) fn filled(tile: Tile, rows: Span, cols: Span, dtype: DType) -> Result<Array> {
    match tile {
        Some(t) => Ok(t),
        None => Array::zeros(&[rows.1 - rows.0, cols.1 - cols.0], dtype, &whole()),
    }
}

/// One matrix from rows of tiles, `None` standing for zeros.
pub(super) fn assemble(tiles: &[Vec<Tile>], rows: &[Span], cols: &[Span], dtype: DType) -> Result<Array> {
    let lines = tiles
        .iter()
        .zip(rows)
        .map(|(line, &r)| {
            let parts = line.iter().zip(cols).map(|(t, &c)| filled(t.clone(), r, c, dtype)).collect::<Result<Vec<_>>>()?;
            Array::concatenate(&parts.iter().collect::<Vec<_>>(), Some(1))
        })
        .collect::<Result<Vec<_>>>()?;
    Array::concatenate(&lines.iter().collect::<Vec<_>>(), Some(0))
}
