"""Monte Carlo estimate of pi from 2 billion random points — 32 GB of coordinates that NumPy
would have to hold in memory at once. tegula streams them chunk by chunk on every core and
never holds more than a few chunks."""

import argparse
import math
import resource
import time


def add_arguments(parser):
    parser.add_argument("--points", type=float, default=2e9, help="random points (default 2e9)")
    parser.add_argument("--chunk", type=float, default=2.5e6, help="points per chunk (default 2.5e6)")


def run(n, chunk):
    """Estimates pi from ``n`` points in chunks of ``chunk`` and prints the plan, the estimate,
    the time and the peak memory of the process."""
    import tegula as tg

    rng = tg.random.default_rng(2026)
    x = rng.random(n, chunks=chunk)
    y = rng.random(n, chunks=chunk)
    inside = (x * x + y * y < 1.0).sum()
    estimate = 4 * inside / n
    print(f"points: {n:,} in chunks of {chunk:,} ({2 * n * 8 / 1e9:.0f} GB of float64 coordinates)")
    print(f"plan:   {estimate.task_count():,} chunk tasks")

    start = time.perf_counter()
    value = float(estimate.compute())
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"pi ~= {value:.6f}  (error {abs(value - math.pi):.1e})")
    print(f"time:   {seconds:.1f} s ({n / seconds / 1e6:,.0f} M points/s)")
    print(f"peak memory of the whole process: {peak_mb:,.0f} MB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    run(int(args.points), int(args.chunk))
