"""gsi: exact labelled subgraph matching on the CPU and NVIDIA GPUs.

gsi finds every occurrence of a small labelled query graph in a large labelled data graph
(subgraph isomorphism, non-induced or induced; exact counts), with the engines of the GSI paper (ICDE
2020): a signature filter, the PCSR graph structure and the Prealloc-Combine join.

>>> import networkx as nx, gsi
>>> G = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])
>>> gsi.count(G, nx.cycle_graph(3))
6
>>> m = gsi.Matcher(G)
>>> sorted(match[1] for match in m.matches(nx.path_graph(2)) if match[0] == 2)
[0, 1, 3]

- :class:`Graph`: a graph from a file (:meth:`Graph.read`), networkx
  (:meth:`Graph.from_networkx`) or numpy arrays (:meth:`Graph.from_edges`).
- :class:`Matcher`: a data graph indexed once; :meth:`Matcher.count`,
  :meth:`Matcher.matches`, :meth:`Matcher.match_array`, :meth:`Matcher.explain`.
- :func:`count`: one query in one line.
- :mod:`gsi.distributed`: one query's count cut into shares, run as tasks on any executor
  (a process pool, Dask, submitit for Slurm).
- Errors: :class:`GsiError` and its subclasses :class:`FormatError`, :class:`GraphError`,
  :class:`GpuError`, :class:`MatchTimeout` and :class:`MemoryLimitExceeded`;
  :class:`LabelWarning` where labels look missing.
"""

from ._gsi import __version__
from .errors import (
    FormatError,
    GpuError,
    GraphError,
    GsiError,
    LabelWarning,
    MatchTimeout,
    MemoryLimitExceeded,
)
from . import distributed
from .graph import Graph
from .matcher import Matcher, count

__all__ = [
    "Graph",
    "Matcher",
    "count",
    "distributed",
    "GsiError",
    "FormatError",
    "GraphError",
    "GpuError",
    "MatchTimeout",
    "MemoryLimitExceeded",
    "LabelWarning",
    "__version__",
]
