"""How matching behaves while it runs: without the GIL, stopped by Ctrl-C, a timeout or a
closed iterator, and streamed in batches."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import gsi

# A random graph of 2,000 vertices and 40,000 edges, one label: its 8-cycles take the CPU
# engine minutes to count (on a 2-core machine).
HEAVY = """
import numpy as np
import gsi

rng = np.random.default_rng(1)
ends = rng.integers(0, 2000, size=(80000, 2))
ends = ends[ends[:, 0] != ends[:, 1]]
ends = np.unique(np.sort(ends, axis=1), axis=0)[:40000]
G = gsi.Graph.from_edges(ends, vertex_labels=np.zeros(2000, dtype=np.uint32))
RING = gsi.Graph.from_edges([[i, (i + 1) % 8] for i in range(8)])
"""


@pytest.fixture(scope="module")
def heavy():
    scope: dict = {}
    exec(HEAVY, scope)
    return gsi.Matcher(scope["G"], engine="cpu"), scope["RING"]


def wait_idle(m: gsi.Matcher, within: float) -> float:
    """Seconds until no query of `m` is under way, failing past `within`."""
    started = time.monotonic()
    while m._native.running:
        assert time.monotonic() - started < within, "the engine did not stop"
        time.sleep(0.01)
    return time.monotonic() - started


# Bounds on how long a stop takes tell a stop from a run to the end (minutes for HEAVY's
# 8-cycles); how fast it is belongs to the benchmarks, not to a test on a shared machine.
STOPPED_WITHIN = 20.0


def test_a_timeout_stops_the_engine_and_reports_what_was_found(heavy) -> None:
    m, ring = heavy
    started = time.monotonic()
    with pytest.raises(gsi.MatchTimeout) as caught:
        m.count(ring, timeout=0.5)
    assert time.monotonic() - started < STOPPED_WITHIN
    assert caught.value.count >= 0 and "timeout of 0.5 s" in str(caught.value)
    assert isinstance(caught.value, TimeoutError)
    wait_idle(m, STOPPED_WITHIN)
    # The matches found in time are read first, then the timeout is raised.
    started = time.monotonic()
    read = 0
    with pytest.raises(gsi.MatchTimeout):
        for _ in m.matches(ring, timeout=0.5):
            read += 1
    assert time.monotonic() - started < STOPPED_WITHIN
    assert read > 0, "listing streams: matches come before the timeout"
    with pytest.raises(gsi.MatchTimeout):
        m.match_array(ring, timeout=0.5)
    wait_idle(m, STOPPED_WITHIN)


def test_matching_releases_the_gil(heavy) -> None:
    m, ring = heavy
    done = threading.Event()

    def match() -> None:
        try:
            m.count(ring, timeout=1.5)
        except gsi.MatchTimeout:
            pass
        done.set()

    worker = threading.Thread(target=match)
    worker.start()
    time.sleep(0.2)
    # Python code runs beside the match: were the GIL held, this loop would wait for it.
    steps, started = 0, time.monotonic()
    while time.monotonic() - started < 0.5:
        steps += 1
    assert not done.is_set(), "the match ended before the loop"
    assert steps > 10_000
    worker.join()


def test_closing_or_dropping_the_iterator_stops_the_engine(heavy) -> None:
    m, ring = heavy
    matches = m.matches(ring)
    first = next(matches)
    assert len(first) == 8
    assert m._native.running == 1
    matches.close()
    wait_idle(m, STOPPED_WITHIN)
    # Dropped without being closed: a loop left early, say.
    matches = m.matches(ring)
    next(matches)
    del matches
    wait_idle(m, STOPPED_WITHIN)


def test_streamed_matches_are_all_the_matches() -> None:
    # Every 4-vertex path of a complete graph of 30 vertices: 657,720 matches, streamed in
    # batches while the engine runs.
    import networkx as nx

    m = gsi.Matcher(nx.complete_graph(30), engine="cpu")
    path = nx.path_graph(4)
    seen = set()
    for d in m.matches(path):
        seen.add((d[0], d[1], d[2], d[3]))
    assert len(seen) == 30 * 29 * 28 * 27
    array = m.match_array(path)
    assert array.shape == (len(seen), 4) and set(map(tuple, array.tolist())) == seen
    stream = m._native.matches(gsi.Graph(path)._native, None, "isomorphism", None, 1000)
    sizes = [len(batch) for batch in stream]
    assert sum(sizes) == len(seen) and len(sizes) > 100 and max(sizes) < 30_000


def test_queries_run_from_many_threads_at_once() -> None:
    import networkx as nx

    m = gsi.Matcher(nx.complete_graph(12), engine="cpu")
    results = [None] * 8

    def work(i: int) -> None:
        results[i] = m.count(nx.path_graph(2 + i % 4))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = [12 * 11, 12 * 11 * 10, 12 * 11 * 10 * 9, 12 * 11 * 10 * 9 * 8]
    assert results == expected * 2
    # A query started while another's matches are being read gets an engine of its own.
    outer = m.matches(nx.path_graph(3))
    next(outer)
    assert m.count(nx.path_graph(2)) == 132
    outer.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_interrupts_a_long_match() -> None:
    child = textwrap.dedent(HEAVY) + textwrap.dedent(
        """
        import signal, sys, time
        # Ctrl-C raises KeyboardInterrupt here even if this process was started with SIGINT
        # ignored (as a background job's children are).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        m = gsi.Matcher(G, engine="cpu")
        print("matching", flush=True)
        try:
            m.count(RING)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            started = time.monotonic()
            while m._native.running:
                time.sleep(0.01)
            print(f"engine stopped {time.monotonic() - started:.3f}", flush=True)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout.readline().strip() == "matching"
        time.sleep(1.0)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        line = process.stdout.readline().strip()
        took = time.monotonic() - sent
        assert line == "interrupted", process.stderr.read()
        assert took < STOPPED_WITHIN, f"KeyboardInterrupt came {took:.2f} s after SIGINT"
        stopped = process.stdout.readline().split()
        assert stopped[:2] == ["engine", "stopped"] and float(stopped[2]) < STOPPED_WITHIN
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
        process.wait()


