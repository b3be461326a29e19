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

``--weak``: weak-scaled instead (``bench/weak_scaling.py``): on N = 4, 16, 64, 256 and 1,024
nodes (``--nodes``), each workload with about ``--per-node`` GB (10^9 bytes) of operands per
node in blocks of ``--block``² float64 (4000²: 128 MB), on nodes of ``--node-memory`` GiB.
Products are set against SUMMA's 2D and 2.5D layouts (``bench/summa_volume.py``), the
factorisations against ScaLAPACK's. Each row (a workload on N nodes) is planned in a process of
its own, timed: its plan alone (``describe``: the tasks), then plan, placement and simulation
by block-cyclic and by tegula (one ``simulate`` call each); a row that takes over
``--timeout`` seconds, or whose process holds over ``--rss-limit`` GiB, is stopped and the
workload goes no further in N.

    .venv/bin/python bench/scaleout.py --weak
    .venv/bin/python bench/scaleout.py --weak --nodes 4 16 64 --per-node 0.25 --workloads "x @ x.T"
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from cluster import WORKLOADS, sizes, workloads
from scalapack_volume import cholesky_bytes, grid, lu_solve_bytes
from weak_scaling import GB, NAMES, first_newton_step, weak_cases

PLACEMENTS = ("tegula", "block-cyclic")
# The right-hand sides of bench/cluster.py's solve.
RHS = 16
# Large enough that no plan is refused for a fragment bigger than a node.
NODE_MEMORY = 64 << 30
MIB = 1 << 20


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


def weak_row(tg, name, nodes, args):
    """One weak-scaled row, in this process: each step's figures as a line of JSON."""
    from tegula._ray import FETCH_BATCH_BYTES

    case = weak_cases(tg, nodes, args.per_node * GB, args.block)[name]
    arrays = case.arrays()
    node_memory = int(args.node_memory * (1 << 30))
    # The results returned to the caller must fit the planning budget; raising it past a
    # node's memory only changes that check and the staging of rechunks (the rechunk case
    # returns a vector), and describe plans within the same budget.
    budget = max(node_memory, sum(a.nbytes for a in arrays))
    os.environ["TEGULA_MEMORY"] = str(budget)
    report = lambda **step: print(json.dumps(step), flush=True)  # noqa: E731
    report(step="case", operand_bytes=case.operand_bytes, shape=case.shape, budget=budget)
    counted = arrays[0] if len(arrays) == 1 else tg.concatenate([a.reshape(-1) for a in arrays])
    start = time.perf_counter()
    tasks = len(counted._h.describe(True)["task_label"])
    report(step="plan", tasks=tasks, seconds=time.perf_counter() - start)
    for placement in reversed(PLACEMENTS):
        start = time.perf_counter()
        # tegula's plan also loses node 0 once half its fragments have run (a pass over the
        # tasks), results fetched as the Ray executor fetches them (it rebuilds lost blocks
        # from their lineage, as the simulation does).
        lose = 0 if placement == "tegula" else None
        sim = tg._tegula.simulate([a._h for a in arrays], nodes, node_memory=node_memory, memory=budget, placement=placement,
                                  lose_node=lose, fetch_batch=FETCH_BATCH_BYTES)
        seconds = time.perf_counter() - start
        report(step=placement, seconds=seconds, fragments=sim["fragments"], figures=[float(v) for v in figures(sim)],
               loss=sim.get("node_loss"))
    report(step="done", rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10)


