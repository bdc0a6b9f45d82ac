"""`gsi sparql` against Oxigraph: random RDF graphs and random basic graph patterns (stars,
chains, cycles; constants, blank nodes, `a`, literals, DISTINCT, LIMIT, COUNT(*), ASK,
ORDER BY, FILTER), the multisets of solutions compared, in JSON and in XML results. The
binary is $GSI_BINARY (which must then exist), else target/release/gsi (skipped where it is
not built)."""

from __future__ import annotations

import json
import random
import re
import subprocess
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Optional

import pytest

pyoxigraph = pytest.importorskip("pyoxigraph")

XSD = "http://www.w3.org/2001/XMLSchema#"
RESULTS_NS = "{http://www.w3.org/2005/sparql-results#}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
ID = "<http://d/id>"


def literal(rng: random.Random) -> str:
    k = rng.randrange(4)
    return rng.choice([f'"s{k}"', f'"s{k}"@en', f'"{k}"^^<{XSD}integer>'])


def spellings(term: str) -> list[str]:
    """Ways N-Triples may write `term` (as `literal` makes it): escaped, the language tag in
    capitals, a string's datatype written out."""
    value, _, rest = term[1:].partition('"')
    if rest == "@en":
        return [term, f'"{value}"@EN']
    if rest:
        return [term]
    return [term, f'"\\u0073{value[1:]}"', f'"{value}"^^<{XSD}string>']


def random_data(rng: random.Random, typed: bool = True, class_nodes: bool = False) -> str:
    """Triples over 8 resources and 3 blank nodes, 3 predicates between them, 2 to literals
    (each spelled one of its ways) and, if `typed`, 3 classes; with `class_nodes`, classes are
    also subjects and objects of other triples. Each blank node names itself through
    <http://d/id>, so that solutions can be compared although Oxigraph renames blank
    nodes."""
    nodes = [f"<http://d/r{i}>" for i in range(8)] + [f"_:b{i}" for i in range(3)]
    spelled: dict[str, str] = {}

    def literal_spelled() -> str:
        term = literal(rng)
        return spelled.setdefault(term, rng.choice(spellings(term)))

    lines = set()
    for _ in range(rng.randint(20, 50)):
        s, o = rng.sample(nodes, 2)
        lines.add(f"{s} <http://d/p{rng.randrange(3)}> {o} .")
    for _ in range(rng.randint(3, 12)):
        lines.add(f"{rng.choice(nodes)} <http://d/l{rng.randrange(2)}> {literal_spelled()} .")
    for node in nodes if typed else []:
        for c in rng.sample(range(3), rng.choice([0, 0, 1, 2])):
            lines.add(f"{node} {RDF_TYPE} <http://d/C{c}> .")
    for c in range(3) if class_nodes else []:
        lines.add(f"{rng.choice(nodes)} <http://d/p{rng.randrange(3)}> <http://d/C{c}> .")
        lines.add(f"<http://d/C{c}> {RDF_TYPE} <http://d/C{rng.randrange(3)}> .")
    for i in range(3):
        lines.add(f'_:b{i} {ID} "b{i}" .')
    return "\n".join(sorted(lines)) + "\n"


def random_bgp(
    rng: random.Random, variable_predicates: bool = False, classes: Optional[bool] = None
) -> tuple[str, list[str]]:
    """A star, chain or cycle over 1 to 4 terms (variables, some blank or constant), with
    literal constants and classes on the side; and its variables. With
    `variable_predicates`, some predicates are ?q0 or ?q1 (some repeated), and no classes
    unless `classes` says."""
    if classes is None:
        classes = not variable_predicates

    def predicate(iri: str) -> str:
        return f"?q{rng.randrange(2)}" if variable_predicates and rng.random() < 0.4 else iri

    n = rng.randint(1, 4)
    terms = []
    for i in range(n):
        r = rng.random()
        terms.append(
            f"<http://d/r{rng.randrange(8)}>" if r < 0.12 else f"_:q{i}" if r < 0.25 else f"?v{i}"
        )
    shape = rng.choice(["star", "chain", "cycle"])
    edges = [(0, i) for i in range(1, n)] if shape == "star" else [(i, i + 1) for i in range(n - 1)]
    if shape == "cycle" and n >= 2:
        edges.append((n - 1, 0))
    triples = []
    for a, b in edges:
        if rng.random() < 0.5:
            a, b = b, a
        triples.append(f"{terms[a]} {predicate(f'<http://d/p{rng.randrange(3)}>')} {terms[b]} .")
    for i in range(n):
        if rng.random() < 0.3 and classes:
            triples.append(f"{terms[i]} a <http://d/C{rng.randrange(3)}> .")
        if rng.random() < 0.2:
            obj = literal(rng) if rng.random() < 0.5 else f"?w{i}"
            triples.append(f"{terms[i]} {predicate(f'<http://d/l{rng.randrange(2)}>')} {obj} .")
    if not triples:
        triples.append(f"{terms[0]} <http://d/p{rng.randrange(3)}> ?w .")
    rng.shuffle(triples)
    text = " ".join(triples)
    variables = sorted({w.rstrip(".") for w in text.split() if w.startswith("?")})
    return text, variables


