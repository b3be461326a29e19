"""The functions added for dask.array users, called through NumPy (and through the array
namespace xarray takes from an array) on tegula arrays: NumPy's dispatch finds tegula's, which
stays lazy and equals NumPy's own result."""

import numpy as np
import pytest

import tegula as tg

A = np.arange(12.0).reshape(3, 4) * np.array([1.0, -1.0, 0.5, 2.0]) - 4.5

CALLS = {
    "partition": lambda m, x: m.partition(x, 2, axis=1),
    "argpartition": lambda m, x: m.take_along_axis(x, m.argpartition(x, 1, axis=0), axis=0),
    "compress": lambda m, x: m.compress([True, False, True], x, axis=0),
    "choose": lambda m, x: m.choose(m.argmax(x, axis=0), [x[0], x[1], 2 * x[2]]),
    "sliding_window_view": lambda m, x: m.lib.stride_tricks.sliding_window_view(x, 3, axis=1),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_calls_build_tegula_expressions(name):
    out = CALLS[name](np, tg.asarray(A, chunks=2))
    assert isinstance(out, tg.Array)
    expected = CALLS[name](np, A)
    np.testing.assert_array_equal(out.compute(), expected)
    assert out.dtype == np.asarray(expected).dtype


def test_array_namespace_has_sliding_window_view():
    x = tg.asarray(A, chunks=2)
    xp = x.__array_namespace__()
    np.testing.assert_array_equal(xp.lib.stride_tricks.sliding_window_view(x, (2, 2)).compute(),
                                  np.lib.stride_tricks.sliding_window_view(A, (2, 2)))


def test_np_put_rebinds_the_tegula_array():
    x = tg.asarray(A, chunks=2)
    assert np.put(x, [0, 5], [100.0, 200.0]) is None
    expected = A.copy()
    np.put(expected, [0, 5], [100.0, 200.0])
    np.testing.assert_array_equal(x.compute(), expected)


def test_xarray_rolling_windows_stay_lazy():
    xr = pytest.importorskip("xarray")
    eager = xr.DataArray(A, dims=("y", "x"))
    lazy = eager.chunk({"x": 2}, chunked_array_type="tegula")
    windows = lazy.rolling(x=3).construct("window")
    assert isinstance(windows.data, tg.Array)
    np.testing.assert_array_equal(windows.values, eager.rolling(x=3).construct("window").values)
    means = lazy.rolling(x=3).mean()
    assert isinstance(means.data, tg.Array)
    np.testing.assert_allclose(means.values, eager.rolling(x=3).mean().values, rtol=1e-12)
