"""NumPy's element-wise functions the Rust core has no kernel for, composed from those it has:
``fmax``/``fmin`` (NaN ignored), ``isnat``, ``fmod`` (C's remainder, of the dividend's sign), ``cbrt``,
``exp2``, the angle conversions, ``fabs``, ``float_power``, ``logaddexp2``, ``divmod``, and
the ufunc-like ``isposinf``/``isneginf``/``fix``. Each is one fused element-wise expression,
with NumPy's result dtype. ``UFUNC_LIKES`` also holds ``_float_parts``' ufuncs."""

import numpy as np

from ._array import refuse_out
from ._creation import asarray, full
from ._dtypes import is_python_scalar
from ._float_parts import FLOAT_PARTS
from ._functions import UFUNCS, _with_weak_scalars, where
from ._strict import check_promotion
from ._ufunc_types import numpy_dtypes

isnan, isinf, signbit = UFUNCS["isnan"], UFUNCS["isinf"], UFUNCS["signbit"]
maximum, minimum, remainder, copysign = UFUNCS["maximum"], UFUNCS["minimum"], UFUNCS["remainder"], UFUNCS["copysign"]


def _nan_ignoring(name, pick, x1, x2):
    """``pick(x1, x2)`` where neither is NaN, else the one that is not (NaN when both are)."""
    a, b = _with_weak_scalars([x1, x2], name)
    picked = pick(a, b)
    if picked.dtype.kind not in "fcmM":
        return picked
    return where(isnan(b), a, where(isnan(a), b, picked))


def fmax(x1, x2, /):
    """NumPy's ``fmax``: the element-wise maximum, ignoring NaN (NaN only where both are)."""
    return _nan_ignoring("fmax", maximum, x1, x2)


def fmin(x1, x2, /):
    """NumPy's ``fmin``: the element-wise minimum, ignoring NaN (NaN only where both are)."""
    return _nan_ignoring("fmin", minimum, x1, x2)


def isnat(x, /):
    """NumPy's ``isnat``: whether each element of a datetime64 or timedelta64 array is NaT."""
    x = asarray(x)
    if x.dtype.kind not in "mM":
        raise TypeError("ufunc 'isnat' is only defined for np.datetime64 and np.timedelta64.")
    return isnan(x)


def fmod(x1, x2, /):
    """NumPy's ``fmod``: the remainder of truncated division, with the dividend's sign (C's
    ``fmod``), where ``remainder`` has the divisor's. Floats: the remainder of the magnitudes
    (exact) given the dividend's sign; integers: ``remainder`` moved by one divisor where its
    sign differs from the dividend's (0 for a zero divisor, as NumPy)."""
    a, b = _with_weak_scalars([x1, x2], "fmod")
    dtype = remainder(a, b).dtype  # NumPy's loop: bool pairs compute in int8
    a, b = a.astype(dtype), b.astype(dtype)
    if dtype.kind == "f":
        return copysign(remainder(abs(a), abs(b)), a)
    r = remainder(a, b)
    if dtype.kind == "u":
        return r
    return where((r != 0) & ((r < 0) != (a < 0)), r - b, r)


def _inexact(x, name, *, complex_ok=True):
    """``x`` as an array and the float dtype NumPy's unary float ufuncs give it (float16 for
    bool and 8-bit integers, float32 for 16-bit ones, float64 for wider ones)."""
    x = asarray(x)
    if x.dtype.kind == "c" and not complex_ok:
        raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs could not be "
                        "safely coerced to any supported types according to the casting rule ''safe''")
    return x, np.result_type(x.dtype, np.float16)


def cbrt(x, /):
    """NumPy's ``cbrt``: the real cube root (negative for negative values), computed in float64
    (a power of 1/3, then one Newton step, so exact cubes give their exact roots) and rounded
    to NumPy's result dtype."""
    x, dtype = _inexact(x, "cbrt", complex_ok=False)
    v = x.astype(np.float64)
    y = copysign(abs(v) ** (1 / 3), v)
    refined = y - (y * y * y - v) / (3 * y * y)
    return where(UFUNCS["isfinite"](y) & (y != 0), refined, y).astype(dtype)


def exp2(x, /):
    """NumPy's ``exp2``: ``2 ** x`` in NumPy's float (or complex) result dtype."""
    x, dtype = _inexact(x, "exp2")
    return 2 ** x.astype(dtype)


