"""NumPy's ndarray methods tegula composes (fill, put, compress, choose, view, flat, tobytes,
tofile, partition, argpartition, in-place sort) against the same methods of NumPy arrays."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, BOOL, INTEGER, FLOAT, chunkings, dtypes, elements, np_arrays, shapes


@settings(max_examples=40)
@given(shape=shapes(), data=st.data())
def test_fill(shape, data):
    dtype = data.draw(dtypes())
    value = data.draw(elements(dtype))
    spec, chunks = data.draw(chunkings(shape))
    x = tg.zeros(shape, dtype=dtype, chunks=spec)
    before = x.copy()
    x.fill(value)
    a = np.zeros(shape, dtype)
    a.fill(value)
    assert x.chunks == chunks and x.dtype == dtype
    np.testing.assert_array_equal(x.compute(), a)
    np.testing.assert_array_equal(before.compute(), np.zeros(shape, dtype))


@pytest.mark.parametrize("value", [300, float("nan"), float("inf")])
def test_fill_errors_match_numpy(value):
    with pytest.raises(Exception) as expected:
        np.zeros(3, np.int8).fill(value)
    with pytest.raises(type(expected.value)):
        tg.zeros(3, dtype=np.int8).fill(value)


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1), data=st.data())
def test_put(shape, data):
    dtype = data.draw(dtypes())
    a = data.draw(np_arrays(dtype, shape))
    spec, _ = data.draw(chunkings(shape))
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    bound = a.size if mode == "raise" else 3 * a.size
    ind = data.draw(st.lists(st.integers(-bound, bound - 1), max_size=6))
    values = data.draw(st.lists(elements(dtype), min_size=1, max_size=4))
    x = tg.asarray(a, chunks=spec)
    x.put(ind, np.array(values, dtype), mode=mode)
    a = a.copy()
    a.put(ind, np.array(values, dtype), mode=mode)
    np.testing.assert_array_equal(x.compute(), a)


def test_put_errors():
    x = tg.arange(5.0)
    with pytest.raises(IndexError):
        x.put([7], [1.0])
    with pytest.raises(ValueError):
        x.put([1], [1.0], mode="bounce")


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1), data=st.data())
def test_compress(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes()), shape))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    n = a.size if axis is None else shape[axis]
    condition = data.draw(st.lists(st.booleans(), max_size=n))
    x = tg.asarray(a, chunks=spec)
    np.testing.assert_array_equal(x.compress(condition, axis=axis).compute(), a.compress(condition, axis=axis))
    np.testing.assert_array_equal(tg.compress(tg.asarray(np.array(condition, bool)), x, axis=axis).compute(),
                                  np.compress(condition, a, axis=axis))


def test_compress_errors_match_numpy():
    a = np.arange(6).reshape(2, 3)
    for condition, axis in [([False, False, False, True], 1), ([[True]], 0), ([True], 2)]:
        with pytest.raises(Exception) as expected:
            a.compress(condition, axis=axis)
        with pytest.raises(type(expected.value)):
            tg.asarray(a).compress(condition, axis=axis)
    np.testing.assert_array_equal(tg.asarray(a).compress([True, False, True, False], axis=1).compute(),
                                  a.compress([True, False, True, False], axis=1))


@settings(max_examples=40)
@given(shape=shapes(0, 2), data=st.data())
def test_choose(shape, data):
    n = data.draw(st.integers(1, 3))
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    low, high = (0, n - 1) if mode == "raise" else (-4, n + 3)
    index = np.array(data.draw(st.lists(st.integers(low, high), min_size=int(np.prod(shape)),
                                        max_size=int(np.prod(shape))))).reshape(shape).astype(np.int64)
    choices = [data.draw(np_arrays(data.draw(dtypes(INTEGER + FLOAT)), shape[data.draw(st.integers(0, len(shape))):]))
               for _ in range(n)]
    spec, _ = data.draw(chunkings(shape))
    out = tg.asarray(index, chunks=spec).choose([tg.asarray(c) for c in choices], mode=mode)
    expected = index.choose(choices, mode=mode)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out.compute(), expected)


def test_choose_errors_match_numpy():
    a, choices = np.array([0, 3, 1]), [np.zeros(3), np.ones(3)]
    with pytest.raises(ValueError):
        a.choose(choices)
    with pytest.raises(ValueError):
        tg.asarray(a).choose(choices).compute()
    with pytest.raises(TypeError):
        np.choose(a.astype(float), choices)
    with pytest.raises(TypeError):
        tg.choose(tg.asarray(a.astype(float)), choices)
    with pytest.raises(ValueError):
        tg.asarray(a).choose(choices, mode="bounce")


@settings(max_examples=120)
@given(shape=shapes(), data=st.data())
def test_view_reads_the_bytes_as_numpy_does(shape, data):
    """Every dtype as every other, same itemsize or not, at random chunkings (blocks whose
    last axis would split an element are rechunked): NumPy's bytes, or NumPy's error."""
    source, target = data.draw(dtypes(ALL_DTYPES)), data.draw(dtypes(ALL_DTYPES))
    a = data.draw(np_arrays(source, shape))
    spec, _ = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    try:
        expected = a.view(target)
    except ValueError:
        with pytest.raises(ValueError):
            x.view(target)
        return
    if target == np.bool_:
        # NumPy's booleans keep the bytes viewed; tegula's are 0 or 1, true where nonzero.
        expected = a.view(np.uint8) != 0
    out = x.view(target)
    assert out.dtype == target and out.shape == expected.shape
    assert out.compute().tobytes() == expected.tobytes()


def test_view_without_a_dtype_and_of_a_0d_array():
    x = tg.asarray(np.arange(4.0), chunks=3)
    np.testing.assert_array_equal(x.view().compute(), np.arange(4.0))
    assert x.view(np.int64).chunks == ((3, 1),)
    assert x.view(np.int32).chunks == ((6, 2),)
    with pytest.raises(ValueError):
        tg.asarray(np.float64(1.5)).view(np.int32)
    assert tg.asarray(np.float64(1.5)).view(np.int64).compute() == np.float64(1.5).view(np.int64)


@settings(max_examples=40)
@given(shape=shapes(), data=st.data())
def test_flat_tobytes_tofile(shape, data, tmp_path_factory):
    dtype = data.draw(dtypes(ALL_DTYPES))
    a = data.draw(np_arrays(dtype, shape))
    spec, _ = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    assert len(x.flat) == a.size
    np.testing.assert_array_equal(np.asarray(x.flat), np.asarray(a.flat))
    np.testing.assert_array_equal(list(x.flat), list(a.flat))
    np.testing.assert_array_equal(x.flat[::2].compute(), a.flat[::2])
    if a.size:
        i = data.draw(st.integers(-a.size, a.size - 1))
        np.testing.assert_array_equal(x.flat[i].compute(), a.flat[i])
        np.testing.assert_array_equal(x.flat[[i, 0]].compute(), a.flat[[i, 0]])
        value = data.draw(elements(dtype))
        x.flat[i] = value
        b = a.copy()
        b.flat[i] = value
        np.testing.assert_array_equal(x.compute(), b)
        x = tg.asarray(a, chunks=spec)
    for order in "CF":
        assert x.tobytes(order) == a.tobytes(order)
    path = tmp_path_factory.mktemp("tofile") / "values.bin"
    x.tofile(str(path))
    assert path.read_bytes() == a.tobytes()


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1), data=st.data())
def test_partition_argpartition_sort(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes(INTEGER + FLOAT)), shape))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    kth = data.draw(st.one_of(st.integers(-n, n - 1), st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
    at = np.sort(np.atleast_1d(kth) % n)
    expected = np.partition(a, kth, axis=axis)
    out = tg.partition(tg.asarray(a, chunks=spec), kth, axis=axis).compute()
    np.testing.assert_array_equal(np.take(out, at, axis=axis), np.take(expected, at, axis=axis))
    np.testing.assert_array_equal(out, np.sort(a, axis=axis))  # a full sort satisfies the contract
    index = tg.asarray(a, chunks=spec).argpartition(kth, axis=axis).compute()
    np.testing.assert_array_equal(np.take(np.take_along_axis(a, index, axis=axis), at, axis=axis),
                                  np.take(expected, at, axis=axis))
    np.testing.assert_array_equal(tg.partition(tg.asarray(a), kth if np.ndim(kth) else 0, axis=None).compute(),
                                  np.sort(a, axis=None))
    x = tg.asarray(a, chunks=spec)
    earlier = x + 0
    x.sort(axis=axis)
    np.testing.assert_array_equal(x.compute(), np.sort(a, axis=axis))
    np.testing.assert_array_equal(earlier.compute(), a)
    y = tg.asarray(a, chunks=spec)
    y.partition(kth, axis=axis)
    np.testing.assert_array_equal(np.take(y.compute(), at, axis=axis), np.take(expected, at, axis=axis))


@pytest.mark.parametrize("kth, axis", [(5, -1), (-6, -1), (1.5, -1), (0, 2)])
def test_partition_errors_match_numpy(kth, axis):
    a = np.arange(10).reshape(2, 5)
    with pytest.raises(Exception) as expected:
        np.partition(a, kth, axis=axis)
    with pytest.raises(type(expected.value)):
        tg.partition(tg.asarray(a), kth, axis=axis)
    with pytest.raises(type(expected.value)):
        tg.asarray(a).argpartition(kth, axis=axis)
