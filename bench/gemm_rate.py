"""What the factorisation benchmarks share: the best of repeated runs, and the GEMM rate they
are judged against, measured in the same run (import ``fair_blas`` before NumPy first)."""

import time

import tegula as tg


def best_of(runs, fn):
    """The shortest of ``runs`` timed calls of ``fn`` and the last one's result."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def gemm_rate(a):
    """GFLOP/s of ``a @ a``: the better of NumPy's whole product and tegula's product of the
    matrix in one block (which runs the GEMM tegula chose), then each of the two."""
    n = a.shape[0]
    numpy_s, _ = best_of(2, lambda: a @ a)
    whole = tg.asarray(a, chunks=-1)
    tegula_s, _ = best_of(2, lambda: (whole @ whole).compute())
    return max(2 * n**3 / numpy_s, 2 * n**3 / tegula_s) / 1e9, 2 * n**3 / numpy_s / 1e9, 2 * n**3 / tegula_s / 1e9
