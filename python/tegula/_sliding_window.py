"""NumPy's ``lib.stride_tricks.sliding_window_view`` (which xarray's rolling uses), lazily, one
axis at a time in Rust: a sum, product, mean, extreme, ``any`` or ``all`` over the window axis is
computed as a moving reduction, without building the windows."""

import operator

import numpy as np

from ._array import Array
from ._creation import asarray, empty


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's ``sliding_window_view``: every window of ``window_shape`` over ``axis`` (all axes
    when None; an axis may repeat), the windows' axes appended after ``x``'s trimmed axes.
    Tegula arrays are values, so ``writeable=True`` is refused."""
    x = asarray(x)
    if writeable:
        raise ValueError("tegula's windows are lazy values and cannot be writeable")
    shape = tuple(operator.index(w) for w in np.atleast_1d(window_shape).tolist())
    if any(w < 0 for w in shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        if len(shape) != x.ndim:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                             f"got {len(shape)} window_shape elements and `x.ndim` is {x.ndim}.")
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(_normalized(a, x.ndim) for a in np.atleast_1d(axis).tolist())
        if len(shape) != len(axes):
            raise ValueError(f"Must provide matching length window_shape and axis; got {len(shape)} window_shape "
                             f"elements and {len(axes)} axes elements.")
    trimmed = list(x.shape)
    for a, w in zip(axes, shape):
        if trimmed[a] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        trimmed[a] -= w - 1
    if 0 in shape:
        return empty(tuple(trimmed) + shape, dtype=x.dtype)
    for a, w in zip(axes, shape):
        x = Array(x._h.sliding_windows(a, w))
    return x


def _normalized(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim
