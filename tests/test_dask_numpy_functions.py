"""NumPy's functions added for dask.array's namespace that are not element-wise (``unique``,
``ediff1d``, ``extract``, ``flatnonzero``, ``piecewise``, ``apply_over_axes``, ``swapaxes``,
``rollaxis``, ``ravel``, ``shape``, ``ndim``, ``tri``, ``vdot``, ``asanyarray``) against NumPy
over random shapes, chunkings and dtypes: lazy results, NumPy's values, dtypes and exception
types."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, assert_same, chunkings, dtypes, error_class, np_arrays, quiet, shapes

REAL = [d for d in ALL_DTYPES if d.kind != "c"]


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(np.shape(a)))[0])


def check(got, want, **tolerance):
    """``got()`` is a lazy tegula array (or a tuple of them) that computes what ``want()``
    does, or both raise the same kind of error (tegula's at the latest when computed)."""
    try:
        with quiet():
            wanted = want()
        error = None
    except Exception as e:  # noqa: BLE001 - NumPy's exception is what tegula must match
        error = e
    if error is not None:
        with pytest.raises(error_class(error)), quiet():
            out = got()
            [o.compute() for o in out] if isinstance(out, tuple) else out.compute()
        return
    out = got()
    outs, wanted = (out, wanted) if isinstance(out, tuple) else ((out,), (wanted,))
    assert len(outs) == len(wanted)
    for o, e in zip(outs, wanted):
        assert isinstance(o, tg.Array)
        assert o.shape == np.shape(e)
        with quiet():
            assert_same(o.compute(), np.asarray(e), **tolerance)


def values(data, dtype=None, shape=None, **kwargs):
    """A NumPy array of few distinct values (repeats and, for floats, NaNs), or any values."""
    dtype = data.draw(dtypes()) if dtype is None else dtype
    shape = data.draw(shapes()) if shape is None else shape
    repeats = data.draw(st.booleans())
    return data.draw(np_arrays(dtype, shape, integral=repeats, small=repeats, **kwargs))


@given(st.data(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_unique_is_numpys(data, return_index, return_inverse, return_counts, equal_nan):
    a = values(data)
    if a.dtype.kind in "fc" and a.size and data.draw(st.booleans()):
        a.flat[data.draw(st.lists(st.integers(0, a.size - 1), max_size=3))] = np.nan
    flags = dict(return_index=return_index, return_inverse=return_inverse, return_counts=return_counts,
                 equal_nan=equal_nan)
    check(lambda: tg.unique(chunked(data, a), **flags), lambda: np.unique(a, **flags), exact=True)


@given(st.data(), st.booleans(), st.booleans(), st.booleans())
def test_unique_along_an_axis_is_numpys(data, return_index, return_inverse, return_counts):
    """Distinct slices along an axis (out of range too: NumPy's AxisError), with repeated
    slices, NaNs and signed zeros among them."""
    shape = data.draw(shapes(min_dims=1))
    a = values(data, shape=shape)
    if a.ndim and a.shape[0] > 1 and data.draw(st.booleans()):
        a[-1] = a[0]
    if a.dtype.kind in "fc" and a.size and data.draw(st.booleans()):
        a.flat[data.draw(st.lists(st.integers(0, a.size - 1), max_size=3))] = data.draw(st.sampled_from([np.nan, -0.0]))
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    flags = dict(return_index=return_index, return_inverse=return_inverse, return_counts=return_counts)
    check(lambda: tg.unique(chunked(data, a), axis=axis, **flags), lambda: np.unique(a, axis=axis, **flags), exact=True)


def test_unique_dispatches_from_numpy():
    x = tg.asarray(np.array([2.0, np.nan, 1.0, np.nan, 2.0]), chunks=2)
    assert isinstance(np.unique(x), tg.Array)  # NumPy's unique dispatches to tegula's


@given(st.data(), st.sampled_from([None, "scalar", "array"]), st.sampled_from([None, "scalar", "array"]))
def test_ediff1d_is_numpys(data, begin, end):
    a = values(data)
    extras = []
    for kind in (begin, end):
        if kind is None:
            extras.append(None)
        elif kind == "scalar":
            extras.append(data.draw(st.sampled_from([0, -1, 2.5, True])))
        else:
            extras.append(values(data, shape=data.draw(shapes(max_dims=2, max_side=3))))
    check(lambda: tg.ediff1d(chunked(data, a), to_end=extras[1], to_begin=extras[0]),
          lambda: np.ediff1d(a, to_end=extras[1], to_begin=extras[0]), exact=True)


@given(st.data())
def test_extract_and_flatnonzero_are_numpys(data):
    a = values(data)
    condition_shape = data.draw(st.sampled_from([a.shape, (a.size,), (max(a.size - 2, 0),), (a.size + 2,)]))
    condition = values(data, shape=condition_shape)
    check(lambda: tg.flatnonzero(chunked(data, a)), lambda: np.flatnonzero(a))
    check(lambda: tg.extract(chunked(data, condition), chunked(data, a)), lambda: np.extract(condition, a),
          exact=True)


@given(st.data(), dtypes(REAL), st.integers(0, 3), st.booleans())
def test_piecewise_is_numpys(data, dtype, n_conditions, otherwise):
    a = values(data, dtype=dtype, max_magnitude=100)
    conditions = [values(data, dtype=np.dtype(bool), shape=a.shape) for _ in range(n_conditions)]
    pieces = [lambda v: v * 2, lambda v: v - 1, 7, lambda v, k=3: v + k][:n_conditions + otherwise]
    wrapped = data.draw(st.booleans())
    tg_conditions = [chunked(data, c) if wrapped else c for c in conditions]
    check(lambda: tg.piecewise(chunked(data, a), tg_conditions, pieces),
          lambda: np.piecewise(a, conditions, pieces), exact=True)


def test_piecewise_single_condition_and_errors():
    a = np.linspace(-2.0, 2.0, 9)
    x = tg.asarray(a, chunks=4)
    check(lambda: tg.piecewise(x, a > 0, [lambda v: v ** 2, -1.0]), lambda: np.piecewise(a, a > 0, [lambda v: v ** 2, -1.0]))
    check(lambda: tg.piecewise(x, [a < 0], [np.sin], ), lambda: np.piecewise(a, [a < 0], [np.sin]))
    check(lambda: tg.piecewise(tg.asarray(np.float64(3.0)), True, [lambda v: v * 2]),
          lambda: np.piecewise(np.float64(3.0), True, [lambda v: v * 2]))
    with pytest.raises(ValueError, match="condition"):
        tg.piecewise(x, [a > 0], [1, 2, 3])
    with pytest.raises(IndexError):
        tg.piecewise(x, [a[:3] > 0], [1])


@given(st.data(), st.sampled_from(["sum", "mean", "max", "cumsum"]))
def test_apply_over_axes_is_numpys(data, name):
    a = values(data, dtype=np.dtype(np.float64), shape=data.draw(shapes(min_dims=1, min_side=1)))
    axes = data.draw(st.sampled_from([0, -1, [0, -1], list(range(a.ndim))]))
    func = getattr(np, name)
    check(lambda: tg.apply_over_axes(func, chunked(data, a), axes), lambda: np.apply_over_axes(func, a, axes))


def test_apply_over_axes_refuses_a_result_of_the_wrong_shape():
    a = np.zeros((2, 3, 4))
    check(lambda: tg.apply_over_axes(lambda v, axis: v[0, 0], tg.asarray(a), [1]),
          lambda: np.apply_over_axes(lambda v, axis: v[0, 0], a, [1]))
    with pytest.raises(ValueError, match="correct shape"):
        tg.apply_over_axes(lambda v, axis: v[0, 0], tg.asarray(a), [1])


@given(st.data())
def test_axis_moves_and_flattening_are_numpys(data):
    a = values(data)
    n = a.ndim
    axis1, axis2 = (data.draw(st.integers(-n - 1, n)) for _ in range(2))
    start = data.draw(st.integers(-n - 2, n + 2))
    order = data.draw(st.sampled_from(["C", "F", "A", "K"]))
    x = chunked(data, a)
    check(lambda: tg.swapaxes(x, axis1, axis2), lambda: np.swapaxes(a, axis1, axis2), exact=True)
    check(lambda: tg.rollaxis(x, axis1, start), lambda: np.rollaxis(a, axis1, start), exact=True)
    check(lambda: tg.ravel(x, order), lambda: np.ravel(a, order), exact=True)
    assert tg.shape(x) == np.shape(a) and tg.ndim(x) == np.ndim(a)
    assert tg.shape([[1, 2, 3]]) == (1, 3) and tg.ndim(5) == 0
    assert tg.asanyarray(x) is x


@given(st.integers(-1, 6), st.none() | st.integers(-1, 6), st.integers(-7, 7),
       st.sampled_from([float, int, bool, "float32"]), st.sampled_from(["auto", 2, 3, -1]))
def test_tri_is_numpys(n, m, k, dtype, chunks):
    check(lambda: tg.tri(n, m, k, dtype, chunks=chunks), lambda: np.tri(n, m, k, dtype), exact=True)


@given(st.data(), dtypes(), dtypes())
def test_vdot_is_numpys(data, d1, d2):
    a = values(data, dtype=d1, shape=data.draw(shapes(max_side=3)))
    shape = data.draw(st.sampled_from([a.shape, (a.size,), (a.size + 1,)]))
    b = values(data, dtype=d2, shape=shape)
    check(lambda: tg.vdot(chunked(data, a), chunked(data, b)), lambda: np.vdot(a, b), rtol=1e-5, atol=1e-5)


@settings(max_examples=10)
@given(st.data())
def test_numpy_calls_them_on_tegula_arrays(data):
    a = values(data, dtype=np.dtype(np.float64), shape=(3, 4))
    x = chunked(data, a)
    calls = [lambda m, v: m.ediff1d(v), lambda m, v: m.extract(v > 0, v), lambda m, v: m.flatnonzero(v),
             lambda m, v: m.swapaxes(v, 0, 1), lambda m, v: m.rollaxis(v, 1), lambda m, v: m.vdot(v, v),
             lambda m, v: m.unique(v, return_counts=True)[1],
             lambda m, v: m.piecewise(v, [v > 0], [lambda w: w * 2, 0.5]),
             lambda m, v: m.apply_over_axes(m.sum, v, [0]), lambda m, v: m.ravel(v, "F")]
    for call in calls:
        out = call(np, x)
        assert isinstance(out, tg.Array)
        assert_same(out.compute(), call(np, a))
    assert np.shape(x) == (3, 4) and np.ndim(x) == 2
