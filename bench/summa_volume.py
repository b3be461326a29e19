"""Bytes a 2D tiled matrix product (SUMMA, as ScaLAPACK's ``pdgemm`` runs it) moves between
nodes, and the same product with its operands replicated over layers of nodes (2.5D): the
references `bench/scaleout.py --weak` sets tegula's simulated placement of products against.

C = A @ B, A m×k and B k×n in b×b tiles (the last tile of an axis shorter), on `nodes` nodes
seen as `layers` layers of a pr×pc grid (the squarest of nodes / layers, pr <= pc). With one
layer, tile (i, j) of every matrix lies on grid node (i mod pr, j mod pc), 2D block-cyclically.
C's tiles are computed where they lie; each A tile is sent once to every other node holding a C
tile of its row, each B tile once to every other node holding a C tile of its column (the
broadcasts along process rows and columns, each costing its bytes times its receivers, as
tegula's simulator counts a block copied to a node). Where the tiles divide evenly that is
``m k (pc - 1) + k n (pr - 1)`` elements.

With c layers (2.5D), the contracted axis is dealt over the layers: A tile (i, s) and B tile
(s, j) belong to layer s mod c, at grid node (i mod pr, (s div c) mod pc) and ((s div c) mod
pr, j mod pc); each layer multiplies its share of the contraction SUMMA's way on its grid, and
C tile (i, j) is then summed from the layers holding a partial of it onto one of them (its
other partials move). Every layer holds a partial of all of C, so replication costs memory:
a layer count is allowed only where a node's C partials, its own operand tiles and one step's
row and column of tiles fit its memory.

``x @ x.T`` (x m×k) counts each tile of x once: tile (i, s) serves as A's tile (i, s) and as
B's tile (s, i), and is sent once to every other node that needs it for either. Its result is
symmetric: computing only C's tiles on and above the diagonal (``upper``, as ScaLAPACK's
``pdsyrk`` does, and as tegula plans ``x @ x.T``: the tiles below are the transposes of those
above) sends each tile only to the nodes of those tiles. A chain of
products is the sum of its products, each result already laid out as the next one's operand.

The operands' first layout is free (they are made where they lie, as generated data is in
tegula's plans); the result stays on the nodes (nothing is gathered). Lower bounds of what
SUMMA sends: pipelining its broadcasts changes when tiles travel, not how many reach a node."""

import math

from scalapack_volume import grid


def tile_sizes(length, b):
    return [min(b, length - start) for start in range(0, length, b)]


def product_bytes(m, k, n, b, nodes, layers=1, gram=False, upper=False, itemsize=8):
    """Bytes C = A @ B (m×k times k×n; with `gram`, x @ x.T of an m×k x, n == m) moves on
    `nodes` nodes as `layers` layers of the squarest grid (see the module's docstring); with
    `upper` (a Gram product), only C's tiles on and above the diagonal are computed."""
    if nodes % layers:
        raise ValueError(f"{layers} layers do not divide {nodes} nodes")
    pr, pc = grid(nodes // layers)
    rows, inner, cols = tile_sizes(m, b), tile_sizes(k, b), tile_sizes(n, b)
    computed = (lambda i, j: j >= i) if upper else (lambda i, j: True)  # noqa: E731
    row_owners = lambda i, s: {(i % pr, j % pc, s % layers) for j in range(len(cols)) if computed(i, j)}  # noqa: E731
    col_owners = lambda s, j: {(i % pr, j % pc, s % layers) for i in range(len(rows)) if computed(i, j)}  # noqa: E731
    moved = 0
    for i, height in enumerate(rows):
        for s, width in enumerate(inner):
            owner = (i % pr, (s // layers) % pc, s % layers)
            needs = row_owners(i, s) | (col_owners(s, i) if gram else set())
            moved += len(needs - {owner}) * height * width
    if not gram:
        for s, height in enumerate(inner):
            for j, width in enumerate(cols):
                owner = ((s // layers) % pr, j % pc, s % layers)
                moved += len(col_owners(s, j) - {owner}) * height * width
    partials = min(layers, len(inner))
    area = sum(h * w for i, h in enumerate(rows) for j, w in enumerate(cols) if computed(i, j))
    moved += (partials - 1) * area
    return moved * itemsize


def node_bytes(m, k, n, b, nodes, layers, itemsize=8):
    """The most bytes a node holds in `product_bytes`'s layout: its partials of C's tiles, its
    own tiles of A and B, and one step's row and column of tiles received."""
    pr, pc = grid(nodes // layers)
    tm, tk, tn = (math.ceil(side / b) for side in (m, k, n))
    c_tiles = math.ceil(tm / pr) * math.ceil(tn / pc)
    own = math.ceil(tm / pr) * math.ceil(tk / (layers * pc)) + math.ceil(tk / (layers * pr)) * math.ceil(tn / pc)
    panels = math.ceil(tm / pr) + math.ceil(tn / pc)
    return (c_tiles + own + panels) * b * b * itemsize


def summa_bytes(m, k, n, b, nodes, gram=False, upper=False, itemsize=8):
    """The 2D figure: one layer."""
    return product_bytes(m, k, n, b, nodes, 1, gram, upper, itemsize)


def replicated_bytes(m, k, n, b, nodes, node_memory, gram=False, upper=False, itemsize=8):
    """The 2.5D figure: (bytes, layers) of the layer count that moves least among those whose
    nodes' holdings fit `node_memory` (one layer, the 2D figure, when no other does)."""
    counts = [c for c in range(1, nodes + 1) if nodes % c == 0 and c <= math.ceil(k / b)]
    fits = [c for c in counts if c == 1 or node_bytes(m, k, n, b, nodes, c, itemsize) <= node_memory]
    return min((product_bytes(m, k, n, b, nodes, c, gram, upper, itemsize), c) for c in fits)
