"""Bytes ScaLAPACK moves between processes factorising an n×n matrix in b×b tiles laid out
2D block-cyclically on a pr×pc grid (tile (i, j) on process (i mod pr, j mod pc)): the
reference `bench/scaleout.py` sets tegula's simulated placement against.

Counted tile by tile, each tile sent once to every other process that needs it (a broadcast
costs its bytes times the receivers, as tegula's simulator counts a block copied to a node):

- Cholesky (``pdpotrf``, lower): each panel tile ``L[i, k]`` goes to the owners of the
  trailing tiles it updates, ``A[i, j]`` (k < j <= i, along its process row) and ``A[j', i]``
  (j' >= i, as the transposed factor, along process columns); the diagonal tile's factor to
  the owners of the panel below it.
- LU with partial pivoting (``pdgetrf``, the right-hand sides carried as more tile columns as
  ``pdgesv`` does, then the substitution ``pdgetrs``): each ``L[i, k]`` (and the diagonal
  tile's) along its process row to the owners of the trailing columns, each ``U[k, j]`` along
  its process column to the owners of the trailing rows; the row swaps, b rows a step across
  every column outside the panel, counted as if each pivot row lay on a process row chosen at
  random (the expected ``2 b (width - b) (1 - 1/pr)`` elements); the substitution's
  right-hand-side tiles broadcast along the process column of each step. The panel's own
  pivot searches (a few numbers a column) are left out.

Lower bounds of what ScaLAPACK sends (it pipelines, but never sends less)."""

import math


def grid(nodes):
    """The squarest pr × pc = nodes grid, pr <= pc (ScaLAPACK's usual choice)."""
    pr = max(d for d in range(1, math.isqrt(nodes) + 1) if nodes % d == 0)
    return pr, nodes // pr


def cholesky_bytes(n, b, nodes, itemsize=8):
    pr, pc = grid(nodes)
    t = math.ceil(n / b)
    size = lambda i: (min(n, (i + 1) * b) - i * b)  # noqa: E731
    owner = lambda i, j: (i % pr, j % pc)  # noqa: E731
    moved = 0
    for k in range(t):
        below = {owner(i, k) for i in range(k + 1, t)} - {owner(k, k)}
        moved += len(below) * size(k) * size(k)
        for i in range(k + 1, t):
            needs = {owner(i, j) for j in range(k + 1, i + 1)} | {owner(j, i) for j in range(i, t)}
            moved += len(needs - {owner(i, k)}) * size(i) * size(k)
    return moved * itemsize


def lu_solve_bytes(n, b, nodes, rhs, itemsize=8):
    pr, pc = grid(nodes)
    t = math.ceil(n / b)
    # Tile columns: the matrix's, then the right-hand sides' (one of `rhs` columns).
    width = lambda j: (min(n, (j + 1) * b) - j * b) if j < t else rhs  # noqa: E731
    height = lambda i: min(n, (i + 1) * b) - i * b  # noqa: E731
    owner = lambda i, j: (i % pr, j % pc)  # noqa: E731
    columns = t + (1 if rhs else 0)
    moved = 0.0
    for k in range(t):
        trailing_cols = range(k + 1, columns)
        for i in range(k, t):
            needs = {owner(i, j) for j in trailing_cols}
            moved += len(needs - {owner(i, k)}) * height(i) * width(k)
        for j in trailing_cols:
            needs = {owner(i, j) for i in range(k + 1, t)}
            moved += len(needs - {owner(k, j)}) * height(k) * width(j)
        outside = n + rhs - width(k)
        moved += 2 * height(k) * outside * (1 - 1 / pr)
    # Back substitution: each solved right-hand-side tile down its process column.
    moved += t * rhs * b * (pr - 1)
    return int(moved) * itemsize
