"""NumPy's element-wise choices: ``select`` (the first true condition's choice) and
``nan_to_num`` (NaN and infinities replaced by finite values), built on ``where``; and
``piecewise`` (the user's function of each condition's elements), by ``map_blocks``."""

import functools

import numpy as np

from ._array import Array
from ._creation import asarray
from ._dtypes import is_python_scalar
from ._functions import UFUNCS, astype, where
from ._manipulation import broadcast_arrays
from ._map_blocks import map_blocks

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


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's ``piecewise``: where the ``k``-th condition holds, ``funclist[k]`` of ``x``'s
    elements there (or the value ``funclist[k]``); one function more than conditions is the
    "otherwise" case; elsewhere 0. The result has ``x``'s dtype. The conditions are checked
    now (NumPy's errors); the functions are called on each block's elements (NumPy's
    ``piecewise`` per block, as Dask's), so they must work element by element."""
    x = asarray(x)
    conditions = _conditions(condlist, x.ndim)
    n, n2 = len(conditions), len(funclist)
    if n not in (n2, n2 - 1):
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    if len({c.shape for c in conditions}) > 1:
        raise ValueError("setting an array element with a sequence. The requested array has an inhomogeneous shape")
    for c in conditions:
        if c.shape != x.shape:
            raise IndexError(f"boolean index did not match indexed array: shape {x.shape} but the condition's "
                             f"shape is {c.shape}")
    call = functools.partial(_piecewise_block, list(funclist), args, kw)
    return map_blocks(call, x, *conditions, dtype=x.dtype, name="piecewise")


def _conditions(condlist, ndim):
    """The conditions NumPy's ``piecewise`` reads from ``condlist``: a single condition (a
    scalar, or a flat sequence for an ``x`` of at least one axis) is a list of one; as
    boolean arrays."""
    if isinstance(condlist, (np.ndarray, Array)):
        if condlist.ndim == 0:
            raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
        single = condlist.ndim == 1 and ndim != 0
    else:
        single = np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray, Array)) and ndim != 0)
    items = [condlist] if single else [condlist[i] for i in range(len(condlist))]
    out = []
    for c in items:
        c = asarray(c)
        out.append(c if c.dtype == np.bool_ else c.astype(np.bool_))
    return out


def _piecewise_block(funclist, args, kw, block, *conditions):
    return np.piecewise(block, list(conditions), funclist, *args, **kw)
