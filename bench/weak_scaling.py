"""Weak-scaled workloads for ``bench/scaleout.py --weak``: on N nodes, operands of about
`per_node` bytes per node (every side grows with the square root of N, or the rows with N), in
blocks of a fixed size — b×b for matrices, the same bytes for row blocks. Everything is
generated (random numbers), so nothing of that size exists until computed; planning only.

- square matmul ``x @ y`` and ``x @ x.T``: n×n operands, n a whole number of b-tiles;
- tall-skinny ``A.T @ A``: A of `TALL_COLS` columns, its rows in blocks of b² elements;
- stacked mean: the mean of `STACK` planes (bench/cluster.py's), the planes growing;
- chained product ``(x @ y) @ z``: three n×n operands;
- logistic regression: bench/cluster.py's first Newton step (28 features, y beside X);
- rechunk: an n×n matrix in row strips of about b² elements, rechunked to column strips of
  the same width, then summed down its columns so that the result returned to the caller is
  a vector (an n×n result would have to fit the caller's memory): the strips move as a plain
  rechunk's, tegula staging the rechunk within a quarter of a node's memory;
- Cholesky and ``solve`` (16 right-hand sides): bench/cluster.py's, the matrix
  ``(x + x^T)/2 + c I`` made on the nodes from an n×n x, factorised by tiles of b.

Each case names the reference its bytes are set against: SUMMA's 2D and 2.5D layouts for the
products (``bench/summa_volume.py``; for ``x @ x.T`` computing C's upper tiles only, as tegula
does), ScaLAPACK's for the factorisations
(``bench/scalapack_volume.py``), none for the rest."""

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from cluster import newton, workloads
from scalapack_volume import cholesky_bytes, lu_solve_bytes
from summa_volume import replicated_bytes, summa_bytes

GB = 10**9
ITEM = 8
STACK = 16
TALL_COLS = 1000
LOGISTIC_COLS = 28
RHS = 16
NAMES = ("square matmul", "x @ x.T", "chained product", "tall-skinny A.T @ A", "stacked mean",
         "logistic regression", "rechunk", "cholesky", "solve")


@dataclass
class Case:
    """One workload at one node count: its arrays (made on call), what they hold, and its
    reference volumes (None where there is no reference)."""
    arrays: Callable[[], list]
    operand_bytes: int
    shape: str
    reference: Callable[[int, int], tuple] | None = None


def first_newton_step(lib, p):
    """The arrays bench/cluster.py's logistic regression computes in its first Newton step."""
    steps = []

    def capture(*arrays):
        steps.append(arrays)
        return np.zeros(p["cols"]), np.eye(p["cols"])

    newton(capture, lib, dict(p, steps=1))
    return steps[0]


def tiled_side(total_bytes, matrices, b):
    """The side of `matrices` square float64 matrices holding `total_bytes` together, in
    whole b-tiles (at least one)."""
    return max(1, round(math.sqrt(total_bytes / (matrices * ITEM)) / b)) * b


def row_blocks(total_bytes, row_bytes, block_rows):
    """How many blocks of `block_rows` rows of `row_bytes` hold `total_bytes` (at least one)."""
    return max(1, round(total_bytes / (row_bytes * block_rows)))


def products(n, count, gram=False):
    """SUMMA's 2D bytes and 2.5D (bytes, layers) for `count` products of n×n matrices; a Gram
    product's upper tiles only, as tegula computes them."""
    def reference(b, nodes, node_memory):
        two_d = summa_bytes(n, n, n, b, nodes, gram, upper=gram)
        moved, layers = replicated_bytes(n, n, n, b, nodes, node_memory, gram, upper=gram)
        return "SUMMA", count * two_d, (count * moved, layers)
    return reference


def matrix_products(tg, total, b):
    rng = tg.random.default_rng(0)
    normal = lambda n: rng.standard_normal((n, n), chunks=b)  # noqa: E731
    n2, n1, n3 = tiled_side(total, 2, b), tiled_side(total, 1, b), tiled_side(total, 3, b)
    return {
        "square matmul": Case(lambda: [normal(n2) @ normal(n2)], 2 * n2 * n2 * ITEM, f"2 × {n2}²", products(n2, 1)),
        "x @ x.T": Case(lambda: [(lambda x: x @ x.T)(normal(n1))], n1 * n1 * ITEM, f"{n1}²", products(n1, 1, gram=True)),
        "chained product": Case(lambda: [(normal(n3) @ normal(n3)) @ normal(n3)], 3 * n3 * n3 * ITEM, f"3 × {n3}²",
                                products(n3, 2)),
    }


def row_parallel(tg, total, b):
    """Tall-skinny A.T @ A, the stacked mean and logistic regression, sized by bench/cluster.py's
    parameters."""
    tall_rows = b * b // TALL_COLS
    tall = row_blocks(total, TALL_COLS * ITEM, tall_rows) * tall_rows
    plane = max(1, round(math.sqrt(total / (STACK * ITEM)) / b)) * b
    p = {"n": b, "block": b, "tall": tall, "tall_cols": TALL_COLS, "tall_block": tall_rows, "stack": STACK, "plane": plane}
    made = workloads(tg, p)
    logistic_rows = b * b // LOGISTIC_COLS
    rows = row_blocks(total, (LOGISTIC_COLS + 1) * ITEM, logistic_rows) * logistic_rows
    logistic = {"rows": rows, "cols": LOGISTIC_COLS, "row_block": logistic_rows, "steps": 1}
    return {
        "tall-skinny A.T @ A": Case(lambda: [made["tall-skinny A.T @ A"]()], tall * TALL_COLS * ITEM, f"{tall} × {TALL_COLS}"),
        "stacked mean": Case(lambda: [made["stacked mean"]()], STACK * plane * plane * ITEM, f"{STACK} × {plane}²"),
        "logistic regression": Case(lambda: list(first_newton_step(tg, logistic)), rows * (LOGISTIC_COLS + 1) * ITEM,
                                    f"{rows} × {LOGISTIC_COLS}"),
    }


def rechunk(tg, total, b):
    strips = max(1, round(total / (b * b * ITEM)))
    width = max(1, round(b / math.sqrt(strips)))
    n = strips * width
    x = lambda: tg.random.default_rng(0).standard_normal((n, n), chunks=(width, n))  # noqa: E731
    return {"rechunk": Case(lambda: [x().rechunk((n, width)).sum(axis=0)], n * n * ITEM, f"{n}², strips of {width}")}


def factorisations(tg, total, b):
    n = tiled_side(total, 1, b)
    made = workloads(tg, {"n": n, "block": b})
    scalapack = lambda moved: lambda b, nodes, memory: ("ScaLAPACK", moved(n, b, nodes), None)  # noqa: E731
    return {
        "cholesky": Case(lambda: [made["cholesky"]()], n * n * ITEM, f"{n}²", scalapack(cholesky_bytes)),
        "solve": Case(lambda: [made["solve"]()], n * n * ITEM, f"{n}², {RHS} right-hand sides",
                      scalapack(lambda n, b, nodes: lu_solve_bytes(n, b, nodes, RHS))),
    }


def weak_cases(tg, nodes, per_node, b):
    """name → Case, every workload sized for `nodes` nodes of `per_node` bytes of operands."""
    total = per_node * nodes
    cases = {**matrix_products(tg, total, b), **row_parallel(tg, total, b), **rechunk(tg, total, b),
             **factorisations(tg, total, b)}
    return {name: cases[name] for name in NAMES}
