"""Dask's ``topk`` and ``argtopk``: the ``k`` largest elements along an axis in descending
order (``k > 0``) or the ``-k`` smallest in ascending order (``k < 0``), from a sort along the
axis (NaN counts as the largest, as in NumPy's order) and a slice of its first ``|k|``."""

import operator

from ._creation import asarray
from ._sorting import argsort, sort


def _first(x, k, axis):
    """The first ``|k|`` elements of ``x`` along ``axis`` (all of them when fewer)."""
    key = [slice(None)] * x.ndim
    key[axis] = slice(0, abs(k))
    return x[tuple(key)]


def _checked(a, k, axis):
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("topk needs an array of at least one dimension")
    return a, operator.index(k), operator.index(axis)


def topk(a, k, axis=-1, split_every=None):
    """Dask's ``topk``: the ``k`` largest elements along ``axis``, largest first, or for a
    negative ``k`` the ``-k`` smallest, smallest first. ``split_every`` is accepted for Dask's
    signature (the sort needs no tree)."""
    a, k, axis = _checked(a, k, axis)
    return _first(sort(a, axis=axis, descending=k > 0), k, axis)


def argtopk(a, k, axis=-1, split_every=None):
    """Dask's ``argtopk``: the int64 indices along ``axis`` of ``topk(a, k, axis)``'s elements
    (ties in their original order)."""
    a, k, axis = _checked(a, k, axis)
    return _first(argsort(a, axis=axis, descending=k > 0), k, axis)
