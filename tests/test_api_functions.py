"""The array API's manipulation, searching and matrix functions that tegula composes from its
lazy operations, against NumPy over random shapes, chunkings and dtypes; errors of NumPy's type."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import tegula as tg
from strategies import (ALL_DTYPES, FLOAT, assert_same, chunked_arrays, chunkings, dtypes, error_class, np_arrays,
                        oracle, shapes)


def check(tg_fn, np_fn, *, exact=True, **tol):
    """``tg_fn()`` computes what ``np_fn()`` does, or raises the same kind of error."""
    expected, error = oracle(np_fn)
    if error is not None:
        with pytest.raises(error_class(error)):
            out = tg_fn()
            [o.compute() for o in out] if isinstance(out, (tuple, list)) else out.compute()
        return
    out = tg_fn()
    if isinstance(out, (tuple, list)):
        expected_parts = np_fn()
        assert len(out) == len(expected_parts)
        for o, e in zip(out, expected_parts):
            assert_same(o.compute(), np.asarray(e), exact=exact, **tol)
        return
    assert out.shape == expected.shape
    assert_same(out.compute(), expected, exact=exact, **tol)


def arrays(shape=None, dtype=None):
    """``(numpy_array, tegula_array)`` pairs whose shapes come from the strategy ``shape``."""
    return (shapes() if shape is None else shape).flatmap(lambda sh: chunked_arrays(dtype=dtype, shape=sh))


def axis_of(draw, ndim, none=True):
    options = st.integers(-ndim, ndim - 1) if ndim else st.just(0)
    return draw(st.one_of(st.none(), options) if none else options)


@given(data=st.data(), pair=chunked_arrays())
def test_flip(data, pair):
    a, x = pair
    axis = axis_of(data.draw, a.ndim)
    check(lambda: tg.flip(x, axis=axis), lambda: np.flip(a, axis=axis))


@given(data=st.data(), pair=arrays(shapes(min_dims=1)), shift=st.integers(-7, 7))
def test_roll(data, pair, shift):
    a, x = pair
    axis = axis_of(data.draw, a.ndim)
    check(lambda: tg.roll(x, shift, axis=axis), lambda: np.roll(a, shift, axis=axis))


@given(data=st.data(), dtype=dtypes())
def test_squeeze(data, dtype):
    shape = data.draw(shapes(max_side=2))
    a = data.draw(np_arrays(dtype, shape))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(st.one_of(st.none(), st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1)))
    check(lambda: tg.squeeze(x, axis=axis), lambda: np.squeeze(a, axis=axis))


@given(data=st.data(), pair=arrays(shapes(min_dims=1)))
def test_moveaxis(data, pair):
    a, x = pair
    src = data.draw(st.integers(-a.ndim, a.ndim - 1))
    dst = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check(lambda: tg.moveaxis(x, src, dst), lambda: np.moveaxis(a, src, dst))
    # several axes, as any iterable (xarray passes ranges), as NumPy takes them
    k = data.draw(st.integers(0, a.ndim))
    dst = data.draw(st.permutations(range(a.ndim)))[:k]
    dst = np.array(dst, dtype=int)
    check(lambda: tg.moveaxis(x, range(k), dst), lambda: np.moveaxis(a, range(k), dst))


@given(data=st.data(), pair=arrays(shapes(max_dims=2)))
def test_broadcast_to_and_arrays(data, pair):
    a, x = pair
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = tuple(lead) + tuple(data.draw(st.sampled_from([n, 3]) if n == 1 else st.just(n)) for n in a.shape)
    check(lambda: tg.broadcast_to(x, target), lambda: np.broadcast_to(a, target))
    other = np.zeros(target[-1:] if target else (), dtype=np.int8)
    check(lambda: tg.broadcast_arrays(x, other), lambda: np.broadcast_arrays(a, other))
    check(lambda: tg.broadcast_to(x, (7,) + a.shape[1:] if a.ndim and a.shape[0] not in (1, 7) else (2, 0, 9)),
          lambda: np.broadcast_to(a, (7,) + a.shape[1:] if a.ndim and a.shape[0] not in (1, 7) else (2, 0, 9)))


@given(data=st.data(), pair=arrays(shapes(min_dims=1)))
def test_unstack(data, pair):
    a, x = pair
    axis = axis_of(data.draw, a.ndim, none=False)
    check(lambda: tg.unstack(x, axis=axis), lambda: tuple(np.moveaxis(a, axis, 0)))


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
def test_clip(data, dtype):
    shape = data.draw(shapes())
    a = data.draw(np_arrays(dtype, shape))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    lo, hi = sorted(np.asarray(data.draw(np_arrays(dtype, (2,), allow_nan=False))).tolist())
    lo = data.draw(st.sampled_from([None, lo]))
    hi = data.draw(st.sampled_from([None, hi]))
    check(lambda: tg.clip(x, lo, hi), lambda: np.clip(a, lo, hi).astype(a.dtype))


@given(data=st.data(), pair=arrays(shapes(min_dims=1)), n=st.integers(0, 3))
def test_diff(data, pair, n):
    a, x = pair
    axis = axis_of(data.draw, a.ndim, none=False)
    prepend = data.draw(st.sampled_from([None, a.take([0], axis=axis) if a.shape[axis] else None]))
    check(lambda: tg.diff(x, axis=axis, n=n, prepend=prepend), lambda: np.diff(a, axis=axis, n=n, prepend=prepend)
          if prepend is not None else np.diff(a, axis=axis, n=n), exact=a.dtype.kind not in "fc")


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iufc"]), decimals=st.integers(-2, 3))
def test_round(data, dtype, decimals):
    shape = data.draw(shapes())
    # complex parts are finite: tegula leaves a complex number with an infinite part as it is
    a = data.draw(np_arrays(dtype, shape, max_magnitude=1e4, allow_infinity=dtype.kind != "c",
                            allow_nan=dtype.kind != "c"))
    if dtype.kind in "iu" and decimals < 0:
        # An integer that rounds past its dtype's range has no NumPy answer: NumPy casts an
        # out-of-range float ("invalid value encountered in cast"), whatever the CPU gives.
        rounded = np.round(a.astype(np.float64), decimals)
        assume(((rounded >= np.iinfo(dtype).min) & (rounded <= np.iinfo(dtype).max)).all())
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    check(lambda: tg.round(x, decimals=decimals), lambda: np.round(a, decimals), exact=decimals == 0)


@given(data=st.data(), pair=arrays(shapes(max_dims=2)))
def test_tile_and_repeat(data, pair):
    a, x = pair
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    check(lambda: tg.tile(x, reps), lambda: np.tile(a, reps))
    axis = axis_of(data.draw, a.ndim) if a.ndim else None
    r = data.draw(st.integers(0, 3))
    check(lambda: tg.repeat(x, r, axis=axis), lambda: np.repeat(a, r, axis=axis))
    n = a.size if axis is None else a.shape[axis]
    counts = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    check(lambda: tg.repeat(x, np.array(counts, dtype=np.int64), axis=axis),
          lambda: np.repeat(a, np.array(counts, dtype=np.int64), axis=axis))


@given(n=st.integers(0, 6), m=st.one_of(st.none(), st.integers(0, 6)), k=st.integers(-7, 7),
       dtype=dtypes(), chunks=st.integers(1, 4))
def test_eye(n, m, k, dtype, chunks):
    check(lambda: tg.eye(n, m, k=k, dtype=dtype, chunks=chunks), lambda: np.eye(n, m, k=k, dtype=dtype))


def test_eye_takes_a_rule_per_axis():
    x = tg.eye(13, 7, chunks=(5, 3))
    assert x.chunks == ((5, 5, 3), (3, 3, 1))
    np.testing.assert_array_equal(x, np.eye(13, 7))
    assert tg.eye(5, chunks=((1, 4), (2, 3))).chunks == ((1, 4), (2, 3))


@given(data=st.data(), pair=arrays(shapes(min_dims=2)), k=st.integers(-4, 4))
def test_tril_triu(data, pair, k):
    a, x = pair
    check(lambda: tg.tril(x, k=k), lambda: np.tril(a, k=k))
    check(lambda: tg.triu(x, k=k), lambda: np.triu(a, k=k))


@given(data=st.data(), n=st.integers(1, 3), indexing=st.sampled_from(["xy", "ij"]), dtype=dtypes())
def test_meshgrid(data, n, indexing, dtype):
    arrays = [data.draw(np_arrays(dtype, (data.draw(st.integers(0, 4)),))) for _ in range(n)]
    converted = [tg.asarray(a, chunks=2) for a in arrays]
    check(lambda: tg.meshgrid(*converted, indexing=indexing), lambda: np.meshgrid(*arrays, indexing=indexing))


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iufc"]))
def test_vecdot_outer_tensordot(data, dtype):
    a = data.draw(np_arrays(dtype, (3, 4), integral=True, small=True))
    b = data.draw(np_arrays(dtype, (4,), integral=True, small=True))
    x, y = tg.asarray(a, chunks=2), tg.asarray(b, chunks=3)
    check(lambda: tg.vecdot(x, y), lambda: np.vecdot(a, b))
    check(lambda: tg.outer(y, y), lambda: np.outer(b, b))
    c = data.draw(np_arrays(dtype, (4, 3, 2), integral=True, small=True))
    z = tg.asarray(c, chunks=2)
    for axes in (0, 1, ([1], [0]), ([1, 0], [0, 1])):
        check(lambda: tg.tensordot(x, z, axes=axes), lambda: np.tensordot(a, c, axes=axes))
    check(lambda: tg.matrix_transpose(z), lambda: np.matrix_transpose(c))


@given(data=st.data(), pair=chunked_arrays(), keepdims=st.booleans())
def test_argmax_argmin_count_nonzero(data, pair, keepdims):
    a, x = pair
    axis = axis_of(data.draw, a.ndim)
    assume(a.dtype.kind != "c")  # NumPy orders complex values lexicographically; tegula's max does too
    for name in ("argmax", "argmin"):
        check(lambda: getattr(tg, name)(x, axis=axis, keepdims=keepdims),
              lambda: getattr(np, name)(a, axis=axis, keepdims=keepdims))
    check(lambda: tg.count_nonzero(x, axis=axis, keepdims=keepdims),
          lambda: np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims), dtype=np.int64))


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]), invert=st.booleans())
def test_isin(data, dtype, invert):
    shape = data.draw(shapes())
    a = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    b = data.draw(np_arrays(dtype, (data.draw(st.integers(0, 5)),), integral=True, small=True))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    check(lambda: tg.isin(x, tg.asarray(b, chunks=2), invert=invert), lambda: np.isin(a, b, invert=invert))


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]), invert=st.booleans(),
       scalar_first=st.booleans())
def test_isin_with_a_python_scalar(data, dtype, invert, scalar_first):
    """A Python scalar on either side compares as a weak scalar, so a value outside int64 (or
    outside the array's dtype) is looked for, not refused."""
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    edges = [info.min, info.max, -1, 2**64 - 1, -(2**63) - 1] if info else [0.5, -2.0, float("inf")]
    value = data.draw(st.sampled_from(edges) | st.integers(-3, 3))
    a = data.draw(np_arrays(dtype, data.draw(shapes(max_dims=2)), integral=True, small=True))
    if info and a.size:
        a.flat[0] = data.draw(st.sampled_from([info.min, info.max]))
    x = tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])
    if scalar_first:
        check(lambda: tg.isin(value, x, invert=invert), lambda: np.isin(value, a, invert=invert))
    else:
        check(lambda: tg.isin(x, value, invert=invert), lambda: np.isin(a, value, invert=invert))


