"""xarray on tegula: the chunk manager registered as ``chunked_array_type="tegula"``. xarray's
own example workflow (open a Zarr store, select, compute arithmetic and reductions, write the
result) runs on tegula arrays and is compared, value by value, with the same workflow on
NumPy-backed xarray."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import assert_lazy, assert_matches, split

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")

pytestmark = pytest.mark.filterwarnings(
    "ignore:Consolidated metadata:UserWarning",  # zarr-python on xarray's default consolidation
    "ignore:The specified chunks separate the stored chunks:UserWarning",
)


def example_dataset(rng, t, y, x):
    """A Dataset as in xarray's examples: float and integer variables on time/lat/lon, NaNs in a
    float variable, coordinates with labels, attributes."""
    temperature = rng.normal(15, 5, (t, y, x)).astype("float32")
    temperature[rng.random(temperature.shape) < 0.1] = np.nan
    return xr.Dataset(
        {
            "temperature": (("time", "lat", "lon"), temperature, {"units": "degC"}),
            "precip": (("time", "lat", "lon"), rng.gamma(2.0, 1.0, (t, y, x))),
            "count": (("time", "lat", "lon"), rng.integers(0, 100, (t, y, x)).astype("int32")),
            "elevation": (("lat", "lon"), rng.normal(500, 100, (y, x))),
        },
        coords={
            "time": pd.date_range("2000-01-01", periods=t),
            "lat": np.linspace(-30.0, 30.0, y),
            "lon": np.arange(x) * 10.0,
        },
        attrs={"title": "example"},
    )


def workflow(ds):
    """Selection, arithmetic (between variables, with scalars, broadcast) and reductions."""
    s = ds.isel(time=slice(1, None)).sel(lat=slice(-20.0, 30.0))
    out = xr.Dataset(attrs=ds.attrs)
    out["anomaly"] = s.temperature - s.temperature.mean("time")
    out["ratio"] = s.precip / (s["count"] + 1) * 2.0
    out["above_ground"] = s.temperature * 100 + ds.elevation.sel(lat=slice(-20.0, 30.0))
    out["t_mean"] = s.temperature.mean("time")
    out["t_sum"] = s.temperature.sum(("lat", "lon"))
    out["t_std"] = s.temperature.std("time")
    out["t_max"] = s.temperature.max("lon")
    out["t_max_nan"] = s.temperature.max("lon", skipna=False)
    out["t_min_all"] = s.temperature.min()
    out["p_var"] = s.precip.var("lat", ddof=1)
    out["c_max"] = s["count"].max("time")
    out["c_mean"] = s["count"].mean(("time", "lon"))
    out["c_sum"] = s["count"].sum()
    out["at_label"] = ds.precip.sel(lon=ds.lon.values[-1])
    out["masked"] = s.precip.where(s.precip > 2.0)
    out["rounded"] = s.precip.round(1)
    out["clipped"] = s.temperature.clip(10.0, 20.0)
    return out


sizes = st.tuples(st.integers(2, 9), st.integers(3, 8), st.integers(2, 7))


@settings(max_examples=8)
@given(sizes=sizes, stored=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)),
       chunks=st.sampled_from([{}, "auto", {"time": 3}, {"time": -1, "lat": 2, "lon": 3}]),
       seed=st.integers(0, 2**16))
def test_open_zarr_workflow_matches_numpy(tmp_path_factory, sizes, stored, chunks, seed):
    path = str(tmp_path_factory.mktemp("xr") / "in.zarr")
    ds = example_dataset(np.random.default_rng(seed), *sizes)
    ds.to_zarr(path, encoding={v: {"chunks": stored[-ds[v].ndim:]} for v in ds.data_vars})

    lazy = xr.open_zarr(path, chunked_array_type="tegula", chunks=chunks)
    assert_lazy(lazy)
    if chunks == {}:  # the stored chunks
        assert lazy.temperature.data.chunksize == tuple(min(c, n) for c, n in zip(stored, sizes))
    expected = workflow(xr.open_zarr(path, chunks=None).load())
    result = workflow(lazy)
    assert_lazy(result)
    assert_matches(result.compute(), expected)
    assert_lazy(result)  # compute() returns a new Dataset

    out = str(tmp_path_factory.mktemp("xr") / "out.zarr")
    result.chunk({"time": 2, "lat": 3, "lon": 2}, chunked_array_type="tegula").to_zarr(out)
    assert_matches(xr.open_zarr(out, chunks=None).load(), expected)


@settings(max_examples=8)
@given(sizes=sizes, chunks=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)),
       seed=st.integers(0, 2**16))
def test_chunk_in_memory_dataset(sizes, chunks, seed):
    ds = example_dataset(np.random.default_rng(seed), *sizes)
    lazy = ds.chunk(dict(zip(("time", "lat", "lon"), chunks)), chunked_array_type="tegula")
    assert_lazy(lazy)
    assert lazy.temperature.data.chunksize == tuple(min(c, n) for c, n in zip(chunks, sizes))
    assert lazy.elevation.data.chunks == (split(sizes[1], chunks[1]), split(sizes[2], chunks[2]))
    assert_matches(workflow(lazy).compute(), workflow(ds))
    rechunked = lazy.chunk({"time": -1}, chunked_array_type="tegula")
    assert rechunked.temperature.data.chunks[0] == (sizes[0],)
    assert rechunked.temperature.data.chunks[1:] == lazy.temperature.data.chunks[1:]


def test_only_tegulas_chunk_manager_recognises_tegula_arrays():
    # xarray takes any duck array that is a Dask collection for a Dask array (its Dask chunk
    # manager and indexing adapter), so tegula arrays must not be Dask collections.
    from xarray.namedarray.parallelcompat import get_chunked_array_type

    x = tg.asarray(np.arange(12.0).reshape(3, 4), chunks=2)
    assert type(get_chunked_array_type(x)).__module__ == "tegula._xarray"


def test_compute_persist_load_and_values(tmp_path):
    ds = example_dataset(np.random.default_rng(1), 6, 5, 4)
    lazy = ds.chunk({"time": 2}, chunked_array_type="tegula")
    persisted = (lazy.precip * 2).persist()
    assert isinstance(persisted.data, tg.Array)
    np.testing.assert_array_equal(persisted.values, ds.precip.values * 2)
    mean = lazy.temperature.mean("time")
    np.testing.assert_allclose(mean.values, ds.temperature.mean("time").values, rtol=1e-5)
    assert isinstance(mean.data, tg.Array)  # .values computes a copy, the array stays lazy
    loaded = mean.load()
    assert isinstance(loaded.data, np.ndarray)


def test_to_zarr_region_and_append(tmp_path):
    ds = example_dataset(np.random.default_rng(2), 8, 4, 3)
    path = str(tmp_path / "r.zarr")
    lazy = ds.chunk({"time": 2}, chunked_array_type="tegula")
    lazy.isel(time=slice(0, 4)).to_zarr(path)
    lazy.isel(time=slice(4, 8)).to_zarr(path, append_dim="time")
    xr.testing.assert_identical(xr.open_zarr(path, chunks=None).load(), ds)
    doubled = (lazy.drop_vars("elevation") * 2).isel(time=slice(2, 6))
    doubled.drop_vars(["lat", "lon"]).to_zarr(path, region={"time": slice(2, 6)})
    expected = ds.copy(deep=True)
    for name in ("temperature", "precip", "count"):
        expected[name][2:6] = ds[name][2:6] * 2
    xr.testing.assert_identical(xr.open_zarr(path, chunks=None).load(), expected)


def test_store_is_bounded_by_the_memory_budget(tmp_path, monkeypatch):
    """With a small budget, the writes are many computations of chunk-aligned slabs, each
    within a quarter of the budget."""
    zarr = pytest.importorskip("zarr")
    from tegula import _xarray_store
    from tegula._xarray import TegulaChunkManager

    values = np.arange(400.0)[:, None, None] * 10000 + np.arange(5000.0).reshape(100, 50) + 1
    target = zarr.create_array(str(tmp_path / "t.zarr"), shape=(410, 100, 50), chunks=(3, 7, 50), dtype="f8")
    # generated, in blocks of (40, 20, 50): no input is held whole
    source = (tg.arange(400.0, chunks=40)[:, None, None] * 10000 + tg.arange(100.0, chunks=20)[:, None] * 50
              + tg.arange(50.0) + 1)
    calls = []
    real_compute = tg.compute

    def spy(*arrays, **kwargs):
        calls.append(sum(a.nbytes for a in arrays))
        return real_compute(*arrays, **kwargs)

    monkeypatch.setattr(_xarray_store, "compute", spy)
    budget = 8 * 2**20  # the source's bytes (400 * 100 * 50 * 8) are about 4 times its quarter
    with tg.config.set(memory=budget):
        TegulaChunkManager().store([source], [target], regions=[(slice(5, 405),)])
    assert len(calls) >= 4 and max(calls) <= budget // 4
    np.testing.assert_array_equal(target[5:405], values)
    np.testing.assert_array_equal(target[:5], 0)


@settings(max_examples=50)
@given(shape=st.lists(st.integers(0, 40), min_size=1, max_size=3),
       limit=st.integers(8, 4000), previous=st.integers(1, 7), data=st.data())
def test_normalize_chunks_auto(shape, limit, previous, data):
    from tegula._xarray import TegulaChunkManager

    specs = data.draw(st.lists(st.sampled_from(["auto", -1, None, 3]), min_size=len(shape), max_size=len(shape)))
    chunks = TegulaChunkManager().normalize_chunks(tuple(specs), tuple(shape), limit=limit, dtype="f8",
                                                   previous_chunks=(previous,) * len(shape))
    for c, n, spec in zip(chunks, shape, specs):
        assert sum(c) == n and all(b > 0 for b in c[:-1])
        if spec in (-1, None):
            assert c == (n,)
        if spec == "auto" and c[0] < n:
            assert c[0] % previous == 0  # whole stored chunks
    if all(s == "auto" for s in specs) and all(c[0] > previous for c in chunks if len(c) > 1):
        assert 8 * np.prod([max(c) for c in chunks]) <= limit


def test_normalize_chunks_explicit():
    from tegula._xarray import TegulaChunkManager

    cm = TegulaChunkManager()
    assert cm.normalize_chunks((4, (2, 3), -1), (10, 5, 3)) == ((4, 4, 2), (2, 3), (3,))
    assert cm.normalize_chunks({0: 6}, (10, 5)) == ((6, 4), (5,))
    with pytest.raises(ValueError, match="add up"):
        cm.normalize_chunks(((2, 2),), (5,))


def test_unify_chunks():
    a = xr.DataArray(np.arange(24.0).reshape(6, 4), dims=("x", "y")).chunk({"x": 4}, chunked_array_type="tegula")
    b = xr.DataArray(np.arange(6.0), dims="x").chunk({"x": 3}, chunked_array_type="tegula")
    ua, ub = xr.unify_chunks(a, b)
    assert ua.data.chunks[0] == ub.data.chunks[0] == (3, 1, 2)
    np.testing.assert_array_equal(ua.values, a.values)
    np.testing.assert_array_equal(ub.values, b.values)


def test_zeros_like_and_cumsum_stay_lazy():
    ds = example_dataset(np.random.default_rng(4), 5, 3, 4)
    lazy = ds.chunk({"time": 2}, chunked_array_type="tegula")
    zeros = xr.zeros_like(lazy.precip)
    assert isinstance(zeros.data, tg.Array)
    np.testing.assert_array_equal(zeros.values, np.zeros_like(ds.precip.values))
    cum = lazy.precip.cumsum("time")
    assert isinstance(cum.data, tg.Array)
    np.testing.assert_allclose(cum.values, ds.precip.cumsum("time").values)


def test_block_functions_run_on_tegula():
    ds = example_dataset(np.random.default_rng(5), 6, 5, 4)
    lazy = ds.chunk({"time": 2, "lat": 3}, chunked_array_type="tegula")
    sines = xr.apply_ufunc(np.sin, lazy.precip, dask="parallelized", output_dtypes=[float])
    assert isinstance(sines.data, tg.Array)
    np.testing.assert_array_equal(sines.values, np.sin(ds.precip.values))
    # A core dimension: the time series of every point reduced by a NumPy function.
    spread = xr.apply_ufunc(lambda v: np.ptp(v, axis=-1), lazy.precip.chunk({"time": -1}, chunked_array_type="tegula"),
                            input_core_dims=[["time"]], dask="parallelized", output_dtypes=[float])
    assert isinstance(spread.data, tg.Array)
    np.testing.assert_allclose(spread.values, np.ptp(ds.precip.values, axis=0))
    mapped = xr.map_blocks(lambda block: block * 2 + 1, lazy.precip)
    np.testing.assert_allclose(mapped.values, ds.precip.values * 2 + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        decoded = xr.decode_cf(lazy.assign(precip=lazy.precip.assign_attrs(scale_factor=2.0)))
        expected = xr.decode_cf(ds.assign(precip=ds.precip.assign_attrs(scale_factor=2.0)))
    np.testing.assert_allclose(decoded.precip.values, expected.precip.values)


def test_deep_copy_sortby_and_groupby_first():
    ds = example_dataset(np.random.default_rng(6), 6, 5, 4)
    lazy = ds.chunk({"time": 4}, chunked_array_type="tegula")
    copied = lazy.copy(deep=True)
    assert_lazy(copied)
    assert_matches(copied.compute(), ds)
    sorted_ = lazy.sortby("lat", ascending=False)
    assert_lazy(sorted_)
    assert_matches(sorted_.compute(), ds.sortby("lat", ascending=False))
    first = lazy.temperature.groupby("lat").first()  # the chunk manager's reduction
    assert isinstance(first.data, tg.Array)
    xr.testing.assert_allclose(first.compute(), ds.temperature.groupby("lat").first())


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), time_chunk=st.integers(1, 6), bool_weights=st.booleans())
def test_weighted_mean_matches_numpy(seed, time_chunk, bool_weights):
    """xarray's weighted reductions go through einsum with the weights' dtype: bool weights (a
    mask) once made the sum of weights a logical or, 360 times off on a year of days."""
    rng = np.random.default_rng(seed)
    ds = example_dataset(rng, 6, 4, 5)
    weights = xr.DataArray(rng.random(4) < 0.6 if bool_weights else rng.random(4), dims="lat")
    weights[0] = True if bool_weights else weights[0]
    lazy = ds.chunk({"time": time_chunk}, chunked_array_type="tegula")
    for dims in ("lat", ("time", "lat"), ("time", "lat", "lon")):
        got = lazy.precip.weighted(weights).mean(dims)
        assert isinstance(got.data, tg.Array)
        want = ds.precip.weighted(weights).mean(dims)
        np.testing.assert_allclose(got.compute().values, want.values, rtol=1e-12)
        got_sum = lazy.temperature.weighted(weights).sum_of_weights(dims)
        want_sum = ds.temperature.weighted(weights).sum_of_weights(dims).values
        np.testing.assert_allclose(got_sum.compute().values, want_sum, rtol=1e-12)
