"""``reshape``: NumPy's (and the array API's) reshape of a lazy array. The plan reshapes one
block per task and never makes a block larger than the input's chunk size."""

import operator

from ._array import Array
from ._creation import asarray


def reshape(x, /, shape, *, copy=None):
    """``x``'s elements in row-major order with ``shape`` (an int or a tuple; one length may
    be -1, inferred). ``copy`` is the array API's; any value gives the same lazy result, which
    no caller can write through (so neither a copy nor its absence is observable)."""
    shape = (shape,) if not isinstance(shape, (tuple, list)) else shape
    return Array(asarray(x)._h.reshape([operator.index(n) for n in shape]))