@st.composite
def basic_keys(draw, shape):
    key = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "all"]))
        if kind == "int" and n:
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            key.append(slice(draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                             draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))), step))
        else:
            key.append(slice(None))
    if draw(st.booleans()) and key:
        key = key[:draw(st.integers(0, len(key)))] + [Ellipsis]
    return tuple(key)


@given(data=st.data(), pair=arrays(shapes(min_dims=1)), fuse=st.booleans())
def test_setitem(data, pair, fuse):
    """Several assignments in a row; arrays made from ``x`` before keep their values (copy on
    write: tegula arrays are values, so unlike a NumPy view, ``x[...]`` does not see later
    assignments to ``x``)."""
    a, x = pair
    before = x[...]
    expected = a.copy()
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(basic_keys(a.shape))
        target_shape = expected[key].shape
        form = data.draw(st.sampled_from(["scalar", "array", "broadcast"]))
        if form == "scalar":
            value = data.draw(np_arrays(a.dtype, ()))[()].item()
        elif form == "array":
            value = data.draw(np_arrays(a.dtype, target_shape))
        else:
            value = data.draw(np_arrays(a.dtype, target_shape[-1:]))
        expected[key] = value
        x[key] = tg.asarray(value, chunks=2) if isinstance(value, np.ndarray) and value.ndim else value
    assert_same(x.compute(fuse=fuse), expected, exact=True)
    assert_same(before.compute(), a, exact=True)


