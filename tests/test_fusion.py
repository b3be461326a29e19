"""Fusion: random expression trees of element-wise operations, optionally ending in a
reduction over all axes or some of them, give the same result fused and unfused (bit for bit)
and agree with NumPy. Small shapes cover edge cases; big blocks cover programs evaluated in
many spans and tiles, with lengths that are not multiples of the evaluators' widths."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, quiet

UNARY = [
    lambda m, x: m.sqrt(m.abs(x)),
    lambda m, x: m.exp(-m.abs(x)),
    lambda m, x: m.sin(x),
    lambda m, x: m.tanh(x),
    lambda m, x: -x,
    lambda m, x: x * 2.5,
    lambda m, x: 1.0 - x,
    lambda m, x: (x * 10).astype("int32").astype("float64"),
    lambda m, x: (x > 0.5).astype("float64"),
    lambda m, x: m.where(~(x < 0), x, 0.0),
]
BINARY = [
    lambda m, x, y: x + y,
    lambda m, x, y: x - y,
    lambda m, x, y: x * y,
    lambda m, x, y: m.maximum(x, y),
    lambda m, x, y: m.where(x > y, x, y),
    lambda m, x, y: m.where((x > 0) & (y <= 0.5) | (x == y), x, y),
    lambda m, x, y: m.logical_xor(x != y, x >= 0) * y,
]
REDUCTIONS = [None, "sum", "mean", "max", "std", "prod"]
# Reductions of a comparison's bools, which read them as 0 and 1 or keep them.
BOOL_REDUCTIONS = [None, "sum", "mean", "std", "prod", "max", "any", "all"]


@st.composite
def trees(draw, leaves):
    """A nested tuple describing an expression over leaf indices."""
    depth = draw(st.integers(1, 4))

    def build(d):
        if d == 0 or draw(st.integers(0, 3)) == 0:
            return ("leaf", draw(st.integers(0, leaves - 1)))
        if draw(st.booleans()):
            return ("unary", draw(st.integers(0, len(UNARY) - 1)), build(d - 1))
        return ("binary", draw(st.integers(0, len(BINARY) - 1)), build(d - 1), build(d - 1))

    return build(depth)


def evaluate(tree, m, leaves):
    kind = tree[0]
    if kind == "leaf":
        return leaves[tree[1]]
    if kind == "unary":
        return UNARY[tree[1]](m, evaluate(tree[2], m, leaves))
    return BINARY[tree[1]](m, evaluate(tree[2], m, leaves), evaluate(tree[3], m, leaves))


def case_for(draw, shape, chunks):
    """Data, a random source seed, an expression tree and a reduction for ``shape``."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    data = [rng.standard_normal(shape) for _ in range(3)]
    compared = draw(st.booleans())
    reduction = draw(st.sampled_from(BOOL_REDUCTIONS if compared else REDUCTIONS))
    axis = draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), unique=True).map(tuple)))
    return shape, chunks, seed, data, (draw(trees(len(data) + 1 + VIEWS)), compared), reduction, axis


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=1, max_size=3)))
    chunks, _ = draw(chunkings(shape))
    return case_for(draw, shape, chunks)


@st.composite
def big_cases(draw):
    shape = draw(st.one_of(st.tuples(st.integers(0, 20000)), st.tuples(st.integers(1, 60), st.integers(1, 400))))
    chunks = tuple(draw(st.one_of(st.just(max(n, 1)), st.integers(1, max(n, 1)))) for n in shape)
    return case_for(draw, shape, chunks)


@settings(max_examples=150, deadline=None)
@given(cases())
def test_fused_equals_unfused_and_numpy(case):
    check(case)


@settings(max_examples=40, deadline=None)
@given(big_cases())
def test_fused_equals_unfused_and_numpy_on_big_blocks(case):
    check(case)


# Leaves that are views of stored blocks (transposed, reversed, broadcast), which a fused
# program reads through their strides.
VIEWS = 3


def views(data, chunks):
    """``(tegula leaves, NumPy leaves)`` of equal values: data[0] transposed twice (a
    transposed view of a block stored the other way round), data[1] reversed along every axis
    and the last column of data[2], which broadcasts along the last axis."""
    d0, d1, d2 = data
    blocks = tg.asarray(d0, chunks=chunks).chunks
    flipped = (slice(None, None, -1),) * d1.ndim
    column = np.ascontiguousarray(d2[..., -1:]) if d2.shape[-1] else d2
    tg_views = [
        tg.asarray(np.ascontiguousarray(d0.T), chunks=blocks[::-1]).T,
        tg.asarray(d1, chunks=blocks)[flipped],
        tg.asarray(column, chunks=blocks[:-1] + ((column.shape[-1],),)),
    ]
    return tg_views, [d0, d1[flipped], column]


def check(case):
    shape, chunks, seed, data, (tree, compared), reduction, axis = case
    source = tg.random.default_rng(seed).standard_normal(shape, chunks=chunks)
    tg_views, np_views = views(data, chunks)
    leaves = [tg.asarray(d, chunks=chunks) for d in data] + [source] + tg_views
    expr = evaluate(tree, tg, leaves)
    with quiet():
        expected = evaluate(tree, np, data + [source.compute()] + np_views)
    if compared:
        expr, expected = expr > 0.25, expected > 0.25
    if reduction:
        try:
            with quiet():
                expected = getattr(expected, reduction)(axis=axis)
        except ValueError:  # the maximum of nothing
            with pytest.raises(ValueError):
                getattr(expr, reduction)(axis=axis).compute()
            return
        expr = getattr(expr, reduction)(axis=axis)
    fused = expr.compute()
    unfused = expr.compute(fuse=False)
    np.testing.assert_array_equal(fused, unfused)
    assert fused.dtype == unfused.dtype
    assert fused.dtype == expected.dtype
    np.testing.assert_allclose(fused, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_fusion_shows_in_the_plan():
    x = tg.asarray(np.arange(100.0), chunks=10)
    plan = ((x + 1) * 2).sum().explain()
    assert "fused" in plan
    assert "add,multiply" in plan


def test_shared_random_sources_are_generated_in_each_consumer():
    """Random numbers read by a few fusable consumers are generated inside each of them (the
    same values: they depend on the position only), so none of them is ever stored."""
    rng = tg.random.default_rng(11)
    u, v = rng.random(300_000, chunks=30_000), rng.standard_normal(300_000, chunks=30_000)
    outs = [(u * v).mean(), u.mean(), v.std(), (u ** 2 + v).sum()]
    fused, report = tg.compute(*outs, report=True)
    unfused = tg.compute(*outs, fuse=False)
    assert [f.tobytes() for f in fused] == [x.tobytes() for x in unfused]
    assert report["peak_bytes"] < 30_000 * 8  # less than one block of u: only partials held
    assert "random" in outs[0].explain().split("fused[")[1]
