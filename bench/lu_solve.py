"""``solve`` of an n×n general float64 system with k right-hand sides in memory, by an LU
factorisation with partial pivoting by tiles: tegula (``tegula.linalg.solve``, tiles of the
block size) against ``np.linalg.solve`` on the whole matrix and Dask's ``da.linalg.solve`` in
the same blocks, over a sweep of block sizes, with the GEMM rate measured in the same run (the
better of NumPy's whole product and tegula's product of the matrix in one block). Rates count
2n³/3 flops. tegula's first compute of each block size is reported apart (its fresh memory).
Accuracy is the backward error ``|b - a x| / (|a| |x| + |b|)`` (max norms), NumPy's beside it.

    python bench/lu_solve.py [--n 12000] [--k 16] [--blocks 1000 2000 3000 4000] [--no-dask]

The default n is 12000, as in ``bench/cholesky.py`` (NumPy's OpenBLAS crashed at 16000² in
some kernels on one machine); ``--n 16000`` runs the issue's size where NumPy's BLAS holds.
"""

import argparse

import fair_blas  # before NumPy: NumPy on this machine's own BLAS kernels
import numpy as np

import tegula as tg
import tegula.linalg as la
from gemm_rate import best_of, gemm_rate


def backward_error(a, x, b):
    """``|b - a x| / (|a| |x| + |b|)``, max norms (the matrix's by rows)."""
    residual = np.abs(b - a @ x).max()
    return residual / (np.abs(a).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=12000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--blocks", type=int, nargs="+", default=[1000, 2000, 3000, 4000])
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, args.k))
    flops = 2 * n**3 / 3
    best, numpy_rate, tegula_rate = gemm_rate(a)
    numpy_s, expected = best_of(2, lambda: np.linalg.solve(a, b))
    print(f"n = {n}, k = {args.k}; NumPy's BLAS: {fair_blas.blas_kernels()}; tegula's GEMM: {tg.config.gemm()}")
    print(f"GEMM: NumPy {numpy_rate:.1f}, tegula in one block {tegula_rate:.1f} GFLOP/s (best {best:.1f}); "
          f"np.linalg.solve {numpy_s:.2f} s ({flops / numpy_s / 1e9:.1f} GFLOP/s), backward error {backward_error(a, expected, b):.1e}")
    print("\n| block | tegula s (first) | GFLOP/s | / best GEMM | NumPy s / tegula s | Dask s | tegula / Dask | backward error |")
    print("|---|---|---|---|---|---|---|---|")
    for block in args.blocks:
        x, rhs = tg.asarray(a, chunks=block), tg.asarray(b, chunks=(block, args.k))
        first, _ = best_of(1, lambda: la.solve(x, rhs).compute())
        warm, solved = best_of(2, lambda: la.solve(x, rhs).compute())
        dask_cell = ratio_cell = "—"
        if not args.no_dask:
            import dask.array as da

            d, db = da.from_array(a, chunks=block), da.from_array(b, chunks=(block, args.k))
            dask_s, _ = best_of(1, lambda: da.linalg.solve(d, db).compute())
            dask_cell, ratio_cell = f"{dask_s:.2f}", f"{warm / dask_s:.2f}"
        rate = flops / warm / 1e9
        print(f"| {block} | {warm:.2f} ({first:.2f}) | {rate:.1f} | {rate / best:.2f} | {numpy_s / warm:.2f} | "
              f"{dask_cell} | {ratio_cell} | {backward_error(a, solved, b):.1e} |", flush=True)


if __name__ == "__main__":
    main()
