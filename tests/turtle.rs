//! Turtle data as a user gives it: the same triples written as N-Triples by hand answer the
//! same `gsi sparql` and `gsi match` queries, with the answers counted by hand, whether the
//! Turtle is plain, compressed or a saved index; malformed Turtle is an error naming the file
//! and line.

use std::io::Write;

use crate::util::TestDir;

/// Prefixes, `a`, `;` and `,` lists, `[]`, a labelled blank node, a language tag, a number
/// and a boolean.
const TURTLE: &str = r#"@prefix : <http://ex/> .
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
:a a :Person ; :knows :b, :c ; :name "Ann"@en ; :age 42 .
:b :knows :c, [ :name "Anon" ] .
_:d :knows :a ; :likes true ; :score "1.5"^^xsd:decimal .
"#;

/// The triples of [`TURTLE`].
const NTRIPLES: &str = r#"<http://ex/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/a> <http://ex/knows> <http://ex/b> .
<http://ex/a> <http://ex/knows> <http://ex/c> .
<http://ex/a> <http://ex/name> "Ann"@en .
<http://ex/a> <http://ex/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex/b> <http://ex/knows> <http://ex/c> .
<http://ex/b> <http://ex/knows> _:x .
_:x <http://ex/name> "Anon" .
_:d <http://ex/knows> <http://ex/a> .
_:d <http://ex/likes> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
_:d <http://ex/score> "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
"#;

/// Queries with their solutions, counted by hand from the triples (as sorted TSV rows, the
/// header among them).
const QUERIES: [(&str, &[&str]); 5] = [
    (
        "PREFIX : <http://ex/> SELECT ?y { ?x :knows ?y . ?x a :Person }",
        &["<http://ex/b>", "<http://ex/c>", "?y"],
    ),
    (
        "PREFIX : <http://ex/> SELECT ?x { ?x :name \"Ann\"@en ; :age 42 }",
        &["<http://ex/a>", "?x"],
    ),
    (
        "PREFIX : <http://ex/> SELECT ?n { ?x :knows ?b . ?b :name ?n }",
        &["\"Ann\"@en", "\"Anon\"", "?n"],
    ),
    (
        "PREFIX : <http://ex/> SELECT ?y { ?s :likes true ; :knows ?y ; :score 1.5 }",
        &["<http://ex/a>", "?y"],
    ),
    (
        "PREFIX : <http://ex/> SELECT ?x ?z { ?x :knows ?y . ?y :knows ?z . ?z a :Person }",
        &["?x\t?z"],
    ),
];

/// `TURTLE` and `NTRIPLES` as files, Turtle also compressed, and a saved index of each.
fn data_files(dir: &TestDir) -> [&'static str; 6] {
    dir.write("d.nt", NTRIPLES);
    dir.write("d.ttl", TURTLE);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(TURTLE.as_bytes()).unwrap();
    dir.write("d.ttl.gz", gz.finish().unwrap());
    dir.write("d.ttl.zst", zstd::encode_all(TURTLE.as_bytes(), 0).unwrap());
    dir.gsi(["index", "d.nt", "-o", "nt.gsidx", "--quiet"]).ok();
    dir.gsi(["index", "d.ttl", "-o", "ttl.gsidx", "--quiet"])
        .ok();
    [
        "d.nt",
        "d.ttl",
        "d.ttl.gz",
        "d.ttl.zst",
        "nt.gsidx",
        "ttl.gsidx",
    ]
}

#[test]
fn turtle_answers_sparql_as_its_ntriples_do() {
    let dir = TestDir::new();
    for data in data_files(&dir) {
        for (query, expected) in QUERIES {
            let run = dir
                .gsi([
                    "sparql",
                    "--data",
                    data,
                    "--engine",
                    "cpu",
                    "--quiet",
                    "--results",
                    "tsv",
                    "-e",
                    query,
                ])
                .ok();
            let mut rows: Vec<&str> = run.stdout.lines().collect();
            rows.sort_unstable();
            assert_eq!(rows, expected, "{data}: {query}");
        }
        let run = dir
            .gsi([
                "sparql",
                "--data",
                data,
                "--engine",
                "cpu",
                "--quiet",
                "--count",
                "-e",
                "SELECT * { ?x <http://ex/knows> ?y . ?y <http://ex/knows> ?z }",
            ])
            .ok();
        // a b c, a b [], d a b, d a c.
        assert_eq!(run.stdout, "4\n", "{data}");
    }
}

