"""Ctrl-C during a computation: it stops within a second, raises `KeyboardInterrupt` (as
itself, never wrapped in another exception), and leaves no spill file behind. Run in a child
process that is sent SIGINT, as a user's terminal does."""

import os
import re
import signal
import textwrap
import time

import pytest

from children import interruptible

CHILD = """
import os, sys, time, numpy as np, tegula as tg
spill, out = sys.argv[1], sys.argv[2]
def slow(block):
    time.sleep(0.05)
    return block + 1
x = tg.random.default_rng(0).random((4000, 4000), chunks=(250, 250))
y = {expr}
with tg.config.set(spill_dir=spill, memory={memory!r}):
    print("started", flush=True)
    try:
        {run}
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted at %.6f" % time.time(), flush=True)
    except BaseException as e:
        print("other", type(e).__name__, e, flush=True)
print("spill files", sum(len(f) for _, _, f in os.walk(spill)), flush=True)
print("outputs", sorted(os.listdir(out)), flush=True)
"""

EXPRS = {
    "map_blocks": "x.map_blocks(slow, dtype=x.dtype).sum()",
    "spilling": "(x.map_blocks(slow, dtype=x.dtype) @ x.T).sum(axis=0)",
    "to_zarr": "x.map_blocks(slow, dtype=x.dtype)",
    "to_npy": "x.map_blocks(slow, dtype=x.dtype)",
}
RUNS = {
    "to_zarr": "y.to_zarr(out + '/y.zarr')",
    "to_npy": "y.to_npy(out + '/y.npy')",
}


@pytest.mark.parametrize("progress", [False, True])
@pytest.mark.parametrize("name,memory", [("map_blocks", "2GB"), ("spilling", "40MB"), ("to_zarr", "2GB"),
                                         ("to_npy", "2GB")])
def test_ctrl_c_stops_a_compute_within_a_second(tmp_path_factory, name, memory, progress):
    """Also when writing a store: the interrupted write leaves nothing at its path."""
    tmp_path, out = tmp_path_factory.mktemp("spill"), tmp_path_factory.mktemp("out")
    run = RUNS.get(name, f"tg.compute(y, num_workers=2, progress={progress})")
    code = textwrap.dedent(CHILD.format(expr=EXPRS[name], memory=memory, run=run))
    proc = interruptible(code, tmp_path, out)
    try:
        assert proc.stdout.readline().strip() == "started"
        time.sleep(1.5)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0]
    finally:
        proc.kill()
    stops = re.findall(r"interrupted at ([0-9.]+)", out)  # a progress bar may share its line
    assert stops, out
    stopped = float(stops[0]) - sent
    assert stopped < 1.0, f"stopped {stopped:.2f} s after Ctrl-C"
    assert "spill files 0" in out, out
    assert "outputs []" in out, out
    assert os.listdir(tmp_path) == [], os.listdir(tmp_path)
