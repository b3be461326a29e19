//! Rearranging without moving data: moving axes and broadcasting to a shape.

use crate::array::Array;
use tegula_core::shape::{fmt_shape, normalize_axis};
use tegula_core::{value_err, AxisChunks, ChunkSpec, DType, Result, Scalar};

impl Array {
    /// NumPy's `moveaxis`: the axes `source` moved to positions `destination`, the others
    /// keeping their order (a transpose, so a view).
    pub fn moveaxis(&self, source: &[i64], destination: &[i64]) -> Result<Array> {
        let ndim = self.ndim();
        let normalized = |axes: &[i64]| axes.iter().map(|&a| normalize_axis(a, ndim)).collect::<Result<Vec<_>>>();
        let (src, dst) = (normalized(source)?, normalized(destination)?);
        if src.len() != dst.len() {
            return Err(value_err!("source and destination must have the same number of elements"));
        }
        let repeats = |axes: &[usize]| axes.iter().enumerate().any(|(i, a)| axes[..i].contains(a));
        if repeats(&src) || repeats(&dst) {
            return Err(value_err!("repeated axis in moveaxis"));
        }
        let mut order: Vec<usize> = (0..ndim).filter(|a| !src.contains(a)).collect();
        let mut moves: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        moves.sort_unstable();
        for (d, s) in moves {
            order.insert(d, s);
        }
        self.transpose(Some(&order.iter().map(|&a| a as i64).collect::<Vec<_>>()))
    }

    /// This array broadcast to `shape` (NumPy's rules and error): a fused selection of it
    /// against a constant, so nothing is stored per broadcast element. New and stretched axes
    /// take automatic chunks, the others keep this array's.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        self.broadcast_with(shape, AxisChunks::Auto)
    }

    /// `broadcast_to`, the new and stretched axes chunked as `stretched` says.
    pub(crate) fn broadcast_with(&self, shape: &[usize], stretched: AxisChunks) -> Result<Array> {
        let own = self.shape();
        let lead = shape.len().checked_sub(own.len());
        let fits = lead.is_some_and(|lead| own.iter().zip(&shape[lead..]).all(|(&have, &want)| have == want || have == 1));
        let Some(lead) = lead.filter(|_| fits) else {
            return Err(value_err!(
                "operands could not be broadcast together with remapped shapes [original->remapped]: {} and requested shape {}",
                fmt_shape(&own),
                fmt_shape(shape)
            ));
        };
        if own == shape {
            return Ok(self.clone());
        }
        let chunks = (0..shape.len())
            .map(|i| match i.checked_sub(lead) {
                Some(j) if own[j] == shape[i] => AxisChunks::Explicit(self.chunks().sizes()[j].clone()),
                _ => stretched.clone(),
            })
            .collect();
        let everywhere = Array::full(shape, Scalar::Bool(true), Some(DType::Bool), &ChunkSpec::PerAxis(chunks))?;
        Array::where_(&everywhere, self, self)
    }
}
