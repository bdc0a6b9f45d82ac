"""What `Graph.from_edges` and `Graph.from_networkx` make of their input: labels told apart
as networkx tells them apart, ids and sizes checked before memory is spent, empty edge lists,
and warnings where labels are likely missing. Answers come from networkx, never from gsi."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism

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


def test_a_nan_label_is_refused() -> None:
    # NaN equals nothing, itself included: networkx matches no node labelled NaN.
    with pytest.raises(ValueError, match="vertex_labels label nan is not equal to itself"):
        gsi.Graph.from_edges([[0, 1]], vertex_labels=np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="node label nan of 1 is not equal to itself"):
        gsi.Graph.from_networkx(labelled_path([1, float("nan")]))


def run_limited(code: str, spare_bytes: int) -> str:
    """Runs `code` after ``import gsi, numpy as np`` in a child interpreter whose address space
    is limited to what it uses then plus `spare_bytes` (``ulimit -v``); its standard output.
    The child must end normally: an abort or a kill fails the test."""
    program = textwrap.dedent(
        f"""
        import resource, gsi, numpy as np
        with open("/proc/self/status") as status:
            used = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
        limit = used + {spare_bytes}
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        """
    ) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_huge_vertex_id_is_refused_without_spending_memory() -> None:
    out = run_limited(
        """
        for big in (10**9, 2**31, 2**32 - 1):
            try:
                gsi.Graph.from_edges(np.array([[big, 0]], dtype=np.int64))
            except gsi.GraphError as e:
                print("refused:", e)
        """,
        spare_bytes=256 << 20,
    )
    assert out.count("refused:") == 3
    assert "vertex id 1000000000 is far beyond the number of edges (1)" in out
    # Ids up to the documented bound are vertices, isolated ones included.
    assert gsi.Graph.from_edges([[(1 << 20) - 1, 0]]).vertex_count == 1 << 20
    assert gsi.Graph.from_edges([[i, i + 1] for i in range(0, 2**18, 2)]).vertex_count == 2**18


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_graph_too_large_for_memory_raises_memory_error() -> None:
    # 100 million vertices: a 400 MB label array, which gsi copies, then an 800 MB count per
    # vertex for the adjacency lists. The first limit fails the copy, the second the counts.
    code = """
        labels = np.zeros(100_000_000, dtype=np.uint32)
        try:
            gsi.Graph.from_edges([[0, 1]], vertex_labels=labels)
        except MemoryError as e:
            print("memory:", e)
        """
    for spare, what in ((600 << 20, "the vertex labels"), (1000 << 20, "adjacency lists")):
        out = run_limited(code, spare)
        assert out.startswith("memory: out of memory:") and what in out, out


def test_an_empty_edge_list_is_a_graph_without_edges() -> None:
    for empty in ([], (), np.array([]), np.empty((0, 2), dtype=np.int64)):
        g = gsi.Graph.from_edges(empty)
        assert (g.vertex_count, g.edge_count) == (0, 0)
        g = gsi.Graph.from_edges(empty, vertex_labels=["a", "b", "a"])
        assert (g.vertex_count, g.edge_count) == (3, 0)
    # Isolated vertices match as networkx's do.
    data = nx.Graph()
    data.add_nodes_from([(0, {"label": "a"}), (1, {"label": "b"}), (2, {"label": "a"})])
    query = nx.Graph()
    query.add_nodes_from([("u", {"label": "a"}), ("v", {"label": "a"})])
    expected = len(networkx_mappings(data, query))
    assert gsi.Matcher(g, engine="cpu").count(query) == expected == 2


def test_edge_isomorphism_errors_name_the_users_nodes() -> None:
    query = nx.Graph([(1, 2), (2, 3)])
    query.add_node(9)
    matcher = gsi.Matcher(nx.path_graph(4), engine="cpu")
    with pytest.raises(gsi.GraphError, match="the query: node 9 has no edge"):
        matcher.count(query, edge_isomorphism=True)
    data = nx.Graph([("x", "y")])
    data.nodes["y"]["label"] = frozenset({"a", "b"})
    with pytest.raises(gsi.GraphError, match="the data graph: .* node 'y' has several"):
        gsi.Matcher(data, engine="cpu").count(labelled_path(["a", "b"]), edge_isomorphism=True)


def coloured_star() -> nx.Graph:
    """A star of 5 leaves whose nodes carry their colour under "color", not "label"."""
    G = nx.star_graph(5)
    colours = ["red", "blue", "blue", "green", "red", "green"]
    nx.set_node_attributes(G, dict(enumerate(colours)), "color")
    return G


def test_a_label_under_another_attribute_name_is_warned_about() -> None:
    G = coloured_star()
    with pytest.warns(gsi.LabelWarning, match="no node has the attribute 'label'.*'color'"):
        gsi.Graph.from_networkx(G)
    query = nx.Graph([("c", "x")])
    nx.set_node_attributes(query, {"c": "red", "x": "blue"}, "color")
    matcher = isomorphism.GraphMatcher(
        G, query, node_match=isomorphism.categorical_node_match("color", None)
    )
    expected = sum(1 for _ in matcher.subgraph_monomorphisms_iter())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gsi.count(G, query, node_label="color", engine="cpu") == expected == 2
        # No labels asked for, or nodes without attributes: nothing to warn about.
        gsi.Graph.from_networkx(G, node_label=None)
        gsi.Graph.from_networkx(nx.path_graph(3))


def test_an_unlabelled_query_against_labelled_data_is_warned_about() -> None:
    data = labelled_path(["a", "b", "a"])
    matcher = gsi.Matcher(data, engine="cpu")
    with pytest.warns(gsi.LabelWarning, match="the query has no vertex labels") as caught:
        assert matcher.count(nx.path_graph(2)) == 0
    assert caught[0].filename == __file__
    with pytest.warns(gsi.LabelWarning, match="the query has no vertex labels"):
        matcher.count(gsi.Graph.from_edges([[0, 1]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert matcher.count(labelled_path(["a", "b"])) == 2
        unlabelled = gsi.Matcher(data, engine="cpu", node_label=None)
        assert unlabelled.count(nx.path_graph(2)) == 4
        assert gsi.count(nx.path_graph(3), nx.path_graph(2), engine="cpu") == 4
