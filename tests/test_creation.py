"""Creating arrays and chunkings: asarray, zeros/ones/full/empty, arange, linspace, *_like,
every form of ``chunks=``, ``.chunks``/``.numblocks`` and rechunk, against NumPy."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import (ALL_DTYPES, FLOAT, INTEGER, assert_same, chunkings, dtypes, error_class,
                        float_to_int_defined, np_arrays, oracle, python_scalars, quiet, shapes)


def check_layout(x, shape, dtype, chunks):
    assert x.shape == tuple(shape)
    assert x.dtype == np.dtype(dtype)
    assert x.ndim == len(shape)
    assert x.size == int(np.prod(shape, dtype=np.int64))
    assert x.chunks == chunks
    assert all(isinstance(c, tuple) for c in x.chunks)
    assert x.numblocks == tuple(len(c) for c in chunks)
    assert x.npartitions == int(np.prod(x.numblocks, dtype=np.int64))


@given(data=st.data(), dtype=dtypes(), shape=shapes())
def test_asarray_from_numpy_keeps_values_and_chunks(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    check_layout(x, shape, dtype, chunks)
    assert_same(x.compute(), a, exact=True)
    assert_same(np.asarray(x), a, exact=True)


@given(data=st.data(), dtype=dtypes(), other=dtypes(), copy=st.sampled_from([None, True, False]),
       pass_dtype=st.booleans())
def test_asarray_of_a_tegula_array_copies_as_numpy_does(data, dtype, other, copy, pass_dtype):
    """Without a copy (``copy`` false or ``None``, the same dtype, passed or not) the result sees
    a later assignment to its input, as a NumPy view would; with ``copy=True`` it keeps the old
    values; a dtype change is a copy, which ``copy=False`` refuses with NumPy's ValueError."""
    a = data.draw(np_arrays(dtype, (4,), integral=True, small=True))  # exact in every dtype
    x = tg.asarray(a, chunks=data.draw(chunkings((4,)))[0])
    want = dtype if pass_dtype else other
    expected, error = oracle(np.asarray, a, dtype=want, copy=copy)
    if error is not None:
        with pytest.raises(error_class(error)):
            tg.asarray(x, dtype=want, copy=copy)
        return
    out = tg.asarray(x, dtype=want, copy=copy)
    assert out.dtype == expected.dtype
    aliased = np.shares_memory(expected, a)
    x[1] = a[0]
    a[1] = a[0]
    assert_same(out.compute(), expected if not aliased else a, exact=True)


@given(value=python_scalars() | st.lists(python_scalars(("int",), (-5, 5)), max_size=4)
       | st.lists(st.lists(st.floats(allow_nan=False), min_size=2, max_size=2), max_size=3)
       | st.lists(st.booleans(), max_size=3))
def test_asarray_from_python_scalars_and_nested_lists(value):
    expected, error = oracle(np.asarray, value)
    if error is not None or expected.dtype not in ALL_DTYPES:
        with pytest.raises((TypeError, OverflowError)):
            tg.asarray(value)
        return
    x = tg.asarray(value)
    assert x.shape == expected.shape
    assert_same(x.compute(), expected, exact=True)


@given(data=st.data(), shape=shapes(), dtype=dtypes() | st.none())
def test_zeros_ones_empty(data, shape, dtype):
    spec, chunks = data.draw(chunkings(shape))
    for make, np_make in ((tg.zeros, np.zeros), (tg.ones, np.ones)):
        x = make(shape, dtype=dtype, chunks=spec)
        expected = np_make(shape, dtype=dtype)
        check_layout(x, shape, expected.dtype, chunks)
        assert_same(x.compute(), expected, exact=True)
    e = tg.empty(shape, dtype=dtype, chunks=spec)
    check_layout(e, shape, np.empty(shape, dtype=dtype).dtype, chunks)
    assert e.compute().shape == shape


@given(data=st.data(), shape=shapes(), dtype=dtypes() | st.none(), fill=python_scalars())
def test_full_with_python_scalars(data, shape, dtype, fill):
    if isinstance(fill, complex) and dtype is not None and dtype.kind != "c":
        return  # NumPy silently drops the imaginary part; tegula refuses (see test_errors)
    if dtype is not None and not float_to_int_defined(fill, dtype):
        return  # out-of-range float -> int casts are undefined behaviour in NumPy
    spec, chunks = data.draw(chunkings(shape))
    expected, error = oracle(np.full, shape, fill, dtype=dtype)
    if error is None and expected.dtype not in ALL_DTYPES:
        with pytest.raises(TypeError):  # Python ints beyond uint64 make object arrays
            tg.full(shape, fill, dtype=dtype, chunks=spec)
        return
    if error is not None:
        with pytest.raises(error_class(error)):
            tg.full(shape, fill, dtype=dtype, chunks=spec)
        return
    x = tg.full(shape, fill, dtype=dtype, chunks=spec)
    check_layout(x, shape, expected.dtype, chunks)
    assert_same(x.compute(), expected, exact=True)


@given(data=st.data(), dtype=dtypes())
def test_full_with_numpy_scalar_takes_its_dtype(data, dtype):
    value = data.draw(np_arrays(dtype, ()))[()]
    x = tg.full((3, 2), value, chunks=2)
    assert_same(x.compute(), np.full((3, 2), value), exact=True)


