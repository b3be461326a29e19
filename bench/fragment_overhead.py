"""What running a plan as fragments costs in one process: one Newton step of bench/cluster.py's
logistic regression (125 000-row blocks) cut into fragments (`_tegula.plan_fragments`), each
run in turn with `_tegula.run_fragment` on one thread, against the threaded executor with one
worker, twice each (the first fragment pass is cold). Run it also under dask.distributed's
malloc setting for workers to see what freeing memory to the system costs:

    .venv/bin/python bench/fragment_overhead.py
    MALLOC_TRIM_THRESHOLD_=65536 .venv/bin/python bench/fragment_overhead.py
"""

import time

import numpy as np
import tegula as tg
from tegula import _tegula

from cluster import logistic_inputs, sizes


def one_step(p):
    X, y = logistic_inputs(tg, p)
    mu = 1 / (1 + tg.exp(-(X @ np.zeros(p["cols"]))))
    return X.T @ (mu - y), (X.T * (mu * (1 - mu))) @ X


def fragments_in_turn(fragments):
    blocks = {}
    start = time.perf_counter()
    for fragment, inputs, outputs in fragments:
        blocks.update(zip(outputs, _tegula.run_fragment(fragment, [blocks[i] for i in inputs], None, 1, False)))
    return time.perf_counter() - start


def main():
    arrays = one_step(sizes(1.0, 0.5))
    fragments, _ = _tegula.plan_fragments([a._h for a in arrays], True, None)
    for run in range(2):
        print(f"{len(fragments)} fragments in turn, one thread, run {run + 1}: {fragments_in_turn(fragments):.2f} s")
    for run in range(2):
        start = time.perf_counter()
        tg.compute(*arrays, scheduler="threads", num_workers=1)
        print(f"threaded executor, one worker, run {run + 1}: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
