"""Mistakes are NumPy's exceptions, raised when the expression is built (not when computed),
and never a panic or a RuntimeError: broadcasting, axes, indices, chunks, matmul shapes,
dtypes; and the deliberate refusals of what tegula does not support."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from strategies import assert_same, dtypes, error_class, oracle, shapes

AxisError = np.exceptions.AxisError


@st.composite
def incompatible_shapes(draw):
    a = draw(shapes(min_dims=1, max_side=4))
    b = list(draw(shapes(min_dims=1, max_side=4)))
    axis = draw(st.integers(1, min(len(a), len(b))))
    n = a[-axis]
    b[-axis] = draw(st.integers(0, 5).filter(lambda m: m not in (1, n) and n != 1))
    return a, tuple(b)


@given(shapes_=incompatible_shapes(), name=st.sampled_from(["add", "less", "where", "maximum"]))
def test_broadcast_mismatch_is_value_error(shapes_, name):
    sa, sb = shapes_
    x, y = tg.zeros(sa, chunks=2), tg.ones(sb, chunks=3)
    with pytest.raises(ValueError):
        np.broadcast_shapes(sa, sb)
    with pytest.raises(ValueError):
        tg.where(x > 0, x, y) if name == "where" else getattr(tg, name)(x, y)


@given(shape=shapes(max_dims=3), data=st.data(),
       op=st.sampled_from(["sum", "prod", "mean", "min", "max", "var", "std", "any", "all"]))
def test_bad_axis_is_axis_error(shape, data, op):
    nd = len(shape)
    bad = data.draw(st.integers(nd, nd + 3) | st.integers(-nd - 3, -nd - 1))
    axis = data.draw(st.sampled_from([bad, (bad,), (0, bad) if nd else (bad,)]))
    a = np.ones(shape)
    expected, error = oracle(getattr(np, op), a, axis=axis)
    x = tg.asarray(a, chunks=2)
    if error is None:  # NumPy's ufunc reductions take axis 0 or -1 of a 0-d array as "all"
        assert nd == 0 and axis in (0, -1)
        assert_same(getattr(x, op)(axis=axis).compute(), expected)
        return
    assert isinstance(error, AxisError)
    with pytest.raises(AxisError):
        getattr(x, op)(axis=axis)


def test_repeated_axis_is_value_error():
    x = tg.ones((3, 4, 5), chunks=2)
    for axis in ((0, 0), (1, -2)):
        with pytest.raises(ValueError):
            np.sum(np.ones((3, 4, 5)), axis=axis)
        with pytest.raises(ValueError):
            x.sum(axis=axis)
    for axes in ((0, 0, 1), (0, 1)):
        with pytest.raises(ValueError):
            np.ones((3, 4, 5)).transpose(axes)
        with pytest.raises(ValueError):
            x.transpose(axes)
    with pytest.raises(AxisError):
        x.transpose((0, 1, 3))


@given(shape=shapes(min_dims=1, max_dims=3, max_side=4), data=st.data())
def test_out_of_range_index_is_index_error(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    i = data.draw(st.integers(n, n + 5) | st.integers(-n - 5, -n - 1))
    key = (slice(None),) * axis + (i,)
    a = np.zeros(shape)
    with pytest.raises(IndexError):
        a[key]
    with pytest.raises(IndexError):
        tg.asarray(a, chunks=2)[key]


@pytest.mark.parametrize("key", [
    (0, 0, 0), (Ellipsis, Ellipsis), 1.5, (0, 1.0), "a", slice(0, 1.5),
])
def test_invalid_index_types_match_numpy(key):
    a = np.zeros((3, 4))
    _, error = oracle(lambda: a[key])
    assert error is not None
    with pytest.raises(error_class(error)):
        tg.asarray(a, chunks=2)[key]


def test_slice_step_zero_is_value_error():
    with pytest.raises(ValueError):
        np.zeros(3)[::0]
    with pytest.raises(ValueError):
        tg.zeros(3)[::0]


@pytest.mark.parametrize("key", [np.array([0, 5]), [0, -4], np.array([True, False]), (0, [9])])
def test_bad_advanced_indices_are_index_errors(key):
    """Out-of-bounds integer arrays and masks of the wrong shape: IndexError, as NumPy."""
    x = tg.zeros((3, 4), chunks=2)
    with pytest.raises(IndexError):
        np.zeros((3, 4))[key]
    with pytest.raises(IndexError):
        x[key].compute()


@st.composite
def bad_chunks(draw):
    """A shape and a ``chunks=`` that cannot chunk it: the wrong number of dimensions, block
    lengths not adding up to an axis, zero or negative sizes."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    nd = len(shape)
    axis = draw(st.integers(0, nd - 1))
    spec = [-1] * nd
    kind = draw(st.sampled_from(["ndim", "sum", "zero", "negative"]))
    if kind == "ndim":
        wrong = draw(st.sampled_from([n for n in (nd - 1, nd + 1, nd + 2) if n >= 0]))
        return shape, tuple([2] * wrong)
    if kind == "sum":
        blocks = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4).filter(lambda b: sum(b) != shape[axis]))
        spec[axis] = tuple(blocks)
    elif kind == "zero":
        if draw(st.booleans()):
            return shape, 0
        spec[axis] = 0
    else:
        spec[axis] = draw(st.sampled_from([-2, -5, (-1, shape[axis] + 1)]))
    return shape, tuple(spec)


