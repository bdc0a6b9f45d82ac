"""`gsi.distributed`: a count cut into shares and run as tasks, against networkx's count of
the same query; failed tasks retried or reported by share, timed-out shares never summed as
complete."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import networkx as nx
import pytest
from networkx.algorithms import isomorphism

import gsi
import gsi.distributed
from conftest import REPO


def write_graph(G, path):
    """`G` (vertex labels in "label", every edge of label 0) as a Sun–Luo file at `path`."""
    lines = [f"t {G.number_of_nodes()} {G.number_of_edges()}"]
    lines += [f"v {v} {G.nodes[v]['label']} {G.degree(v)}" for v in G]
    lines += [f"e {u} {v} 0" for u, v in G.edges]
    path.write_text("\n".join(lines) + "\n")
    return path


def data_file(tmp_path, seed: int = 3, n: int = 40, m: int = 160):
    """A random graph of two labels, as a Sun–Luo file, and the same graph in networkx."""
    rng = random.Random(seed)
    G = nx.gnm_random_graph(n, m, seed=seed)
    for v in G:
        G.nodes[v]["label"] = rng.randrange(2)
    path = write_graph(G, tmp_path / "data.graph")
    for u, v in G.edges:
        G.edges[u, v]["label"] = 0
    return path, G


def chorded_square(labels):
    """A 4-cycle with a chord, vertex labels as given."""
    Q = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    for v, label in zip(Q, labels):
        Q.nodes[v]["label"] = label
    for u, v in Q.edges:
        Q.edges[u, v]["label"] = 0
    return Q


def networkx_count(G, Q) -> int:
    same = isomorphism.categorical_node_match("label", None)
    edges = isomorphism.categorical_edge_match("label", None)
    matcher = isomorphism.GraphMatcher(G, Q, node_match=same, edge_match=edges)
    return sum(1 for _ in matcher.subgraph_monomorphisms_iter())


def networkx_matches(G, Q) -> set:
    """Every match of `Q` in `G`, as the tuple of data nodes in `Q`'s node order."""
    same = isomorphism.categorical_node_match("label", None)
    edges = isomorphism.categorical_edge_match("label", None)
    matcher = isomorphism.GraphMatcher(G, Q, node_match=same, edge_match=edges)
    found = set()
    for mapping in matcher.subgraph_monomorphisms_iter():
        image = {q: v for v, q in mapping.items()}
        found.add(tuple(image[q] for q in Q))
    return found


@pytest.mark.parametrize("shares", [1, 3, 8, None])
def test_shares_on_a_process_pool_add_up_to_networkx_count(tmp_path, shares):
    path, G = data_file(tmp_path)
    Q = chorded_square([0, 1, 0, 1])
    expected = networkx_count(G, Q)
    assert expected > 0
    query_path = write_graph(Q, tmp_path / "q.graph")
    seen = []
    # Workers started afresh: a process forked after gsi's threads ran may hang.
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        answer = gsi.distributed.count(
            path, query_path, shares=shares, executor=pool, engine="cpu", progress=seen.append
        )
    if shares is None:  # four for each of the pool's two workers
        shares = 2 * gsi.distributed.SHARES_PER_WORKER
    assert answer.total == expected
    assert answer.complete
    assert [s.share for s in answer.shares] == list(range(shares))
    assert sorted(s.share for s in seen) == list(range(shares))
    assert all(s.engine == "cpu" and s.attempts == 1 and s.seconds >= 0 for s in answer.shares)
    # A networkx query travels to the tasks too, and so does a semantics option.
    with ThreadPoolExecutor(2) as pool:
        again = gsi.distributed.count(path, Q, shares=shares, executor=pool, engine="cpu")
        hom = gsi.distributed.count(
            path, Q, shares=shares, executor=pool, engine="cpu", homomorphism=True
        )
    assert again.total == expected
    assert hom.total == gsi.Matcher(gsi.Graph.read(path), engine="cpu").count(Q, homomorphism=True)


def test_a_worker_reads_the_data_once_and_again_when_it_changes(tmp_path):
    path, G = data_file(tmp_path)
    Q = chorded_square([0, 1, 0, 1])
    gsi.distributed._matcher.cache_clear()
    with ThreadPoolExecutor(1) as pool:
        first = gsi.distributed.count(path, Q, shares=6, executor=pool, engine="cpu")
        assert first.total == networkx_count(G, Q)
        assert gsi.distributed._matcher.cache_info().misses == 1  # six tasks, one read
        # The file rewritten with another graph: read again, counted anew.
        (tmp_path / "other").mkdir()
        other_path, other = data_file(tmp_path / "other", seed=5)
        os.replace(other_path, path)
        second = gsi.distributed.count(path, Q, shares=6, executor=pool, engine="cpu")
    assert gsi.distributed._matcher.cache_info().misses == 2
    assert second.total == networkx_count(other, Q)


