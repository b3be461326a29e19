"""The set functions of the array API (``unique_*``), NumPy's ``unique`` and its set operations
(``union1d``, ``intersect1d``, ``setdiff1d``). The algorithms are the Rust crate's
(``Array::unique`` and friends: a stable sort of the flattened array, where equal neighbours
mark where a new value starts); their lengths depend on the data, so boolean selection
resolves them when the expression is built."""

import operator
from collections import namedtuple

from . import _tegula
from ._array import Array
from ._creation import asarray

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique(x, equal_nan=False, index=False, inverse=False, counts=False, axis=None):
    """The distinct values and what was asked for besides, as arrays (None where not asked)."""
    axis = None if axis is None else operator.index(axis)
    found = _tegula.unique(asarray(x)._h, bool(equal_nan), index, inverse, counts, axis)
    return [None if h is None else Array(h) for h in found]


def unique_values(x, /):
    """The distinct values of ``x``, sorted (1-d); NaNs are each their own value."""
    return _unique(x)[0]


def unique_counts(x, /):
    """The distinct values of ``x`` and how often each occurs."""
    values, _, _, counts = _unique(x, counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """The distinct values of ``x`` and, for each element of ``x``, the index of its value."""
    values, _, inverse, _ = _unique(x, inverse=True)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /):
    """Distinct values, the flat index of each one's first occurrence, the inverse indices and
    the counts."""
    return UniqueAllResult(*_unique(x, index=True, inverse=True, counts=True))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """NumPy's ``unique`` of the flattened array: its sorted distinct values and, as asked, the
    flat index of each one's first occurrence, the index of each element's value (in ``ar``'s
    shape) and the counts, as a tuple after the values (the values alone otherwise). With
    ``equal_nan`` (NumPy's default) all NaNs are one value. With ``axis``, the distinct
    slices along that axis, in lexicographic order (as NumPy, slices holding NaNs are never
    equal, and the inverse is 1-d). The values are sorted whatever ``sorted`` says (NumPy
    allows that)."""
    out = [a for a in _unique(ar, equal_nan, bool(return_index), bool(return_inverse), bool(return_counts), axis)
           if a is not None]
    return out[0] if len(out) == 1 else tuple(out)


def union1d(ar1, ar2):
    """NumPy's ``union1d``: the sorted distinct values of both arrays, flattened."""
    return Array(_tegula.union1d(asarray(ar1)._h, asarray(ar2)._h))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """NumPy's ``intersect1d``: the sorted values found in both arrays (never NaN) and, with
    ``return_indices``, the flat position of each in ``ar1`` and in ``ar2`` (its first
    occurrence unless ``assume_unique``)."""
    common, in1, in2, _ = _tegula.intersect1d(asarray(ar1)._h, asarray(ar2)._h, bool(assume_unique),
                                              bool(return_indices))
    return (Array(common), Array(in1), Array(in2)) if return_indices else Array(common)


def setdiff1d(ar1, ar2, assume_unique=False):
    """NumPy's ``setdiff1d``: the sorted distinct values of ``ar1`` not in ``ar2`` (``ar1``
    flattened as it is when ``assume_unique``)."""
    return Array(_tegula.setdiff1d(asarray(ar1)._h, asarray(ar2)._h, bool(assume_unique)))
