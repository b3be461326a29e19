"""``tegula.lib.stride_tricks.sliding_window_view`` against NumPy's, on random shapes,
chunkings (windows crossing block boundaries), dtypes, windows and axes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula.lib.stride_tricks import sliding_window_view
from strategies import assert_same, chunkings, dtypes, np_arrays, quiet, shapes


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_sliding_window_view_matches_numpy(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes()), shape))
    spec, _ = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    if data.draw(st.booleans()):
        axis = None
        window = tuple(data.draw(st.integers(0, n)) for n in shape)
    else:
        axis = tuple(data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2)))
        window = tuple(data.draw(st.integers(0, shape[a] // len(axis))) for a in axis)
        if len(axis) == 1 and data.draw(st.booleans()):
            axis, window = axis[0], window[0]  # ints, as NumPy also takes them
    expected = np.lib.stride_tricks.sliding_window_view(a, window, axis=axis)
    out = sliding_window_view(x, window, axis=axis)
    assert isinstance(out, tg.Array) and out.shape == expected.shape and out.dtype == a.dtype
    np.testing.assert_array_equal(out.compute(), expected)


def test_windows_keep_the_input_blocks_and_reduce_like_rolling():
    a = np.arange(40.0).reshape(4, 10)
    x = tg.asarray(a, chunks=(2, 3))
    out = tg.lib.stride_tricks.sliding_window_view(x, 4, axis=1)
    assert out.chunks == ((2, 2), (3, 3, 1), (4,))
    np.testing.assert_array_equal(out.mean(axis=-1).compute(),
                                  np.lib.stride_tricks.sliding_window_view(a, 4, axis=1).mean(axis=-1))


@settings(max_examples=80)
@given(shape=shapes(1, 3, 1, 8), data=st.data())
def test_reductions_over_the_window_axis_match_numpy(shape, data):
    """A reduction over the window axis is planned as a moving reduction (the windows are never
    built); its values, dtype and shape are NumPy's over the strided view."""
    op = data.draw(st.sampled_from(["sum", "prod", "mean", "min", "max", "any", "all"]))
    dtype = data.draw(dtypes())
    exact = op in ("sum", "prod", "mean")  # small whole numbers: any order of adding is exact
    a = data.draw(np_arrays(dtype, shape, integral=exact, small=exact))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    window = data.draw(st.integers(1, shape[axis]))
    keepdims = data.draw(st.booleans())
    windows = sliding_window_view(tg.asarray(a, chunks=spec), window, axis=axis)
    out = getattr(windows, op)(axis=-1, keepdims=keepdims)
    assert "sliding_window_view" not in out.explain()
    with quiet():
        expected = getattr(np.lib.stride_tricks.sliding_window_view(a, window, axis=axis), op)(axis=-1, keepdims=keepdims)
    assert_same(out.compute(), expected)


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_window_sums_with_a_dtype_and_long_windows_match_numpy(dtype):
    a = (np.arange(600) % 7 - 3).astype(dtype).reshape(300, 2)
    x = tg.asarray(a, chunks=(7, 1))
    view = np.lib.stride_tricks.sliding_window_view(a, 200, axis=0)
    windows = sliding_window_view(x, 200, axis=0)
    assert_same(windows.sum(axis=-1).compute(), view.sum(axis=-1))
    assert_same(windows.sum(axis=-1, dtype="float64").compute(), view.sum(axis=-1, dtype="float64"))
    assert_same(windows.mean(axis=-1).compute(), view.mean(axis=-1))


def test_other_reductions_over_windows_build_them():
    a = np.random.default_rng(1).standard_normal((30, 4))
    windows = sliding_window_view(tg.asarray(a, chunks=(7, 3)), 5, axis=0)
    out = windows.std(axis=-1)
    assert "sliding_window_view" in out.explain()
    assert_same(out.compute(), np.lib.stride_tricks.sliding_window_view(a, 5, axis=0).std(axis=-1))


@pytest.mark.parametrize("window, axis", [((2,), None), ((-1, 1), None), (6, 0), ((1, 1), 0), (1, 2), (6, (1, 1))])
def test_sliding_window_view_errors_match_numpy(window, axis):
    a = np.arange(20).reshape(4, 5)
    with pytest.raises(Exception) as expected:
        np.lib.stride_tricks.sliding_window_view(a, window, axis=axis)
    with pytest.raises(type(expected.value)):
        sliding_window_view(tg.asarray(a, chunks=2), window, axis=axis)


def test_writeable_windows_are_refused():
    with pytest.raises(ValueError):
        sliding_window_view(tg.arange(5), 2, writeable=True)