@given(case=bad_chunks(), make=st.sampled_from(["asarray", "zeros", "rechunk", "random"]))
def test_bad_chunks_are_value_errors(case, make):
    shape, spec = case
    with pytest.raises(ValueError):
        if make == "asarray":
            tg.asarray(np.zeros(shape), chunks=spec)
        elif make == "zeros":
            tg.zeros(shape, chunks=spec)
        elif make == "rechunk":
            tg.zeros(shape, chunks=1).rechunk(spec)
        else:
            tg.random.default_rng(0).random(size=shape, chunks=spec)


@pytest.mark.parametrize("spec", [0, -3, (2, 2), ((3, 2),), ((5, 0),), ((2, -1, 5),), "lots", "12 parsecs"])
def test_bad_chunks_of_ranges(spec):
    with pytest.raises(ValueError):
        tg.arange(6, chunks=spec)
    with pytest.raises(ValueError):
        tg.linspace(0, 1, 6, chunks=spec)


@given(n=st.integers(0, 4), k=st.integers(0, 4), k2=st.integers(0, 4), m=st.integers(0, 4),
       a_vec=st.booleans(), b_vec=st.booleans())
def test_matmul_mismatch_is_value_error(n, k, k2, m, a_vec, b_vec):
    if k == k2:
        k2 = k + 1
    sa = (k,) if a_vec else (n, k)
    sb = (k2,) if b_vec else (k2, m)
    with pytest.raises(ValueError):
        np.matmul(np.zeros(sa), np.zeros(sb))
    with pytest.raises(ValueError):
        tg.zeros(sa, chunks=2) @ tg.zeros(sb, chunks=3)


def test_matmul_of_scalars_and_stacks():
    with pytest.raises(ValueError):
        np.zeros(()) @ np.zeros(3)
    with pytest.raises(ValueError):
        tg.zeros(()) @ tg.zeros(3)
    with pytest.raises(ValueError):
        tg.zeros(3) @ 2.0
    with pytest.raises(ValueError):
        tg.zeros((2, 3, 4)) @ tg.zeros((5, 5))  # core dimensions differ
    with pytest.raises(ValueError):
        tg.zeros((2, 3, 4)) @ tg.zeros((3, 4, 5))  # stack shapes do not broadcast


