"""The GPU engine through the package: counts against networkx and the published HPRD
counts. Skipped, with the reason, where the GPU engine cannot run (GSI_REQUIRE_GPU=1 makes
that a failure)."""

from __future__ import annotations

import random
from pathlib import Path

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
