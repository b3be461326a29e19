"""NumPy's ``pad``, one axis after another as NumPy does (so corners see the earlier axes'
padding). Each side of an axis is a few lazy operations joined to the array by ``concat``:
constants, gathers at index arrays computed here (their size is the pad width, never the
array's), reductions for the statistic modes and an element-wise ramp."""

import numpy as np

from ._creation import asarray, full
from ._functions import REDUCTIONS, UFUNCS, concat, where
from ._gather import take
from ._manipulation import broadcast_to, round as round_half_even
from ._statistics import median

_STATISTICS = ("maximum", "minimum", "mean", "median")
_MODE_OPTIONS = {"constant": {"constant_values"}, "edge": set(), "linear_ramp": {"end_values"},
                 "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "wrap": set(), "empty": set(),
                 **{m: {"stat_length"} for m in _STATISTICS}}


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` (NumPy's forms: an int, a pair, or one pair per axis)
    with NumPy's modes: constant, edge, linear_ramp, maximum, mean, median, minimum, reflect,
    symmetric (both with ``reflect_type`` even or odd), wrap and empty."""
    x = asarray(array)
    if mode not in _MODE_OPTIONS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - _MODE_OPTIONS[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    widths = _pairs(pad_width, x.ndim, "pad_width", integral=True)
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    for axis, (before, after) in enumerate(widths):
        if (before or after) and x.shape[axis] == 0 and mode not in ("constant", "empty"):
            raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    side = _side_function(mode, x, kwargs)
    for axis, (before, after) in enumerate(widths):
        if before or after:
            parts = [side(x, axis, 0, int(before)), x, side(x, axis, 1, int(after))]
            x = concat([p for p in parts if p is not None], axis=axis)
    return x


def _pairs(value, ndim, name, integral=False):
    """``value`` broadcast to one (before, after) pair per axis, as NumPy's ``_as_pairs``."""
    pairs = np.asarray(value)
    if integral:
        if pairs.dtype.kind != "i":
            raise TypeError(f"`{name}` must be of integral type.")
        pairs = pairs.astype(np.int64)
    try:
        return np.broadcast_to(pairs, (ndim, 2))
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes: "
                         f"{name} of shape {pairs.shape} for {ndim} axes") from None


def _side_function(mode, x, options):
    """The function ``(x, axis, side, width) -> Array or None`` (``side`` 0: before, 1: after)
    that makes one side's padding of the current array."""
    if mode == "constant":
        values = _pairs(options.get("constant_values", 0), x.ndim, "constant_values")
        return lambda x, axis, side, width: _constant(x, axis, width, values[axis][side])
    if mode == "empty":
        return lambda x, axis, side, width: _constant(x, axis, width, 0)
    if mode == "edge":
        return lambda x, axis, side, width: _gathered(x, axis, width, _edge_index(x.shape[axis], side, width))
    if mode == "wrap":
        return lambda x, axis, side, width: _gathered(x, axis, width, _positions(x.shape[axis], side, width) % x.shape[axis])
    if mode in ("reflect", "symmetric"):
        odd = _reflect_type(options.get("reflect_type", "even"))
        return lambda x, axis, side, width: _reflected(x, axis, side, width, mode, odd)
    if mode == "linear_ramp":
        ends = _pairs(options.get("end_values", 0), x.ndim, "end_values")
        return lambda x, axis, side, width: _ramp(x, axis, side, width, ends[axis][side])
    lengths = options.get("stat_length")
    lengths = None if lengths is None else _pairs(lengths, x.ndim, "stat_length", integral=True)
    if lengths is not None and (lengths < 0).any():
        raise ValueError("index can't contain negative values")
    return lambda x, axis, side, width: _statistic(x, axis, side, width, mode, lengths)


def _constant(x, axis, width, value):
    if width == 0:
        return None
    shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
    # NumPy assigns the constant into the array, casting it unsafely to the array's dtype.
    with np.errstate(invalid="ignore", over="ignore"):
        value = np.asarray(value).astype(x.dtype)
    return full(shape, value[()], dtype=x.dtype)


def _positions(n, side, width):
    """The positions of one side's padding relative to the array's first element."""
    return np.arange(-width, 0) if side == 0 else np.arange(n, n + width)


def _edge_index(n, side, width):
    return np.full(width, 0 if side == 0 else n - 1, dtype=np.int64)


def _gathered(x, axis, width, index):
    return None if width == 0 else take(x, asarray(index.astype(np.int64)), axis=axis)


def _reflect_type(value):
    if value not in ("even", "odd"):
        raise ValueError(f"reflect_type must be 'even' or 'odd', not {value!r}")
    return value == "odd"


def _reflected(x, axis, side, width, mode, odd):
    """Mirror images of the array continued periodically: ``reflect`` mirrors about the edge
    elements (period 2(n-1)), ``symmetric`` about the edges themselves (period 2n). With
    ``odd`` each image is also negated about its edge, which adds twice the end-to-end change
    per period: NumPy's iterated reflections in closed form."""
    if width == 0:
        return None
    n = x.shape[axis]
    period = 2 * n if mode == "symmetric" else max(2 * (n - 1), 1)
    periods, offset = np.divmod(_positions(n, side, width), period)
    mirrored = offset >= n
    index = np.where(mirrored, period - offset - (1 if mode == "symmetric" else 0), offset)
    if n == 1:
        index, mirrored = np.zeros_like(index), np.zeros_like(mirrored)
    images = take(x, asarray(index), axis=axis)
    if not odd:
        return images
    if x.dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    shape = [1] * x.ndim
    shape[axis] = width
    first, last = _edge(x, axis, 0), _edge(x, axis, 1)
    mirrored = asarray(mirrored.reshape(shape))
    drift = asarray((2 * periods).reshape(shape)).astype(x.dtype) * (last - first)
    return where(mirrored, 2 * last - images, images) + drift


def _edge(x, axis, side):
    key = [slice(None)] * x.ndim
    key[axis] = slice(0, 1) if side == 0 else slice(x.shape[axis] - 1, x.shape[axis])
    return x[tuple(key)]


def _ramp(x, axis, side, width, end):
    """NumPy's ``linspace(end, edge, width, endpoint=False)`` before the array (reversed
    after it): computed in the inexact type of the end value and the array, which for NumPy's
    end values (int64 or float64 scalars) is double precision, then cast to the array's dtype
    (integers rounded down first, as linspace does)."""
    if width == 0:
        return None
    end = np.asarray(end)
    inexact = np.result_type(end.dtype, x.dtype, np.float16)
    end = end.astype(inexact)[()]
    delta = _edge(x, axis, side).astype(inexact) - end
    shape = [1] * x.ndim
    shape[axis] = width
    steps = asarray((np.arange(width) if side == 0 else np.arange(width)[::-1]).reshape(shape).astype(inexact))
    # linspace multiplies by the step, unless some step is zero: then by delta after dividing.
    some_step_zero = REDUCTIONS["any"]((delta / width) == 0)
    ramp = where(some_step_zero, steps / width * delta, steps * (delta / width)) + end
    if x.dtype.kind in "iu":
        ramp = UFUNCS["floor"](ramp)
    return ramp.astype(x.dtype)


def _statistic(x, axis, side, width, mode, lengths):
    """The maximum, minimum, mean or median of the ``stat_length`` elements at this side's
    end, repeated ``width`` times (means and medians of integers rounded, as NumPy)."""
    if width == 0:
        return None
    n = x.shape[axis]
    length = n if lengths is None else min(int(lengths[axis][side]), n)
    if length == 0:
        if mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
    key = [slice(None)] * x.ndim
    key[axis] = slice(0, length) if side == 0 else slice(n - length, n)
    stat = _reduce(mode, x[tuple(key)], axis)
    if x.dtype.kind in "iu" and mode in ("mean", "median"):
        stat = round_half_even(stat)
    shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
    return broadcast_to(stat.astype(x.dtype), shape)


def _reduce(mode, part, axis):
    if mode == "median":
        return median(part, axis=axis, keepdims=True)
    name = {"maximum": "max", "minimum": "min", "mean": "mean"}[mode]
    return REDUCTIONS[name](part, axis=axis, keepdims=True)
