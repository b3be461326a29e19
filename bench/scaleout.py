"""Simulated scale-out: bench/cluster.py's workloads planned for 3 (the real cluster's size),
16, 64 and 256 nodes, their fragments placed by tegula (``place``: subtrees kept whole, greedy
LSHS cost, then refined by local search) and by the block-cyclic baseline (NumS's default layout, blind to where inputs
are), each placement replayed by tegula's simulator: bytes moved between nodes, each node's
bytes received + sent and its peak of blocks held. Plans only: nothing is computed, and Ray
is not needed.

    .venv/bin/python bench/scaleout.py               # the sizes of the issue
    .venv/bin/python bench/scaleout.py --scale 0.25  # every side a quarter as long

The factorisations are also set against ScaLAPACK's 2D block-cyclic layout on the squarest
grid of the nodes (``bench/scalapack_volume.py``: its bytes counted tile by tile), once as
bench/cluster.py plans them (the matrix made on the nodes first: ``(x + x^T)/2 + c I`` moves
the transposed blocks) and once of a matrix the caller gives (held block-cyclically over the
nodes to begin with, as ScaLAPACK's is), the factorisation alone.

Logistic regression runs 10 computes, one per Newton step, whose plans differ only in the
values of the coefficients: the first step's plan is simulated.

    .venv/bin/python bench/scaleout.py --workloads cholesky solve --nodes 4 16 64
"""

import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

from cluster import WORKLOADS, newton, sizes, workloads
from scalapack_volume import cholesky_bytes, grid, lu_solve_bytes

PLACEMENTS = ("tegula", "block-cyclic")
# The right-hand sides of bench/cluster.py's solve.
RHS = 16
# Large enough that no plan is refused for a fragment bigger than a node.
NODE_MEMORY = 64 << 30
MIB = 1 << 20


def first_newton_step(lib, p):
    """The arrays bench/cluster.py's logistic regression computes in its first Newton step."""
    steps = []

    def capture(*arrays):
        steps.append(arrays)
        return np.zeros(p["cols"]), np.eye(p["cols"])

    newton(capture, lib, dict(p, steps=1))
    return steps[0]


def simulate(tg, arrays, nodes, placement):
    return tg._tegula.simulate([a._h for a in arrays], nodes, node_memory=NODE_MEMORY, placement=placement)


def figures(sim):
    """Total bytes moved; max and mean bytes in + out per node; max and mean peak per node."""
    traffic = [n["bytes_in"] + n["bytes_out"] for n in sim["nodes"]]
    peaks = [n["peak_bytes"] for n in sim["nodes"]]
    return sim["bytes_between_nodes"], max(traffic), np.mean(traffic), max(peaks), np.mean(peaks)


def ratio(ours, theirs):
    return f"{ours / theirs:.2f}" if theirs else "—"


def table_rows(name, nodes, ours, theirs):
    """tegula's row, with its ratios to the baseline, then the baseline's."""
    cells = lambda row: " | ".join(f"{v / MIB:.1f}" for v in row)  # noqa: E731
    yield f"| {name} | {nodes} | tegula | {cells(ours)} | {ratio(ours[0], theirs[0])} | {ratio(ours[3], theirs[3])} |"
    yield f"| {name} | {nodes} | block-cyclic | {cells(theirs)} | | |"


def given_factorisations(tg, p):
    """bench/cluster.py's Cholesky and solve of its matrix made here and given to the plan."""
    n, b = p["n"], p["block"]
    x = np.random.default_rng(0).standard_normal((n, n))
    spd = (x + x.T) / 2 + 2 * np.sqrt(n) * np.eye(n)
    rhs = np.random.default_rng(1).standard_normal((n, RHS))
    a = lambda: tg.asarray(spd, chunks=b)  # noqa: E731
    return {"cholesky of a given matrix": lambda: [tg.linalg.cholesky(a())],
            "solve of a given matrix": lambda: [tg.linalg.solve(a(), tg.asarray(rhs, chunks=(b, RHS)))]}


def scalapack_row(name, nodes, ours, p):
    """ScaLAPACK's bytes for a factorisation workload, and tegula's moved bytes against them."""
    n, b = p["n"], p["block"]
    moved = cholesky_bytes(n, b, nodes) if name.startswith("cholesky") else lu_solve_bytes(n, b, nodes, RHS)
    pr, pc = grid(nodes)
    return (f"| {name} | {nodes} | 2D block-cyclic {pr}×{pc} (ScaLAPACK, analytic) | {moved / MIB:.1f} | | | | | "
            f"tegula / 2D: {ratio(ours[0], moved)} | |")


def commit():
    run = lambda *args: subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()  # noqa: E731
    return run("rev-parse", "--short", "HEAD") + (" (with changes)" if run("status", "--porcelain", "--untracked-files=no") else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, nargs="+", default=[3, 16, 64, 256])
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, help="only these (default: all)")
    args = parser.parse_args()
    p = sizes(args.scale)
    import tegula as tg

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; Python {sys.version.split()[0]}, "
          f"tegula {tg.__version__} at {commit()}, numpy {np.__version__}; nodes of {NODE_MEMORY // (1 << 30)} GiB; "
          f"sizes {p}; command: {' '.join([os.path.basename(sys.executable), *sys.argv])}\n")
    cases = {name: lambda make=make: [make()] for name, make in workloads(tg, p).items()}
    cases["logistic regression (first Newton step)"] = lambda: first_newton_step(tg, p)
    chosen = lambda name: args.workloads is None or name.split(" (")[0].split(" of a given")[0] in args.workloads  # noqa: E731
    cases.update(given_factorisations(tg, p))
    cases = {name: arrays for name, arrays in cases.items() if chosen(name)}
    print("| workload | N | placement | moved (MiB) | max in+out per node (MiB) | mean in+out (MiB) "
          "| max peak per node (MiB) | mean peak (MiB) | moved, tegula / baseline | max peak, tegula / baseline |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for name, arrays in cases.items():
        for nodes in args.nodes:
            ours, theirs = (figures(simulate(tg, arrays(), nodes, placement)) for placement in PLACEMENTS)
            print("\n".join(table_rows(name, nodes, ours, theirs)))
            if name.split(" ")[0] in ("cholesky", "solve"):
                print(scalapack_row(name, nodes, ours, p))
    print(f"\n{time.perf_counter() - start:.2f} s to plan and simulate every row")


if __name__ == "__main__":
    main()
