"""The same engine from Rust and from Python: the seed workloads of
``crates/tegula/examples/workloads.rs`` (run small, printing each result's float64 bits) and the
same programs written here with ``tegula`` (same seeds, shapes, chunks and order of random
draws) give results equal bit for bit."""

import math
import os
import subprocess
import tempfile

import numpy as np
import pytest

import tegula as tg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def rust_bits():
    """Each workload's values as printed by the Rust example (hex of float64 bits), built in the
    Cargo profile ``TEGULA_CARGO_PROFILE`` names (scripts/test.sh's, else ``dev``), with the GEMM
    this process chose (``TEGULA_BLAS`` names NumPy's OpenBLAS to it), and the features
    ``TEGULA_CARGO_FEATURES`` names (scripts/test.sh's, so the example reuses its build)."""
    profile = os.environ.get("TEGULA_CARGO_PROFILE", "dev")
    features = os.environ.get("TEGULA_CARGO_FEATURES")
    command = ["cargo", "run", "-q", "-p", "tegula", "--profile", profile, *(["--features", features] if features else []),
               "--example", "workloads", "--", "--small", "--bits"]
    gemm = tg.config.gemm()
    env = {**os.environ, **({"TEGULA_BLAS": gemm["library"]} if gemm else {})}
    out = subprocess.run(command,
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=1200, env=env).stdout
    return {name: values for name, *values in (line.split() for line in out.splitlines() if line)}


def bits(values):
    return [f"{np.float64(v).view(np.uint64):016x}" for v in np.asarray(values, dtype=np.float64).ravel()]


def small(base):
    return max(base // 10, 1)


def matmul():
    n = small(2000)
    rng = tg.random.default_rng(1)
    x, y = rng.random((n, n), chunks=math.ceil(n / 4)), rng.random((n, n), chunks=math.ceil(n / 4))
    return [(x @ y).sum().compute()]


def gram():
    x = tg.random.default_rng(2).random((small(4000), small(1000)), chunks=small(1000))
    return [(x @ x.T).sum().compute()]


def tsqr():
    x = tg.random.default_rng(3).standard_normal((small(200_000), 50), chunks=(small(20_000), -1))
    r = tg.linalg.qr(x).R
    corner, s = tg.compute(r[0, 0], tg.linalg.svdvals(x))
    return s


def logreg():
    n, d, rows = small(400_000), 20, small(50_000)
    rng = tg.random.default_rng(4)
    x = rng.standard_normal((n, d), chunks=(rows, -1))
    truth = tg.linspace(-1.0, 1.0, d, chunks=d)
    noise = rng.standard_normal(n, chunks=rows)
    y = ((x @ truth + noise) > 0).astype("float64")
    x, y = tg.persist(x, y)
    w = tg.zeros(d, chunks=d)
    for _ in range(6):
        mu = 1 / (tg.exp(-(x @ w)) + 1.0)
        gradient = x.T @ (mu - y)
        hessian = (x.T * (mu * (1 - mu))) @ x
        step = tg.linalg.solve(hessian, gradient.reshape(d, 1)).reshape(d)
        w = tg.asarray((w - step).compute(), chunks=d)
    return w.compute()


def zarr_stats():
    block = small(1000)
    x = tg.random.default_rng(5).standard_normal((small(4000), small(2000)), chunks=block)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.zarr")
        tg.to_zarr(x, path, chunks=(block, block), compressor="zstd", compression_level=1)
        stored = tg.from_zarr(path)
        mean, std, quartiles = tg.compute(stored.mean(), stored.std(), tg.quantile(stored, [0.25, 0.5, 0.75]))
    return [mean, std, *quartiles]


def unique():
    x = tg.random.default_rng(6).integers(0, 1000, small(2_000_000), chunks=small(250_000))
    return tg.unique(x, return_counts=True, equal_nan=False)[1].compute()


def einsum():
    rng = tg.random.default_rng(7)
    a = rng.random((small(2000), small(1000)), chunks=small(500))
    b = rng.random((small(1000), small(800)), chunks=small(500))
    v = rng.random(small(800), chunks=small(400))
    return [tg.einsum("ij,jk,k->i", a, b, v).sum().compute()]


def laplacian(v):
    out = np.zeros_like(v)
    out[1:-1, 1:-1] = v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:] - 4.0 * v[1:-1, 1:-1]
    return out


def stencil():
    n = small(4000)
    grid = tg.random.default_rng(8).random((n, n), chunks=small(1000))
    return [tg.map_overlap(laplacian, grid, depth=1, boundary="nearest", dtype="float64").sum().compute()]


def sort():
    x = tg.random.default_rng(9).random(small(10_000_000), chunks=small(1_000_000))
    ordered = tg.sort(x).compute()
    return [ordered[0], ordered[len(ordered) // 2], ordered[-1]]


WORKLOADS = {"matmul": matmul, "gram": gram, "tsqr": tsqr, "logreg": logreg, "zarr-stats": zarr_stats,
             "unique": unique, "einsum": einsum, "stencil": stencil, "sort": sort}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_rust_and_python_give_the_same_bits(rust_bits, name):
    assert bits(WORKLOADS[name]()) == rust_bits[name]