def resident(pid):
    """The bytes process `pid` holds in memory now (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0


def run_row(name, nodes, args):
    """`weak_row` in a child process, stopped past --timeout seconds or --rss-limit GiB: its
    steps, its peak resident bytes, and why it was stopped (None when it finished)."""
    command = [sys.executable, os.path.abspath(__file__), "--weak", "--row", name, str(nodes), "--per-node",
               str(args.per_node), "--block", str(args.block), "--node-memory", str(args.node_memory)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err)
        start, peak, stopped = time.perf_counter(), 0, None
        while child.poll() is None:
            peak = max(peak, resident(child.pid))
            if time.perf_counter() - start > args.timeout:
                stopped = f"stopped after {args.timeout:.0f} s"
            elif peak > args.rss_limit * (1 << 30):
                stopped = f"stopped holding {peak / (1 << 30):.1f} GiB"
            if stopped:
                child.kill()
                child.wait()
                break
            time.sleep(0.2)
        out.seek(0)
        err.seek(0)
        steps = {s["step"]: s for s in map(json.loads, filter(str.strip, out))}
        if child.returncode and not stopped:
            stopped = "failed: " + (err.read().strip().splitlines() or ["?"])[-1]
    peak = max(peak, steps.get("done", {}).get("rss", 0))
    return steps, peak, stopped


WEAK_HEADER = ("| workload | N | operands | per node (GB) | tasks | moved, tegula (GiB) | block-cyclic (GiB) | 2D reference (GiB) "
               "| 2.5D (GiB, layers) | tegula / 2D | tegula / 2.5D | tegula / block-cyclic | in+out max / mean (max), tegula "
               "| in+out max / mean (max), block-cyclic | peak max / node memory, tegula | peak mean / node memory, tegula "
               "| node 0 lost halfway, results fetched as on Ray: work redone / its share (fragments redone) "
               "| plan s | block-cyclic s | tegula s | planner RSS (MiB) |")


def human(nbytes):
    return f"{nbytes / (1 << 30):.1f} GiB" if nbytes >= 1 << 30 else f"{nbytes / MIB:.1f} MiB"


def lost(loss):
    """A node loss's work redone over the lost node's share, and the fragments redone."""
    if not loss:
        return "—"
    share = f"{loss['redone_work'] / loss['node_work']:.2f}" if loss["node_work"] else "—"
    return f"{share} ({loss['redone_fragments']})"


def weak_cells(case, nodes, steps, peak, args):
    """The cells of a weak row after its operands' description, as far as its steps went."""
    node_memory = args.node_memory * (1 << 30)
    ours, theirs = (steps.get(p, {}).get("figures") for p in PLACEMENTS)
    reference = case.reference(args.block, nodes, node_memory) if case.reference else None
    gib = lambda v: f"{v / (1 << 30):.1f}" if v is not None else "—"  # noqa: E731
    two_d, (replicated, layers) = (reference[1], reference[2] or (None, None)) if reference else (None, (None, None))
    pick = lambda fig, i: fig[i] if fig else None  # noqa: E731
    balance = lambda fig: f"{fig[1] / fig[2]:.2f} ({human(fig[1])})" if fig and fig[2] else "—"  # noqa: E731
    share = lambda fig, i: f"{fig[i] / node_memory:.2f}" if fig else "—"  # noqa: E731
    compare = lambda a, b: ratio(a, b) if a is not None and b is not None else "—"  # noqa: E731
    seconds = lambda step: f"{steps[step]['seconds']:.2f}" if step in steps else "—"  # noqa: E731
    return [
        str(steps["plan"]["tasks"]) if "plan" in steps else "—",
        gib(pick(ours, 0)), gib(pick(theirs, 0)),
        f"{gib(two_d)} ({reference[0]})" if two_d is not None else "—",
        f"{gib(replicated)} ({layers})" if replicated is not None else "—",
        compare(pick(ours, 0), two_d), compare(pick(ours, 0), replicated), compare(pick(ours, 0), pick(theirs, 0)),
        balance(ours), balance(theirs), share(ours, 3), share(ours, 4), lost(steps.get("tegula", {}).get("loss")),
        seconds("plan"), seconds("block-cyclic"), seconds("tegula"), f"{peak / (1 << 20):.0f}",
    ]


def weak_main(args, tg):
    """The weak-scaled table, row by row; a workload stops growing at its first stopped row."""
    names = args.workloads or NAMES
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; Python {sys.version.split()[0]}, "
          f"tegula {tg.__version__} at {commit()}, numpy {np.__version__}; weak-scaled: {args.per_node} GB of operands "
          f"per node, blocks of {args.block}² float64, nodes of {args.node_memory} GiB, each row stopped after "
          f"{args.timeout:.0f} s or {args.rss_limit} GiB; command: {' '.join([os.path.basename(sys.executable), *sys.argv])}\n")
    print(WEAK_HEADER)
    print("|---" * WEAK_HEADER.count("| ") + "|")
    start = time.perf_counter()
    for name in names:
        for nodes in args.nodes:
            case = weak_cases(tg, nodes, args.per_node * GB, args.block)[name]
            steps, peak, stopped = run_row(name, nodes, args)
            per_node = case.operand_bytes / nodes / GB
            cells = [name, str(nodes), case.shape, f"{per_node:.2f}", *weak_cells(case, nodes, steps, peak, args)]
            print("| " + " | ".join(cells) + " |", flush=True)
            if stopped:
                step = next((p for p in ("plan", *reversed(PLACEMENTS)) if p not in steps), "?")
                print(f"\n{name} on {nodes} nodes: {stopped} (in step {step}); no larger N for it\n", flush=True)
                break
    print(f"\n{time.perf_counter() - start:.0f} s for the whole table")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, nargs="+")
    parser.add_argument("--workloads", nargs="+", help="only these (default: all)")
    parser.add_argument("--weak", action="store_true", help="weak-scaled: operands grow with the node count")
    parser.add_argument("--per-node", type=float, default=1.0, help="--weak: GB of operands per node")
    parser.add_argument("--block", type=int, default=4000, help="--weak: the side of a matrix's blocks")
    parser.add_argument("--node-memory", type=float, default=16, help="--weak: each node's memory, GiB")
    parser.add_argument("--timeout", type=float, default=300, help="--weak: seconds a row may take")
    parser.add_argument("--rss-limit", type=float, default=16, help="--weak: GiB a row's planner may hold")
    parser.add_argument("--row", nargs=2, metavar=("WORKLOAD", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    import tegula as tg

    if args.row:
        return weak_row(tg, args.row[0], int(args.row[1]), args)
    known = NAMES if args.weak else WORKLOADS
    if unknown := set(args.workloads or ()) - set(known):
        parser.error(f"unknown workloads {sorted(unknown)}; one of {list(known)}")
    if args.weak:
        args.nodes = args.nodes or [4, 16, 64, 256, 1024]
        return weak_main(args, tg)
    args.nodes = args.nodes or [3, 16, 64, 256]
    p = sizes(args.scale)
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
