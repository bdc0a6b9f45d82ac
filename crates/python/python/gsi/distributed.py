"""`gsi.distributed`: one query's count cut into disjoint shares, run as tasks on any executor.

The shares are those of ``gsi match --partition i/k`` (docs/DISTRIBUTED.md): disjoint, and
together every match. Each task opens the data graph itself from a path every worker can
read — a saved index (``gsi index``) is mapped, not parsed — so the executor may be a
process pool on one machine, a Dask cluster (a ``distributed.Client``), Slurm through
submitit's executors, or Ray through :class:`RayExecutor`: anything with ``submit(fn, *args)``
returning futures with ``result()``. A process pool should start its workers with ``spawn`` (or ``forkserver``): a
worker forked from a process in which gsi has already run may hang on a lock its threads held.

>>> import multiprocessing
>>> from concurrent.futures import ProcessPoolExecutor
>>> spawn = multiprocessing.get_context("spawn")                    # doctest: +SKIP
>>> with ProcessPoolExecutor(4, mp_context=spawn) as pool:          # doctest: +SKIP
...     answer = gsi.distributed.count("g.gsidx", "q.graph", shares=16, executor=pool)
>>> answer.total, answer.complete                                   # doctest: +SKIP
(7517144568, True)
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Union

from .errors import GsiError, MatchTimeout

__all__ = ["count", "ShareCount", "DistributedCount", "ShareFailed", "RayExecutor"]

PathLike = Union[str, "os.PathLike[str]"]


class ShareFailed(GsiError, RuntimeError):
    """Shares whose tasks failed on every try: no total is given without them."""

    shares: List[int]
    """The shares that failed."""

    def __init__(self, message: str, shares: List[int]):
        super().__init__(message)
        self.shares = shares


@dataclass(frozen=True)
class ShareCount:
    """One share's answer."""

    share: int
    """Which share, from 0."""
    count: int
    """Its matches (those found until its timeout, when it timed out)."""
    status: str
    """``"ok"``, or ``"timeout"``."""
    seconds: float
    """Its task's time, reading the data graph included."""
    engine: str
    """The engine that answered: ``"cpu"`` or ``"gpu"``."""
    device: Optional[str]
    """The GPU, when one answered."""
    attempts: int
    """Tries it took (more than one after a failed task was retried)."""


@dataclass(frozen=True)
class DistributedCount:
    """A query's count over all its shares."""

    total: int
    """The shares' counts added up: every match, when :attr:`complete`."""
    shares: List[ShareCount] = field(default_factory=list)
    """Each share's answer, in share order."""

    @property
    def complete(self) -> bool:
        """Whether every share counted every one of its matches (none timed out)."""
        return all(s.status == "ok" for s in self.shares)


class RayExecutor:
    """Ray's tasks behind ``submit(fn, *args)``, for :func:`count` (the ``[ray]`` extra;
    call ``ray.init`` first).

    `options` go to each task's ``.options()``: ``num_gpus=1`` gives each task a GPU of its
    own, which Ray names in its ``CUDA_VISIBLE_DEVICES``. Ray does not retry a task itself
    (``max_retries=0``, unless given): :func:`count` does, as its ``retries`` say, and
    counts the tries.
    """

    def __init__(self, **options: Any):
        import ray

        self._ray = ray
        self._options = {"max_retries": 0, **options}

    def submit(self, fn: Callable, *args: Any) -> Future:
        """Runs ``fn(*args)`` as a Ray task; its future's ``result()`` waits for it."""
        task = self._ray.remote(fn).options(**self._options)
        return task.remote(*args).future()


