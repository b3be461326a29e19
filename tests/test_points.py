"""Point-wise indexing by known coordinates (``x[rows, cols]`` with NumPy index arrays,
``x.vindex``, xarray's vectorised ``sel``/``isel``) against NumPy, and the blocks it reads:
only those holding a point."""

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, dtypes, np_arrays, shapes


@st.composite
def point_key(draw, shape):
    """A key with known index arrays on two or more axes (broadcasting shapes, negative and
    repeated coordinates, ints among them), slices on the others."""
    indexed = sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=2)))
    points = draw(st.sampled_from([(1,), (3,), (2, 3), (4, 1)]))
    key = []
    for axis, n in enumerate(shape):
        if axis not in indexed:
            key.append(slice(None))
        elif draw(st.integers(0, 5)) == 0:
            key.append(draw(st.integers(-n, n - 1)))
        else:
            lengths = points if draw(st.booleans()) else points[-1:]
            size = int(np.prod(lengths))
            values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size))
            kinds = [np.int64, np.int32] + ([np.uint8] if min(values) >= 0 else [])
            key.append(np.array(values, dtype=draw(st.sampled_from(kinds))).reshape(lengths))
    return tuple(key)


@settings(max_examples=80)
@given(shape=shapes(2, 4, 1, 7), data=st.data())
def test_points_match_numpy(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes()), shape))
    spec, _ = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    key = data.draw(point_key(shape))
    out = x[key]
    assert out.shape == a[key].shape
    np.testing.assert_array_equal(out.compute(), a[key])


def test_many_scattered_points_match_numpy():
    # Every block holds points of every output block: flattened and gathered instead.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 8, 8))
    x = tg.asarray(a, chunks=(1, 1, 2))
    rows, cols = rng.integers(0, 8, 640), rng.integers(-8, 8, 640)
    np.testing.assert_array_equal(x[rows, cols].compute(), a[rows, cols])
    np.testing.assert_array_equal(x[rows[:3], :, cols[:3]].compute(), a[rows[:3], :, cols[:3]])


def source_tasks(plan):
    """The number of tasks of the plan's first line (the source)."""
    return int(re.search(r"tasks=(\d+)", plan.splitlines()[0]).group(1))


def test_only_the_blocks_holding_points_are_read(tmp_path):
    a = np.arange(6 * 40 * 30, dtype=np.float32).reshape(6, 40, 30)
    tg.asarray(a, chunks=(2, 10, 10)).to_zarr(str(tmp_path / "a.zarr"))
    x = tg.from_zarr(str(tmp_path / "a.zarr"), chunks=(2, 10, 10))
    lat, lon = np.array([3, 35, 4, 36]), np.array([1, 29, 2, 28])
    out = x[:, lat, lon]
    # Two blocks along lat and lon hold the four points, three along time: 6 of 36 blocks.
    assert source_tasks(out.explain()) == 6
    assert "transpose" not in out.explain() and "rechunk" not in out.explain()
    np.testing.assert_array_equal(out.compute(), a[:, lat, lon])
    np.testing.assert_array_equal(x.vindex[:, lat, lon].compute(), np.moveaxis(a[:, lat, lon], 1, 0))


def test_coordinates_outside_are_numpys_index_error():
    x = tg.asarray(np.zeros((4, 5)), chunks=2)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
        x[[0, 1], [1, 5]]
    with pytest.raises(IndexError, match="out of bounds"):
        x[[-5, 1], [1, 2]]
    with pytest.raises(IndexError, match="shape mismatch"):
        x[[0, 1], [1, 2, 3]]


def test_xarray_vectorised_sel_and_isel_read_only_the_points_blocks():
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(1)
    tas = rng.standard_normal((20, 18, 36)).astype(np.float32)
    ds = xr.Dataset({"tas": (("time", "lat", "lon"), tas)},
                    coords={"lat": np.linspace(-85, 85, 18), "lon": np.arange(0, 360, 10.0)})
    lazy = ds.chunk({"time": 5, "lat": 6, "lon": 12}, chunked_array_type="tegula")
    lat = xr.DataArray([-40.2, 10.0, 80.1], dims="pts")
    lon = xr.DataArray([5.0, 200.0, 359.0], dims="pts")
    sel = lazy.tas.sel(lat=lat, lon=lon, method="nearest")
    assert isinstance(sel.data, tg.Array)
    xr.testing.assert_equal(sel.compute(), ds.tas.sel(lat=lat, lon=lon, method="nearest"))
    rows = xr.DataArray([[0, 17], [9, 3]], dims=("a", "b"))
    cols = xr.DataArray([[35, 0], [12, 12]], dims=("a", "b"))
    isel = lazy.tas.isel(lat=rows, lon=cols)
    xr.testing.assert_equal(isel.compute(), ds.tas.isel(lat=rows, lon=cols))
