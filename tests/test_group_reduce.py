"""xarray's groupby and resample reductions through flox on tegula-backed data, against the
same through flox on NumPy-backed data (the oracle): random group codes (some days in no
group, some groups empty), reductions, dtypes and chunkings. xarray's factorized codes go to
tegula's group-by-group reduction (``_group_reduce.py``), never to a block function holding
the grouped axis whole."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import split

xr = pytest.importorskip("xarray")
pytest.importorskip("flox")

REDUCTIONS = ["mean", "sum", "max", "min", "std", "var", "count", "prod", "median"]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_groupby_reductions_through_flox_match_numpy(data):
    n = data.draw(st.integers(1, 40), label="days")
    groups = data.draw(st.integers(1, 6), label="groups")
    codes = data.draw(st.lists(st.integers(-1, groups - 1), min_size=n, max_size=n), label="codes")
    labels = np.asarray([np.nan if c < 0 else float(c) for c in codes])
    name = data.draw(st.sampled_from(REDUCTIONS), label="reduction")
    dtype = data.draw(st.sampled_from(["float32", "float64", "int32"]), label="dtype")
    rng = np.random.default_rng(n * 31 + groups)
    values = rng.standard_normal((n, 3)) * 4
    if dtype.startswith("float"):
        values[rng.random(values.shape) < 0.2] = np.nan
    ds = xr.Dataset({"v": (("time", "x"), values.astype(dtype))},
                    coords={"time": pd.date_range("2000-01-01", periods=n), "g": ("time", labels)})
    block = data.draw(st.integers(1, n), label="block")
    lazy = ds.drop_vars("g").chunk({"time": split(n, block)}, chunked_array_type="tegula").assign_coords(g=ds.g)
    kwargs = {"ddof": 1} if name in ("std", "var") and data.draw(st.booleans()) else {}
    with xr.set_options(use_flox=True), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = getattr(ds.groupby("g"), name)(**kwargs)
        got = getattr(lazy.groupby("g"), name)(**kwargs)
        assert isinstance(got.v.data, tg.Array)
        if name != "median":  # flox's median is a quantile: not a group-by-group reduction here
            assert "map_blocks" not in got.v.data.explain()
        got = got.compute()
    assert got.v.dtype == expected.v.dtype
    np.testing.assert_allclose(got.v.values, expected.v.values, rtol=1e-5, atol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(got.g.values, expected.g.values)


@pytest.mark.parametrize("min_count", [0, 3])
def test_resample_sums_with_min_count_match_numpy(min_count):
    t = pd.date_range("2000-01-01", periods=100)
    values = np.random.default_rng(0).standard_normal((100, 2))
    values[10:45, 0] = np.nan  # a month with fewer than three values
    ds = xr.Dataset({"v": (("time", "x"), values)}, coords={"time": t})
    lazy = ds.chunk({"time": 30}, chunked_array_type="tegula")
    with xr.set_options(use_flox=True):
        got = lazy.resample(time="1MS").sum(min_count=min_count)
        assert "map_blocks" not in got.v.data.explain()
        expected = ds.resample(time="1MS").sum(min_count=min_count)
    np.testing.assert_allclose(got.compute().v.values, expected.v.values, equal_nan=True)
