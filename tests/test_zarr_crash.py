"""Crash safety: a process writing a Zarr array is killed (SIGKILL) at random moments; every
stored chunk must then be whole (never torn) and, since an overwrite is built beside the old
array and switched in whole, all of one array: all old or all new, checked chunk by chunk with
zarr-python as well as tegula (``test_zarr_overwrite.py`` has the evenly spread kills).
"""

import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import zarr

import tegula as tg
from strategies import scratch_dir

SHAPE, CHUNKS = (2048, 1024), (64, 64)
OLD, NEW = 1.0, 2.0

WRITER = """
import sys, tegula as tg
x = tg.full({shape}, {value}, chunks=(256, 1024)) + tg.random.default_rng(0).random({shape}, chunks=(256, 1024)) * 0
print("writing", flush=True)
tg.to_zarr(x, sys.argv[1], chunks={chunks}, compressor="zstd", overwrite=True)
print("done", flush=True)
"""


def write(path, value, kill_after=None):
    """Runs a writer process; kills it `kill_after` seconds after it starts writing."""
    code = WRITER.format(shape=SHAPE, value=value, chunks=CHUNKS)
    proc = subprocess.Popen([sys.executable, "-c", code, path], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    started = time.perf_counter()
    if kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=120)
    return time.perf_counter() - started, proc.returncode


def check_every_chunk(path):
    """Each chunk absent, old or new, read by zarr-python and by tegula; returns the counts."""
    meta = os.path.join(path, "zarr.json")
    chunk_dir = os.path.join(path, "c")
    if not os.path.exists(meta):
        # Killed before the metadata was written: no new chunk may exist yet.
        assert not os.path.isdir(chunk_dir) or not any(files for _, _, files in os.walk(chunk_dir))
        return {}
    z = zarr.open_array(path, mode="r")
    assert z.shape == SHAPE and z.chunks == CHUNKS
    counts = {}
    ours = tg.from_zarr(path, chunks=CHUNKS).compute()
    for i in range(SHAPE[0] // CHUNKS[0]):
        for j in range(SHAPE[1] // CHUNKS[1]):
            block = z.blocks[i, j]  # raises if the chunk is torn
            value = block.flat[0]
            assert value in (0.0, OLD, NEW) and np.all(block == value)
            rows, cols = slice(i * 64, (i + 1) * 64), slice(j * 64, (j + 1) * 64)
            assert np.array_equal(ours[rows, cols], block)
            counts[value] = counts.get(value, 0) + 1
    return counts


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_killed_writers_leave_every_chunk_of_one_array():
    with scratch_dir() as root:
        path = os.path.join(root, "a.zarr")
        duration, code = write(path, OLD)
        assert code == 0 and check_every_chunk(path) == {OLD: 512}
        rng = random.Random(7)
        for _ in range(6):
            _, code = write(path, NEW, kill_after=rng.uniform(0, duration))
            counts = check_every_chunk(path)
            assert counts in ({OLD: 512}, {NEW: 512}), counts
            if counts == {NEW: 512}:
                _, code = write(path, OLD)
                assert code == 0 and check_every_chunk(path) == {OLD: 512}
        _, code = write(path, NEW)
        assert code == 0 and check_every_chunk(path) == {NEW: 512}