#[test]
fn turtle_answers_match_as_its_ntriples_do() {
    let dir = TestDir::new();
    let files = data_files(&dir);
    let knows = "<http://ex/knows>";
    let person = "<http://ex/Person> .";
    let type_of = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    // Query files as N-Triples and as Turtle: chains of two and three `knows`, and a
    // person who knows someone who knows someone.
    dir.write(
        "chain2.nt",
        format!("<x> {knows} <y> .\n<y> {knows} <z> .\n"),
    );
    dir.write(
        "chain3.ttl",
        "@prefix : <http://ex/> .\n:x :knows :y . :y :knows :z . :z :knows :w .\n",
    );
    dir.write(
        "person.nt",
        format!("<x> {type_of} {person}\n<x> {knows} <y> .\n<y> {knows} <z> .\n"),
    );
    for data in files {
        let run = dir
            .match_files(
                data,
                &["chain2.nt", "chain3.ttl", "person.nt"],
                &["--json", "--engine", "cpu"],
            )
            .ok();
        let counts: Vec<u128> = run.json().queries.iter().map(|q| q.matches).collect();
        // Chains of three: d a b c and d a b [].
        assert_eq!(counts, [4, 2, 2], "{data}");
    }
}

#[test]
fn info_reads_turtle_and_ntriples_alike() {
    let dir = TestDir::new();
    dir.write("d.nt", NTRIPLES);
    dir.write("d.ttl", TURTLE);
    // No `.ttl` name: the first line's `@prefix` tells, or `--format turtle`.
    dir.write("prefixed", TURTLE);
    let info = |args: &[&str]| {
        let mut all = vec!["info", "--json", "--quiet"];
        all.extend_from_slice(args);
        let run = dir.gsi(all).ok();
        let value: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        value
    };
    let nt = info(&["d.nt"]);
    for args in [
        &["d.ttl"][..],
        &["prefixed"],
        &["--format", "turtle", "d.ttl"],
    ] {
        let ttl = info(args);
        assert_eq!(ttl["format"], "turtle", "{args:?}");
        for key in [
            "vertices",
            "edges",
            "term_dictionary",
            "class_dictionary",
            "predicate_dictionary",
            "skipped_duplicates",
            "skipped_self_loops",
        ] {
            assert_eq!(ttl[key], nt[key], "{args:?} {key}");
        }
    }
}

#[test]
fn malformed_turtle_is_an_error_naming_the_file_and_line() {
    let dir = TestDir::new();
    dir.write(
        "bad.ttl",
        "@prefix : <http://ex/> .\n:a :knows :b ;\n  :knows ex:c .\n",
    );
    dir.write("empty.ttl", "\n");
    let cases: [(&[&str], &str); 5] = [
        (
            &["info", "bad.ttl"],
            "bad.ttl:3: column 10: The prefix ex: has not been declared",
        ),
        (
            &["index", "bad.ttl", "-o", "bad.gsidx"],
            "bad.ttl:3: column 10",
        ),
        (
            &[
                "sparql",
                "--data",
                "bad.ttl",
                "-e",
                "ASK { ?x <http://ex/knows> ?y }",
            ],
            "bad.ttl:3: column 10",
        ),
        (&["info", "empty.ttl"], "empty.ttl: the file is empty"),
        (&["info", "--format", "turtle", "-"], "the file is empty"),
    ];
    for (args, message) in cases {
        let run = dir.gsi(args.iter().copied());
        run.no_panic();
        assert_eq!(run.code, Some(2), "{args:?}: {run:#?}");
        assert!(run.stderr.contains(message), "{args:?}: {run:#?}");
    }
    let run = dir.match_files("bad.ttl", &["bad.ttl"], &[]);
    run.no_panic();
    assert_ne!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("bad.ttl:3: column 10"), "{run:#?}");
}
