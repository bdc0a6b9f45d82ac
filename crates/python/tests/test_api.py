"""The package's API: graphs from files, networkx and arrays, labels across them, what a
matcher returns, and the errors it raises. Expected answers are worked out by hand or by
formula here, never taken from gsi."""

from __future__ import annotations

import doctest
import gzip
import math
import subprocess

import networkx as nx
import numpy as np
import pytest

import gsi


def triangle_with_tail() -> nx.Graph:
    return nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])


# Graphs from files.


def test_read_sunluo_gsi_snap_and_compressed_files(tmp_path) -> None:
    sunluo = tmp_path / "g.graph"
    sunluo.write_text("t 3 2\nv 0 1 1\nv 1 2 2\nv 2 1 1\ne 0 1\ne 1 2\n")
    g = gsi.Graph.read(sunluo)
    assert (g.vertex_count, g.edge_count, g.directed) == (3, 2, False)
    assert g.vertex_labels.tolist() == [1, 2, 1]
    assert list(g.nodes) == [0, 1, 2]

    packed = tmp_path / "g.graph.gz"
    packed.write_bytes(gzip.compress(sunluo.read_bytes()))
    assert gsi.Graph.read(packed).edge_count == 2

    # GSI labels start at 1 and are read minus one.
    gsi_file = tmp_path / "g.gsi"
    gsi_file.write_text("t # 0\n2 1 2 1\nv 0 1\nv 1 2\ne 0 1 1\nt # -1\n")
    assert gsi.Graph.read(gsi_file, format="gsi").vertex_labels.tolist() == [0, 1]

    # SNAP: any ids, kept as the nodes' ids; directed when asked.
    snap = tmp_path / "edges.txt"
    snap.write_text("# comment\n100 7\n7 42\n")
    g = gsi.Graph.read(snap, directed=True)
    assert g.directed and list(g.nodes) == [100, 7, 42]
    m = gsi.Matcher(g, engine="cpu")
    assert list(m.matches(nx.DiGraph([("a", "b")]))) in (
        [{"a": 100, "b": 7}, {"a": 7, "b": 42}],
        [{"a": 7, "b": 42}, {"a": 100, "b": 7}],
    )


def test_ntriples_are_matched_by_name(tmp_path) -> None:
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    data = tmp_path / "data.nt"
    data.write_text(
        f"<alice> <knows> <bob> .\n<bob> <worksAt> <acme> .\n<acme> {rdf_type} <Org> .\n"
    )
    query = tmp_path / "query.nt"
    query.write_text(f"<x> <worksAt> <y> .\n<y> {rdf_type} <Org> .\n")
    g = gsi.Graph.read(data)
    assert g.directed and "<bob>" in g.nodes
    m = gsi.Matcher(g, engine="cpu")
    # worksAt is predicate 0 in the query's file and 1 in the data's: matched by name.
    assert list(m.matches(gsi.Graph.read(query))) == [{"<x>": "<bob>", "<y>": "<acme>"}]
    # A networkx query names its labels the same way.
    Q = nx.DiGraph()
    Q.add_node("person")
    Q.add_node("org", label="<Org>")
    Q.add_edge("person", "org", label="<worksAt>")
    assert m.count(Q) == 1
    Q.edges["person", "org"]["label"] = "<hates>"
    assert m.count(Q) == 0


def test_a_saved_index_is_read_indexed(tmp_path, gsi_binary) -> None:
    text = tmp_path / "g.graph"
    text.write_text("t 3 3\nv 0 1 2\nv 1 1 2\nv 2 2 2\ne 0 1\ne 1 2\ne 2 0\n")
    saved = tmp_path / "g.gsidx"
    subprocess.run(
        [gsi_binary, "index", str(text), "-o", str(saved)], check=True, capture_output=True
    )
    g = gsi.Graph.read(saved)
    assert g.indexed and (g.vertex_count, g.edge_count) == (3, 3)
    Q = nx.Graph()
    Q.add_node("a", label=1)
    Q.add_node("b", label=2)
    Q.add_edge("a", "b")
    assert gsi.count(g, Q) == 2
    with pytest.raises(gsi.FormatError, match="directed=True does not apply"):
        gsi.Graph.read(saved, directed=True)


