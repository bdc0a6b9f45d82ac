"""`gsi.Matcher`: a data graph indexed once for many queries, and `gsi.count`."""

from __future__ import annotations

import operator
from typing import Any, Dict, Hashable, Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from . import _gsi
from .graph import Graph, GraphLike, as_graph

__all__ = ["Matcher", "count"]


def _semantics(homomorphism: bool, induced: bool, edge_isomorphism: bool = False) -> str:
    """The engine's name for what a match is."""
    if homomorphism and induced:
        raise ValueError(
            "homomorphism=True and induced=True: an induced match is injective; ask for one"
        )
    flags = (
        ("homomorphism", homomorphism),
        ("induced", induced),
        ("edge_isomorphism", edge_isomorphism),
    )
    asked = [name for name, on in flags if on]
    if len(asked) > 1:
        raise ValueError(f"{asked[0]}=True and {asked[1]}=True: ask for one")
    if edge_isomorphism:
        return "edge-isomorphism"
    return "homomorphism" if homomorphism else "induced" if induced else "isomorphism"


def _check_limit(limit: Optional[int]) -> Optional[int]:
    if limit is None:
        return None
    limit = operator.index(limit)
    if limit < 1:
        raise ValueError(f"limit={limit}: expected at least one match")
    return limit


def _check_share(share: Optional[Tuple[int, int]]) -> Optional[Tuple[int, int]]:
    """`share` as two integers (the engine checks that ``0 <= i < k``)."""
    if share is None:
        return None
    return operator.index(share[0]), operator.index(share[1])


