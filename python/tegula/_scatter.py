"""Assignment through integer arrays and boolean masks with array values (``x[key] = v`` for
any key ``getitem`` takes): a scatter built from lazy operations. The flat positions the key
selects are ``getitem`` of a grid of positions; sorting them (stably) lets every position of
``x`` find the last value assigned to it with one ``searchsorted``, as NumPy's assignment
keeps the last of repeated indices. No task holds more than a block of ``x``, of the index or
of the values."""

import numpy as np

from ._creation import arange, asarray
from ._functions import UFUNCS, where
from ._gather import getitem, take
from ._manipulation import broadcast_to
from ._reshape import reshape
from ._sorting import argsort, searchsorted

maximum = UFUNCS["maximum"]


def scatter(x, key, value):
    """``x`` with the elements ``x[key]`` selects replaced by ``value`` (broadcast to the
    selection's shape and cast to ``x``'s dtype)."""
    positions = getitem(reshape(arange(x.size, dtype=np.int64), x.shape), key)
    values = _broadcast(asarray(value), positions.shape).astype(x.dtype)
    if positions.size == 0 or x.size == 0:
        return x
    positions, values = reshape(positions, (-1,)), reshape(values, (-1,))
    order = argsort(positions)
    ordered = take(positions, order)
    every = arange(x.size, dtype=np.int64)
    # The last assignment to each position is the last of its run in the stable order.
    last = maximum(searchsorted(ordered, every, side="right") - 1, 0)
    assigned = take(ordered, last) == every
    return reshape(where(assigned, take(values, take(order, last)), reshape(x, (-1,))), x.shape)


def _broadcast(value, shape):
    """NumPy's assignment broadcast: leading length-one axes of the value beyond the
    selection's are dropped first."""
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value[0]
    try:
        return broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {value.shape} could not be broadcast "
                         f"to indexing result of shape {shape}") from None
