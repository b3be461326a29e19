"""NumPy's ufuncs that take floating-point numbers apart or put them together: ``frexp``
(mantissa and exponent), ``ldexp`` (``x1 * 2**x2``), ``modf`` (fractional and integral parts)
and ``spacing`` (the distance to the next representable number). Each is a fused element-wise
expression with NumPy's dtypes, exact (one rounding at most, as C's functions): scaling by a
power of two is done in float64 by powers of two that are themselves representable."""

import numpy as np

from ._creation import asarray
from ._functions import UFUNCS, where
from ._ufunc_types import numpy_dtypes

isinf, isfinite, trunc, copysign = UFUNCS["isinf"], UFUNCS["isfinite"], UFUNCS["trunc"], UFUNCS["copysign"]
maximum, minimum, nextafter, floor, log2 = (UFUNCS[n] for n in ("maximum", "minimum", "nextafter", "floor", "log2"))


def _pow2(e):
    """``2.0 ** e`` for float64 ``e`` holding whole numbers in [-1074, 1023] (exact)."""
    return UFUNCS["power"](2.0, e)


def _scaled(v, k):
    """float64 ``v * 2**k`` for int64 ``k``, rounded once. At most three factors, each a
    representable power of two: growing ones are exact until the result overflows; shrinking
    ones leave the single rounding to the last factor (an earlier factor that underflows means
    a result below half the smallest subnormal, zero either way)."""
    kk = minimum(maximum(k, -2200), 2200)  # past these every finite non-zero result is 0 or inf
    grows, one_step = kk >= 0, kk >= -1074
    e3 = where(grows, maximum(kk - 2046, 0), where(one_step, kk, -1074))
    e1 = where(grows, minimum(kk, 1023), where(one_step, 0, maximum(kk + 1074, -1022)))
    e2 = kk - e1 - e3
    f1, f2, f3 = (_pow2(e.astype(np.float64)) for e in (e1, e2, e3))
    return v * f1 * f2 * f3


def ldexp(x1, x2, /):
    """NumPy's ``ldexp``: ``x1 * 2**x2`` for an integer ``x2``, in ``x1``'s float dtype (as
    NumPy's loops: float16 for bool and 8-bit integers, ...), overflowing to infinity and
    rounding to subnormals as C's ``ldexp``."""
    (dtype,) = numpy_dtypes(np.ldexp, x1, x2)
    v = asarray(x1).astype(np.float64)
    return _scaled(v, asarray(x2).astype(np.int64)).astype(dtype)


def _frexp64(v):
    """float64 ``(mantissa, exponent)`` of float64 ``v``: ``|mantissa|`` in [0.5, 1) and
    ``v == mantissa * 2**exponent``; zeros, infinities and NaN are their own mantissa, with
    exponent 0 (NumPy's). The exponent comes from ``log2``, then one correction step."""
    ordinary = isfinite(v) & (v != 0)
    e = where(ordinary, floor(log2(abs(v))) + 1, 0.0).astype(np.int64)
    m = _scaled(v, -e)
    high, low = abs(m) >= 1, abs(m) < 0.5
    m = where(high, m * 0.5, where(low, m * 2, m))
    e = where(high, e + 1, where(low, e - 1, e))
    return where(ordinary, m, v), where(ordinary, e, 0)


def frexp(x, /):
    """NumPy's ``frexp``: the tuple ``(mantissa, exponent)`` with ``x == mantissa * 2**exponent``,
    ``|mantissa|`` in [0.5, 1) (the float dtype NumPy gives ``x``) and an int32 exponent;
    zeros, infinities and NaN give themselves and 0."""
    m_dtype, e_dtype = numpy_dtypes(np.frexp, x)
    m, e = _frexp64(asarray(x).astype(np.float64))
    return m.astype(m_dtype), e.astype(e_dtype)


def modf(x, /):
    """NumPy's ``modf``: the tuple ``(fractional, integral)`` parts, both of ``x``'s sign (the
    fractional part of an infinity is a zero)."""
    dtype, _ = numpy_dtypes(np.modf, x)
    v = asarray(x).astype(dtype)
    whole = trunc(v)
    return copysign(where(isinf(v), 0.0, v - whole), v), whole


def spacing(x, /):
    """NumPy's ``spacing``: the distance from ``x`` to the adjacent number away from zero (its
    sign is ``x``'s; the smallest subnormal for zeros; NaN for infinities and NaN). float16
    follows NumPy's half-precision routine, which is always positive and, at a negative
    power of two, gives the (smaller) distance towards zero; at the largest finite value it
    is infinite."""
    (dtype,) = numpy_dtypes(np.spacing, x)
    v = asarray(x).astype(dtype)
    if dtype == np.float16:
        return _half_spacing(v.astype(np.float64)).astype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    away = nextafter(v, copysign(np.asarray(np.inf, dtype), v))
    return where(isinf(v), np.asarray(np.nan, dtype), where(v == 0, np.asarray(tiny, dtype), away - v))


def _half_spacing(v):
    m, e = _frexp64(abs(v))
    # |v| = 2**(e - 1) * (2 m); its unit in the last place has 10 fewer binary digits
    negative_power_of_two = (v < 0) & (m == 0.5)
    ulp = _pow2((e - where(negative_power_of_two, 12, 11)).astype(np.float64))
    out = maximum(ulp, 2.0 ** -24)
    out = where(v == 0, 2.0 ** -24, out)
    out = where(v == 65504.0, np.inf, out)
    return where(isfinite(v), out, np.nan)


FLOAT_PARTS = {f.__name__: f for f in (frexp, ldexp, modf, spacing)}
