"""What the cluster executors' tests (Ray, Dask) share: a workload of each family, the
bit-for-bit comparison with the threaded executor, and a slow block function (to kill or
remove workers while it runs)."""

import time

import tegula as tg

FAMILIES = ["elementwise", "reductions", "matmul", "indexing", "sort", "linalg", "cumulative"]


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
        "cumulative": (tg.cumsum(x, axis=0), tg.cumprod(v.astype("float32") / 40, axis=0)),
    }


def slow_double(block):
    time.sleep(0.2)
    return block * 2
