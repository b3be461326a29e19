"""``reshape``: NumPy's (and the array API's) reshape of a lazy array. The plan reshapes one
block per task and never makes a block larger than the input's chunk size."""

import operator

import numpy as np

from ._array import Array
from ._creation import asarray


def reshape(x, /, shape, *, order="C", copy=None):
    """``x``'s elements in row-major order with ``shape`` (an int or a tuple; one length may
    be -1, inferred). ``order="F"`` reads and places them in column-major order, as NumPy's
    (the reversed axes reshaped row-major); ``"A"`` is ``"F"`` only for a NumPy array that is
    Fortran- and not C-contiguous, as in NumPy (a tegula array has no memory layout). ``copy``
    is the array API's; any value gives the same lazy result, which no caller can write
    through (so neither a copy nor its absence is observable)."""
    if order not in ("C", "F", "A"):
        raise ValueError(f"order must be one of 'C', 'F', 'A' (got {order!r})")
    if order == "A":
        fortran = isinstance(x, np.ndarray) and x.flags.f_contiguous and not x.flags.c_contiguous
        order = "F" if fortran else "C"
    shape = (shape,) if not isinstance(shape, (tuple, list)) else shape
    shape = [operator.index(n) for n in shape]
    x = asarray(x)
    out = Array(x._h.reshape(shape))  # also NumPy's errors, with the shape as given
    if order == "C":
        return out
    return Array(x.T._h.reshape(shape[::-1])).T  # .T reverses the axes
