"""Normalising a Python index key into the items the Rust core understands."""

import operator

import numpy as np

_LIMIT = 2**62  # larger bounds mean "past the end" for every array tegula can hold


def _bound(v):
    if v is None:
        return None
    try:
        v = operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None
    return max(-_LIMIT, min(_LIMIT, v))


def normalize_key(key):
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if k is None:
            items.append(("newaxis",))
        elif k is Ellipsis:
            items.append(("ellipsis",))
        elif isinstance(k, slice):
            items.append(("slice", _bound(k.start), _bound(k.stop), _bound(k.step)))
        elif isinstance(k, (bool, np.bool_)):
            raise IndexError("boolean scalar indices are not supported yet")
        elif hasattr(k, "__index__") and not hasattr(k, "shape") or isinstance(k, np.integer):
            items.append(("int", _bound(operator.index(k))))
        else:
            # (integer and boolean arrays are taken before this, by the gather and mask paths)
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                "boolean arrays are valid indices"
            )
    return items


def is_boolean_mask(key):
    """Whether ``key`` is a boolean array (a mask) rather than a basic index."""
    if isinstance(key, (bool, np.bool_)):
        return True
    dtype = getattr(key, "dtype", None)
    return dtype is not None and np.dtype(dtype) == np.bool_


def assign(x, key, value):
    """``x`` with ``x[key]`` replaced by ``value`` (broadcast to the selection and converted to
    ``x``'s dtype, as NumPy's assignment), as a new lazy array."""
    from ._array import Array
    from ._creation import asarray
    from ._dtypes import is_python_scalar
    from ._functions import where

    from ._gather import is_advanced
    from ._scatter import scatter

    if is_python_scalar(value):
        value = asarray(value, dtype=x.dtype)
    value = asarray(value)
    if is_boolean_mask(key) and value.ndim == 0:
        mask = asarray(key)  # a 0-d mask (or Python bool) selects the whole array or nothing
        if mask.shape != x.shape[:mask.ndim]:
            raise IndexError(f"boolean index of shape {mask.shape} does not match the array's shape {x.shape}")
        mask = mask[(...,) + (None,) * (x.ndim - mask.ndim)]
        return where(mask, value.astype(x.dtype), x)
    if is_boolean_mask(key) and getattr(key, "ndim", 0) == x.ndim and value.ndim > 1:
        raise TypeError(f"NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, "
                        f"input has {value.ndim} dimensions")
    if is_boolean_mask(key) or is_advanced(key):
        return scatter(x, key, value)
    from ._manipulation import broadcast_to

    items = normalize_key(key)
    shape = x[key].shape
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value[0]  # NumPy drops leading length-one axes of the values
    try:
        value = broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {value.shape} into shape {shape}") from None
    return Array(x._h.setitem(items, value._h))