class Matcher:
    """A data graph, indexed once, and the engine that answers queries on it.

    Every query `Q` may be a :class:`gsi.Graph` or a networkx graph (labels read from
    `node_label` and `edge_label`, as for the data graph). A match maps every query vertex
    to a distinct data vertex of the same label so that every query edge (with its label,
    and its direction in a directed graph) maps to a data edge (with ``induced=True`` also no
    data edge between matched vertices that the query lacks): non-induced subgraph
    isomorphism, or monomorphism, as networkx's ``subgraph_monomorphisms_iter`` (which
    reports the same maps the other way round, data node to query node). Automorphic copies
    count separately: a triangle query finds each triangle 6 times.

    Matching runs without the GIL, on a thread of its own; Ctrl-C stops it within a fraction
    of a second and raises ``KeyboardInterrupt``.

    Parameters
    ----------
    G:
        The data graph: a :class:`gsi.Graph` (indexed in place, once) or a networkx graph.
    engine:
        ``"cpu"``, ``"gpu"`` (raises :class:`gsi.GpuError` without a usable GPU) or ``"auto"``
        (per query the faster of the two where a GPU is usable, else the CPU).
    device:
        The GPU to use, from 0.
    memory_limit:
        Bytes the join's tables may hold at once, as a number or a size such as ``"8GiB"``;
        larger work is split into chunks rather than failing. ``None``: the ``gsi``
        command's default, half of what the process may use (the least of the machine's
        RAM, ``ulimit -v`` and the container's limit). :meth:`match_array` keeps its array
        within it too: half for the join, half for the matches, and
        :class:`gsi.MemoryLimitExceeded` past it.
    node_label, edge_label:
        The attributes that hold labels in networkx graphs (absent: ``0``; ``None``: no
        labels).
    """

    def __init__(
        self,
        G: GraphLike,
        engine: str = "auto",
        device: int = 0,
        memory_limit: Union[int, str, None] = None,
        *,
        node_label: Optional[str] = "label",
        edge_label: Optional[str] = "label",
    ) -> None:
        self._labels = (node_label, edge_label)
        self._graph = as_graph(G, node_label, edge_label)
        self._native = _gsi.Matcher(self._graph._native, engine, device, memory_limit)
        self._opened = (engine, device, memory_limit)
        #: Edge isomorphism: the data graph's line-label numbering, a matcher of its line
        #: graph and the data edge of each line vertex, made at the first such query.
        self._lines: "Optional[tuple[_gsi.LineGraphs, _gsi.Matcher, np.ndarray]]" = None

    @property
    def graph(self) -> Graph:
        """The data graph."""
        return self._graph

    @property
    def engine(self) -> str:
        """The engine asked for: ``"cpu"``, ``"gpu"`` or ``"auto"``."""
        return self._native.engine

    @property
    def device(self) -> Optional[str]:
        """The GPU in use, by name and architecture; ``None`` when only the CPU runs."""
        return self._native.device

    @property
    def notice(self) -> Optional[str]:
        """What the engine said when it opened, if anything: ``"no usable GPU (...); using
        the CPU engine"`` for ``engine="auto"`` without a GPU."""
        return self._native.notice

    @property
    def memory_limit(self) -> int:
        """Bytes the join's tables may hold at once."""
        return self._native.memory_limit

    def _query(self, Q: GraphLike) -> "tuple[Graph, _gsi.Graph]":
        query = as_graph(Q, *self._labels)
        return query, query._as_query_of(self._graph)

    def _line_query(self, Q: GraphLike) -> "tuple[Graph, _gsi.Matcher, _gsi.Graph, np.ndarray]":
        """Edge isomorphism (the paper's line graphs, as ``gsi match --semantics
        edge-isomorphism``): `Q`, the data graph's line-graph matcher, `Q`'s line graph and
        the query edge of each of its vertices."""
        query, native = self._query(Q)
        if self._lines is None:
            numbering, line, edges = _gsi.LineGraphs.of_data(
                self._graph._native, self._graph._nodes
            )
            self._lines = (numbering, _gsi.Matcher(line, *self._opened), edges)
        numbering, matcher, _ = self._lines
        line, query_edges = numbering.of_query(native, query._nodes)
        return query, matcher, line, query_edges

    def count(
        self,
        Q: GraphLike,
        homomorphism: bool = False,
        timeout: Optional[float] = None,
        *,
        induced: bool = False,
        edge_isomorphism: bool = False,
        share: Optional[Tuple[int, int]] = None,
    ) -> int:
        """The number of matches of `Q`, exact up to 2^128 - 1 on either engine (a count
        beyond that raises :class:`gsi.GsiError`).

        Parameters
        ----------
        Q:
            The query graph.
        homomorphism:
            Let distinct query vertices map to one data vertex (no injectivity).
        timeout:
            Seconds after which to give up: :class:`gsi.MatchTimeout` is raised, with the
            matches found until then in its ``count``.
        induced:
            Induced matches only (networkx's ``subgraph_isomorphisms_iter``, rustworkx's
            ``induced=True``): no data edge between two matched vertices that the query lacks
            between theirs. Not with `homomorphism`.
        edge_isomorphism:
            Count edge isomorphisms instead: one-to-one maps of the query's edges to data
            edges of the same labels, with endpoints of the same labels, under which two
            query edges share as many endpoints as their images (the paper's line graphs).
            Undirected graphs of one label per vertex only; by Whitney's exception a
            triangle and a claw of equal labels match each other (3! ways).
        share:
            ``(i, k)``: count only share i of k disjoint shares of the matches, as ``gsi match
            --partition i/k`` does; the k shares' counts add up to the whole count
            (:func:`gsi.distributed.count` runs them as tasks).
        """
        semantics = _semantics(homomorphism, induced, edge_isomorphism)
        share = _check_share(share)
        if edge_isomorphism:
            _, matcher, line, _ = self._line_query(Q)
            return matcher.count(line, semantics, timeout, share)
        _, native = self._query(Q)
        return self._native.count(native, semantics, timeout, share)

    def matches(
        self,
        Q: GraphLike,
        limit: Optional[int] = None,
        *,
        homomorphism: bool = False,
        timeout: Optional[float] = None,
        induced: bool = False,
        edge_isomorphism: bool = False,
        share: Optional[Tuple[int, int]] = None,
    ) -> Iterator[Dict[Hashable, Hashable]]:
        """The matches of `Q` as they are found, each a dict ``{query node: data node}`` in
        the graphs' own node ids; with ``edge_isomorphism=True`` (see :meth:`count`), a dict
        ``{query edge: data edge}``, each edge a pair of node ids as the graph lists it.

        The engine starts at once and works ahead of the reader by a few batches of
        thousands of matches; closing the iterator (or dropping it, or leaving a ``for``
        loop over it) stops the engine. `limit` stops after that many matches (of the
        share, with `share`); the other parameters are those of :meth:`count` (a timeout
        raises :class:`gsi.MatchTimeout` after the matches found in time were read).
        """
        semantics = _semantics(homomorphism, induced, edge_isomorphism)
        share = _check_share(share)
        if edge_isomorphism:
            query, matcher, line, query_edges = self._line_query(Q)
            stream = matcher.matches(line, _check_limit(limit), semantics, timeout, share=share)
            data_edges = self._lines[2]
            return _dicts(
                stream,
                _edge_ids(query_edges, query.nodes),
                _edge_ids(data_edges, self._graph._nodes),
            )
        query, native = self._query(Q)
        stream = self._native.matches(native, _check_limit(limit), semantics, timeout, share=share)
        return _dicts(stream, query.nodes, self._graph._nodes)

    def match_array(
        self,
        Q: GraphLike,
        limit: Optional[int] = None,
        *,
        homomorphism: bool = False,
        timeout: Optional[float] = None,
        induced: bool = False,
        edge_isomorphism: bool = False,
    ) -> np.ndarray:
        """Every match of `Q` (at most `limit`) as a ``uint32`` array of shape
        ``(matches, query vertices)``.

        Column ``j`` is the query's vertex ``j`` (``Q.nodes[j]``, networkx's node order) and
        the entries are data vertex numbers: ``graph.nodes[v]`` is a number's node id. The
        array is the engine's own buffer, handed over without a copy. Parameters as
        :meth:`matches`. An array that would take more than half the matcher's
        ``memory_limit`` raises :class:`gsi.MemoryLimitExceeded` instead (with a `limit`,
        or through :meth:`matches`, any number of matches can be read).

        With ``edge_isomorphism=True`` the array has shape ``(matches, query edges, 2)``:
        entry ``[i, j]`` is the data edge that match ``i`` maps the query's edge ``j`` to, as
        two data vertex numbers, the lower first. The query's edges are numbered in ascending
        order of ``(a, b)``, their vertex numbers with ``a < b`` (two edges of one pair of
        vertices with different labels in gsi's order of labels).
        """
        semantics = _semantics(homomorphism, induced, edge_isomorphism)
        if edge_isomorphism:
            # The line graph's vertices are the query's edges in ascending order already.
            _, matcher, line, _ = self._line_query(Q)
            rows = matcher.match_array(line, _check_limit(limit), semantics, timeout)
            return self._lines[2][rows]
        _, native = self._query(Q)
        return self._native.match_array(native, _check_limit(limit), semantics, timeout)

    def explain(
        self,
        Q: GraphLike,
        *,
        homomorphism: bool = False,
        timeout: Optional[float] = None,
        induced: bool = False,
        edge_isomorphism: bool = False,
    ) -> Dict[str, Any]:
        """How gsi answers `Q`, as ``gsi match --explain`` says it: the query is run (counted)
        and its plan described.

        The dict holds ``count``, ``status`` (``"ok"``, or ``"timeout"`` with the matches
        found until then), ``engine`` (which engine joined), ``order`` (query nodes in join
        order), ``steps`` (per step: ``vertex``, its ``candidates``, the ``first`` linking
        edge and the ``others`` (each a dict of ``vertex``, ``label``, ``direction``), the
        nodes its match must be ``above`` or ``below`` (symmetry breaking), and how many
        rows were joined or counted there), ``candidates`` (``{node: |C(node)|}``),
        ``strategy`` and ``sampled`` (how the order was chosen), ``automorphism_classes``,
        ``estimated_rows``, ``peak_join_bytes``, ``times_ms`` (filter, plan, join) and
        ``text`` (the plan as the command prints it, query vertices numbered ``u0, u1, ...``).

        With ``edge_isomorphism=True`` the plan is that of `Q`'s line graph: each of its
        vertices is an edge of `Q` (a pair of node ids, as :meth:`matches` gives them), and
        the links' labels are the line graph's own codes (the shared endpoint's label, or
        whether two edges meet), which ``text`` prints too.
        """
        semantics = _semantics(homomorphism, induced, edge_isomorphism)
        if edge_isomorphism:
            query, matcher, line, query_edges = self._line_query(Q)
            plan = matcher.explain(line, semantics, timeout)
            nodes = _edge_ids(query_edges, query.nodes)
            edge_label = lambda code: code  # noqa: E731
        else:
            query, native = self._query(Q)
            plan = self._native.explain(native, semantics, timeout)
            nodes = query.nodes
            edge_label = self._graph._edge_labels.value

        def link(edge: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
            if edge is None:
                return None
            return {**edge, "vertex": nodes[edge["vertex"]], "label": edge_label(edge["label"])}

        for step in plan["steps"]:
            step["vertex"] = nodes[step["vertex"]]
            step["first"] = link(step["first"])
            step["others"] = [link(e) for e in step["others"]]
            step["above"] = [nodes[u] for u in step["above"]]
            step["below"] = [nodes[u] for u in step["below"]]
        plan["order"] = [nodes[u] for u in plan["order"]]
        plan["candidates"] = {nodes[u]: size for u, size in enumerate(plan["candidates"])}
        return plan

    def __repr__(self) -> str:
        return f"<gsi.Matcher: {self._graph!r}, engine={self.engine!r}>"


def _edge_ids(edges: np.ndarray, nodes: Optional[Sequence[Hashable]]) -> "list[tuple]":
    """Each row ``(u, v)`` of `edges` as a pair of node ids."""
    node = (lambda v: v) if nodes is None else nodes.__getitem__
    return [(node(u), node(v)) for u, v in edges.tolist()]


def _dicts(
    stream: _gsi.MatchStream,
    query_nodes: Sequence[Hashable],
    data_nodes: Optional[Sequence[Hashable]],
) -> Iterator[Dict[Hashable, Hashable]]:
    """The rows of `stream`'s batches as dicts from `query_nodes` to `data_nodes` (node ids,
    or pairs of them for edges); closes the stream when done."""
    query_nodes = list(query_nodes)
    try:
        for batch in stream:
            rows = batch.tolist()
            if data_nodes is None:
                for row in rows:
                    yield dict(zip(query_nodes, row))
            else:
                node = data_nodes.__getitem__
                for row in rows:
                    yield dict(zip(query_nodes, map(node, row)))
    finally:
        stream.close()


def count(
    G: GraphLike,
    Q: GraphLike,
    homomorphism: bool = False,
    timeout: Optional[float] = None,
    *,
    induced: bool = False,
    edge_isomorphism: bool = False,
    engine: str = "auto",
    device: int = 0,
    memory_limit: Union[int, str, None] = None,
    node_label: Optional[str] = "label",
    edge_label: Optional[str] = "label",
) -> int:
    """The number of matches of the query `Q` in the data graph `G`: a :class:`Matcher`'s
    :meth:`~Matcher.count` in one line. A :class:`gsi.Graph` `G` keeps its index for the next
    call; a networkx `G` is converted and indexed every time."""
    matcher = Matcher(G, engine, device, memory_limit, node_label=node_label, edge_label=edge_label)
    return matcher.count(
        Q, homomorphism, timeout, induced=induced, edge_isomorphism=edge_isomorphism
    )
