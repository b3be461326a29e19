"""Matrix products big enough for a GEMM library: against NumPy over random shapes, chunkings and
operand layouts; products of small blocks computed over merged blocks, keeping their chunks;
and each GEMM tegula may choose (faer, or NumPy's OpenBLAS where faster: ``tg.config.gemm()``)
giving NumPy's values and the same bits on threads and processes."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg


def operand(data, rng, dtype, rows, cols):
    """A ``rows × cols`` operand laid out as drawn: C order, the transpose of a C array, or a
    window of a bigger one (rows not adjacent in memory), as tegula and NumPy both see it."""
    layout = data.draw(st.sampled_from(["c", "transposed", "window"]))
    if layout == "transposed":
        return rng.standard_normal((cols, rows)).astype(dtype).T
    if layout == "window":
        return rng.standard_normal((rows + 3, cols + 5)).astype(dtype)[2:2 + rows, 3:3 + cols]
    return rng.standard_normal((rows, cols)).astype(dtype)


def blocks(data, n):
    return data.draw(st.sampled_from([n, max(1, n // 2), 64, 100, 129]), label="block")


def assert_close(got, a, b):
    expected = a.astype(np.float64) @ b.astype(np.float64)
    eps = float(np.finfo(a.dtype).eps)
    bound = 4 * a.shape[1] * eps * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-30
    assert got.dtype == np.result_type(a, b) and got.shape == expected.shape
    assert np.all(np.abs(got - expected) <= bound)


@settings(max_examples=12, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64]),
       sides=st.tuples(*[st.sampled_from([33, 130, 517, 600]) for _ in range(3)]))
def test_products_of_gemm_size_match_numpy_whatever_the_layout_and_blocks(data, dtype, sides):
    m, k, n = sides
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    a, b = operand(data, rng, dtype, m, k), operand(data, rng, dtype, k, n)
    x = tg.asarray(a, chunks=(blocks(data, m), blocks(data, k)))
    y = tg.asarray(b, chunks=(blocks(data, k), blocks(data, n)))
    product = x @ y
    assert product.chunks == (x.chunks[0], y.chunks[1])
    assert_close(product.compute(), a, b)
    # The same product of transposed lazy operands (views of each block).
    assert_close((y.T @ x.T).compute(), b.T, a.T)


def test_a_product_of_small_blocks_runs_over_merged_blocks_and_keeps_its_chunks():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((600, 700)), rng.standard_normal((700, 650))
    x, y = tg.asarray(a, chunks=100), tg.asarray(b, chunks=100)
    product = x @ y
    assert product.chunks == (x.chunks[0], y.chunks[1])
    # 6 x 7 x 7 block products (and their sums) unmerged; merged: one product of whole matrices.
    assert product.task_count() < 6 * 7 * 7
    assert_close(product.compute(), a, b)
    # A short side (a product bound by reading its operands) is not merged.
    narrow = tg.asarray(a, chunks=100) @ tg.asarray(b[:, :8], chunks=(100, 8))
    assert narrow.task_count() >= 6 * 7
    assert_close(narrow.compute(), a, b[:, :8])


GEMM_SCRIPT = """
import json, sys
import numpy as np
import tegula as tg
rng = np.random.default_rng(7)
out = {"gemm": tg.config.gemm(), "cases": []}
for (m, k, n), chunks, dtype in [((600, 530, 700), 100, np.float64), ((1100, 300, 900), 256, np.float32),
                                 ((700, 600, 40), 128, np.float64)]:
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    x, y = tg.asarray(a, chunks=chunks), tg.asarray(b.T.copy().T, chunks=chunks)
    threads = (x @ y).compute()
    processes = (x @ y).compute(scheduler="processes", num_workers=2)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.abs(threads - exact).max() / np.abs(exact).max())
    out["cases"].append({"same_bits": bool(np.array_equal(threads, processes)), "relative_error": err,
                         "dtype": str(threads.dtype)})
print(json.dumps(out))
"""


def run_with(env_updates, script=GEMM_SCRIPT):
    env = {**os.environ, **env_updates}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("gemm", ["faer", "blas"])
def test_each_gemm_gives_numpys_values_and_the_same_bits_on_threads_and_processes(gemm, tmp_path):
    done = run_with({"TEGULA_GEMM": gemm, "TEGULA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["gemm"]["decided_by"] == "TEGULA_GEMM"
    assert result["gemm"]["uses_blas"] == (gemm == "blas")
    for case in result["cases"]:
        assert case["same_bits"], case
        assert case["relative_error"] < (1e-4 if case["dtype"] == "float32" else 1e-12), case


def test_the_choice_is_measured_once_per_machine_and_then_read_back(tmp_path):
    script = "import json, tegula as tg; print(json.dumps(tg.config.gemm()))"
    first = run_with({"TEGULA_GEMM": "auto", "TEGULA_CACHE_DIR": str(tmp_path)}, script)
    second = run_with({"TEGULA_GEMM": "", "TEGULA_CACHE_DIR": str(tmp_path)}, script)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (first, second))
    assert first["decided_by"] == "measured" and second["decided_by"] == "cached"
    assert first["blas_gflops"] > 0 and first["faer_gflops"] > 0
    assert (second["blas_gflops"], second["faer_gflops"], second["uses_blas"]) == \
        (first["blas_gflops"], first["faer_gflops"], first["uses_blas"])
    assert first["uses_blas"] == (first["blas_gflops"] > 1.02 * first["faer_gflops"])
    assert len(os.listdir(tmp_path)) == 1


def test_an_unknown_gemm_setting_is_a_value_error_naming_it(tmp_path):
    done = run_with({"TEGULA_GEMM": "mkl", "TEGULA_CACHE_DIR": str(tmp_path)}, "import tegula")
    assert done.returncode != 0
    assert "ValueError" in done.stderr and "TEGULA_GEMM" in done.stderr