def _count_share(
    data: str,
    query: Any,
    share: int,
    shares: int,
    engine: str,
    options: dict,
    attempt: int,
) -> dict:
    """One task: opens the data graph and counts one share of the query's matches. (`attempt`
    makes each try a task of its own where an executor caches results by their arguments, as
    Dask does.)"""
    from .graph import Graph
    from .matcher import Matcher

    started = time.perf_counter()
    matcher = Matcher(Graph.read(data), engine=engine)
    if isinstance(query, (str, os.PathLike)):
        query = Graph.read(query)
    try:
        found, status = matcher.count(query, share=(share, shares), **options), "ok"
    except MatchTimeout as stopped:
        found, status = stopped.count, "timeout"
    return {
        "count": found,
        "status": status,
        "seconds": time.perf_counter() - started,
        "engine": matcher.engine,
        "device": matcher.device,
    }


def count(
    data: PathLike,
    query: Any,
    shares: int,
    executor: Any,
    *,
    engine: str = "auto",
    retries: int = 1,
    progress: Optional[Callable[[ShareCount], None]] = None,
    **options: Any,
) -> DistributedCount:
    """Counts the matches of `query` in `data` as `shares` tasks on `executor`.

    Parameters
    ----------
    data:
        The data graph: a path every worker can read (a saved index from ``gsi index`` is
        mapped, not parsed, by each task).
    query:
        The query: a path, a :class:`gsi.Graph` or a networkx graph (sent to each task).
    shares:
        How many disjoint shares to cut the matches into; more shares than workers balance
        shares of unequal size.
    executor:
        Anything with ``submit(fn, *args)`` whose futures have ``result()``: a
        ``concurrent.futures`` pool, a Dask ``distributed.Client``, a submitit executor, a
        :class:`RayExecutor`.
    engine:
        The engine of each task: ``"auto"``, ``"cpu"`` or ``"gpu"`` (each task uses the GPU
        its worker is given, e.g. through ``CUDA_VISIBLE_DEVICES``).
    retries:
        Further tries of a share whose task failed (an error or a lost worker); a share that
        still fails raises :class:`ShareFailed` naming it.
    progress:
        Called with each share's answer as it comes.
    options:
        Passed to :meth:`gsi.Matcher.count` (``homomorphism``, ``induced``, ``timeout``...).

    Returns
    -------
    DistributedCount
        The total and each share's answer; :attr:`DistributedCount.complete` is false when a
        share timed out (its count is then a lower bound).

    Raises
    ------
    ShareFailed
        A share's task failed ``retries + 1`` times.
    ValueError
        ``shares`` below 1 or ``retries`` below 0.
    """
    if shares < 1:
        raise ValueError(f"shares={shares}: expected at least 1")
    if retries < 0:
        raise ValueError(f"retries={retries}: expected 0 or more")
    data = os.fspath(data)
    if isinstance(query, os.PathLike):
        query = os.fspath(query)
    elif not isinstance(query, str) and hasattr(query, "to_networkx"):
        query = query.to_networkx()

    attempts = {share: 1 for share in range(shares)}

    def submit(share: int) -> Any:
        args = (data, query, share, shares, engine, options, attempts[share])
        try:
            return executor.submit(_count_share, *args)
        except Exception as err:  # an executor that takes no more tasks (a broken pool)
            refused: Future = Future()
            refused.set_exception(err)
            return refused

    running = {share: submit(share) for share in range(shares)}
    answers: dict = {}
    errors: dict = {}
    while running:
        share, future = next(iter(running.items()))
        del running[share]
        try:
            got = future.result()
        except Exception as err:  # a task's failure, whatever the executor wraps it in
            if attempts[share] <= retries:
                attempts[share] += 1
                running[share] = submit(share)
            else:
                errors[share] = err
            continue
        answer = ShareCount(share=share, attempts=attempts[share], **got)
        answers[share] = answer
        if progress is not None:
            progress(answer)
    if errors:
        failed = sorted(errors)
        first = errors[failed[0]]
        raise ShareFailed(
            f"{len(failed)} of {shares} shares failed after {retries + 1} tries each "
            f"(shares {', '.join(map(str, failed[:10]))}{', ...' if len(failed) > 10 else ''}); "
            f"share {failed[0]}: {type(first).__name__}: {first}",
            failed,
        )
    ordered = [answers[share] for share in range(shares)]
    return DistributedCount(total=sum(s.count for s in ordered), shares=ordered)
