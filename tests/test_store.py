"""Dask's ``store`` into NumPy arrays (with regions), zarr-python arrays and tegula's own
``.npy``/Zarr paths, against the NumPy arrays the sources hold."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, dtypes, np_arrays, shapes


@settings(max_examples=40)
@given(shape=shapes(0, 3), data=st.data())
def test_store_into_numpy_arrays(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes()), shape))
    spec, _ = data.draw(chunkings(shape))
    target = np.zeros(shape, a.dtype)
    assert tg.store(tg.asarray(a, chunks=spec), target) is None
    np.testing.assert_array_equal(target, a)


@settings(max_examples=30)
@given(shape=shapes(1, 3, 1, 6), data=st.data())
def test_store_several_sources_into_regions(shape, data):
    a = data.draw(np_arrays(np.dtype(np.float64), shape, max_magnitude=1e6))
    spec, _ = data.draw(chunkings(shape))
    offsets = tuple(data.draw(st.integers(0, 3)) for _ in shape)
    region = tuple(slice(o, o + n) for o, n in zip(offsets, shape))
    big = np.full(tuple(o + n + 2 for o, n in zip(offsets, shape)), -1.0)
    whole = np.zeros(shape)
    expected = big.copy()
    expected[region] = a
    stored = tg.store([tg.asarray(a, chunks=spec), tg.asarray(a) * 2], [big, whole], regions=[region, None],
                      return_stored=True)
    np.testing.assert_array_equal(big, expected)
    np.testing.assert_array_equal(whole, a * 2)
    assert isinstance(stored, tuple) and all(isinstance(s, tg.Array) for s in stored)
    np.testing.assert_array_equal(stored[0].compute(), a)
    np.testing.assert_array_equal(stored[1].compute(), a * 2)


def test_store_writes_slabs_when_the_result_exceeds_the_budget():
    x = tg.arange(1 << 20, dtype=np.float64, chunks=1 << 16).reshape(1024, 1024)  # 8 MiB
    target = np.empty((1024, 1024))
    with tg.config.set(memory="4MiB"):
        with pytest.raises(MemoryError):
            x.compute()
        tg.store(x, target)
    np.testing.assert_array_equal(target, np.arange(1 << 20, dtype=np.float64).reshape(1024, 1024))


def test_store_into_zarr_python_and_paths(tmp_path):
    import zarr

    a = np.arange(60, dtype=np.int32).reshape(6, 10)
    x = tg.asarray(a, chunks=(4, 3))
    z = zarr.create_array(str(tmp_path / "target.zarr"), shape=a.shape, chunks=(3, 5), dtype=a.dtype)
    npy, stored_zarr = tmp_path / "out.npy", tmp_path / "out.zarr"
    out = tg.store([x, x + 1, x - 1], [z, npy, str(stored_zarr)], return_stored=True)
    np.testing.assert_array_equal(z[...], a)
    np.testing.assert_array_equal(np.load(npy), a + 1)
    np.testing.assert_array_equal(tg.from_zarr(str(stored_zarr)).compute(), a - 1)
    np.testing.assert_array_equal(out[1].compute(), a + 1)
    np.testing.assert_array_equal(out[2].compute(), a - 1)


def test_store_errors():
    x = tg.asarray(np.arange(6.0), chunks=4)
    with pytest.raises(ValueError):
        tg.store([x, x], [np.zeros(6)])
    with pytest.raises(ValueError):
        tg.store(x, np.zeros(5))
    with pytest.raises(ValueError):
        tg.store(x, np.zeros(8), regions=(slice(0, 5),))
    with pytest.raises(ValueError):
        tg.store(x, np.zeros(6), compute=False)
    with pytest.raises(ValueError):
        tg.store(x, "somewhere.npy", regions=(slice(0, 6),))
