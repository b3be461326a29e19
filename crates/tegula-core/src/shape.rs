//! Shapes, broadcasting and axis normalisation, with NumPy's rules and error messages.

use crate::error::{Result, TegulaError};
use crate::shape_err;

/// An array's length along each axis.
pub type Shape = Vec<usize>;

/// NumPy broadcasting of two shapes (right-aligned; a length-1 axis stretches).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Shape> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            _ => Err(shape_err!(
                "operands could not be broadcast together with shapes {} {}",
                fmt_shape(a),
                fmt_shape(b)
            )),
        })
        .collect()
}

/// Broadcasts any number of shapes.
pub fn broadcast_all(shapes: &[&[usize]]) -> Result<Shape> {
    shapes.iter().try_fold(Vec::new(), |acc, s| broadcast_shapes(&acc, s))
}

/// Maps a possibly negative axis into `[0, ndim)`.
pub fn normalize_axis(axis: i64, ndim: usize) -> Result<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(TegulaError::Axis { axis, ndim });
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// Normalises a list of axes (`None` means all axes); sorted, and a repeated axis is an error.
pub fn normalize_axes(axes: Option<&[i64]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok((0..ndim).collect());
    };
    let mut out = axes
        .iter()
        .map(|&a| normalize_axis(a, ndim))
        .collect::<Result<Vec<_>>>()?;
    out.sort_unstable();
    if out.windows(2).any(|w| w[0] == w[1]) {
        return Err(TegulaError::Value("repeated axis".into()));
    }
    Ok(out)
}

/// Formats a shape as Python prints a tuple: `(3,)`, `(2, 3)`, `()`.
pub fn fmt_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The number of elements of an array of `shape` (1 for a 0-d array).
pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}
