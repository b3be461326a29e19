"""Integer-array and boolean-mask indexing with NumPy's (and the array API's) semantics:
``take``, ``take_along_axis``, ``nonzero``, and ``getitem`` for keys holding index arrays.

Gathers are planned blockwise from the index array's blocks, so index arrays may be lazy
tegula arrays; indices known now (NumPy arrays, lists, ints) are checked now. A boolean mask's
per-block counts are computed when the expression is built, so every result has a known
shape and chunks."""

import operator

import numpy as np

from ._array import Array
from ._creation import asarray, zeros


def _is_index_array(k):
    return isinstance(k, (Array, np.ndarray, list))


def is_advanced(key):
    """Whether ``key`` holds an integer or boolean array (or a boolean scalar), which basic
    indexing does not handle."""
    items = key if isinstance(key, tuple) else (key,)
    return any(_is_index_array(k) or isinstance(k, (bool, np.bool_)) for k in items)


def _known_indices(k):
    """A NumPy integer or boolean array from a list, NumPy array or int."""
    a = np.asarray(k)
    if a.dtype.kind == "f" and a.size == 0:
        a = a.astype(np.intp)  # NumPy reads an empty list as an empty integer index
    if a.dtype.kind not in "iub":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return a


def _checked(a, n, axis):
    """Known integer indices checked against an axis of length ``n`` (an IndexError naming the
    first one outside, as NumPy) and wrapped to non-negative int64."""
    outside = (a < -n) | (a >= n)
    if outside.any():
        raise IndexError(f"index {a[outside].flat[0]} is out of bounds for axis {axis} with size {n}")
    a = a.astype(np.int64)
    return np.where(a < 0, a + n, a)


def _indices(k, n, axis):
    """Integer indices into an axis of length ``n``, as a tegula int64 array in ``[0, n)``:
    known ones checked now, lazy ones when computed."""
    if isinstance(k, Array):
        return Array(k._h.wrap_index(n, axis))
    return asarray(_checked(_known_indices(k), n, axis))


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def take(x, indices, /, *, axis=None):
    """The elements of ``x`` at ``indices`` along ``axis``, whose place the indices' axes take
    (``axis=None``: of the flattened array)."""
    x = asarray(x)
    if axis is None:
        x, axis = Array(x._h.reshape([-1])), 0
    axis = _axis(axis, x.ndim)
    if isinstance(indices, Array):
        idx = indices
    else:
        known = _known_indices(indices)
        if known.dtype == np.bool_:
            raise IndexError("take needs integer indices, not a boolean array")
        if all(x.shape[:axis]):  # NumPy checks no index when no row before the axis exists
            if known.size and not x.shape[axis]:
                raise IndexError("cannot do a non-empty take from an empty axes.")
            known = _checked(known, x.shape[axis], axis)
            if known.ndim == 1:
                return _take_positions(x, known, axis)
        elif not x.shape[axis]:
            # No row before the axis and none along it: an empty result, whatever the indices.
            return zeros(x.shape[:axis] + known.shape + x.shape[axis + 1:], dtype=x.dtype)
        idx = asarray(known)
    return Array(x._h.take(idx._h, axis))


def _take_positions(x, positions, axis):
    """``x`` at known, checked positions along ``axis`` (a 1-D array): long ascending runs of
    them are slices joined, anything else one gather (planned in Rust)."""
    return Array(x._h.take_positions(np.ascontiguousarray(positions, dtype=np.int64), axis))


def take_along_axis(x, indices, /, *, axis=-1):
    """The elements of ``x`` at ``indices`` along ``axis``, ``indices`` having ``x``'s ndim and
    being broadcast against it along the other axes (``axis=None``: 1-D indices into the
    flattened array)."""
    x = asarray(x)
    if axis is None:
        x, axis = Array(x._h.reshape([-1])), 0
    if not isinstance(indices, Array):
        indices = _known_indices(indices)
        if indices.ndim != x.ndim:
            raise ValueError("`indices` and `arr` must have the same number of dimensions")
        axis = _axis(axis, x.ndim)
        indices = asarray(_checked(indices, x.shape[axis], axis))
    return Array(x._h.take_along_axis(indices._h, operator.index(axis)))


def nonzero(x, /):
    """The coordinates of the non-zero elements of ``x``, one int64 array per axis, in row-major
    order. Their number is computed now; their values when computed."""
    return tuple(Array(h) for h in asarray(x)._h.nonzero())


def getitem(x, key):
    """``x[key]`` with NumPy's rules, integer and boolean arrays included: one index array (with
    slices, ints and new axes) puts its axes in place of the axis it indexes; several broadcast
    together and select points (their axes go first unless they are adjacent in the key); a
    boolean array selects like its ``nonzero`` coordinates."""
    x = asarray(x)
    if not is_advanced(key):
        return x[key]
    items = list(key) if isinstance(key, tuple) else [key]
    masks = [i for i, k in enumerate(items) if _is_mask(k)]
    if len(masks) == 1 and masks[0] == 0 and all(k is Ellipsis or isinstance(k, slice) and k == slice(None) for k in items[1:]):
        return Array(x._h.masked(asarray(_mask(items[0]))._h))
    return _advanced(x, _expand(_masks_as_indices(items), x.ndim))