INVALID = [
    't.asarray([True]) - t.asarray([False])',
    '-t.asarray([True])',
    '+t.asarray([True])',
    '~t.asarray([1.5])',
    't.asarray([1.5]) & 1',
    't.asarray([1j]) // 1',
    't.asarray([1j]) % 2',
    't.floor(t.asarray([1j]))',
    't.asarray([1, 2]) ** -1',
    't.asarray([1, 2], dtype="uint8") ** -1',
    't.asarray([1, 2], dtype="int8") + 1000',
    't.asarray([1, 2], dtype="uint8") - (-1)',
    't.asarray([True]) + 2**63',
    't.min(t.zeros((0, 3)))',
    't.max(t.zeros((3, 0)), axis=1)',
    't.full(3, 300, dtype="int8")',
    't.arange(0, 10, 0)',
    't.arange(0, 3, dtype=bool)',
    't.arange(-1, 2, dtype="uint8")',
    't.linspace(0, 1, -1)',
    't.zeros((2, -1))',
]


@pytest.mark.parametrize("expr", INVALID)
def test_invalid_operations_raise_numpys_exception_at_build_time(expr):
    """Each expression, written with ``t`` = NumPy, raises; with ``t`` = tegula it raises the
    same exception class without being computed."""
    def build(t):
        return eval(expr, {"t": t})

    _, error = oracle(build, np)
    assert error is not None
    with pytest.raises(error_class(error)):
        build(tg)  # no .compute(): the mistake is caught when the expression is written


def test_integer_power_with_negative_array_exponent_fails_when_computed():
    x = tg.asarray(np.array([1, 2, 3]), chunks=2) ** tg.asarray(np.array([1, -1, 2]), chunks=1)
    for scheduler in ("serial", "threads"):
        with pytest.raises(ValueError, match="negative"):
            x.compute(scheduler=scheduler)
    # a negative exponent broadcast over nothing is never used, as in NumPy
    empty = tg.zeros((0, 3), dtype=int) ** tg.asarray(np.array([-1, 1, 1]))
    np.testing.assert_array_equal(empty.compute(), np.zeros((0, 3), dtype=int) ** np.array([-1, 1, 1]))


def test_deliberate_refusals():
    """Where NumPy silently discards information, tegula refuses instead."""
    with pytest.raises(TypeError):
        tg.full(3, 1 + 2j, dtype="float64")  # NumPy drops the imaginary part
    with pytest.raises(OverflowError):
        tg.where(tg.asarray([True, False]), tg.asarray(np.array([1, 2], np.int8)), 1000)  # NumPy wraps
    with pytest.raises(TypeError):
        tg.asarray(np.array(["a"]))  # unsupported dtypes
    with pytest.raises(TypeError):
        tg.zeros(3, dtype="datetime64[ps]")  # finer than tegula's units


OPS = [
    lambda x, y: x + y, lambda x, y: x @ y, lambda x, y: x[y.shape[0]:], lambda x, y: x.sum(axis=y.ndim),
    lambda x, y: x.transpose(tuple(range(y.ndim))), lambda x, y: x.rechunk(y.shape),
    lambda x, y: tg.where(x, y, x), lambda x, y: x[(0,) * y.ndim], lambda x, y: x.var(axis=-y.ndim - 1),
    lambda x, y: x ** y, lambda x, y: x // y, lambda x, y: x.astype(y.dtype) - y,
]


@given(data=st.data(), op=st.sampled_from(OPS), da=dtypes(), db=dtypes(),
       sa=shapes(max_side=3), sb=shapes(max_side=3))
def test_no_panics_or_runtime_errors(data, op, da, db, sa, sb):
    """Whatever is asked, tegula answers with a result or a Python exception of a normal
    class: never a Rust panic (pyo3's PanicException) or RuntimeError (an internal error)."""
    x = tg.asarray(data.draw(hnp.arrays(da, sa)), chunks=data.draw(st.integers(1, 3)))
    y = tg.asarray(data.draw(hnp.arrays(db, sb)), chunks=data.draw(st.integers(1, 3)))
    try:
        with np.errstate(all="ignore"):
            op(x, y).compute()
    except (ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError):
        pass
    except BaseException as e:  # noqa: BLE001
        pytest.fail(f"{type(e).__name__}: {e}")
