"""push (bottleneck's forward fill, which xarray's ffill and bfill run) against a loop over each
lane: random shapes, chunkings, NaN densities, axes and limits; values carried across many
blocks, blocks of NaNs only, and dtypes without NaN."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula._push import push
from strategies import assert_same, chunkings, shapes


def filled_by_loop(a, n, axis):
    """Each NaN takes the last non-NaN value before it in its lane, at most ``n`` back."""
    out = np.moveaxis(a.copy(), axis, -1)
    for lane in np.ndindex(out.shape[:-1]):
        last, at = None, None
        for i in range(out.shape[-1]):
            if not np.isnan(out[lane + (i,)]):
                last, at = out[lane + (i,)], i
            elif at is not None and (n is None or i - at <= n):
                out[lane + (i,)] = last
    return np.moveaxis(out, -1, axis)


@settings(max_examples=60)
@given(shape=shapes(1, 3, 0, 9), data=st.data(), dtype=st.sampled_from(["float32", "float64", "complex64"]))
def test_push_matches_a_loop(shape, data, dtype):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    a = rng.normal(size=shape).astype(dtype)
    a[rng.random(shape) < data.draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))] = np.nan
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(0, shape[axis] + 1)))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    expected = filled_by_loop(a, n, axis)
    assert_same(push(x, n, axis).compute(), expected, exact=True)
    # backward, as xarray's bfill: the flipped array pushed and flipped back
    back = np.flip(push(np.flip(x, axis), n, axis), axis)
    assert_same(back.compute(), np.flip(filled_by_loop(np.flip(a, axis), n, axis), axis), exact=True)


def test_values_cross_many_blocks_and_blocks_of_nan():
    a = np.full(40, np.nan)
    a[[1, 17]] = [5.0, 7.0]
    x = tg.asarray(a, chunks=3)
    assert_same(push(x).compute(), filled_by_loop(a, None, 0), exact=True)
    assert_same(push(x, 4).compute(), filled_by_loop(a, 4, 0), exact=True)
    assert_same(push(x, 0).compute(), a, exact=True)


def test_dtypes_without_nan_and_errors():
    ints = tg.asarray(np.arange(6), chunks=4)
    assert push(ints) is ints
    assert push(tg.asarray(np.array([True, False]))).dtype == bool
    with pytest.raises(ValueError, match="nonnegative"):
        push(tg.asarray(np.ones(3)), -1)
    with pytest.raises(np.exceptions.AxisError):
        push(tg.asarray(np.ones(3)), axis=1)


def test_push_is_planned_in_rust_without_a_python_call_per_block():
    """The fill is the core's forward_fill scan: no map_blocks node (a Python call per block)."""
    a = np.where(np.arange(24) % 5 == 0, 1.0, np.nan).reshape(4, 6)
    plan = push(tg.asarray(a, chunks=(2, 2)), None, 1).explain()
    assert "forward_fill(axis=1)" in plan
    assert "map_blocks" not in plan and "push" not in plan
