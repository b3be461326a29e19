""".npy files: lazy reads compared with NumPy's own reader for every dtype, shape, chunking,
byte order and memory order; writes that NumPy reads back, which appear only when complete."""

import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, chunkings, dtypes, np_arrays, same_bytes, scratch_dir, shapes


@given(st.data())
def test_reads_what_numpy_saved(data):
    dtype = data.draw(dtypes(ALL_DTYPES))
    shape = data.draw(shapes(max_dims=3, max_side=6))
    values = data.draw(np_arrays(dtype, shape))
    layout = data.draw(st.sampled_from(["C", "F", "big-endian"]))
    stored = {"C": values, "F": np.array(values, order="F"),
              "big-endian": values.astype(values.dtype.newbyteorder(">"))}[layout]
    spec, _ = data.draw(chunkings(shape))
    with scratch_dir() as path:
        file = os.path.join(path, "a.npy")
        np.save(file, stored)
        x = tg.from_npy(file, chunks=spec)
        assert x.shape == values.shape and x.dtype == values.dtype
        assert same_bytes(x.compute(), values)
        if values.ndim and values.shape[0] > 1:
            assert same_bytes(x[1::2].compute(), values[1::2])


@given(st.data())
def test_numpy_reads_what_tegula_wrote(data):
    dtype = data.draw(dtypes(ALL_DTYPES))
    shape = data.draw(shapes(max_dims=3, max_side=6))
    values = data.draw(np_arrays(dtype, shape))
    spec, _ = data.draw(chunkings(shape))
    with scratch_dir() as path:
        file = os.path.join(path, "a.npy")
        tg.to_npy(tg.asarray(values, chunks=spec), file)
        assert same_bytes(np.load(file), values)
        assert os.listdir(path) == ["a.npy"]  # no temporary file left behind


def test_a_long_header_round_trips(tmp):
    shape = (1,) * 32  # NumPy's maximum number of dimensions
    file = os.path.join(tmp, "a.npy")
    tg.to_npy(tg.ones(shape), file)
    assert np.load(file).shape == shape


def test_existing_files_are_replaced_only_when_asked_and_only_when_complete(tmp):
    file = os.path.join(tmp, "a.npy")
    np.save(file, np.arange(5))
    with pytest.raises(FileExistsError, match="overwrite"):
        tg.to_npy(tg.zeros(3), file)
    # A compute that fails part-way (its source loses its tail after being opened) leaves
    # the old file whole, and no temporary file.
    bad = os.path.join(tmp, "bad.npy")
    np.save(bad, np.arange(100.0))
    x = tg.from_npy(bad, chunks=10) * 2
    with open(bad, "r+b") as f:
        f.truncate(300)
    with pytest.raises(OSError, match="bad.npy"):
        tg.to_npy(x, file, overwrite=True)
    assert np.array_equal(np.load(file), np.arange(5))
    assert sorted(os.listdir(tmp)) == ["a.npy", "bad.npy"]
    tg.to_npy(tg.ones((2, 2)), file, overwrite=True)
    assert np.array_equal(np.load(file), np.ones((2, 2)))


def test_bad_files_give_clear_errors(tmp):
    with pytest.raises(FileNotFoundError, match="missing.npy"):
        tg.from_npy(os.path.join(tmp, "missing.npy"))
    junk = os.path.join(tmp, "junk.npy")
    with open(junk, "wb") as f:
        f.write(b"hello, not numpy")
    with pytest.raises(OSError, match="junk.npy.*magic"):
        tg.from_npy(junk)
    short = os.path.join(tmp, "short.npy")
    np.save(short, np.arange(1000.0))
    with open(short, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(OSError, match="short.npy.*truncated"):
        tg.from_npy(short)
    strings = os.path.join(tmp, "strings.npy")
    np.save(strings, np.array(["a", "b"]))
    with pytest.raises(TypeError, match="strings.npy"):
        tg.from_npy(strings)
    with pytest.raises(FileExistsError):
        tg.to_npy(tg.ones(2), tmp, overwrite=True)  # a directory is never replaced


@given(st.binary(max_size=300))
def test_fuzzed_headers_are_errors_not_crashes(blob):
    with scratch_dir() as path:
        file = os.path.join(path, "f.npy")
        with open(file, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + blob)
        try:
            x = tg.from_npy(file)
            x.compute()
        except (OSError, TypeError, ValueError) as e:
            assert "f.npy" in str(e)


def test_large_files_are_read_without_loading_them_whole(tmp):
    file = os.path.join(tmp, "big.npy")
    values = np.random.default_rng(0).standard_normal((4096, 512))
    np.save(file, values)
    x = tg.from_npy(file, chunks=(256, 512))
    (total,), report = tg.compute(x.sum(), report=True)
    assert np.isclose(total, values.sum(), rtol=1e-12)
    assert report["peak_bytes"] < values.nbytes // 4
