"""Element-wise operations against NumPy: every binary ufunc and operator with broadcasting
(array-array and array-Python-scalar, NumPy 2 weak promotion), every unary function, where and
astype, over every dtype, shape and chunking. Result dtypes must equal NumPy's; values equal
exactly where NumPy's are exact, else within tight tolerances; errors have NumPy's type."""

import operator

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from tegula._functions import BINARY, UNARY
from strategies import (ALL_DTYPES, COMPLEX, FLOAT, INTEGER, MAX_SIDE, SIGNED, UNSIGNED, assert_same,
                        chunkings, dtypes, error_class, float_to_int_defined, np_arrays, oracle,
                        more_examples, python_scalars, quiet, shapes)

OPERATORS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "power": operator.pow, "equal": operator.eq, "not_equal": operator.ne, "less": operator.lt,
    "less_equal": operator.le, "greater": operator.gt, "greater_equal": operator.ge,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
}
UNARY_OPERATORS = {"negative": operator.neg, "positive": operator.pos, "abs": abs, "invert": operator.invert}

# Results that IEEE arithmetic rounds once, so NumPy and tegula agree bit for bit.
# (Canonical names: BINARY maps aliases such as "pow" and "true_divide" to them.)
EXACT_REAL = {"add", "subtract", "multiply", "divide", "equal", "not_equal", "less",
              "less_equal", "greater", "greater_equal", "maximum", "minimum", "logical_and",
              "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "copysign", "nextafter"}
EXACT_COMPLEX = {"add", "subtract", "equal", "not_equal", "less", "less_equal", "greater",
                 "greater_equal", "maximum", "minimum", "logical_and", "logical_or", "logical_xor"}
EXACT_UNARY = {"negative", "positive", "abs", "absolute", "floor", "ceil", "trunc", "rint", "sign", "signbit",
               "isnan", "isinf", "isfinite", "conj", "conjugate", "real", "imag", "logical_not",
               "invert", "bitwise_not", "bitwise_invert", "square"}
# Inverse functions whose complex branch cuts lie on the real or imaginary axis.
BRANCH_CUTS = {"arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"}
# Whose complex results depend on the algorithm (Smith's division, C99 cpow ...).
COMPLEX_ALGORITHMIC = {"multiply", "divide", "power"}


def exact_for(name, dtype, table_real, table_complex=()):
    kind = np.dtype(dtype).kind
    return kind in "biu" or (kind == "f" and name in table_real) or (kind == "c" and name in table_complex)


def binary_inputs(name, dtype, shape, draw, side):
    """Operand values: full-range integers, floats with NaN/inf, finite moderate complex numbers
    where the complex algorithms differ (division, power), and non-negative integer exponents
    half of the time so that integer power is not always NumPy's ValueError."""
    name = BINARY[name]
    complex_safe = name in COMPLEX_ALGORITHMIC and np.dtype(dtype).kind == "c"
    kwargs = dict(allow_nan=False, allow_infinity=False, max_magnitude=1e3) if complex_safe else {}
    a = draw(np_arrays(dtype, shape, **kwargs))
    if name == "power" and side == 1 and a.dtype.kind in "iu" and draw(st.booleans()):
        a = draw(hnp.arrays(dtype, shape, elements=st.integers(0, 70)))
    return a


def tegula_binary_forms(name):
    """The ways tegula spells ``name``: the namespace function and the operator, if any."""
    forms = [getattr(tg, name)]
    canonical = BINARY[name]
    if canonical in OPERATORS and name == canonical:
        forms.append(OPERATORS[canonical])
    return forms


def check_binary(name, np_a, np_b, tg_a, tg_b):
    expected, error = oracle(getattr(np, name), np_a, np_b)
    for fn in tegula_binary_forms(name):
        if error is not None:
            with pytest.raises(error_class(error)):
                with quiet():  # numpy scalars raise RuntimeWarnings when combined
                    fn(tg_a, tg_b).compute()
            continue
        out = fn(tg_a, tg_b)
        assert out.dtype == expected.dtype and out.shape == expected.shape
        result = out.compute()
        op = BINARY[name]
        exact = exact_for(op, expected.dtype, EXACT_REAL, EXACT_COMPLEX)
        if expected.dtype == np.float16 and op in ("floor_divide", "remainder"):
            exact = False  # NumPy computes float16 divmod in float32, tegula in float64
        rtol, atol = complex_tolerance(op, np_a, np_b, expected)
        wanted = expected
        if op == "power" and expected.dtype.kind == "c":
            # A complex power that overflows has parts like inf * cos(t) whose signs are
            # rounding noise: require the overflow (or NaN), compare the finite ones.
            finite = np.isfinite(expected)
            np.testing.assert_array_equal(np.isfinite(result), finite, err_msg="overflows differ")
            result, wanted, atol = result[finite], expected[finite], np.broadcast_to(atol, finite.shape)[finite]
        assert_same(result, wanted, exact=exact, rtol=rtol, atol=atol)


def complex_tolerance(op, a, b, expected):
    """Complex products and quotients round differently when NumPy's loops use fused
    multiply-adds: allow a few roundings relative to the operands' magnitudes (not to a result
    that cancels to nearly zero). Complex powers go through exp(y * log(x)) in both libraries,
    with errors growing with |y * log(x)|."""
    if expected.dtype.kind != "c" or op not in COMPLEX_ALGORITHMIC:
        return None, None
    eps = float(np.finfo(expected.dtype).eps)
    with quiet():
        ma, mb = np.abs(np.asarray(a, dtype=np.complex128)), np.abs(np.asarray(b, dtype=np.complex128))
        if op == "multiply":
            scale = ma * mb
        elif op == "divide":
            scale = ma / mb
        else:
            log_a = np.log(np.asarray(a, dtype=np.complex128))  # its argument matters too
            scale = np.abs(expected.astype(np.complex128)) * (1 + np.abs(log_a) * mb)
        scale = np.nan_to_num(np.broadcast_to(scale, expected.shape), nan=0.0, posinf=0.0)
    return 4 * eps, 8 * eps * scale + float(np.finfo(expected.dtype).tiny)


@more_examples()
@given(data=st.data(), name=st.sampled_from(sorted(BINARY)), da=dtypes(), db=dtypes(),
       shapes_=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=MAX_SIDE),
       reverse=st.booleans())
