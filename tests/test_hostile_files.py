"""Hostile files: stores and .npy files crafted to crash, hang, exhaust memory or mislead a
reader. Each must be a clean Python exception naming the path (and the chunk, where there is
one), within a bounded time and memory. Cases that used to abort, hang or balloon run in a
child process with a timeout."""

import json
import os
import subprocess
import sys
import textwrap
import zlib

import numcodecs
import numpy as np
import pytest

import tegula as tg

TIMEOUT = 60


def child(code, *args):
    """Runs ``code`` in a fresh interpreter; it prints one JSON line: the exception raised by
    its ``run()`` (type and message) or ``None``, and the peak RSS in MB. The peak is the
    interpreter's own (``VmHWM``): ``ru_maxrss`` would count the parent's memory at the fork
    before the child ran, so a big test process would hide or fake an allocation."""
    program = textwrap.dedent(code) + textwrap.dedent("""
        import json, sys
        try:
            run(*sys.argv[1:])
            error = None
        except Exception as e:
            error = [type(e).__name__, str(e)]
        with open("/proc/self/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
        print(json.dumps({"error": error, "peak_mb": peak}))
    """)
    done = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, f"the child died (status {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


READ_ZARR = """
import tegula as tg
def run(path):
    tg.from_zarr(path).compute()
"""

READ_NPY = """
import tegula as tg
def run(path):
    tg.from_npy(path).compute()
"""


def zarr_json(path, shape, chunks, dtype="float64", codecs=None):
    os.makedirs(path, exist_ok=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": codecs or [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": {}}
    with open(os.path.join(path, "zarr.json"), "w") as f:
        json.dump(meta, f)


def npy_file(path, header, data=b""):
    text = header.encode()
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data)


# --- huge and strange shapes --------------------------------------------------------------
@pytest.mark.parametrize("shape, chunks", [
    ([2**63, 8], [1024, 8]),
    ([2**40, 2**40], [2**20, 2**20]),
    ([2**62], [2**62]),  # a chunk whose bytes overflow
    ([8, 2**64 - 1], [8, 8]),
])
def test_zarr_shapes_too_large_are_value_errors(tmp, shape, chunks):
    path = os.path.join(tmp, "huge.zarr")
    zarr_json(path, shape, chunks)
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "ValueError" and "huge.zarr" in out["error"][1], out


def test_zarr_arrays_of_64_axes_open_and_65_are_refused(tmp):
    path = os.path.join(tmp, "d64.zarr")
    zarr_json(path, [1] * 62 + [2, 3], [1] * 62 + [2, 2])
    out = child("""
        import numpy as np, tegula as tg
        def run(path):
            x = tg.from_zarr(path)
            assert x.shape == (1,) * 62 + (2, 3)
            # Read through the store, summed to a scalar (converting a 64-d result to NumPy
            # is another layer's business).
            assert float(x.sum().compute()) == 0.0
    """, path)
    # tegula's own limit on axes may be lower than the store's: then a clean ValueError.
    assert out["error"] is None or out["error"][0] == "ValueError", out
    path = os.path.join(tmp, "d65.zarr")
    zarr_json(path, [1] * 65, [1] * 65)
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "ValueError" and "d65.zarr" in out["error"][1], out


@pytest.mark.parametrize("shape", ["(2305843009213693952,)", "(4294967296, 4294967296)",
                                   "(99999999999999999999999,)"])
def test_npy_shapes_too_large_are_value_errors(tmp, shape):
    path = os.path.join(tmp, "huge.npy")
    npy_file(path, f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}", bytes(64))
    out = child(READ_NPY, path)
    assert out["error"] and out["error"][0] == "ValueError" and "huge.npy" in out["error"][1], out