class _FlakyExecutor:
    """Runs tasks at once; the first try of each share in `fail` raises, as a lost worker."""

    def __init__(self, fail, always=False):
        self.fail = set(fail)
        self.always = always
        self.tries = {}

    def submit(self, fn, *args):
        share = args[1]
        self.tries[share] = self.tries.get(share, 0) + 1
        future: Future = Future()
        if share in self.fail and (self.always or self.tries[share] == 1):
            future.set_exception(ConnectionError(f"worker of share {share} lost"))
        else:
            future.set_result(fn(*args))
        return future


class _LastFirst:
    """Answers the tasks in reverse order of their submission, 0.2 s apart, once all `shares`
    are in."""

    def __init__(self, shares: int):
        self.shares = shares
        self.pending = []

    def submit(self, fn, *args):
        future: Future = Future()
        self.pending.append((future, fn, args))
        if len(self.pending) == self.shares:
            threading.Thread(target=self._answer, daemon=True).start()
        return future

    def _answer(self):
        for future, fn, args in reversed(self.pending):
            future.set_result(fn(*args))
            time.sleep(0.2)


def test_progress_tells_each_share_as_it_finishes(tmp_path):
    path, G = data_file(tmp_path, seed=19)
    Q = chorded_square([1, 1, 0, 0])
    seen = []
    answer = gsi.distributed.count(
        path, Q, shares=4, executor=_LastFirst(4), engine="cpu", progress=seen.append
    )
    assert [s.share for s in seen] == [3, 2, 1, 0]
    assert [s.share for s in answer.shares] == [0, 1, 2, 3]
    assert answer.total == networkx_count(G, Q)


def test_progress_true_shows_a_bar_or_a_line_per_share(tmp_path, capsys, monkeypatch):
    path, G = data_file(tmp_path, seed=19)
    Q = chorded_square([1, 1, 0, 0])
    expected = networkx_count(G, Q)
    # Without tqdm: a line on standard error per share.
    monkeypatch.setitem(sys.modules, "tqdm", None)
    answer = gsi.distributed.count(
        path, Q, shares=3, executor=_LastFirst(3), engine="cpu", progress=True
    )
    assert answer.total == expected
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"gsi: share {i} of 3 done" for i in (2, 1, 0)]
    monkeypatch.undo()
    # With tqdm: its bar, counted to the last share.
    pytest.importorskip("tqdm")
    answer = gsi.distributed.count(
        path, Q, shares=3, executor=_LastFirst(3), engine="cpu", progress=True
    )
    assert answer.total == expected
    assert "3/3" in capsys.readouterr().err


def test_hprd_test_queries_shared_out_count_as_published(shared_data):
    """The first 20 of hprd-test's queries, 5 shares each on a process pool: each total equals
    the published count."""
    folder = shared_data / "hprd-test"
    expected = {}
    for line in (folder / "expected_output.res").read_text().splitlines():
        if line.strip():
            name, count = line.split(":")
            expected[name.strip()] = int(count)
    data = folder / "data_graph" / "HPRD.graph"
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        for name in sorted(expected)[:20]:
            query = folder / "query_graph" / f"{name}.graph"
            answer = gsi.distributed.count(data, query, shares=5, executor=pool, engine="cpu")
            assert answer.complete, name
            assert answer.total == expected[name], name


def test_a_failed_share_is_retried_or_named_never_summed(tmp_path):
    path, G = data_file(tmp_path, seed=5)
    Q = chorded_square([0, 0, 1, 1])
    expected = networkx_count(G, Q)
    flaky = _FlakyExecutor(fail=[1, 3])
    answer = gsi.distributed.count(path, Q, shares=4, executor=flaky, engine="cpu", retries=1)
    assert answer.total == expected
    assert [s.attempts for s in answer.shares] == [1, 2, 1, 2]
    broken = _FlakyExecutor(fail=[2], always=True)
    with pytest.raises(gsi.distributed.ShareFailed) as failed:
        gsi.distributed.count(path, Q, shares=4, executor=broken, engine="cpu", retries=2)
    assert failed.value.shares == [2]
    assert "1 of 4 shares failed after 3 tries" in str(failed.value)
    assert "worker of share 2 lost" in str(failed.value)
    assert broken.tries[2] == 3


