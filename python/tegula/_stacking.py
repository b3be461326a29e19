"""NumPy's stacking and splitting helpers (``atleast_*d``, ``hstack``, ``vstack``, ``dstack``,
``column_stack``, ``append``, ``block``, ``split``, ``array_split`` and its axis-named forms), composed of lazy
reshapes, concatenations and slices: no task of their own."""

import operator

import numpy as np

from ._creation import asarray
from ._functions import concat
from ._manipulation import _normalize


def _atleast(arrays, ndim, place):
    out = [_raised(asarray(a), ndim, place) for a in arrays]
    return out[0] if len(out) == 1 else tuple(out)


def _raised(x, ndim, place):
    if x.ndim >= ndim:
        return x
    return x.reshape(place(x.shape))


def atleast_1d(*arrays):
    """Each input as an array of at least one dimension (0-d becomes shape ``(1,)``)."""
    return _atleast(arrays, 1, lambda s: (1,))


def atleast_2d(*arrays):
    """Each input with at least two dimensions: ``(N,)`` becomes ``(1, N)``."""
    return _atleast(arrays, 2, lambda s: (1,) * (2 - len(s)) + s)


def atleast_3d(*arrays):
    """Each input with at least three dimensions: ``(N,)`` becomes ``(1, N, 1)`` and ``(M, N)``
    becomes ``(M, N, 1)``, as NumPy."""
    return _atleast(arrays, 3, lambda s: {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}[len(s)])


def _as_tuple(atleast, tup):
    out = atleast(*tup)
    return out if isinstance(out, tuple) else (out,)


def _sequence(tup, name):
    """The arrays of ``tup``: a sequence (an array counts, by its first axis), not an iterator."""
    if not hasattr(tup, "__len__"):
        raise TypeError(f"{name}: arrays to stack must be passed as a sequence type such as list or tuple")
    if len(tup) == 0:
        raise ValueError("need at least one array to concatenate")
    return [tup[i] for i in range(len(tup))]


def vstack(tup):
    """Arrays stacked row-wise: 1-D arrays become rows, then concatenated along axis 0."""
    tup = _sequence(tup, "vstack")
    return concat(_as_tuple(atleast_2d, tup), axis=0)


def hstack(tup):
    """Arrays stacked column-wise: concatenated along axis 1, or axis 0 when they are 1-D."""
    tup = _sequence(tup, "hstack")
    arrays = _as_tuple(atleast_1d, tup)
    return concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def dstack(tup):
    """Arrays stacked depth-wise: raised to 3-D as ``atleast_3d``, concatenated along axis 2."""
    tup = _sequence(tup, "dstack")
    return concat(_as_tuple(atleast_3d, tup), axis=2)


def column_stack(tup):
    """1-D arrays as the columns of a 2-D array (2-D arrays are stacked as they are)."""
    tup = _sequence(tup, "column_stack")
    arrays = [asarray(a) for a in tup]
    return concat([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrays], axis=1)


def append(arr, values, axis=None):
    """``values`` appended to ``arr``: both flattened when ``axis`` is None, else concatenated
    along ``axis`` (which must then match in the other dimensions)."""
    arr, values = asarray(arr), asarray(values)
    if axis is None:
        return concat([arr.reshape(-1), values.reshape(-1)], axis=0)
    return concat([arr, values], axis=axis)


def array_split(ary, indices_or_sections, axis=0):
    """Views of ``ary`` split along ``axis``: ``indices_or_sections`` is a number of parts (the
    first ``n % parts`` one element longer, as NumPy) or the sorted split positions."""
    x = asarray(ary)
    axis = _normalize(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        parts = operator.index(indices_or_sections)
        if parts <= 0:
            raise ValueError("number sections must be larger than 0.")
        size, extra = divmod(n, parts)
        sizes = [size + 1] * extra + [size] * (parts - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    return [_part(x, axis, start, stop) for start, stop in zip(bounds[:-1], bounds[1:])]


def _part(x, axis, start, stop):
    # NumPy's slicing rules for the positions: negative counts from the end, past the end clips.
    key = [slice(None)] * x.ndim
    key[axis] = slice(start, stop)
    return x[tuple(key)]


def split(ary, indices_or_sections, axis=0):
    """``array_split``, but a number of parts must divide the axis exactly (else ValueError)."""
    x = asarray(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        parts = operator.index(indices_or_sections)
        if parts > 0 and x.shape[_normalize(axis, x.ndim)] % parts:
            raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D arrays)."""
    x = _with_min_ndim(ary, 1, "hsplit")
    return split(x, indices_or_sections, axis=1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """``split`` along axis 0 of an array of two or more dimensions."""
    return split(_with_min_ndim(ary, 2, "vsplit"), indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """``split`` along axis 2 of an array of three or more dimensions."""
    return split(_with_min_ndim(ary, 3, "dsplit"), indices_or_sections, axis=2)


def _with_min_ndim(ary, ndim, name):
    x = asarray(ary)
    if x.ndim < ndim:
        raise ValueError(f"{name} only works on arrays of {ndim} or more dimensions")
    return x


def block(arrays):
    """NumPy's ``block``: an array assembled from nested lists of blocks, the innermost lists
    joined along the last axis, the ones around them along the axis before, and so on; every
    block is first raised (leading length-one axes) to the result's number of axes and cast to
    the blocks' common dtype."""
    depth = _list_depth(arrays, "arrays")
    leaves = _leaves(arrays, depth)
    ndim = max([depth] + [a.ndim for a in leaves])
    dtype = np.result_type(*[a.dtype for a in leaves])
    return _assemble(arrays, depth, ndim, dtype)


def _list_depth(x, where):
    """How many lists deep ``x`` nests its blocks, with NumPy's errors for tuples, empty lists
    and mismatched depths."""
    if type(x) is tuple:
        raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks, and np.block does "
                        "not allow implicit conversion from tuple to ndarray.")
    if type(x) is not list:
        return 0
    if not x:
        raise ValueError(f"List at {where} cannot be empty")
    depths = [_list_depth(item, f"{where}[{i}]") for i, item in enumerate(x)]
    if len(set(depths)) > 1:
        other = next(i for i, d in enumerate(depths) if d != depths[0])
        raise ValueError(f"List depths are mismatched. First element was at depth {depths[0] + 1}, but there is "
                         f"an element at depth {depths[other] + 1} ({where}[{other}])")
    return depths[0] + 1


def _leaves(x, depth):
    return [asarray(x)] if depth == 0 else [leaf for item in x for leaf in _leaves(item, depth - 1)]


def _assemble(x, depth, ndim, dtype):
    if depth == 0:
        a = asarray(x).astype(dtype)
        return a.reshape((1,) * (ndim - a.ndim) + a.shape)
    return concat([_assemble(item, depth - 1, ndim, dtype) for item in x], axis=ndim - depth)
