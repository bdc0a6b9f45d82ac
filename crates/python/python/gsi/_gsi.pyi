"""Type stubs of gsi's native module. Use it through ``gsi``: these classes number vertices
``0 .. n-1`` and labels as ``uint32`` codes, where ``gsi.Graph`` and ``gsi.Matcher`` speak in
node ids and label values."""

from typing import Hashable, Iterator, Optional, Sequence, Union, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

class Graph:
    """A labelled graph in gsi's CSR form, indexed in place by the first ``Matcher``."""

    @staticmethod
    def from_edges(
        edges: npt.NDArray[np.uint32],
        vertex_labels: npt.NDArray[np.uint32],
        edge_labels: Optional[npt.NDArray[np.uint32]],
        directed: bool,
        more_labels: Optional[npt.NDArray[np.uint32]] = None,
    ) -> Graph:
        """A graph of ``len(vertex_labels)`` vertices and one edge per row of ``edges``
        (shape ``(m, 2)``), labelled by ``edge_labels`` (``None``: 0); rows ``v, label`` of
        ``more_labels`` give vertices further labels. Raises ``gsi.GraphError`` for a
        self-loop, a repeated edge or an unknown vertex."""
    @staticmethod
    def read(
        path: str, format: str, directed: bool
    ) -> tuple[
        Graph, Optional[list[Union[int, str]]], Optional[dict[int, str]], Optional[dict[int, str]]
    ]:
        """The one graph of a file (or a saved index), the file's vertex names (``None``:
        numbered ``0 .. n-1``) and its vertex- and edge-label names by code (``None``:
        numbers). Raises ``gsi.FormatError`` or ``OSError``."""
    @property
    def vertex_count(self) -> int:
        """Number of vertices."""
    @property
    def edge_count(self) -> int:
        """Number of edges (an undirected edge counts once)."""
    @property
    def directed(self) -> bool:
        """Whether edges have a direction."""
    @property
    def indexed(self) -> bool:
        """Whether the index is built."""
    def vertex_labels(self) -> npt.NDArray[np.uint32]:
        """Each vertex's label (a copy)."""
    def edges(self) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
        """Every edge once: endpoints ``(m, 2)`` and labels ``(m,)``."""
    def label_sets(self) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
        """The distinct vertex labels (of every label set) and edge labels, sorted."""
    def more_labels(self) -> npt.NDArray[np.uint32]:
        """Rows ``v, label``: the labels of vertices of several beyond their first."""

class LineGraphs:
    """Edge isomorphism: the numbering of a data graph's line labels."""

    @staticmethod
    def of_data(
        data: Graph, nodes: Optional[Sequence[Hashable]]
    ) -> "tuple[LineGraphs, Graph, npt.NDArray[np.uint32]]":
        """The numbering, the data graph's line graph and the data edge of each of its
        vertices (``(m, 2)``)."""
    def of_query(
        self, query: Graph, nodes: Optional[Sequence[Hashable]]
    ) -> "tuple[Graph, npt.NDArray[np.uint32]]":
        """The query's line graph in the data's numbering and the query edge of each of its
        vertices."""

class Matcher:
    """A data graph's index and the engine that answers queries on it."""

    def __init__(
        self,
        graph: Graph,
        engine: str = "auto",
        device: int = 0,
        memory_limit: Union[int, str, None] = None,
    ) -> None:
        """Indexes ``graph`` and opens ``engine`` (``"cpu"``, ``"gpu"``, ``"auto"``) on GPU
        ``device``. Raises ``gsi.GpuError`` for ``engine="gpu"`` without a usable GPU."""
    def count(
        self,
        query: Graph,
        semantics: str = "isomorphism",
        timeout: Optional[float] = None,
        share: Optional[Tuple[int, int]] = None,
    ) -> int:
        """Number of matches (of share ``(i, k)``); ``gsi.MatchTimeout`` past ``timeout`` seconds."""
    def match_array(
        self,
        query: Graph,
        limit: Optional[int] = None,
        semantics: str = "isomorphism",
        timeout: Optional[float] = None,
    ) -> npt.NDArray[np.uint32]:
        """Every match (at most ``limit``), one row each, data vertices in query-vertex order."""
    def matches(
        self,
        query: Graph,
        limit: Optional[int] = None,
        semantics: str = "isomorphism",
        timeout: Optional[float] = None,
        batch: int = 4096,
        share: Optional[Tuple[int, int]] = None,
    ) -> MatchStream:
        """The matches (of share ``(i, k)``) as they are found, in batches of about ``batch``
        rows."""
    def explain(
        self, query: Graph, semantics: str = "isomorphism", timeout: Optional[float] = None
    ) -> dict:
        """Runs (counts) the query and describes its plan; vertices by number, labels as codes."""
    @property
    def engine(self) -> str:
        """``"cpu"``, ``"gpu"`` or ``"auto"``, as asked."""
    @property
    def device(self) -> Optional[str]:
        """The GPU in use; ``None`` on the CPU."""
    @property
    def notice(self) -> Optional[str]:
        """What the engine said when it opened, if anything."""
    @property
    def memory_limit(self) -> int:
        """Bytes the join's tables may hold at once."""
    @property
    def running(self) -> int:
        """Queries under way (an open stream counts until it ends or is closed)."""

class MatchStream(Iterator[npt.NDArray[np.uint32]]):
    """A query's matches in batches (arrays of shape ``(rows, width)``); dropping or closing
    it stops the engine."""

    def __iter__(self) -> MatchStream: ...
    def __next__(self) -> npt.NDArray[np.uint32]:
        """The next batch; ``gsi.MatchTimeout`` when the deadline passed."""
    def close(self) -> None:
        """Stops the engine."""
    @property
    def width(self) -> int:
        """Query vertices per match."""
