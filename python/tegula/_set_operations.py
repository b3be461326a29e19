"""NumPy's set operations on flattened arrays: ``union1d``, ``intersect1d``, ``setdiff1d``. As
NumPy's, they start from ``np.unique``, which (unlike the array API's ``unique_values``)
keeps one NaN of many; then a sort and a comparison of neighbours, or ``isin``. Their lengths
depend on the data: boolean selection resolves them when the expression is built."""

from ._creation import asarray, full
from ._functions import UFUNCS, concat
from ._gather import getitem, take
from ._reshape import reshape
from ._searching import isin
from ._sorting import argsort

isnan = UFUNCS["isnan"]


def _unique(x, return_index=False):
    """NumPy's ``unique`` of the flattened ``x`` (NaNs as one value, sorted last) and, with
    ``return_index``, the flat position of each value's first occurrence."""
    flat = reshape(asarray(x), (-1,))
    order = argsort(flat, stable=True)
    ordered = take(flat, order, axis=0)
    if flat.shape[0] == 0:
        return (ordered, order) if return_index else ordered
    new = ordered[1:] != ordered[:-1]
    if ordered.dtype.kind in "fc":  # NaNs sort last: only the first starts a value
        new = new & ~(isnan(ordered[1:]) & isnan(ordered[:-1]))
    starts = concat([full((1,), True), new])
    values = getitem(ordered, starts)
    return (values, getitem(order, starts)) if return_index else values


def union1d(ar1, ar2):
    """NumPy's ``union1d``: the sorted distinct values of both arrays, flattened."""
    return _unique(concat([reshape(asarray(ar1), (-1,)), reshape(asarray(ar2), (-1,))]))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """NumPy's ``intersect1d``: the sorted values found in both arrays (never NaN) and, with
    ``return_indices``, the flat position of each in ``ar1`` and in ``ar2`` (its first
    occurrence unless ``assume_unique``)."""
    a, b = reshape(asarray(ar1), (-1,)), reshape(asarray(ar2), (-1,))
    index1 = index2 = None
    if not assume_unique:
        a, index1 = _unique(a, return_index=True)
        b, index2 = _unique(b, return_index=True)
    both = concat([a, b])
    order = argsort(both, stable=True)
    ordered = take(both, order, axis=0)
    if ordered.shape[0] == 0:
        common = ordered
        return (common, order, order) if return_indices else common
    pairs = ordered[1:] == ordered[:-1]
    common = getitem(ordered[:-1], pairs)
    if not return_indices:
        return common
    in1 = getitem(order[:-1], pairs)
    in2 = getitem(order[1:], pairs) - a.shape[0]
    if index1 is not None:
        in1, in2 = take(index1, in1, axis=0), take(index2, in2, axis=0)
    return common, in1, in2


def setdiff1d(ar1, ar2, assume_unique=False):
    """NumPy's ``setdiff1d``: the sorted distinct values of ``ar1`` not in ``ar2`` (``ar1``
    flattened as it is when ``assume_unique``)."""
    a = reshape(asarray(ar1), (-1,)) if assume_unique else _unique(ar1)
    b = asarray(ar2) if assume_unique else _unique(ar2)
    return getitem(a, isin(a, b, invert=True))
