//! `gsi sparql` as a user runs it: data as N-Triples, compressed or a saved index; the query
//! from a file or the command line; XML results, ORDER BY and FILTER; refusals with exit
//! code 2. (Answers are compared with
//! Oxigraph's in the Python tests, `test_sparql_cli.py`.)

use std::io::Write;

use crate::util::TestDir;

/// a knows b and c, b knows c; a is a person.
const DATA: &str = "<http://ex/a> <http://ex/knows> <http://ex/b> .
<http://ex/a> <http://ex/knows> <http://ex/c> .
<http://ex/b> <http://ex/knows> <http://ex/c> .
<http://ex/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
";

const KNOWS: &str = "PREFIX : <http://ex/> SELECT ?y { ?x :knows ?y }";

fn sparql(dir: &TestDir, data: &str, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["sparql", "--data", data, "--engine", "cpu", "--quiet"];
    args.extend_from_slice(extra);
    dir.gsi(args)
}

#[test]
fn text_compressed_and_saved_data_give_the_same_results() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(DATA.as_bytes()).unwrap();
    dir.write("d.nt.gz", gz.finish().unwrap());
    dir.gsi(["index", "d.nt", "-o", "d.gsidx"]).ok();
    for data in ["d.nt", "d.nt.gz", "d.gsidx"] {
        let run = sparql(&dir, data, &["-e", KNOWS, "--results", "tsv"]).ok();
        let mut rows: Vec<&str> = run.stdout.lines().collect();
        rows.sort_unstable();
        assert_eq!(
            rows,
            ["<http://ex/b>", "<http://ex/c>", "<http://ex/c>", "?y"],
            "{data}"
        );
    }
}

#[test]
fn ordered_and_filtered_results_in_xml() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    dir.gsi(["index", "d.nt", "-o", "d.gsidx"]).ok();
    let query = "PREFIX : <http://ex/> SELECT ?x ?y { ?x :knows ?y FILTER(?x != :b && isIRI(?y)) } ORDER BY DESC(?y)";
    let binding = |name: &str, iri: &str| {
        format!("<binding name=\"{name}\"><uri>http://ex/{iri}</uri></binding>")
    };
    let expected = format!(
        concat!(
            "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">",
            "<head><variable name=\"x\"/><variable name=\"y\"/></head><results>",
            "<result>{}{}</result><result>{}{}</result></results></sparql>\n"
        ),
        binding("x", "a"),
        binding("y", "c"),
        binding("x", "a"),
        binding("y", "b"),
    );
    for data in ["d.nt", "d.gsidx"] {
        let run = sparql(&dir, data, &["-e", query, "--results", "xml"]).ok();
        assert_eq!(run.stdout, expected, "{data}");
    }
}

#[test]
fn a_query_file_and_the_count() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    dir.write(
        "q.rq",
        "PREFIX : <http://ex/>\nSELECT DISTINCT ?y { ?x :knows ?y }\n",
    );
    let run = sparql(&dir, "d.nt", &["--query", "q.rq", "--count"]).ok();
    assert_eq!(run.stdout, "2\n");
    let run = sparql(&dir, "d.nt", &["-e", KNOWS, "--count"]).ok();
    assert_eq!(run.stdout, "3\n");
}

#[test]
fn refusals_name_the_problem_and_exit_2() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    dir.write(
        "loop.nt",
        "<http://ex/a> <http://ex/knows> <http://ex/a> .\n",
    );
    dir.write("g.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    let cases: [(&str, &[&str], &str); 7] = [
        (
            "d.nt",
            &[
                "-e",
                "SELECT * { ?x <http://ex/knows> ?y OPTIONAL { ?y <http://ex/knows> ?z } }",
            ],
            "OPTIONAL is outside the SPARQL fragment",
        ),
        ("d.nt", &["-e", "SELECT * WHERE"], "not valid SPARQL"),
        (
            "d.nt",
            &[
                "-e",
                "SELECT * { ?x <http://ex/knows> ?y FILTER(REGEX(?y, \"b\")) }",
            ],
            "REGEX in FILTER is outside the SPARQL fragment",
        ),
        (
            "missing.nt",
            &["-e", "ASK { ?x <http://ex/knows> ?y }", "--results", "csv"],
            "ASK results have no TSV or CSV form",
        ),
        ("g.graph", &["-e", KNOWS], "the data graph is not RDF"),
        (
            "loop.nt",
            &["-e", KNOWS],
            "1 triples whose subject is their object",
        ),
        (
            "d.nt",
            &["-e", KNOWS, "--devices", "0,1"],
            "--devices 0,1: gsi sparql",
        ),
    ];
    for (data, args, message) in cases {
        let run = sparql(&dir, data, args);
        run.no_panic();
        assert_eq!(run.code, Some(2), "{run:#?}");
        assert!(run.stderr.contains(message), "{run:#?}");
        assert_eq!(run.stdout, "", "{run:#?}");
    }
}

#[test]
fn explain_shows_the_query_graph_its_pinned_vertices_plan_and_engine() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    let query = "PREFIX : <http://ex/> SELECT ?y { :a :knows ?y . ?y :knows ?z . :a a :Person }";
    let run = sparql(&dir, "d.nt", &["-e", query, "--count", "--explain"]).ok();
    assert_eq!(run.stdout, "1\n");
    let explained = &run.stderr;
    for line in [
        "  u0 = <http://ex/a>  a <http://ex/Person>  pinned to data vertex 0\n",
        "  u1 = ?y\n",
        "  u2 = ?z\n",
        "  u0 -> u1  <http://ex/knows> (label 0)\n",
        "  pinned vertices: u0\n",
        "engine: cpu\n",
        "join order",
    ] {
        assert!(explained.contains(line), "{line:?} not in\n{explained}");
    }
    // A BGP the data cannot answer says why, and nothing is joined.
    let run = sparql(
        &dir,
        "d.nt",
        &["-e", "SELECT * { ?x <http://ex/likes> ?y }", "--explain"],
    )
    .ok();
    assert!(
        run.stderr.contains("no solutions: the data lacks"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("engine:"), "{}", run.stderr);
}

/// A query whose answer takes long to list stops at SIGINT: exit code 130, and a message
/// saying the results written are incomplete.
#[test]
fn sigint_stops_a_long_answer_with_exit_code_130() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = TestDir::new();
    // 1,500 resources, each knowing the next 60: paths of four steps number 1,500 · 60^4.
    let mut data = String::new();
    for s in 0..1500 {
        for d in 1..=60 {
            let o = (s + d) % 1500;
            data.push_str(&format!(
                "<http://ex/r{s}> <http://ex/knows> <http://ex/r{o}> .\n"
            ));
        }
    }
    dir.write("many.nt", data);
    let query = "PREFIX : <http://ex/> SELECT * { ?a :knows ?b . ?b :knows ?c . ?c :knows ?d . ?d :knows ?e }";
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args(["sparql", "--data", "many.nt", "--engine", "cpu", "--quiet"])
        .args(["--results", "tsv", "-e", query])
        .current_dir(dir.path(""))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsi");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let header = lines.next().expect("a header").unwrap();
    assert_eq!(header, "?a\t?b\t?c\t?d\t?e");
    lines.next().expect("a first solution").unwrap();
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let signalled = Instant::now();
    lines.for_each(drop);
    let output = child.wait_with_output().expect("wait for gsi");
    assert!(signalled.elapsed() < Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("interrupted"), "{stderr}");
}
