"""Fuzzing `Graph.from_edges` and `Graph.from_networkx` with hypothesis: arrays of any dtype
and shape, ids negative, huge or NaN, labels of mixed types. Each input either builds a graph
whose count of a small query equals networkx's (GraphMatcher's monomorphisms), or raises a
Python exception; it never crashes the interpreter or answers wrongly. Runs in the default
test run, a few hundred examples each (about 10 s)."""

from __future__ import annotations

import warnings
from typing import Optional

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import gsi
from test_oracle import networkx_mappings

pytestmark = pytest.mark.fuzz

FUZZ = settings(
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Labels of several types: 1, 1.0 and True are one value, as in networkx; "1" another.
LABELS = st.one_of(
    st.integers(0, 3),
    st.sampled_from(["1", "a", "", 1.0, 2.5, True, (1, "a"), None, 2**40, -1, float("nan")]),
)

#: Vertex ids that are never valid here: negative, huge, past 32 or 64 bits.
BAD_IDS = st.sampled_from([-1, 7, 2**20 - 1, 2**20, 2**31, 2**32 - 1, 2**32, 2**63 - 1])

#: What from_edges may be given as edges: lists, or arrays of any integer or float dtype
#: (floats with NaN), of any shape.
DTYPES = st.sampled_from(
    [None] * 4 + [np.int64] * 2 + [np.uint32, np.int8, np.uint64, np.float64, np.bool_, object]
)


@st.composite
def edge_input(draw: st.DrawFn, n: int) -> object:
    """Edges among vertices ``0 .. n-1`` (mostly distinct and without loops), sometimes with
    a bad id, in a shape and type that may not be an edge list."""
    ids = st.integers(0, n - 1)
    good = st.tuples(ids, ids).filter(lambda pair: pair[0] != pair[1]).map(list)
    bad = st.lists(ids | BAD_IDS, min_size=2, max_size=2)
    rows = draw(st.lists(good | good | good | bad, max_size=10, unique_by=tuple))
    shape = draw(st.sampled_from(["rows"] * 12 + ["flat", "three", "ragged", "nan"]))
    if shape == "flat":
        rows = [v for row in rows for v in row]
    elif shape == "three":
        rows = [row + [0] for row in rows]
    elif shape == "ragged" and rows:
        rows[0] = rows[0][:1]
    elif shape == "nan":
        rows = [[float("nan"), v] for _, v in rows] or [[float("nan"), 0.0]]
    dtype = draw(DTYPES)
    if dtype is None:
        return rows
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array(rows, dtype=dtype)
    except (ValueError, OverflowError, TypeError):
        return rows  # numpy refuses the conversion: give the list itself


#: A label left out: the attribute is absent, which means label 0.
ABSENT = object()


def labelled(directed: bool, nodes: list, edges: list, node_labels: list, edge_labels: list):
    """A networkx graph with the given labels, where a label is not `ABSENT`."""
    G = nx.DiGraph() if directed else nx.Graph()
    for v, label in zip(nodes, node_labels):
        G.add_node(v, **({} if label is ABSENT else {"label": label}))
    for (u, v), label in zip(edges, edge_labels):
        G.add_edge(u, v, **({} if label is ABSENT else {"label": label}))
    return G


def small_query(draw: st.DrawFn, directed: bool, labels: Optional[list]) -> nx.Graph:
    """A connected query of 2 or 3 nodes (an edge, a path, a triangle), labelled mostly with
    `labels` (the data's), else none."""
    edges = draw(st.sampled_from([[(0, 1)], [(0, 1), (1, 2)], [(0, 1), (1, 2), (2, 0)]]))
    if directed:
        edges = [(v, u) if draw(st.booleans()) else (u, v) for u, v in edges]
    nodes = sorted({v for e in edges for v in e})
    if labels:
        vocabulary = st.sampled_from(labels) | st.sampled_from(labels) | LABELS
    else:
        vocabulary = LABELS
    vocabulary = vocabulary.filter(lambda label: label == label)  # no NaN: it is refused
    node_labels = [draw(vocabulary) if labels is not None else ABSENT for _ in nodes]
    return labelled(directed, nodes, edges, node_labels, [ABSENT] * len(edges))


def expected_count(G: nx.Graph, Q: nx.Graph) -> int:
    return len(networkx_mappings(G, Q))


@FUZZ
@given(data=st.data())
def test_from_edges_builds_what_networkx_builds_or_raises(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 7), "vertices")
    edges = data.draw(edge_input(n), "edges")
    directed = data.draw(st.booleans(), "directed")
    vertex_labels = data.draw(st.none() | st.lists(LABELS, min_size=n, max_size=n), "labels")
    try:
        graph = gsi.Graph.from_edges(edges, vertex_labels=vertex_labels, directed=directed)
    except (ValueError, TypeError, MemoryError):
        return  # refused with a Python exception (gsi.GraphError is a ValueError)
    ends = np.asarray(edges).reshape(-1, 2).tolist() if np.asarray(edges).size else []
    ids = {int(v) for row in ends for v in row}
    n = len(vertex_labels) if vertex_labels is not None else max(ids, default=-1) + 1
    assert graph.vertex_count == n and graph.edge_count == len(ends)
    # The networkx graph of the same edges; isolated vertices beyond the labelled ones do not
    # change the count of a connected query.
    nodes = range(n) if vertex_labels is not None else sorted(ids)
    node_labels = vertex_labels if vertex_labels is not None else [ABSENT] * len(nodes)
    pairs = [(int(u), int(v)) for u, v in ends]
    G = labelled(directed, list(nodes), pairs, node_labels, [ABSENT] * len(pairs))
    Q = small_query(data.draw, directed, vertex_labels)
    event("built")
    assert gsi.Matcher(graph, engine="cpu").count(Q) == expected_count(G, Q)


@FUZZ
@given(data=st.data())
def test_from_networkx_counts_what_networkx_counts_or_raises(data: st.DataObject) -> None:
    directed = data.draw(st.booleans(), "directed")
    ids = st.one_of(st.integers(-3, 6), st.sampled_from(["a", "1", (1, 2), 2.5, 2**70]))
    nodes = data.draw(st.lists(ids, min_size=1, max_size=7, unique=True), "nodes")
    pairs = st.tuples(st.sampled_from(nodes), st.sampled_from(nodes))
    edges = data.draw(st.lists(pairs, max_size=12), "edges")
    node_labels = [data.draw(LABELS | st.just(ABSENT), "node label") for _ in nodes]
    edge_labels = [data.draw(st.sampled_from([ABSENT, None, 0, "x", 1.0])) for _ in edges]
    G = labelled(directed, nodes, edges, node_labels, edge_labels)
    Q = small_query(data.draw, directed, node_labels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gsi.LabelWarning)
            found = gsi.count(G, Q, engine="cpu")
    except (ValueError, TypeError, MemoryError):
        return
    event("counted")
    assert found == expected_count(G, Q)
