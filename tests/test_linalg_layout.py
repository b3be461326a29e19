"""matmul / @ for 1-D operands and (broadcast) stacks of matrices, .T / transpose, basic indexing and rechunk, against
NumPy, over random shapes, dtypes and (different) chunkings of the operands."""

import operator

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from strategies import (COMPLEX, FLOAT, assert_same, chunkings, dtypes, error_class, more_examples,
                        np_arrays, oracle, quiet, shapes)


@st.composite
def stack_of(draw, stack):
    """``stack`` as one operand of a broadcast may have it: leading axes dropped, some axes of
    length one, or (sometimes) an axis that does not broadcast."""
    out = [draw(st.sampled_from([d, 1])) for d in stack[draw(st.integers(0, len(stack))):]]
    if out and draw(st.integers(0, 9)) == 0:
        out[0] = draw(st.integers(2, 4))
    return tuple(out)


@st.composite
def matmul_shapes(draw):
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    stack = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    a = draw(st.sampled_from([draw(stack_of(stack)) + (n, k), (k,)]))
    b = draw(st.sampled_from([draw(stack_of(stack)) + (k, m), (k,)]))
    return a, b


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


@given(data=st.data(), shapes_=matmul_shapes(), da=dtypes(), db=dtypes(), form=st.sampled_from(["@", "function"]))
def test_matmul_exact_on_whole_numbers(data, shapes_, da, db, form):
    """Small whole numbers make every float product and sum exact, so results must be identical;
    integer products use the full integer range (NumPy's matmul wraps like tegula's)."""
    small = np.result_type(da, db).kind in "fc"
    a = data.draw(np_arrays(da, shapes_[0], integral=True, small=small))
    b = data.draw(np_arrays(db, shapes_[1], integral=True, small=small))
    x, y = chunked(data, a), chunked(data, b)
    expected, error = oracle(np.matmul, a, b)
    fn = operator.matmul if form == "@" else tg.matmul
    if error is not None:
        with pytest.raises(error_class(error)):
            fn(x, y)
        return
    out = fn(x, y)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    assert_same(out.compute(), expected, exact=True)


@given(data=st.data(), shapes_=matmul_shapes(), dtype=dtypes(FLOAT[1:] + COMPLEX))
def test_matmul_floats(data, shapes_, dtype):
    a = data.draw(np_arrays(dtype, shapes_[0], allow_nan=False, allow_infinity=False, max_magnitude=100.0))
    b = data.draw(np_arrays(dtype, shapes_[1], allow_nan=False, allow_infinity=False, max_magnitude=100.0))
    expected, error = oracle(np.matmul, a, b)
    if error is not None:
        with pytest.raises(error_class(error)):
            chunked(data, a) @ chunked(data, b)
        return
    out = chunked(data, a) @ chunked(data, b)
    k = shapes_[0][-1]
    eps = float(np.finfo(dtype).eps)
    scale = np.abs(a.astype(np.complex128)) @ np.abs(b.astype(np.complex128)) if k else np.zeros(expected.shape)
    assert_same(out.compute(), expected, rtol=4 * k * eps, atol=4 * k * eps * np.real(scale) + 1e-30)


@given(data=st.data(), stack=st.lists(st.integers(0, 3), max_size=2).map(tuple), n=st.integers(0, 9),
       k=st.integers(0, 9), dtype=dtypes(), left=st.booleans())
def test_a_matrix_times_its_own_transpose(data, stack, n, k, dtype, left):
    """``a @ a.mT`` and ``a.mT @ a``, whose blocks below the diagonal are transposed views of
    those above it: exactly NumPy's on whole numbers (so exactly symmetric), every dtype."""
    a = data.draw(np_arrays(dtype, stack + (n, k), integral=True, small=dtype.kind in "fc"))
    x = chunked(data, a)
    out = x.mT @ x if left else x @ x.mT
    expected = np.swapaxes(a, -1, -2) @ a if left else a @ np.swapaxes(a, -1, -2)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    assert_same(out.compute(), expected, exact=True)


