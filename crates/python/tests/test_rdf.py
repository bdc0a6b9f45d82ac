"""N-Triples queries follow RDF's rule: an untyped query vertex constrains nothing (it
matches typed and untyped data vertices alike), a typed one matches the vertices of its
types. Checked against Oxigraph's answer to the same basic graph pattern in SPARQL."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import gsi

pyoxigraph = pytest.importorskip("pyoxigraph")

RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def random_data(rng: random.Random) -> str:
    """Triples over 12 resources, 3 predicates and 3 classes; about half the resources
    typed, some with two types."""
    lines = set()
    for _ in range(30):
        s, o = rng.sample(range(12), 2)
        lines.add(f"<http://d/r{s}> <http://d/p{rng.randrange(3)}> <http://d/r{o}> .")
    for r in range(12):
        for c in rng.sample(range(3), rng.choice([0, 0, 1, 1, 2])):
            lines.add(f"<http://d/r{r}> {RDF_TYPE} <http://d/C{c}> .")
    return "\n".join(sorted(lines)) + "\n"


def random_query(rng: random.Random) -> tuple[str, str]:
    """A connected pattern of 2 to 4 variables as N-Triples (`<http://q/vI>` stand for
    variables) and as a SPARQL basic graph pattern; some variables typed."""
    n = rng.randint(2, 4)
    edges = {(rng.randrange(i), i) for i in range(1, n)}
    if n > 2 and rng.random() < 0.5:
        a, b = rng.sample(range(n), 2)
        edges.add((a, b))
    triples, pattern = [], []
    for a, b in sorted(edges):
        if rng.random() < 0.5:
            a, b = b, a
        p = f"<http://d/p{rng.randrange(3)}>"
        triples.append(f"<http://q/v{a}> {p} <http://q/v{b}> .")
        pattern.append(f"?v{a} {p} ?v{b} .")
    for v in range(n):
        if rng.random() < 0.3:
            c = f"<http://d/C{rng.randrange(3)}>"
            triples.append(f"<http://q/v{v}> {RDF_TYPE} {c} .")
            pattern.append(f"?v{v} {RDF_TYPE} {c} .")
    # Only the variables that an edge names are query vertices (as in gsi's reader).
    used = sorted({v for e in edges for v in e})
    distinct = " ".join(
        f"FILTER(?v{a} != ?v{b})" for i, a in enumerate(used) for b in used[i + 1 :]
    )
    return "\n".join(triples) + "\n", " ".join(pattern) + " " + distinct


def test_untyped_query_vertices_match_as_in_sparql(tmp_path: Path) -> None:
    rng = random.Random(20261126)
    checked = 0
    for round_ in range(20):
        data_text = random_data(rng)
        data_file = tmp_path / f"d{round_}.nt"
        data_file.write_text(data_text)
        store = pyoxigraph.Store()
        store.load(data_text.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES)
        m = gsi.Matcher(gsi.Graph.read(str(data_file)), engine="cpu")
        for q in range(10):
            query_text, pattern = random_query(rng)
            query_file = tmp_path / f"q{round_}_{q}.nt"
            query_file.write_text(query_text)
            expected = len(list(store.query(f"SELECT * WHERE {{ {pattern} }}")))
            found = m.count(gsi.Graph.read(str(query_file)))
            assert found == expected, f"{query_text}\n{pattern}\n{data_text}"
            checked += 1
    assert checked == 200


def test_an_untyped_object_matches_a_typed_vertex(tmp_path: Path) -> None:
    data = tmp_path / "d.nt"
    data.write_text(
        f"<http://a/alice> <http://a/knows> <http://a/bob> .\n"
        f"<http://a/bob> {RDF_TYPE} <http://a/Person> .\n"
        f"<http://a/alice> {RDF_TYPE} <http://a/Person> .\n"
    )
    query = tmp_path / "q.nt"
    query.write_text("<http://q/x> <http://a/knows> <http://q/y> .\n")
    assert gsi.count(gsi.Graph.read(str(data)), gsi.Graph.read(str(query)), engine="cpu") == 1