def test_a_query_of_sixty_thousand_vertices_stops_at_its_timeout() -> None:
    """The planner and the search recurse once a query vertex: a 60,000-vertex path (and
    cycle, under homomorphism) fits the matching threads' stacks and stops at its timeout.
    In a child process: an overflow would abort the process the test runs in."""
    child = textwrap.dedent(
        """
        import time
        import numpy as np
        import gsi

        rng = np.random.default_rng(1)
        ends = rng.integers(0, 100_000, size=(1_100_000, 2))
        ends = np.unique(np.sort(ends[ends[:, 0] != ends[:, 1]], axis=1), axis=0)[:1_000_000]
        data = gsi.Graph.from_edges(ends, vertex_labels=np.zeros(100_000, dtype=np.uint32))
        n = 60_000
        path = gsi.Graph.from_edges([[v - 1, v] for v in range(1, n)])
        cycle = gsi.Graph.from_edges([[v, (v + 1) % n] for v in range(n)])
        m = gsi.Matcher(data, engine="cpu")
        for query, homomorphism in [(path, False), (cycle, True)]:
            started = time.monotonic()
            try:
                m.count(query, homomorphism=homomorphism, timeout=2)
                print("answered", flush=True)
            except gsi.MatchTimeout:
                print(f"timeout {time.monotonic() - started:.1f}", flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    assert [line[0] for line in lines] == ["timeout", "timeout"], done.stdout
    # Generous for a loaded machine; stages that do not read the clock take seconds.
    assert all(float(line[1]) < 60 for line in lines), done.stdout
