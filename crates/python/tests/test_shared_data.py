"""The HPRD test set of the subgraph-matching benchmarks (200 queries of 16 vertices, with
the published count of each) read through ``Graph.read``; skipped where the shared data is
absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import gsi


def expected_counts(path: Path) -> dict:
    """`expected_output.res`: lines ``name:count``."""
    counts = {}
    for line in path.read_text().splitlines():
        if line.strip():
            name, count = line.split(":")
            counts[name.strip()] = int(count)
    return counts


def test_every_hprd_query_has_its_published_count(shared_data: Path) -> None:
    folder = shared_data / "hprd-test"
    expected = expected_counts(folder / "expected_output.res")
    assert len(expected) == 200
    m = gsi.Matcher(gsi.Graph.read(folder / "data_graph" / "HPRD.graph"), engine="cpu")
    wrong = []
    for name, count in sorted(expected.items()):
        query = gsi.Graph.read(folder / "query_graph" / f"{name}.graph")
        assert query.vertex_count == 16
        found = m.count(query)
        if found != count:
            wrong.append(f"{name}: gsi {found}, expected {count}")
    assert not wrong, "\n".join(wrong)


def test_hprd_matches_are_valid_and_as_many_as_published(shared_data: Path) -> None:
    """The first queries' matches, each checked against the graph itself: labels equal,
    every query edge a data edge, the vertices distinct."""
    folder = shared_data / "hprd-test"
    expected = expected_counts(folder / "expected_output.res")
    data = gsi.Graph.read(folder / "data_graph" / "HPRD.graph")
    ends, _ = data._native.edges()
    edges = set(map(tuple, ends.tolist()))
    labels = data.vertex_labels
    m = gsi.Matcher(data, engine="cpu")
    for i in range(1, 11):
        name = f"query_dense_16_{i}"
        query = gsi.Graph.read(folder / "query_graph" / f"{name}.graph")
        rows = m.match_array(query)
        assert len(rows) == expected[name], name
        assert len({tuple(r) for r in rows.tolist()}) == len(rows)
        assert (labels[rows] == query.vertex_labels).all()
        assert all(len(set(r)) == 16 for r in rows.tolist())
        qends, _ = query._native.edges()
        for u, v in qends.tolist():
            for a, b in zip(rows[:, u].tolist(), rows[:, v].tolist()):
                assert (min(a, b), max(a, b)) in edges
        streamed = [tuple(d[j] for j in range(16)) for d in m.matches(query)]
        assert sorted(streamed) == sorted(map(tuple, rows.tolist()))
        assert isinstance(rows, np.ndarray)
