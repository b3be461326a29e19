"""bench/summa_volume.py's counts on products small enough to count by hand."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))

from summa_volume import product_bytes, replicated_bytes, summa_bytes  # noqa: E402


def test_a_2x2_grid_sends_each_tile_to_one_other_node():
    # 2×2 tiles of one element on a 2×2 grid: each A tile to the other node of its row, each
    # B tile to the other node of its column: 8 tiles of 8 bytes.
    assert summa_bytes(2, 2, 2, 1, 4) == 8 * 8


def test_x_times_its_transpose_sends_a_tile_once_to_each_node_needing_it():
    # Tile (i, s) of x is needed by row i (as A) and column i (as x.T's tile (s, i)): three
    # nodes, its owner among them, so two copies of each of the 4 tiles.
    assert summa_bytes(2, 2, 2, 1, 4, gram=True) == 8 * 8


def test_even_tiles_move_the_closed_form():
    m, k, n, b = 12, 8, 16, 2
    assert summa_bytes(m, k, n, b, 8) == 8 * (m * k * (4 - 1) + k * n * (2 - 1))


def test_layers_trade_broadcasts_for_a_sum_of_partials():
    # 4 nodes as 4 layers of one node: no broadcasts, C summed from 4 partials.
    assert product_bytes(4, 4, 4, 1, 4, layers=4) == 3 * 4 * 4 * 8
    # Where memory allows no second layer the 2.5D figure is the 2D one.
    assert replicated_bytes(4, 4, 4, 1, 4, node_memory=1) == (summa_bytes(4, 4, 4, 1, 4), 1)


def test_a_symmetric_product_sends_tiles_only_to_its_upper_tiles_nodes():
    # C's tiles (0, 0), (0, 1), (1, 1): x's tiles (0, 0), (0, 1) and (1, 1) go to one other
    # node each, (1, 0) to both (0, 1) and (1, 1), which it does not lie on: 5 tiles.
    assert summa_bytes(2, 2, 2, 1, 4, gram=True, upper=True) == 5 * 8