@given(pair=arrays(shapes(min_dims=1), np.float64), value=st.floats(-5, 5))
def test_setitem_boolean_mask(pair, value):
    a, x = pair
    expected = a.copy()
    expected[a > 0] = value
    x[x > 0] = value
    assert_same(x.compute(), expected, exact=True)


def test_setitem_errors():
    x = tg.asarray(np.zeros((3, 4)), chunks=2)
    with pytest.raises(ValueError):
        x[0] = np.ones(3)
    with pytest.raises(IndexError):
        x[5] = 1.0
    with pytest.raises(IndexError):
        x[np.ones((2, 2), dtype=bool)] = 1.0
    with pytest.raises(OverflowError):
        tg.asarray(np.zeros(3, dtype=np.int8))[0] = 1000


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="])
def test_in_place_operators(op):
    a = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    x = tg.asarray(a, chunks=2)
    derived = x * 1  # a new array, in NumPy too: later in-place changes of x do not reach it
    if op == "/=":
        a, x = a.astype(np.float64), x.astype(np.float64)
    env_np, env_tg = {"v": a.copy()}, {"v": x}
    exec(f"v {op} 2", env_np)
    exec(f"v {op} 2", env_tg)
    assert_same(env_tg["v"].compute(), env_np["v"], exact=True)
    assert_same(derived.compute(), np.arange(1, 7, dtype=np.int64).reshape(2, 3), exact=True)
    with pytest.raises(TypeError):
        y = tg.asarray(np.arange(3, dtype=np.int64))
        y /= 2  # NumPy refuses to store float64 results in an int64 array, as tegula does


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtype_information(dtype):
    if dtype.kind in "fc":
        info, expected = tg.finfo(dtype), np.finfo(dtype)
        assert (info.eps, info.max, info.min, info.smallest_normal) == (
            float(expected.eps), float(expected.max), float(expected.min), float(expected.smallest_normal))
        assert info.bits == expected.bits and info.dtype == expected.dtype
        with pytest.raises(TypeError):
            tg.iinfo(dtype)
    elif dtype.kind in "iu":
        info, expected = tg.iinfo(dtype), np.iinfo(dtype)
        assert (info.bits, info.min, info.max, info.dtype) == (expected.bits, expected.min, expected.max, expected.dtype)
        with pytest.raises(TypeError):
            tg.finfo(dtype)
    kinds = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu", "real floating": "f",
             "complex floating": "c", "numeric": "iufc"}
    for kind, letters in kinds.items():
        assert tg.isdtype(dtype, kind) == (dtype.kind in letters)
    assert tg.isdtype(dtype, (dtype,)) and tg.isdtype(dtype, ("bool", dtype))


