"""Ordering functions of the array API: ``cumulative_sum``/``cumulative_prod`` (chunked along
the axis: block scans plus the running totals of the blocks before), ``sort``/``argsort`` (the
sorted axis becomes one block when it fits ``block_size_limit``, else a sample sort in blocks of
about that size) and ``searchsorted`` (a contraction over the sorted array's blocks), with
NumPy's ``cumsum``/``cumprod``."""

import operator

from . import _tegula, config
from ._array import Array
from ._creation import asarray
from ._dtypes import dtype_name


def _axis(axis):
    return None if axis is None else operator.index(axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along ``axis`` (required beyond one dimension); small integers sum in
    int64/uint64 unless ``dtype`` says otherwise; ``include_initial`` starts with 0."""
    x = asarray(x)
    return Array(x._h.cumulative("cumulative_sum", _axis(axis), dtype_name(dtype), bool(include_initial)))


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products along ``axis``, as ``cumulative_sum`` (``include_initial`` starts with 1)."""
    x = asarray(x)
    return Array(x._h.cumulative("cumulative_prod", _axis(axis), dtype_name(dtype), bool(include_initial)))


def cumsum(a, axis=None, dtype=None):
    """NumPy's ``cumsum`` (``axis=None`` runs over the flattened array)."""
    a = asarray(a)
    return cumulative_sum(a.reshape(-1) if axis is None and a.ndim > 1 else a, axis=axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None):
    """NumPy's ``cumprod`` (``axis=None`` runs over the flattened array)."""
    a = asarray(a)
    return cumulative_prod(a.reshape(-1) if axis is None and a.ndim > 1 else a, axis=axis, dtype=dtype)


def _block_bytes(limit, arg=False):
    """``block_size_limit`` in bytes: a positive number, or a size such as ``"64MiB"``; by
    default 128 MiB, or less where the memory budget needs smaller blocks."""
    if limit is None:
        return _tegula.sort_block_bytes(config.get("memory"), arg)
    if isinstance(limit, str):
        return _tegula.memory_budget(limit)
    limit = operator.index(limit)
    if limit <= 0:
        raise ValueError(f"block_size_limit must be a positive number of bytes, got {limit}")
    return limit


def sort(x, /, *, axis=-1, descending=False, stable=True, block_size_limit=None):
    """``x`` sorted along ``axis`` in NumPy's order (NaN last; first when ``descending``).
    Always stable: equal elements keep their order, also when descending.
    ``block_size_limit`` (bytes, or a size such as ``"64MiB"``; default 128 MiB, or an eighth
    of the memory budget if less): an axis longer than one such block is sample-sorted, its
    splitters and bucket counts computed now (the input runs three times in all), and the
    result keeps ``x``'s chunks."""
    x = asarray(x)
    return Array(x._h.sort(operator.index(axis), bool(descending), _block_bytes(block_size_limit)))


def argsort(x, /, *, axis=-1, descending=False, stable=True, block_size_limit=None):
    """The int64 indices that sort ``x`` along ``axis`` (stable: ties in their original order,
    also when descending), in blocks as ``sort``. As NumPy, a 0-d ``x`` is sorted as one
    element."""
    x = asarray(x)
    if x.ndim == 0:
        x = Array(x._h.expand_dims([0]))
    return Array(x._h.argsort(operator.index(axis), bool(descending), _block_bytes(block_size_limit, arg=True)))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """For each element of ``x2``, the int64 index where inserting it into the sorted 1-D
    ``x1`` keeps it sorted (NumPy's order, NaN last): before equal elements (``side='left'``)
    or after them (``'right'``). ``sorter``, the indices that sort an unsorted ``x1``, is taken
    to be a permutation: only the order it describes matters, and it is not read."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    x1, x2 = asarray(x1), asarray(x2)
    sorter = None if sorter is None else asarray(sorter)._h
    return Array(x1._h.searchsorted(x2._h, side == "right", sorter))
