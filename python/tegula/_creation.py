"""Creating arrays."""

import numpy as np

from . import _tegula
from ._array import Array, from_values
from ._dtypes import dtype_name, float64, is_python_scalar
from ._from_object import from_object, is_sliceable
from ._info import _check_device, _on


def _shape(shape):
    return (shape,) if np.ndim(shape) == 0 else tuple(shape)


def asarray(a, /, dtype=None, *, device=None, copy=None, chunks="auto"):
    """A tegula array from a tegula array, a NumPy array, a scalar or nested sequences, or,
    lazily (one read per block, when computed), from any object with ``shape``, ``dtype`` and
    NumPy-style slicing, such as an h5py dataset or a zarr-python array.

    tegula arrays are immutable values (in-place operators and assignment rebind the array
    object they are applied to), so ``copy`` never changes the values: a tegula array given
    back without a copy (``copy`` false or ``None``, its own dtype) is the same object, and
    sees later assignments to it as a NumPy view would; ``copy=True`` gives a new object that
    does not. ``copy=False`` raises ``ValueError`` when the input must be copied (its dtype
    changes); ``device``: the device it is placed on (by default, where a tegula array is; the
    CPU for anything else)."""
    _check_device(device)
    return _on(device, _asarray(a, dtype, copy, chunks))


def _asarray(a, dtype, copy, chunks):
    if copy is False and isinstance(a, np.ndarray) and dtype is not None and np.dtype(dtype) != a.dtype:
        raise ValueError("asarray(copy=False) would have to copy to change the dtype")
    if isinstance(a, Array):
        if dtype is not None and np.dtype(dtype) == a.dtype:
            dtype = None
        if copy is False and dtype is not None:
            raise ValueError("asarray(copy=False) would have to copy to change the dtype")
        # a new array object when asked to copy: in-place operators and assignment rebind an
        # object's value, so an array returned without a copy sees them, as a NumPy view would
        out = (Array(a._h, a._attrs) if copy else a) if dtype is None else a.astype(dtype)
        return out if chunks in ("auto", None) else out.rechunk(chunks)
    if is_sliceable(a):
        return from_object(a, dtype, chunks)
    return from_values(a, dtype, chunks)


array = asarray


def from_dlpack(x, /, *, device=None, copy=None, chunks="auto"):
    """A tegula array of the values of any DLPack exporter on the CPU (its data is read
    through NumPy; tegula arrays never share memory with a writer, so ``copy`` changes
    nothing)."""
    _check_device(device)
    return asarray(np.from_dlpack(x), device=device, chunks=chunks)


def from_array(a, chunks="auto"):
    """Dask's ``from_array``: an array of ``x`` (anything NumPy slicing reads) in blocks of
    ``chunks``, read block by block when computed."""
    return asarray(a, chunks=chunks)


def full(shape, fill_value, dtype=None, *, device=None, chunks="auto"):
    """An array of ``shape`` filled with ``fill_value`` (of ``dtype``, or the value's own),
    generated block by block."""
    _check_device(device)
    if isinstance(fill_value, Array):
        fill_value = fill_value.compute()
    if not is_python_scalar(fill_value):
        value = np.asarray(fill_value)
        if value.ndim != 0:
            raise ValueError("fill_value must be a scalar")
        dtype = value.dtype if dtype is None else dtype
        if value.dtype.kind in "mM" and np.dtype(dtype).kind in "mM":
            value = value.astype(dtype).view("i8")  # a time goes as its count of the array's unit
        fill_value = value.item()
    elif dtype is None:
        dtype = np.asarray(fill_value).dtype  # Python ints past int64 take uint64, as in NumPy
    return _on(device, Array(_tegula.full(_shape(shape), fill_value, dtype_name(dtype), chunks)))


def zeros(shape, dtype=None, *, device=None, chunks="auto"):
    """An array of ``shape`` filled with zeros (float64 by default), generated block by block."""
    return full(shape, False, dtype if dtype is not None else float64, device=device, chunks=chunks)


def ones(shape, dtype=None, *, device=None, chunks="auto"):
    """An array of ``shape`` filled with ones (float64 by default), generated block by block."""
    return full(shape, True, dtype if dtype is not None else float64, device=device, chunks=chunks)


def empty(shape, dtype=None, *, device=None, chunks="auto"):
    """Like ``zeros``: a lazy array has nothing to leave uninitialised."""
    return zeros(shape, dtype, device=device, chunks=chunks)


def _like(x, dtype, device, chunks):
    """The shape of ``x``, and the dtype, device and chunks given, else those of ``x``."""
    x = x if isinstance(x, Array) else asarray(x)
    return x.shape, (x.dtype if dtype is None else dtype), (x.device if device is None else device), (x.chunks if chunks is None else chunks)


def zeros_like(x, /, dtype=None, *, device=None, chunks=None):
    """Zeros of ``x``'s shape (and dtype and chunks, unless given)."""
    shape, dtype, device, chunks = _like(x, dtype, device, chunks)
    return zeros(shape, dtype, device=device, chunks=chunks)


def ones_like(x, /, dtype=None, *, device=None, chunks=None):
    """Ones of ``x``'s shape (and dtype and chunks, unless given)."""
    shape, dtype, device, chunks = _like(x, dtype, device, chunks)
    return ones(shape, dtype, device=device, chunks=chunks)


def empty_like(x, /, dtype=None, *, device=None, chunks=None):
    """An array of ``x``'s shape (and dtype and chunks, unless given); its values are zeros."""
    shape, dtype, device, chunks = _like(x, dtype, device, chunks)
    return empty(shape, dtype, device=device, chunks=chunks)


def full_like(x, /, fill_value, dtype=None, *, device=None, chunks=None):
    """``fill_value`` in ``x``'s shape (and dtype and chunks, unless given)."""
    shape, dtype, device, chunks = _like(x, dtype, device, chunks)
    return full(shape, fill_value, dtype, device=device, chunks=chunks)


def _py_number(v, name):
    if isinstance(v, (np.generic, np.ndarray)):
        v = np.asarray(v).item()
    if not is_python_scalar(v):
        raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
    return v


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, chunks="auto"):
    """Evenly spaced values in ``[start, stop)`` (NumPy's ``arange``)."""
    _check_device(device)
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_py_number(v, n) for v, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise ZeroDivisionError("arange step must not be zero")
    return _on(device, Array(_tegula.arange(start, stop, step, dtype_name(dtype), chunks)))


def linspace(start, stop, /, num=50, endpoint=True, *, dtype=None, device=None, chunks="auto"):
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's ``linspace``)."""
    _check_device(device)
    start, stop = float(_py_number(start, "start")), float(_py_number(stop, "stop"))
    return _on(device, Array(_tegula.linspace(start, stop, int(num), bool(endpoint), dtype_name(dtype) or "float64", chunks)))
