"""NumPy's NaN-ignoring reductions (``nansum``, ``nanmean``, ``nanvar``, ``nanmax``, ...).
``nansum``, ``nanmin``, ``nanmax``, ``nanmean``, ``nanvar`` and ``nanstd`` are reductions of
the core that skip NaNs as they fold (one pass, no mask); the others, and those with a
``dtype=`` the core's would not match NumPy's on, are ordinary reductions of the input with its
NaNs replaced by the operation's identity, and counts of the values that are not NaN. Integer
and boolean inputs have no NaN: they take the ordinary reduction. xarray's ``skipna``
reductions call these.

``nanargmax``/``nanargmin`` stay lazy where NumPy raises for a slice of NaNs only: as Dask's,
they raise NumPy's ``ValueError`` when computed (``_deferred_checks.py``)."""

import numpy as np

from ._array import refuse_out
from ._creation import asarray
from ._deferred_checks import checked
from ._functions import UFUNCS, where
from ._searching import argmax, argmin
from ._sorting import cumprod, cumsum


def _filled(a, value):
    """``a`` with its NaNs replaced by ``value``, and the NaN mask (None for exact dtypes)."""
    a = asarray(a)
    if a.dtype.kind not in "fc":
        return a, None
    mask = UFUNCS["isnan"](a)
    return where(mask, value, a), mask


# Positional parameters in NumPy's order, ``out`` included (refused).
def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """NumPy's ``nansum``: the sum over ``axis`` treating NaN as zero."""
    refuse_out(out)
    a = asarray(a)
    if a.dtype.kind in "fc" and (dtype is None or np.dtype(dtype).kind in "fc"):
        return a._reduce("nansum", axis, keepdims, dtype)
    # exact inputs have no NaN; an exact dtype= takes the NaNs out before converting
    return _filled(a, 0)[0].sum(axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """NumPy's ``nanprod``: the product over ``axis`` treating NaN as one."""
    refuse_out(out)
    return _filled(a, 1)[0].prod(axis=axis, dtype=dtype, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """NumPy's ``nancumsum``: running sums along ``axis`` treating NaN as zero."""
    refuse_out(out)
    return cumsum(_filled(a, 0)[0], axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """NumPy's ``nancumprod``: running products along ``axis`` treating NaN as one."""
    refuse_out(out)
    return cumprod(_filled(a, 1)[0], axis=axis, dtype=dtype)


def _nanextreme(a, axis, keepdims, name):
    """The extreme skipping NaNs; NaN for a slice of NaNs only."""
    a = asarray(a)
    if a.dtype.kind in "fcmM":  # times skip NaT, as NumPy's fmin/fmax do
        return a._reduce(f"nan{name}", axis, keepdims)
    return getattr(a, name)(axis=axis, keepdims=keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    """Minimum ignoring NaNs; NaN where a slice holds only NaNs (NumPy warns there)."""
    refuse_out(out)
    return _nanextreme(a, axis, keepdims, "min")


def nanmax(a, axis=None, out=None, keepdims=False):
    """NumPy's ``nanmax``: the largest element over ``axis`` ignoring NaN (NaN where all are)."""
    refuse_out(out)
    return _nanextreme(a, axis, keepdims, "max")


def _count(mask, axis, keepdims):
    return (~mask).sum(axis=axis, dtype="int64", keepdims=keepdims)


def _divide(total, count):
    """``total / count`` in the dtype of ``total``, as NumPy's nan-functions divide."""
    return (total / count).astype(total.dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean of the values that are not NaN; NaN for a slice of NaNs only."""
    refuse_out(out)
    a = asarray(a)
    if a.dtype.kind not in "fc":
        return a.mean(axis=axis, dtype=dtype, keepdims=keepdims)
    if dtype is None:
        return a._reduce("nanmean", axis, keepdims)
    filled, mask = _filled(a, 0)
    total = filled.sum(axis=axis, dtype=dtype, keepdims=keepdims)
    return _divide(total, _count(mask, axis, keepdims))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance of the values that are not NaN (two passes: the mean, then squared deviations);
    NaN where fewer than ``ddof + 1`` values are left. Complex inputs give real variances."""
    refuse_out(out)
    a = asarray(a)
    if a.dtype.kind in "fc" and dtype is None and a.dtype != np.float16:
        return a._reduce("nanvar", axis, keepdims, ddof=ddof)
    filled, mask = _filled(a, 0)
    if mask is None:
        return filled.var(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    count = _count(mask, axis, True)
    mean = _divide(filled.sum(axis=axis, dtype=dtype, keepdims=True), count)
    deviation = where(mask, 0, filled - mean)
    squares = UFUNCS["real"](deviation * UFUNCS["conj"](deviation)) if deviation.dtype.kind == "c" else deviation * deviation
    dof = _count(mask, axis, keepdims) - ddof
    var = _divide(squares.sum(axis=axis, dtype=dtype, keepdims=keepdims), dof)
    return where(dof <= 0, float("nan"), var)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """NumPy's ``nanstd``: the standard deviation over ``axis`` of the values that are not NaN."""
    refuse_out(out)
    a = asarray(a)
    if a.dtype.kind in "fc" and dtype is None and a.dtype != np.float16:
        return a._reduce("nanstd", axis, keepdims, ddof=ddof)
    return UFUNCS["sqrt"](nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def _nanarg(a, axis, out, keepdims, arg, fill):
    refuse_out(out)
    filled, mask = _filled(a, fill)
    index = arg(filled, axis=axis, keepdims=keepdims)
    if mask is None:
        return index
    return checked(index, mask.all(axis=axis, keepdims=keepdims), ValueError, "All-NaN slice encountered")


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``nanargmax``: the index of the first maximum ignoring NaNs (NaN read as -inf,
    as NumPy does); a slice of NaNs only raises ValueError when computed."""
    return _nanarg(a, axis, out, keepdims, argmax, -np.inf)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``nanargmin``: the index of the first minimum ignoring NaNs (NaN read as +inf);
    a slice of NaNs only raises ValueError when computed."""
    return _nanarg(a, axis, out, keepdims, argmin, np.inf)


NANFUNCTIONS = {f.__name__: f for f in (nansum, nanprod, nancumsum, nancumprod, nanmin, nanmax,
                                        nanmean, nanvar, nanstd, nanargmax, nanargmin)}
