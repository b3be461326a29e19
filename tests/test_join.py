"""concatenate, stack and expand_dims against NumPy: random shapes, dtypes (promoted together)
and chunkings (different for every input), negative axes, NumPy's exception types, the same
values fused and unfused, and plans that copy no data where none has to move."""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import MAX_SIDE, assert_same, chunkings, dtypes, error_class, np_arrays, oracle, shapes

AxisError = np.exceptions.AxisError


def chunked(draw, a):
    return tg.asarray(a, chunks=draw(chunkings(a.shape))[0])


def values_and_arrays(draw, shapes_, dtype=None):
    """NumPy inputs of ``shapes_`` (each of its own dtype unless ``dtype``) and tegula copies
    chunked independently."""
    data = [draw(np_arrays(draw(dtypes()) if dtype is None else dtype, s)) for s in shapes_]
    return data, [chunked(draw, a) for a in data]


@st.composite
def concatenations(draw, dtype=None):
    """Inputs whose shapes agree except along a random (possibly negative) axis."""
    base = draw(shapes(min_dims=1))
    nd = len(base)
    axis = draw(st.integers(-nd, nd - 1))
    lengths = draw(st.lists(st.integers(0, MAX_SIDE), min_size=1, max_size=4))
    shapes_ = [base[:axis % nd] + (n,) + base[axis % nd + 1:] for n in lengths]
    return (*values_and_arrays(draw, shapes_, dtype), axis)


def check(out, expected):
    """``out`` has NumPy's dtype, shape and values, fused and unfused."""
    assert out.dtype == expected.dtype and out.shape == expected.shape
    assert sum(map(sum, out.chunks)) == sum(out.shape)
    assert_same(out.compute(), expected, exact=True)
    assert_same(out.compute(fuse=False), expected, exact=True)


def tasks_of(plan, label):
    """The task counts of the plan's lines for operations named ``label``."""
    return [int(n) for n in re.findall(rf"= {re.escape(label)}\(.*tasks=(\d+)", plan)]


@given(data=st.data())
def test_concatenate(data):
    arrays, xs, axis = data.draw(concatenations())
    out = tg.concatenate(xs, axis=axis)
    check(out, np.concatenate(arrays, axis=axis))
    along = tuple(n for x in xs for n in x.chunks[axis] if n)
    assert out.chunks[axis] == (along or (0,))  # every input block is an output block
    assert tg.concat(xs, axis=axis).shape == out.shape


@given(data=st.data())
def test_stack(data):
    shape = data.draw(shapes())
    arrays, xs = values_and_arrays(data.draw, [shape] * data.draw(st.integers(1, 4)))
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    out = tg.stack(xs, axis=axis)
    check(out, np.stack(arrays, axis=axis))
    assert out.chunks[axis] == (1,) * len(xs)


@given(data=st.data(), dtype=dtypes(), shape=shapes(max_dims=3))
def test_expand_dims(data, dtype, shape):
    a = data.draw(np_arrays(dtype, shape))
    x = chunked(data.draw, a)
    nd = len(shape)
    one = st.integers(-nd - 2, nd + 1)
    axis = data.draw(one | st.lists(one, max_size=3).map(tuple))
    expected, error = oracle(np.expand_dims, a, axis)
    if error is not None:  # out of range, or repeated
        with pytest.raises(error_class(error)):
            tg.expand_dims(x, axis)
        return
    out = tg.expand_dims(x, axis)
    check(out, expected)
    new = [a % expected.ndim for a in (axis if isinstance(axis, tuple) else (axis,))]
    assert all(out.chunks[a] == (1,) for a in new)


@given(data=st.data())
def test_joined_arrays_compute_like_numpy(data):
    """Joins feeding element-wise operations and reductions, fused and unfused."""
    arrays, xs, axis = data.draw(concatenations(dtype=np.int64))
    expected = np.concatenate(arrays, axis=axis)
    y = tg.concatenate(xs, axis=axis) * 3 + xs[0].sum(axis=axis, keepdims=True)
    check(y, expected * 3 + arrays[0].sum(axis=axis, keepdims=True))
    check(tg.stack([y, y + 1], axis=-1).sum(axis=axis), np.stack([y.compute(), y.compute() + 1], axis=-1).sum(axis=axis))


@given(data=st.data(), shape=shapes(min_dims=1, min_side=1), n=st.integers(1, 4))
def test_joins_copy_nothing(data, shape, n):
    """Inputs of one dtype and one chunking off the axis: a concatenation adds no task at all, a
    stack one view task per block; nothing is assembled."""
    spec = data.draw(chunkings(shape))[0]
    xs = [tg.asarray(np.full(shape, i), chunks=spec) for i in range(n)]
    loads = sum(x.task_count() for x in xs)
    joined = tg.concatenate(xs, axis=-1)
    assert joined.task_count() == loads
    assert tasks_of(joined.explain(), "concatenate") == [0]
    stacked = tg.stack(xs)
    assert stacked.task_count() == 2 * loads
    assert tasks_of(stacked.explain(), "expand_dims") == [x.task_count() for x in xs]