def test_lying_npy_headers_are_refused(tmp):
    # A key inside a string used to be found first: this read as shape (2,).
    lying = os.path.join(tmp, "lying.npy")
    npy_file(lying, "{'descr': '<f8', 'c': \"'shape': (2,),\", 'fortran_order': False, 'shape': (8,), }",
             np.arange(8.0).tobytes())
    with pytest.raises(ValueError, match="lying.npy.*unexpected key"):
        tg.from_npy(lying)
    for name, header in [("twice", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': (8,)}"),
                         ("int", "{'descr': '<f8', 'fortran_order': False, 'shape': (8)}"),
                         ("bool", "{'descr': '<f8', 'fortran_order': 0, 'shape': (8,)}"),
                         ("negative", "{'descr': '<f8', 'fortran_order': False, 'shape': (-8,)}"),
                         ("missing", "{'descr': '<f8', 'shape': (8,)}")]:
        path = os.path.join(tmp, f"{name}.npy")
        npy_file(path, header, np.arange(8.0).tobytes())
        with pytest.raises(ValueError, match=f"{name}.npy"):
            tg.from_npy(path)
    # What NumPy writes still reads.
    good = os.path.join(tmp, "good.npy")
    np.save(good, np.arange(8.0))
    assert np.array_equal(tg.from_npy(good).compute(), np.arange(8.0))


def test_truncated_npy_files_are_os_errors(tmp):
    path = os.path.join(tmp, "short.npy")
    npy_file(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", bytes(63))
    with pytest.raises(OSError, match="short.npy.*truncated"):
        tg.from_npy(path)


@pytest.mark.parametrize("codec", [None, "zstd", "gzip", "blosc"])
def test_a_chunk_declared_larger_than_memory_is_an_error_not_an_abort(tmp, codec):
    # Shape (10,) in one chunk of 2**40 elements (8 TB): Zarr stores whole chunks, so a reader
    # that allocated the declared chunk would abort.
    path = os.path.join(tmp, "vast.zarr")
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    data = np.arange(10.0).tobytes()
    if codec == "zstd":
        codecs.append({"name": "zstd", "configuration": {"level": 1, "checksum": False}})
        data = numcodecs.Zstd(level=1).encode(data)
    elif codec == "gzip":
        codecs.append({"name": "gzip", "configuration": {"level": 1}})
        data = numcodecs.GZip(level=1).encode(data)
    elif codec == "blosc":
        codecs.append({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                                          "typesize": 8, "blocksize": 0}})
        data = numcodecs.Blosc(cname="lz4").encode(data)
    zarr_json(path, [10], [2**40], codecs=codecs)
    os.makedirs(os.path.join(path, "c"))
    with open(os.path.join(path, "c", "0"), "wb") as f:
        f.write(data)
    out = child("""
        import numpy as np, tegula as tg
        def run(path):
            # Reading just the bytes the array needs is fine too.
            assert np.array_equal(tg.from_zarr(path).compute(), np.arange(10.0))
    """, path)
    if out["error"] is not None:
        assert out["error"][0] in ("OSError", "MemoryError", "ValueError"), out
        assert "vast.zarr" in out["error"][1], out
    assert out["peak_mb"] < 1024, out


# --- decompression bombs --------------------------------------------------------------------
BOMB_BYTES = 4 << 30


def zstd_bomb():
    """Zstd frames of 128 MB of zeros each, 4 GB in all, in about 130 KB."""
    frame = numcodecs.Zstd(level=19).encode(bytes(128 << 20))
    return frame * (BOMB_BYTES // (128 << 20))


def gzip_bomb():
    """One gzip member of 4 GB of zeros in about 4 MB: after a full flush, deflate's output for
    the same input is the same bytes, so one 1 MB block is repeated (the trailer's checksum is
    wrong, as a reader learns only after decoding everything)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    header = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    return header + block * (BOMB_BYTES // (1 << 20) - 1) + c.flush(zlib.Z_FINISH)


@pytest.mark.parametrize("codec, bomb", [("zstd", zstd_bomb), ("gzip", gzip_bomb)])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_decompression_bombs_are_refused_within_the_chunk_size(tmp, codec, bomb, zarr_format):
    path = os.path.join(tmp, "bomb.zarr")
    tg.to_zarr(tg.arange(4000.0, chunks=1000), path, chunks=1000, compressor=codec, zarr_format=zarr_format)
    chunk = os.path.join(path, "c", "2") if zarr_format == 3 else os.path.join(path, "2")
    with open(chunk, "wb") as f:
        f.write(bomb())
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "OSError", out
    message = out["error"][1]
    assert "bomb.zarr" in message and "chunk [2]" in message and "more than" in message, message
    assert out["peak_mb"] < 1024, out


def test_a_bomb_inside_a_shard_is_refused_within_the_chunk_size(tmp):
    path = os.path.join(tmp, "shard.zarr")
    zarr_json(path, [4000], [4000], codecs=[{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [1000], "index_location": "end",
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])
    good = numcodecs.Zstd(level=1).encode(np.zeros(1000).tobytes())
    parts = [good, good, zstd_bomb(), good]
    index, offset = b"", 0
    for part in parts:
        index += offset.to_bytes(8, "little") + len(part).to_bytes(8, "little")
        offset += len(part)
    os.makedirs(os.path.join(path, "c"))
    with open(os.path.join(path, "c", "0"), "wb") as f:
        f.write(b"".join(parts) + index)
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "OSError", out
    assert "shard.zarr" in out["error"][1] and "more than" in out["error"][1], out
    assert out["peak_mb"] < 1024, out


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_a_blosc_chunk_declaring_more_than_its_size_is_refused(tmp, zarr_format):
    small, big = os.path.join(tmp, "small.zarr"), os.path.join(tmp, "big.zarr")
    tg.to_zarr(tg.arange(400.0, chunks=100), small, chunks=100, compressor="blosc", zarr_format=zarr_format)
    tg.to_zarr(tg.arange(4000.0, chunks=1000), big, chunks=1000, compressor="blosc", zarr_format=zarr_format)
    key = os.path.join("c", "1") if zarr_format == 3 else "1"
    with open(os.path.join(big, key), "rb") as src, open(os.path.join(small, key), "wb") as dst:
        dst.write(src.read())  # declares 8000 bytes where the chunk holds 800
    with pytest.raises(OSError, match=r"small.zarr.*chunk \[1\].*more than its 800 bytes"):
        tg.from_zarr(small).compute()


# --- FIFOs, devices, links --------------------------------------------------------------------
@pytest.mark.parametrize("codec", [None, "zstd", "blosc"])
def test_a_fifo_in_place_of_a_chunk_is_an_error_not_a_hang(tmp, codec):
    path = os.path.join(tmp, "fifo.zarr")
    tg.to_zarr(tg.arange(40.0, chunks=10), path, chunks=10, compressor=codec)
    chunk = os.path.join(path, "c", "1")
    os.remove(chunk)
    os.mkfifo(chunk)
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "OSError", out
    assert "fifo.zarr" in out["error"][1] and "FIFO" in out["error"][1], out


def test_a_fifo_in_place_of_the_metadata_is_an_error_not_a_hang(tmp):
    path = os.path.join(tmp, "meta.zarr")
    tg.to_zarr(tg.arange(4.0), path)
    os.remove(os.path.join(path, "zarr.json"))
    os.mkfifo(os.path.join(path, "zarr.json"))
    out = child(READ_ZARR, path)
    assert out["error"] and out["error"][0] == "OSError" and "meta.zarr" in out["error"][1], out


def test_a_fifo_or_device_in_place_of_a_npy_file_is_an_error_not_a_hang(tmp):
    path = os.path.join(tmp, "fifo.npy")
    os.mkfifo(path)
    for target in (path, "/dev/zero"):
        out = child(READ_NPY, target)
        assert out["error"] and out["error"][0] == "OSError" and target in out["error"][1], out


def test_links_out_of_the_store_are_not_followed(tmp):
    secret = os.path.join(tmp, "secret.bin")
    with open(secret, "wb") as f:
        f.write(np.full(10, 42.0).tobytes())
    path = os.path.join(tmp, "a.zarr")
    tg.to_zarr(tg.arange(40.0, chunks=10), path, chunks=10)
    chunk = os.path.join(path, "c", "1")
    os.remove(chunk)
    os.symlink(secret, chunk)
    with pytest.raises(OSError, match="a.zarr.*outside the store"):
        tg.from_zarr(path).compute()
    # A linked directory of chunks, too.
    os.remove(chunk)
    outside = os.path.join(tmp, "elsewhere")
    os.rename(os.path.join(path, "c"), outside)
    os.symlink(outside, os.path.join(path, "c"))
    with pytest.raises(OSError, match="outside the store"):
        tg.from_zarr(path).compute()
    # Links that stay inside the store are fine.
    inside = os.path.join(tmp, "b.zarr")
    tg.to_zarr(tg.arange(40.0, chunks=10), inside, chunks=10)
    os.remove(os.path.join(inside, "c", "1"))
    os.symlink(os.path.join(inside, "c", "0"), os.path.join(inside, "c", "1"))
    assert np.array_equal(tg.from_zarr(inside).compute()[10:20], np.arange(10.0))


def test_components_may_not_leave_the_store(tmp):
    root = os.path.join(tmp, "g.zarr")
    tg.to_zarr(tg.arange(4.0), os.path.join(root, "sub"))
    tg.to_zarr(tg.arange(4.0), os.path.join(tmp, "parent.zarr"))
    for component in ("..", "../parent.zarr", "sub/../..", "/etc", "sub/./.."):
        with pytest.raises(ValueError, match="component"):
            tg.from_zarr(root, component=component)
        with pytest.raises(ValueError, match="component"):
            tg.to_zarr(tg.ones(2), root, component=component, overwrite=True)
    assert np.array_equal(tg.from_zarr(root, component="sub").compute(), np.arange(4.0))


# --- corrupt and truncated chunks ---------------------------------------------------------------
@pytest.mark.parametrize("codec", [None, "zstd", "gzip", "blosc"])
def test_a_broken_chunk_is_named_by_its_grid_index(tmp, codec):
    path = os.path.join(tmp, "a.zarr")
    data = np.arange(64 * 128.0).reshape(64, 128)
    tg.to_zarr(tg.asarray(data), path, chunks=(4, 8), compressor=codec)
    chunk = os.path.join(path, "c", "3", "7")
    with open(chunk, "rb") as f:
        raw = f.read()
    with open(chunk, "wb") as f:
        f.write(raw[: len(raw) // 2])  # truncated
    x = tg.from_zarr(path)
    assert x.numblocks == (1, 1)  # one block of many chunks: the message must still name the chunk
    with pytest.raises(OSError) as e:
        x.compute()
    message = str(e.value)
    assert "a.zarr" in message and ("chunk [3, 7]" in message or os.path.join("c", "3", "7") in message), message
