"""NumPy's ``cov`` and ``corrcoef``: the variables' deviations from their means times their own
(conjugate) transpose. For real data that is ``x @ x.T``, the symmetric product that computes
only the blocks on and above the diagonal."""

import warnings

import numpy as np

from .linalg import diagonal
from ._creation import asarray, zeros
from ._functions import UFUNCS, astype, concat
from ._manipulation import clip
from ._selection import complex_from_parts

conj, real, imag, sqrt = UFUNCS["conj"], UFUNCS["real"], UFUNCS["imag"], UFUNCS["sqrt"]


def _as_rows(a, rowvar, dtype, y_rule):
    # NumPy's array(a, ndmin=2): 0-d and 1-d inputs are one variable (one row).
    a = astype(asarray(a), dtype)
    rows = a.reshape((1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a
    transpose = rows.shape[0] != 1 if y_rule else a.ndim != 1
    return rows.T if not rowvar and transpose else rows


def cov(m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None):
    """The covariance matrix of the variables in ``m`` (rows, or columns with ``rowvar=False``)
    and, if given, ``y``; normalised by ``N - ddof`` (``ddof`` 1, or 0 with ``bias``). A single
    variable gives a 0-d result, as NumPy's. NumPy's ``fweights``/``aweights`` are not taken."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    inputs = [asarray(m)] + ([] if y is None else [asarray(y)])
    for name, a in zip(("m", "y"), inputs):
        if a.ndim > 2:
            raise ValueError(f"{name} has more than 2 dimensions")
    dtype = np.result_type(*[a.dtype for a in inputs], np.float64) if dtype is None else np.dtype(dtype)
    x = _as_rows(inputs[0], rowvar, dtype, y_rule=False)
    if x.shape[0] == 0:
        return zeros((0, 0))
    if y is not None:
        x = concat([x, _as_rows(inputs[1], rowvar, dtype, y_rule=True)], axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    fact = x.shape[1] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    d = x - x.mean(axis=1, keepdims=True)
    product = d @ (conj(d).T if dtype.kind == "c" else d.T)
    with np.errstate(divide="ignore"):
        scale = np.true_divide(1, fact)
    return (product * scale).squeeze()


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients: ``cov`` divided by the outer product of the standard
    deviations, real and imaginary parts clipped to [-1, 1] as NumPy's."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    stddev = sqrt(real(diagonal(c)))
    c = c / stddev[:, None] / stddev[None, :]
    if c.dtype.kind != "c":
        return clip(c, -1, 1)
    return complex_from_parts(clip(real(c), -1, 1), clip(imag(c), -1, 1), c.dtype)
