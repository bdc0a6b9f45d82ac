"""`gsi.distributed`: a count cut into shares and run as tasks, against networkx's count of
the same query; failed tasks retried or reported by share, timed-out shares never summed as
complete."""

from __future__ import annotations

import random
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor

import networkx as nx
import pytest
from networkx.algorithms import isomorphism

import gsi
import gsi.distributed


def _data_file(tmp_path, seed: int = 3, n: int = 40, m: int = 160):
    """A random graph of two labels, as a Sun–Luo file, and the same graph in networkx."""
    rng = random.Random(seed)
    G = nx.gnm_random_graph(n, m, seed=seed)
    for v in G:
        G.nodes[v]["label"] = rng.randrange(2)
    lines = [f"t {n} {m}"]
    lines += [f"v {v} {G.nodes[v]['label']} {G.degree(v)}" for v in G]
    lines += [f"e {u} {v} 0" for u, v in G.edges]
    path = tmp_path / "data.graph"
    path.write_text("\n".join(lines) + "\n")
    for u, v in G.edges:
        G.edges[u, v]["label"] = 0
    return path, G


def _query(labels):
    """A 4-cycle with a chord, vertex labels as given."""
    Q = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    for v, label in zip(Q, labels):
        Q.nodes[v]["label"] = label
    for u, v in Q.edges:
        Q.edges[u, v]["label"] = 0
    return Q


def _networkx_count(G, Q) -> int:
    same = isomorphism.categorical_node_match("label", None)
    edges = isomorphism.categorical_edge_match("label", None)
    matcher = isomorphism.GraphMatcher(G, Q, node_match=same, edge_match=edges)
    return sum(1 for _ in matcher.subgraph_monomorphisms_iter())


@pytest.mark.parametrize("shares", [1, 3, 8])
def test_shares_on_a_process_pool_add_up_to_networkx_count(tmp_path, shares):
    path, G = _data_file(tmp_path)
    Q = _query([0, 1, 0, 1])
    expected = _networkx_count(G, Q)
    assert expected > 0
    query_path = tmp_path / "q.graph"
    query_path.write_text(
        "t 4 5\nv 0 0 3\nv 1 1 2\nv 2 0 3\nv 3 1 2\ne 0 1 0\ne 1 2 0\ne 2 3 0\ne 3 0 0\ne 0 2 0\n"
    )
    seen = []
    # Workers started afresh: a process forked after gsi's threads ran may hang.
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        answer = gsi.distributed.count(
            path, query_path, shares=shares, executor=pool, engine="cpu", progress=seen.append
        )
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


class _FlakyExecutor:
    """Runs tasks at once; the first try of each share in `fail` raises, as a lost worker."""

    def __init__(self, fail, always=False):
        self.fail = set(fail)
        self.always = always
        self.tries = {}

    def submit(self, fn, *args):
        share = args[2]
        self.tries[share] = self.tries.get(share, 0) + 1
        future: Future = Future()
        if share in self.fail and (self.always or self.tries[share] == 1):
            future.set_exception(ConnectionError(f"worker of share {share} lost"))
        else:
            future.set_result(fn(*args))
        return future


def test_a_failed_share_is_retried_or_named_never_summed(tmp_path):
    path, G = _data_file(tmp_path, seed=5)
    Q = _query([0, 0, 1, 1])
    expected = _networkx_count(G, Q)
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
    path, _ = _data_file(tmp_path)
    Q = _query([0, 0, 0, 0])
    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(ValueError, match="shares=0"):
            gsi.distributed.count(path, Q, shares=0, executor=pool)
        with pytest.raises(ValueError, match="retries=-1"):
            gsi.distributed.count(path, Q, shares=2, executor=pool, retries=-1)
        with pytest.raises(gsi.distributed.ShareFailed, match="share 0"):
            gsi.distributed.count(tmp_path / "absent.graph", Q, shares=2, executor=pool, retries=0)
    matcher = gsi.Matcher(gsi.Graph.read(path), engine="cpu")
    with pytest.raises(ValueError, match=r"share=\(2, 2\)"):
        matcher.count(Q, share=(2, 2))


def test_a_timed_out_share_leaves_the_total_incomplete(tmp_path):
    # A dense graph and a clique query of one label: far more work than a microsecond.
    path, _ = _data_file(tmp_path, seed=7, n=60, m=1200)
    Q = nx.complete_graph(6)
    for v in Q:
        Q.nodes[v]["label"] = 0
    with ThreadPoolExecutor(2) as pool:
        answer = gsi.distributed.count(
            path, Q, shares=2, executor=pool, engine="cpu", timeout=1e-6
        )
    assert not answer.complete
    assert {s.status for s in answer.shares} == {"timeout"}


def test_shares_on_a_dask_cluster_add_up_to_networkx_count(tmp_path):
    distributed = pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    path, G = _data_file(tmp_path, seed=9)
    Q = _query([1, 0, 1, 0])
    expected = _networkx_count(G, Q)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        answer = gsi.distributed.count(path, Q, shares=6, executor=client, engine="cpu")
    assert answer.total == expected
    assert answer.complete
