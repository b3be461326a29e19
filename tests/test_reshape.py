"""reshape against NumPy: random shapes, dtypes, chunkings and target shapes (factorisations
of the size, length-one axes, an inferred -1), NumPy's errors, 0-d and empty arrays, inputs
that are not row-major; and no node of the plan has a block larger than the input's."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from tegula._reshape import reshape
from strategies import assert_same, chunkings, dtypes, error_class, np_arrays, oracle, shapes


def chunked(draw, a):
    return tg.asarray(a, chunks=draw(chunkings(a.shape))[0])


def block_elements(chunks):
    """Elements of the largest block a chunking's block lengths allow."""
    return math.prod(max(c) for c in chunks)


@st.composite
def targets(draw, size):
    """A shape of ``size`` elements (divisors, then what is left, with length-one axes), one
    length sometimes -1; or, sometimes, any shape at all (mostly NumPy errors)."""
    if draw(st.integers(0, 9)) == 0:
        return tuple(draw(st.lists(st.integers(-2, 6), max_size=4)))
    dims, rest = [], size
    for _ in range(draw(st.integers(0, 3))):
        d = draw(st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1, 2, 3]))
        dims.append(d)
        rest = rest // d if d else 0
    dims.append(rest)
    for _ in range(draw(st.integers(0, 2))):
        dims.insert(draw(st.integers(0, len(dims))), 1)
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(dims)


def check(x, a, shape, order="C"):
    """``reshape(x, shape, order=order)`` is NumPy's, fused and unfused, or raises NumPy's
    exception type; no node of its plan has a block larger than ``x``'s."""
    expected, error = oracle(np.reshape, a, shape, order=order)
    if error is not None:
        with pytest.raises(error_class(error)):
            reshape(x, shape, order=order)
        return
    out = reshape(x, shape, order=order)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    assert_same(out.compute(), expected, exact=True)
    assert_same(out.compute(fuse=False), expected, exact=True)
    bound = block_elements(x.chunks)
    assert block_elements(out.chunks) <= bound
    for line in re.findall(r"chunks=\(([\d, ]*)\)", out.explain()):
        assert math.prod(int(n) for n in line.replace(",", " ").split()) <= bound, out.explain()


@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=4))
def test_reshape(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    check(chunked(data.draw, a), a, data.draw(targets(a.size)))


@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=4), order=st.sampled_from(["F", "A"]))
def test_reshape_in_column_major_order(data, dtype, shape, order):
    """order="F" (flox reshapes with it) and "A", through tegula.reshape, the method and
    np.reshape; "A" is "F" for a Fortran-ordered NumPy input only, as in NumPy."""
    a = data.draw(np_arrays(dtype, shape))
    target = data.draw(targets(a.size))
    check(chunked(data.draw, a), a, target, order)
    expected, error = oracle(np.reshape, a, target, order="F")
    if error is None and order == "F":
        assert_same(chunked(data.draw, a).reshape(target, order="F").compute(), expected, exact=True)
        assert_same(np.reshape(chunked(data.draw, a), target, order="F").compute(), expected, exact=True)
    f = np.asfortranarray(a)
    expected, error = oracle(np.reshape, f, target, order=order)
    if error is None:
        assert_same(reshape(f, target, order=order).compute(), expected, exact=True)
    with pytest.raises(ValueError, match="order must be one of"):
        reshape(chunked(data.draw, a), a.shape, order="K")


@given(data=st.data(), shape=shapes(min_dims=2, max_dims=3))
def test_reshape_of_transposed_and_fortran_inputs(data, shape):
    a = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    x = chunked(data.draw, a)
    size = a.size
    check(x.T, a.T, data.draw(targets(size)))
    f = np.asfortranarray(a)
    check(chunked(data.draw, f), f, data.draw(targets(size)))


@given(data=st.data(), shape=shapes(min_dims=1, max_dims=3, min_side=1))
def test_reshape_of_an_expression(data, shape):
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    x = chunked(data.draw, a)
    target = data.draw(targets(a.size))
    check(x * 2 + 1, a * 2 + 1, target)
    expected, error = oracle(np.reshape, a, target)
    if error is None:  # and an expression of the reshaped array
        assert_same((reshape(x, target) + 1).sum(axis=0).compute(), (expected + 1).sum(axis=0), rtol=1e-12)


def test_errors_and_messages():
    x = tg.asarray(np.arange(6), chunks=4)
    with pytest.raises(ValueError, match=re.escape("cannot reshape array of size 6 into shape (4,)")):
        reshape(x, (4,))
    with pytest.raises(ValueError, match=re.escape("cannot reshape array of size 6 into shape (4,newaxis)")):
        reshape(x, (4, -1))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        reshape(x, (-1, -1))
    with pytest.raises(ValueError):
        reshape(tg.zeros((0, 3)), (0, -1))
    with pytest.raises(TypeError):
        reshape(x, (2.0, 3))


def test_zero_d_empty_and_forms_of_shape():
    s = tg.asarray(np.float32(7))
    assert_same(reshape(s, (1, 1, -1)).compute(), np.ones((1, 1, 1), np.float32) * 7, exact=True)
    assert_same(reshape(reshape(s, -1), ()).compute(), np.float32(7), exact=True)
    e = tg.zeros((0, 4), dtype="int8", chunks=2)
    assert reshape(e, (2, -1, 2)).shape == (2, 0, 2)
    assert_same(reshape(e, (4, 0)).compute(), np.zeros((4, 0), np.int8), exact=True)
    x = tg.asarray(np.arange(12), chunks=5)
    for copy in (None, True, False):
        assert reshape(x, 12, copy=copy) is not None
    assert_same(reshape(x, [3, 4]).compute(), np.arange(12).reshape(3, 4), exact=True)
    assert_same(reshape(np.arange(6), 6).compute(), np.arange(6), exact=True)


def test_flattening_tiles_keeps_their_size():
    x = tg.zeros((1000, 1000), dtype="float32", chunks=100)
    y = reshape(x, -1)
    assert y.chunks == ((10_000,) * 100,)
    assert max(reshape(y, (100, 10, 1000)).chunks[1]) == 10
