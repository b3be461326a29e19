"""The GPU device against the CPU, in one run: the fused sum, a 30-operation element-wise
expression, ``mean`` and ``std`` along an axis, and a matrix product, each computed by tegula
on the CPU (threads) and on the GPU (``to_device("gpu")``), over a sweep of chunkings, with
the GPU's own limits measured in the same run (``_tegula.gpu_peaks()``: a streaming copy and
register multiply-adds).

    python bench/gpu.py [--quick] [--repeats N]

Each time is the median of ``--repeats`` runs after one untimed. A GPU computation starts from
the host's NumPy array and ends with the result on the host, so its time includes copying the
input in (as a CuPy user's ``cp.asarray`` would) and the result out; the rates are the data a
workload reads (or the products' flops) over that time, and ``of peak`` compares them with the
GPU's measured limits. Needs a build with the GPU device (README, "On a GPU"); on Mesa's
software driver the "GPU" is the CPU itself, so figures there only show that it runs.
"""

import argparse
import statistics
import time

import numpy as np

import tegula as tg
from tegula import _tegula


def e30(xp, x):
    """Thirty element-wise operations, fused on both devices."""
    y = x
    for k in range(10):
        y = xp.maximum(y * 0.999 + 0.001 * k, -y) - 0.5
    return y


# Each reads its input once.
WORKLOADS = {
    "fused sum": lambda xp, x: (x * 1.5 + 1).sum(),
    "e30": e30,
    "mean(axis=0)": lambda xp, x: x.mean(axis=0),
    "std(axis=0)": lambda xp, x: x.std(axis=0),
}


def timed(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small arrays (a smoke test)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    info = _tegula.gpu_info()
    peaks = _tegula.gpu_peaks()
    print(f"GPU: {info['adapter']}, float64: {info['float64']}")
    print(f"measured limits: {peaks['bytes_per_second'] / 1e9:.1f} GB/s streamed, {peaks['flops'] / 1e9:.1f} GFLOP/s float32")
    rows = 1 << (12 if args.quick else 14)
    data = np.random.default_rng(0).standard_normal((rows, 4096), dtype=np.float32)
    print(f"\nelement-wise and reductions over {rows} x 4096 float32 ({data.nbytes / 1e6:.0f} MB)")
    print(f"{'workload':<14}{'rows/block':>11}{'CPU s':>9}{'GPU s':>9}{'GPU GB/s':>10}{'of peak':>9}{'GPU/CPU':>9}")
    for name, work in WORKLOADS.items():
        for block_rows in (rows // 16, rows // 4):
            x = tg.asarray(data, chunks=(block_rows, 4096))
            cpu = timed(lambda: work(tg, x).compute(), args.repeats)
            gpu = timed(lambda: work(tg, x.to_device("gpu")).compute(), args.repeats)
            rate = data.nbytes / gpu
            print(f"{name:<14}{block_rows:>11}{cpu:>9.3f}{gpu:>9.3f}{rate / 1e9:>10.2f}{rate / peaks['bytes_per_second']:>9.2f}{gpu / cpu:>9.2f}")
    n = 1024 if args.quick else 4096
    a = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    print(f"\nmatrix product {n}^2 float32 ({2 * n**3 / 1e9:.1f} GFLOP)")
    print(f"{'block':>7}{'CPU s':>9}{'GPU s':>9}{'GPU GFLOP/s':>13}{'of peak':>9}{'GPU/CPU':>9}")
    for block in (n // 4, n // 2):
        x = tg.asarray(a, chunks=block)
        cpu = timed(lambda: (x @ x).compute(), args.repeats)
        gpu = timed(lambda: (x.to_device("gpu") @ x.to_device("gpu")).compute(), args.repeats)
        flops = 2 * n**3 / gpu
        print(f"{block:>7}{cpu:>9.3f}{gpu:>9.3f}{flops / 1e9:>13.1f}{flops / peaks['flops']:>9.2f}{gpu / cpu:>9.2f}")
    after = _tegula.gpu_info()
    print(f"\nkernels on the GPU: {after['kernels']}, on the CPU for want of a shader: {after['on_cpu']}")


if __name__ == "__main__":
    main()