def test_matmul_with_numpy_operands():
    a = np.arange(12.0).reshape(3, 4)
    b = np.arange(8.0).reshape(4, 2)
    x = tg.asarray(a, chunks=2)
    assert_same((x @ b).compute(), a @ b, exact=True)
    assert_same((a @ tg.asarray(b, chunks=3)).compute(), a @ b, exact=True)
    assert_same(tg.matmul(a, b).compute(), a @ b, exact=True)


@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=4))
def test_transpose(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    x = chunked(data, a)
    perm = data.draw(st.permutations(range(len(shape))))
    signed = tuple(p - len(shape) if data.draw(st.booleans()) else p for p in perm)
    assert_same(x.T.compute(), a.T, exact=True)
    assert_same(x.transpose().compute(), a.transpose(), exact=True)
    for y in (x.transpose(signed), x.transpose(*signed) if signed else x.transpose(), tg.transpose(x, signed),
              tg.permute_dims(x, signed)):
        expected = np.transpose(a, signed)
        assert y.shape == expected.shape
        assert y.chunks == tuple(x.chunks[p] for p in perm)
        assert_same(y.compute(), expected, exact=True)


@st.composite
def basic_keys(draw, shape):
    """Basic indices: ints (negative too), slices with any step sign and bounds past either
    end, ``...`` and ``None`` (newaxis), as a tuple or a lone item."""
    items = []
    for n in shape[: draw(st.integers(0, len(shape)))]:
        kind = draw(st.sampled_from(["int", "slice", "slice"] if n else ["slice"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 3, n + 3)
            step = st.none() | st.integers(-4, 4).filter(bool)
            items.append(slice(draw(bound), draw(bound), draw(step)))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


@more_examples()
@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=4, max_side=7))
def test_basic_indexing(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    x = chunked(data, a)
    key = data.draw(basic_keys(shape) | hnp.basic_indices(shape, allow_newaxis=True))
    expected, error = oracle(lambda: a[key])
    if error is not None:  # e.g. an int after "..." landing on an empty axis
        with pytest.raises(error_class(error)):
            x[key]
        return
    y = x[key]
    assert y.shape == np.shape(expected) and y.dtype == a.dtype
    assert sum(map(sum, y.chunks)) == sum(y.shape)  # chunks cover the result
    assert_same(y.compute(), expected, exact=True)


@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, max_side=7))
def test_indexing_then_computing_mixes_chunkings(data, shape):
    a = data.draw(np_arrays(np.int64, shape))
    x = chunked(data, a)
    key = data.draw(basic_keys(shape))
    expected, error = oracle(lambda: a[key])
    if error is not None:
        with pytest.raises(error_class(error)):
            x[key]
        return
    y = x[key]
    with quiet():
        assert_same((y + y[...]).compute(), expected + expected[...])
    if expected.ndim:
        assert_same(y.sum(axis=0, split_every=2).compute(), expected.sum(axis=0))


@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=3))
def test_layout_chains(data, dtype, shape):
    """transpose, rechunk and indexing composed: still NumPy's values, and zero-copy views
    along the way do not leak between blocks."""
    a = data.draw(np_arrays(dtype, shape))
    x = chunked(data, a)
    spec, chunks = data.draw(chunkings(shape[::-1]))
    y = x.T.rechunk(spec)
    assert y.chunks == chunks
    assert_same(y.compute(), a.T, exact=True)
    key = tuple(slice(None, None, -1) for _ in shape)
    assert_same(y[key].T.compute(), a.T[key].T, exact=True)


@pytest.mark.parametrize("key", [0, -1, 5, -6, (slice(None), 9), (Ellipsis, -10), (0, 0, 0)])
def test_indexing_errors_match_numpy(key):
    a = np.arange(50).reshape(5, 10)
    expected, error = oracle(lambda: a[key])
    x = tg.asarray(a, chunks=3)
    if error is None:
        assert_same(x[key].compute(), expected)
    else:
        with pytest.raises(error_class(error)):
            x[key]