def test_binary_array_array(data, name, da, db, shapes_, reverse):
    """``reverse``: the first operand is a reversed view (blocks with negative strides)."""
    sa, sb = shapes_.input_shapes
    a = binary_inputs(name, da, sa, data.draw, 0)
    b = binary_inputs(name, db, sb, data.draw, 1)
    x = tg.asarray(a, chunks=data.draw(chunkings(sa))[0])
    y = tg.asarray(b, chunks=data.draw(chunkings(sb))[0])
    if reverse:
        key = (slice(None, None, -1),) * a.ndim
        a, x = a[key], x[key]
    check_binary(name, a, b, x, y)


@more_examples()
@given(data=st.data(), name=st.sampled_from(sorted(BINARY)), dtype=dtypes(), shape=shapes(),
       scalar=python_scalars(), reflected=st.booleans())
def test_binary_with_python_scalar(data, name, dtype, shape, scalar, reflected):
    a = binary_inputs(name, dtype, shape, data.draw, 1 if reflected else 0)
    if isinstance(scalar, complex) and BINARY[name] in COMPLEX_ALGORITHMIC:
        assume(np.isfinite(a).all())
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    if reflected:
        check_binary(name, scalar, a, scalar, x)
    else:
        check_binary(name, a, scalar, x, scalar)


@given(data=st.data(), name=st.sampled_from(sorted(BINARY)), da=dtypes(), db=dtypes())
def test_binary_with_numpy_scalar_is_strongly_typed(data, name, da, db):
    a = binary_inputs(name, da, (3,), data.draw, 0)
    s = binary_inputs(name, db, (), data.draw, 1)[()]  # a NumPy scalar keeps its dtype
    check_binary(name, a, s, tg.asarray(a, chunks=2), s)


def test_weak_scalar_promotion_examples():
    i8 = np.array([1, -2, 100], dtype=np.int8)
    f32 = np.array([1.5, -2.0], dtype=np.float32)
    u8 = np.array([1, 200], dtype=np.uint8)
    for np_value, tg_value in (
        (i8 + 1, tg.asarray(i8) + 1),
        (f32 * 2.5, tg.asarray(f32) * 2.5),
        (u8 + True, tg.asarray(u8) + True),
        (i8 * 1.5, tg.asarray(i8) * 1.5),
        (f32 + 1j, tg.asarray(f32) + 1j),
        (2 ** i8.astype(np.uint8), 2 ** tg.asarray(i8.astype(np.uint8))),
    ):
        assert_same(tg_value.compute(), np_value)
    assert (tg.asarray(i8) + 1).dtype == np.int8
    assert (tg.asarray(f32) * 2.5).dtype == np.float32
    for bad in (lambda v: v + 1000, lambda v: 1000 - v, lambda v: v & 300):
        with pytest.raises(OverflowError):
            bad(i8)
        with pytest.raises(OverflowError):
            bad(tg.asarray(i8))


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
@pytest.mark.parametrize("value", [1000, -1000, 2**64, -(2**63) - 1])
@pytest.mark.parametrize("dtype", INTEGER)
def test_comparison_with_out_of_range_python_int(op, value, dtype):
    a = np.array([0, 1, 100], dtype=dtype)
    x = tg.asarray(a, chunks=2)
    for expr in (f"v {op} value", f"value {op} v"):
        expected, error = oracle(eval, expr, {"v": a, "value": value})
        if error is not None:
            with pytest.raises(error_class(error)):
                eval(expr, {"v": x, "value": value})
            continue
        assert_same(eval(expr, {"v": x, "value": value}).compute(), expected)


