"""Zarr arrays on disk: round trips for every dtype, shape, chunking and codec, checked
against the data written and against zarr-python (the interoperability oracle) both ways;
region reads that touch only the chunks they need; streaming writes; bad input."""

import json
import os

import numpy as np
import pytest
import zarr
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, chunkings, dtypes, np_arrays, regular_chunks, same_bytes, scratch_dir, shapes, stored_case

CODECS = [None, "zstd", "gzip", "blosc"]


def chunk_files(store):
    """Chunk files of an array store (everything but metadata)."""
    names = []
    for root, _, files in os.walk(store):
        names += [os.path.join(root, f) for f in files if f not in ("zarr.json", ".zarray", ".zattrs", ".zgroup")]
    return sorted(names)


@given(stored_case(), st.sampled_from([2, 3]), st.sampled_from(CODECS))
def test_round_trip_matches_data_and_zarr_python(case, zarr_format, codec):
    data, spec, store_chunks = case
    with scratch_dir() as path:
        store = os.path.join(path, "a.zarr")
        tg.to_zarr(tg.asarray(data, chunks=spec), store, chunks=store_chunks, compressor=codec,
                   zarr_format=zarr_format)
        theirs = zarr.open_array(store, mode="r")
        assert theirs.metadata.zarr_format == zarr_format
        if store_chunks is not None and data.ndim:
            assert theirs.chunks == tuple(store_chunks)
        assert same_bytes(theirs[...], data)
        ours = tg.from_zarr(store)
        assert ours.shape == data.shape and ours.dtype == data.dtype
        assert same_bytes(ours.compute(), data)


@given(st.data(), st.sampled_from([2, 3]))
def test_reads_what_zarr_python_wrote(data, zarr_format):
    dtype = data.draw(dtypes(ALL_DTYPES))
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=7))
    stored_chunks = data.draw(regular_chunks(shape))
    values = data.draw(np_arrays(dtype, shape))
    fill = data.draw(np_arrays(dtype, ()))[()]
    with scratch_dir() as path:
        store = os.path.join(path, "z.zarr")
        z = zarr.create_array(store, shape=shape, chunks=stored_chunks, dtype=dtype, zarr_format=zarr_format,
                              fill_value=fill, attributes={"units": "m", "n": [1, 2]},
                              # Chunks equal (==) to the fill value are stored too: else -0.0
                              # or a NaN payload written would read back as the fill value's.
                              config={"write_empty_chunks": True})
        # Only the first half of the first axis is written: the rest is the fill value.
        half = shape[0] // 2
        z[:half] = values[:half]
        # zarr-python is the oracle for the unwritten part, reopened so that its fill value is
        # the stored JSON one (which keeps no NaN payload), not the drawn value it holds.
        expected = zarr.open_array(store, mode="r")[...]
        assert same_bytes(expected[:half], values[:half])
        spec, _ = data.draw(chunkings(shape))
        for ours in (tg.from_zarr(store), tg.from_zarr(store, chunks=spec)):
            assert same_bytes(ours.compute(), expected)
            assert ours.attrs == {"units": "m", "n": [1, 2]}


def test_default_chunks_are_whole_stored_chunks(tmp):
    store = os.path.join(tmp, "a.zarr")
    z = zarr.create_array(store, shape=(1000, 300), chunks=(10, 100), dtype="float64")
    z[:] = 1.0
    x = tg.from_zarr(store)
    assert all(c % 10 == 0 for c in x.chunks[0][:-1]) and all(c % 100 == 0 for c in x.chunks[1][:-1])
    assert x.chunksize[0] > 10  # small stored chunks are read several at a time
    big = os.path.join(tmp, "b.zarr")
    zarr.create_array(big, shape=(4000, 1000), chunks=(2000, 1000), dtype="float64")
    assert tg.from_zarr(big).chunks == ((2000, 2000), (1000,))


def test_region_reads_only_the_chunks_it_touches(tmp):
    store = os.path.join(tmp, "a.zarr")
    data = np.arange(60 * 40, dtype=np.int32).reshape(60, 40)
    tg.to_zarr(tg.asarray(data, chunks=(10, 10)), store, compressor="zstd")
    # Every chunk outside rows 10..30, columns 0..20 becomes garbage: reading it would fail.
    z = zarr.open_array(store, mode="r")
    for path in chunk_files(store):
        i, j = (int(p) for p in os.path.relpath(path, os.path.join(store, "c")).split(os.sep))
        if not (1 <= i < 3 and j < 2):
            with open(path, "wb") as f:
                f.write(b"not zstd")
    assert z.chunks == (10, 10)
    x = tg.from_zarr(store)
    assert np.array_equal(x[12:28, 3:17].compute(), data[12:28, 3:17])
    assert np.array_equal((x[10:30, :20] * 2).sum(axis=0).compute(), (data[10:30, :20] * 2).sum(axis=0))
    with pytest.raises(OSError, match="a.zarr.*chunk"):
        x.compute()


