"""`gsi.distributed`: one query cut into disjoint shares, run as tasks on any executor.

The shares are those of ``gsi match --partition i/k`` (docs/DISTRIBUTED.md): disjoint, and
together every match. :func:`count` adds up the shares' counts; :func:`matches` has each
share write its matches to a file of its own. Each task opens the data graph itself from a
path every worker can read — a saved index (``gsi index``) is mapped, not parsed — and a
worker keeps it open for its next task on the same file (a GPU worker uploads the index once),
so the executor may be a process pool on one machine, a Dask cluster (a ``distributed.Client``),
Slurm through submitit's executors, or Ray through :class:`RayExecutor`: anything with
``submit(fn, *args)`` returning futures with ``done()`` and ``result()``. A process pool
should start its workers with ``spawn`` (or ``forkserver``): a worker forked from a process
in which gsi has already run may hang on a lock its threads held.

>>> import multiprocessing
>>> from concurrent.futures import ProcessPoolExecutor
>>> spawn = multiprocessing.get_context("spawn")                    # doctest: +SKIP
>>> with ProcessPoolExecutor(4, mp_context=spawn) as pool:          # doctest: +SKIP
...     answer = gsi.distributed.count("g.gsidx", "q.graph", executor=pool)  # 16 shares
>>> answer.total, answer.complete                                   # doctest: +SKIP
(7517144568, True)
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .errors import GsiError, MatchTimeout

__all__ = [
    "count",
    "matches",
    "ShareCount",
    "ShareMatches",
    "DistributedCount",
    "DistributedMatches",
    "ShareFailed",
    "RayExecutor",
    "SHARES_PER_WORKER",
]

PathLike = Union[str, "os.PathLike[str]"]

_POLL_SECONDS = 0.05
"""How often the shares' futures are asked whether they are done: each is taken (reported,
or retried) as it finishes."""

SHARES_PER_WORKER = 1
"""Shares cut for each task an executor runs at once, where `shares` is not given. Cut by
rows, a query's largest share held 1.0 to 2.3 times the mean's matches, and each share
makes the query's first steps whole: one share per worker finished sooner than four on
every yeast and gw12 query measured (docs/DISTRIBUTED.md). Cut as a grid, where the largest
share held up to 12.6 times the mean, four a worker evened the loads."""


class ShareFailed(GsiError, RuntimeError):
    """Shares whose tasks failed on every try: no answer is given without them."""

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
    """Its task's time, reading the data graph included where the worker had not read it for
    an earlier task."""
    engine: str
    """The engine that answered: ``"cpu"`` or ``"gpu"``."""
    device: Optional[str]
    """The GPU, when one answered."""
    attempts: int
    """Tries it took (more than one after a failed task was retried)."""


@dataclass(frozen=True)
class ShareMatches(ShareCount):
    """One share's answer and the file of its matches."""

    file: str
    """Its matches, one line each (ending with ``# incomplete: ...`` when it timed out)."""


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


@dataclass(frozen=True)
class DistributedMatches(DistributedCount):
    """A query's matches over all its shares, in one file per share."""

    @property
    def files(self) -> List[str]:
        """The shares' files, in share order: together every match, when :attr:`complete`."""
        return [s.file for s in self.shares]


