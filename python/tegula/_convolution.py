"""NumPy's 1-d ``convolve`` and ``correlate`` (modes ``full``, ``same``, ``valid``). The full
correlation of ``a`` (length N) with ``w`` (length M) is a sum over the M rows of a Hankel
matrix ``H[j, k] = f[j + k]`` of the zero-padded ``f`` times ``w[j]``; ``H`` is a reshape of ``f``
tiled M times (each row then starts one element further on), so it is generated lazily and
its rows summed by a tree reduction: no gather and no Python loop over the kernel."""

import numpy as np

from ._creation import asarray, zeros
from ._functions import UFUNCS, concatenate
from ._manipulation import flip, tile
from ._reshape import reshape

_MODES = {0: "valid", 1: "same", 2: "full"}


def _mode(mode):
    mode = _MODES.get(mode, mode) if not isinstance(mode, str) else mode
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    return mode


def _full_correlation(a, w):
    """``out[k] = sum_j a[k + j - (M - 1)] * w[j]`` for ``k < N + M - 1`` (zeros outside
    ``a``), summed in the inputs' common dtype as NumPy's (integers wrap)."""
    dtype = np.result_type(a.dtype, w.dtype)
    a, w = a.astype(dtype), w.astype(dtype)
    n, m = a.shape[0], w.shape[0]
    padding = zeros((m - 1,), dtype=dtype)
    f = concatenate([padding, a, padding])
    width = n + 2 * m - 2
    rows = reshape(concatenate([tile(f, m), zeros((m,), dtype=dtype)]), (m, width + 1))[:, :n + m - 1]
    products = rows & w[:, None] if dtype == np.bool_ else rows * w[:, None]
    return products.any(axis=0) if dtype == np.bool_ else products.sum(axis=0, dtype=dtype)


def _window(full, n, m, mode, reversed_start):
    """The part of the full result ``mode`` keeps: all of it, the ``max(n, m)`` middle values
    (``same``) or the ``max - min + 1`` where the shorter input lies inside the longer
    (``valid``). ``reversed_start``: NumPy's correlate of a shorter first input takes the
    middle counted from the other end."""
    short, long = min(n, m), max(n, m)
    if mode == "full":
        return full
    if mode == "valid":
        return full[short - 1:long]
    start = (short - 1) // 2
    if reversed_start:
        start = short - 1 - start
    return full[start:start + long]


def correlate(a, v, mode="valid"):
    """NumPy's ``correlate``: ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-d arrays."""
    a, v = asarray(a), asarray(v)
    mode = _mode(mode)
    if a.ndim == 0 or v.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if a.ndim > 1 or v.ndim > 1:
        raise ValueError("object too deep for desired array")
    if a.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    w = UFUNCS["conj"](v) if v.dtype.kind == "c" else v
    full = _full_correlation(a, w)
    return _window(full, a.shape[0], v.shape[0], mode, a.shape[0] < v.shape[0])


def convolve(a, v, mode="full"):
    """NumPy's ``convolve``: ``c[k] = sum_n a[n] * v[k - n]`` of two 1-d arrays (scalars count
    as length one)."""
    a, v = asarray(a), asarray(v)
    mode = _mode(mode)
    a, v = (reshape(x, (1,)) if x.ndim == 0 else x for x in (a, v))
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if a.ndim > 1 or v.ndim > 1:
        raise ValueError("object too deep for desired array")
    full = _full_correlation(a, flip(v))
    return _window(full, a.shape[0], v.shape[0], mode, False)