def test_sharded_arrays_round_trip(tmp):
    data = np.random.default_rng(1).standard_normal((45, 38))
    store = os.path.join(tmp, "s.zarr")
    tg.to_zarr(tg.asarray(data, chunks=(17, 11)), store, chunks=(5, 4), shards=(10, 8), compressor="zstd")
    z = zarr.open_array(store, mode="r")
    assert z.shards == (10, 8) and z.chunks == (5, 4)
    assert same_bytes(z[:], data)
    assert same_bytes(tg.from_zarr(store)[3:41, 7:9].compute(), data[3:41, 7:9])
    # zarr-python's shards read back by tegula
    theirs = os.path.join(tmp, "t.zarr")
    zarr.create_array(theirs, data=data, chunks=(3, 19), shards=(9, 38))
    assert same_bytes(tg.from_zarr(theirs).compute(), data)
    with pytest.raises(ValueError, match="multiple"):
        tg.to_zarr(tg.asarray(data), os.path.join(tmp, "bad.zarr"), chunks=(5, 4), shards=(7, 8))
    with pytest.raises(ValueError, match="zarr_format=3"):
        tg.to_zarr(tg.asarray(data), os.path.join(tmp, "v2.zarr"), chunks=(5, 4), shards=(10, 8), zarr_format=2)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_attributes_and_fill_value_are_stored(tmp, zarr_format):
    store = os.path.join(tmp, "a.zarr")
    x = tg.ones((4, 5), chunks=2)
    x.attrs["long_name"] = "ones"
    tg.to_zarr(x, store, fill_value=7, zarr_format=zarr_format)
    z = zarr.open_array(store, mode="r")
    assert dict(z.attrs) == {"long_name": "ones"} and z.fill_value == 7
    y = tg.from_zarr(store)
    assert y.attrs == {"long_name": "ones"}
    copy = os.path.join(tmp, "b.zarr")
    (y + 1).to_zarr(copy, attrs={"derived": True}, zarr_format=zarr_format)
    assert dict(zarr.open_array(copy, mode="r").attrs) == {"derived": True}
    y.to_zarr(os.path.join(tmp, "c.zarr"))  # a stored array's attributes travel with it
    assert tg.from_zarr(os.path.join(tmp, "c.zarr")).attrs == {"long_name": "ones"}
    nan_fill = os.path.join(tmp, "nan.zarr")
    tg.to_zarr(tg.ones(3), nan_fill, fill_value=float("nan"), zarr_format=zarr_format)
    assert np.isnan(zarr.open_array(nan_fill, mode="r").fill_value)
    with pytest.raises(ValueError):
        tg.to_zarr(tg.ones(3, dtype="int8"), os.path.join(tmp, "d.zarr"), fill_value=1000)


def test_existing_arrays_are_replaced_only_when_asked(tmp):
    store = os.path.join(tmp, "a.zarr")
    tg.to_zarr(tg.zeros((6, 6), chunks=3), store)
    with pytest.raises(FileExistsError, match="overwrite"):
        tg.to_zarr(tg.ones((6, 6), chunks=3), store)
    assert np.array_equal(tg.from_zarr(store).compute(), np.zeros((6, 6)))
    tg.to_zarr(tg.ones((4, 9), chunks=3), store, overwrite=True)
    assert np.array_equal(zarr.open_array(store, mode="r")[:], np.ones((4, 9)))
    other = os.path.join(tmp, "photos")
    os.makedirs(other)
    open(os.path.join(other, "holiday.jpg"), "w").close()
    with pytest.raises(FileExistsError, match="not a Zarr array"):
        tg.to_zarr(tg.ones(3), other, overwrite=True)
    assert os.listdir(other) == ["holiday.jpg"]


def test_writes_stream_block_by_block_within_the_budget(tmp):
    # 64 MB written in 1 MB chunks under a 16 MB budget: only the blocks in flight are held.
    x = tg.random.default_rng(3).random((8192, 1024), chunks=(128, 1024)) * 2 + 1
    with tg.config.set(memory="16MB"):
        report = tg.to_zarr(x, os.path.join(tmp, "big.zarr"))
    assert report["peak_bytes"] <= 16_000_000 and report["spilled_bytes"] == 0
    assert report["tasks"] == 2 * 64  # each block made (fused) and written
    y = tg.from_zarr(os.path.join(tmp, "big.zarr"))
    assert np.array_equal(y[::997].compute(), x[::997].compute())


