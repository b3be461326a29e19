"""Manipulation functions built from tegula's lazy operations (indexing, concatenation,
transposition, element-wise ``where``): each adds a few nodes to the plan, none a task per chunk
of its own making, so they stay lazy and chunked."""

import operator

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray, full
from ._functions import UFUNCS, concat, where
from ._reshape import reshape

maximum, minimum = UFUNCS["maximum"], UFUNCS["minimum"]


def _axis_list(axis, ndim):
    """``axis`` (None, an int or a sequence) as sorted non-negative axes; NumPy's errors."""
    axes = range(ndim) if axis is None else axis if isinstance(axis, (tuple, list)) else (axis,)
    out = [_normalize(a, ndim) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return sorted(out)


def _normalize(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def flip(x, /, axis=None):
    """``x`` with the order of elements reversed along ``axis`` (all axes by default); a view of
    each block."""
    x = asarray(x)
    key = [slice(None)] * x.ndim
    for a in _axis_list(axis, x.ndim):
        key[a] = slice(None, None, -1)
    return x[tuple(key)]


def roll(x, /, shift, axis=None):
    """Elements shifted by ``shift`` along ``axis`` (wrapping around); ``axis=None`` rolls the
    flattened array. Two slices joined, so no block is copied."""
    x = asarray(x)
    if axis is None:
        shifts = [operator.index(shift)]
        axes = None
    else:
        axes = [operator.index(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        shifts = [operator.index(s) for s in shift] if isinstance(shift, (tuple, list)) else [operator.index(shift)] * len(axes)
    return Array(_tegula.roll(x._h, shifts, axes))


def squeeze(x, /, axis=None):
    """``x`` without the length-one axes ``axis`` (all of them when None); a ``ValueError`` for
    an axis whose length is not one."""
    x = asarray(x)
    # NumPy's own rules (and errors) on a stand-in of x's shape that holds no data
    out_shape = np.squeeze(np.broadcast_to(np.empty((), np.int8), x.shape), axis=axis).shape
    if out_shape == x.shape:
        return x
    axes = [a for a, n in enumerate(x.shape) if n == 1] if axis is None else _axis_list(axis, x.ndim)
    return x[tuple(0 if a in axes else slice(None) for a in range(x.ndim))]


def _int_or_sequence(axes):
    """An axis, or any iterable of them (a range, an array), as a list, as NumPy's
    normalize_axis_tuple reads it: xarray moves axes with ranges."""
    try:
        return [operator.index(axes)]
    except TypeError:
        return list(axes)


def moveaxis(x, source, destination, /):
    """``x`` with axes ``source`` moved to positions ``destination`` (a transpose)."""
    source = [operator.index(a) for a in _int_or_sequence(source)]
    destination = [operator.index(a) for a in _int_or_sequence(destination)]
    return Array(_tegula.moveaxis(asarray(x)._h, source, destination))


def broadcast_shapes(*shapes):
    """NumPy's ``broadcast_shapes``: the shape the given shapes broadcast to."""
    return np.broadcast_shapes(*shapes)


def broadcast_to(x, /, shape):
    """``x`` broadcast to ``shape`` (NumPy's rules and errors): a fused selection of ``x``
    against a constant, so nothing is stored per broadcast element."""
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    return Array(_tegula.broadcast_to(asarray(x)._h, list(shape)))


def broadcast_arrays(*arrays):
    """The arrays broadcast to their common shape."""
    arrays = [asarray(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple of arrays (views of its blocks)."""
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("unstack needs an array of at least one dimension")
    a = _normalize(axis, x.ndim)
    return tuple(x[(slice(None),) * a + (i,)] for i in range(x.shape[a]))


def clip(x, /, min=None, max=None):
    """``x`` limited to ``[min, max]`` (NaN stays NaN); the result keeps ``x``'s dtype."""
    x = asarray(x)
    out = x
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def diff(x, /, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th difference along ``axis``; booleans give ``x[1:] != x[:-1]``, as NumPy."""
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    a = _normalize(axis, x.ndim)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return x  # NumPy ignores prepend and append then
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        shape = list(x.shape)
        shape[a] = 1
        parts = [asarray(p) if asarray(p).ndim else broadcast_to(p, tuple(shape)) for p in parts]
        x = concat(parts, axis=a)
    lo, hi = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    lo[a], hi[a] = slice(None, -1), slice(1, None)
    for _ in range(n):
        x = x[tuple(hi)] != x[tuple(lo)] if x.dtype == bool else x[tuple(hi)] - x[tuple(lo)]
    return x


def round(x, /, decimals=0):
    """Rounded half to even to ``decimals`` places (NumPy's algorithm: scale, round, unscale);
    integers are returned unchanged for ``decimals >= 0``. (Complex numbers with an infinite
    part are returned as they are when ``decimals != 0``.)"""
    x = asarray(x)
    decimals = operator.index(decimals)
    if x.dtype == bool:  # NumPy rounds bools as float16, and cannot scale them
        if decimals:
            op = "multiply" if decimals > 0 else "divide"
            raise TypeError(f"Cannot cast ufunc '{op}' output from dtype('float64') to dtype('bool') with casting "
                            "rule 'same_kind'")
        x = x.astype(np.float16)
    elif x.dtype.kind in "iu":
        if decimals >= 0:
            return x
        scale = 10 ** -decimals
        return UFUNCS["rint"](x / scale).astype(x.dtype) * scale
    if decimals == 0:
        return UFUNCS["rint"](x)
    scale = 10.0 ** abs(decimals)
    out = UFUNCS["rint"](x * scale) / scale if decimals > 0 else UFUNCS["rint"](x / scale) * scale
    # complex products make NaN of an infinite part (inf * 0); NumPy rounds the parts apart
    return where(UFUNCS["isfinite"](x), out, x) if x.dtype.kind == "c" else out


def tile(x, repetitions, /):
    """``x`` repeated ``repetitions`` times along each axis (NumPy's ``tile``): a broadcast
    over new axes, then a reshape, so nothing is stored per copy."""
    x = asarray(x)
    reps = (operator.index(repetitions),) if np.ndim(repetitions) == 0 else tuple(map(operator.index, repetitions))
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    n = max(len(reps), x.ndim)
    reps = (1,) * (n - len(reps)) + reps
    x = reshape(x, (1,) * (n - x.ndim) + x.shape)
    expanded = x[tuple(v for _ in range(n) for v in (None, slice(None)))]
    shape = tuple(v for r, d in zip(reps, x.shape) for v in (r, d))
    return reshape(broadcast_to(expanded, shape), tuple(r * d for r, d in zip(reps, x.shape)))


def repeat(x, repeats, /, axis=None):
    """Each element repeated ``repeats`` times along ``axis`` (the flattened array when None).
    An integer count is a broadcast over a new axis, then a reshape; per-element counts
    (a 1-d array) join the broadcast runs of each element."""
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    a = _normalize(axis, x.ndim)
    if isinstance(repeats, int) or np.ndim(repeats) == 0:
        r = operator.index(repeats.compute() if isinstance(repeats, Array) else repeats)
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        expanded = x[(slice(None),) * (a + 1) + (None,)]
        shape = x.shape[:a + 1] + (r,) + x.shape[a + 1:]
        return reshape(broadcast_to(expanded, shape), x.shape[:a] + (x.shape[a] * r,) + x.shape[a + 1:])
    counts = np.asarray(repeats.compute() if isinstance(repeats, Array) else repeats)
    if counts.dtype.kind not in "iu" or counts.ndim != 1 or len(counts) not in (1, x.shape[a]):
        raise ValueError(f"repeats must be an integer or a 1-d integer array of length 1 or {x.shape[a]}")
    if (counts < 0).any():
        raise ValueError("repeats may not contain negative values")
    if len(counts) == 1:
        return repeat(x, int(counts[0]), axis=a)
    runs = []
    for i, r in enumerate(counts.tolist()):
        if r:
            shape = x.shape[:a] + (r,) + x.shape[a + 1:]
            runs.append(broadcast_to(x[(slice(None),) * a + (slice(i, i + 1),)], shape))
    if not runs:
        return x[(slice(None),) * a + (slice(0, 0),)]
    return concat(runs, axis=a)


def fliplr(m):
    """``m`` with its columns (axis 1) in reverse order."""
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, axis=1)


def flipud(m):
    """``m`` with its rows (axis 0) in reverse order."""
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first axis
    towards the second (NumPy's direction): flips and a transposition, so views of blocks."""
    m = asarray(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not all(-m.ndim <= a < m.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axis=axes[0]), axis=axes[1])
    order = list(range(m.ndim))
    first, second = axes[0] % m.ndim, axes[1] % m.ndim
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return flip(m, axis=axes[1]).transpose(order)
    return flip(m.transpose(order), axis=axes[1])


def swapaxes(a, axis1, axis2):
    """``a`` with axes ``axis1`` and ``axis2`` interchanged (a transpose)."""
    return asarray(a).swapaxes(axis1, axis2)


def rollaxis(a, axis, start=0):
    """NumPy's ``rollaxis``: axis ``axis`` moved to lie before position ``start`` (a transpose;
    NumPy's ``AxisError`` for either out of range)."""
    a = asarray(a)
    n = a.ndim
    axis = _normalize(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return a.transpose(order)


def ravel(a, order="C"):
    """The flattened array (a reshape): in row-major order for ``order`` ``"C"``, ``"A"`` and
    ``"K"`` (a tegula array's elements are in row-major order), column-major for ``"F"``."""
    a = asarray(a)
    if order not in ("C", "F", "A", "K", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return (a.transpose() if order == "F" else a).reshape(-1)


def shape(a):
    """The shape of ``a``, read without computing anything."""
    return a.shape if isinstance(a, Array) else np.shape(a)


def ndim(a):
    """The number of axes of ``a``, read without computing anything."""
    return a.ndim if isinstance(a, Array) else np.ndim(a)


def ediff1d(ary, to_end=None, to_begin=None):
    """NumPy's ``ediff1d``: the differences of consecutive elements of the flattened array, in
    its dtype, with ``to_begin`` and ``to_end`` (flattened, cast to that dtype; a
    ``TypeError`` unless the ``same_kind`` rule allows the cast) before and after."""
    flat = ravel(ary)
    parts = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            parts.append(None)
            continue
        extra = asarray(extra)
        if not np.can_cast(extra.dtype, flat.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the `same_kind` rule.")
        parts.append(ravel(extra).astype(flat.dtype))
    diffs = flat[1:] - flat[:-1]
    return concat([p for p in (parts[0], diffs, parts[1]) if p is not None])
