"""Listing matches within the memory budget: `match_array` without a limit on a query of
billions of matches raises `gsi.MemoryLimitExceeded` instead of killing the interpreter,
Ctrl-C stops it, the first match of a stream comes while the engine is still at work, and the
default budget follows the `gsi` command's rule (half of what the process may use)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

import gsi

nx = pytest.importorskip("networkx")

# Run in a child process with its address space limited to 2 GiB: the default budget is
# then at most 1 GiB, and a `match_array` that outgrew it would abort the child.
LIMITED = """
import resource
import networkx as nx
import gsi

resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
m = gsi.Matcher(nx.complete_graph(400), engine="cpu")
PATH = nx.path_graph(4)  # 400 * 399 * 398 * 397 matches: 100 GB as an array
"""


def run_child(body: str, timeout: float = 120) -> subprocess.CompletedProcess:
    code = textwrap.dedent(LIMITED) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )


def limit_of_this_machine() -> int:
    """The least of RAM and the control group's limit, in bytes (what gsi reads besides
    `ulimit -v`)."""
    limits = []
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                limits.append(int(line.split()[1]) * 1024)
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                value = f.read().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < 1 << 62:
            limits.append(int(value))
    return min(limits)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and setrlimit")
def test_the_default_budget_is_half_of_what_the_process_may_use() -> None:
    done = run_child("print(m.memory_limit)")
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == min(2 << 30, limit_of_this_machine()) // 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="setrlimit")
def test_match_array_past_the_budget_raises_instead_of_aborting() -> None:
    done = run_child(
        """
        try:
            m.match_array(PATH)
            print("returned")
        except gsi.MemoryLimitExceeded as e:
            assert isinstance(e, MemoryError) and isinstance(e, gsi.GsiError)
            assert e.budget == m.memory_limit // 2
            print("raised", e)
        # The matcher is still usable.
        print(len(m.match_array(PATH, limit=10)))
        """
    )
    # Before the budget was kept, the child aborted with SIGABRT.
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("raised keeping more than "), lines
    assert "memory limit" in lines[0] and "matches()" in lines[0]
    assert lines[1] == "10"


def test_match_array_under_a_small_memory_limit_raises_and_the_engine_stops() -> None:
    m = gsi.Matcher(nx.complete_graph(200), engine="cpu", memory_limit="16MiB")
    with pytest.raises(gsi.MemoryLimitExceeded) as caught:
        m.match_array(nx.path_graph(4))
    assert caught.value.budget == 8 << 20
    assert m._native.running == 0
    # Within the budget the array is whole: 40 * 39 * 38 paths of three vertices in K40.
    small = gsi.Matcher(nx.complete_graph(40), engine="cpu", memory_limit="16MiB")
    rows = small.match_array(nx.path_graph(3))
    assert rows.shape == (40 * 39 * 38, 3)
    assert len({tuple(r) for r in rows.tolist()}) == len(rows)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_match_array() -> None:
    code = textwrap.dedent(
        """
        import signal
        import time
        import networkx as nx
        import gsi

        # Ctrl-C raises KeyboardInterrupt here even if this process was started with SIGINT
        # ignored (as a background job's children are).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        m = gsi.Matcher(nx.complete_graph(400), engine="cpu")
        print("matching", flush=True)
        try:
            m.match_array(nx.path_graph(6))
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            while m._native.running:
                time.sleep(0.01)
            print("engine stopped", flush=True)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout.readline().strip() == "matching"
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        assert process.stdout.readline().strip() == "interrupted", process.stderr.read()
        assert process.stdout.readline().strip() == "engine stopped"
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()


def test_the_first_match_of_a_stream_comes_before_the_levels_are_built() -> None:
    # 6-cycles of a random graph of 100,000 vertices and 1,000,000 edges: whole levels of
    # the join hold hundreds of millions of rows. Before listing was paced, the first match
    # came only once such a level was built.
    import numpy as np

    rng = np.random.default_rng(7)
    ends = rng.integers(0, 100_000, size=(1_100_000, 2))
    ends = ends[ends[:, 0] != ends[:, 1]]
    ends = np.unique(np.sort(ends, axis=1), axis=0)[:1_000_000]
    m = gsi.Matcher(gsi.Graph.from_edges(ends), engine="cpu")
    ring = nx.cycle_graph(6)
    stream = m.matches(ring, timeout=20)
    first = next(stream)
    stream.close()
    edges = {tuple(e) for e in ends.tolist()}
    cycle = [first[i] for i in range(6)]
    assert len(set(cycle)) == 6
    for i in range(6):
        a, b = cycle[i], cycle[(i + 1) % 6]
        assert (min(a, b), max(a, b)) in edges
