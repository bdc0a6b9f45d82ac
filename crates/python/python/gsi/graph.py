"""`gsi.Graph`: a labelled graph from a file, networkx or numpy arrays."""

from __future__ import annotations

import os
from typing import Any, Dict, Hashable, List, Optional, Sequence, Union

import numpy as np

from . import _gsi
from ._labels import Labels, Numbering, as_codes, as_uint32, renumbering
from .errors import GraphError, warn_labels

__all__ = ["Graph", "as_graph"]

#: What a graph may be given as: a ``gsi.Graph`` or a networkx graph.
GraphLike = Any


class Graph:
    """A labelled graph, directed or undirected, in gsi's compact form.

    Make one with :meth:`Graph.read` (a file), :meth:`Graph.from_networkx` (or
    ``Graph(G)``) or :meth:`Graph.from_edges` (numpy arrays). Vertices are numbered
    ``0 .. n-1`` inside gsi; :attr:`nodes` gives the id each one had where it came from (a
    networkx node, a SNAP id, an RDF term), and matches are reported in those ids.

    Labels may be any hashable values (integers, strings, tuples, ...; not NaN, which equals
    nothing, itself included, and is refused with a ``ValueError``); a query's labels are
    matched to the data graph's by value (``"C"`` matches ``"C"``), and a label the data graph
    lacks matches nothing. A graph used as the data graph of a :class:`gsi.Matcher` is indexed
    once, in place: later matchers on the same ``Graph`` reuse the index.
    """

    __slots__ = (
        "_native",
        "_nodes",
        "_index",
        "_vertex_labels",
        "_edge_labels",
        "_loops",
        "_used",
        "_unlabelled",
    )
    _native: _gsi.Graph
    #: Node ids by vertex; ``None``: the vertices' numbers.
    _nodes: Optional[Sequence[Hashable]]
    #: Vertex numbers by node id, made when first asked for.
    _index: Optional[Dict[Hashable, int]]
    _vertex_labels: Labels
    _edge_labels: Labels
    #: Nodes with a self-loop, which a data graph drops and a query cannot have.
    _loops: List[Hashable]
    #: The distinct vertex and edge labels, found when first asked for.
    _used: "Optional[tuple[np.ndarray, np.ndarray]]"
    #: Whether the graph came without vertex labels (every label 0 by default).
    _unlabelled: bool

    def __init__(
        self, G: Any, node_label: Optional[str] = "label", edge_label: Optional[str] = "label"
    ) -> None:
        """The graph of the networkx graph `G`, as :meth:`Graph.from_networkx`."""
        other = Graph.from_networkx(G, node_label=node_label, edge_label=edge_label)
        for slot in Graph.__slots__:
            setattr(self, slot, getattr(other, slot))

    @classmethod
    def _wrap(
        cls,
        native: _gsi.Graph,
        nodes: Optional[Sequence[Hashable]] = None,
        vertex_labels: Optional[Labels] = None,
        edge_labels: Optional[Labels] = None,
        loops: Optional[List[Hashable]] = None,
        unlabelled: bool = False,
    ) -> "Graph":
        graph = object.__new__(cls)
        graph._native = native
        graph._nodes = nodes
        graph._index = None
        graph._vertex_labels = vertex_labels or Labels()
        graph._edge_labels = edge_labels or Labels()
        graph._loops = loops or []
        graph._used = None
        graph._unlabelled = unlabelled
        return graph

    # Making graphs.

    @classmethod
    def read(
        cls, path: Union[str, "os.PathLike[str]"], format: str = "auto", directed: bool = False
    ) -> "Graph":
        """Reads the one graph of a file.

        Parameters
        ----------
        path:
            A graph file (gzip, bzip2, xz or zstd compressed files too), or a saved index
            written by ``gsi index`` (then the graph comes indexed and `format` is not used).
        format:
            ``"auto"`` (told from the first line, or a ``.ttl`` name), ``"sunluo"`` (``t N M``
            / ``v id label degree`` / ``e u v [label]``), ``"gsi"``, ``"snap"`` (``u v
            [label]`` edge lists, any ids), ``"ntriples"`` or ``"turtle"`` (RDF: always
            directed; classes and predicates are labels, matched by name).
        directed:
            Read edge ``u v`` as u → v.

        Raises
        ------
        gsi.FormatError
            The file does not follow the format; the message names the file and the line.
        OSError
            The file cannot be read.
        """
        native, names, vertex_names, edge_names = _gsi.Graph.read(os.fspath(path), format, directed)
        return cls._wrap(native, names, Labels(vertex_names), Labels(edge_names))

    @classmethod
    def from_networkx(
        cls, G: Any, node_label: Optional[str] = "label", edge_label: Optional[str] = "label"
    ) -> "Graph":
        """The graph of a networkx graph.

        Parameters
        ----------
        G:
            A ``networkx.Graph`` or ``DiGraph`` (directed), or a multigraph. Node ids may be
            any hashable values; matches are reported in them.
        node_label, edge_label:
            The node and edge attribute that holds the label (any hashable value; absent:
            ``0``). ``None``: every label is ``0``. A node whose label is a ``set`` or
            ``frozenset`` carries each of its values (the paper's multi-labelled vertices): a
            query node matches a data node that carries all of its labels.

        A multigraph's parallel edges count once per distinct label (an edge of the query
        matches a pair of data vertices joined by at least one edge of its label). Self-loops
        are dropped from a data graph (a query without them never uses them); a query with a
        self-loop raises :class:`gsi.GraphError`.

        Warns :class:`gsi.LabelWarning` when no node has the attribute `node_label` but some
        have others (a label under another name would be ignored).
        """
        try:
            directed = bool(G.is_directed())
            nodes = list(G.nodes)
            multigraph = bool(G.is_multigraph())
        except AttributeError:
            raise TypeError(f"expected a networkx graph, got {type(G).__name__}") from None
        index = {node: i for i, node in enumerate(nodes)}
        vertex = Numbering("node")
        vertex_codes = np.zeros(len(nodes), dtype=np.uint32)
        more: List[tuple] = []
        labelled = False
        others: Optional[dict] = None  # a node's attributes, where none has `node_label`
        if node_label is not None:
            for i, (node, attrs) in enumerate(G.nodes(data=True)):
                if node_label in attrs:
                    labelled = True
                elif attrs and others is None:
                    others = attrs
                value = attrs.get(node_label, 0)
                if not isinstance(value, (set, frozenset)):
                    vertex_codes[i] = vertex(value, node)
                    continue
                if not value:
                    raise GraphError(f"node {node!r} has an empty set of labels")
                codes = sorted(vertex(v, node) for v in value)
                vertex_codes[i] = codes[0]
                more.extend((i, code) for code in codes[1:])
        if not labelled and others is not None:
            names = ", ".join(repr(name) for name in list(others)[:3])
            warn_labels(
                f"no node has the attribute {node_label!r}, which holds labels, but nodes have "
                f"others ({names}): every vertex gets label 0; name the label's attribute "
                f"with node_label=..., or pass node_label=None to match without labels"
            )
        edge = Numbering("edge")
        ends: List[tuple] = []
        codes: List[int] = []
        loops: List[Hashable] = []
        seen: set = set()
        for u, v, attrs in G.edges(data=True):
            s, t = index[u], index[v]
            if s == t:
                loops.append(u)
                continue
            code = 0 if edge_label is None else edge(attrs.get(edge_label, 0), (u, v))
            if multigraph:
                key = (s, t, code) if directed or s < t else (t, s, code)
                if key in seen:
                    continue
                seen.add(key)
            ends.append((s, t))
            codes.append(code)
        edges = np.array(ends, dtype=np.uint32).reshape(-1, 2)
        native = _gsi.Graph.from_edges(
            edges, vertex_codes, np.array(codes, dtype=np.uint32), directed, _pairs(more)
        )
        return cls._wrap(native, nodes, vertex.labels(), edge.labels(), loops, not labelled)

    @classmethod
    def from_edges(
        cls,
        edges: Any,
        vertex_labels: Any = None,
        edge_labels: Any = None,
        directed: bool = False,
    ) -> "Graph":
        """A graph from arrays: vertices ``0 .. n-1``.

        Parameters
        ----------
        edges:
            An ``(m, 2)`` array of vertex ids, one edge ``u, v`` per row (u → v when
            `directed`). A ``uint32`` array is read in place; other integer arrays are
            converted once. An empty list is a graph without edges (its vertices, if any,
            are those of `vertex_labels`).
        vertex_labels:
            One label per vertex (its length is the number of vertices); ``None``: every
            label ``0`` and as many vertices as the largest id in `edges` says, which may be
            at most 2^20 or 8 times the number of edges, whichever is larger (a larger id is
            refused: renumber the ids, or give `vertex_labels`). Integers are
            labels as they are; other values (strings, tuples, a mix) are told apart by value
            and type as networkx tells nodes apart: ``1`` is not ``"1"``.
        edge_labels:
            One label per edge, as `vertex_labels`; ``None``: every label ``0``.
        directed:
            Whether edges have a direction.

        Raises
        ------
        gsi.GraphError
            A self-loop, an edge given twice (with the same label; in either orientation when
            undirected), an id past the last vertex, or without `vertex_labels` an id far
            beyond the number of edges.
        MemoryError
            The graph's arrays cannot be allocated.
        """
        ends = np.asarray(edges)
        if ends.size == 0:
            # No edges, whatever the type numpy gives an empty list (float64).
            ends = np.empty((0, 2), dtype=np.uint32)
        if ends.ndim != 2 or ends.shape[1] != 2:
            raise ValueError(f"edges: expected an array of shape (m, 2), got {ends.shape}")
        ends = as_uint32(ends, "edges")
        if vertex_labels is None:
            count = _vertex_count(ends)
            vertex_codes, vertex_names = np.zeros(count, dtype=np.uint32), Labels()
        else:
            vertex_codes, vertex_names = as_codes(vertex_labels, "vertex_labels")
        edge_codes, edge_names = (
            (None, Labels()) if edge_labels is None else as_codes(edge_labels, "edge_labels")
        )
        native = _gsi.Graph.from_edges(ends, vertex_codes, edge_codes, bool(directed))
        return cls._wrap(native, None, vertex_names, edge_names, unlabelled=vertex_labels is None)

    def to_networkx(self, node_label: str = "label", edge_label: str = "label") -> Any:
        """This graph as a networkx ``Graph`` or ``DiGraph``: nodes by their ids, labels in
        the attributes `node_label` and `edge_label` (for small graphs: every node and edge
        becomes a Python object)."""
        import networkx as nx

        G = nx.DiGraph() if self.directed else nx.Graph()
        nodes = self.nodes
        value = self._vertex_labels.value
        G.add_nodes_from(
            (nodes[i], {node_label: value(code)})
            for i, code in enumerate(self._native.vertex_labels().tolist())
        )
        # A vertex of several labels: a frozenset of their values.
        sets: Dict[int, set] = {}
        for v, code in self._native.more_labels().tolist():
            sets.setdefault(v, set()).add(value(code))
        for v, values in sets.items():
            attrs = G.nodes[nodes[v]]
            attrs[node_label] = frozenset(values | {attrs[node_label]})
        ends, codes = self._native.edges()
        value = self._edge_labels.value
        G.add_edges_from(
            (nodes[s], nodes[t], {edge_label: value(code)})
            for (s, t), code in zip(ends.tolist(), codes.tolist())
        )
        return G

    # What a graph is.

    @property
    def directed(self) -> bool:
        """Whether edges have a direction."""
        return self._native.directed

    @property
    def vertex_count(self) -> int:
        """Number of vertices."""
        return self._native.vertex_count

    @property
    def edge_count(self) -> int:
        """Number of edges (an undirected edge counts once)."""
        return self._native.edge_count

    @property
    def nodes(self) -> Sequence[Hashable]:
        """The id of each vertex: networkx nodes, a SNAP file's ids, RDF terms, or
        ``range(n)`` where vertices are numbered already."""
        return range(self.vertex_count) if self._nodes is None else self._nodes

    @property
    def vertex_labels(self) -> np.ndarray:
        """Each vertex's label code (``uint32``), by vertex."""
        return self._native.vertex_labels()

    def label(self, code: int, edge: bool = False) -> Hashable:
        """The label value of a vertex-label code (an edge-label code when `edge`)."""
        return (self._edge_labels if edge else self._vertex_labels).value(code)

    def index_of(self, node: Hashable) -> int:
        """The vertex number of the node with id `node`."""
        if self._nodes is None:
            return range(self.vertex_count).index(node)  # type: ignore[arg-type]
        if self._index is None:
            self._index = {n: i for i, n in enumerate(self._nodes)}
        return self._index[node]

    @property
    def indexed(self) -> bool:
        """Whether gsi's index of the graph is built (by a matcher, or read from a saved
        index)."""
        return self._native.indexed

    def __len__(self) -> int:
        return self.vertex_count

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<gsi.Graph: {self.vertex_count} vertices, {self.edge_count} edges, {kind}>"

    # Matching.

    def _label_sets(self) -> "tuple[np.ndarray, np.ndarray]":
        if self._used is None:
            self._used = self._native.label_sets()
        return self._used

    def _as_query_of(self, data: "Graph") -> _gsi.Graph:
        """This graph, as a query, in `data`'s label codes; warns where it has no labels but
        `data` has."""
        if self._unlabelled:
            data_vertex = data._label_sets()[0].tolist()
            if data_vertex and data_vertex != [data._vertex_labels.code(0)]:
                warn_labels(
                    "the query has no vertex labels, so its vertices match only data vertices "
                    f"of label 0, but the data graph's vertices have {len(data_vertex)} labels; "
                    "label the query, or pass node_label=None to match without labels"
                )
        if self._loops:
            raise GraphError(
                f"the query has a self-loop at node {self._loops[0]!r}: gsi matches graphs "
                "without self-loops; remove them"
            )
        named = (self._vertex_labels, self._edge_labels, data._vertex_labels, data._edge_labels)
        if not any(labels.named for labels in named):
            return self._native
        data_vertex, data_edge = data._label_sets()
        query_vertex, query_edge = self._label_sets()
        vertex_map = renumbering(
            self._vertex_labels, data._vertex_labels, query_vertex, data_vertex
        )
        edge_map = renumbering(self._edge_labels, data._edge_labels, query_edge, data_edge)
        if vertex_map is None and edge_map is None:
            return self._native
        vertex_codes = self._native.vertex_labels()
        more = self._native.more_labels()
        ends, edge_codes = self._native.edges()
        if vertex_map is not None:
            to = np.asarray(vertex_map, dtype=np.uint32)
            vertex_codes = to[np.searchsorted(query_vertex, vertex_codes)]
            more[:, 1] = to[np.searchsorted(query_vertex, more[:, 1])]
        if edge_map is not None:
            edge_codes = np.asarray(edge_map, dtype=np.uint32)[
                np.searchsorted(query_edge, edge_codes)
            ]
        return _gsi.Graph.from_edges(ends, vertex_codes, edge_codes, self.directed, more)


