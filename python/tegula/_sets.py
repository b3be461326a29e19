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
    With ``equal_nan``, all NaNs (complex ones: a NaN in either part; NaT) are one value, which
    starts at the first of them in sorted order (they sort last)."""
    from ._sorting import argsort

    flat = asarray(x).reshape(-1)
    order = argsort(flat, stable=True)
    ordered = _take(flat, order)
    n = flat.shape[0]
    if n == 0:
        return flat, order, ordered, full((0,), False)
    differs = ordered[1:] != ordered[:-1]
    if equal_nan and ordered.dtype.kind in "fcmM":  # NaT is the NaN of times
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
    ``equal_nan`` (NumPy's default) all NaNs are one value. With ``axis``, the distinct
    slices along that axis, in lexicographic order (as NumPy, slices holding NaNs are never
    equal, and the inverse is 1-d). The values are sorted whatever ``sorted`` says (NumPy
    allows that)."""
    x = asarray(ar)
    if axis is not None:
        return _unique_slices(x, axis, return_index, return_inverse, return_counts)
    flat, order, ordered, starts = _sorted_runs(x, equal_nan=bool(equal_nan))
    out = [_select(ordered, starts)]
    if return_index:
        out.append(_select(order, starts))
    if return_inverse:
        out.append(_inverse(x, order, starts))
    if return_counts:
        out.append(_counts(starts, flat.shape[0]))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_slices(x, axis, return_index, return_inverse, return_counts):
    """NumPy's ``unique`` along ``axis``: the slices as rows, sorted lexicographically by a
    stable sort per column from the last (so equal rows keep their order and the first
    occurrence leads), a new row starting wherever one differs from the row before it."""
    from ._functions import any as any_
    from ._manipulation import _normalize, moveaxis
    from ._sorting import argsort

    axis = _normalize(axis, x.ndim)
    moved = moveaxis(x, axis, 0)
    n, rest = moved.shape[0], moved.shape[1:]
    rows = moved.reshape(n, int(np.prod(rest, dtype=np.int64)))
    order = arange(n, dtype="int64")
    for column in reversed(range(rows.shape[1])):
        order = _take(order, argsort(_take(rows[:, column], order), stable=True))
    ordered = _take(rows, order)
    if n == 0:
        starts = full((0,), False)
    else:
        starts = concat([full((1,), True), any_(ordered[1:] != ordered[:-1], axis=1)])
    distinct = _select(ordered, starts)
    values = moveaxis(distinct.reshape(distinct.shape[0], *rest), 0, axis)
    out = [values]
    if return_index:
        out.append(_select(order, starts))
    if return_inverse:
        out.append(_inverse(order, order, starts))
    if return_counts:
        out.append(_counts(starts, n))
    return out[0] if len(out) == 1 else tuple(out)
