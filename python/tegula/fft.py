"""The array API ``fft`` extension (NumPy's ``numpy.fft``). Each transform runs along one axis
held in one block (other axes stay chunked) in the Rust core; real and Hermitian variants,
normalisation, padding and the n-dimensional forms are composed here from lazy operations."""

import operator

import numpy as np

from ._array import Array
from ._creation import arange, asarray, zeros
from ._functions import UFUNCS, concat
from ._info import _check_device, _on
from ._manipulation import roll

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "fft2", "ifft2", "rfft2", "irfft2",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward", None)  # None: NumPy's "backward"


def _complex(x):
    """``x`` as the complex type NumPy transforms it in: complex64 for float16 and float32,
    complex128 for float64, integers and bools."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return x
    if x.dtype.kind not in "fbiu":
        raise TypeError(f"fft takes a numeric array, not {x.dtype}")
    return x.astype(np.complex64 if x.dtype in (np.float16, np.float32) else np.complex128)


def _fit(x, n, axis):
    """``x`` cut or zero-padded to length ``n`` along ``axis``, as NumPy's ``n=``."""
    length = x.shape[axis]
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    key = [slice(None)] * x.ndim
    if n <= length:
        key[axis] = slice(0, n)
        return x[tuple(key)]
    shape = list(x.shape)
    shape[axis] = n - length
    return concat([x, zeros(tuple(shape), dtype=x.dtype)], axis=axis)


def _scale(x, n, norm, inverse):
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    divide = {"backward": inverse, None: inverse, "forward": not inverse}.get(norm)
    if norm == "ortho":
        return x * (1 / np.sqrt(n)) if n else x
    return x * (1 / n) if divide and n else x


def _axis(x, axis):
    if x.ndim == 0:
        raise ValueError("fft needs an array of at least one dimension")
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim)
    return axis % x.ndim


def _transform(x, n, axis, norm, inverse):
    x = _complex(x)
    axis = _axis(x, axis)
    n = x.shape[axis] if n is None else operator.index(n)
    x = _fit(x, n, axis)
    out = Array(x._h.fft(axis, inverse))
    return _scale(out, n, norm, inverse).astype(x.dtype)


def fft(x, /, n=None, axis=-1, norm="backward"):
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _transform(x, n, axis, norm, False)


