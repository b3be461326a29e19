"""``pad`` against NumPy's over random shapes, chunkings, dtypes, pad widths (wider than the
array too, where reflections repeat) and every mode with its options; and its errors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, FLOAT, INTEGER, chunkings, dtypes, np_arrays, oracle, quiet, assert_same, shapes

NUMERIC = INTEGER + FLOAT


@st.composite
def padded(draw, dtype_choices=ALL_DTYPES, min_side=0):
    dtype = draw(dtypes(dtype_choices))
    a = draw(np_arrays(dtype, draw(shapes(max_dims=3, min_side=min_side)), integral=True, small=True))
    x = tg.asarray(a, chunks=draw(chunkings(a.shape))[0])
    widths = st.integers(0, 7)
    pad_width = draw(st.one_of(widths, st.tuples(widths, widths),
                               st.lists(st.tuples(widths, widths), min_size=a.ndim, max_size=a.ndim).map(tuple)))
    return a, x, pad_width


def compare(got, want_fn, exact=True):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)):
            got().compute()
        return
    with quiet():
        assert_same(got().compute(), want, exact=exact)


@given(padded(), st.sampled_from(["edge", "wrap", "reflect", "symmetric"]))
def test_index_modes(case, mode):
    a, x, w = case
    compare(lambda: tg.pad(x, w, mode=mode), lambda: np.pad(a, w, mode=mode))


@given(padded(NUMERIC), st.sampled_from(["reflect", "symmetric"]))
def test_odd_reflections(case, mode):
    a, x, w = case
    compare(lambda: tg.pad(x, w, mode=mode, reflect_type="odd"), lambda: np.pad(a, w, mode=mode, reflect_type="odd"))


@given(padded(), st.data())
def test_constant(case, data):
    a, x, w = case
    values = data.draw(st.one_of(st.integers(-3, 3), st.tuples(st.integers(0, 5), st.floats(-2, 2))))
    compare(lambda: tg.pad(x, w, constant_values=values), lambda: np.pad(a, w, constant_values=values))


@given(padded(NUMERIC, min_side=1), st.sampled_from(["maximum", "minimum", "mean", "median"]), st.data())
def test_statistics(case, mode, data):
    a, x, w = case
    length = data.draw(st.one_of(st.none(), st.integers(1, 6), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    compare(lambda: tg.pad(x, w, mode=mode, stat_length=length), lambda: np.pad(a, w, mode=mode, stat_length=length),
            exact=mode in ("maximum", "minimum") or a.dtype.kind in "iu")


@given(padded(NUMERIC), st.data())
def test_linear_ramp(case, data):
    a, x, w = case
    # Ends inside the dtype's range: NumPy's casts of negative floats to unsigned are the
    # platform's, not defined.
    end = st.integers(0 if a.dtype.kind == "u" else -3, 3)
    ends = data.draw(st.one_of(end, st.tuples(end, end)))
    compare(lambda: tg.pad(x, w, mode="linear_ramp", end_values=ends),
            lambda: np.pad(a, w, mode="linear_ramp", end_values=ends))


@given(padded())
def test_empty_mode_shape_and_dtype(case):
    a, x, w = case
    want, error = oracle(np.pad, a, w, mode="empty")
    if error is not None:
        with pytest.raises(type(error)):
            tg.pad(x, w, mode="empty")
        return
    got = tg.pad(x, w, mode="empty")
    assert got.shape == want.shape and got.dtype == want.dtype


def test_errors_as_numpy():
    x = tg.asarray(np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="negative"):
        tg.pad(x, -1)
    with pytest.raises(TypeError, match="integral"):
        tg.pad(x, 1.5)
    with pytest.raises(ValueError, match="not supported"):
        tg.pad(x, 1, mode="sideways")
    with pytest.raises(ValueError, match="unsupported keyword"):
        tg.pad(x, 1, mode="edge", constant_values=1)
    with pytest.raises(ValueError, match="empty axis"):
        tg.pad(tg.zeros((0, 3)), 1, mode="edge")
    with pytest.raises(ValueError):
        tg.pad(x, ((1, 2, 3),))