@more_examples()
@given(data=st.data(), name=st.sampled_from(sorted(UNARY)), dtype=dtypes())
def test_unary(data, name, dtype):
    shape = data.draw(shapes())
    transcendental = name not in EXACT_UNARY
    kwargs = dict(allow_nan=False, allow_infinity=False, max_magnitude=30.0) if transcendental and dtype.kind == "c" else {}
    a = data.draw(np_arrays(dtype, shape, **kwargs))
    if UNARY[name] == "reciprocal" and dtype.kind in "iu":
        a = np.where(a == 0, 1, a).astype(dtype)  # NumPy's integer 1 // 0 depends on the dtype
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    expected, error = oracle(getattr(np, name), a)
    forms = [getattr(tg, name)] + ([UNARY_OPERATORS[name]] if name in UNARY_OPERATORS else [])
    for fn in forms:
        if error is not None:
            with pytest.raises(error_class(error)):
                fn(x)  # refused when the expression is built
            continue
        out = fn(x)
        assert out.dtype == expected.dtype and out.shape == expected.shape
        # NumPy's SIMD complex abs (and sign, which divides by it) is not correctly rounded,
        # and its complex square may use fused multiply-adds
        exact = not transcendental and not (dtype.kind == "c" and UNARY[name] in ("sign", "abs", "square"))
        rtol = {"float16": 1e-3, "float32": 2e-6, "float64": 1e-13, "complex64": 1e-5,
                "complex128": 1e-12}.get(expected.dtype.name)
        atol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-14, "complex64": 1e-5,
                "complex128": 1e-12}.get(expected.dtype.name)
        result = out.compute()
        if dtype.kind == "c" and UNARY[name] == "square":
            atol = 4 * float(np.finfo(dtype).eps) * np.abs(a.astype(np.complex128)) ** 2  # cancelling parts
        if dtype.kind == "c" and UNARY[name] in BRANCH_CUTS:
            # On a branch cut the side taken depends on the sign of a zero part (C99 Annex G);
            # compare off the cuts.
            off = (a.real != 0) & (a.imag != 0)
            result, expected = result[off], expected[off]
        assert_same(result, expected, exact=exact, rtol=rtol, atol=atol)


@given(data=st.data(), dtype=dtypes())
def test_real_imag_and_conj_methods(data, dtype):
    """The attributes and methods of NumPy's arrays, whose ``conj()`` keeps a non-complex array
    as it is (the ``conj`` function makes booleans int8)."""
    shape = data.draw(shapes())
    a = data.draw(np_arrays(dtype, shape))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    for actual, expected in [(x.real, a.real), (x.imag, a.imag), (x.conj(), a.conj()), (x.conjugate(), a.conjugate())]:
        assert actual.dtype == expected.dtype
        assert_same(actual.compute(), expected, exact=True)


@given(data=st.data(), shape=shapes(), dc=dtypes(), dx=dtypes(), dy=dtypes(),
       form=st.sampled_from(["arrays", "x-scalar", "y-scalar", "both-scalars"]))
def test_where(data, shape, dc, dx, dy, form):
    shapes_ = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, base_shape=shape, max_side=MAX_SIDE))
    sc, sx, sy = shapes_.input_shapes
    c = data.draw(np_arrays(dc, sc))
    args_np, args_tg = [c], [tg.asarray(c, chunks=data.draw(chunkings(sc))[0])]
    for d, s, scalar_side in ((dx, sx, form in ("x-scalar", "both-scalars")),
                              (dy, sy, form in ("y-scalar", "both-scalars"))):
        if scalar_side:
            v = data.draw(python_scalars(int_range=(-100, 100)).filter(lambda v: abs(v) < 2**63 if isinstance(v, int) else True))
            args_np.append(v)
            args_tg.append(v)
        else:
            v = data.draw(np_arrays(d, s))
            args_np.append(v)
            args_tg.append(tg.asarray(v, chunks=data.draw(chunkings(s))[0]))
    expected, error = oracle(np.where, *args_np)
    if error is not None:
        with pytest.raises(error_class(error)):
            tg.where(*args_tg)
        return
    # NumPy's where casts an out-of-range Python int into the other choice's integer dtype
    # silently; tegula refuses with OverflowError instead (see test_errors).
    scalars = [v for v in args_np[1:] if type(v) is int]
    if scalars and expected.dtype.kind in "iu" and not all(
            np.iinfo(expected.dtype).min <= v <= np.iinfo(expected.dtype).max for v in scalars):
        return
    with quiet():  # a Python float converted to float16 may overflow, as in NumPy
        result = tg.where(*args_tg).compute()
    assert_same(result, expected, exact=True)


