"""The GPU engine through the package: counts against networkx and the published HPRD
counts. Skipped, with the reason, where the GPU engine cannot run (GSI_REQUIRE_GPU=1 makes
that a failure)."""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import pytest

import gsi
from conftest import query_from, random_graph
from test_oracle import networkx_mappings
from test_shared_data import expected_counts


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_gpu_counts_and_matches_equal_networkx(gpu, directed: bool) -> None:
    rng = random.Random(77 + directed)
    for _ in range(20):
        G = random_graph(rng, rng.randint(8, 16), 0.35, directed, ["C", "O", "N"], [None, "x"])
        m = gsi.Matcher(G, engine="gpu")
        assert m.device is not None
        for _ in range(4):
            Q = query_from(rng, G, rng.randint(2, 6), 0.5)
            expected = networkx_mappings(G, Q)
            assert m.count(Q) == len(expected)
            assert {frozenset(d.items()) for d in m.matches(Q)} == expected
            assert m.count(Q, homomorphism=True) >= len(expected)
            assert m.count(Q, induced=True) == len(networkx_mappings(G, Q, induced=True))


def test_gpu_counts_equal_the_published_hprd_counts(gpu, shared_data: Path) -> None:
    folder = shared_data / "hprd-test"
    expected = expected_counts(folder / "expected_output.res")
    m = gsi.Matcher(gsi.Graph.read(folder / "data_graph" / "HPRD.graph"), engine="gpu")
    for name, count in sorted(expected.items()):
        query = gsi.Graph.read(folder / "query_graph" / f"{name}.graph")
        assert m.count(query) == count, name
        assert m.explain(query)["engine"] == "gpu"


def test_a_missing_device_is_named(gpu) -> None:
    with pytest.raises(gsi.GpuError, match="there is no GPU 999.*choose one with device=N"):
        gsi.Matcher(gsi.Graph.from_edges([[0, 1]]), engine="gpu", device=999)


def test_gpu_counts_past_64_bits_are_exact(gpu) -> None:
    # A clique of 200 nodes labelled v % `labels`; a star whose centre (label 0) has
    # `per_label` leaves of each other label, two of them (labels 1 and 2) joined so that it
    # is not a tree (which would be counted on the host): each node has 200 / labels
    # candidates, any two of different labels adjacent, so its homomorphisms number
    # (200 / labels)^((labels - 1) per_label + 1).
    def star(labels: int, per_label: int) -> nx.Graph:
        Q = nx.Graph()
        Q.add_node(0, label=0)
        for label in range(1, labels):
            for k in range(per_label):
                leaf = len(Q)
                Q.add_node(leaf, label=label)
                Q.add_edge(0, leaf)
        Q.add_edge(1, 1 + per_label)
        return Q

    def matcher(labels: int) -> gsi.Matcher:
        G = nx.complete_graph(200)
        nx.set_node_attributes(G, {v: v % labels for v in G}, "label")
        return gsi.Matcher(G, engine="gpu")

    five = matcher(5)
    assert five.count(star(5, 2), homomorphism=True) == 40**9
    assert five.count(star(5, 4), homomorphism=True) == 40**17 > 2**64
    with pytest.raises(gsi.GsiError, match="2\\^128"):
        matcher(10).count(star(10, 4), homomorphism=True)  # 20^37 > 2^128
