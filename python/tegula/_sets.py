"""The set functions of the array API (``unique_*``), from a stable sort of the flattened
array: equal neighbours mark where a new value starts (NaNs are never equal, so each is its
own value, as the standard and NumPy's ``unique_values`` say). Their lengths depend on the
data; boolean selection resolves them when the expression is built."""

from collections import namedtuple

import numpy as np

from ._creation import arange, asarray, full
from ._functions import concat

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _sorted_runs(x):
    """``(flat, order, sorted, starts)``: the flattened array, its stable sorting permutation,
    the sorted values and the boolean mask of the sorted positions where a new value starts."""
    from ._sorting import argsort

    flat = asarray(x).reshape(-1)
    order = argsort(flat, stable=True)
    ordered = _take(flat, order)
    n = flat.shape[0]
    if n == 0:
        return flat, order, ordered, full((0,), False)
    starts = concat([full((1,), True), ordered[1:] != ordered[:-1]])
    return flat, order, ordered, starts


def _take(x, indices):
    from ._gather import take

    return take(x, indices, axis=0)


def _select(x, mask):
    from ._gather import getitem

    return getitem(x, mask)


def _counts(starts, n):
    positions = _select(arange(n, dtype="int64"), starts)
    return concat([positions[1:], asarray(np.array([n], dtype=np.int64))]) - positions


def _inverse(x, order, starts):
    """The index of each element's value among the unique values, in ``x``'s shape: the
    running count of starts, read back through the inverse of the sorting permutation."""
    from ._sorting import argsort, cumulative_sum

    group = cumulative_sum(starts.astype("int64"), axis=0) - 1
    return _take(group, argsort(order)).reshape(asarray(x).shape)


def unique_values(x, /):
    """The distinct values of ``x``, sorted (1-d)."""
    _, _, ordered, starts = _sorted_runs(x)
    return _select(ordered, starts)


def unique_counts(x, /):
    """The distinct values of ``x`` and how often each occurs."""
    flat, _, ordered, starts = _sorted_runs(x)
    return UniqueCountsResult(_select(ordered, starts), _counts(starts, flat.shape[0]))


def unique_inverse(x, /):
    """The distinct values of ``x`` and, for each element of ``x``, the index of its value."""
    _, order, ordered, starts = _sorted_runs(x)
    return UniqueInverseResult(_select(ordered, starts), _inverse(x, order, starts))


def unique_all(x, /):
    """Distinct values, the flat index of each one's first occurrence, the inverse indices and
    the counts."""
    flat, order, ordered, starts = _sorted_runs(x)
    return UniqueAllResult(_select(ordered, starts), _select(order, starts), _inverse(x, order, starts),
                           _counts(starts, flat.shape[0]))