@pytest.mark.parametrize("name", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                  "float16", "float32", "float64", "complex64", "complex128"])
def test_namespace_dtypes_behave_as_numpys(name):
    public = getattr(tg, name)
    assert public == getattr(np, name) and public == np.dtype(name)
    # A NumPy dtype instance equals None (np.dtype(None) is float64); the namespace's must not.
    assert public != None and not (None == public)  # noqa: E711
    x = tg.zeros(3, dtype=public)
    assert x.dtype == public and x.compute().dtype == np.dtype(name)
    assert tg.isdtype(public, public) and tg.isdtype(x.dtype, public) and tg.isdtype(public, x.dtype)
    with pytest.raises(TypeError):
        tg.isdtype(name, public)  # a string is not a dtype object
    if np.dtype(name).kind in "fc":
        assert tg.finfo(public).eps == float(np.finfo(name).eps)


def test_namespace_and_device():
    x = tg.asarray(np.arange(6.0).reshape(2, 3), chunks=2)
    assert x.__array_namespace__() is tg and x.device == "cpu" and x.to_device("cpu") is x
    with pytest.raises(ValueError):
        x.to_device("tpu")  # no build has it (a GPU build has "gpu")
    assert_same(x.mT.compute(), np.arange(6.0).reshape(2, 3).T, exact=True)
    assert_same(tg.from_dlpack(np.arange(4)).compute(), np.arange(4))
    assert_same(np.from_dlpack(x), np.arange(6.0).reshape(2, 3), exact=True)
    info = tg.__array_namespace_info__()
    assert info.default_device() in info.devices()
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


