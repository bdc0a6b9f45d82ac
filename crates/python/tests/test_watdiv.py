"""`gsi generate rdf` against Oxigraph: the generated N-Triples (gzip) parse, with about the
triples asked and every predicate. The binary is found as in test_sparql_cli.py (skipped where
it is not built)."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import pytest

from test_sparql_cli import gsi_binary, pyoxigraph  # noqa: F401 (a fixture)

TRIPLES = 20_000


def generate(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), "generate", "rdf", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def watdiv(gsi_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
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
