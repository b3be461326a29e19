"""The element-wise functions added for dask.array's namespace (``fabs``, ``fix``, ``around``,
``float_power``, ``logaddexp2``, ``divmod``, ``frexp``, ``ldexp``, ``modf``, ``spacing``,
``i0``, ``sinc``, ``angle``, ``iscomplex``, ``isreal``, ``isnull``/``notnull``) against
NumPy: every dtype, random shapes and chunkings, Python scalars; NumPy's result dtypes and
exception types, and results that stay lazy until computed."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from strategies import (ALL_DTYPES, COMPLEX, FLOAT, assert_same, chunkings, dtypes, error_class, np_arrays,
                        oracle, python_scalars, quiet)

EXACT_UNARY = {"fabs": np.fabs, "fix": np.fix, "frexp": np.frexp, "modf": np.modf, "spacing": np.spacing,
               "iscomplex": np.iscomplex, "isreal": np.isreal}
CLOSE_UNARY = {"i0": np.i0, "sinc": np.sinc, "angle": np.angle, "angle_deg": lambda a: np.angle(a, deg=True),
               "around": lambda a: np.around(a, 1)}
TEGULA = {"angle_deg": lambda x: tg.angle(x, deg=True), "around": lambda x: tg.around(x, 1)}
SMALL = dict(max_magnitude=1e4)  # trigonometric and exponential functions of huge values are libm noise


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare(got, expected, error, **tolerance):
    """``got()`` (tegula) is lazy and computes NumPy's ``expected`` (a tuple for several
    results), or raises ``error``'s class."""
    if error is not None:
        with pytest.raises(error_class(error)), quiet():
            out = got()
            [o.compute() for o in out] if isinstance(out, tuple) else out.compute()
        return
    out = got()
    outs, wanted = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
    assert len(outs) == len(wanted)
    for o, e in zip(outs, wanted):
        assert isinstance(o, tg.Array)
        with quiet():
            assert_same(o.compute(), np.asarray(e), **tolerance)


def numpy_tuple(fn):
    """NumPy's ``fn`` with its tuple results kept as tuples (``oracle`` makes one array)."""
    def call(*args):
        with quiet():
            out = fn(*args)
        return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)
    return call


def expected_of(fn, *args):
    _, error = oracle(fn, *args)
    return (None if error is not None else numpy_tuple(fn)(*args)), error


@given(st.data(), st.sampled_from(sorted(EXACT_UNARY)), dtypes())
def test_exact_unary_functions_are_numpys(data, name, dtype):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))))
    expected, error = expected_of(EXACT_UNARY[name], a)
    compare(lambda: getattr(tg, name)(chunked(data, a)), expected, error, exact=True)


@given(st.data(), st.sampled_from(sorted(CLOSE_UNARY)), dtypes())
def test_unary_functions_are_numpys_to_rounding(data, name, dtype):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=5)),
                            **SMALL))
    expected, error = expected_of(CLOSE_UNARY[name], a)
    fn = TEGULA.get(name, getattr(tg, name, None))
    tolerance = {}
    if error is None and expected.dtype.kind in "fc":
        eps = float(np.finfo(expected.dtype).eps)
        # NumPy's and tegula's libm differ by an ulp or two, more through i0's series in float16
        tolerance = dict(rtol=(64 if expected.dtype == np.float16 else 16) * eps,
                         atol=np.maximum(16 * eps * np.abs(np.asarray(expected)).astype(np.float64),
                                         float(np.finfo(expected.dtype).tiny)))
    compare(lambda: fn(chunked(data, a)), expected, error, **tolerance)


def exact_powers_of_two(dtype):
    """Exponents that keep a value of ``dtype`` and its scaled values within its range or just
    past it: overflow, subnormals and underflow to zero included."""
    span = {2: 40, 4: 300, 8: 2200}[np.dtype(dtype).itemsize if np.dtype(dtype).kind == "f" else 8]
    return st.integers(-span, span)