def test_malformed_files_raise_format_errors_with_file_and_line(tmp_path) -> None:
    bad = tmp_path / "bad.graph"
    # `1x` is neither a number nor a name (a name starts with a letter: `v 1 x 1` is valid).
    bad.write_text("t 2 1\nv 0 0 1\nv 1 1x 1\ne 0 1\n")
    with pytest.raises(gsi.FormatError) as caught:
        gsi.Graph.read(bad)
    err = caught.value
    assert (err.path, err.line) == (str(bad), 3)
    assert str(err).startswith(f"{bad}:3: ")
    assert isinstance(err, ValueError) and isinstance(err, gsi.GsiError)

    counts = tmp_path / "counts.graph"
    counts.write_text("t 3 0\nv 0 0 0\n")
    with pytest.raises(gsi.FormatError) as caught:
        gsi.Graph.read(counts)
    assert caught.value.line is None and "3 vertices" in str(caught.value)

    with pytest.raises(FileNotFoundError) as missing:
        gsi.Graph.read(tmp_path / "none.graph")
    assert missing.value.filename == str(tmp_path / "none.graph")
    with pytest.raises(ValueError, match="unknown graph format `csv`"):
        gsi.Graph.read(bad, format="csv")


# Graphs from networkx and arrays.


def test_from_edges_reads_uint32_in_place_and_converts_other_integers() -> None:
    edges = np.array([[0, 1], [1, 2], [2, 0]], dtype=np.uint32)
    for array in (edges, edges.astype(np.int64), edges.T.copy().T, edges.tolist()):
        g = gsi.Graph.from_edges(array, vertex_labels=np.array([1, 1, 2], dtype=np.uint16))
        assert (g.vertex_count, g.edge_count) == (3, 3)
        assert g.vertex_labels.tolist() == [1, 1, 2]
    assert gsi.Graph.from_edges(edges).vertex_count == 3
    assert (
        gsi.Graph.from_edges(np.empty((0, 2), dtype=np.uint32), vertex_labels=[5]).vertex_count == 1
    )
    with pytest.raises(ValueError, match="0..2"):
        gsi.Graph.from_edges(np.array([[0, -1]]))
    with pytest.raises(TypeError, match="expected integers"):
        gsi.Graph.from_edges(np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        gsi.Graph.from_edges(np.array([[0, 1, 2]]))
    with pytest.raises(gsi.GraphError, match="self-loop at vertex 1"):
        gsi.Graph.from_edges([[0, 1], [1, 1]])
    with pytest.raises(gsi.GraphError, match="duplicate edge 0 -- 1"):
        gsi.Graph.from_edges([[0, 1], [1, 0]])
    with pytest.raises(gsi.GraphError, match="does not exist"):
        gsi.Graph.from_edges([[0, 5]], vertex_labels=[0, 0])
    with pytest.raises(ValueError, match="2 labels for 1 edges"):
        gsi.Graph.from_edges([[0, 1]], edge_labels=[1, 2])
    # Antiparallel edges are two edges of a directed graph.
    assert gsi.Graph.from_edges([[0, 1], [1, 0]], directed=True).edge_count == 2


def test_labels_of_any_hashable_type_match_by_value_across_graphs() -> None:
    data = gsi.Graph.from_edges(
        [[0, 1], [1, 2]], vertex_labels=["C", "O", "C"], edge_labels=["=", "-"]
    )
    Q = nx.Graph()
    Q.add_node("a", label="O")
    Q.add_node("b", label="C")
    Q.add_edge("a", "b", label="-")
    assert [data.label(c) for c in data.vertex_labels.tolist()] == ["C", "O", "C"]
    assert data.label(data._native.edges()[1][0], edge=True) == "="
    m = gsi.Matcher(data, engine="cpu")
    assert list(m.matches(Q)) == [{"a": 1, "b": 2}]
    Q.edges["a", "b"]["label"] = "="
    assert list(m.matches(Q)) == [{"a": 1, "b": 0}]
    # A value the data graph lacks matches nothing; it is no error.
    Q.nodes["a"]["label"] = ("O", 2)
    assert m.count(Q) == 0 and m.match_array(Q).shape == (0, 2)
    # Integer labels of a file-like graph and a networkx query are the same values.
    ints = gsi.Graph.from_edges([[0, 1]], vertex_labels=[7, 9])
    Q = nx.Graph()
    Q.add_node("x", label=9)
    Q.add_node("y", label=7)
    Q.add_edge("x", "y")
    assert list(gsi.Matcher(ints).matches(Q)) == [{"x": 1, "y": 0}]


def test_networkx_round_trip_and_node_ids() -> None:
    G = nx.DiGraph()
    G.add_node("a", label="x")
    G.add_node(("b", 2))
    G.add_edge("a", ("b", 2), label=3.5)
    g = gsi.Graph(G)
    assert g.directed and list(g.nodes) == ["a", ("b", 2)] and g.index_of(("b", 2)) == 1
    back = g.to_networkx()
    assert isinstance(back, nx.DiGraph)
    assert dict(back.nodes(data=True)) == {"a": {"label": "x"}, ("b", 2): {"label": 0}}
    assert list(back.edges(data=True)) == [("a", ("b", 2), {"label": 3.5})]
    with pytest.raises(TypeError, match="not hashable"):
        gsi.Graph.from_networkx(nx.Graph([(0, 1, {"label": [1]})]))
    with pytest.raises(TypeError, match="expected a networkx graph"):
        gsi.Graph.from_networkx([(0, 1)])


def test_multigraphs_and_self_loops() -> None:
    data = nx.MultiGraph()
    data.add_edge(0, 1, label="a")
    data.add_edge(0, 1, label="b")
    data.add_edge(1, 0, label="a")  # the same labelled edge again: counted once
    data.add_edge(1, 1)  # a self-loop: dropped from the data graph
    data.add_edge(1, 2, label="b")
    g = gsi.Graph(data)
    assert g.edge_count == 3
    m = gsi.Matcher(g, engine="cpu")
    Q = nx.Graph([("u", "v", {"label": "b"})])
    assert m.count(Q) == 4  # 0-1 and 1-2, both ways
    Q = nx.MultiGraph([("u", "v", {"label": "a"}), ("u", "v", {"label": "b"})])
    assert m.count(Q) == 2  # only 0-1 has both
    with pytest.raises(gsi.GraphError, match="self-loop at node 'u'"):
        m.count(nx.Graph([("u", "u")]))


# Matching.


def test_count_is_exact_past_32_bits() -> None:
    n, leaves = 40, 6
    m = gsi.Matcher(nx.complete_graph(n), engine="cpu")
    # Stars in K_n: a centre, then distinct leaves among the other n - 1 vertices.
    star = nx.star_graph(leaves)
    assert m.count(star) == n * math.perm(n - 1, leaves) > 2**32
    # Homomorphisms: each leaf any neighbour of the centre.
    assert m.count(star, homomorphism=True) == n * (n - 1) ** leaves


def test_count_is_exact_past_64_bits() -> None:
    # Homomorphisms of a path of 10 edges in K_100, by dynamic programming.
    m = gsi.Matcher(nx.complete_graph(100), engine="cpu")
    assert m.count(nx.path_graph(11), homomorphism=True) == 100 * 99**10 > 2**64
    # A centre of label 0 with 4 leaves of each of labels 1..4 in K_200 labelled v mod 5:
    # the leaves multiplied per row of the centre.
    G = nx.complete_graph(200)
    nx.set_node_attributes(G, {v: v % 5 for v in G}, "label")
    star = nx.star_graph(16)
    nx.set_node_attributes(star, {v: 0 if v == 0 else 1 + (v - 1) // 4 for v in star}, "label")
    labelled = gsi.Matcher(G, engine="cpu")
    assert labelled.count(star) == 40 * math.perm(40, 4) ** 4 > 2**64
    # Past 2^128 - 1: an error, never a number.
    with pytest.raises(gsi.GsiError, match="2\\^128"):
        m.count(nx.path_graph(21), homomorphism=True)


def test_matches_match_array_limit_and_explain() -> None:
    G = triangle_with_tail()
    m = gsi.Matcher(G, engine="cpu", memory_limit="64MiB")
    assert m.memory_limit == 64 << 20 and m.engine == "cpu" and m.device is None
    triangle = nx.relabel_nodes(nx.cycle_graph(3), {0: "a", 1: "b", 2: "c"})
    found = list(m.matches(triangle))
    assert len(found) == 6 and {frozenset(d.values()) for d in found} == {frozenset({0, 1, 2})}
    assert all(set(d) == {"a", "b", "c"} for d in found)
    array = m.match_array(triangle)
    assert array.dtype == np.uint32 and array.shape == (6, 3)
    assert {tuple(sorted(r)) for r in array.tolist()} == {(0, 1, 2)}
    assert m.match_array(nx.path_graph(2), limit=3).shape == (3, 2)
    assert len(list(m.matches(nx.path_graph(2), limit=5))) == 5
    with pytest.raises(ValueError, match="limit=0"):
        m.matches(nx.path_graph(2), limit=0)

    plan = m.explain(triangle)
    assert plan["count"] == 6 and plan["status"] == "ok" and plan["engine"] == "cpu"
    assert sorted(plan["order"]) == ["a", "b", "c"]
    assert plan["candidates"] == {"a": 3, "b": 3, "c": 3}
    assert [s["vertex"] for s in plan["steps"]] == plan["order"]
    assert plan["steps"][0]["first"] is None
    assert plan["steps"][1]["first"]["vertex"] == plan["order"][0]
    assert plan["automorphism_classes"] == 6
    assert plan["text"].startswith("join order")
    assert set(plan["times_ms"]) == {"filter", "plan", "join"}


def test_one_liner_and_a_graph_indexed_once() -> None:
    g = gsi.Graph(triangle_with_tail())
    assert not g.indexed
    # Paths of 3 vertices: a centre of degree d, then 2 of its d neighbours in order.
    assert gsi.count(g, nx.path_graph(3)) == sum(d * (d - 1) for _, d in g.to_networkx().degree)
    assert g.indexed
    assert gsi.count(g, g) == 2  # the graph in itself: the identity and the swap of 0 and 1
    assert gsi.count(triangle_with_tail(), nx.path_graph(2)) == 8


def test_errors() -> None:
    m = gsi.Matcher(triangle_with_tail(), engine="cpu")
    with pytest.raises(ValueError, match="induced match is injective"):
        m.count(nx.path_graph(2), homomorphism=True, induced=True)
    assert m.count(nx.path_graph(2), induced=False) == 8
    with pytest.raises(gsi.GraphError, match="both be directed or both undirected"):
        m.count(nx.DiGraph([(0, 1)]))
    with pytest.raises(gsi.GraphError, match="no vertices"):
        m.count(nx.Graph())
    with pytest.raises(ValueError, match="timeout=0"):
        m.count(nx.path_graph(2), timeout=0)
    with pytest.raises(ValueError, match="engine='fast'"):
        gsi.Matcher(triangle_with_tail(), engine="fast")
    with pytest.raises(ValueError, match="memory_limit='lots'"):
        gsi.Matcher(triangle_with_tail(), memory_limit="lots")
    with pytest.raises(ValueError, match="at least 1KiB"):
        gsi.Matcher(triangle_with_tail(), memory_limit=10)


def test_auto_without_a_gpu_says_so_and_uses_the_cpu() -> None:
    m = gsi.Matcher(triangle_with_tail())
    if m.device is not None:
        pytest.skip(f"this machine has a GPU ({m.device})")
    assert m.notice is not None and m.notice.endswith("using the CPU engine")
    assert m.explain(nx.path_graph(2))["engine"] == "cpu"


def test_the_docstring_examples() -> None:
    results = doctest.testmod(gsi)
    assert results.attempted > 0 and results.failed == 0


def test_a_query_label_equal_to_a_data_label_finds_it() -> None:
    # Labels are compared as dictionary keys compare them: 1.0 is 1 (found by the fuzz test:
    # a query labelled 1.0 over data labelled 1 counted nothing).
    G = nx.DiGraph()
    G.add_node(0)
    G.add_node(3, label=1)
    G.add_edge(3, 0)
    for label in [1, 1.0, np.float64(1.0)]:
        Q = nx.DiGraph()
        Q.add_node("a", label=label)
        Q.add_node("b")
        Q.add_edge("a", "b")
        assert gsi.count(G, Q, engine="cpu") == 1, label
    Q.nodes["a"]["label"] = 1.5
    assert gsi.count(G, Q, engine="cpu") == 0