def test_misaligned_blocks_are_rechunked_before_writing(tmp):
    data = np.arange(100 * 7).reshape(100, 7)
    x = tg.asarray(data, chunks=((13, 29, 3, 40, 15), (3, 4)))
    store = os.path.join(tmp, "a.zarr")
    tg.to_zarr(x, store, chunks=(10, 7))
    assert same_bytes(zarr.open_array(store, mode="r")[:], data)


def test_lazy_objects_with_numpy_slicing_are_read_block_by_block(tmp):
    data = np.random.default_rng(2).standard_normal((30, 20))
    z = zarr.create_array(os.path.join(tmp, "z.zarr"), data=data, chunks=(7, 7))
    x = tg.asarray(z, chunks=(10, 10))
    assert x.shape == data.shape and x.dtype == data.dtype
    assert same_bytes(x.compute(), data)

    class Counting:
        shape, dtype = data.shape, data.dtype

        def __init__(self):
            self.reads = []

        def __getitem__(self, key):
            self.reads.append(key)
            return data[key]

    obj = Counting()
    y = tg.asarray(obj, chunks=(10, 10))
    assert obj.reads == []  # nothing read before computing
    assert same_bytes(y[12:18, 1:5].compute(), data[12:18, 1:5])
    assert obj.reads == [(slice(12, 18, 1), slice(1, 5, 1))]  # just the region, once
    obj.reads.clear()
    assert same_bytes(y[::-7, 3].compute(), data[::-7, 3])
    assert sorted(obj.reads) == [(slice(a, b, 1), slice(3, 4, 1)) for a, b in [(1, 9), (15, 16), (22, 30)]]

    class Broken(Counting):
        def __getitem__(self, key):
            raise KeyError("gone")

    with pytest.raises(OSError, match="gone"):
        tg.asarray(Broken(), chunks=10).sum().compute()


@given(data=st.data())
def test_selections_inside_an_objects_chunk_read_it_once(data):
    """An object that decodes whole chunks (``obj.chunks``; xarray's backend arrays, given as
    tegula's read unit) is read by whole chunks when selections fall inside one: the periods
    xarray's resample and groupby slice out of a chunk read it once, together. Values are
    NumPy's; no region is read twice."""
    n, m = data.draw(st.integers(1, 40)), data.draw(st.integers(1, 5))
    unit = data.draw(st.integers(1, n))
    a = np.random.default_rng(n * m).standard_normal((n, m))

    class Chunked:
        shape, dtype, chunks = a.shape, a.dtype, (unit, m)

        def __init__(self):
            self.reads = []

        def __getitem__(self, key):
            self.reads.append(tuple((k.start, k.stop) for k in key))
            return a[key]

    obj = Chunked()
    x = tg.asarray(obj, chunks=(data.draw(st.integers(1, n)), m))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n - 1), max_size=6)) if n > 1 else []))
    bounds = list(zip([0] + cuts, cuts + [n]))
    out = tg.concatenate([x[lo:hi].sum(axis=0, keepdims=True) for lo, hi in bounds])
    expected = np.concatenate([a[lo:hi].sum(axis=0, keepdims=True) for lo, hi in bounds])
    np.testing.assert_allclose(out.compute(), expected, rtol=1e-12, atol=1e-12)
    assert len(set(obj.reads)) == len(obj.reads), obj.reads
    for (lo, hi), _ in obj.reads:
        inside_one = lo // unit == (hi - 1) // unit
        assert not inside_one or (lo % unit == 0 and (hi % unit == 0 or hi == n)), (lo, hi, unit)


def test_bad_stores_give_clear_errors(tmp):
    with pytest.raises(FileNotFoundError, match="nowhere.zarr"):
        tg.from_zarr(os.path.join(tmp, "nowhere.zarr"))
    os.makedirs(os.path.join(tmp, "empty.zarr"))
    with pytest.raises(FileNotFoundError, match="no Zarr array"):
        tg.from_zarr(os.path.join(tmp, "empty.zarr"))
    with pytest.raises(ValueError, match="ftp://"):
        tg.from_zarr("ftp://host/a.zarr")
    strings = os.path.join(tmp, "s.zarr")
    zarr.create_array(strings, shape=(3,), dtype=str)
    with pytest.raises(TypeError, match="s.zarr"):
        tg.from_zarr(strings)
    times = os.path.join(tmp, "t.zarr")
    zarr.create_array(times, shape=(3,), dtype="datetime64[Y]", zarr_format=2)
    with pytest.raises(TypeError, match="t.zarr"):
        tg.from_zarr(times)
    with pytest.raises(ValueError, match="compressor"):
        tg.to_zarr(tg.ones(3), os.path.join(tmp, "c.zarr"), compressor="lzma")
    with pytest.raises(ValueError, match="zarr_format"):
        tg.to_zarr(tg.ones(3), os.path.join(tmp, "f.zarr"), zarr_format=4)