@given(from_=dtypes(), to=dtypes(), casting=st.sampled_from(["no", "equiv", "safe", "same_kind", "unsafe"]),
       as_array=st.booleans())
def test_can_cast_matches_numpy(from_, to, casting, as_array):
    source = tg.zeros(2, dtype=from_) if as_array else from_
    assert tg.can_cast(source, to, casting=casting) == np.can_cast(from_, to, casting=casting)


@given(pair=arrays(shapes(min_dims=1)), keepdims=st.booleans())
def test_amax_amin_and_from_array(pair, keepdims):
    a, x = pair
    assert_same(tg.from_array(a, chunks=2).compute(), a, exact=True)
    for ours, theirs in ((tg.amax, np.amax), (tg.amin, np.amin)):
        if a.size:
            assert_same(ours(x, axis=0, keepdims=keepdims).compute(), theirs(a, axis=0, keepdims=keepdims), exact=True)


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "biuf"]))
def test_numpy_array_methods(data, dtype):
    """NumPy's array methods that tegula arrays have too, against NumPy's methods on the same
    values (errors of the same type)."""
    shape = data.draw(shapes(min_dims=1))
    a = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    axis2 = data.draw(st.integers(-len(shape) - 1, len(shape)))
    keepdims = data.draw(st.booleans())
    calls = {
        "argmax": ((), {"axis": axis, "keepdims": keepdims}),
        "argmin": ((), {"axis": axis, "keepdims": keepdims}),
        "cumsum": ((), {"axis": axis}),
        "cumprod": ((), {"axis": axis}),
        "clip": ((1, 3), {}),
        "round": ((), {"decimals": data.draw(st.integers(-1, 2))}),
        "squeeze": ((), {"axis": axis if axis is not None and shape[axis] == 1 else None}),
        "swapaxes": ((0 if axis is None else axis, axis2), {}),
        "repeat": ((data.draw(st.integers(0, 3)),), {"axis": axis}),
        "copy": ((), {}),
    }
    name = data.draw(st.sampled_from(sorted(calls)))
    args, kwargs = calls[name]
    check(lambda: getattr(x, name)(*args, **kwargs), lambda: getattr(a, name)(*args, **kwargs))
    check(lambda: x.nonzero(), lambda: a.nonzero())
    assert x.tolist() == a.tolist()
    if a.size:
        assert x.item(0) == a.item(0)


@given(data=st.data(), dtype=dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
def test_numpy_matrix_and_index_methods(data, dtype):
    """dot, trace, diagonal, take, searchsorted and argsort as NumPy's array methods, against
    them on the same values (errors of the same type); argsort against NumPy's stable kind."""
    shape = data.draw(shapes(min_dims=1))
    a = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    ndim = len(shape)
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1))
    other_shape = data.draw(st.sampled_from([(), shape[-1:], (shape[-1], 2), (3, shape[-1], 2), (2,)]))
    b = data.draw(np_arrays(dtype, other_shape, integral=True, small=True))
    y = tg.asarray(b, chunks=data.draw(chunkings(other_shape))[0])
    check(lambda: x.dot(y), lambda: a.dot(b))
    if ndim >= 2:
        offset = data.draw(st.integers(-3, 3))
        axis1, axis2 = data.draw(st.integers(-ndim, ndim - 1)), data.draw(st.integers(-ndim, ndim - 1))
        check(lambda: x.diagonal(offset, axis1, axis2), lambda: a.diagonal(offset, axis1, axis2))
        check(lambda: x.trace(offset, axis1, axis2), lambda: a.trace(offset, axis1, axis2))
    indices = data.draw(st.lists(st.integers(-4, 4), max_size=5))
    check(lambda: x.take(indices, axis=axis), lambda: a.take(indices, axis=axis))
    sort_axis = data.draw(st.integers(-ndim, ndim - 1))
    check(lambda: x.argsort(axis=sort_axis), lambda: a.argsort(axis=sort_axis, kind="stable"))
    if ndim == 1:
        s = np.sort(a)
        v = data.draw(np_arrays(dtype, (3,), integral=True, small=True))
        side = data.draw(st.sampled_from(["left", "right"]))
        check(lambda: tg.asarray(s, chunks=x.chunks).searchsorted(v, side=side), lambda: s.searchsorted(v, side=side))