@given(st.data(), dtypes(), dtypes([np.dtype(d) for d in ("int8", "int32", "int64", "uint8", "bool", "float64")]))
def test_ldexp_is_numpys_exactly(data, d1, d2):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=4))
    a = data.draw(np_arrays(d1, shapes.input_shapes[0]))
    if d2.kind == "i":
        b = data.draw(hnp.arrays(d2, shapes.input_shapes[1], elements=exact_powers_of_two(
            d1).filter(lambda k: np.iinfo(d2).min <= k <= np.iinfo(d2).max)))
    else:
        b = data.draw(np_arrays(d2, shapes.input_shapes[1]))
    expected, error = expected_of(np.ldexp, a, b)
    compare(lambda: tg.ldexp(chunked(data, a), chunked(data, b)), expected, error, exact=True)


@given(st.data(), dtypes(FLOAT), st.integers(-1100, 1100))
def test_ldexp_with_a_python_exponent(data, dtype, k):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4))))
    expected, error = expected_of(np.ldexp, a, k)
    compare(lambda: tg.ldexp(chunked(data, a), k), expected, error, exact=True)


def test_float_parts_at_the_edges_of_each_float_type():
    for dtype in FLOAT:
        info = np.finfo(dtype)
        values = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.75, np.inf, -np.inf, np.nan, info.max, info.min,
                           info.tiny, -info.tiny, info.smallest_subnormal, -info.smallest_subnormal,
                           info.tiny * 3 / 4], dtype=dtype)
        x = tg.asarray(values, chunks=5)
        with quiet():
            for name in ("frexp", "modf", "spacing"):
                expected = getattr(np, name)(values)
                got = getattr(tg, name)(x)
                for g, e in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple)
                                else (expected,)):
                    g = g.compute()
                    assert g.dtype == e.dtype, name
                    # bit for bit: signed zeros and the sign of each spacing included
                    np.testing.assert_array_equal(np.signbit(g), np.signbit(e), err_msg=name)
                    assert_same(g, e, exact=True)
            for k in (-2000, -1100, -1074, -150, -25, -1, 0, 1, 25, 200, 1100, 2000):
                assert_same(tg.ldexp(x, k).compute(), np.ldexp(values, k), exact=True)


BINARY = {"float_power": np.float_power, "logaddexp2": np.logaddexp2, "divmod": np.divmod}


def binary_tolerance(name, expected, a, b):
    """A few ulps, relative to the operands' magnitudes for ``logaddexp2`` (whose result may
    cancel to nearly zero) and to the result's for ``float_power``; ``divmod`` is exact."""
    if name == "divmod" or expected.dtype.kind not in "fc":
        return {}
    eps = float(np.finfo(expected.dtype).eps)
    with quiet():
        if name == "logaddexp2":
            scale = np.broadcast_to(np.maximum(np.abs(np.asarray(a, dtype=np.float64)),
                                               np.abs(np.asarray(b, dtype=np.float64))), expected.shape)
        else:
            scale = np.abs(expected).astype(np.float64)
    atol = np.maximum(16 * eps * np.nan_to_num(scale, nan=0.0, posinf=0.0), float(np.finfo(expected.dtype).tiny))
    return dict(rtol=16 * eps, atol=atol)


def binary_elements(name, *dtypes_):
    if name == "divmod":  # whole numbers: floor division is then exact in any float type
        return dict(integral=True, small=True)
    if name == "float_power" and any(d.kind == "c" for d in dtypes_):
        # complex powers: small finite operands (overflowing ones have parts of noisy signs)
        return dict(max_magnitude=4, allow_nan=False, allow_infinity=False)
    return dict(max_magnitude=1e4)


@given(st.data(), st.sampled_from(sorted(BINARY)), dtypes(), dtypes())
def test_binary_functions_are_numpys(data, name, d1, d2):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=4))
    a = data.draw(np_arrays(d1, shapes.input_shapes[0], **binary_elements(name, d1, d2)))
    b = data.draw(np_arrays(d2, shapes.input_shapes[1], **binary_elements(name, d1, d2)))
    expected, error = expected_of(BINARY[name], a, b)
    tolerance = {} if error is not None else binary_tolerance(name, expected, a, b)
    compare(lambda: getattr(tg, name)(chunked(data, a), chunked(data, b)), expected, error, **tolerance)


