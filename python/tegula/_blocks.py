"""Dask's block and point-wise indexers: ``x.blocks[i, j]`` (the sub-array made of whole
blocks, keeping their chunks) and ``x.vindex[rows, cols]`` (index arrays broadcast together and
read point by point, their axes first). Both are lazy: slices, concatenations and one gather."""

import operator

import numpy as np

from ._array import Array
from ._functions import concatenate
from ._gather import getitem
from ._manipulation import moveaxis


class BlockView:
    """``x.blocks[key]``: ints, slices and lists of block numbers per axis, as Dask's
    ``Array.blocks``; every axis is kept (an int selects one block along its axis)."""

    def __init__(self, array):
        self._array = array

    @property
    def shape(self):
        """The number of blocks along each axis (Dask's ``x.blocks.shape``)."""
        return self._array.numblocks

    @property
    def size(self):
        return int(np.prod(self.shape))

    def __getitem__(self, key):
        x = self._array
        items = _expanded(key if isinstance(key, tuple) else (key,), x.ndim)
        for axis, k in enumerate(items):
            x = _select_blocks(x, axis, k)
        return x


def _expanded(items, ndim):
    """The key with its ellipsis expanded and full slices for the axes it leaves out."""
    if any(k is None for k in items):
        raise IndexError("x.blocks takes no new axes (None)")
    if sum(k is Ellipsis for k in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if len(items) - (Ellipsis in items) > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {len(items)} were indexed")
    fill = (slice(None),) * (ndim - len(items) + (Ellipsis in items))
    if Ellipsis in items:
        at = items.index(Ellipsis)
        return items[:at] + fill + items[at + 1:]
    return items + fill


def _block_numbers(k, count, axis):
    """The blocks ``k`` names along an axis of ``count`` blocks, as a list (an IndexError for
    one outside, as Dask)."""
    if isinstance(k, slice):
        return list(range(count))[k]
    numbers = np.asarray(k)
    if numbers.dtype.kind not in "iu" or numbers.ndim > 1:
        raise IndexError(f"x.blocks takes ints, slices and lists of ints, not {k!r}")
    numbers = [operator.index(n) for n in numbers.reshape(-1)]
    for n in numbers:
        if not -count <= n < count:
            raise IndexError(f"Index {n} is out of bounds for axis {axis} with size {count}")
    return [n % count for n in numbers]


def _select_blocks(x, axis, k):
    """``x`` with only the blocks ``k`` names along ``axis``: one slice per run of consecutive
    blocks, concatenated (which copies nothing)."""
    if isinstance(k, slice) and k == slice(None):
        return x
    lengths = x.chunks[axis]
    bounds = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
    numbers = _block_numbers(k, len(lengths), axis)
    runs = _runs(numbers)
    pieces = [x[(slice(None),) * axis + (slice(bounds[a], bounds[b]),)] for a, b in runs]
    if not pieces:
        return x[(slice(None),) * axis + (slice(0, 0),)]
    out = pieces[0] if len(pieces) == 1 else concatenate(pieces, axis=axis)
    chunks = tuple(lengths[n] for n in numbers)
    return out if out.chunks[axis] == chunks else out.rechunk({axis: chunks})


def _runs(numbers):
    """``[start, stop)`` of each run of consecutive increasing block numbers."""
    runs = []
    for n in numbers:
        if runs and runs[-1][1] == n:
            runs[-1][1] = n + 1
        else:
            runs.append([n, n + 1])
    return runs


class VectorIndex:
    """``x.vindex[key]``: Dask's point-wise indexing. The key's integer arrays (and ints) are
    broadcast together and pick one element per position, as NumPy's fancy indexing; unlike
    NumPy, the broadcast axes always come first, followed by the axes the key's slices keep."""

    def __init__(self, array):
        self._array = array

    def __getitem__(self, key):
        x = self._array
        items = list(key) if isinstance(key, tuple) else [key]
        if any(k is None for k in items):
            raise IndexError("vindex does not take new axes (None)")
        arrays = [i for i, k in enumerate(items) if not isinstance(k, slice) and k is not Ellipsis]
        for i in arrays:
            k = items[i] if isinstance(items[i], Array) else np.asarray(items[i])
            if k.dtype.kind not in "iu":
                raise IndexError("vindex takes integer arrays, ints and slices")
        out = getitem(x, tuple(items)) if arrays else x[tuple(items)]
        if not arrays or arrays != list(range(arrays[0], arrays[-1] + 1)):
            return out  # no index array, or NumPy put the broadcast axes first already
        return _broadcast_axes_first(out, x.ndim, items, arrays)


def _broadcast_axes_first(out, ndim, items, arrays):
    """NumPy's result of adjacent index arrays (their axes where the first of them was) with
    those axes moved to the front."""
    broadcast = out.ndim - (ndim - len(arrays))
    before = sum(ndim - (len(items) - 1) if k is Ellipsis else 1 for k in items[:arrays[0]])
    if before == 0 or broadcast == 0:
        return out
    return moveaxis(out, tuple(range(before, before + broadcast)), tuple(range(broadcast)))