def test_shares_add_up_past_64_bits(tmp_path):
    # Homomorphisms of a path of 10 edges in K_100: 100 * 99^10, above 2^64.
    n = 100
    lines = [f"t {n} {n * (n - 1) // 2}"] + [f"v {v} 0 {n - 1}" for v in range(n)]
    lines += [f"e {u} {v} 0" for u in range(n) for v in range(u + 1, n)]
    path = tmp_path / "k100.graph"
    path.write_text("\n".join(lines) + "\n")
    with ThreadPoolExecutor(2) as pool:
        answer = gsi.distributed.count(
            path, nx.path_graph(11), shares=3, executor=pool, engine="cpu", homomorphism=True
        )
    assert answer.complete and answer.total == 100 * 99**10 > 2**64


def test_bad_arguments_name_themselves(tmp_path):
    path, _ = data_file(tmp_path)
    Q = chorded_square([0, 0, 0, 0])
    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(ValueError, match="shares=0"):
            gsi.distributed.count(path, Q, shares=0, executor=pool)
        with pytest.raises(ValueError, match="retries=-1"):
            gsi.distributed.count(path, Q, shares=2, executor=pool, retries=-1)
        with pytest.raises(gsi.distributed.ShareFailed, match="share 0"):
            gsi.distributed.count(tmp_path / "absent.graph", Q, shares=2, executor=pool, retries=0)
    with pytest.raises(ValueError, match="shares not given, and a _FlakyExecutor does not say"):
        gsi.distributed.count(path, Q, executor=_FlakyExecutor(fail=[]))
    matcher = gsi.Matcher(gsi.Graph.read(path), engine="cpu")
    with pytest.raises(ValueError, match=r"share=\(2, 2\)"):
        matcher.count(Q, share=(2, 2))
    with pytest.raises(ValueError, match=r"share=\(2, 2\)"):
        matcher.matches(Q, share=(2, 2))


def test_a_timed_out_share_leaves_the_total_incomplete(tmp_path):
    # A dense graph and a clique query of one label: far more work than a microsecond.
    path, _ = data_file(tmp_path, seed=7, n=60, m=1200)
    Q = nx.complete_graph(6)
    for v in Q:
        Q.nodes[v]["label"] = 0
    with ThreadPoolExecutor(2) as pool:
        answer = gsi.distributed.count(
            path, Q, shares=2, executor=pool, engine="cpu", timeout=1e-6
        )
    assert not answer.complete
    assert {s.status for s in answer.shares} == {"timeout"}


def _share_lines(path) -> list:
    """The matches of a share's file, each a tuple of data nodes; its comment lines apart."""
    lines = path.read_text().splitlines()
    return [tuple(int(v) for v in line.split()) for line in lines if not line.startswith("#")]


def test_shares_written_to_files_are_networkx_matches(tmp_path):
    path, G = data_file(tmp_path, seed=17)
    Q = chorded_square([0, 1, 0, 1])
    expected = networkx_matches(G, Q)
    assert len(expected) > 0
    out = tmp_path / "matches"
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        answer = gsi.distributed.matches(
            path, Q, shares=5, executor=pool, engine="cpu", output_dir=out
        )
    assert answer.complete
    assert answer.files == [str(out / f"share-{i}-of-5.txt") for i in range(5)]
    written = [_share_lines(Path(file)) for file in answer.files]
    assert [len(lines) for lines in written] == [s.count for s in answer.shares]
    union = [match for lines in written for match in lines]
    assert len(union) == answer.total == len(expected)  # disjoint shares
    assert set(union) == expected
    assert sorted(p.name for p in out.iterdir()) == [f"share-{i}-of-5.txt" for i in range(5)]


def test_written_shares_never_complete_with_one_missing_or_cut_short(tmp_path):
    path, _ = data_file(tmp_path, seed=17)
    Q = chorded_square([0, 1, 0, 1])
    out = tmp_path / "matches"
    broken = _FlakyExecutor(fail=[2], always=True)
    with pytest.raises(gsi.distributed.ShareFailed) as failed:
        gsi.distributed.matches(path, Q, shares=4, executor=broken, engine="cpu", output_dir=out)
    assert failed.value.shares == [2]
    assert not (out / "share-2-of-4.txt").exists()
    dense, _ = data_file(tmp_path, seed=7, n=60, m=1200)
    clique = nx.complete_graph(6)
    for v in clique:
        clique.nodes[v]["label"] = 0
    with ThreadPoolExecutor(2) as pool:
        cut = gsi.distributed.matches(
            dense, clique, shares=2, executor=pool, engine="cpu", output_dir=out, timeout=1e-6
        )
    assert not cut.complete
    for file in cut.files:
        assert Path(file).read_text().splitlines()[-1].startswith("# incomplete: ")


