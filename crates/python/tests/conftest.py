"""What the tests share: the benchmark data, the GPU and the Slurm daemons, which a machine may
lack (the tests that need them are skipped with the reason, or fail where GSI_REQUIRE_DATA=1,
GSI_REQUIRE_GPU=1 or GSI_REQUIRE_SLURM=1 says they must run), and seeded random labelled
graphs."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Optional

import networkx as nx
import pytest

import gsi

REPO = Path(__file__).resolve().parents[3]


def need(missing: Optional[str], variable: str) -> None:
    """Skips the test for `missing`, or fails it where `variable`=1 requires the need."""
    if missing is None:
        return
    if os.environ.get(variable) == "1":
        pytest.fail(f"{variable}=1, but {missing}")
    pytest.skip(missing)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The benchmark data folder: $GSI_SHARED_DATA, else ../shared/data beside the
    repository (as for the Rust tests)."""
    path = Path(os.environ.get("GSI_SHARED_DATA", REPO.parent / "shared" / "data"))
    missing = (
        None
        if path.is_dir()
        else (f"the shared benchmark data is not at {path} (set GSI_SHARED_DATA to its folder)")
    )
    need(missing, "GSI_REQUIRE_DATA")
    return path


@pytest.fixture(scope="session")
def gsi_binary() -> Path:
    """The `gsi` command built beside the package: $GSI_BINARY (which must then exist; the
    README's test command sets it), else target/release/gsi (skipped where it is not built)."""
    given = os.environ.get("GSI_BINARY")
    path = Path(given) if given else REPO / "target" / "release" / "gsi"
    if not path.is_file():
        missing = f"the gsi binary is not at {path}"
        if given:
            pytest.fail(f"GSI_BINARY is set, but {missing}")
        pytest.skip(f"{missing} (cargo build --release, or set GSI_BINARY)")
    return path


@pytest.fixture(scope="session")
def gpu() -> None:
    """Skips (or fails, with GSI_REQUIRE_GPU=1) where the GPU engine cannot run."""
    G = gsi.Graph.from_edges([[0, 1]])
    try:
        gsi.Matcher(G, engine="gpu")
        missing = None
    except gsi.GpuError as err:
        missing = f"the GPU engine cannot run: {err}"
    need(missing, "GSI_REQUIRE_GPU")


def random_graph(
    rng: random.Random,
    n: int,
    p: float,
    directed: bool,
    vertex_labels: list,
    edge_labels: list,
    name=lambda v: v,
) -> nx.Graph:
    """A random graph of `n` nodes called ``name(0..n-1)``, each pair (each ordered pair when
    directed) an edge with probability `p`; labels drawn from the lists (``None`` in a list:
    the attribute is left out, which means 0)."""
    G = nx.DiGraph() if directed else nx.Graph()
    for v in range(n):
        label = rng.choice(vertex_labels)
        G.add_node(name(v), **({} if label is None else {"label": label}))
    for u in range(n):
        for v in range(n):
            if u != v and (directed or u < v) and rng.random() < p:
                label = rng.choice(edge_labels)
                G.add_edge(name(u), name(v), **({} if label is None else {"label": label}))
    return G


def query_from(rng: random.Random, G: nx.Graph, k: int, keep: float) -> nx.Graph:
    """A connected query of up to `k` nodes taken from `G` (so that it often matches): a
    random walk's nodes, the edges that reached them, and each other edge among them with
    probability `keep`; labels as in `G`, nodes renamed ``q0, q1, ...``."""
    nodes = list(G.nodes)
    start = rng.choice(nodes)
    walk, tree = [start], []
    around = (
        (lambda v: set(G.successors(v)) | set(G.predecessors(v)))
        if G.is_directed()
        else G.neighbors
    )
    for _ in range(8 * k):
        if len(walk) == k:
            break
        here = rng.choice(walk)
        options = [w for w in around(here) if w not in walk]
        if options:
            there = rng.choice(options)
            walk.append(there)
            tree.append((here, there))
    names = {v: f"q{i}" for i, v in enumerate(walk)}
    Q = G.__class__()
    for v in walk:
        Q.add_node(names[v], **G.nodes[v])
    for u, v, attrs in G.subgraph(walk).edges(data=True):
        if (u, v) in tree or (v, u) in tree or rng.random() < keep:
            Q.add_edge(names[u], names[v], **attrs)
    return Q