def ifft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``fft``."""
    return _transform(x, n, axis, norm, True)


def _axes_and_sizes(x, s, axes):
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = tuple(operator.index(a) for a in axes)
    if s is not None and len(s) != len(axes):
        raise ValueError("s and axes must have the same length")
    sizes = [None] * len(axes) if s is None else [None if v == -1 else operator.index(v) for v in s]
    return axes, sizes


def _transform_n(x, s, axes, norm, inverse):
    """One-dimensional transforms along each of ``axes``, the last first (NumPy's order)."""
    x = asarray(x)
    axes, sizes = _axes_and_sizes(x, s, axes)
    for axis, n in zip(reversed(axes), reversed(sizes)):
        x = _transform(x, n, axis, norm, inverse)
    return _complex(x)


def fftn(x, /, s=None, axes=None, norm="backward"):
    """The n-dimensional transform: one-dimensional transforms along each of ``axes``."""
    return _transform_n(x, s, axes, norm, False)


def ifftn(x, /, s=None, axes=None, norm="backward"):
    return _transform_n(x, s, axes, norm, True)


def _real_input(x):
    """``x`` as a real array (integers and bools transform as float64, as NumPy's)."""
    x = asarray(x)
    if x.dtype.kind in "biu":
        return x.astype(np.float64)
    if x.dtype.kind != "f":
        raise TypeError(f"rfft takes a real array, not {x.dtype}")
    return x


def rfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of a real array: its non-negative frequency terms only."""
    out = fft(_real_input(x), n=n, axis=axis, norm=norm)
    axis = operator.index(axis) % out.ndim
    key = [slice(None)] * out.ndim
    key[axis] = slice(0, out.shape[axis] // 2 + 1)
    return out[tuple(key)]


def _hermitian_full(x, n, axis):
    """The full spectrum of length ``n`` whose first half is ``x`` (Hermitian symmetry)."""
    m = n // 2 + 1
    x = _fit(x, m, axis)
    key = [slice(None)] * x.ndim
    key[axis] = slice(n - m, 0, -1)  # mirrored positive frequencies, conjugated
    tail = UFUNCS["conj"](x[tuple(key)])
    return concat([x, tail], axis=axis)


def irfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``rfft``: a real array of length ``n`` (``2 * (m - 1)`` by default)."""
    given, x = asarray(x), _complex(x)
    axis = _axis(x, axis)
    n = 2 * (x.shape[axis] - 1) if n is None else operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    full = _hermitian_full(x, n, axis)
    return _real_result(given, UFUNCS["real"](ifft(full, n=n, axis=axis, norm=norm)))


def _real_result(given, result):
    """NumPy's real inverse transforms of float16 input are float16 (computed in float32)."""
    return result.astype(np.float16) if given.dtype == np.float16 else result


def rfftn(x, /, s=None, axes=None, norm="backward"):
    x = _real_input(x)
    axes, sizes = _axes_and_sizes(x, s, axes)
    x = rfft(x, n=sizes[-1], axis=axes[-1], norm=norm)
    for axis, n in zip(reversed(axes[:-1]), reversed(sizes[:-1])):
        x = fft(x, n=n, axis=axis, norm=norm)
    return x


def irfftn(x, /, s=None, axes=None, norm="backward"):
    x = asarray(x)  # made complex by the transforms, so one axis of float16 stays float16 as NumPy
    axes, sizes = _axes_and_sizes(x, s, axes)
    for axis, n in zip(axes[:-1], sizes[:-1]):
        x = ifft(x, n=n, axis=axis, norm=norm)
    return irfft(x, n=sizes[-1], axis=axes[-1], norm=norm)


# NumPy's two-dimensional forms: the n-dimensional ones over the last two axes by default.
def fft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    return fftn(x, s, axes, norm)


def ifft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    return ifftn(x, s, axes, norm)


def rfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    return rfftn(x, s, axes, norm)


def irfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    return irfftn(x, s, axes, norm)


_SWAPPED = {"backward": "forward", None: "forward", "ortho": "ortho", "forward": "backward"}


def hfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of a signal with Hermitian symmetry given by its first half: real."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    x = asarray(x)
    return _real_result(x, irfft(UFUNCS["conj"](_complex(x)), n=n, axis=axis, norm=_SWAPPED[norm]))


def ihfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``hfft``."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return UFUNCS["conj"](rfft(x, n=n, axis=axis, norm=_SWAPPED[norm]))


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``."""
    _check_device(device)
    n = operator.index(n)
    if n <= 0:
        raise ValueError("n must be positive")
    k = arange(n, dtype="int64")
    k = k - n * (k >= (n + 1) // 2)
    return _on(device, (k / (n * d)).astype(np.float64 if dtype is None else dtype))


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an ``n``-point real transform."""
    _check_device(device)
    n = operator.index(n)
    if n <= 0:
        raise ValueError("n must be positive")
    return _on(device, (arange(n // 2 + 1, dtype="int64") / (n * d)).astype(np.float64 if dtype is None else dtype))


def fftshift(x, /, axes=None):
    """The zero-frequency term moved to the middle (a roll by half of each axis)."""
    x = asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else (axes,) if np.ndim(axes) == 0 else tuple(axes)
    return roll(x, tuple(x.shape[a] // 2 for a in axes), axis=axes) if axes else x


def ifftshift(x, /, axes=None):
    """The inverse of ``fftshift``."""
    x = asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else (axes,) if np.ndim(axes) == 0 else tuple(axes)
    return roll(x, tuple(-(x.shape[a] // 2) for a in axes), axis=axes) if axes else x
