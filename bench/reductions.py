"""Reductions of an in-memory array along either axis against the machine's read bandwidth
(issue 63: "reductions in memory"): `mean` and `std` along axis 0 and axis 1 of a float64
NumPy array (20000 x 20000, 3.2 GB, by default), over a sweep of block shapes: square blocks
from 1000 to 10000, and panels of whole columns or whole rows.

A reduction of data in memory cannot beat reading each byte once, so each figure is the bytes
of the array over the best of `--repeats` runs, as a share of the best read bandwidth that
`bench/triad.rs` measures (2 threads, huge pages) between those runs, one measurement before
each: the bandwidth of these machines can change within seconds (between about 50 and 80 GB/s
on one), so every figure is judged against the limit measured alongside it. Dask (threaded
scheduler) runs the same reductions on the same array and blocks for reference. Every result
is checked against NumPy's.

    .venv/bin/python bench/reductions.py
    .venv/bin/python bench/reductions.py --n 8000 --blocks 1000x1000 8000x500 --no-dask
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: Dask on this machine's own BLAS kernels)
import numpy as np  # noqa: E402
from run import ReadBandwidth  # noqa: E402

THREADS = len(os.sched_getaffinity(0))
OPS = {"mean0": ("mean", 0), "mean1": ("mean", 1), "std0": ("std", 0), "std1": ("std", 1)}


def block_shapes(n, given):
    if given:
        return [tuple(int(v) for v in b.split("x")) for b in given]
    return [(1000, 1000), (2000, 2000), (5000, 5000), (10000, 10000), (n, 1000), (1000, n)]


def best_time(f, repeats, between=lambda: None):
    """The best time of `repeats` runs of `f` (after one to warm up: plans made, pages of the
    result touched), `between()` called before each, and the last result."""
    f()
    best, out = float("inf"), None
    for _ in range(repeats):
        between()
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def reduction(library, x, block, op):
    name, axis = OPS[op]
    if library == "dask":
        import dask.array as da

        arr = da.from_array(x, chunks=block)
        return lambda: getattr(arr, name)(axis=axis).compute(scheduler="threads", num_workers=THREADS)
    import tegula as tg

    arr = tg.asarray(x, chunks=block)
    return lambda: getattr(arr, name)(axis=axis).compute()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20000, help="rows and columns of the array")
    p.add_argument("--blocks", nargs="*", help="block shapes as RxC (default: the sweep above)")
    p.add_argument("--ops", nargs="*", choices=sorted(OPS), default=sorted(OPS))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--no-dask", action="store_true")
    args = p.parse_args()

    x = np.random.default_rng(0).random((args.n, args.n))
    expected = {op: getattr(x, OPS[op][0])(axis=OPS[op][1]) for op in args.ops}
    gb = x.nbytes / 1e9
    libraries = ["tegula"] + ([] if args.no_dask else ["dask"])
    print(f"{THREADS} threads; array {args.n}x{args.n} float64 ({gb:.1f} GB) in memory; GB/s = array bytes / best "
          f"of {args.repeats}; read = the best of bench/triad.rs's read bandwidth measured before each of those runs; "
          f"BLAS: {fair_blas.blas_kernels()}\n")
    print("| block | op | read GB/s | tegula GB/s | tegula / read | Dask GB/s | tegula / Dask time | checked |")
    print("|---|---|---|---|---|---|---|---|")
    worst = (float("inf"), None)
    limit = ReadBandwidth(THREADS)
    for block in block_shapes(args.n, args.blocks):
        for op in args.ops:
            times, ok, reads = {}, True, []
            for lib in libraries:
                between = (lambda: reads.append(limit())) if lib == "tegula" else (lambda: None)
                t, out = best_time(reduction(lib, x, block, op), args.repeats, between)
                times[lib] = t
                ok = ok and np.allclose(np.asarray(out), expected[op], rtol=1e-10, atol=1e-12)
            read = max(reads)
            share = gb / times["tegula"] / read
            worst = min(worst, (share, f"{block[0]}x{block[1]} {op}"))
            dask = f"{gb / times['dask']:.1f} | {times['tegula'] / times['dask']:.2f}" if "dask" in times else " | "
            print(f"| {block[0]}x{block[1]} | {op} | {read:.1f} | {gb / times['tegula']:.1f} | {share:.2f} | {dask} | {ok} |",
                  flush=True)
    limit.close()
    print(f"\nworst tegula / read bandwidth: {worst[0]:.2f} ({worst[1]})")


if __name__ == "__main__":
    main()
