"""What `Graph.from_edges` and `Graph.from_networkx` make of their input: labels told apart
as networkx tells them apart, ids and sizes checked before memory is spent, empty edge lists,
and warnings where labels are likely missing. Answers come from networkx, never from gsi."""

from __future__ import annotations

import networkx as nx

import gsi
from test_oracle import networkx_mappings


def labelled_path(labels: list) -> nx.Graph:
    """The path 0 - 1 - ... with node i labelled labels[i]."""
    G = nx.path_graph(len(labels))
    nx.set_node_attributes(G, dict(enumerate(labels)), "label")
    return G


def test_labels_of_mixed_types_stay_apart_as_in_networkx() -> None:
    cases = [
        ([1, "a"], ["1", "a"]),
        ([1, "a"], [1, "a"]),
        (["1", 2, (3,)], [2, (3,)]),
        ([1.0, "x"], [1, "x"]),
        ([True, 2], [1, 2]),
    ]
    for data_labels, query_labels in cases:
        expected = len(networkx_mappings(labelled_path(data_labels), labelled_path(query_labels)))
        ends = [[i, i + 1] for i in range(len(data_labels) - 1)]
        data = gsi.Graph.from_edges(ends, vertex_labels=data_labels)
        query = gsi.Graph.from_edges(
            [[i, i + 1] for i in range(len(query_labels) - 1)], vertex_labels=query_labels
        )
        matcher = gsi.Matcher(data, engine="cpu")
        assert matcher.count(query) == expected, (data_labels, query_labels)
        assert matcher.count(labelled_path(query_labels)) == expected
        assert [data.label(c) for c in data.vertex_labels.tolist()] == data_labels