def test_shares_on_a_dask_cluster_add_up_to_networkx_count(tmp_path):
    distributed = pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    path, G = data_file(tmp_path, seed=9)
    Q = chorded_square([1, 0, 1, 0])
    expected = networkx_count(G, Q)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        answer = gsi.distributed.count(path, Q, executor=client, engine="cpu")
    assert answer.total == expected
    assert answer.complete
    assert len(answer.shares) == 2 * gsi.distributed.SHARES_PER_WORKER  # two one-thread workers


def _killed_once(marker, fn, *args):
    """Runs ``fn(*args)``, but first kills its own worker process where `marker` names a file
    not yet made (making it, so that a second try runs)."""
    if marker is not None and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return fn(*args)


class _KillsAWorker:
    """Submits through `executor`; the task of share `victim` kills its worker on its first try."""

    def __init__(self, executor, victim: int, marker: Path):
        self.executor, self.victim, self.marker = executor, victim, marker

    def submit(self, fn, *args):
        marker = str(self.marker) if args[1] == self.victim else None
        return self.executor.submit(_killed_once, marker, fn, *args)


def test_a_killed_pool_worker_is_reported_never_summed(tmp_path):
    path, _ = data_file(tmp_path, seed=13)
    Q = chorded_square([0, 1, 1, 0])
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        killer = _KillsAWorker(pool, victim=1, marker=tmp_path / "killed")
        # The pool breaks with its worker and takes no more tasks: the retry fails too.
        with pytest.raises(gsi.distributed.ShareFailed) as failed:
            gsi.distributed.count(path, Q, shares=4, executor=killer, engine="cpu", retries=1)
    assert 1 in failed.value.shares
    assert (tmp_path / "killed").exists()


def test_shares_on_ray_add_up_and_survive_a_killed_worker(tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    tests = str(Path(__file__).parent)  # where Ray's workers find _killed_once
    try:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            runtime_env={"env_vars": {"PYTHONPATH": tests}},
        )
    except Exception as err:  # whatever stops Ray's processes from starting here
        pytest.skip(f"Ray cannot start here: {type(err).__name__}: {err}")
    try:
        path, G = data_file(tmp_path, seed=13)
        Q = chorded_square([0, 1, 1, 0])
        expected = networkx_count(G, Q)
        ray_tasks = gsi.distributed.RayExecutor()
        answer = gsi.distributed.count(path, Q, executor=ray_tasks, engine="cpu")
        assert answer.total == expected
        assert answer.complete
        assert len(answer.shares) == 2 * gsi.distributed.SHARES_PER_WORKER  # two CPUs
        killer = _KillsAWorker(ray_tasks, victim=2, marker=tmp_path / "killed")
        survived = gsi.distributed.count(
            path, Q, shares=6, executor=killer, engine="cpu", retries=1
        )
        assert (tmp_path / "killed").exists()
        assert survived.total == expected
        assert [s.attempts for s in survived.shares] == [1, 1, 2, 1, 1, 1]
        killer = _KillsAWorker(ray_tasks, victim=4, marker=tmp_path / "killed-again")
        with pytest.raises(gsi.distributed.ShareFailed) as failed:
            gsi.distributed.count(path, Q, shares=6, executor=killer, engine="cpu", retries=0)
        assert failed.value.shares == [4]
        # Each function was made a remote function once, not once per share.
        assert len(ray_tasks._remote) == 2
    finally:
        ray.shutdown()


def test_the_share_balance_script_checks_and_tells_the_spread(tmp_path, gsi_binary):
    path, G = data_file(tmp_path, seed=21)
    Q = chorded_square([0, 1, 0, 1])
    query = write_graph(Q, tmp_path / "q.graph")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "share_balance.py"), "--gsi", gsi_binary]
        + ["--data", str(path), "--query", str(query), "--shares", "2", "5", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr  # every K's shares added up to the whole
    rows = [line.split(" | ") for line in done.stdout.splitlines()[2:]]
    assert [row[3] for row in rows] == ["2", "5"]
    assert {row[1] for row in rows} == {f"{networkx_count(G, Q):,}"}