@given(data=st.data(), dtype=dtypes() | st.none(), shape=shapes())
def test_like_functions(data, dtype, shape):
    base_dtype = data.draw(dtypes())
    a = np.zeros(shape, base_dtype)
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    fill = data.draw(python_scalars(("bool", "int", "float")))
    if not float_to_int_defined(fill, dtype or base_dtype):
        return  # out-of-range float -> int casts are undefined behaviour in NumPy
    for tg_like, np_like, args in ((tg.zeros_like, np.zeros_like, ()), (tg.ones_like, np.ones_like, ()),
                                   (tg.full_like, np.full_like, (fill,))):
        for source in (x, a):
            expected, error = oracle(np_like, a, *args, dtype=dtype)
            if error is not None:
                with pytest.raises(error_class(error)):
                    tg_like(source, *args, dtype=dtype)
                continue
            y = tg_like(source, *args, dtype=dtype)
            if source is x:
                assert y.chunks == chunks  # like Dask, *_like keep the chunks
            assert_same(y.compute(), expected, exact=True)
    e = tg.empty_like(x, dtype=dtype)
    assert e.shape == a.shape and e.dtype == np.empty_like(a, dtype=dtype).dtype


int_args = st.integers(-30, 30)
float_args = st.floats(-30, 30, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-3)


@given(data=st.data(), kind=st.sampled_from(["stop", "start-stop", "int", "float"]))
def test_arange(data, kind):
    if kind == "stop":
        args = (data.draw(int_args),)
    elif kind == "start-stop":
        args = (data.draw(int_args), data.draw(int_args))
    else:
        values = int_args if kind == "int" else float_args
        step = data.draw(values.filter(lambda v: abs(v) >= 1 or kind == "float" and v != 0))
        args = (data.draw(values), data.draw(values), step)
    dtype = data.draw(st.none() | dtypes(FLOAT + (INTEGER if kind != "float" else [])))
    expected, error = oracle(np.arange, *args, dtype=dtype)
    if dtype is not None and error is None and np.dtype(dtype).kind == "u" and (expected < 0).any():
        return  # NumPy wraps negative ranges into unsigned dtypes in platform-specific ways
    if error is not None:
        with pytest.raises(error_class(error)):
            tg.arange(*args, dtype=dtype)
        return
    spec, chunks = data.draw(chunkings(expected.shape))
    x = tg.arange(*args, dtype=dtype, chunks=spec)
    check_layout(x, expected.shape, expected.dtype, chunks)
    # float32/float16 ranges: NumPy fills them in the narrow type, tegula in float64 then rounds
    narrow = expected.dtype in (np.float16, np.float32)
    assert_same(x.compute(), expected, exact=not narrow, rtol=1e-3 if expected.dtype == np.float16 else 1e-6,
                atol=1e-3)


@given(data=st.data(), start=st.floats(-1e3, 1e3), stop=st.floats(-1e3, 1e3), num=st.integers(0, 20),
       endpoint=st.booleans(), dtype=st.none() | dtypes(FLOAT + INTEGER))
def test_linspace(data, start, stop, num, endpoint, dtype):
    expected, error = oracle(np.linspace, start, stop, num, endpoint=endpoint, dtype=dtype)
    if error is not None:
        with pytest.raises(error_class(error)):
            tg.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
        return
    if not float_to_int_defined(np.floor(np.linspace(start, stop, num, endpoint=endpoint)), expected.dtype):
        return  # values outside an integer dtype: the cast is undefined behaviour in NumPy
    spec, chunks = data.draw(chunkings((num,)))
    x = tg.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, chunks=spec)
    check_layout(x, (num,), expected.dtype, chunks)
    assert_same(x.compute(), expected, exact=True)


@given(data=st.data(), dtype=dtypes(), shape=shapes())
def test_rechunk_keeps_values(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    spec1, _ = data.draw(chunkings(shape))
    spec2, chunks2 = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec1)
    # asarray(x, chunks="auto") of a tegula array keeps its chunks: "auto" is the default
    forms = [x.rechunk(spec2), tg.rechunk(x, spec2)] + ([tg.asarray(x, chunks=spec2)] if spec2 != "auto" else [])
    for y in forms:
        check_layout(y, shape, dtype, chunks2)
        assert_same(y.compute(), a, exact=True)


@given(data=st.data(), shape=shapes(min_dims=1))
def test_rechunk_after_an_operation(data, shape):
    a = data.draw(np_arrays(np.int32, shape, ))
    spec1, _ = data.draw(chunkings(shape))
    spec2, chunks2 = data.draw(chunkings(shape))
    y = (tg.asarray(a, chunks=spec1) * 3).rechunk(spec2)
    assert y.chunks == chunks2
    with quiet():
        assert_same(y.compute(), a * 3)


def test_chunk_forms_match_dask_conventions():
    a = np.arange(60).reshape(6, 10)
    assert tg.asarray(a, chunks=4).chunks == ((4, 2), (4, 4, 2))
    assert tg.asarray(a, chunks=(4, -1)).chunks == ((4, 2), (10,))
    assert tg.asarray(a, chunks=(None, 3)).chunks == ((6,), (3, 3, 3, 1))
    assert tg.asarray(a, chunks=((1, 5), (2, 3, 5))).chunks == ((1, 5), (2, 3, 5))
    assert tg.asarray(a, chunks=((1, 5), 5)).chunks == ((1, 5), (5, 5))
    assert tg.asarray(a, chunks="auto").chunks == ((6,), (10,))
    assert tg.asarray(a, chunks="auto").numblocks == (1, 1)
    assert tg.asarray(a, chunks=(2, 5)).numblocks == (3, 2)
    assert tg.asarray(np.float64(1.5)).chunks == ()
    assert tg.zeros((0, 3), chunks=2).chunks == ((0,), (2, 1))


def test_auto_chunks_split_large_arrays_under_the_byte_target():
    x = tg.zeros((4096, 8192), dtype="float64", chunks="1MiB")
    assert all(sum(c) == n for c, n in zip(x.chunks, x.shape))
    assert np.prod(x.chunksize) * 8 <= 2**20
    assert x.npartitions > 1