@given(st.data(), st.sampled_from(sorted(BINARY)), dtypes([d for d in ALL_DTYPES if d.kind != "c"]),
       python_scalars(("bool", "int", "float"), int_range=(-3, 3)), st.booleans())
def test_binary_functions_with_python_scalars(data, name, dtype, scalar, scalar_first):
    """Python scalars are "weak", as in NumPy 2: they take the array's kind where they fit."""
    if isinstance(scalar, int) and not isinstance(scalar, bool) and abs(scalar) > 3:
        scalar = scalar % 7 - 3  # huge ints overflow the array's dtype: another test's matter
    if isinstance(scalar, float) and not np.isfinite(scalar) or isinstance(scalar, float) and abs(scalar) > 8:
        scalar = 2.5
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)),
                            **binary_elements(name, dtype)))
    args = (scalar, a) if scalar_first else (a, scalar)
    expected, error = expected_of(BINARY[name], *args)
    x = chunked(data, a)
    tolerance = {} if error is not None else binary_tolerance(name, expected, *args)
    compare(lambda: getattr(tg, name)(*((scalar, x) if scalar_first else (x, scalar))), expected, error,
            **tolerance)


@given(st.data(), dtypes())
def test_isnull_and_notnull_are_pandas_tests_of_missing_values(data, dtype):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))))
    missing = np.isnan(a) if dtype.kind in "fc" else np.zeros(a.shape, bool)
    x = chunked(data, a)
    compare(lambda: tg.isnull(x), missing, None)
    compare(lambda: tg.notnull(x), ~missing, None)


def test_numpy_calls_them_on_tegula_arrays():
    """NumPy's ufuncs and functions of these names, given a tegula array, build tegula's."""
    a = np.array([[-2.5, 0.0, 1.5], [np.nan, 3.0, -0.25]])
    x = tg.asarray(a, chunks=2)
    for fn in (np.fabs, np.spacing, np.i0, np.sinc, np.angle, np.fix, np.around, np.iscomplex, np.isreal,
               lambda v: np.ldexp(v, 3), lambda v: np.float_power(v, 2), lambda v: np.logaddexp2(v, 1.0)):
        out = fn(x)
        assert isinstance(out, tg.Array)
        with quiet():
            assert_same(out.compute(), fn(a))
    for fn in (np.frexp, np.modf, lambda v: np.divmod(v, 2.0)):
        parts = fn(x)
        assert isinstance(parts, tuple) and all(isinstance(p, tg.Array) for p in parts)
        with quiet():
            for p, e in zip(parts, fn(a)):
                assert_same(p.compute(), e)


def test_errors_as_numpy():
    z = tg.asarray(np.array([1 + 1j]))
    for fn in (tg.fabs, tg.frexp, tg.modf, tg.spacing, tg.i0, tg.fix, lambda v: tg.logaddexp2(v, v),
               lambda v: tg.divmod(v, v), lambda v: tg.ldexp(v, 2)):
        with pytest.raises(TypeError):
            fn(z)
    with pytest.raises(TypeError):
        tg.ldexp(tg.asarray([1.0]), tg.asarray([1.5]))
    with pytest.raises(TypeError):
        tg.ldexp(tg.asarray([1.0]), tg.asarray(np.array([1], np.uint64)))


@settings(max_examples=20)
@given(st.data(), dtypes(FLOAT + COMPLEX))
def test_divmod_is_the_pair_of_floor_divide_and_remainder(data, dtype):
    a = data.draw(np_arrays(dtype if dtype.kind == "f" else np.dtype(np.float64), (5,), integral=True))
    x = chunked(data, a)
    q, r = tg.divmod(x, 3)
    with quiet():
        assert_same(q.compute(), np.floor_divide(a, 3))
        assert_same(r.compute(), np.remainder(a, 3))
