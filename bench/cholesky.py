"""Cholesky of an n×n symmetric positive-definite float64 matrix in memory, by tiles: tegula
(``tegula.linalg.cholesky``, tiles of the block size) against ``np.linalg.cholesky`` on the
whole matrix and Dask's ``da.linalg.cholesky`` in the same blocks, over a sweep of block
sizes, with the GEMM rate measured in the same run (the better of NumPy's whole product and
tegula's product of the matrix in one block, which runs the GEMM tegula chose). Rates count
n³/3 flops. tegula's first compute of each block size is reported apart (its fresh memory),
and so is one after a rest of ``REST`` seconds with the last result held: on a virtual machine
memory given back comes again slowly once the host has taken it, and a run right after another
may reuse what that one gave back.

    python bench/cholesky.py [--n 12000] [--blocks 1000 2000 3000 4000] [--no-dask] [--no-numpy]

The default n is 12000: NumPy's OpenBLAS (0.3.31, SkylakeX kernels) crashed in its
symmetric rank-k update, inside ``np.linalg.cholesky`` and ``m @ m.T``, at 16000² (2 GB),
while the same calls ran on its Haswell kernels; here the matrix is built by GEMMs of row slabs.
``--n 16000 --no-numpy`` measures the issue's size against the GEMM rate and Dask alone (the
error column is then that of ``L L^T`` against the matrix, on a sample of rows).
"""

import argparse
import time

import fair_blas  # before NumPy: NumPy on this machine's own BLAS kernels
import numpy as np

import tegula as tg
import tegula.linalg as la
from gemm_rate import best_of, gemm_rate

SLAB = 2000
REST = 5


def positive_definite(n):
    """``m m^T + n I`` for a standard normal ``m``, by GEMMs of row slabs."""
    m = np.random.default_rng(0).standard_normal((n, n))
    a = np.empty((n, n))
    for i in range(0, n, SLAB):
        np.matmul(m[i:i + SLAB], m.T, out=a[i:i + SLAB])
    a[np.diag_indices(n)] += n
    return a


def relative_error(a, factor, expected):
    """The largest difference from NumPy's factor relative to its largest element; without
    NumPy's, that of ``L L^T`` from ``a`` on 200 rows."""
    if expected is not None:
        return float(np.abs(factor - expected).max() / np.abs(expected).max())
    rows = np.random.default_rng(1).choice(a.shape[0], 200, replace=False)
    return float(np.abs(factor[rows] @ factor.T - a[rows]).max() / np.abs(a).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=12000)
    parser.add_argument("--blocks", type=int, nargs="+", default=[1000, 2000, 3000, 4000])
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--no-numpy", action="store_true", help="skip np.linalg.cholesky (it crashed at 16000² on one BLAS)")
    args = parser.parse_args()
    n = args.n
    a = positive_definite(n)
    flops = n**3 / 3
    best, numpy_rate, tegula_rate = gemm_rate(a)
    numpy_s, expected = (None, None) if args.no_numpy else best_of(2, lambda: np.linalg.cholesky(a))
    print(f"n = {n}; NumPy's BLAS: {fair_blas.blas_kernels()}; tegula's GEMM: {tg.config.gemm()}")
    print(f"GEMM: NumPy {numpy_rate:.1f}, tegula in one block {tegula_rate:.1f} GFLOP/s (best {best:.1f}); "
          + ("" if numpy_s is None else f"np.linalg.cholesky {numpy_s:.2f} s ({flops / numpy_s / 1e9:.1f} GFLOP/s)"))
    print(f"\n| block | tegula s (first) | GFLOP/s | / best GEMM | rested {REST} s: s, / best GEMM | NumPy s / tegula s | Dask s | tegula / Dask | max error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for block in args.blocks:
        x = tg.asarray(a, chunks=block)
        first, _ = best_of(1, lambda: la.cholesky(x).compute())
        warm, factor = best_of(3, lambda: la.cholesky(x).compute())
        time.sleep(REST)
        rested, factor = best_of(1, lambda: la.cholesky(x).compute())
        error = relative_error(a, factor, expected)
        dask_cell = ratio_cell = "—"
        if not args.no_dask:
            import dask.array as da

            d = da.from_array(a, chunks=block)
            dask_s, _ = best_of(2, lambda: da.linalg.cholesky(d, lower=True).compute())
            dask_cell, ratio_cell = f"{dask_s:.2f}", f"{warm / dask_s:.2f}"
        rate = flops / warm / 1e9
        speed = "—" if numpy_s is None else f"{numpy_s / warm:.2f}"
        rested_cell = f"{rested:.2f}, {flops / rested / 1e9 / best:.2f}"
        print(f"| {block} | {warm:.2f} ({first:.2f}) | {rate:.1f} | {rate / best:.2f} | {rested_cell} | {speed} | "
              f"{dask_cell} | {ratio_cell} | {error:.1e} |", flush=True)


if __name__ == "__main__":
    main()
