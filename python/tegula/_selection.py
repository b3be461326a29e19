"""NumPy's element-wise choices built on ``where``: ``select`` (the first true condition's
choice) and ``nan_to_num`` (NaN and infinities replaced by finite values)."""

import numpy as np

from ._creation import asarray
from ._dtypes import is_python_scalar
from ._functions import UFUNCS, astype, where
from ._manipulation import broadcast_arrays

isnan, real, imag = UFUNCS["isnan"], UFUNCS["real"], UFUNCS["imag"]


def select(condlist, choicelist, default=0):
    """Each element from the choice of the first condition true there, else ``default``; the
    choices' common dtype, as NumPy's."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conditions = [asarray(c) for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    # Python scalars stay "weak" in the result dtype, as in NumPy: a default of 0 keeps int8 int8.
    given = list(choicelist) + [default]
    dtype = np.result_type(*[c if is_python_scalar(c) else asarray(c).dtype for c in given])
    choices = [asarray(c) for c in given]
    arrays = broadcast_arrays(*conditions, *choices)
    conditions, choices = arrays[:len(conditions)], [astype(c, dtype) for c in arrays[len(conditions):]]
    out = choices[-1]
    for condition, choice in zip(reversed(conditions), reversed(choices[:-1])):
        out = where(condition, choice, out)
    return out


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by default
    the dtype's largest and smallest finite values), in each part of complex values; integers
    and booleans are returned as they are. ``copy`` is accepted for NumPy's signature: tegula
    arrays are never modified in place by it."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return complex_from_parts(*(_finite(p, nan, posinf, neginf) for p in (real(x), imag(x))), x.dtype)
    if x.dtype.kind != "f":
        return x
    return _finite(x, nan, posinf, neginf)


def complex_from_parts(re, im, dtype):
    """The complex array ``re + im·i`` in ``dtype`` (a -0.0 real part may come out +0.0)."""
    return astype(re, dtype) + astype(im, dtype) * 1j


def _finite(x, nan, posinf, neginf):
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    value = lambda v: asarray(v).astype(x.dtype)  # noqa: E731 - NumPy casts the replacements
    return where(isnan(x), value(nan), where(x == np.inf, value(posinf), where(x == -np.inf, value(neginf), x)))
