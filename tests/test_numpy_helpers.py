"""NumPy's stacking and splitting helpers, closeness and equality tests, ``ptp`` and the
``diagonal``/``trace`` functions, against NumPy over random shapes, chunkings and dtypes."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, assert_same, error_class, chunked_arrays, chunkings, dtypes, np_arrays, shapes
from test_api_functions import arrays, axis_of, check


def check_parts(tg_fn, np_fn):
    """Lists of arrays (of different shapes), part by part, or the same kind of error."""
    try:
        expected = np_fn()
    except Exception as e:  # noqa: BLE001 - NumPy's exception is what tegula must raise
        with pytest.raises(error_class(e)):
            tg_fn()
        return
    out = tg_fn()
    assert len(out) == len(expected)
    for o, e in zip(out, expected):
        assert o.shape == e.shape
        assert_same(o.compute(), e, exact=True)


def same_dtype_pairs(draw, count, shape):
    """``count`` (numpy, tegula) pairs of one dtype and the given shape, chunked independently."""
    dtype = draw(dtypes())
    return [draw(chunked_arrays(dtype=dtype, shape=shape)) for _ in range(count)]


@given(data=st.data(), count=st.integers(1, 3), ndim=st.integers(0, 3))
def test_atleast(data, count, ndim):
    pairs = same_dtype_pairs(data.draw, count, data.draw(shapes(min_dims=ndim, max_dims=ndim)))
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        out, expected = getattr(tg, name)(*[x for _, x in pairs]), getattr(np, name)(*[a for a, _ in pairs])
        outs, expecteds = (out, expected) if count > 1 else ((out,), (expected,))
        assert isinstance(out, tuple) == isinstance(expected, tuple)
        for o, e in zip(outs, expecteds):
            assert_same(o.compute(), e, exact=True)


@given(data=st.data(), count=st.integers(1, 3), name=st.sampled_from(["vstack", "hstack", "dstack", "column_stack"]))
def test_stacking(data, count, name):
    shape = data.draw(shapes(max_dims=3))
    # hstack/column_stack join along axis 1 (or 0): let those extents differ between arrays.
    pairs = []
    for _ in range(count):
        s = list(shape)
        if len(s) >= 2 and name in ("hstack", "column_stack"):
            s[1] = data.draw(st.integers(0, 4))
        elif len(s) >= 1 and name == "vstack" and len(s) != 1:
            s[0] = data.draw(st.integers(0, 4))
        pairs.append(tuple(s))
    dtype = data.draw(dtypes())
    drawn = [data.draw(chunked_arrays(dtype=dtype, shape=s)) for s in pairs]
    check(lambda: getattr(tg, name)([x for _, x in drawn]), lambda: getattr(np, name)([a for a, _ in drawn]))


def test_stacking_needs_a_sequence():
    with pytest.raises(ValueError):
        tg.vstack([])
    with pytest.raises(TypeError):
        tg.hstack(x for x in [tg.zeros(2)])


@given(data=st.data(), pair=arrays(shapes(min_dims=1)))
def test_split_and_array_split(data, pair):
    a, x = pair
    axis = axis_of(data.draw, a.ndim, none=False)
    sections = data.draw(st.one_of(st.integers(1, 5),
                                   st.lists(st.integers(-6, 8), max_size=4).map(sorted)))
    check_parts(lambda: tg.array_split(x, sections, axis=axis), lambda: np.array_split(a, sections, axis=axis))
    check_parts(lambda: tg.split(x, sections, axis=axis), lambda: np.split(a, sections, axis=axis))


@given(data=st.data(), pair=arrays(shapes(max_dims=3)), sections=st.integers(1, 3))
def test_axis_named_splits(data, pair, sections):
    a, x = pair
    for name in ("hsplit", "vsplit", "dsplit"):
        check_parts(lambda: getattr(tg, name)(x, sections), lambda: getattr(np, name)(a, sections))


@given(data=st.data(), equal_nan=st.booleans(), rtol=st.sampled_from([1e-5, 0.0, 0.5]),
       atol=st.sampled_from([1e-8, 0.0, 1.0]))
def test_isclose_allclose(data, equal_nan, rtol, atol):
    shape = data.draw(shapes(max_dims=2))
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind != "b"]))
    a, x = data.draw(chunked_arrays(dtype=dtype, shape=shape))
    # b near a (differences around the tolerances) or unrelated; b's own dtype may differ.
    b_dtype = data.draw(st.sampled_from([dtype, np.dtype("float64")]))
    noise = data.draw(np_arrays(np.dtype("float64"), shape, allow_nan=False, allow_infinity=False, max_magnitude=2.0))
    with np.errstate(all="ignore"):
        near = (a.astype(np.complex128) if dtype.kind == "c" else a.astype(np.float64)) + noise * data.draw(
            st.sampled_from([0.0, 1e-9, 1e-3, 1.0]))
        b = near.astype(b_dtype) if b_dtype.kind == "c" or dtype.kind != "c" else near.real.astype(b_dtype)
    spec, _ = data.draw(chunkings(shape))
    y = tg.asarray(b, chunks=spec)
    kw = dict(rtol=rtol, atol=atol, equal_nan=equal_nan)
    check(lambda: tg.isclose(x, y, **kw), lambda: np.isclose(a, b, **kw))
    with np.errstate(all="ignore"):
        assert bool(tg.allclose(x, y, **kw)) == np.allclose(a, b, **kw)


@given(data=st.data(), equal_nan=st.booleans(), same_values=st.booleans())
def test_array_equal(data, equal_nan, same_values):
    a, x = data.draw(chunked_arrays(shape=data.draw(shapes(max_dims=2))))
    b = a.copy() if same_values else data.draw(np_arrays(a.dtype, data.draw(st.sampled_from([a.shape, (2,)]))))
    spec, _ = data.draw(chunkings(b.shape))
    y = tg.asarray(b, chunks=spec)
    assert bool(tg.array_equal(x, y, equal_nan=equal_nan)) == np.array_equal(a, b, equal_nan=equal_nan)


@given(data=st.data(), pair=arrays(shapes(max_dims=3)), keepdims=st.booleans())
def test_ptp(data, pair, keepdims):
    a, x = pair
    axis = axis_of(data.draw, a.ndim)
    check(lambda: tg.ptp(x, axis=axis, keepdims=keepdims), lambda: np.ptp(a, axis=axis, keepdims=keepdims))


@given(data=st.data(), pair=arrays(shapes(min_dims=2, max_dims=4)), offset=st.integers(-3, 3))
def test_diagonal_and_trace_functions(data, pair, offset):
    a, x = pair
    axis1 = data.draw(st.integers(-a.ndim, a.ndim - 1))
    axis2 = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check(lambda: tg.diagonal(x, offset, axis1, axis2), lambda: np.diagonal(a, offset, axis1, axis2))
    check(lambda: tg.trace(x, offset, axis1, axis2), lambda: np.trace(a, offset, axis1, axis2),
          exact=a.dtype.kind not in "fc")


@given(data=st.data(), pair=arrays(shapes(max_dims=3)), k=st.integers(-5, 5))
def test_flips_and_rot90(data, pair, k):
    a, x = pair
    check(lambda: tg.fliplr(x), lambda: np.fliplr(a))
    check(lambda: tg.flipud(x), lambda: np.flipud(a))
    axes = (data.draw(st.integers(-3, 2)), data.draw(st.integers(-3, 2)))
    check(lambda: tg.rot90(x, k, axes), lambda: np.rot90(a, k, axes))


@given(data=st.data(), k=st.integers(-4, 4))
def test_diag(data, k):
    a, x = data.draw(arrays(shapes(min_dims=1, max_dims=3)))
    check(lambda: tg.diag(x, k), lambda: np.diag(a, k))


@given(data=st.data())
def test_inner(data):
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
    last = data.draw(st.integers(0, 5))
    shape_a = data.draw(shapes(max_dims=2)).__add__((last,)) if data.draw(st.booleans()) else ()
    shape_b = data.draw(shapes(max_dims=2)).__add__((last,)) if data.draw(st.booleans()) or not shape_a else ()
    a, x = data.draw(chunked_arrays(dtype=dtype, shape=shape_a, integral=True))
    b, y = data.draw(chunked_arrays(dtype=dtype, shape=shape_b, integral=True))
    check(lambda: tg.inner(x, y), lambda: np.inner(a, b))


@given(data=st.data())
def test_kron(data):
    dtype = data.draw(dtypes())
    a, x = data.draw(chunked_arrays(dtype=dtype, shape=data.draw(shapes(max_dims=3, max_side=4)), integral=True))
    b, y = data.draw(chunked_arrays(dtype=dtype, shape=data.draw(shapes(max_dims=3, max_side=4)), integral=True))
    check(lambda: tg.kron(x, y), lambda: np.kron(a, b))


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
@given(data=st.data(), rowvar=st.booleans(), bias=st.booleans(), with_y=st.booleans(),
       ddof=st.sampled_from([None, 0, 1, 2]))
def test_cov_and_corrcoef(data, rowvar, bias, with_y, ddof):
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind in "iufc"]))
    shape = data.draw(shapes(max_dims=2, min_side=1))
    finite = dict(allow_nan=False, allow_infinity=False, max_magnitude=1e3)
    a, x = data.draw(chunked_arrays(dtype=dtype, shape=shape, **finite))
    if with_y:
        b, y = data.draw(chunked_arrays(dtype=dtype, shape=shape, **finite))
    else:
        b = y = None
    tol = dict(exact=False, rtol=1e-4 if dtype in (np.float16, np.float32, np.complex64) else 1e-9, atol=1e-6)
    with np.errstate(all="ignore"):
        check(lambda: tg.cov(x, y, rowvar, bias, ddof), lambda: np.cov(a, b, rowvar, bias, ddof), **tol)
        check(lambda: tg.corrcoef(x, y, rowvar), lambda: np.corrcoef(a, b, rowvar), **tol)


@given(data=st.data(), posinf=st.sampled_from([None, 7.0]), neginf=st.sampled_from([None, -7.0]),
       nan=st.sampled_from([0.0, 5.0]))
def test_nan_to_num(data, posinf, neginf, nan):
    a, x = data.draw(arrays(shapes(max_dims=2)))
    kw = dict(nan=nan, posinf=posinf, neginf=neginf)
    # Complex parts are rebuilt as re + im·1j, which can turn a -0.0 real part into +0.0.
    check(lambda: tg.nan_to_num(x, **kw), lambda: np.nan_to_num(a, **kw), exact=a.dtype.kind != "c")


@given(data=st.data(), count=st.integers(1, 3))
def test_select(data, count):
    shape = data.draw(shapes(max_dims=2))
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
    conditions = [data.draw(chunked_arrays(dtype=np.bool_, shape=shape)) for _ in range(count)]
    choices = [data.draw(chunked_arrays(dtype=dtype, shape=shape)) for _ in range(count)]
    default = data.draw(st.integers(-3, 3))
    check(lambda: tg.select([c for _, c in conditions], [c for _, c in choices], default),
          lambda: np.select([c for c, _ in conditions], [c for c, _ in choices], default))


@given(dimensions=st.lists(st.integers(0, 4), max_size=3), sparse=st.booleans())
def test_indices(dimensions, sparse):
    out, expected = tg.indices(dimensions, sparse=sparse), np.indices(dimensions, sparse=sparse)
    if sparse:
        assert len(out) == len(expected)
        for o, e in zip(out, expected):
            assert_same(o.compute(), e, exact=True)
    else:
        assert_same(out.compute(), expected, exact=True)


@given(data=st.data(), with_axis=st.booleans())
def test_append(data, with_axis):
    a, x = data.draw(arrays(shapes(min_dims=1, max_dims=3)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1)) if with_axis else None
    shape = list(a.shape)
    if axis is not None:
        shape[axis] = data.draw(st.integers(0, 3))
    b, y = data.draw(chunked_arrays(dtype=data.draw(dtypes()), shape=tuple(shape)))
    check(lambda: tg.append(x, y, axis=axis), lambda: np.append(a, b, axis=axis))
