"""Zarr arrays that xarray opens for tegula are read by tegula's own Zarr reader when xarray only
selects from them, and through xarray's backend (zarr-python) when it decodes them: both give
NumPy-backed xarray's values, whatever the stored chunks, blocks, selection and Zarr format."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import assert_lazy, assert_matches

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

pytestmark = pytest.mark.filterwarnings(
    "ignore:Consolidated metadata:UserWarning",
    "ignore:The specified chunks separate the stored chunks:UserWarning",
    "ignore:Failed to open Zarr store with consolidated metadata:RuntimeWarning",
)

DTYPES = ["float32", "float64", "int16", "uint8", "int64", "bool", "complex64"]


@pytest.fixture
def no_zarr_python_reads(monkeypatch):
    """Makes reading values through zarr-python an error: what is read natively still works."""

    def refused(self, selection):
        raise AssertionError("read through zarr-python")

    monkeypatch.setattr(zarr.Array, "__getitem__", refused)
    monkeypatch.setattr(zarr.Array, "get_orthogonal_selection", refused)
    monkeypatch.setattr(zarr.Array, "get_basic_selection", refused)


def values(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dtype)
    out = rng.normal(10, 3, shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        out = out + 1j * rng.normal(0, 1, shape).astype(dtype)
    return out


def write(path, data, stored, zarr_format, group=None):
    ds = xr.Dataset({"v": (("a", "b", "c")[:data.ndim], data)})
    ds.to_zarr(path, group=group, zarr_format=zarr_format, encoding={"v": {"chunks": stored}}, consolidated=False)
    return ds


@settings(max_examples=10, deadline=None)
@given(shape=st.tuples(st.integers(1, 9), st.integers(1, 8), st.integers(1, 7)),
       stored=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)),
       chunks=st.sampled_from([{}, {"a": 2}, {"a": -1, "b": 3, "c": 2}, {"b": 5}]),
       dtype=st.sampled_from(DTYPES), zarr_format=st.sampled_from([2, 3]),
       group=st.sampled_from([None, "g/h"]), seed=st.integers(0, 2**16))
def test_plain_variables_are_read_natively(tmp_path_factory, shape, stored, chunks, dtype, zarr_format, group, seed):
    path = str(tmp_path_factory.mktemp("native") / "s.zarr")
    data = values(np.random.default_rng(seed), shape, dtype)
    write(path, data, stored, zarr_format, group)
    lazy = xr.open_zarr(path, group=group, chunked_array_type="tegula", chunks=chunks, consolidated=False)
    expected = xr.open_zarr(path, group=group, chunks=None, consolidated=False).load()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("__getitem__", "get_orthogonal_selection", "get_basic_selection"):
            patch.setattr(zarr.Array, name, lambda *a, **k: pytest.fail("read through zarr-python"))
        assert_lazy(lazy)
        assert lazy.v.dtype == expected.v.dtype
        result = (lazy.v.isel(a=slice(1, None)) * 2).sum("b") if dtype != "bool" else lazy.v.any("b")
        computed = result.compute()
    reference = (expected.v.isel(a=slice(1, None)) * 2).sum("b") if dtype != "bool" else expected.v.any("b")
    assert_matches(computed.to_dataset(), reference.to_dataset())


def test_chunks_never_written_are_the_fill_value(tmp_path, no_zarr_python_reads):
    path = str(tmp_path / "sparse.zarr")
    ds = xr.Dataset({"v": (("a", "b"), np.full((6, 4), np.nan, "float32"))})
    ds.to_zarr(path, compute=False, encoding={"v": {"chunks": (2, 2)}}, consolidated=False)  # metadata only
    xr.Dataset({"v": (("a", "b"), np.arange(8, dtype="float32").reshape(2, 4))}).to_zarr(
        path, region={"a": slice(2, 4), "b": slice(None)}, consolidated=False)
    lazy = xr.open_zarr(path, chunked_array_type="tegula", chunks={}, consolidated=False)
    expected = np.full((6, 4), np.nan, "float32")
    expected[2:4] = np.arange(8).reshape(2, 4)
    np.testing.assert_array_equal(lazy.v.values, expected)


@pytest.mark.parametrize("encoding, data", [
    ({"scale_factor": 0.5, "add_offset": 10.0, "dtype": "int16", "_FillValue": -32768}, np.linspace(0, 50, 24).reshape(4, 6)),
    ({"_FillValue": -1, "dtype": "int32"}, np.where(np.arange(24) % 5 == 0, np.nan, np.arange(24.0)).reshape(4, 6)),
    ({"dtype": "int8", "_FillValue": 127, "scale_factor": 0.1}, np.arange(24.0).reshape(4, 6) / 10),
])
def test_decoded_variables_keep_xarrays_decoding(tmp_path, encoding, data):
    path = str(tmp_path / "encoded.zarr")
    xr.Dataset({"v": (("a", "b"), data)}).to_zarr(path, encoding={"v": {**encoding, "chunks": (3, 4)}}, consolidated=False)
    lazy = xr.open_zarr(path, chunked_array_type="tegula", chunks={"a": 2}, consolidated=False)
    expected = xr.open_zarr(path, chunks=None, consolidated=False).load()
    assert_lazy(lazy)
    assert lazy.v.dtype == expected.v.dtype
    assert_matches(lazy.v.mean("a").compute().to_dataset(), expected.v.mean("a").to_dataset())
    assert_matches(lazy.compute(), expected)


def test_codecs_the_native_reader_lacks_are_read_by_zarr_python(tmp_path):
    numcodecs = pytest.importorskip("numcodecs")
    path = str(tmp_path / "quantized.zarr")
    data = np.random.default_rng(1).normal(0, 1, (5, 7))
    xr.Dataset({"v": (("a", "b"), data)}).to_zarr(
        path, zarr_format=2, consolidated=False,
        encoding={"v": {"chunks": (2, 3), "filters": [numcodecs.Quantize(digits=3, dtype="f8")]}})
    lazy = xr.open_zarr(path, chunked_array_type="tegula", chunks={}, consolidated=False)
    expected = xr.open_zarr(path, chunks=None, consolidated=False).load()
    assert_matches(lazy.compute(), expected)


def test_selections_made_before_chunking(tmp_path):
    path = str(tmp_path / "sel.zarr")
    data = values(np.random.default_rng(2), (9, 8, 7), "float32")
    write(path, data, (4, 3, 2), 3)
    opened = xr.open_dataset(path, engine="zarr", chunks=None, consolidated=False)
    selections = [dict(a=slice(2, 7), c=slice(None, None, 2)), dict(a=3, b=slice(1, 6)), dict(b=[0, 5, 2])]
    for selection in selections:
        lazy = opened.isel(**selection).chunk(chunked_array_type="tegula")
        assert_lazy(lazy)
        np.testing.assert_array_equal(lazy.v.values, data[tuple(selection.get(d, slice(None)) for d in "abc")])


def test_a_store_in_memory_is_read_through_its_backend(no_zarr_python_reads):
    store = zarr.storage.MemoryStore()
    xr.Dataset({"v": (("a",), np.arange(10.0))}).to_zarr(store, consolidated=False)
    lazy = xr.open_zarr(store, chunked_array_type="tegula", chunks={}, consolidated=False)
    with pytest.raises(OSError, match="read through zarr-python"):
        lazy.v.values  # the general route: the refusal shows which route read it
