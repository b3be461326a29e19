"""``lstsq`` of a tall float64 matrix (10⁶ × 500 by default) and of a square one (8000²), with
one right-hand side, in memory: tegula (``tegula.linalg.lstsq``: one QR of ``a`` and ``b`` side
by side, TSQR for the tall matrix in row blocks, tiles for the square one) against Dask's
``da.linalg.lstsq`` (which needs the matrix in one column block) and ``np.linalg.lstsq`` on
the whole matrix, with the residuals' largest relative difference from NumPy's.

    python bench/lstsq.py [--tall 1000000 500] [--tall-rows 100000] [--square 8000] [--square-block 2000]
"""

import argparse
import time

import fair_blas  # before NumPy: NumPy on this machine's own BLAS kernels
import numpy as np

import tegula as tg
import tegula.linalg as la


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def tegula_lstsq(a, b, chunks):
    x, residuals, rank, s = la.lstsq(tg.asarray(a, chunks=chunks), tg.asarray(b, chunks=chunks[0]))
    return tg.compute(x, residuals, s) + (rank,)


def dask_lstsq(a, b, rows):
    import dask
    import dask.array as da

    x, residuals, rank, s = da.linalg.lstsq(da.from_array(a, chunks=(rows, a.shape[1])), da.from_array(b, chunks=rows))
    return dask.compute(x, residuals, rank, s)


def row(name, a, b, chunks, dask_rows):
    numpy_s, (_, want, rank, _) = timed(lambda: np.linalg.lstsq(a, b, rcond=None))
    timed(lambda: tegula_lstsq(a, b, chunks))  # a first compute (fresh memory)
    tegula_s, (_, residuals, _, got_rank) = timed(lambda: tegula_lstsq(a, b, chunks))
    dask_s, _ = timed(lambda: dask_lstsq(a, b, dask_rows))
    error = float(np.abs(residuals - want).max() / np.abs(want).max()) if want.size else 0.0
    print(f"| {name} | {chunks} | {tegula_s:.2f} | {dask_s:.2f} | {tegula_s / dask_s:.2f} | {numpy_s:.2f} | "
          f"{got_rank} / {rank} | {error:.1e} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tall", type=int, nargs=2, default=[1_000_000, 500])
    parser.add_argument("--tall-rows", type=int, default=100_000)
    parser.add_argument("--square", type=int, default=8000)
    parser.add_argument("--square-block", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"NumPy's BLAS: {fair_blas.blas_kernels()}; tegula's GEMM: {tg.config.gemm()}")
    print("\n| matrix | tegula chunks | tegula s | Dask s | tegula / Dask | NumPy s | rank (NumPy's) | residuals' difference |")
    print("|---|---|---|---|---|---|---|---|")
    m, n = args.tall
    a, b = rng.standard_normal((m, n)), rng.standard_normal(m)
    row(f"{m} × {n}", a, b, (args.tall_rows, n), args.tall_rows)
    del a, b
    n = args.square
    a, b = rng.standard_normal((n, n)), rng.standard_normal(n)
    # Dask's lstsq needs one column block: its row blocks are the tegula blocks' height.
    row(f"{n} × {n}", a, b, (args.square_block, args.square_block), args.square_block)


if __name__ == "__main__":
    main()
