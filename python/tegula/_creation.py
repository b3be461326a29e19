"""Creating arrays."""

import numpy as np

from . import _tegula
from ._array import Array
from ._dtypes import SUPPORTED, dtype_name, float64, is_python_scalar


def _shape(shape):
    return (shape,) if np.ndim(shape) == 0 else tuple(shape)


def asarray(a, dtype=None, chunks="auto"):
    """A tegula array from a tegula array, a NumPy array, a scalar or nested sequences, or,
    lazily (one read per block, when computed), from any object with ``shape``, ``dtype`` and
    NumPy-style slicing, such as an h5py dataset or a zarr-python array."""
    if isinstance(a, Array):
        out = a if dtype is None else a.astype(dtype)
        return out if chunks in ("auto", None) else out.rechunk(chunks)
    from ._io import from_object, is_sliceable

    if is_sliceable(a):
        return from_object(a, dtype, chunks)
    arr = np.asarray(a, dtype=None if dtype is None else np.dtype(dtype))
    if arr.dtype not in SUPPORTED:
        raise TypeError(f"tegula does not support dtype {arr.dtype}")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return Array(_tegula.from_numpy(arr, chunks))


array = asarray


def from_array(a, chunks="auto"):
    return asarray(a, chunks=chunks)


def full(shape, fill_value, dtype=None, chunks="auto"):
    if isinstance(fill_value, Array):
        fill_value = fill_value.compute()
    if not is_python_scalar(fill_value):
        value = np.asarray(fill_value)
        if value.ndim != 0:
            raise ValueError("fill_value must be a scalar")
        dtype = value.dtype if dtype is None else dtype
        fill_value = value.item()
    elif dtype is None:
        dtype = np.asarray(fill_value).dtype  # Python ints past int64 take uint64, as in NumPy
    return Array(_tegula.full(_shape(shape), fill_value, dtype_name(dtype), chunks))


def zeros(shape, dtype=float64, chunks="auto"):
    return full(shape, False, dtype if dtype is not None else float64, chunks)


def ones(shape, dtype=float64, chunks="auto"):
    return full(shape, True, dtype if dtype is not None else float64, chunks)


def empty(shape, dtype=float64, chunks="auto"):
    """Like ``zeros``: a lazy array has nothing to leave uninitialised."""
    return zeros(shape, dtype, chunks)


def _like(x, dtype, chunks):
    x = x if isinstance(x, Array) else asarray(x)
    return x.shape, (x.dtype if dtype is None else dtype), (x.chunks if chunks is None else chunks)


def zeros_like(x, dtype=None, chunks=None):
    return zeros(*_like(x, dtype, chunks))


def ones_like(x, dtype=None, chunks=None):
    return ones(*_like(x, dtype, chunks))


def empty_like(x, dtype=None, chunks=None):
    return empty(*_like(x, dtype, chunks))


def full_like(x, fill_value, dtype=None, chunks=None):
    shape, dtype, chunks = _like(x, dtype, chunks)
    return full(shape, fill_value, dtype, chunks)


def _py_number(v, name):
    if isinstance(v, (np.generic, np.ndarray)):
        v = np.asarray(v).item()
    if not is_python_scalar(v):
        raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
    return v


def arange(start, stop=None, step=1, dtype=None, chunks="auto"):
    """Evenly spaced values in ``[start, stop)`` (NumPy's ``arange``)."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_py_number(v, n) for v, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise ZeroDivisionError("arange step must not be zero")
    return Array(_tegula.arange(start, stop, step, dtype_name(dtype), chunks))


def linspace(start, stop, num=50, endpoint=True, dtype=None, chunks="auto"):
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's ``linspace``)."""
    start, stop = float(_py_number(start, "start")), float(_py_number(stop, "stop"))
    return Array(_tegula.linspace(start, stop, int(num), bool(endpoint), dtype_name(dtype) or "float64", chunks))
