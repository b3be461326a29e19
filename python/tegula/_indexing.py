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

