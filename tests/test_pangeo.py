"""The Pangeo steps on tegula: a daily climate-like dataset in a Zarr v3 store (zstd), opened
with ``xr.open_zarr(path, chunked_array_type="tegula")``, goes through the usual analysis
steps (reductions with NaNs, climatologies and anomalies, resampling, coarsening, area
weighting, quantiles, fits, indexing, interpolation, gap filling, rolling windows, block
functions, writing Zarr), each compared with the same step on the NumPy-backed dataset. Every
result must still be a lazy tegula array before ``.compute()`` and equal NumPy's within float32
tolerance, with xarray's flox path and without it (flox is a test requirement, not optional)."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import zarr

import flox  # noqa: F401 - every step runs with and without flox, so flox must be installed
import scipy.optimize  # noqa: F401 - curvefit's fitting

import tegula as tg
from strategies import assert_lazy, assert_matches

pytestmark = pytest.mark.filterwarnings(
    "ignore::RuntimeWarning",  # NumPy's all-NaN slices and empty means (the masked pixel)
    "ignore:Consolidated metadata:UserWarning",
)

TIME = pd.date_range("2000-01-01", "2001-12-31", freq="D")  # two years, one of them leap
LAT = np.linspace(-85.0, 85.0, 18)
LON = np.arange(36) * 10.0
STORED = {"time": 73, "lat": 9, "lon": 18}  # 731 days: ten chunks of 73 and one of a day
TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}  # float32's, for values of order 10 (degC, mm/day)


def climate(rng):
    """Temperature (a seasonal cycle by latitude, a trend, noise) and precipitation (gamma), as
    float32, with NaNs sprinkled in, a run of missing days crossing a stored chunk boundary and
    one pixel missing throughout (a masked point)."""
    days = np.arange(len(TIME))
    season = np.cos(2 * np.pi * (days - 200) / 365.25)[:, None, None]
    lat = LAT[None, :, None]
    tas = (30 * np.cos(np.deg2rad(lat)) - 10 + 12 * season * np.sin(np.deg2rad(lat)) + 0.004 * days[:, None, None]
           + rng.normal(0, 2, (len(TIME), len(LAT), len(LON))))
    pr = rng.gamma(2.0, 1.5, tas.shape) * (1 + 0.5 * season)
    out = {}
    for name, values in (("tas", tas), ("pr", pr)):
        values = values.astype("float32")
        values[rng.random(values.shape) < 0.03] = np.nan
        values[68:80, 2:5, 7:9] = np.nan  # across the chunk boundary at day 73
        values[:, 3, 4] = np.nan
        out[name] = (("time", "lat", "lon"), values, {"units": "degC" if name == "tas" else "mm/day"})
    return xr.Dataset(out, coords={"time": TIME, "lat": ("lat", LAT, {"units": "degrees_north"}),
                                   "lon": ("lon", LON, {"units": "degrees_east"})},
                      attrs={"title": "climate-like test data"})


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("pangeo") / "climate.zarr")
    ds = climate(np.random.default_rng(2000))
    encoding = {v: {"chunks": tuple(STORED[d] for d in ds[v].dims), "compressors": [zarr.codecs.ZstdCodec(level=3)]}
                for v in ds.data_vars}
    ds.to_zarr(path, encoding=encoding, zarr_format=3, consolidated=False)
    return path


@pytest.fixture(scope="module")
def datasets(store):
    """The store opened lazily on tegula, and read whole into NumPy."""
    lazy = xr.open_zarr(store, chunked_array_type="tegula", consolidated=False)
    loaded = xr.open_zarr(store, chunks=None, consolidated=False).load()
    return lazy, loaded


@pytest.fixture(params=[True, False], ids=["flox", "without-flox"])
def flox_option(request):
    with xr.set_options(use_flox=request.param):
        yield request.param


def test_the_store_is_zarr_v3_with_zstd_and_opens_lazily(store, datasets):
    array = zarr.open_array(store, path="tas")
    assert array.metadata.zarr_format == 3
    assert [type(c).__name__ for c in array.compressors] == ["ZstdCodec"]
    lazy, loaded = datasets
    assert_lazy(lazy)
    assert lazy.tas.data.chunks == ((73,) * 10 + (1,), (9, 9), (18, 18))
    assert lazy.time.dtype == np.dtype("datetime64[ns]") and isinstance(lazy.time.data, np.ndarray)
    assert_matches(lazy.compute(), loaded, **TOLERANCE)


# --- the steps ---------------------------------------------------------------------------------


def chunked(ds):
    return bool(ds.chunks)


def seasonal_cycle(t, mean, amplitude):
    return mean + amplitude * np.cos(2 * np.pi * (t - 200) / 365.25)


def curvefit(ds):
    """A seasonal cycle fitted to every pixel of a corner (its mean and amplitude, in data
    units; the covariances, of order 1e-3, are left out): curvefit's core dimension must be
    one block on a chunked array (with Dask as with tegula), and ``chunk(time=-1)`` needs no
    chunk manager named."""
    corner = ds.isel(lat=slice(0, 3), lon=slice(0, 2)).assign_coords(day=("time", np.arange(len(TIME), dtype=float)))
    corner = corner.chunk(time=-1) if chunked(corner) else corner
    return corner.curvefit(corner.day, seasonal_cycle, reduce_dims="time").drop_vars(
        ["tas_curvefit_covariance", "pr_curvefit_covariance"])


def filled(ds, how, limit=None):
    """NumPy's side of ffill and bfill: pandas' filling along time (xarray's own runs
    bottleneck or numbagg, neither of which the tests install)."""
    def fill(v):
        values = v.values.reshape(len(TIME), -1)
        return v.copy(data=getattr(pd.DataFrame(values), how)(limit=limit).to_numpy().reshape(v.shape))

    return ds.map(fill, keep_attrs=True)


NEW_LAT = np.linspace(-80.0, 80.0, 7)
NEW_TIME = pd.date_range("2000-01-01T12:00", periods=20, freq="37D")
POINTS = xr.DataArray([0, 3, 7, 17], dims="station")
LON_POINTS = xr.DataArray([1, 20, 35, 4], dims="station")
LAT_LABELS = xr.DataArray(LAT[[0, 3, 7, 17]], dims="station")
LON_LABELS = xr.DataArray(LON[[1, 20, 35, 4]], dims="station")
TIME_LABELS = xr.DataArray(TIME[[5, 50, 500, 700]], dims="station")


class Step:
    """A step applied to both datasets; ``numpy`` replaces it on the NumPy side, where xarray
    gives NumPy-backed data something else to run. ``computes``: the computations the step
    itself asks for while it is built (none, unless said)."""

    def __init__(self, run, numpy=None, computes=0):
        self.run, self.numpy, self.computes = run, numpy or run, computes


STEPS = {
    "mean": Step(lambda d: d.mean("time")),
    "std": Step(lambda d: d.std("time")),
    "max": Step(lambda d: d.max("time")),
    "max-space": Step(lambda d: d.max(("lat", "lon"))),
    "mean-all": Step(lambda d: d.mean()),
    "groupby-month-mean": Step(lambda d: d.groupby("time.month").mean()),
    "groupby-season-mean": Step(lambda d: d.groupby("time.season").mean()),
    "anomalies": Step(lambda d: d.groupby("time.month") - d.groupby("time.month").mean()),
    # against a climatology in memory, which xarray chunks to match: with tegula, not Dask
    "anomalies-loaded-climatology": Step(lambda d: d.groupby("time.month") - d.groupby("time.month").mean().compute(),
                                         computes=1),
    "groupby-month-quantile": Step(lambda d: d.groupby("time.month").quantile([0.25, 0.75])),
    "groupby-season-max-everywhere": Step(lambda d: d.groupby("time.season").max(...)),
    "resample-monthly-mean": Step(lambda d: d.resample(time="1MS").mean()),
    "coarsen": Step(lambda d: d.coarsen(lat=2, lon=2).mean()),
    "area-weighted-mean": Step(lambda d: d.weighted(np.cos(np.deg2rad(d.lat))).mean(("lat", "lon"))),
    "quantile": Step(lambda d: d.quantile([0.1, 0.5, 0.9], dim="time")),
    "quantile-without-skipna": Step(lambda d: d.quantile(0.9, dim="time", skipna=False)),
    "median": Step(lambda d: d.median("time")),
    "idxmax-lat": Step(lambda d: d.idxmax("lat")),
    "argmax": Step(lambda d: d.argmax("lat")),  # along time, see test_argmax_of_an_all_nan_lane
    # the fitted trend (polyval of polyfit's coefficients): values in data units; polyfit
    # computes whether each variable has NaNs (its skipna=None), a boolean each
    "polyfit": Step(lambda d: xr.polyval(d.time, d.polyfit("time", 1)), computes=2),
    "curvefit": Step(curvefit),
    "vectorized-isel": Step(lambda d: d.isel(lat=POINTS, lon=LON_POINTS)),
    "vectorized-sel": Step(lambda d: d.sel(lat=LAT_LABELS, lon=LON_LABELS, time=TIME_LABELS)),
    "orthogonal-isel": Step(lambda d: d.isel(time=[3, 100, 400, 730], lat=[0, 5, 7], lon=[30, 1, 3])),
    # xarray declares the interpolated data's dtype (float32) for chunked arrays; its NumPy
    # path returns np.interp's float64
    "interp-lat": Step(lambda d: d.interp(lat=NEW_LAT), lambda d: d.interp(lat=NEW_LAT).astype("float32")),
    "interp-time": Step(lambda d: d.interp(time=NEW_TIME), lambda d: d.interp(time=NEW_TIME).astype("float32")),
    "ffill": Step(lambda d: d.ffill("time"), lambda d: filled(d, "ffill")),
    "bfill": Step(lambda d: d.bfill("time"), lambda d: filled(d, "bfill")),
    "ffill-limit": Step(lambda d: d.ffill("time", limit=5), lambda d: filled(d, "ffill", 5)),
    "rolling-mean": Step(lambda d: d.rolling(time=30).mean()),
    "rolling-mean-centred": Step(lambda d: d.rolling(time=30, center=True).mean()),
    "diff": Step(lambda d: d.diff("time")),
    "cumsum": Step(lambda d: d.cumsum("time")),  # NaNs skipped, as zeros
    "where": Step(lambda d: d.where(d.tas > 10)),
    "apply-ufunc-parallelized": Step(
        lambda d: xr.apply_ufunc(np.hypot, d.tas, d.pr, dask="parallelized", output_dtypes=["float32"])),
}


def as_dataset(obj):
    return obj.to_dataset(name="result") if isinstance(obj, xr.DataArray) else obj


@pytest.fixture
def computations(monkeypatch):
    """The computations tegula runs (every way of computing goes through ``run_compute``)."""
    import tegula._compute

    runs = []
    real = tegula._compute.run_compute

    def counted(*args, **kwargs):
        runs.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(tegula._compute, "run_compute", counted)
    return runs


@pytest.mark.parametrize("name", list(STEPS))
def test_step_is_lazy_and_matches_numpy(datasets, flox_option, computations, name):
    lazy, loaded = datasets
    step = STEPS[name]
    result = step.run(lazy)
    assert len(computations) == step.computes, "computed while building the step"
    assert_lazy(result)
    expected = as_dataset(step.numpy(loaded))
    computed = as_dataset(result.compute())
    assert_matches(computed, expected, **TOLERANCE)
    xr.testing.assert_identical(computed.coords.to_dataset(), expected.coords.to_dataset())
    assert_lazy(result)  # compute() returned a new object


def test_idxmax_along_time(datasets, flox_option):
    lazy, loaded = datasets
    result = lazy.idxmax("time")
    assert_lazy(result)
    assert result.tas.dtype == np.dtype("datetime64[ns]")
    xr.testing.assert_identical(result.compute(), loaded.idxmax("time"))


def test_argmax_of_an_all_nan_lane(datasets):
    """The masked pixel has no maximum in time: NumPy's error, raised when computed."""
    lazy, loaded = datasets
    with pytest.raises(ValueError, match="All-NaN slice"):
        loaded.tas.argmax("time")
    result = lazy.tas.argmax("time")
    assert_lazy(result)
    with pytest.raises(ValueError, match="All-NaN slice"):
        result.compute()