@given(data=st.data(), source=dtypes(), target=dtypes(), shape=shapes())
def test_astype(data, source, target, shape):
    a = data.draw(np_arrays(source, shape))
    if not float_to_int_defined(a, target):
        # out-of-range/NaN float -> int casts are undefined in C: cast in-range values only
        a = data.draw(np_arrays(source, shape, allow_nan=False, allow_infinity=False, max_magnitude=100.0))
        if target.kind == "u":
            a = np.abs(a)
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    with quiet():
        expected = a.astype(target)
    for y in (x.astype(target), tg.astype(x, target), tg.asarray(x, dtype=target)):
        assert y.dtype == target
        assert_same(y.compute(), expected, exact=True)


@pytest.mark.parametrize("target", FLOAT + COMPLEX)
@pytest.mark.parametrize("source", [np.int64, np.uint64])
def test_wide_integers_round_once_into_narrow_floats(source, target):
    """int64 -> float32 must round the integer directly, not via float64 (double rounding)."""
    values = [2**60 + 2**36 + 1, 2**62 + 2**38 + 1, 2**53 + 1, -(2**60) - 2**36 - 1, 2**63 - 1, 12345]
    a = np.array([v for v in values if np.iinfo(source).min <= v <= np.iinfo(source).max], dtype=source)
    with quiet():
        assert_same(tg.asarray(a, chunks=2).astype(target).compute(), a.astype(target), exact=True)
        assert_same((tg.asarray(a, chunks=2) + np.zeros(1, target)).compute(), a + np.zeros(1, target), exact=True)


@given(data=st.data(), dtype=dtypes(SIGNED + UNSIGNED))
def test_integer_division_edge_cases(data, dtype):
    """Division by zero gives 0 and MIN // -1 wraps, as in NumPy (which only warns)."""
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, -1 if dtype.kind == "i" else 1, 7], dtype=dtype)
    b = np.array(data.draw(st.lists(st.sampled_from([0, 1, 3] + ([-1, -3] if dtype.kind == "i" else [info.max])),
                                    min_size=5, max_size=5)), dtype=dtype)
    x, y = tg.asarray(a, chunks=2), tg.asarray(b, chunks=3)
    with quiet():
        for np_fn, tg_fn in ((np.floor_divide, operator.floordiv), (np.remainder, operator.mod)):
            assert_same(tg_fn(x, y).compute(), np_fn(a, b))


@given(data=st.data(), dtype=dtypes(FLOAT))
def test_float_division_signs_match_numpy(data, dtype):
    """floor_divide, remainder, fmod and divmod give NumPy's signed zeros, infinities and NaNs
    for every pairing of the special values with each other and with ordinary numbers (the
    shared comparison treats -0.0 and 0.0 as equal, so signs are checked here bit by bit)."""
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 0.5], dtype=dtype)
    a, b = (m.ravel() for m in np.meshgrid(special, special))
    x = tg.asarray(a, chunks=data.draw(st.integers(1, a.size)))
    y = tg.asarray(b, chunks=data.draw(st.integers(1, b.size)))
    with quiet():
        pairs = [(tg.floor_divide(x, y), np.floor_divide(a, b)), (x % y, np.remainder(a, b)),
                 (tg.fmod(x, y), np.fmod(a, b))]
        pairs += list(zip(tg.divmod(x, y), np.divmod(a, b)))
        for actual, expected in pairs:
            got = actual.compute()
            assert got.dtype == expected.dtype
            same = (got == expected) & (np.signbit(got) == np.signbit(expected)) | np.isnan(got) & np.isnan(expected)
            assert same.all(), list(zip(a[~same], b[~same], got[~same], expected[~same]))[:5]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("two", [2, 2.0])
def test_power_of_two_is_numpys_square(dtype, two):
    """NumPy computes ``x ** 2`` as ``x * x``; so does tegula, without a ``pow`` per element."""
    a = (np.random.default_rng(5).standard_normal(500) * 300).astype(dtype)
    a[:5] = [np.nan, np.inf, -np.inf, -0.0, 1e30 if dtype != "float16" else 6e4]
    x = tg.asarray(a, chunks=64) ** two
    with quiet():
        expected = a ** two
    assert x.compute().tobytes() == expected.tobytes()
    assert "square" in x.explain()
