"""NumPy's ``diagonal`` and ``trace`` of the plane of two axes (``axis1``, ``axis2``): the axes
are moved last and the array API's matrix forms in ``linalg`` do the work; and NumPy's ``diag``
(a 2-D array's diagonal, or a 1-D array laid on one)."""

import operator

from . import linalg
from ._creation import asarray
from ._functions import where
from ._manipulation import moveaxis
from ._matrices import _diagonal_offsets
from ._pad import pad


def _planes(a, axis1, axis2):
    return moveaxis(a, (axis1, axis2), (-2, -1))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal of the plane of ``axis1`` and ``axis2``, as a last axis."""
    return linalg.diagonal(_planes(a, axis1, axis2), offset=offset)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along the ``offset``-th diagonal of the plane of ``axis1`` and ``axis2``."""
    return linalg.trace(_planes(a, axis1, axis2), offset=offset, dtype=dtype)


def diag(v, k=0):
    """NumPy's ``diag``: the ``k``-th diagonal of a 2-D array, or a square 2-D array with the
    1-D ``v`` on its ``k``-th diagonal and zeros elsewhere."""
    v, k = asarray(v), operator.index(k)
    if v.ndim == 2:
        return linalg.diagonal(v, offset=k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0] + abs(k)
    # Row i holds v[i] (k >= 0) or column j holds v[j] (k < 0): pad v to n and broadcast.
    padded = pad(v, (0, abs(k)))
    values = padded[:, None] if k >= 0 else padded[None, :]
    return where(_diagonal_offsets(n, n) == k, values, asarray(0, dtype=v.dtype))
