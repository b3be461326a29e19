"""Ctrl-C during a computation: it stops within a second, raises `KeyboardInterrupt` (as
itself, never wrapped in another exception), and leaves no spill file behind. Run in a child
process that is sent SIGINT, as a user's terminal does."""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CHILD = """
import os, sys, time, numpy as np, tegula as tg
spill = sys.argv[1]
def slow(block):
    time.sleep(0.05)
    return block + 1
x = tg.random.default_rng(0).random((4000, 4000), chunks=(250, 250))
y = {expr}
with tg.config.set(spill_dir=spill, memory={memory!r}):
    print("started", flush=True)
    try:
        tg.compute(y, num_workers=2, progress={progress})
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted at %.6f" % time.time(), flush=True)
    except BaseException as e:
        print("other", type(e).__name__, e, flush=True)
print("spill files", sum(len(f) for _, _, f in os.walk(spill)), flush=True)
"""

EXPRS = {
    "map_blocks": "x.map_blocks(slow, dtype=x.dtype).sum()",
    "spilling": "(x.map_blocks(slow, dtype=x.dtype) @ x.T).sum(axis=0)",
}


@pytest.mark.parametrize("progress", [False, True])
@pytest.mark.parametrize("name,memory", [("map_blocks", "2GB"), ("spilling", "40MB")])
def test_ctrl_c_stops_a_compute_within_a_second(tmp_path, name, memory, progress):
    code = textwrap.dedent(CHILD.format(expr=EXPRS[name], memory=memory, progress=progress))
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
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
    assert os.listdir(tmp_path) == [], os.listdir(tmp_path)
