"""NumPy's functions of the parts of complex numbers: ``angle`` (the argument), ``iscomplex``
and ``isreal`` (whether the imaginary part is non-zero, or zero). Arrays of a real dtype are
the complex numbers with a zero imaginary part, as in NumPy."""

import numpy as np

from ._creation import asarray, full
from ._functions import UFUNCS


def angle(z, deg=False):
    """NumPy's ``angle``: ``arctan2(imag, real)`` in radians (degrees when ``deg``), in the float
    dtype NumPy's ``arctan2`` gives (float16 for bool and 8-bit integers, ...)."""
    z = asarray(z)
    if z.dtype.kind == "c":
        a = UFUNCS["arctan2"](z.imag, z.real)
    else:
        a = UFUNCS["arctan2"](0, z)
    return a * (180 / np.pi) if deg else a


def iscomplex(x):
    """NumPy's ``iscomplex``: where the imaginary part is non-zero (all False for a real dtype)."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return x.imag != 0
    return full(x.shape, False, chunks=x.chunks)


def isreal(x):
    """NumPy's ``isreal``: where the imaginary part is zero (all True for a real dtype)."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return x.imag == 0
    return full(x.shape, True, chunks=x.chunks)