def test_from_zarr_reads_a_component_of_a_group(tmp):
    root = zarr.open_group(os.path.join(tmp, "g.zarr"), mode="w")
    root.create_array("temperature", data=np.arange(12.0).reshape(3, 4), chunks=(2, 2))
    x = tg.from_zarr("file://" + os.path.join(tmp, "g.zarr"), component="temperature")
    assert np.array_equal(x.compute(), np.arange(12.0).reshape(3, 4))


@given(st.data())
def test_corrupt_metadata_is_an_error_not_a_crash(data):
    with scratch_dir() as path:
        store = os.path.join(path, "a.zarr")
        fmt = data.draw(st.sampled_from([2, 3]))
        tg.to_zarr(tg.arange(10, chunks=5), store, zarr_format=fmt)
        meta = os.path.join(store, "zarr.json" if fmt == 3 else ".zarray")
        text = open(meta, "rb").read()
        broken = data.draw(st.one_of(
            st.binary(max_size=200),
            st.integers(0, len(text) - 1).map(lambda n: text[:n]),
            st.tuples(st.integers(0, len(text) - 1), st.integers(0, 255)).map(
                lambda p: text[:p[0]] + bytes([p[1]]) + text[p[0] + 1:]),
        ))
        with open(meta, "wb") as f:
            f.write(broken)
        try:
            x = tg.from_zarr(store)
            out = x.compute()
        except (OSError, ValueError, TypeError) as e:
            assert "a.zarr" in str(e)
        else:
            # A change that leaves valid metadata (a digit, a space) reads what it describes.
            assert out.shape == x.shape


@given(st.data())
def test_corrupt_chunks_are_reported_when_read(data):
    with scratch_dir() as path:
        store = os.path.join(path, "a.zarr")
        codec = data.draw(st.sampled_from(CODECS))
        values = np.arange(40, dtype=np.float64)
        tg.to_zarr(tg.asarray(values, chunks=10), store, compressor=codec)
        files = chunk_files(store)
        victim = data.draw(st.sampled_from(files))
        raw = open(victim, "rb").read()
        broken = data.draw(st.one_of(
            st.integers(0, len(raw) - 1).map(lambda n: raw[:n]),
            st.binary(min_size=1, max_size=100),
        ))
        with open(victim, "wb") as f:
            f.write(broken)
        out_store = os.path.join(path, "out.zarr")
        tg.to_zarr(tg.ones(5), out_store)
        try:
            result = tg.from_zarr(store).compute()
        except OSError as e:
            assert "a.zarr" in str(e) and "chunk" in str(e)
            # a failed copy leaves the array already at its destination as it was
            with pytest.raises(OSError):
                tg.to_zarr(tg.from_zarr(store), out_store, overwrite=False)
            assert np.array_equal(zarr.open_array(out_store, mode="r")[:], np.ones(5))
        else:
            # Same-length garbage in an uncompressed chunk is indistinguishable from data.
            assert codec is None and len(broken) == len(raw)
            assert result.shape == values.shape


@pytest.mark.parametrize("zarr_format, shards", [(3, None), (2, None), (3, (4, 6))])
def test_info_counts_the_chunks_stored(tmp, zarr_format, shards):
    from tegula._describe import describe

    store = os.path.join(tmp, "a.zarr")
    tg.to_zarr(tg.ones((8, 12)), store, chunks=(2, 3), shards=shards, zarr_format=zarr_format)
    noun = "shards" if shards else "chunks"
    total = 4 if shards else 16

    def stored():
        return next(line for line in describe(store) if line.startswith(noun + " stored")).split(":", 1)[1].strip()

    assert stored() == f"{total} of {total}"
    # A writer stopped part-way: the missing chunks would read back as the fill value, silently.
    files = chunk_files(store)
    for f in files[:3]:
        os.remove(f)
    assert stored().startswith(f"{total - 3} of {total} (3 missing: read as the fill value; [")
    for f in files[3:]:
        os.remove(f)
    assert stored().startswith(f"0 of {total} ({total} missing")
