"""`gsi generate rdf` and the queries of benches/watdiv against Oxigraph: the generated
N-Triples (gzip) parse, with about the triples asked and every predicate, and each query's
solutions are Oxigraph's, as multisets. The binary is found as in test_sparql_cli.py (skipped
where it is not built)."""

from __future__ import annotations

import gzip
import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO
from test_sparql_cli import json_term, oxigraph_term, pyoxigraph  # noqa: F401

TRIPLES = 20_000
QUERIES = REPO / "benches" / "watdiv"


def generate(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), "generate", "rdf", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def watdiv(gsi_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("watdiv") / "watdiv.nt.gz"
    done = generate(gsi_binary, "--triples", str(TRIPLES), "--seed", "11", "-o", str(path))
    assert done.returncode == 0, done.stderr
    return path


def watdiv_store(path: Path):
    store = pyoxigraph.Store()
    store.bulk_load(gzip.decompress(path.read_bytes()), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return store


def test_generated_rdf_parses_in_oxigraph(gsi_binary: Path, watdiv: Path) -> None:  # noqa: F811
    store = watdiv_store(watdiv)
    assert 0.95 * TRIPLES <= len(store) <= 1.05 * TRIPLES
    predicates = {quad.predicate for quad in store}
    assert len(predicates) == 86
    classes = {quad.object.value for quad in store if quad.predicate.value.endswith("#type")}
    assert "http://db.uwaterloo.ca/~galuc/wsdbm/ProductCategory0" in classes

    too_few = generate(gsi_binary, "--triples", "5")
    assert too_few.returncode == 2
    assert "5 triples asked" in too_few.stderr


def test_watdiv_queries_agree_with_oxigraph(gsi_binary: Path, watdiv: Path) -> None:  # noqa: F811
    store = watdiv_store(watdiv)
    files = sorted(QUERIES.glob("*.rq"))
    assert [f.stem for f in files] == sorted(
        [f"L{i}" for i in range(1, 6)]
        + [f"S{i}" for i in range(1, 8)]
        + [f"F{i}" for i in range(1, 6)]
        + [f"C{i}" for i in range(1, 4)]
    )
    answered = 0
    for file in files:
        done = subprocess.run(
            [str(gsi_binary), "sparql", "--data", str(watdiv), "--query", str(file)]
            + ["--engine", "cpu", "--quiet"],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{file.name}: {done.stderr}"
        results = json.loads(done.stdout)
        variables = results["head"]["vars"]
        found = Counter(
            tuple(json_term(b[v]) if v in b else None for v in variables)
            for b in results["results"]["bindings"]
        )
        expected = Counter(
            tuple(oxigraph_term(s[v], {}) if s[v] is not None else None for v in variables)
            for s in store.query(file.read_text())
        )
        assert found == expected, file.name
        answered += bool(expected)
    assert answered >= 18, f"only {answered} of {len(files)} queries have answers"
