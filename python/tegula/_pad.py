"""NumPy's ``pad``: the arguments checked and broadcast to one pair per axis as NumPy does them,
then one call of the Rust crate's ``Array::pad`` (one axis after another, each side a few lazy
operations joined to the array)."""

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray

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
    values = _values(x, kwargs, "constant_values" if mode == "constant" else "end_values") \
        if mode in ("constant", "linear_ramp") else None
    odd = _reflect_type(kwargs.get("reflect_type", "even")) if mode in ("reflect", "symmetric") else False
    lengths = kwargs.get("stat_length")
    lengths = None if lengths is None else _pairs(lengths, x.ndim, "stat_length", integral=True)
    if lengths is not None and (lengths < 0).any():
        raise ValueError("index can't contain negative values")
    return Array(_tegula.pad(x._h, widths.tolist(), mode, values, odd, None if lengths is None else lengths.tolist()))


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


def _reflect_type(value):
    if value not in ("even", "odd"):
        raise ValueError(f"reflect_type must be 'even' or 'odd', not {value!r}")
    return value == "odd"


def _values(x, options, key):
    """The constants or ramp ends: a pair of 0-d arrays per axis (NumPy's ``_as_pairs``). A
    constant is cast unsafely to the array's dtype now, as NumPy assigns it."""
    pairs = _pairs(options.get(key, 0), x.ndim, key)
    if key == "constant_values":
        with np.errstate(invalid="ignore", over="ignore"):
            pairs = np.asarray(pairs).astype(x.dtype)
    return [tuple(asarray(np.asarray(v))._h for v in pair) for pair in pairs]
