"""Assignment, ``x[key] = value``: a basic key's selection replaced by the values broadcast to it
(one ``setitem`` node), a 0-d value through a mask a ``where``, anything else a scatter."""

from ._array import Array
from ._creation import asarray
from ._dtypes import is_python_scalar
from ._functions import where
from ._gather import is_advanced
from ._indexing import is_boolean_mask, normalize_key
from ._manipulation import broadcast_to
from ._scatter import scatter


def assign(x, key, value):
    """``x`` with ``x[key]`` replaced by ``value`` (broadcast to the selection and converted to
    ``x``'s dtype, as NumPy's assignment), as a new lazy array."""
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
    items = normalize_key(key)
    shape = x[key].shape
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value[0]  # NumPy drops leading length-one axes of the values
    try:
        value = broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {value.shape} into shape {shape}") from None
    return Array(x._h.setitem(items, value._h))