def oxigraph_store(data: str):
    store = pyoxigraph.Store()
    store.load(data.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return store


def blank_names(store) -> dict[str, str]:
    return {row["b"].value: row["i"].value for row in store.query(f"SELECT ?b ?i {{ ?b {ID} ?i }}")}


def oxigraph_term(term, blanks: dict[str, str]) -> tuple:
    if isinstance(term, pyoxigraph.NamedNode):
        return ("uri", term.value)
    if isinstance(term, pyoxigraph.BlankNode):
        return ("bnode", blanks[term.value])
    return ("literal", term.value, term.language or "", term.datatype.value)


def json_term(term: dict) -> tuple:
    if term["type"] == "literal":
        lang = term.get("xml:lang", "")
        default = (
            XSD + "string" if not lang else "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
        )
        return ("literal", term["value"], lang, term.get("datatype", default))
    return (term["type"], term["value"])


def xml_term(term: ElementTree.Element) -> tuple:
    kind = term.tag.removeprefix(RESULTS_NS)
    if kind == "literal":
        return json_term(
            {
                "type": "literal",
                "value": term.text or "",
                **({"xml:lang": term.get(XML_LANG)} if term.get(XML_LANG) else {}),
                **({"datatype": term.get("datatype")} if term.get("datatype") else {}),
            }
        )
    return (kind, term.text)


def oxigraph_rows(store, query: str, variables: list[str]) -> list[tuple]:
    blanks = blank_names(store)
    return [
        tuple(
            oxigraph_term(solution[v], blanks) if solution[v] is not None else None
            for v in variables
        )
        for solution in store.query(query)
    ]


def oxigraph_solutions(store, query: str, variables: list[str]) -> Counter:
    return Counter(oxigraph_rows(store, query, variables))


def run_gsi(binary: Path, data: Path, query: str, *extra: str) -> subprocess.CompletedProcess:
    """`gsi sparql` on the CPU; its output decoded as it was written (CSV's CRLF kept)."""
    done = subprocess.run(
        [
            str(binary),
            "sparql",
            "--data",
            str(data),
            "-e",
            query,
            "--engine",
            "cpu",
            "--quiet",
            *extra,
        ],
        check=False,
        capture_output=True,
        timeout=60,
    )
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    return done


def gsi_rows(binary: Path, data: Path, query: str) -> tuple[list[str], list[tuple]]:
    done = run_gsi(binary, data, query)
    assert done.returncode == 0, f"{query}\n{done.stderr}"
    results = json.loads(done.stdout)
    variables = results["head"]["vars"]
    rows = [
        tuple(json_term(b[v]) if v in b else None for v in variables)
        for b in results["results"]["bindings"]
    ]
    return variables, rows


def gsi_solutions(binary: Path, data: Path, query: str) -> tuple[list[str], Counter]:
    variables, rows = gsi_rows(binary, data, query)
    return variables, Counter(rows)


def gsi_xml_solutions(binary: Path, data: Path, query: str) -> tuple[list[str], Counter]:
    """The solutions of gsi's SPARQL XML results, read with an XML parser."""
    done = run_gsi(binary, data, query, "--results", "xml")
    assert done.returncode == 0, f"{query}\n{done.stderr}"
    root = ElementTree.fromstring(done.stdout)
    assert root.tag == f"{RESULTS_NS}sparql"
    variables = [v.get("name") for v in root.iter(f"{RESULTS_NS}variable")]
    rows = []
    for result in root.iter(f"{RESULTS_NS}result"):
        bound = {b.get("name"): xml_term(b[0]) for b in result.iter(f"{RESULTS_NS}binding")}
        rows.append(tuple(bound.get(v) for v in variables))
    return variables, Counter(rows)


def gsi_xml_boolean(binary: Path, data: Path, query: str) -> bool:
    done = run_gsi(binary, data, query, "--results", "xml")
    assert done.returncode == 0, f"{query}\n{done.stderr}"
    (boolean,) = ElementTree.fromstring(done.stdout).iter(f"{RESULTS_NS}boolean")
    return {"true": True, "false": False}[boolean.text]


def test_random_bgps_agree_with_oxigraph(gsi_binary: Path, tmp_path: Path) -> None:
    rng = random.Random(20261127)
    checked = 0
    for round_ in range(12):
        # Variable predicates on untyped data every other round (over typed data:
        # test_variable_predicates_over_typed_data_agree_with_oxigraph).
        variable_predicates = round_ % 2 == 1
        data = random_data(rng, typed=not variable_predicates)
        path = tmp_path / f"d{round_}.nt"
        path.write_text(data)
        store = oxigraph_store(data)
        for _ in range(12):
            bgp, variables = random_bgp(rng, variable_predicates)
            where = f"WHERE {{ {bgp} }}"
            projected = (
                variables
                if rng.random() < 0.5 or not variables
                else sorted(rng.sample(variables, rng.randint(1, len(variables))))
            )
            select = " ".join(f"?{v[1:]}" for v in projected) or "*"
            distinct = "DISTINCT " if rng.random() < 0.3 else ""
            query = f"SELECT {distinct}{select} {where}"
            names = [v[1:] for v in projected]
            expected = oxigraph_solutions(store, query, names)
            got_vars, found = gsi_solutions(gsi_binary, path, query)
            assert got_vars == names, query
            assert found == expected, f"{query}\n{data}"
            assert gsi_xml_solutions(gsi_binary, path, query) == (names, expected), query

            count = run_gsi(gsi_binary, path, query, "--count")
            assert count.stdout.strip() == str(sum(expected.values())), query
            counted = oxigraph_solutions(store, f"SELECT (COUNT(*) AS ?n) {where}", ["n"])
            _, found_count = gsi_solutions(gsi_binary, path, f"SELECT (COUNT(*) AS ?n) {where}")
            assert found_count == counted, query
            asked = run_gsi(gsi_binary, path, f"ASK {where}")
            asked_oxigraph = bool(store.query(f"ASK {where}"))
            assert json.loads(asked.stdout)["boolean"] == asked_oxigraph, query
            assert gsi_xml_boolean(gsi_binary, path, f"ASK {where}") == asked_oxigraph, query

            # LIMIT and OFFSET without ORDER BY: any such many of the solutions.
            limit, offset = rng.randint(1, 4), rng.randint(0, 2)
            _, sliced = gsi_solutions(gsi_binary, path, f"{query} LIMIT {limit} OFFSET {offset}")
            total = sum(expected.values())
            assert sum(sliced.values()) == max(0, min(limit, total - offset)), query
            assert not sliced - expected, query
            checked += 1
    assert checked == 144


def sort_keys(row: tuple, columns: list[int]) -> tuple:
    """The key columns of a solution up to the first blank node, which is kept without its
    name: SPARQL leaves the order of blank nodes open (and so that of the keys after one)."""
    keys = []
    for c in columns:
        if row[c] is not None and row[c][0] == "bnode":
            keys.append(("bnode",))
            break
        keys.append(row[c])
    return tuple(keys)


def test_order_by_agrees_with_oxigraph(gsi_binary: Path, tmp_path: Path) -> None:
    """ORDER BY on one to three variables, ascending or descending, with DISTINCT, FILTER,
    LIMIT and OFFSET: the sequence of the key columns as Oxigraph's (ties may come in any
    order), and the solutions the same multiset. Every other round, variable predicates on
    untyped data, which neither keys nor filters name (gsi refuses a key or filter on a
    predicate variable)."""
    rng = random.Random(20261128)
    checked = 0
    for round_ in range(8):
        variable_predicates = round_ % 2 == 1
        data = random_data(rng, typed=not variable_predicates)
        path = tmp_path / f"d{round_}.nt"
        path.write_text(data)
        store = oxigraph_store(data)
        for _ in range(10):
            bgp, variables = random_bgp(rng, variable_predicates)
            nodes = [v for v in variables if not v.startswith("?q")]
            if not nodes:
                continue
            names = [v[1:] for v in variables]
            keys = rng.sample([v[1:] for v in nodes], rng.randint(1, min(3, len(nodes))))
            order = " ".join(f"DESC(?{k})" if rng.random() < 0.4 else f"?{k}" for k in keys)
            distinct = "DISTINCT " if rng.random() < 0.3 else ""
            if rng.random() < 0.3:
                bgp += f" FILTER({random_filter(rng, nodes)})"
            query = f"SELECT {distinct}* WHERE {{ {bgp} }} ORDER BY {order}"
            if rng.random() < 0.5:
                query += f" LIMIT {rng.randint(1, 6)} OFFSET {rng.randint(0, 3)}"
            expected = oxigraph_rows(store, query, names)
            got_vars, found = gsi_rows(gsi_binary, path, query)
            assert got_vars == names, query
            columns = [names.index(k) for k in keys]
            assert [sort_keys(r, columns) for r in found] == [
                sort_keys(r, columns) for r in expected
            ], f"{query}\n{data}"
            if "LIMIT" not in query:
                assert Counter(found) == Counter(expected), query
            else:
                unsliced = query.split(" LIMIT")[0]
                assert not Counter(found) - oxigraph_solutions(store, unsliced, names), query
            checked += 1
    assert checked > 60


def random_filter(rng: random.Random, variables: list[str], depth: int = 0) -> str:
    """A FILTER expression of the fragment over `variables` (and ?unbound, which the BGP
    does not bind): comparisons, sameTerm, isIRI/isURI/isLiteral/isBlank, LANG, and `&&`,
    `||`, `!` of them."""
    if depth < 2 and rng.random() < 0.35:
        op = rng.choice(["&&", "||", "!"])
        left = random_filter(rng, variables, depth + 1)
        if op == "!":
            return f"!({left})"
        return f"({left} {op} {random_filter(rng, variables, depth + 1)})"
    var = rng.choice(variables + ["?unbound"] if rng.random() < 0.1 else variables)
    constant = rng.choice(
        [
            f"<http://d/r{rng.randrange(8)}>",
            literal(rng),
            "1",
            f'"1"^^<{XSD}double>',
            "0.5",
            '"1"',
            '"s1"@EN',
            "true",
            f'"x"^^<{XSD}boolean>',
        ]
    )
    kind = rng.randrange(7)
    if kind == 0:
        return f"{var} {rng.choice(['=', '!='])} {rng.choice(variables)}"
    if kind == 1:
        return f"{var} {rng.choice(['=', '!='])} {constant}"
    if kind == 2:
        return f"sameTerm({var}, {rng.choice([constant, rng.choice(variables)])})"
    if kind == 3:
        return f"{rng.choice(['isIRI', 'isURI', 'isLiteral', 'isBlank'])}({var})"
    if kind == 4:
        tag = rng.choice(['"en"', '""'])
        return f"LANG({var}) {rng.choice(['=', '!='])} {tag}"
    return f"{constant} {rng.choice(['=', '!='])} {var}"


def test_random_filters_agree_with_oxigraph(gsi_binary: Path, tmp_path: Path) -> None:
    """FILTERs over random BGPs, on data with numbers of several types besides: the
    multisets of solutions, the counts and ASK as Oxigraph's; every other round with variable
    predicates on untyped data, which the filters do not name."""
    rng = random.Random(20261129)
    # Numbers in the forms Oxigraph keeps (it stores others in a canonical form).
    numbers = [f'"1"^^<{XSD}decimal>', f'"1"^^<{XSD}double>', f'"0.5"^^<{XSD}float>']
    checked = 0
    for round_ in range(8):
        variable_predicates = round_ % 2 == 1
        data = random_data(rng, typed=not variable_predicates) + "".join(
            f"<http://d/r{rng.randrange(8)}> <http://d/l{rng.randrange(2)}> {number} .\n"
            for number in numbers
        )
        path = tmp_path / f"d{round_}.nt"
        path.write_text(data)
        store = oxigraph_store(data)
        for _ in range(12):
            bgp, variables = random_bgp(rng, variable_predicates)
            nodes = [v for v in variables if not v.startswith("?q")]
            if not nodes:
                continue
            names = [v[1:] for v in variables]
            where = f"WHERE {{ {bgp} FILTER({random_filter(rng, nodes)}) }}"
            query = f"SELECT {' '.join(variables)} {where}"
            expected = oxigraph_solutions(store, query, names)
            assert gsi_solutions(gsi_binary, path, query) == (names, expected), f"{query}\n{data}"
            count = run_gsi(gsi_binary, path, query, "--count")
            assert count.stdout.strip() == str(sum(expected.values())), query
            counted = oxigraph_solutions(store, f"SELECT (COUNT(*) AS ?n) {where}", ["n"])
            _, found_count = gsi_solutions(gsi_binary, path, f"SELECT (COUNT(*) AS ?n) {where}")
            assert found_count == counted, query
            asked = run_gsi(gsi_binary, path, f"ASK {where}")
            assert json.loads(asked.stdout)["boolean"] == bool(store.query(f"ASK {where}")), query
            _, sliced = gsi_solutions(gsi_binary, path, f"{query} LIMIT 2 OFFSET 1")
            assert sum(sliced.values()) == max(0, min(2, sum(expected.values()) - 1)), query
            assert not sliced - expected, query
            checked += 1
    assert checked > 70


def test_filters_outside_the_fragment_are_refused(gsi_binary: Path, tmp_path: Path) -> None:
    path = tmp_path / "d.nt"
    path.write_text(
        f'<http://d/a> <http://d/l> "true"^^<{XSD}boolean> .\n'
        f'<http://d/b> <http://d/l> "1"^^<{XSD}boolean> .\n'
    )
    for query, construct in [
        ('SELECT * { ?x <http://d/l> ?y FILTER(REGEX(?y, "a")) }', "REGEX in FILTER"),
        ("SELECT * { ?x <http://d/l> ?y FILTER(?y > 1) }", "> in FILTER"),
        ("SELECT * { ?x <http://d/l> ?y FILTER(BOUND(?y)) }", "BOUND in FILTER"),
        (
            "SELECT * { ?x <http://d/l> ?y . ?z <http://d/l> ?w FILTER(?y = ?w) }",
            f"= between two <{XSD}boolean> literals in FILTER",
        ),
    ]:
        done = run_gsi(gsi_binary, path, query)
        assert done.returncode == 2, (query, done.stderr)
        assert construct in done.stderr, (query, done.stderr)


def test_csv_and_tsv_rows_agree_with_oxigraph(gsi_binary: Path, tmp_path: Path) -> None:
    data = (
        "<http://d/a> <http://d/p> <http://d/b> .\n"
        '<http://d/a> <http://d/name> "x, \\"y\\""@en .\n'
        '<http://d/b> <http://d/name> "7"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
        "<http://d/b> <http://d/p> <http://d/c> .\n"
    )
    path = tmp_path / "d.nt"
    path.write_text(data)
    store = oxigraph_store(data)
    query = "SELECT ?s ?o { ?s <http://d/name> ?o }"
    csv = run_gsi(gsi_binary, path, query, "--results", "csv")
    assert csv.returncode == 0, csv.stderr
    expected = store.query(query).serialize(format=pyoxigraph.QueryResultsFormat.CSV).decode()
    assert sorted(csv.stdout.split("\r\n")) == sorted(expected.split("\r\n"))
    tsv = run_gsi(gsi_binary, path, query, "--results", "tsv")
    assert tsv.stdout.splitlines()[0] == "?s\t?o"
    rows = {tuple(line.split("\t")) for line in tsv.stdout.splitlines()[1:]}
    assert rows == {
        ("<http://d/a>", '"x, \\"y\\""@en'),
        ("<http://d/b>", '"7"^^<http://www.w3.org/2001/XMLSchema#integer>'),
    }


def test_xml_results_keep_markup_and_line_breaks(gsi_binary: Path, tmp_path: Path) -> None:
    data = (
        '<http://d/a> <http://d/l> "<b> & \\"c\\"\\r\\n\'d\'"@en .\n'
        '<http://d/a?x&y> <http://d/l> "7"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
        '_:b0 <http://d/l> "e\\tf" .\n'
        f'_:b0 {ID} "b0" .\n'
    )
    path = tmp_path / "d.nt"
    path.write_text(data)
    store = oxigraph_store(data)
    query = "SELECT ?s ?o { ?s <http://d/l> ?o }"
    expected = oxigraph_solutions(store, query, ["s", "o"])
    assert gsi_xml_solutions(gsi_binary, path, query) == (["s", "o"], expected)


def test_xml_refuses_a_character_xml_cannot_hold(gsi_binary: Path, tmp_path: Path) -> None:
    path = tmp_path / "d.nt"
    path.write_text('<http://d/a> <http://d/l> "a\\u0001" .\n')
    done = run_gsi(gsi_binary, path, "SELECT * { ?s <http://d/l> ?o }", "--results", "xml")
    assert done.returncode != 0
    assert "U+0001" in done.stderr


@pytest.mark.parametrize(
    "query,construct",
    [
        ("SELECT * { ?x <http://d/p> ?y OPTIONAL { ?y <http://d/p> ?z } }", "OPTIONAL"),
        ("SELECT * { { ?x <http://d/p> ?y } UNION { ?y <http://d/p> ?x } }", "UNION"),
        ("SELECT * { ?x <http://d/p>* ?y }", "a property path"),
        ("SELECT * { ?x ?p ?y . ?y ?q ?p }", "a variable predicate also used as a subject"),
        ("SELECT * { ?x ?p ?y FILTER(?p = <http://d/p>) }", "a FILTER on a variable predicate"),
        ("SELECT * { ?x ?p ?y } ORDER BY ?p", "ORDER BY a variable predicate"),
    ],
)
def test_constructs_outside_the_fragment_are_refused(
    gsi_binary: Path, tmp_path: Path, query: str, construct: str
) -> None:
    path = tmp_path / "d.nt"
    path.write_text("<http://d/a> <http://d/p> <http://d/b> .\n")
    done = run_gsi(gsi_binary, path, query)
    assert done.returncode == 2
    assert done.stdout == ""
    assert construct in done.stderr


def assert_agrees_with_oxigraph(
    gsi_binary: Path, path: Path, data: str, store, bgp: str, names: list, distinct: str
) -> None:
    """`SELECT {distinct}* { bgp }` over `path` (`data`, loaded in Oxigraph's `store`): the
    same solutions as Oxigraph's (by the variables `names`), `--count` their number, and the
    same ASK."""
    query = f"SELECT {distinct}* WHERE {{ {bgp} }}"
    _, found = gsi_solutions(gsi_binary, path, query)
    assert found == oxigraph_solutions(store, query, names), f"{query}\n{data}"
    count = run_gsi(gsi_binary, path, query, "--count")
    assert count.stdout.strip() == str(sum(found.values())), query
    asked = run_gsi(gsi_binary, path, f"ASK {{ {bgp} }}")
    assert json.loads(asked.stdout)["boolean"] == bool(store.query(f"ASK {{ {bgp} }}"))


def test_variable_predicates_over_typed_data_agree_with_oxigraph(
    gsi_binary: Path, tmp_path: Path
) -> None:
    """rdf:type triples are vertex labels, no edges, yet a predicate variable takes rdf:type
    too: its object is a class of its subject (some classes being also subjects or objects of
    other triples). Random BGPs with predicate variables, classes and literals, and a few
    fixed shapes; solutions, counts and ASK compared."""
    rng = random.Random(20261129)
    fixed = [
        "?s ?p ?o",
        "?s ?p ?o . ?o ?q ?z",
        "?s ?p <http://d/C1>",
        "?s ?p ?c . ?t ?p ?c",
        "?s ?p ?c . ?s ?q ?c",
        "?s ?p _:c . ?s a <http://d/C0>",
        "<http://d/r1> ?p ?o",
    ]
    checked = 0
    for round_ in range(8):
        data = random_data(rng, class_nodes=True)
        path = tmp_path / f"d{round_}.nt"
        path.write_text(data)
        store = oxigraph_store(data)
        bgps = [random_bgp(rng, variable_predicates=True, classes=True) for _ in range(8)]
        for bgp in fixed:
            bgps.append((bgp, sorted({w for w in bgp.split() if w.startswith("?")})))
        for bgp, variables in bgps:
            names = [v[1:] for v in variables]
            distinct = "DISTINCT " if rng.random() < 0.3 else ""
            assert_agrees_with_oxigraph(gsi_binary, path, data, store, bgp, names, distinct)
            checked += 1
    assert checked == 120


def test_variable_classes_agree_with_oxigraph(gsi_binary: Path, tmp_path: Path) -> None:
    """`?x a ?c` and `?x a _:c`: a variable (or blank) class is matched through its subject's
    classes, as a predicate variable's rdf:type is; one class variable may type several
    subjects, or also be a subject or object elsewhere (classes being nodes too). Random BGPs
    whose classes are turned into variables or blank nodes, and a few fixed shapes; solutions,
    counts and ASK compared with Oxigraph's."""
    rng = random.Random(20261130)
    fixed = [
        "?x a ?c",
        "?x a ?c . ?y a ?c",
        "?x a ?c . ?x ?p ?y",
        "?x a _:c . ?x <http://d/p0> ?y",
        "?x a ?c . ?c ?p ?o",
        "?s ?p ?c . ?s a ?c",
        "?x a ?c . ?x a ?d",
    ]
    checked = 0
    for round_ in range(6):
        data = random_data(rng, class_nodes=True)
        path = tmp_path / f"d{round_}.nt"
        path.write_text(data)
        store = oxigraph_store(data)
        bgps = []
        for _ in range(10):
            text, _ = random_bgp(rng, classes=True)
            text = re.sub(
                r" a <http://d/C\d>",
                lambda m: m.group(0) if rng.random() < 0.3
                else f" a {rng.choice(['?c0', '?c1', '_:k0'])}",
                text,
            )
            bgps.append(text)
        bgps.extend(fixed)
        for bgp in bgps:
            names = sorted({w.rstrip(".")[1:] for w in bgp.split() if w.startswith("?")})
            distinct = "DISTINCT " if rng.random() < 0.3 else ""
            assert_agrees_with_oxigraph(gsi_binary, path, data, store, bgp, names, distinct)
            checked += 1
    assert checked == 102


def test_constants_find_terms_the_data_spells_otherwise(gsi_binary: Path, tmp_path: Path) -> None:
    data = (
        '<http://d/a> <http://d/l> "\\u0073x" .\n'
        '<http://d/b> <http://d/l> "y"@EN-gb .\n'
        f'<http://d/c> <http://d/l> "z"^^<{XSD}string> .\n'
        "<http://d/d> <http://d/l> <http://d/\\u0065> .\n"
    )
    path = tmp_path / "d.nt"
    path.write_text(data)
    store = oxigraph_store(data)
    for constant in ['"sx"', '"y"@en-GB', '"z"', "<http://d/e>"]:
        query = f"SELECT ?s {{ ?s <http://d/l> {constant} }}"
        expected = oxigraph_solutions(store, query, ["s"])
        assert sum(expected.values()) == 1, query
        assert gsi_solutions(gsi_binary, path, query)[1] == expected, query


def test_data_spelling_one_term_two_ways_is_refused(gsi_binary: Path, tmp_path: Path) -> None:
    path = tmp_path / "d.nt"
    path.write_text('<http://d/a> <http://d/l> "ab" .\n<http://d/b> <http://d/l> "a\\u0062" .\n')
    done = run_gsi(gsi_binary, path, "SELECT * { ?x <http://d/l> ?y }")
    assert done.returncode == 2
    assert "spells one term two ways" in done.stderr


def test_data_with_a_triple_from_a_term_to_itself_is_refused(
    gsi_binary: Path, tmp_path: Path
) -> None:
    path = tmp_path / "d.nt"
    path.write_text(
        "<http://d/a> <http://d/p> <http://d/a> .\n<http://d/a> <http://d/p> <http://d/b> .\n"
    )
    done = run_gsi(gsi_binary, path, "SELECT * { ?x <http://d/p> ?y }")
    assert done.returncode == 2
    assert "subject is their object" in done.stderr