def test_chunk_without_naming_the_manager_stays_on_tegula(datasets):
    """xarray's chunk() takes its default manager (Dask) unless told: tegula-backed objects
    keep tegula's, NumPy-backed ones and explicit requests get what they ask for."""
    lazy, loaded = datasets
    whole = lazy.tas.chunk(time=-1)
    assert isinstance(whole.data, tg.Array)
    assert whole.data.chunks == ((len(TIME),), (9, 9), (18, 18))
    assert isinstance(lazy.chunk({"lat": 3}).pr.data, tg.Array)
    assert isinstance(lazy.tas.variable.chunk({"lon": 6}).data, tg.Array)
    mixed = lazy.assign(elevation=loaded.tas.isel(time=0) * 0 + 100).chunk(lon=12)
    assert_lazy(mixed)
    assert mixed.elevation.data.chunks == ((18,), (12, 12, 12))
    assert type(loaded.tas.chunk(time=100).data).__module__.startswith("dask")
    assert type(lazy.tas.chunk(time=100, chunked_array_type="dask").data).__module__.startswith("dask")


def test_to_zarr_and_back(datasets, flox_option, tmp_path):
    lazy, loaded = datasets

    def analysis(d):
        out = d.groupby("time.month") - d.groupby("time.month").mean()
        return out.resample(time="1MS").mean()

    path = str(tmp_path / "anomalies.zarr")
    analysis(lazy).to_zarr(path, zarr_format=3, consolidated=False)
    back = xr.open_zarr(path, chunked_array_type="tegula", consolidated=False)
    assert_lazy(back)
    assert_matches(back.compute(), analysis(loaded), **TOLERANCE)