def _scaled(x, factor, name):
    """``x * factor`` in NumPy's result dtype; float16 computes in float32 and rounds, as
    NumPy's half-precision loops do."""
    x, dtype = _inexact(x, name, complex_ok=False)
    wide = np.float32 if dtype == np.float16 else dtype
    return (x.astype(wide) * factor).astype(dtype)


def deg2rad(x, /):
    """NumPy's ``deg2rad``: angles in degrees to radians."""
    return _scaled(x, np.pi / 180, "deg2rad")


def rad2deg(x, /):
    """NumPy's ``rad2deg``: angles in radians to degrees."""
    return _scaled(x, 180 / np.pi, "rad2deg")


def radians(x, /):
    """NumPy's ``radians`` (``deg2rad``)."""
    return _scaled(x, np.pi / 180, "radians")


def degrees(x, /):
    """NumPy's ``degrees`` (``rad2deg``)."""
    return _scaled(x, 180 / np.pi, "degrees")


def _infinite_of_sign(x, out, negative):
    refuse_out(out)
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for {x.dtype} values because it would be ambiguous.")
    sign = signbit(x)
    return isinf(x) & (sign if negative else ~sign)


def isposinf(x, out=None):
    """NumPy's ``isposinf``: whether each element is positive infinity."""
    return _infinite_of_sign(x, out, negative=False)


def isneginf(x, out=None):
    """NumPy's ``isneginf``: whether each element is negative infinity."""
    return _infinite_of_sign(x, out, negative=True)


def _in_dtype(items, dtype, name):
    """``items`` as tegula arrays of ``dtype``, the dtype of NumPy's loop for them: Python
    scalars are converted to it directly, as NumPy converts its weak scalars (so ``-1`` next
    to a uint8 array is -1.0 for a float loop)."""
    check_promotion(name, *items)
    return [full((), v, dtype) if is_python_scalar(v) else asarray(v).astype(dtype) for v in items]


def _computing(dtype):
    """The dtype NumPy's loop for ``dtype`` computes in: float32 for float16 (rounded once at
    the end), else ``dtype`` itself."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def fabs(x, /):
    """NumPy's ``fabs``: absolute values as floats (no complex loop: a ``TypeError``)."""
    (dtype,) = numpy_dtypes(np.fabs, x)
    return abs(asarray(x).astype(dtype))


def float_power(x1, x2, /):
    """NumPy's ``float_power``: ``x1 ** x2`` computed in float64 at least (complex128 for
    complex operands), so small integer and float types do not overflow."""
    (dtype,) = numpy_dtypes(np.float_power, x1, x2)
    return UFUNCS["power"](*_in_dtype([x1, x2], dtype, "float_power"))


def logaddexp2(x1, x2, /):
    """NumPy's ``logaddexp2``: ``log2(2**x1 + 2**x2)`` without overflow, as NumPy's loop
    computes it (``x1 + 1`` where the two are equal, so like infinities stay themselves; the
    larger plus ``log2(1 + 2**-|x1 - x2|)`` elsewhere; NaN where either is)."""
    (dtype,) = numpy_dtypes(np.logaddexp2, x1, x2)
    a, b = (v.astype(_computing(dtype)) for v in _in_dtype([x1, x2], dtype, "logaddexp2"))
    d = a - b
    log2_1p = lambda v: UFUNCS["log1p"](v) * (1 / np.log(2))  # noqa: E731
    out = where(a == b, a + 1, where(d > 0, a + log2_1p(exp2(-d)), where(d <= 0, b + log2_1p(exp2(d)), d)))
    return out.astype(dtype)


def divmod(x1, x2, /):
    """NumPy's ``divmod``: the tuple ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    numpy_dtypes(np.divmod, x1, x2)  # NumPy's TypeError for complex operands
    return UFUNCS["floor_divide"](x1, x2), UFUNCS["remainder"](x1, x2)


def fix(x, out=None):
    """NumPy's ``fix``: rounded toward zero (``ceil`` of the negative values, ``floor`` of the
    others), in the dtype NumPy's ``ceil`` gives."""
    refuse_out(out)
    x = asarray(x)
    return where(x >= 0, UFUNCS["floor"](x), UFUNCS["ceil"](x))


# NumPy ufuncs, which NumPy's ufunc protocol finds here.
UFUNC_LIKES = {f.__name__: f for f in (fmax, fmin, isnat, fmod, cbrt, exp2, deg2rad, rad2deg, radians, degrees, fabs,
                                       float_power, logaddexp2, divmod)}
UFUNC_LIKES.update(FLOAT_PARTS)
