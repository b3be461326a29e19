"""``push``: bottleneck's forward fill (``bottleneck.push``, ``dask.array.push``) of a lazy
array, which xarray's ``ffill`` and ``bfill`` run. Each block is filled on its own, then the
last value of every block is carried into the NaNs that open the blocks after it: the carries
are one element per block, filled along the axis in one small step."""

import functools

import numpy as np

from ._creation import asarray


def push(x, n=None, axis=-1):
    """``x`` with each NaN replaced by the last non-NaN value before it along ``axis``, if that
    value is at most ``n`` positions back (any distance when ``n`` is None), as
    ``bottleneck.push``; arrays that cannot hold NaN (integers, bools) are returned as they
    are."""
    import tegula

    x = asarray(x)
    axis = _axis(axis, x.ndim)
    if n is not None:
        n = int(n)
        if n < 0:
            raise ValueError("n must be nonnegative")
    if x.dtype.kind not in "fc":
        return x
    filled = _push_all(x, axis)
    length = x.shape[axis]
    if n is None or n >= length:
        return filled
    shape = tuple(length if i == axis else 1 for i in range(x.ndim))
    positions = tegula.broadcast_to(tegula.arange(length, dtype="float64", chunks=(x.chunks[axis],)).reshape(shape),
                                    x.shape).rechunk(x.chunks)
    last = _push_all(tegula.where(tegula.isnan(x), np.nan, positions), axis)
    return tegula.where(positions - last <= n, filled, np.array(np.nan, x.dtype))


def _axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _push_all(x, axis):
    """The forward fill without a limit: within blocks, then across them."""
    from ._map_blocks import _apply

    ndim, dtype = x.ndim, x.dtype
    local = _apply(lambda index, blocks: _push_numpy(blocks[0], axis), [x], [None] * ndim, dtype, "push")
    count = len(x.chunks[axis])
    if count == 1:
        return local
    one_per_block = [(1,) * count if i == axis else None for i in range(ndim)]
    tails = _apply(lambda index, blocks: _take_last(blocks[0], axis), [local], one_per_block, dtype, "push-tails")
    whole = tails.rechunk({axis: -1})
    incoming = _apply(lambda index, blocks: _shifted(_push_numpy(blocks[0], axis), axis), [whole],
                      [None] * ndim, dtype, "push-carry").rechunk({axis: 1})
    others = [i for i in range(ndim) if i != axis]
    return _apply(functools.partial(_fill_from, axis=axis), [local, incoming], [None] * ndim, dtype, "push-fill",
                  shared=others)


def _push_numpy(a, axis):
    """NumPy's forward fill of one block: each position takes the value at the last non-NaN
    position up to it (a running maximum of the valid positions)."""
    if a.shape[axis] == 0:
        return a.copy()
    moved = np.moveaxis(a, axis, -1)
    where = np.where(np.isnan(moved), 0, np.arange(moved.shape[-1]))
    np.maximum.accumulate(where, axis=-1, out=where)
    return np.moveaxis(np.take_along_axis(moved, where, axis=-1), -1, axis)


def _take_last(block, axis):
    return np.take(block, [block.shape[axis] - 1], axis=axis)


def _shifted(a, axis):
    """``a`` moved one place along ``axis``, NaN first: what each block receives."""
    out = np.full_like(a, np.nan)
    src = tuple(slice(None, -1) if i == axis else slice(None) for i in range(a.ndim))
    dst = tuple(slice(1, None) if i == axis else slice(None) for i in range(a.ndim))
    out[dst] = a[src]
    return out


def _fill_from(index, blocks, axis):
    block, carried = blocks
    return np.where(np.isnan(block), carried, block)