#: Without `vertex_labels`, ids below this many are taken as they are whatever the edges.
IMPLICIT_VERTEX_FLOOR = 1 << 20
#: ... and below this many times the number of edges.
IMPLICIT_VERTICES_PER_EDGE = 8


def _vertex_count(ends: np.ndarray) -> int:
    """The number of vertices of edges `ends` given without labels: ``0 ..`` the largest id,
    refused where that id is far beyond what the edges need (almost every vertex isolated)."""
    if not ends.size:
        return 0
    largest = int(ends.max())
    bound = max(IMPLICIT_VERTEX_FLOOR, IMPLICIT_VERTICES_PER_EDGE * len(ends))
    if largest >= bound:
        raise GraphError(
            f"edges: vertex id {largest} is far beyond the number of edges ({len(ends)}): "
            f"without vertex_labels the graph would have {largest + 1} vertices, almost all "
            f"isolated (ids up to {bound - 1} are taken as they are); renumber the ids "
            "(numpy.unique(edges, return_inverse=True)), or give vertex_labels, one per vertex"
        )
    return largest + 1


def _pairs(rows: "List[tuple]") -> Optional[np.ndarray]:
    """Rows ``(vertex, label code)`` as a ``(k, 2)`` ``uint32`` array; ``None`` when none."""
    return np.array(rows, dtype=np.uint32).reshape(-1, 2) if rows else None


def as_graph(
    G: GraphLike, node_label: Optional[str] = "label", edge_label: Optional[str] = "label"
) -> Graph:
    """`G` as a :class:`Graph`: itself, or converted from networkx."""
    if isinstance(G, Graph):
        return G
    return Graph.from_networkx(G, node_label=node_label, edge_label=edge_label)