def test_explain_names_the_joins():
    x = tg.ones((4, 6), chunks=2)
    plan = tg.stack([x, tg.expand_dims(x[:, 0], -1) * tg.ones((1, 6))], axis=1).explain()
    assert "expand_dims(axis=[1])" in plan and "concatenate(axis=1)" in plan


@pytest.mark.parametrize(
    "fn, args",
    [
        (np.concatenate, ([],)),
        (np.stack, ([],)),
        (np.concatenate, ([np.ones(()), np.ones(())],)),
        (np.concatenate, ([np.ones((2, 3)), np.ones((2, 4))], 0)),
        (np.concatenate, ([np.ones((2, 3)), np.ones(3)], 0)),
        (np.concatenate, ([np.ones((2, 3)), np.ones((2, 3))], 2)),
        (np.concatenate, ([np.ones((2, 3))], -3)),
        (np.stack, ([np.ones(3), np.ones(4)], 0)),
        (np.stack, ([np.ones(3), np.ones(3)], 2)),
        (np.stack, ([np.ones(3)], -3)),
        (np.expand_dims, (np.ones(3), 2)),
        (np.expand_dims, (np.ones(3), (0, -3))),
        (np.expand_dims, (np.ones(3), (0, 3))),
    ],
)
def test_errors_are_numpys(fn, args):
    def convert(a):
        return [tg.asarray(x, chunks=2) for x in a] if isinstance(a, list) else tg.asarray(a, chunks=2)

    _, error = oracle(fn, *args)
    assert error is not None
    with pytest.raises(error_class(error)):
        getattr(tg, fn.__name__)(convert(args[0]), *args[1:])


@given(data=st.data(), n=st.integers(1, 4))
def test_flattening_concatenation(data, n):
    """``axis=None`` flattens its inputs; Python scalars among them are weak, as in NumPy."""
    parts = data.draw(st.lists(st.sampled_from(["0d", "1d", "2d", "scalar"]), min_size=n, max_size=n))
    dtype = data.draw(dtypes())
    items = []
    for p in parts:
        if p == "scalar":
            items.append(data.draw(st.sampled_from([True, 3, 2.5])))
        else:
            shape = {"0d": (), "1d": (data.draw(st.integers(0, 5)),), "2d": (data.draw(st.integers(0, 3)), 3)}[p]
            items.append(data.draw(np_arrays(dtype, shape)))
    converted = [a if isinstance(a, (bool, int, float)) else chunked(data.draw, a) for a in items]
    expected, error = oracle(np.concatenate, items, axis=None)
    assert error is None
    check(tg.concatenate(converted, axis=None), expected)


def test_numpy_and_nested_inputs_join():
    a = np.arange(6).reshape(2, 3)
    out = tg.concatenate([a, tg.asarray(a, chunks=1), [[7, 8, 9]]])
    assert_same(out.compute(), np.concatenate([a, a, [[7, 8, 9]]]))
    assert_same(tg.stack((a, a.T.T), axis=-1).compute(), np.stack([a, a], axis=-1))
    assert_same(tg.expand_dims(a, (0, -1)).compute(), np.expand_dims(a, (0, -1)))


def test_newaxis_indexing_matches_expand_dims():
    a = np.arange(12.0).reshape(3, 4)
    x = tg.asarray(a, chunks=2)
    assert tg.newaxis is None
    for key, axis in [(None, 0), ((slice(None), tg.newaxis), 1), ((Ellipsis, None), 2)]:
        assert_same(x[key].compute(), a[key], exact=True)
        assert_same(tg.expand_dims(x, axis).compute(), a[key], exact=True)
        assert x[key].chunks == tg.expand_dims(x, axis).chunks


@given(data=st.data())
def test_indexing_joined_and_elementwise_results_reads_the_inputs(data):
    """An index moved through stack/concatenate and element-wise operations gives NumPy's
    values; `stack(...)[k]` needs no task of the stack."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    y = tg.asarray(b, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    k = data.draw(st.integers(-2, 1))
    u, v = tg.stack([x, y], axis=axis), np.stack([a, b], axis=axis)
    w, ww = u ** 2 + tg.sin(u) * 3.0, v ** 2 + np.sin(v) * 3.0
    key = (slice(None),) * (axis % (len(shape) + 1)) + (k,)
    np.testing.assert_allclose(w[key].compute(), ww[key], rtol=1e-13)
    assert u[key].compute().tobytes() == v[key].tobytes()
    stacked = tg.stack([x * 2, x], axis=0)[0]  # same chunks: nothing to rechunk
    assert stacked.task_count() == (x * 2).task_count()
    i = data.draw(st.integers(0, 2 * shape[0] - 1))
    joined = tg.concatenate([x, y + 1], axis=0)[i]
    np.testing.assert_array_equal(joined.compute(), np.concatenate([a, b + 1], axis=0)[i])
