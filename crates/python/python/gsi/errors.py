"""The exceptions gsi raises.

Every one derives from :class:`GsiError` and from the built-in class a caller would catch
without knowing gsi (``ValueError``, ``RuntimeError``, ``TimeoutError``). Their messages are
those of the ``gsi`` command. A file that cannot be opened raises the built-in ``OSError``
(``FileNotFoundError``, ``PermissionError``, ...), and Ctrl-C ``KeyboardInterrupt``.
"""

from __future__ import annotations

import sys
import warnings
from typing import Optional

__all__ = [
    "GsiError",
    "FormatError",
    "GraphError",
    "GpuError",
    "MatchTimeout",
    "MemoryLimitExceeded",
    "LabelWarning",
]


class GsiError(Exception):
    """Base class of gsi's exceptions."""


class FormatError(GsiError, ValueError):
    """A graph file does not follow its format.

    The message names the file and, where there is one, the line and what was expected:
    ``q.graph:3: expected `v ID LABEL DEGREE`, found ...``.
    """

    path: str
    """The file."""
    line: Optional[int]
    """The one-based line number, or ``None`` when the file as a whole is wrong."""

    def __init__(self, message: str, path: str, line: Optional[int] = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class GraphError(GsiError, ValueError):
    """A graph cannot be built or matched as given: a self-loop or repeated edge in arrays,
    a vertex id past the last vertex, an empty query, a directed query for an undirected
    data graph (or the other way round)."""


class GpuError(GsiError, RuntimeError):
    """The GPU engine cannot run: no NVIDIA driver, no NVRTC, no such device, a query too
    wide for its tables, or a CUDA call that failed. ``engine="auto"`` never raises it for a
    missing GPU: it uses the CPU and says so in :attr:`gsi.Matcher.notice`."""


class MatchTimeout(GsiError, TimeoutError):
    """A query ran past its ``timeout``."""

    count: int
    """Matches found before the deadline (a lower bound of the answer)."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class MemoryLimitExceeded(GsiError, MemoryError):
    """Keeping what was asked for would take more than the matcher's ``memory_limit``: say
    ``match_array`` without a ``limit`` on a query of very many matches. Raised before the
    process runs out of memory; the message says how many matches were kept."""

    budget: int
    """The budget in bytes."""

    def __init__(self, message: str, budget: int) -> None:
        super().__init__(message)
        self.budget = budget


class LabelWarning(UserWarning):
    """Labels look missing: a networkx graph whose nodes carry attributes but none named
    `node_label`, or a query without labels against a data graph with labels (its vertices
    then match only data vertices of label ``0``)."""


def warn_labels(message: str) -> None:
    """Warns `message` as a :class:`LabelWarning`, from the caller's line outside gsi."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("gsi."):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, LabelWarning, stacklevel=level)
