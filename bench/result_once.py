"""Results returned as arrays: what returning a NumPy array costs beyond computing its
elements. For the 30-operation expression of bench/workloads.py over a float64 array in
memory, at several chunkings, in one run:

- array: `expr30(tg, x).compute()`, the result returned as one NumPy array;
- summed: `expr30(tg, x).sum().compute()`, every element computed, none returned;
- fill: `np.full(n, 1.0)`, NumPy allocating and filling an array of the result's size.

The ratio array / (summed + fill) is 1 where returning the result costs what NumPy pays to
make an array that size, and above it where blocks are written twice (built, then copied
into the result).

    .venv/bin/python bench/result_once.py                 # 10^8 elements
    .venv/bin/python bench/result_once.py --size 20000000 --rounds 5
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy, as every benchmark here)
import workloads  # noqa: E402

import numpy as np  # noqa: E402


def best(run, rounds):
    """The least seconds `run()` took over `rounds` runs after one untimed run."""
    run()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10**8)
    parser.add_argument("--chunks", type=float, nargs="+", default=[5e5, 5e6, 2.5e7])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import tegula as tg

    x = np.random.default_rng(0).standard_normal(args.size)
    expected = workloads.expr30(np, x)
    print(f"{os.cpu_count()} CPUs; {args.size:.0e} float64 elements ({x.nbytes / 2**20:.0f} MiB); best of {args.rounds}")
    print("| chunk | array (s) | summed (s) | fill (s) | array / (summed + fill) |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for chunk in (int(c) for c in args.chunks):
        lazy = workloads.expr30(tg, tg.asarray(x, chunks=chunk))
        np.testing.assert_allclose(lazy.compute(), expected, rtol=1e-12)
        t_array = best(lambda: lazy.compute(), args.rounds)
        t_summed = best(lambda: lazy.sum().compute(), args.rounds)
        t_fill = best(lambda: np.full(args.size, 1.0), args.rounds)
        ratio = t_array / (t_summed + t_fill)
        worst = max(worst, ratio)
        print(f"| {chunk:.0e} | {t_array:.3f} | {t_summed:.3f} | {t_fill:.3f} | {ratio:.2f} |")
    print(f"worst array / (summed + fill): {worst:.2f}")


if __name__ == "__main__":
    main()
