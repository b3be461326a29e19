"""Searching functions: ``argmax``/``argmin`` (the Rust crate's ``Array::argmax``: the extreme
value, then the first position holding it), ``count_nonzero`` and ``isin``."""

import operator

from . import _tegula
from ._array import Array, _axes, refuse_out
from ._creation import asarray
from ._dtypes import is_python_scalar


def _arg_extreme(x, axis, keepdims, maximum):
    x = asarray(x)
    if axis is not None:
        axis = operator.index(axis)
    return Array(_tegula.arg_extreme(x._h, maximum, axis, bool(keepdims)))


def argmax(x, /, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum along ``axis`` (of the flattened array when None); NaN counts
    as the maximum, as in NumPy."""
    refuse_out(out)
    return _arg_extreme(x, axis, keepdims, True)


def argmin(x, /, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum along ``axis``; NaN counts as the minimum, as in NumPy."""
    refuse_out(out)
    return _arg_extreme(x, axis, keepdims, False)


def count_nonzero(x, /, axis=None, *, keepdims=False):
    """Number of non-zero elements along ``axis`` (int64)."""
    x = asarray(x)
    if x.ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        axis = None  # as NumPy, axis 0 or -1 of a 0-d array is all of it
    return Array(_tegula.count_nonzero(x._h, _axes(axis), bool(keepdims)))


def isin(x1, x2, /, assume_unique=False, invert=False):
    """Whether each element of ``x1`` is among the elements of ``x2`` (the Rust crate's
    ``Array::isin``: a comparison against every element of ``x2`` along a new axis, reduced by
    ``any``; each task holds one block of each). NaN is in nothing, as in NumPy. A Python
    scalar compares weakly, as NumPy's. ``assume_unique`` is NumPy's speed hint, which changes
    nothing here."""
    if is_python_scalar(x2):
        found = asarray(x1) == x2
        return ~found if invert else found
    if is_python_scalar(x1):
        flat = asarray(x2).reshape(-1)
        found = (flat == x1).any() if flat.shape[0] else asarray(False)
        return ~found if invert else found
    return Array(_tegula.isin(asarray(x1)._h, asarray(x2)._h, bool(invert)))