class RayExecutor:
    """Ray's tasks behind ``submit(fn, *args)``, for :func:`count` and :func:`matches` (the
    ``[ray]`` extra; call ``ray.init`` first).

    `options` go to each task's ``.options()``: ``num_gpus=1`` gives each task a GPU of its
    own, which Ray names in its ``CUDA_VISIBLE_DEVICES``. Ray does not retry a task itself
    (``max_retries=0``, unless given): :func:`count` does, as its ``retries`` say, and
    counts the tries.
    """

    def __init__(self, **options: Any):
        import ray

        self._ray = ray
        self._options = {"max_retries": 0, **options}
        self._remote: Dict[Callable, Any] = {}  # each function made a remote one once

    def slots(self) -> int:
        """How many of its tasks the Ray cluster runs at once: its CPUs (and GPUs) over each
        task's."""
        cluster = self._ray.cluster_resources()
        each = {"CPU": self._options.get("num_cpus", 1), "GPU": self._options.get("num_gpus", 0)}
        fits = [int(cluster.get(name, 0) // n) for name, n in each.items() if n]
        return max(1, min(fits, default=1))

    def submit(self, fn: Callable, *args: Any) -> Future:
        """Runs ``fn(*args)`` as a Ray task; its future's ``result()`` waits for it."""
        if fn not in self._remote:
            self._remote[fn] = self._ray.remote(fn).options(**self._options)
        return self._remote[fn].remote(*args).future()


def _shares(shares: Optional[int], executor: Any) -> int:
    """`shares`, or by default :data:`SHARES_PER_WORKER` for each task `executor` runs at
    once."""
    if shares is not None:
        return shares
    if isinstance(executor, RayExecutor):
        return SHARES_PER_WORKER * executor.slots()
    nthreads = getattr(executor, "nthreads", None)  # a Dask distributed.Client
    if callable(nthreads):
        return SHARES_PER_WORKER * max(1, sum(nthreads().values()))
    workers = getattr(executor, "_max_workers", None)  # a concurrent.futures pool
    if isinstance(workers, int):
        return SHARES_PER_WORKER * workers
    raise ValueError(
        f"shares not given, and a {type(executor).__name__} does not say how many tasks it "
        f"runs at once: give shares= (one or more per worker)"
    )


@dataclass(frozen=True)
class _Work:
    """What every task of one call is given: paths absolute, as any worker may start
    elsewhere."""

    data: str
    query: Any
    shares: int
    engine: str
    options: Dict[str, Any]
    output_dir: Optional[str] = None


@functools.lru_cache(maxsize=2)
def _matcher(data: str, stamp: Tuple[int, int, int], engine: str) -> Any:
    """The data graph's matcher, kept in the worker's process for its next task on the same
    file (`stamp`: its inode, size and modification time, so that a replaced or rewritten file
    is read again)."""
    from .graph import Graph
    from .matcher import Matcher

    return Matcher(Graph.read(data), engine=engine)


def _open(work: _Work) -> Tuple[Any, Any]:
    """The data graph's matcher and the query, as a task opens them."""
    from .graph import Graph

    file = os.stat(work.data)
    stamp = (file.st_ino, file.st_size, file.st_mtime_ns)
    matcher = _matcher(work.data, stamp, work.engine)
    query = Graph.read(work.query) if isinstance(work.query, str) else work.query
    return matcher, query


def _figures(matcher: Any, found: int, status: str, started: float) -> Dict[str, Any]:
    return {
        "count": found,
        "status": status,
        "seconds": time.perf_counter() - started,
        "engine": matcher.engine,
        "device": matcher.device,
    }


def _count_share(work: _Work, share: int, attempt: int) -> Dict[str, Any]:
    """One task: counts one share of the query's matches. (`attempt` makes each try a task
    of its own where an executor caches results by their arguments, as Dask does.)"""
    started = time.perf_counter()
    matcher, query = _open(work)
    try:
        found, status = matcher.count(query, share=(share, work.shares), **work.options), "ok"
    except MatchTimeout as stopped:
        found, status = stopped.count, "timeout"
    return _figures(matcher, found, status, started)


def _match_line(match: Dict[Any, Any]) -> str:
    """A match as ``gsi match --output`` writes it: the data nodes in query-node order, a
    data edge (edge isomorphism) as ``a-b``."""
    words = ("-".join(map(str, v)) if isinstance(v, tuple) else str(v) for v in match.values())
    return " ".join(words) + "\n"


def _match_share(work: _Work, share: int, attempt: int) -> Dict[str, Any]:
    """One task: writes one share's matches to its file, which appears only once complete
    (or ended by ``# incomplete: ...`` at its timeout)."""
    started = time.perf_counter()
    matcher, query = _open(work)
    path = os.path.join(work.output_dir, f"share-{share}-of-{work.shares}.txt")
    descriptor, partial = tempfile.mkstemp(dir=work.output_dir, prefix=f".share-{share}-")
    found, status = 0, "ok"
    try:
        with os.fdopen(descriptor, "w") as out:
            try:
                for match in matcher.matches(query, share=(share, work.shares), **work.options):
                    out.write(_match_line(match))
                    found += 1
            except MatchTimeout:
                status = "timeout"
                out.write(f"# incomplete: reached its timeout after {found} matches\n")
        os.replace(partial, path)
    except BaseException:
        if os.path.exists(partial):
            os.unlink(partial)
        raise
    return {**_figures(matcher, found, status, started), "file": path}


def _work(
    data: PathLike,
    query: Any,
    shares: int,
    engine: str,
    retries: int,
    options: Dict[str, Any],
    output_dir: Optional[str] = None,
) -> _Work:
    """The arguments checked, and put in the form every task can use."""
    if shares < 1:
        raise ValueError(f"shares={shares}: expected at least 1")
    if retries < 0:
        raise ValueError(f"retries={retries}: expected 0 or more")
    if isinstance(query, (str, os.PathLike)):
        query = os.path.abspath(os.fspath(query))
    elif hasattr(query, "to_networkx"):
        query = query.to_networkx()
    return _Work(os.path.abspath(os.fspath(data)), query, shares, engine, options, output_dir)



def _reporter(
    progress: Union[bool, Callable[[Any], None], None], shares: int
) -> Tuple[Callable[[Any], None], Callable[[], None]]:
    """What `progress` asks for, as a function called with each share's answer and one called
    at the end: ``True`` gives a tqdm bar where tqdm is installed, else a line on standard
    error per share; a function is called as it is."""
    if progress is True:
        try:
            from tqdm import tqdm
        except ImportError:

            def line(done: Any) -> None:
                print(f"gsi: share {done.share} of {shares} done", file=sys.stderr, flush=True)

            return line, lambda: None
        bar = tqdm(total=shares, unit="share")
        return lambda _: bar.update(1), bar.close
    if callable(progress):
        return progress, lambda: None
    return lambda _: None, lambda: None


def _run_shares(
    task: Callable,
    work: _Work,
    executor: Any,
    retries: int,
    progress: Union[bool, Callable[[Any], None], None],
    answer: type,
) -> List[Any]:
    """Runs `task` for every share on `executor`, each retried up to `retries` times as soon
    as it fails; the answers (as `answer`) in share order, or `ShareFailed` naming the shares
    that failed."""
    attempts = {share: 1 for share in range(work.shares)}

    def submit(share: int) -> Any:
        try:
            return executor.submit(task, work, share, attempts[share])
        except Exception as err:  # an executor that takes no more tasks (a broken pool)
            refused: Future = Future()
            refused.set_exception(err)
            return refused

    running = {share: submit(share) for share in range(work.shares)}
    answers: dict = {}
    errors: dict = {}
    report, close = _reporter(progress, work.shares)
    try:
        while running:
            done = [share for share, future in running.items() if future.done()]
            if not done:
                time.sleep(_POLL_SECONDS)
            for share in done:
                future = running.pop(share)
                try:
                    got = future.result()
                except Exception as err:  # a task's failure, whatever the executor wraps it in
                    if attempts[share] <= retries:
                        attempts[share] += 1
                        running[share] = submit(share)
                    else:
                        errors[share] = err
                    continue
                answers[share] = answer(share=share, attempts=attempts[share], **got)
                report(answers[share])
    finally:
        close()
    if errors:
        failed = sorted(errors)
        first = errors[failed[0]]
        raise ShareFailed(
            f"{len(failed)} of {work.shares} shares failed after {retries + 1} tries each "
            f"(shares {', '.join(map(str, failed[:10]))}{', ...' if len(failed) > 10 else ''}); "
            f"share {failed[0]}: {type(first).__name__}: {first}",
            failed,
        )
    return [answers[share] for share in range(work.shares)]


def count(
    data: PathLike,
    query: Any,
    shares: Optional[int] = None,
    *,
    executor: Any,
    engine: str = "auto",
    retries: int = 1,
    progress: Union[bool, Callable[[ShareCount], None], None] = None,
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
        How many disjoint shares to cut the matches into. By default
        :data:`SHARES_PER_WORKER` for each task the executor runs at once (a
        ``concurrent.futures`` pool's workers, a Dask client's threads, a
        :class:`RayExecutor`'s slots; other executors need `shares`): the executor deals
        them to its workers as they come free, which evens out shares of unequal size
        where there are more shares than workers.
    executor:
        Anything with ``submit(fn, *args)`` whose futures have ``done()`` and ``result()``: a
        ``concurrent.futures`` pool, a Dask ``distributed.Client``, a submitit executor, a
        :class:`RayExecutor`.
    engine:
        The engine of each task: ``"auto"``, ``"cpu"`` or ``"gpu"`` (each task uses the GPU
        its worker is given, e.g. through ``CUDA_VISIBLE_DEVICES``).
    retries:
        Further tries of a share whose task failed (an error or a lost worker); a share that
        still fails raises :class:`ShareFailed` naming it.
    progress:
        ``True`` for a tqdm bar (a line on standard error per share without tqdm), or a
        function called with each share's answer as the share finishes.
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
        ``shares`` below 1 or ``retries`` below 0, or not given for an executor that does
        not say how many tasks it runs at once.
    """
    work = _work(data, query, _shares(shares, executor), engine, retries, options)
    answers = _run_shares(_count_share, work, executor, retries, progress, ShareCount)
    return DistributedCount(total=sum(s.count for s in answers), shares=answers)


def matches(
    data: PathLike,
    query: Any,
    shares: Optional[int] = None,
    *,
    executor: Any,
    output_dir: PathLike,
    engine: str = "auto",
    retries: int = 1,
    progress: Union[bool, Callable[[ShareMatches], None], None] = None,
    **options: Any,
) -> DistributedMatches:
    """Writes the matches of `query` in `data` as `shares` tasks on `executor`, each share
    to a file of its own in `output_dir`.

    Share ``i`` of ``k`` goes to ``output_dir/share-i-of-k.txt``, in the format of ``gsi
    match --output``: one line per match, the data graph's node ids in the query's node
    order (a data edge ``a-b`` each under ``edge_isomorphism=True``). A file appears only
    once its share is done (written aside, then renamed); a share that timed out ends its
    file with ``# incomplete: ...``. The other parameters are those of :func:`count`;
    `options` go to :meth:`gsi.Matcher.matches` (``limit`` applies to each share).

    Returns
    -------
    DistributedMatches
        Each share's count, figures and file; the files together hold every match when
        :attr:`DistributedMatches.complete`.

    Raises
    ------
    ShareFailed
        A share's task failed ``retries + 1`` times (its file is then absent).
    ValueError
        As for :func:`count`.
    """
    output_dir = os.path.abspath(os.fspath(output_dir))
    os.makedirs(output_dir, exist_ok=True)
    work = _work(data, query, _shares(shares, executor), engine, retries, options, output_dir)
    answers = _run_shares(_match_share, work, executor, retries, progress, ShareMatches)
    return DistributedMatches(total=sum(s.count for s in answers), shares=answers)
