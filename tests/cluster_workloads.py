"""What the cluster executors' tests (Ray, Dask) share: a workload of each family, the
bit-for-bit comparison with the threaded executor, and a slow block function (to kill or
remove workers while it runs)."""

import time

import numpy as np

import tegula as tg
import tegula.linalg as la
from test_linalg_api import tiles_for_any_size

FAMILIES = ["elementwise", "reductions", "matmul", "indexing", "sort", "linalg", "factorisations", "cumulative"]


def same(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def workloads(rng):
    a = rng.standard_normal((300, 240))
    x = tg.asarray(a, chunks=(70, 50))
    v = tg.asarray(rng.integers(-50, 50, size=5000), chunks=700)
    return {
        "elementwise": tg.sin(x) * 2 + x.T.T,
        "reductions": (x.sum(axis=0), x.mean(), x.std(axis=1), x.max(axis=0)),
        "matmul": x @ x.T,
        "indexing": (x[::3, 10:200:7], x[[5, 0, 299]], x[x[:, 0] > 0]),
        "sort": (tg.sort(v), tg.argsort(v, stable=True), tg.sort(x, axis=0)),
        "linalg": tuple(tg.linalg.qr(x)) + (tg.linalg.svdvals(x),),
        "factorisations": factorisations(rng),
        "cumulative": (tg.cumsum(x, axis=0), tg.cumprod(v.astype("float32") / 40, axis=0)),
    }


def factorisations(rng):
    """Cholesky, LU-based solve and lstsq by tiles in a ragged grid (the size limit lowered, so a
    small matrix takes a big one's path)."""
    n = 230
    g = rng.standard_normal((n, n))
    spd = tg.asarray(g @ g.T / n + np.eye(n), chunks=60)
    a = tg.asarray(rng.standard_normal((n, n)), chunks=60)
    b = tg.asarray(rng.standard_normal((n, 4)), chunks=(60, 4))
    with tiles_for_any_size():
        return la.cholesky(spd), la.solve(a, b), la.lstsq(a, b)[0]


def slow_double(block):
    time.sleep(0.2)
    return block * 2
