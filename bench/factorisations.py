"""Factorisations with several results computed together (``U, S, Vh = svd(x)``, ``Q, R``,
``w, v = eigh(x)``), tegula against NumPy on the same stack of matrices, in one run, over a
sweep of stack chunkings. Each time is the median of 5 runs after one untimed run.

    python bench/factorisations.py [--quick]

Run it with ``PYTHONPATH=DIR`` (DIR holding another build of the ``tegula`` package) to time
that build the same way.
"""

import argparse
import statistics
import time

import fair_blas  # before NumPy: NumPy on this machine's own BLAS kernels
import numpy as np

import tegula as tg

REPEATS = 5


def timed(fn):
    fn()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller stack")
    args = parser.parse_args()
    count, n = (16, 100) if args.quick else (64, 200)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((count, n, n))
    hermitian = a + np.swapaxes(a, -1, -2)
    cases = {"svd": (np.linalg.svd, tg.linalg.svd, a), "qr": (np.linalg.qr, tg.linalg.qr, a),
             "eigh": (np.linalg.eigh, tg.linalg.eigh, hermitian)}
    print(f"# {count} matrices of {n}×{n}, float64; seconds, median of {REPEATS}; "
          f"NumPy's BLAS: {fair_blas.blas_kernels()}\n")
    print("| function | stack chunk | tegula (s) | NumPy (s) | tegula / NumPy |")
    print("|---|---|---|---|---|")
    for name, (numpy_fn, tegula_fn, data) in cases.items():
        numpy_time = timed(lambda: numpy_fn(data))
        for chunk in (1, 4, 16):
            x = tg.asarray(data, chunks=(chunk, n, n))
            tegula_time = timed(lambda: tg.compute(*tegula_fn(x)))
            print(f"| {name} | {chunk} | {tegula_time:.3f} | {numpy_time:.3f} | {tegula_time / numpy_time:.2f} |")


if __name__ == "__main__":
    main()
