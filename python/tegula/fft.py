"""The array API ``fft`` extension (NumPy's ``numpy.fft``). The transforms are the Rust crate's
``tegula::fft`` (each along one axis held in one block, other axes chunked; the real and
Hermitian variants, normalisation, padding and the n-dimensional forms composed there); here the
arguments are normalised as NumPy takes them."""

import operator

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray
from ._dtypes import dtype_name
from ._info import _check_device, _on

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "fft2", "ifft2", "rfft2", "irfft2",
           "rfftfreq", "fftshift", "ifftshift"]


def _one(kind, x, n, axis, norm):
    n = None if n is None else operator.index(n)
    return Array(_tegula.transform(asarray(x)._h, kind, n, operator.index(axis), norm))


def _many(kind, x, s, axes, norm):
    s = None if s is None else [None if v == -1 else operator.index(v) for v in s]
    axes = None if axes is None else [operator.index(a) for a in axes]
    return Array(_tegula.transform_n(asarray(x)._h, kind, s, axes, norm))


def fft(x, /, n=None, axis=-1, norm="backward"):
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _one("fft", x, n, axis, norm)


def ifft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``fft``."""
    return _one("ifft", x, n, axis, norm)


def rfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of a real array: its non-negative frequency terms only."""
    return _one("rfft", x, n, axis, norm)


def irfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``rfft``: a real array of length ``n`` (``2 * (m - 1)`` by default)."""
    return _one("irfft", x, n, axis, norm)


def hfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of a signal with Hermitian symmetry given by its first half: real."""
    return _one("hfft", x, n, axis, norm)


def ihfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of ``hfft``."""
    return _one("ihfft", x, n, axis, norm)


def fftn(x, /, s=None, axes=None, norm="backward"):
    """The n-dimensional transform: one-dimensional transforms along each of ``axes``."""
    return _many("fftn", x, s, axes, norm)


def ifftn(x, /, s=None, axes=None, norm="backward"):
    """The inverse of ``fftn``."""
    return _many("ifftn", x, s, axes, norm)


def rfftn(x, /, s=None, axes=None, norm="backward"):
    """``fftn`` of a real array: ``rfft`` along the last of ``axes``, ``fft`` along the others."""
    return _many("rfftn", x, s, axes, norm)


def irfftn(x, /, s=None, axes=None, norm="backward"):
    """The inverse of ``rfftn``."""
    return _many("irfftn", x, s, axes, norm)


# NumPy's two-dimensional forms: the n-dimensional ones over the last two axes by default.
def fft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """``fftn`` over the last two axes."""
    return fftn(x, s, axes, norm)


def ifft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """``ifftn`` over the last two axes."""
    return ifftn(x, s, axes, norm)


def rfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """``rfftn`` over the last two axes."""
    return rfftn(x, s, axes, norm)


def irfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """``irfftn`` over the last two axes."""
    return irfftn(x, s, axes, norm)


def _frequencies(n, d, dtype, device, real):
    _check_device(device)
    n = operator.index(n)
    if n <= 0:
        raise ValueError("n must be positive")
    return _on(device, Array(_tegula.fftfreq(n, float(d), dtype_name(dtype), real)))


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``."""
    return _frequencies(n, d, dtype, device, False)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an ``n``-point real transform."""
    return _frequencies(n, d, dtype, device, True)


def _axes(axes):
    if axes is None:
        return None
    return [operator.index(axes)] if np.ndim(axes) == 0 else [operator.index(a) for a in axes]


def fftshift(x, /, axes=None):
    """The zero-frequency term moved to the middle (a roll by half of each axis)."""
    return Array(_tegula.fftshift(asarray(x)._h, _axes(axes), False))


def ifftshift(x, /, axes=None):
    """The inverse of ``fftshift``."""
    return Array(_tegula.fftshift(asarray(x)._h, _axes(axes), True))
