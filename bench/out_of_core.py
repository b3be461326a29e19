"""Cholesky and LU-based ``solve`` of an n×n float64 matrix stored as Zarr (40000², 12.8 GB, by
default) under a memory budget (4 GB), each in a fresh process whose peak RSS the kernel reports
(wait4's ru_maxrss: interpreter, libraries and blocks), against the in-memory rate of the same
factorisation of a smaller matrix and the GEMM rate, all measured in the same run.

    python bench/out_of_core.py [--n 40000] [--block 2000] [--budget 4GB] [--rhs 16]
                                [--in-memory 16000] [--dir /tmp/tegula-out-of-core] [--cold]

The matrix is ``(r + r^T) / 2 + 2 sqrt(n) I`` for a standard normal ``r`` (symmetric positive
definite, condition about 6), written once by tegula in ``block``² chunks and kept in ``--dir``.
``cholesky(a).to_zarr(...)`` writes the factor back to Zarr; ``solve(a, b)`` takes ``rhs``
random right-hand sides. Each is checked: ``L L^T`` against ``a`` on a band of rows, and the
solution's backward error ``|a x - b| / (|a| |x| + |b|)`` (max norms). ``--cold`` drops the
page cache before each factorisation (root only), so the matrix is read from the disk rather
than from memory the kernel kept.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import fair_blas  # before NumPy: NumPy on this machine's own BLAS kernels
import numpy as np

import tegula as tg
import tegula.linalg as la
from child import run_child
from gemm_rate import best_of, gemm_rate

CHECKED_ROWS = 256


def matrix(n, block):
    """The symmetric positive definite matrix, lazily: ``(r + r^T) / 2 + 2 sqrt(n) I``."""
    r = tg.random.default_rng(0).standard_normal((n, n), chunks=(block, block))
    return (r + r.T) / 2 + 2 * np.sqrt(n) * tg.eye(n, chunks=block)


def right_hand_sides(n, block, k):
    return tg.random.default_rng(1).standard_normal((n, k), chunks=(block, k))


def factor_path(directory, in_memory):
    return os.path.join(directory, "factor-in-memory.zarr" if in_memory else "factor.zarr")


def solution_path(directory, in_memory):
    return os.path.join(directory, "solution-in-memory.npy" if in_memory else "solution.npy")


def factorise(what, a, block, k, directory, in_memory):
    """The timed factorisation, its result kept in ``directory``, and its execution report: in
    memory, the result computed (the factor as a NumPy array, then stored untimed); from Zarr,
    the factor written to Zarr. The in-memory reference is a second compute (the first takes
    fresh memory)."""
    if what == "cholesky":
        out = factor_path(directory, in_memory)
        shutil.rmtree(out, ignore_errors=True)
        if not in_memory:
            return best_of(1, lambda: la.cholesky(a).to_zarr(out))
        tg.compute(la.cholesky(a))
        seconds, ((factor,), report) = best_of(1, lambda: tg.compute(la.cholesky(a), report=True))
        tg.asarray(factor, chunks=block).to_zarr(out)
        return seconds, report
    b = right_hand_sides(a.shape[0], block, k)
    if in_memory:
        tg.compute(la.solve(a, b))
    seconds, ((x,), report) = best_of(1, lambda: tg.compute(la.solve(a, b), report=True))
    np.save(solution_path(directory, in_memory), x)
    return seconds, report


def error(what, a, block, k, directory, in_memory):
    """Cholesky: ``L L^T`` against ``a`` on a band of rows, relative to ``a``'s largest element;
    solve: the backward error ``|a x - b| / (|a| |x| + |b|)`` in max norms."""
    if what == "cholesky":
        factor = tg.from_zarr(factor_path(directory, in_memory), chunks=block)
        start = a.shape[0] // 2
        rows = slice(start, start + CHECKED_ROWS)
        return abs(factor[rows] @ factor.T - a[rows]).max() / abs(a).max()
    b = right_hand_sides(a.shape[0], block, k)
    x = tg.asarray(np.load(solution_path(directory, in_memory)), chunks=(block, k))
    return abs(a @ x - b).max() / (abs(a).sum(axis=1).max() * abs(x).max() + abs(b).max())


def child(args):
    """One factorisation (or the check of one) in this process; prints its JSON result last."""
    if args.child == "make":
        matrix(args.n, args.block).to_zarr(args.path)
        print(json.dumps({}))
        return
    what, place, check = args.child.split(":")
    in_memory = place == "in-memory"
    if in_memory:
        a = matrix(args.n, args.block)
        if not check:
            (a,) = tg.persist(a)
        budget = tg.config.get("memory")
    else:
        a, budget = tg.from_zarr(args.path, chunks=args.block), args.budget
    with tg.config.set(memory=budget):
        if check:
            print(json.dumps({"error": float(error(what, a, args.block, args.rhs, args.dir, in_memory).compute())}))
            return
        seconds, report = factorise(what, a, args.block, args.rhs, args.dir, in_memory)
    print(json.dumps({"seconds": seconds, "spilled": report["spilled_bytes"], "memory": report["memory"]}))


def drop_page_cache():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run(args, what, n, cold=False):
    if cold:
        drop_page_cache()
    common = ["--n", str(n), "--block", str(args.block), "--budget", args.budget, "--rhs", str(args.rhs),
              "--dir", args.dir, "--path", args.path]
    result = run_child(__file__, [what, *common])
    if "failed" in result:
        sys.exit(f"{what} at n = {n} failed: exit status {result['failed']}")
    return result


def factorised_and_checked(args, what, place, n, cold):
    """The factorisation in a process of its own (the peak RSS its own), then its check in
    another."""
    factorised = run(args, f"{what}:{place}:", n, cold)
    return {**run(args, f"{what}:{place}:check", n), **factorised}


def row(name, n, flops, result, gemm, in_memory_rate=None):
    rate = flops / result["seconds"] / 1e9
    rss = result["peak_rss_mb"] * 2**20
    versus = f"{rate / in_memory_rate:.2f}" if in_memory_rate else "1"
    print(f"| {name} | {n}² | {result['memory'] / 1e9:.1f} GB | {result['seconds']:.1f} | {rate:.1f} | {rate / gemm:.2f} | "
          f"{versus} | {rss / 1e9:.2f} GB | {rss / result['memory']:.2f} | "
          f"{result['spilled'] / 1e9:.1f} GB | {result['error']:.1e} |", flush=True)
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40000)
    parser.add_argument("--block", type=int, default=2000)
    parser.add_argument("--budget", default="4GB")
    parser.add_argument("--rhs", type=int, default=16)
    parser.add_argument("--in-memory", type=int, default=16000, help="n of the in-memory run")
    parser.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "tegula-out-of-core"))
    parser.add_argument("--cold", action="store_true", help="drop the page cache before each factorisation")
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.path = args.path or os.path.join(args.dir, f"matrix-{args.n}-{args.block}.zarr")
    if args.child:
        return child(args)
    os.makedirs(args.dir, exist_ok=True)
    if not os.path.exists(args.path):
        made = run(args, "make", args.n)
        print(f"wrote the {args.n}² matrix to {args.path} (peak RSS {made['peak_rss_mb']:,.0f} MB)")
    small, n = args.in_memory, args.n
    runs = {name: [factorised_and_checked(args, name, *case) for case in (("in-memory", small, False), ("zarr", n, args.cold))]
            for name in ("cholesky", "solve")}
    # The GEMM rate last: a child started while this process holds the matrices would count
    # them in its peak RSS (the kernel carries the forked copy's high-water mark over exec).
    gemm, numpy_rate, tegula_rate = gemm_rate(np.random.default_rng(0).standard_normal((8000, 8000)))
    print(f"NumPy's BLAS: {fair_blas.blas_kernels()}; tegula's GEMM: {tg.config.gemm()}; GEMM of 8000²: "
          f"NumPy {numpy_rate:.1f}, tegula {tegula_rate:.1f} GFLOP/s\n")
    print("| factorisation | n | budget | s | GFLOP/s | / GEMM | / in memory | peak RSS | RSS / budget | spilled | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    flops = {"cholesky": lambda m: m**3 / 3, "solve": lambda m: 2 * m**3 / 3 + 2 * m * m * args.rhs}
    for name, (in_memory, stored) in runs.items():
        rate = row(f"{name}, in memory", small, flops[name](small), in_memory, gemm)
        row(f"{name}, Zarr", n, flops[name](n), stored, gemm, rate)


if __name__ == "__main__":
    main()