def _is_mask(k):
    if isinstance(k, (bool, np.bool_)):
        return True
    return _is_index_array(k) and np.dtype(asarray(k).dtype if isinstance(k, Array) else _known_indices(k).dtype) == np.bool_


def _mask(k):
    return k if isinstance(k, Array) else _known_indices(k)


def _masks_as_indices(items):
    """The key with each boolean array replaced by its nonzero coordinates (one index array
    per axis it covers)."""
    out = []
    for k in items:
        if not _is_mask(k):
            out.append(k)
        elif isinstance(k, (bool, np.bool_)) or np.ndim(_mask(k)) == 0:
            raise IndexError("a boolean scalar index is only supported alone (x[True], x[False])")
        elif isinstance(k, Array):
            out.extend(nonzero(k))
        else:
            out.extend(np.nonzero(_mask(k)))
    return out


def _expand(items, ndim):
    """The key with its ellipsis expanded and full slices for the axes it leaves out."""
    if sum(k is Ellipsis for k in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(k is not None and k is not Ellipsis for k in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed")
    fill = [slice(None)] * (ndim - consumed)
    if Ellipsis in [k for k in items if not _is_index_array(k)]:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        return items[:at] + fill + items[at + 1:]
    return items + fill


def _advanced(x, items):
    """``x[items]`` for an expanded key with at least one integer array: basic indexing of the
    rest first, then one gather."""
    basic, adv = [], []  # adv: (position in the key, axis of x, axis of the basic result, index)
    axis = 0
    for pos, k in enumerate(items):
        if k is None or isinstance(k, slice):
            basic.append(k)
        else:
            if not _is_index_array(k):
                k = operator.index(k)  # ints count as (0-d) index arrays beside arrays
            adv.append((pos, axis, len(basic), k))
            basic.append(slice(None))
        axis += k is not None
    y = x[tuple(basic)]
    if len(adv) == 1 and not isinstance(adv[0][3], Array) and np.ndim(adv[0][3]) == 1:
        _, ax, at, k = adv[0]
        return _take_positions(y, _checked(_known_indices(k), x.shape[ax], ax), at)
    known = not any(isinstance(k, Array) for *_, k in adv)
    index = [_checked(_known_indices(k), x.shape[ax], ax) if known else _indices(k, x.shape[ax], ax) for _, ax, _, k in adv]
    try:
        shape = np.broadcast_shapes(*(i.shape for i in index))
    except ValueError:
        shapes = " ".join(str(i.shape) for i in index)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}") from None
    if len(adv) == 1:
        return Array(y._h.take(asarray(index[0])._h, adv[0][2]))
    at = [a[2] for a in adv]
    positions = [a[0] for a in adv]
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    picked = _points(y, index, at, shape, adjacent) if known else None
    if picked is not None:
        return picked
    out = _flattened(y, [asarray(i) for i in index], at)
    if not adjacent:
        return out  # not adjacent in the key: the indexed axes go first
    return _moved(out, 0, at[0], len(shape))


def _moved(x, source, destination, count):
    """``x`` with its ``count`` axes from ``source`` on moved to start at ``destination``."""
    moved = list(range(source, source + count))
    rest = [a for a in range(x.ndim) if a not in moved]
    return x.transpose(rest[:destination] + moved + rest[destination:])


def _points(y, index, at, shape, adjacent):
    """NumPy's ``y[key]`` for known indices ``index`` (NumPy arrays broadcasting to ``shape``)
    along the axes ``at``: only the blocks holding the points are read. The broadcast axes
    where the first indexed axis was when the index arrays are ``adjacent`` in the key, else
    first. None where there are so many scattered points that ``_flattened`` reads less."""
    coords = [np.ascontiguousarray(np.broadcast_to(i, shape).ravel(), dtype=np.int64) for i in index]
    picked = y._h.take_points(coords, at)
    if picked is None:
        return None
    first = min(at)
    rest = [y.shape[d] for d in range(first + 1, y.ndim) if d not in at]
    out = Array(picked).reshape(y.shape[:first] + tuple(shape) + tuple(rest))
    if adjacent or first == 0:
        return out
    return _moved(out, first, 0, len(shape))


def _flattened(y, index, at):
    """The elements of ``y`` at the indices ``index`` (tegula arrays broadcasting together)
    along the axes ``at``, the broadcast axes first: the indexed axes moved first and
    flattened, the points' flat positions gathered."""
    rest = [d for d in range(y.ndim) if d not in at]
    flat, stride = None, 1
    for i, a in reversed(list(zip(index, at))):
        term = i * stride
        flat = term if flat is None else flat + term
        stride *= y.shape[a]
    points = int(np.prod([y.shape[a] for a in at]))
    moved = y.transpose(at + rest)._h.reshape([points] + [y.shape[d] for d in rest])
    return Array(moved.take(flat._h, 0))
