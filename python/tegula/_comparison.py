"""NumPy's closeness and equality tests of whole arrays (``isclose``, ``allclose``,
``array_equal``), composed of element-wise operations and an ``all`` reduction. ``allclose``
and ``array_equal`` give a lazy 0-d boolean array where NumPy gives a Python bool: ``bool()``
of it (an ``if``, an ``assert``) computes it."""

import numpy as np

from ._creation import asarray
from ._dtypes import is_python_scalar
from ._functions import UFUNCS, astype, where

isfinite, isnan = UFUNCS["isfinite"], UFUNCS["isnan"]


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise ``|a - b| <= atol + rtol * |b|`` for finite ``b``, or ``a == b`` (so equal
    infinities are close), NaNs close to each other only with ``equal_nan``; ``b`` is first made
    floating, as NumPy does, so integer differences cannot overflow."""
    x = a if is_python_scalar(a) else asarray(a)
    y = asarray(b)
    if y.dtype.kind not in "fc":
        y = astype(y, np.result_type(y.dtype, 1.0))
    close = (abs(x - y) <= atol + rtol * abs(y)) & isfinite(y) | (x == y)
    return close | (isnan(x) & isnan(y)) if equal_nan else close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is ``isclose`` to ``b`` (a lazy 0-d boolean array)."""
    return isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan).all()


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have the same shape and elements (a lazy 0-d boolean array); with
    ``equal_nan``, NaNs in the same places count as equal."""
    x, y = asarray(a1), asarray(a2)
    if x.shape != y.shape:
        return asarray(False)
    same = x == y
    if equal_nan and (x.dtype.kind in "fc" or y.dtype.kind in "fc"):
        x_nan, y_nan = isnan(x), isnan(y)
        same = where(x_nan | y_nan, x_nan & y_nan, same)
    return same.all()
