"""NumPy's ``lib.stride_tricks.sliding_window_view`` (which xarray's rolling uses), lazily:
along each windowed axis the array is stacked with its own shifted slices, so windows that
cross block boundaries need no special case and no Python runs per block."""

import operator

import numpy as np

from ._creation import asarray, empty


def _windows(x, axis, width):
    """``x`` with a new last axis of ``width``: element ``i`` along ``axis`` becomes the window
    ``x[i : i + width]`` (one block along the new axis). The shifts are stacked along a new
    first axis, so each block is joined from whole contiguous slabs, and that axis is then
    moved last as a view: a reduction over the windows sums slabs, never gathers every
    ``width``-th element."""
    import tegula

    count = x.shape[axis] - width + 1
    shifted = [x[(slice(None),) * axis + (slice(k, k + count),)] for k in range(width)]
    chunks = shifted[0].chunks  # every shift on the first one's blocks, not their common refinement
    out = tegula.stack([s.rechunk(chunks) for s in shifted], axis=0)
    return tegula.moveaxis(out.rechunk({0: -1}), 0, -1)


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
        x = _windows(x, a, w)
    return x


def _normalized(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim
