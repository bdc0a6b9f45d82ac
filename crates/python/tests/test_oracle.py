"""gsi against independent answers on seeded random labelled graphs: networkx's
GraphMatcher / DiGraphMatcher ``subgraph_monomorphisms_iter`` with label matchers (counts and
the sets of mappings), and a brute force for homomorphisms, which networkx does not count."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism

import gsi
from conftest import query_from, random_graph

SEEDS = range(100)

# Some random queries leave every label out (label 0) on purpose: no warning wanted.
pytestmark = pytest.mark.filterwarnings("ignore::gsi.LabelWarning")

# Label vocabularies of several types; None leaves the attribute out (label 0).
VERTEX_LABELS = [["C", "C", "O", "N"], [0, 1, 1, 2, None], [("a", 1), ("b", 2), ("a", 1)]]
EDGE_LABELS = [[None], ["single", "double"], [0, 1, 7]]


def networkx_mappings(G: nx.Graph, Q: nx.Graph, induced: bool = False) -> set:
    """Every monomorphism of Q into G (``subgraph_monomorphisms_iter``), or every induced match
    (``subgraph_isomorphisms_iter``), networkx's answer, as a set of frozen {q: g} maps."""
    matcher_class = isomorphism.DiGraphMatcher if G.is_directed() else isomorphism.GraphMatcher
    matcher = matcher_class(
        G,
        Q,
        node_match=isomorphism.categorical_node_match("label", 0),
        edge_match=isomorphism.categorical_edge_match("label", 0),
    )
    found = (
        matcher.subgraph_isomorphisms_iter() if induced else matcher.subgraph_monomorphisms_iter()
    )
    return {frozenset((q, g) for g, q in m.items()) for m in found}


def homomorphisms(G: nx.Graph, Q: nx.Graph) -> int:
    """Maps of Q's nodes to G's (not necessarily injective) that keep labels and edges."""

    def of(H: nx.Graph, v) -> object:
        return H.nodes[v].get("label", 0)

    qnodes = list(Q.nodes)
    choices = [[g for g in G.nodes if of(G, g) == of(Q, q)] for q in qnodes]
    edges = [
        (qnodes.index(u), qnodes.index(v), a.get("label", 0)) for u, v, a in Q.edges(data=True)
    ]
    total = 0
    for image in itertools.product(*choices):
        if all(
            G.has_edge(image[u], image[v]) and G.edges[image[u], image[v]].get("label", 0) == label
            for u, v, label in edges
        ):
            total += 1
    return total


def case(seed: int, directed: bool):
    """The seed's data graph, its queries and the labels they use."""
    rng = random.Random(seed * 2 + directed)
    vertex_labels = VERTEX_LABELS[seed % len(VERTEX_LABELS)]
    edge_labels = EDGE_LABELS[(seed // 3) % len(EDGE_LABELS)]
    # Node ids of several kinds: integers, strings, tuples.
    name = [lambda v: v, lambda v: f"v{v}", lambda v: (v, "x")][seed % 3]
    n = rng.randint(6, 13)
    G = random_graph(rng, n, rng.uniform(0.2, 0.5), directed, vertex_labels, edge_labels, name)
    queries = [query_from(rng, G, rng.randint(1, 5), rng.random()) for _ in range(5)]
    # A query with a label the data graph lacks: no match, and no error.
    stranger = query_from(rng, G, 3, 0.5)
    stranger.nodes["q0"]["label"] = "a label nobody has"
    queries.append(stranger)
    # A random query, unrelated to the data, and a disconnected one.
    queries.append(
        random_graph(
            rng, rng.randint(2, 4), 0.6, directed, vertex_labels, edge_labels, lambda v: f"r{v}"
        )
    )
    queries.append(
        nx.union(query_from(rng, G, 2, 1.0), query_from(rng, G, 2, 1.0), rename=("a", "b"))
    )
    return G, queries


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("seed", SEEDS)
def test_counts_and_mappings_equal_networkx(seed: int, directed: bool) -> None:
    G, queries = case(seed, directed)
    m = gsi.Matcher(G, engine="cpu")
    for Q in queries:
        expected = networkx_mappings(G, Q)
        assert m.count(Q) == len(expected), (seed, list(Q.edges(data=True)))
        found = [frozenset(d.items()) for d in m.matches(Q)]
        assert len(found) == len(set(found)), "a mapping was reported twice"
        assert set(found) == expected
        array = m.match_array(Q)
        assert array.shape == (len(expected), Q.number_of_nodes())
        nodes = m.graph.nodes
        rows = {frozenset(zip(Q.nodes, (nodes[v] for v in row))) for row in array.tolist()}
        assert rows == expected


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("seed", range(40))
def test_induced_counts_and_mappings_equal_networkx(seed: int, directed: bool) -> None:
    G, queries = case(seed, directed)
    m = gsi.Matcher(G, engine="cpu")
    for Q in queries:
        expected = networkx_mappings(G, Q, induced=True)
        assert m.count(Q, induced=True) == len(expected), (seed, list(Q.edges(data=True)))
        found = {frozenset(d.items()) for d in m.matches(Q, induced=True)}
        assert found == expected


def test_induced_matches_drop_those_with_extra_edges() -> None:
    G, Q = nx.complete_graph(4), nx.path_graph(3)
    m = gsi.Matcher(G, engine="cpu")
    assert m.count(Q) == len(networkx_mappings(G, Q)) > 0
    assert m.count(Q, induced=True) == len(networkx_mappings(G, Q, induced=True))
    assert m.count(nx.complete_graph(3), induced=True) == len(
        networkx_mappings(G, nx.complete_graph(3), induced=True)
    ) > 0


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("seed", range(20))
def test_homomorphism_counts_equal_a_brute_force(seed: int, directed: bool) -> None:
    rng = random.Random(1000 + seed)
    G = random_graph(rng, rng.randint(4, 8), 0.5, directed, [0, 1, 1], [None, "x"])
    m = gsi.Matcher(G, engine="cpu")
    for _ in range(4):
        Q = query_from(rng, G, rng.randint(1, 4), 0.5)
        assert m.count(Q, homomorphism=True) == homomorphisms(G, Q)


@pytest.mark.parametrize("seed", range(10))
def test_the_same_graphs_from_arrays_and_files_give_the_same_answers(seed: int, tmp_path) -> None:
    """Data from numpy arrays and from a Sun–Luo file, queries from networkx with integer
    labels: labels are matched by value whatever made each graph."""
    rng = random.Random(2000 + seed)
    G = random_graph(rng, 12, 0.35, False, [3, 5, 5, 8], [0, 2])
    order = list(G.nodes)
    edges = np.array([(u, v) for u, v in G.edges], dtype=np.int64)
    from_arrays = gsi.Graph.from_edges(
        edges,
        vertex_labels=[G.nodes[v]["label"] for v in order],
        edge_labels=[a["label"] for _, _, a in G.edges(data=True)],
    )
    path = tmp_path / "g.graph"
    lines = [f"t {G.number_of_nodes()} {G.number_of_edges()}"]
    lines += [f"v {v} {G.nodes[v]['label']} {G.degree[v]}" for v in order]
    lines += [f"e {u} {v} {a['label']}" for u, v, a in G.edges(data=True)]
    path.write_text("\n".join(lines) + "\n")
    from_file = gsi.Graph.read(path)
    for data in (from_arrays, from_file):
        m = gsi.Matcher(data, engine="cpu")
        for _ in range(4):
            Q = query_from(rng, G, rng.randint(2, 5), 0.5)
            expected = networkx_mappings(G, Q)
            assert m.count(Q) == len(expected)
            assert {frozenset(d.items()) for d in m.matches(Q)} == expected


def edge_isomorphisms(G: nx.Graph, Q: nx.Graph) -> set:
    """The edge isomorphisms of `Q` in `G` from the definition, as frozensets of
    ``(query edge, data edge)`` pairs: one-to-one maps of edges that keep each edge's label
    and its endpoints' labels, under which two query edges share as many endpoints as their
    images, of the same labels."""
    label = lambda H, v: H.nodes[v].get("label", 0)  # noqa: E731
    ends = lambda H, e: sorted((label(H, e[0]), label(H, e[1])))  # noqa: E731

    def shared(H, e, f):
        return sorted(label(H, v) for v in e if v in f)

    query_edges, data_edges = list(Q.edges), list(G.edges)
    found = set()
    for image in itertools.permutations(data_edges, len(query_edges)):
        pairs = list(zip(query_edges, image))
        if all(
            Q.edges[e].get("label", 0) == G.edges[f].get("label", 0) and ends(Q, e) == ends(G, f)
            for e, f in pairs
        ) and all(
            shared(Q, e1, e2) == shared(G, f1, f2)
            for (e1, f1), (e2, f2) in itertools.combinations(pairs, 2)
        ):
            found.add(frozenset(pairs))
    return found


@pytest.mark.parametrize("seed", range(24))
def test_edge_isomorphisms_equal_the_definition(seed: int) -> None:
    rng = random.Random(1000 + seed)
    G = random_graph(rng, rng.randint(4, 7), 0.45, False, [0, 1], [0, 1])
    G.remove_nodes_from([v for v in list(G.nodes) if G.degree(v) == 0])
    m = gsi.Matcher(G, engine="cpu")
    nonzero = 0
    for k in (2, 3, 4):
        Q = query_from(rng, G, k, 0.5)
        if Q.number_of_edges() == 0 or Q.number_of_edges() > 4:
            continue
        expected = edge_isomorphisms(G, Q)
        assert m.count(Q, edge_isomorphism=True) == len(expected), (seed, list(Q.edges))
        found = [frozenset(d.items()) for d in m.matches(Q, edge_isomorphism=True)]
        assert len(found) == len(set(found)), "an edge map was reported twice"
        assert set(found) == expected
        # The same maps as an array of data edges by query edge, query edges as gsi numbers
        # them (lower vertex first, ascending; vertices in networkx's node order).
        array = m.match_array(Q, edge_isomorphism=True)
        number = {v: i for i, v in enumerate(Q.nodes)}
        query_edges = sorted(tuple(sorted((number[a], number[b]))) for a, b in Q.edges)
        query_ids = [(list(Q.nodes)[a], list(Q.nodes)[b]) for a, b in query_edges]
        data_nodes = m.graph.nodes
        assert array.shape == (len(expected), len(query_edges), 2), array.shape
        as_maps = {
            frozenset(
                (canonical(Q, q), canonical(G, (data_nodes[a], data_nodes[b])))
                for q, (a, b) in zip(query_ids, row)
            )
            for row in array.tolist()
        }
        assert as_maps == {
            frozenset((canonical(Q, q), canonical(G, d)) for q, d in pairs) for pairs in expected
        }
        # explain counts the same and names the query's edges as match_array numbers them.
        plan = m.explain(Q, edge_isomorphism=True)
        assert plan["count"] == len(expected)
        assert sorted(plan["order"]) == sorted(query_ids)
        assert set(plan["candidates"]) == set(query_ids)
        nonzero += bool(expected)
    assert nonzero > 0 or G.number_of_edges() < 2


def canonical(H: nx.Graph, edge: tuple) -> tuple:
    """`edge` as `H` lists it (networkx's orientation of an undirected edge)."""
    a, b = edge
    return (a, b) if (a, b) in set(H.edges) else (b, a)


def test_under_edge_isomorphism_a_triangle_and_a_claw_match_each_other() -> None:
    triangle, claw = nx.cycle_graph(3), nx.star_graph(3)
    assert gsi.count(claw, triangle, edge_isomorphism=True, engine="cpu") == 6
    assert gsi.count(triangle, claw, edge_isomorphism=True, engine="cpu") == 6
    assert gsi.count(claw, triangle, engine="cpu") == 0
    with pytest.raises(ValueError, match="induced=True and edge_isomorphism=True"):
        gsi.Matcher(claw, engine="cpu").count(triangle, induced=True, edge_isomorphism=True)
    with pytest.raises(gsi.GraphError, match="directed"):
        gsi.count(nx.DiGraph([(0, 1)]), nx.DiGraph([(0, 1)]), edge_isomorphism=True)


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("seed", range(30))
def test_nodes_of_several_labels_match_as_networkx_with_containment(
    seed: int, directed: bool
) -> None:
    """A node whose label is a set carries each value: a query node matches a data node that
    carries all of its labels. networkx's matcher with a containment test is the oracle."""
    rng = random.Random(2000 + seed)
    values = ["C", "O", 5]
    G = random_graph(rng, rng.randint(5, 10), 0.4, directed, values, [0, 1])
    for v in G.nodes:
        G.nodes[v]["label"] = frozenset(rng.sample(values, rng.randint(1, 3)))
    queries = [query_from(rng, G, rng.randint(2, 4), 0.5) for _ in range(3)]
    for Q in queries:
        for q in Q.nodes:
            own = sorted(Q.nodes[q]["label"], key=str)
            kept = rng.sample(own, rng.randint(1, len(own)))
            # One label alone as a plain value, several as a set.
            Q.nodes[q]["label"] = kept[0] if len(kept) == 1 else set(kept)
    matcher_class = isomorphism.DiGraphMatcher if directed else isomorphism.GraphMatcher

    def carries(data: dict, query: dict) -> bool:
        wanted = query["label"] if isinstance(query["label"], set) else {query["label"]}
        return wanted <= data["label"]

    m = gsi.Matcher(G, engine="cpu")
    nonzero = 0
    for Q in queries:
        nx_matcher = matcher_class(
            G, Q, node_match=carries, edge_match=isomorphism.categorical_edge_match("label", 0)
        )
        expected = {
            frozenset((q, g) for g, q in mapping.items())
            for mapping in nx_matcher.subgraph_monomorphisms_iter()
        }
        assert m.count(Q) == len(expected), (seed, dict(Q.nodes(data=True)))
        assert {frozenset(d.items()) for d in m.matches(Q)} == expected
        nonzero += bool(expected)
    assert nonzero > 0
    # Back to networkx: the sets come back as frozensets.
    back = gsi.Graph.from_networkx(G).to_networkx()
    assert {v: back.nodes[v]["label"] for v in back} == {
        v: (labels if len(labels) > 1 else next(iter(labels)))
        for v, labels in G.nodes(data="label")
    }
    empty = nx.path_graph(2)
    empty.nodes[0]["label"] = frozenset()
    with pytest.raises(gsi.GraphError, match="empty set of labels"):
        gsi.Graph.from_networkx(empty)
