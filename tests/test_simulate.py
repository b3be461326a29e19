"""The placement simulator reached from Python (``_tegula.simulate``, what bench/scaleout.py
calls): plans only, no Ray; tegula's placement against the block-cyclic baseline."""

import pytest

import tegula as tg
from tegula import _tegula


def x_times_xt():
    x = tg.random.default_rng(0).standard_normal((4000, 4000), chunks=500)
    return x @ x.T


@pytest.mark.parametrize("placement", ["tegula", "block-cyclic"])
def test_a_simulation_has_a_load_per_node(placement):
    sim = _tegula.simulate([x_times_xt()._h], 16, node_memory=1 << 30, placement=placement)
    assert len(sim["nodes"]) == 16
    assert sum(n["fragments"] for n in sim["nodes"]) == sim["fragments"]
    assert sum(n["bytes_in"] for n in sim["nodes"]) == sim["bytes_between_nodes"]
    assert sim["bytes_returned"] == 4000 * 4000 * 8


def test_tegula_moves_fewer_bytes_than_the_baseline():
    moved = {p: _tegula.simulate([x_times_xt()._h], 8, placement=p)["bytes_between_nodes"] for p in ("tegula", "block-cyclic")}
    assert moved["tegula"] < moved["block-cyclic"]


def test_an_unknown_placement_names_the_known_ones():
    with pytest.raises(ValueError, match="tegula.*block-cyclic"):
        _tegula.simulate([x_times_xt()._h], 3, placement="round-robin")


def test_explain_on_nodes_reports_the_same_cluster_plan():
    y = x_times_xt()
    sim = _tegula.simulate([y._h], 3)
    assert f"{sim['fragments']} fragments on 3 nodes" in y.explain(nodes=3)


def test_a_node_lost_halfway_is_reported_and_a_node_beyond_the_cluster_refused():
    sim = _tegula.simulate([x_times_xt()._h], 16, node_memory=1 << 30, lose_node=3)
    loss = sim["node_loss"]
    assert set(loss) == {"redone_fragments", "redone_work", "node_work", "moved_fragments"}
    # Node 3 ran fragments in both halves of the plan; what it lost is redone, within twice its share.
    assert loss["moved_fragments"] > 0 and loss["node_work"] > 0
    assert 0 < loss["redone_work"] <= 2 * loss["node_work"]
    assert "node_loss" not in _tegula.simulate([x_times_xt()._h], 16)
    with pytest.raises(ValueError, match="16 nodes"):
        _tegula.simulate([x_times_xt()._h], 16, lose_node=16)
