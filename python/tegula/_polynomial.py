"""NumPy's ``polyval`` (Horner's rule: one fused multiply-add per coefficient, and there are
few) and ``polyfit`` (least squares on the column-scaled Vandermonde matrix, through
``linalg.lstsq``, which computes the rank when the expression is built, so NumPy's
RankWarning is given then too)."""

import operator
import warnings

import numpy as np

from ._creation import asarray, ones, zeros_like
from ._functions import UFUNCS, concatenate
from ._manipulation import broadcast_to, flip
from ._sorting import cumulative_prod
from .linalg import inv, lstsq


def polyval(p, x):
    """NumPy's ``polyval``: the polynomial with coefficients ``p`` (highest power first; a 2-d
    ``p`` holds one polynomial per column) at ``x``."""
    p, x = asarray(p), asarray(x)
    y = zeros_like(x)
    for i in range(p.shape[0] if p.ndim else 0):
        y = y * x + p[i]
    return y


def _vander(x, columns):
    """NumPy's ``vander(x, columns)``: decreasing powers of ``x``, by repeated multiplication
    as NumPy's (a running product along each row)."""
    n = x.shape[0]
    if columns == 0:
        return broadcast_to(x[:, None], (n, 0))
    factors = concatenate([ones((n, 1), dtype=x.dtype), broadcast_to(x[:, None], (n, columns - 1))], axis=1)
    return flip(cumulative_prod(factors, axis=1), axis=1)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """NumPy's ``polyfit``: the least-squares polynomial of degree ``deg`` through the points,
    highest power first (one column per column of a 2-d ``y``), with NumPy's ``full``,
    weights ``w`` and ``cov`` results."""
    order = operator.index(deg) + 1
    x, y = asarray(x) + 0.0, asarray(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    rcond = x.shape[0] * np.finfo(x.dtype).eps if rcond is None else rcond
    lhs, rhs = _vander(x, order), y
    if w is not None:
        w = asarray(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = UFUNCS["sqrt"]((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, residuals, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, residuals, rank, s, rcond
    if not cov:
        return c
    base = inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
        factor = 1
    elif x.shape[0] <= order:
        raise ValueError("the number of data points must exceed order to scale the covariance matrix")
    else:
        factor = residuals / (x.shape[0] - order)
    return c, base * factor if y.ndim == 1 else base[:, :, None] * factor
