"""The set functions of the array API (``unique_*``) and NumPy's ``unique``, from a stable sort
of the flattened array: equal neighbours mark where a new value starts (NaNs are never equal,
so each is its own value, as the standard and NumPy's ``unique_values`` say; NumPy's
``unique`` makes them one value by default). Their lengths depend on the data; boolean
selection resolves them when the expression is built."""

from collections import namedtuple

import numpy as np

from ._creation import arange, asarray, full
from ._functions import concat

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _sorted_runs(x, equal_nan=False):
    """``(flat, order, sorted, starts)``: the flattened array, its stable sorting permutation,
    the sorted values and the boolean mask of the sorted positions where a new value starts.
    With ``equal_nan``, all NaNs (complex ones: a NaN in either part) are one value, which
    starts at the first of them in sorted order (they sort last)."""
    from ._sorting import argsort

    flat = asarray(x).reshape(-1)
    order = argsort(flat, stable=True)
    ordered = _take(flat, order)
    n = flat.shape[0]
    if n == 0:
        return flat, order, ordered, full((0,), False)
    differs = ordered[1:] != ordered[:-1]
    if equal_nan and ordered.dtype.kind in "fc":
        from ._functions import UFUNCS

        nan = UFUNCS["isnan"](ordered)
        differs = differs & ~(nan[1:] & nan[:-1])
    starts = concat([full((1,), True), differs])
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


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """NumPy's ``unique`` of the flattened array: its sorted distinct values and, as asked, the
    flat index of each one's first occurrence, the index of each element's value (in ``ar``'s
    shape) and the counts, as a tuple after the values (the values alone otherwise). With
    ``equal_nan`` (NumPy's default) all NaNs are one value. Only ``axis=None``; the values
    are sorted whatever ``sorted`` says (NumPy allows that)."""
    if axis is not None:
        raise NotImplementedError("tegula's unique takes axis=None only (the distinct elements of the flattened "
                                  "array)")
    x = asarray(ar)
    flat, order, ordered, starts = _sorted_runs(x, equal_nan=bool(equal_nan))
    out = [_select(ordered, starts)]
    if return_index:
        out.append(_select(order, starts))
    if return_inverse:
        out.append(_inverse(x, order, starts))
    if return_counts:
        out.append(_counts(starts, flat.shape[0]))
    return out[0] if len(out) == 1 else tuple(out)
