//! The `gsi` binary as a user runs it: the demo, help, flags, output files, JSON, exit codes
//! and the message of every kind of bad input.

use std::collections::BTreeSet;

use gsi_graph::{Graph, VertexId};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngSeed, TestRunner};

use crate::brute;
use crate::oracle::{self, Shape};
use crate::util::{
    assert_valid_matches, clique, output_rows, path, read_sunluo, Run, Spec, TestDir,
};

// ---------------------------------------------------------------------------------------------
// The demo.

/// The demo's molecules, written down again from their structural formulas: heavy atoms by
/// element, bonds labelled 1 (single), 2 (double) or 4 (aromatic).
/// A molecule: element symbols of its heavy atoms, and bonds `(atom, atom, order)`.
type Molecule = (&'static str, &'static [(u32, u32, u32)]);

const MOLECULES: &[Molecule] = &[
    // aspirin
    (
        "CCCCCCOCOCCOO",
        &[
            (0, 6, 1),
            (6, 7, 1),
            (7, 8, 2),
            (7, 9, 1),
            (1, 10, 1),
            (10, 11, 2),
            (10, 12, 1),
        ],
    ),
    // paracetamol
    (
        "CCCCCCONCOC",
        &[(0, 6, 1), (3, 7, 1), (7, 8, 1), (8, 9, 2), (8, 10, 1)],
    ),
    // ibuprofen
    (
        "CCCCCCCCCCCCCOO",
        &[
            (0, 6, 1),
            (6, 7, 1),
            (7, 8, 1),
            (7, 9, 1),
            (3, 10, 1),
            (10, 11, 1),
            (10, 12, 1),
            (12, 13, 2),
            (12, 14, 1),
        ],
    ),
    // caffeine (no benzene ring)
    (
        "NCNCCCNCNOOCCC",
        &[
            (0, 1, 1),
            (1, 2, 1),
            (2, 3, 1),
            (3, 4, 2),
            (4, 5, 1),
            (5, 0, 1),
            (3, 8, 1),
            (8, 7, 2),
            (7, 6, 1),
            (6, 4, 1),
            (1, 9, 2),
            (5, 10, 2),
            (0, 11, 1),
            (2, 12, 1),
            (6, 13, 1),
        ],
    ),
];

fn molecules() -> Spec {
    let mut spec = Spec::new(false, Vec::new());
    for (i, (atoms, bonds)) in MOLECULES.iter().enumerate() {
        let base = spec.len() as u32;
        spec.labels.extend(atoms.chars().map(|c| match c {
            'C' => 6,
            'N' => 7,
            'O' => 8,
            _ => unreachable!(),
        }));
        // The first three molecules carry a benzene ring on atoms 0-5.
        if i < 3 {
            spec.edges
                .extend((0..6).map(|a| (base + a, base + (a + 1) % 6, 4)));
        }
        spec.edges
            .extend(bonds.iter().map(|&(a, b, l)| (base + a, base + b, l)));
    }
    spec
}

/// The carboxyl pattern C-C(=O)-O.
fn carboxyl() -> Spec {
    Spec::new(false, vec![6, 6, 8, 8])
        .edge(0, 1, 1)
        .edge(1, 2, 2)
        .edge(1, 3, 1)
}

#[test]
fn demo_count_equals_brute_force_on_the_same_molecules() {
    let dir = TestDir::new();
    let data = molecules();
    let query = carboxyl();
    let expected = brute::count(&query.graph(), &data.graph(), false);
    // Aspirin's acid and ester groups, ibuprofen's acid group.
    assert_eq!(expected, 3);
    assert_eq!(data.len(), 53);

    dir.write_spec("molecules.graph", &data);
    dir.write_spec("carboxyl.graph", &query);
    let run = dir
        .match_files("molecules.graph", &["carboxyl.graph"], &["--json"])
        .ok();
    assert_eq!(run.json().queries[0].matches, expected);

    for args in [vec![], vec!["demo"], vec!["demo", "--engine", "cpu"]] {
        let run = dir.gsi(&args).ok();
        let count: u128 = run
            .value("count")
            .unwrap_or_else(|| panic!("no `count = N` line: {run:#?}"))
            .parse()
            .expect("count is a number");
        assert_eq!(count, expected, "gsi {args:?}");
        assert!(run.stdout.contains("53 atoms"), "{}", run.stdout);
        // One table row per match, each naming its molecule.
        let rows = run
            .stdout
            .lines()
            .filter(|l| {
                ["aspirin", "paracetamol", "ibuprofen", "caffeine"]
                    .iter()
                    .any(|m| l.trim_start().starts_with(m))
            })
            .count();
        assert_eq!(rows as u128, expected, "{}", run.stdout);
    }
}

// ---------------------------------------------------------------------------------------------
// Help.

const MATCH_FLAGS: &[&str] = &[
    "--data",
    "--query",
    "--format",
    "--directed",
    "--homomorphism",
    "--limit",
    "--timeout",
    "--memory-limit",
    "--engine",
    "--device",
    "--threads",
    "--output",
    "--explain",
    "--json",
    "--quiet",
    "--help",
];

#[test]
fn help_exits_zero_and_mentions_every_flag() {
    let dir = TestDir::new();
    for help in ["--help", "-h"] {
        let top = dir.gsi([help]).ok();
        for word in ["match", "demo", "--help", "--version"] {
            assert!(
                top.stdout.contains(word),
                "gsi {help} lacks {word}: {}",
                top.stdout
            );
        }
        let matching = dir.gsi(["match", help]).ok();
        for flag in MATCH_FLAGS {
            assert!(
                matching.stdout.contains(flag),
                "gsi match {help} lacks {flag}: {}",
                matching.stdout
            );
        }
        let demo = dir.gsi(["demo", help]).ok();
        for flag in ["--engine", "--help"] {
            assert!(demo.stdout.contains(flag), "gsi demo {help} lacks {flag}");
        }
    }
    let help = dir.gsi(["help", "match"]).ok();
    assert!(help.stdout.contains("--memory-limit"));
    let version = dir.gsi(["--version"]).ok();
    assert!(version.stdout.starts_with("gsi "), "{}", version.stdout);
}

// ---------------------------------------------------------------------------------------------
// Bad input files.

const TRIANGLE: &str = "t 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 1 2\ne 0 2\n";

/// A malformed file: its bytes, the line the error must name (if any) and words it must hold.
struct BadFile {
    what: &'static str,
    bytes: Vec<u8>,
    line: Option<usize>,
    says: &'static str,
}

fn bad(what: &'static str, text: &str, line: Option<usize>, says: &'static str) -> BadFile {
    BadFile {
        what,
        bytes: text.as_bytes().to_vec(),
        line,
        says,
    }
}

fn bad_files() -> Vec<BadFile> {
    let mut garbage: Vec<u8> = b"\x7fELF\x02\x01\x01\x00".to_vec();
    garbage.extend((0..=255u8).rev());
    vec![
        bad(
            "header without the edge count",
            "t 3\n",
            Some(1),
            "edge count",
        ),
        bad("header with a word", "t 3 many\n", Some(1), "many"),
        bad("no header", "v 0 0 0\n", Some(1), "t N M"),
        bad("a blank line, then no header", "\nx 1 2 3\n", Some(2), "x"),
        bad(
            "unknown line type",
            "t 2 0\nv 0 0 0\nq 1\nv 1 0 0\n",
            Some(3),
            "unknown line type",
        ),
        bad(
            "non-numeric label",
            "t 2 0\nv 0 -1 0\nv 1 0 0\n",
            Some(2),
            "`-1`",
        ),
        bad(
            "non-numeric edge endpoint",
            "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 x\n",
            Some(4),
            "x",
        ),
        bad("negative id", "t 2 0\nv -1 0 0\nv 1 0 0\n", Some(2), "-1"),
        bad(
            "negative degree",
            "t 2 0\nv 0 0 -2\nv 1 0 0\n",
            Some(2),
            "-2",
        ),
        bad(
            "out-of-range vertex id",
            "t 2 0\nv 0 0 0\nv 2 0 0\n",
            Some(3),
            "out of range",
        ),
        bad(
            "edge to a vertex beyond the header",
            "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 5\n",
            Some(4),
            "5",
        ),
        bad(
            "edge to a vertex never declared",
            "t 3 1\nv 0 0 1\nv 1 0 1\ne 0 2\n",
            None,
            "vertex 2",
        ),
        bad(
            "duplicate vertex",
            "t 2 0\nv 0 0 0\nv 0 0 0\n",
            Some(3),
            "twice",
        ),
        bad(
            "duplicate edge",
            "t 2 2\nv 0 0 2\nv 1 0 2\ne 0 1\ne 1 0\n",
            Some(5),
            "duplicate edge",
        ),
        bad(
            "self-loop",
            "t 2 1\nv 0 0 2\nv 1 0 0\ne 0 0\n",
            Some(4),
            "self-loop",
        ),
        bad(
            "fewer vertices than the header",
            "t 3 0\nv 0 0 0\nv 1 0 0\n",
            None,
            "3 vertices",
        ),
        bad(
            "more edges in the header than in the body",
            "t 2 2\nv 0 0 1\nv 1 0 1\ne 0 1\n",
            None,
            "2 edges",
        ),
        bad(
            "fewer edges in the header than in the body",
            "t 3 1\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n",
            None,
            "1 edges",
        ),
        bad(
            "wrong degree",
            "t 2 1\nv 0 0 1\nv 1 0 3\ne 0 1\n",
            Some(3),
            "degree",
        ),
        bad("extra field", "t 2 0\nv 0 0 0 7\nv 1 0 0\n", Some(2), "`7`"),
        bad(
            "label beyond 32 bits",
            "t 1 0\nv 0 99999999999 0\n",
            Some(2),
            "32",
        ),
        bad(
            "second header",
            "t 1 0\nv 0 0 0\nt 1 0\n",
            Some(3),
            "header",
        ),
        bad("empty file", "", None, "empty"),
        bad("only blank lines", "\n  \n\r\n", None, "empty"),
        BadFile {
            what: "binary garbage",
            bytes: garbage,
            line: Some(1),
            says: "binary",
        },
        BadFile {
            what: "binary after a valid start",
            bytes: b"t 2 0\nv 0 0 0\n\xff\xfe\x00\x01\n".to_vec(),
            line: Some(3),
            says: "binary",
        },
    ]
}

/// Checks a bad-input run: exit 2, every stderr line `gsi: ...`, the file and line named.
fn assert_reported(
    run: &crate::util::Run,
    file: &str,
    line: Option<usize>,
    says: &str,
    what: &str,
) {
    assert_eq!(run.code, Some(2), "{what}: {run:#?}");
    run.no_panic();
    assert!(run.stderr.starts_with("gsi: "), "{what}: {run:#?}");
    assert!(
        run.stderr.lines().all(|l| l.starts_with("gsi: ")),
        "{what}: stray stderr lines: {run:#?}"
    );
    let expected = match line {
        Some(n) => format!("{file}:{n}: "),
        None => file.to_owned(),
    };
    assert!(
        run.stderr.contains(&expected),
        "{what}: stderr should name `{expected}`: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(says),
        "{what}: stderr should say `{says}`: {}",
        run.stderr
    );
}

/// The format is detected (`auto`) or named; either way the Sun–Luo reader's errors come out.
const FORMATS: [&[&str]; 2] = [&[], &["--format", "sunluo"]];

#[test]
fn every_malformed_data_file_is_reported_with_file_and_line() {
    let dir = TestDir::new();
    dir.write("query.graph", TRIANGLE);
    for case in bad_files() {
        dir.write("bad.graph", &case.bytes);
        for format in FORMATS {
            let run = dir.match_files("bad.graph", &["query.graph"], format);
            let what = format!("{} {format:?}", case.what);
            assert_reported(&run, "bad.graph", case.line, case.says, &what);
            assert!(run.stdout.is_empty(), "{what}: {run:#?}");
        }
    }
}

#[test]
fn every_malformed_query_file_is_reported_and_the_others_still_run() {
    let dir = TestDir::new();
    dir.write("data.graph", TRIANGLE);
    dir.write("good.graph", TRIANGLE);
    for case in bad_files() {
        dir.write("bad.graph", &case.bytes);
        for format in FORMATS {
            let what = format!("{} {format:?}", case.what);
            let run = dir.match_files("data.graph", &["bad.graph"], format);
            assert_reported(&run, "bad.graph", case.line, case.says, &what);

            // In JSON, the bad query is an object with status `error`; the good one still runs.
            let json = [format, &["--json"]].concat();
            let run = dir.match_files("data.graph", &["good.graph", "bad.graph"], &json);
            assert_eq!(run.code, Some(2), "{what}: {run:#?}");
            run.no_panic();
            let out = run.json();
            assert_eq!(out.queries.len(), 2);
            assert_eq!(out.queries[0].matches, 6, "{what}");
            assert_eq!(out.queries[0].status, "ok");
            let failed = &out.queries[1];
            assert_eq!(failed.status, "error", "{what}");
            assert_eq!(failed.matches, 0);
            let error = failed.error.as_deref().expect("an error message");
            assert!(error.contains("bad.graph"), "{what}: {error}");
            assert!(error.contains(case.says), "{what}: {error}");
            assert_eq!((out.summary.ok, out.summary.errors), (1, 1));
        }
    }
}

#[test]
fn a_directory_as_data_file_is_bad_input() {
    let dir = TestDir::new();
    dir.write("folder/q.graph", TRIANGLE);
    dir.write("query.graph", TRIANGLE);
    let run = dir.match_files("folder", &["query.graph"], &[]);
    assert_reported(&run, "folder", None, "directory", "a directory as data");
}

#[test]
fn a_nonexistent_data_file_is_bad_input() {
    let dir = TestDir::new();
    dir.write("query.graph", TRIANGLE);
    let run = dir.match_files("missing.graph", &["query.graph"], &[]);
    assert_reported(&run, "missing.graph", None, "missing.graph", "missing data");
}

#[test]
fn a_nonexistent_query_path_is_bad_input() {
    let dir = TestDir::new();
    dir.write("data.graph", TRIANGLE);
    let run = dir.match_files("data.graph", &["nowhere.graph"], &[]);
    assert_reported(
        &run,
        "nowhere.graph",
        None,
        "nowhere.graph",
        "missing query",
    );
    // Also when it is one of several.
    dir.write("query.graph", TRIANGLE);
    let run = dir.match_files("data.graph", &["query.graph", "nowhere/"], &["--json"]);
    assert_reported(&run, "nowhere", None, "nowhere", "missing query folder");
}

#[test]
fn an_empty_query_folder_is_bad_input() {
    let dir = TestDir::new();
    dir.write("data.graph", TRIANGLE);
    std::fs::create_dir(dir.path("empty")).expect("mkdir");
    let run = dir.match_files("data.graph", &["empty"], &[]);
    assert_reported(&run, "empty", None, "no files", "empty query folder");
}

#[test]
fn an_empty_query_graph_is_an_error_naming_the_file() {
    let dir = TestDir::new();
    dir.write("data.graph", TRIANGLE);
    dir.write("none.graph", "t 0 0\n");
    let run = dir.match_files("data.graph", &["none.graph"], &[]);
    assert_reported(&run, "none.graph", None, "no vertices", "empty query");

    let run = dir.match_files("data.graph", &["none.graph"], &["--json"]);
    assert_eq!(run.code, Some(2));
    let out = run.json();
    assert_eq!(out.queries[0].status, "error");
    let error = out.queries[0].error.as_deref().expect("an error message");
    assert!(error.contains("none.graph"), "{error}");
}

#[test]
fn an_empty_data_graph_gives_no_matches() {
    let dir = TestDir::new();
    dir.write("data.graph", "t 0 0\n");
    dir.write("query.graph", TRIANGLE);
    let run = dir
        .match_files("data.graph", &["query.graph"], &["--json"])
        .ok();
    let out = run.json();
    assert_eq!(out.queries[0].matches, 0);
    assert_eq!(out.queries[0].status, "ok");
}

#[test]
fn crlf_comments_free_and_unlabelled_edges_read_fine() {
    let dir = TestDir::new();
    dir.write("data.graph", TRIANGLE.replace('\n', "\r\n"));
    dir.write(
        "query.graph",
        "t 2 1\n\nv 0 0 1\nv 1 0 1\n  e   0  1  0  \n",
    );
    let run = dir
        .match_files("data.graph", &["query.graph"], &["--json"])
        .ok();
    assert_eq!(run.json().queries[0].matches, 6);
}

// ---------------------------------------------------------------------------------------------
// Matching semantics through the binary.

#[test]
fn query_labels_absent_from_the_data_give_zero_matches() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 6, 1));
    // A vertex label the data lacks.
    dir.write_spec("q1.graph", &path(false, 3, 9));
    // An edge label the data lacks.
    dir.write_spec("q2.graph", &Spec::new(false, vec![1, 1]).edge(0, 1, 5));
    let run = dir
        .match_files("data.graph", &["q1.graph", "q2.graph"], &["--json"])
        .ok();
    let out = run.json();
    for q in &out.queries {
        assert_eq!((q.matches, q.status.as_str()), (0, "ok"), "{}", q.query);
    }
    assert_eq!(out.summary.ok, 2);
}

#[test]
fn a_query_larger_than_the_data_gives_zero_matches() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 3, 0));
    dir.write_spec("query.graph", &clique(false, 4, 0));
    let run = dir
        .match_files("data.graph", &["query.graph"], &["--json"])
        .ok();
    assert_eq!(run.json().queries[0].matches, 0);
    // Under homomorphism, K4 still needs four mutually distinct endpoints: no match either.
    let run = dir
        .match_files(
            "data.graph",
            &["query.graph"],
            &["--json", "--homomorphism"],
        )
        .ok();
    assert_eq!(run.json().queries[0].matches, 0);
    // But a 4-path folds onto a triangle: 3 * 2 * 2 * 2.
    dir.write_spec("path.graph", &path(false, 4, 0));
    let run = dir
        .match_files("data.graph", &["path.graph"], &["--json", "--homomorphism"])
        .ok();
    assert_eq!(run.json().queries[0].matches, 24);
}

/// Random graphs drawn with a fixed seed.
fn draw<S: Strategy>(runner: &mut TestRunner, strategy: &S) -> S::Value {
    strategy.new_tree(runner).expect("a value").current()
}

fn runner(seed: u64) -> TestRunner {
    TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    })
}

/// One data graph and many queries (connected, disconnected, cut from the data), all written
/// to files and answered by one run of the binary; each count must equal the brute force's.
fn cli_agrees_with_brute_force(directed: bool, homomorphism: bool, seed: u64) {
    let shape = Shape {
        directed,
        vertex_labels: 2,
        edge_labels: 2,
        density: if directed { 0.2 } else { 0.3 },
        multi: true,
    };
    let query_shape = oracle::query_shape(shape);
    let mut runner = runner(seed);
    let dir = TestDir::new();
    let data = draw(&mut runner, &oracle::graph(shape, 12..=14));
    let cut = oracle::subgraph_of(&data, 5);
    let queries: Vec<Spec> = (0..60)
        .map(|i| match i % 3 {
            0 => draw(&mut runner, &oracle::connected(query_shape, 1..=5)),
            1 => draw(&mut runner, &oracle::graph(query_shape, 1..=4)),
            _ => draw(&mut runner, &cut),
        })
        .collect();
    dir.write_spec("data.graph", &data);
    for (i, q) in queries.iter().enumerate() {
        dir.write_spec(&format!("queries/q_{i}.graph"), q);
    }
    let mut extra = vec!["--json"];
    if directed {
        extra.push("--directed");
    }
    if homomorphism {
        extra.push("--homomorphism");
    }
    let run = dir.match_files("data.graph", &["queries"], &extra).ok();
    let out = run.json();
    assert_eq!(out.queries.len(), queries.len());
    let data_graph = data.graph();
    let mut nonzero = 0;
    for (i, (q, spec)) in out.queries.iter().zip(&queries).enumerate() {
        // Natural order: q_2 before q_10.
        assert!(
            q.query.ends_with(&format!("q_{i}.graph")),
            "{} at {i}",
            q.query
        );
        let expected = brute::count(&spec.graph(), &data_graph, homomorphism);
        assert_eq!(q.matches, expected, "{}: {spec:?} in {data:?}", q.query);
        assert_eq!(q.status, "ok");
        assert_eq!(q.candidates.len(), spec.len());
        nonzero += usize::from(expected > 0);
    }
    assert!(nonzero >= 10, "too few queries with matches: {nonzero}");
    assert_eq!(
        out.summary.matches,
        out.queries.iter().map(|q| q.matches).sum::<u128>()
    );
}

#[test]
fn undirected_counts_agree_with_brute_force() {
    cli_agrees_with_brute_force(false, false, 1);
}

#[test]
fn undirected_homomorphism_counts_agree_with_brute_force() {
    cli_agrees_with_brute_force(false, true, 2);
}

#[test]
fn directed_counts_agree_with_brute_force() {
    cli_agrees_with_brute_force(true, false, 3);
}

#[test]
fn directed_homomorphism_counts_agree_with_brute_force() {
    cli_agrees_with_brute_force(true, true, 4);
}

/// `--partition I/K` through the binary: for every query, the K shares' counts add up to
/// the brute force's count, and the shares' `--output` files hold disjoint matches, cut by
/// rows (dealt from the first table with enough rows, or from the first table) or as a grid.
#[test]
fn partition_shares_add_up_to_the_brute_force_count() {
    let shape = oracle::UNDIRECTED_MULTI;
    let mut runner = runner(7);
    let dir = TestDir::new();
    let data = draw(&mut runner, &oracle::graph(shape, 12..=14));
    let cut = oracle::subgraph_of(&data, 5);
    let queries: Vec<Spec> = (0..20).map(|_| draw(&mut runner, &cut)).collect();
    dir.write_spec("data.graph", &data);
    for (i, q) in queries.iter().enumerate() {
        dir.write_spec(&format!("queries/q_{i}.graph"), q);
    }
    let data_graph = data.graph();
    let expected: Vec<u128> = queries
        .iter()
        .map(|spec| brute::count(&spec.graph(), &data_graph, false))
        .collect();
    let nonzero = expected.iter().filter(|&&e| e > 0).count();
    assert!(nonzero >= 10, "too few queries with matches: {nonzero}");
    for how in [
        &[][..],
        &["--rows-per-share", "0"][..],
        &["--share-cut", "grid"][..],
    ] {
        let shares = 3;
        let mut sums = vec![0u128; queries.len()];
        let mut lines = Vec::new();
        for i in 0..shares {
            let partition = format!("{i}/{shares}");
            let output = format!("m_{i}.txt");
            let mut args = vec!["--json", "--partition", &partition, "--output", &output];
            args.extend_from_slice(how);
            let out = dir
                .match_files("data.graph", &["queries"], &args)
                .ok()
                .json();
            assert_eq!(out.summary.partition.as_deref(), Some(partition.as_str()));
            for (sum, q) in sums.iter_mut().zip(&out.queries) {
                assert_eq!(q.status, "ok");
                *sum += q.matches;
            }
            // Matches of one query in one share: its section's lines.
            let text = std::fs::read_to_string(dir.path(&output)).expect("output");
            let mut section = String::new();
            for line in text.lines() {
                if line.starts_with('#') {
                    section = line.to_string();
                } else {
                    lines.push(format!("{section} {line}"));
                }
            }
        }
        assert_eq!(sums, expected, "{how:?}");
        assert_eq!(lines.len() as u128, sums.iter().sum::<u128>());
        let distinct: std::collections::HashSet<&String> = lines.iter().collect();
        assert_eq!(
            distinct.len(),
            lines.len(),
            "{how:?}: a match in two shares"
        );
    }
    // A share says, under --explain, which table it dealt and what it kept.
    let explained = dir
        .match_files(
            "data.graph",
            &["queries/q_0.graph"],
            &["--explain", "--partition", "1/3"],
        )
        .ok();
    assert!(
        explained.stdout.contains("dealt by rows"),
        "{}",
        explained.stdout
    );
}

/// A count that programs make (a path of one label: its quotients' homomorphisms) is not
/// cut: under `--partition` the first share counts it whole and says so, the others count
/// nothing; with the programs off, the shares join their parts. Either way the shares add
/// up to the 5-vertex paths of K12, 12 · 11 · 10 · 9 · 8 of them.
#[test]
fn partition_of_a_count_by_programs_is_counted_whole_by_the_first_share() {
    let dir = TestDir::new();
    dir.write_spec("k12.graph", &clique(false, 12, 0));
    dir.write_spec("path.graph", &path(false, 5, 0));
    let expected: u128 = 12 * 11 * 10 * 9 * 8;
    let shares = 3;
    for programs in [true, false] {
        let mut counts = Vec::new();
        for i in 0..shares {
            let partition = format!("{i}/{shares}");
            let mut args = vec!["--json", "--explain", "--partition", &partition];
            if !programs {
                args.push("--no-tree-counts");
            }
            let run = dir.match_files("k12.graph", &["path.graph"], &args).ok();
            let whole = "the first of the 3 shares counts it whole";
            assert_eq!(run.stdout.contains(whole), programs, "{}", run.stdout);
            counts.push(run.json().queries[0].matches);
        }
        assert_eq!(counts.iter().sum::<u128>(), expected, "{counts:?}");
        if programs {
            assert_eq!(counts, [expected, 0, 0]);
        }
    }
}

/// `gsi info` prints the share of the data's wedges that close (what the planner reads before
/// it weighs a query's triangles first): every wedge of K5, none of a path.
#[test]
fn info_prints_the_share_of_closed_wedges() {
    let dir = TestDir::new();
    dir.write_spec("k5.graph", &clique(false, 5, 0));
    dir.write_spec("path.graph", &path(false, 6, 0));
    for (file, share) in [("k5.graph", "1.0000"), ("path.graph", "0.0000")] {
        let run = dir.gsi(["info", file]).ok();
        let line = format!("\nclosed_wedges = {share}\n");
        assert!(run.stdout.contains(&line), "{file}: {}", run.stdout);
    }
}

/// Counts above 2^53 are written to JSON as strings of digits (a double would round them),
/// below as numbers; `gsi merge` reads either: homomorphisms of a 9-vertex path in K100,
/// 100 · 99^8 of them, counted whole and in shares.
#[test]
fn counts_beyond_a_doubles_precision_are_json_strings() {
    let dir = TestDir::new();
    dir.write_spec("k100.graph", &clique(false, 100, 0));
    dir.write_spec("path.graph", &path(false, 9, 0));
    let expected: u128 = 100 * 99u128.pow(8);
    assert!(expected > 1 << 53);
    let run = dir
        .match_files("k100.graph", &["path.graph"], &["--json", "--homomorphism"])
        .ok();
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines[0]["matches"], serde_json::json!(expected.to_string()));
    assert_eq!(lines[1]["matches"], serde_json::json!(expected.to_string()));
    assert_eq!(run.json().queries[0].matches, expected);
    for i in 0..2 {
        let share = dir
            .match_files(
                "k100.graph",
                &["path.graph"],
                &["--json", "--homomorphism", "--partition", &format!("{i}/2")],
            )
            .ok();
        dir.write(&format!("s{i}.jsonl"), &share.stdout);
    }
    let merged = dir.gsi(["merge", "--json", "s0.jsonl", "s1.jsonl"]);
    assert_eq!(merged.code, Some(0), "{merged:#?}");
    let first: serde_json::Value =
        serde_json::from_str(merged.stdout.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["matches"], serde_json::json!(expected.to_string()));
}

/// `gsi merge` over the K share runs of `--partition`: each query's count is the brute
/// force's, whatever order the files come in; a set that is not whole or not one (a share
/// missing or given twice, another K, another data file, a run cut short, a line that is not
/// JSON, a file that is no share) is refused by name with exit code 2.
#[test]
fn merge_adds_up_the_shares_and_refuses_broken_sets() {
    let shape = oracle::UNDIRECTED_MULTI;
    let mut runner = runner(11);
    let dir = TestDir::new();
    let data = draw(&mut runner, &oracle::graph(shape, 12..=14));
    let cut = oracle::subgraph_of(&data, 4);
    let queries: Vec<Spec> = (0..6).map(|_| draw(&mut runner, &cut)).collect();
    dir.write_spec("data.graph", &data);
    dir.write_spec("other.graph", &data);
    for (i, q) in queries.iter().enumerate() {
        dir.write_spec(&format!("queries/q_{i}.graph"), q);
    }
    let share = |data: &str, partition: &str, file: &str| {
        let run = dir
            .match_files(data, &["queries"], &["--json", "--partition", partition])
            .ok();
        dir.write(file, &run.stdout);
    };
    for i in 0..3 {
        share("data.graph", &format!("{i}/3"), &format!("s{i}.jsonl"));
    }
    let merged = dir.gsi(["merge", "--json", "s2.jsonl", "s0.jsonl", "s1.jsonl"]);
    assert_eq!(merged.code, Some(0), "{merged:#?}");
    let lines: Vec<serde_json::Value> = merged
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let data_graph = data.graph();
    let mut total = 0;
    for (q, line) in queries.iter().zip(&lines) {
        let expected = brute::count(&q.graph(), &data_graph, false);
        assert_eq!(
            line["matches"].as_u64().map(u128::from),
            Some(expected),
            "{line}"
        );
        assert_eq!(
            (line["status"].as_str(), line["complete"].as_bool()),
            (Some("ok"), Some(true))
        );
        total += expected;
    }
    let summary = lines.last().expect("a summary");
    assert_eq!(
        (
            summary["shares"].as_u64(),
            summary["matches"].as_u64().map(u128::from)
        ),
        (Some(3), Some(total))
    );
    share("data.graph", "0/4", "k4.jsonl");
    share("other.graph", "2/3", "other.jsonl");
    let whole = dir
        .match_files("data.graph", &["queries"], &["--json"])
        .ok();
    dir.write("whole.jsonl", &whole.stdout);
    let cut_short: String = std::fs::read_to_string(dir.path("s1.jsonl"))
        .expect("read")
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    dir.write("short.jsonl", cut_short.as_bytes());
    dir.write("noise.jsonl", "{\"type\":\"query\"}\n");
    for (files, says) in [
        (&["s0.jsonl", "s1.jsonl"][..], "1 of 3 shares missing: 2/3"),
        (
            &["s0.jsonl", "s1.jsonl", "s1.jsonl", "s2.jsonl"],
            "share 1/3 is given twice",
        ),
        (
            &["s0.jsonl", "s1.jsonl", "k4.jsonl"],
            "k4.jsonl is a share of 4",
        ),
        (
            &["s0.jsonl", "s1.jsonl", "other.jsonl"],
            "other.jsonl read the data",
        ),
        (
            &["s0.jsonl", "short.jsonl", "s2.jsonl"],
            "short.jsonl ends without a summary",
        ),
        (&["noise.jsonl"], "noise.jsonl: line 1 is not a record"),
        (&["whole.jsonl"], "whole.jsonl is not a share's run"),
    ] {
        let mut args = vec!["merge"];
        args.extend_from_slice(files);
        let run = dir.gsi(&args);
        assert_eq!(run.code, Some(2), "{files:?}: {run:#?}");
        assert!(run.stderr.contains(says), "{files:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{files:?}: {}", run.stdout);
    }
}

/// Vertices and edges of several labels in Sun–Luo files (`v id 1,3 degree`, `e u v 0,2`):
/// counted as the brute force counts, from the text and from a saved index, on both engines.
#[test]
fn files_of_several_labels_per_vertex_count_as_the_brute_force() {
    let dir = TestDir::new();
    // A 6-cycle whose vertices carry one to three of the labels 0, 1, 2; two edges of two labels.
    let mut data = Spec::new(false, vec![0, 1, 0, 2, 1, 0]);
    data.more_labels = vec![(0, 1), (1, 2), (2, 1), (3, 0), (4, 0), (4, 2), (5, 2)];
    for (s, t, l) in [
        (0, 1, 0),
        (1, 2, 0),
        (2, 3, 0),
        (3, 4, 0),
        (4, 5, 0),
        (5, 0, 0),
    ] {
        data = data.edge(s, t, l);
    }
    data = data.edge(0, 1, 2).edge(3, 4, 2).edge(0, 3, 0);
    dir.write_spec("data.graph", &data);
    assert!(dir.read("data.graph").contains("v 4 1,0,2 "));
    let data_graph = data.graph();
    assert!(data_graph.has_label_sets());
    // Paths of three whose middle vertex needs labels 0 and 1, with and without an edge of
    // two labels; a vertex of labels 1 and 2 alone.
    let mut middle = Spec::new(false, vec![0, 1, 2]).edge(0, 1, 0).edge(1, 2, 0);
    middle.more_labels = vec![(1, 0)];
    let mut double = Spec::new(false, vec![1, 0]).edge(0, 1, 0).edge(0, 1, 2);
    double.more_labels = vec![(0, 0)];
    let mut alone = Spec::new(false, vec![1]);
    alone.more_labels = vec![(0, 2)];
    let queries = [("middle", &middle), ("double", &double), ("alone", &alone)];
    let mut names = Vec::new();
    for (name, spec) in queries {
        dir.write_spec(&format!("{name}.graph"), spec);
        names.push(format!("{name}.graph"));
    }
    let expected: Vec<u128> = queries
        .iter()
        .map(|(_, q)| brute::count(&q.graph(), &data_graph, false))
        .collect();
    assert!(expected.iter().all(|&c| c > 0), "{expected:?}");
    dir.gsi(["index", "data.graph", "-o", "data.gsidx", "--quiet"])
        .ok();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for data_file in ["data.graph", "data.gsidx"] {
        for engine in ["cpu", "auto"] {
            let run = dir
                .match_files(data_file, &names, &["--json", "--engine", engine])
                .ok();
            let counts: Vec<u128> = run.json().queries.iter().map(|q| q.matches).collect();
            assert_eq!(counts, expected, "{data_file} on {engine}");
        }
    }
}

/// `gsi generate graph --labels-per-vertex 3`: a graph whose vertices carry up to three
/// labels, written as label lists; queries generated from it count as the brute force counts
/// on the graph read back by the tests' own reader.
#[test]
fn generated_graphs_of_several_labels_per_vertex_count_as_the_brute_force() {
    let dir = TestDir::new();
    dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "40",
        "--edges",
        "100",
        "--vertex-labels",
        "4",
        "--labels-per-vertex",
        "3",
        "--shape",
        "uniform",
        "--seed",
        "5",
        "-o",
        "g.graph",
        "--quiet",
    ])
    .ok();
    let data = read_sunluo(&dir.path("g.graph"), false);
    assert!(data.has_label_sets(), "{}", dir.read("g.graph"));
    dir.gsi([
        "generate", "queries", "--data", "g.graph", "--size", "4", "--count", "8", "--seed", "2",
        "-o", "q", "--quiet",
    ])
    .ok();
    let names: Vec<String> = (1..=8)
        .map(|i| format!("q/query_dense_4_{i}.graph"))
        .collect();
    let expected: Vec<u128> = names
        .iter()
        .map(|n| brute::count(&read_sunluo(&dir.path(n), false), &data, false))
        .collect();
    assert!(expected.iter().all(|&c| c > 0), "{expected:?}");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for engine in ["cpu", "auto"] {
        let run = dir
            .match_files("g.graph", &names, &["--json", "--engine", engine])
            .ok();
        let counts: Vec<u128> = run.json().queries.iter().map(|q| q.matches).collect();
        assert_eq!(counts, expected, "{engine}");
    }
}

/// The hidden `--failing-sets-from` reaches the CPU join through the engine's tuning: `0`
/// skips extensions by failing sets (as `--explain` says), `never` skips none, and both count
/// as the brute force does.
#[test]
fn the_failing_sets_switch_tunes_the_cpu_join() {
    let dir = TestDir::new();
    dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "60",
        "--edges",
        "90",
        "--vertex-labels",
        "2",
        "--edge-labels",
        "1",
        "--seed",
        "3",
        "-o",
        "g.graph",
        "--quiet",
    ])
    .ok();
    dir.gsi([
        "generate", "queries", "--data", "g.graph", "--size", "7", "--count", "5", "--seed", "1",
        "-o", "q", "--quiet",
    ])
    .ok();
    let data = read_sunluo(&dir.path("g.graph"), false);
    let names: Vec<String> = (1..=5)
        .map(|i| format!("q/query_dense_7_{i}.graph"))
        .collect();
    let expected: Vec<u128> = names
        .iter()
        .map(|n| brute::count(&read_sunluo(&dir.path(n), false), &data, false))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let explained = |from: &str| {
        dir.match_files(
            "g.graph",
            &names,
            &[
                "--engine",
                "cpu",
                "--explain",
                "--depth-first-rows",
                "0",
                "--failing-sets-from",
                from,
            ],
        )
        .ok()
        .stdout
    };
    let with = explained("0");
    assert!(with.contains("failing sets skipped"), "{with}");
    let without = explained("never");
    assert!(!without.contains("failing sets skipped"), "{without}");
    for from in ["0", "never"] {
        let run = dir
            .match_files(
                "g.graph",
                &names,
                &[
                    "--json",
                    "--engine",
                    "cpu",
                    "--depth-first-rows",
                    "0",
                    "--failing-sets-from",
                    from,
                ],
            )
            .ok();
        let counts: Vec<u128> = run.json().queries.iter().map(|q| q.matches).collect();
        assert_eq!(counts, expected, "--failing-sets-from {from}");
    }
}

#[test]
fn directed_reading_respects_direction() {
    let dir = TestDir::new();
    // 0 -> 1 -> 2 and 2 -> 0: a directed 3-cycle, plus 3 <- 2.
    let data = Spec::new(true, vec![0; 4])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 0);
    // a -> b -> c.
    let query = Spec::new(true, vec![0; 3]).edge(0, 1, 0).edge(1, 2, 0);
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &query);
    let directed = dir
        .match_files("data.graph", &["query.graph"], &["--json", "--directed"])
        .ok();
    let undirected = dir
        .match_files("data.graph", &["query.graph"], &["--json"])
        .ok();
    let d = brute::count(&query.graph(), &data.graph(), false);
    let as_undirected = |s: &Spec| Spec {
        directed: false,
        ..s.clone()
    };
    let u = brute::count(
        &as_undirected(&query).graph(),
        &as_undirected(&data).graph(),
        false,
    );
    // Directed 2-paths: 0-1-2, 1-2-0, 1-2-3, 2-0-1.
    assert_eq!(d, 4);
    assert_eq!(u, 10);
    assert_eq!(directed.json().queries[0].matches, d);
    assert_eq!(undirected.json().queries[0].matches, u);
}

#[test]
fn a_disconnected_query_counts_every_combination() {
    let dir = TestDir::new();
    // Two triangles with different labels, and a lone vertex.
    let data = Spec::new(false, vec![0, 0, 0, 1, 1, 1, 0])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(0, 2, 0)
        .edge(3, 4, 0)
        .edge(4, 5, 0)
        .edge(3, 5, 0);
    // An edge labelled 0-0 and an isolated vertex labelled 1, and an isolated 0.
    let query = Spec::new(false, vec![0, 1, 0, 0]).edge(0, 2, 0);
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &query);
    let expected = brute::count(&query.graph(), &data.graph(), false);
    // 6 ordered edges among label-0 vertices, 3 choices of label 1, 2 remaining label-0 vertices.
    assert_eq!(expected, 6 * 3 * 2);
    let run = dir
        .match_files(
            "data.graph",
            &["query.graph"],
            &["--json", "--output", "m.txt"],
        )
        .ok();
    assert_eq!(run.json().queries[0].matches, expected);
    let rows = output_rows(&dir.read("m.txt"));
    assert_valid_matches(&query.graph(), &data.graph(), &rows, false);
    assert_eq!(rows.len() as u128, expected);
}

#[test]
fn auto_engine_and_one_thread_give_the_same_count() {
    let dir = TestDir::new();
    let data = clique(false, 9, 0);
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &path(false, 4, 0));
    let expected = 9 * 8 * 7 * 6;
    for extra in [
        &["--json", "--engine", "auto"][..],
        &["--json", "--threads", "1"],
        &["--json", "--threads", "3", "--format", "sunluo"],
    ] {
        let run = dir.match_files("data.graph", &["query.graph"], extra).ok();
        assert_eq!(run.json().queries[0].matches, expected, "{extra:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Output, limits, timeouts, memory.

#[test]
fn limit_stops_at_exactly_k_matches() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 8, 0));
    dir.write_spec("query.graph", &clique(false, 3, 0));
    let total = 8 * 7 * 6;
    for k in [1u128, 5, 100, 335] {
        let run = dir
            .match_files(
                "data.graph",
                &["query.graph"],
                &["--json", "--limit", &k.to_string()],
            )
            .ok();
        let q = &run.json().queries[0];
        assert_eq!(
            (q.matches, q.status.as_str()),
            (k, "limit"),
            "count only, k = {k}"
        );

        let run = dir
            .match_files(
                "data.graph",
                &["query.graph"],
                &["--json", "--limit", &k.to_string(), "--output", "m.txt"],
            )
            .ok();
        let out = run.json();
        let q = &out.queries[0];
        assert_eq!(
            (q.matches, q.status.as_str()),
            (k, "limit"),
            "with output, k = {k}"
        );
        assert_eq!(out.summary.limits, 1);
        let rows = output_rows(&dir.read("m.txt"));
        assert_eq!(rows.len() as u128, k);
        assert_valid_matches(
            &clique(false, 3, 0).graph(),
            &clique(false, 8, 0).graph(),
            &rows,
            false,
        );
    }
    // A limit at or above the total finds everything.
    for k in [total, total + 1, 1 << 40] {
        let run = dir
            .match_files(
                "data.graph",
                &["query.graph"],
                &["--json", "--limit", &k.to_string(), "--output", "m.txt"],
            )
            .ok();
        let q = &run.json().queries[0];
        assert_eq!((q.matches, q.status.as_str()), (total, "ok"), "k = {k}");
        assert_eq!(output_rows(&dir.read("m.txt")).len() as u128, total);
    }
}

#[test]
fn output_file_holds_every_match_once() {
    let dir = TestDir::new();
    let mut runner = runner(11);
    let shape = Shape {
        directed: false,
        vertex_labels: 2,
        edge_labels: 1,
        density: 0.5,
        multi: false,
    };
    let data = draw(&mut runner, &oracle::graph(shape, 30..=30));
    let query = draw(
        &mut runner,
        &oracle::connected(oracle::query_shape(shape), 4..=4),
    );
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &query);
    let run = dir
        .match_files(
            "data.graph",
            &["query.graph"],
            &["--json", "--output", "m.txt"],
        )
        .ok();
    let reported = run.json().queries[0].matches;
    let rows = output_rows(&dir.read("m.txt"));
    // The ids are checked against the files themselves, read by the tests' own reader.
    let q = crate::util::read_sunluo(&dir.path("query.graph"), false);
    let d = crate::util::read_sunluo(&dir.path("data.graph"), false);
    assert_valid_matches(&q, &d, &rows, false);
    assert_eq!(rows.len() as u128, reported);
    let expected = brute::count(&q, &d, false);
    assert_eq!(reported, expected);
    assert!(expected > 100, "a query with many matches: {expected}");
}

#[test]
fn output_file_with_several_queries_has_one_section_each() {
    let dir = TestDir::new();
    let data = clique(false, 6, 0);
    dir.write_spec("data.graph", &data);
    dir.write_spec("qs/a_1.graph", &path(false, 2, 0));
    dir.write_spec("qs/a_2.graph", &path(false, 3, 0));
    dir.write_spec("qs/a_10.graph", &clique(false, 3, 0));
    dir.write_spec("qs/a_11.graph", &path(false, 2, 7));
    let run = dir
        .match_files("data.graph", &["qs"], &["--json", "--output", "m.txt"])
        .ok();
    let out = run.json();
    let names: Vec<&str> = out.queries.iter().map(|q| q.query.as_str()).collect();
    assert!(names[0].ends_with("a_1.graph"), "{names:?}");
    assert!(names[1].ends_with("a_2.graph"), "{names:?}");
    assert!(names[2].ends_with("a_10.graph"), "{names:?}");
    assert!(names[3].ends_with("a_11.graph"), "{names:?}");
    let text = dir.read("m.txt");
    let mut sections: Vec<(String, Vec<Vec<VertexId>>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("# ") {
            sections.push((name.to_owned(), Vec::new()));
        } else {
            let last = sections.last_mut().expect("a `# QUERY` line first");
            last.1.extend(output_rows(line));
        }
    }
    assert_eq!(sections.len(), 4, "{text}");
    let queries = [
        path(false, 2, 0),
        path(false, 3, 0),
        clique(false, 3, 0),
        path(false, 2, 7),
    ];
    for ((name, rows), (q, spec)) in sections.iter().zip(out.queries.iter().zip(&queries)) {
        assert_eq!(name, &q.query);
        assert_eq!(rows.len() as u128, q.matches, "{name}");
        assert_valid_matches(&spec.graph(), &data.graph(), rows, false);
        assert_eq!(q.matches, brute::count(&spec.graph(), &data.graph(), false));
    }
}

/// A data graph with an astronomical number of matches: a 60-clique of one label, queried with
/// an 8-vertex path (60!/52!, about 1.3 * 10^14 matches).
fn huge(dir: &TestDir) {
    dir.write_spec("k60.graph", &clique(false, 60, 0));
    dir.write_spec("p8.graph", &path(false, 8, 0));
}

#[test]
fn a_tiny_timeout_reports_timeout_and_exits_fast() {
    let dir = TestDir::new();
    huge(&dir);
    let run = dir
        .match_files(
            "k60.graph",
            &["p8.graph"],
            &["--json", "--timeout", "0.001"],
        )
        .ok();
    let out = run.json();
    assert_eq!(out.queries[0].status, "timeout");
    assert_eq!(out.summary.timeouts, 1);
    assert!(run.wall.as_secs_f64() < 10.0, "took {:?}", run.wall);
    // The text output says so too.
    let run = dir
        .match_files("k60.graph", &["p8.graph"], &["--timeout", "0.001"])
        .ok();
    assert!(run.stdout.contains("timeout"), "{}", run.stdout);
    assert_eq!(run.value("timeouts").as_deref(), Some("1"));
}

/// A query as large as its data graph (3,000 vertices, itself the data): planning such a
/// query took minutes and read no clock; it now stops at the deadline like the join.
#[test]
fn a_query_as_large_as_its_data_stops_at_its_timeout() {
    let dir = TestDir::new();
    dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "3000",
        "--edges",
        "12000",
        "--vertex-labels",
        "4",
        "--seed",
        "1",
        "-o",
        "g.graph",
        "--quiet",
    ])
    .ok();
    for engine in ["cpu", "auto"] {
        let run = dir
            .match_files(
                "g.graph",
                &["g.graph"],
                &["--json", "--engine", engine, "--timeout", "0.05"],
            )
            .ok();
        assert_eq!(run.json().queries[0].status, "timeout", "{engine}");
        assert!(
            run.wall.as_secs_f64() < 10.0,
            "{engine}: took {:?}",
            run.wall
        );
    }
}

#[test]
fn a_timeout_stops_a_join_under_way() {
    let dir = TestDir::new();
    huge(&dir);
    for extra in [
        &["--json", "--timeout", "0.3", "--memory-limit", "64MiB"][..],
        &[
            "--json",
            "--timeout",
            "0.3",
            "--output",
            "m.txt",
            "--memory-limit",
            "64MiB",
        ],
    ] {
        let run = dir.match_files("k60.graph", &["p8.graph"], extra).ok();
        let q = &run.json().queries[0];
        assert_eq!(q.status, "timeout", "{extra:?}");
        assert!(q.matches < 60 * 59 * 58 * 57 * 56 * 55 * 54 * 53);
        assert!(
            q.peak_join_bytes <= 64 << 20,
            "{extra:?}: {}",
            q.peak_join_bytes
        );
        assert!(
            run.wall.as_secs_f64() < 20.0,
            "{extra:?}: took {:?}",
            run.wall
        );
    }
    // Whatever was written before the deadline is made of real matches.
    let rows = output_rows(&dir.read("m.txt"));
    assert_valid_matches(
        &path(false, 8, 0).graph(),
        &clique(false, 60, 0).graph(),
        &rows,
        false,
    );
}

#[test]
fn a_small_memory_limit_gives_the_exact_count_within_the_limit() {
    let dir = TestDir::new();
    // 5-paths in a 24-clique: 24 * 23 * 22 * 21 * 20 matches; the table before the last step
    // has 24 * 23 * 22 * 21 rows of 4 ids, about 4 MB.
    dir.write_spec("k24.graph", &clique(false, 24, 0));
    dir.write_spec("p5.graph", &path(false, 5, 0));
    let expected = 24 * 23 * 22 * 21 * 20;
    // Breadth-first to the last step, every step enumerated (the path joined, not counted
    // over its quotients): the tables are materialised.
    let bfs = [
        "--depth-first-rows",
        "never",
        "--no-leaf-products",
        "--no-tree-counts",
    ];
    let free = dir
        .match_files(
            "k24.graph",
            &["p5.graph"],
            &["--json", bfs[0], bfs[1], bfs[2], bfs[3]],
        )
        .ok();
    let free = &free.json().queries[0];
    assert_eq!(free.matches, expected);
    assert!(free.peak_join_bytes > 1 << 20, "{}", free.peak_join_bytes);
    let (query, data) = (path(false, 5, 0).graph(), clique(false, 24, 0).graph());
    for (limit, bytes) in [("64KiB", 64 << 10), ("1KiB", 1024)] {
        let run = dir
            .match_files(
                "k24.graph",
                &["p5.graph"],
                &[
                    "--json",
                    "--memory-limit",
                    limit,
                    bfs[0],
                    bfs[1],
                    bfs[2],
                    bfs[3],
                ],
            )
            .ok();
        let q = &run.json().queries[0];
        assert_eq!((q.matches, q.status.as_str()), (expected, "ok"), "{limit}");
        // 64KiB leaves every step its share; 1KiB is below one row per step, so each step
        // holds one row (see the ignored test on the documented floor).
        let bound = if bytes >= 64 << 10 {
            bytes
        } else {
            oracle::chunking_bound(bytes, &query, &data)
        };
        assert!(
            q.peak_join_bytes <= bound,
            "{limit}: peak {}",
            q.peak_join_bytes
        );
    }
    // With the matches written out, the same set with and without the limit.
    dir.write_spec("k12.graph", &clique(false, 12, 0));
    dir.write_spec("p4.graph", &path(false, 4, 0));
    dir.match_files("k12.graph", &["p4.graph"], &["--output", "free.txt"])
        .ok();
    let tight = dir
        .match_files(
            "k12.graph",
            &["p4.graph"],
            &["--output", "tight.txt", "--memory-limit", "1KiB", "--json"],
        )
        .ok();
    let mut a = output_rows(&dir.read("free.txt"));
    let mut b = output_rows(&dir.read("tight.txt"));
    a.sort();
    b.sort();
    assert_eq!(a.len(), 12 * 11 * 10 * 9);
    assert_eq!(a, b);
    assert_eq!(tight.json().queries[0].matches, a.len() as u128);
}

/// With no linking edge to split on, the first step's one row holds all of C(u0): here 10,000
/// candidates, 80,016 bytes of buffer and table for a 1KiB limit, while every vertex has
/// degree 1 (documented floor: 1 * 3 * 4 = 12 bytes).
#[test]
fn memory_limit_holds_for_the_first_steps_candidate_list() {
    let dir = TestDir::new();
    let mut data = Spec::new(false, vec![0; 10_000]);
    data.edges = (0..5_000).map(|i| (2 * i, 2 * i + 1, 0)).collect();
    dir.write_spec("edges.graph", &data);
    dir.write_spec("edge.graph", &path(false, 2, 0));
    let run = dir
        .match_files(
            "edges.graph",
            &["edge.graph"],
            &["--json", "--memory-limit", "1KiB"],
        )
        .ok();
    let q = &run.json().queries[0];
    assert_eq!(q.matches, 10_000);
    assert!(
        q.peak_join_bytes <= 1024,
        "peak_join_bytes {} for --memory-limit 1KiB",
        q.peak_join_bytes
    );
}

// ---------------------------------------------------------------------------------------------
// Flags.

#[test]
fn bad_flag_values_exit_2_naming_the_flag() {
    let dir = TestDir::new();
    dir.write("g.graph", TRIANGLE);
    let cases: &[(&[&str], &str)] = &[
        (&["--timeout=-1"], "--timeout"),
        (&["--timeout", "0"], "--timeout"),
        (&["--timeout", "soon"], "--timeout"),
        (&["--timeout", "inf"], "--timeout"),
        (&["--timeout", "NaN"], "--timeout"),
        (&["--memory-limit", "lots"], "--memory-limit"),
        (&["--memory-limit", "10"], "--memory-limit"),
        (&["--threads", "0"], "--threads"),
        (&["--threads", "many"], "--threads"),
        (&["--limit", "0"], "--limit"),
        (&["--partition", "3/3"], "--partition"),
        (&["--partition", "1/0"], "--partition"),
        (&["--partition", "2"], "--partition"),
        (&["--partition", "a/b"], "--partition"),
        (&["--partition=-1/3"], "--partition"),
        (&["--engine", "warp"], "--engine"),
        (&["--format", "xml"], "--format"),
        (&["--device", "x"], "--device"),
        (&["--devices", "x"], "--devices"),
        (&["--devices", "0,,1"], "--devices"),
        (&["--devices", "0"], "--devices"),
        (&["--devices", "0,1", "--device", "1"], "--devices"),
        (&["--bogus"], "--bogus"),
    ];
    for (extra, flag) in cases {
        let run = dir.match_files("g.graph", &["g.graph"], extra);
        assert_eq!(run.code, Some(2), "{extra:?}: {run:#?}");
        run.no_panic();
        assert!(run.stderr.contains(flag), "{extra:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{extra:?}: {}", run.stdout);
    }
    // Missing required flags.
    for args in [
        &["match"][..],
        &["match", "--data", "g.graph"],
        &["match", "--query", "g.graph"],
    ] {
        let run = dir.gsi(args);
        assert_eq!(run.code, Some(2), "{args:?}");
        run.no_panic();
    }
    let run = dir.gsi(["frobnicate"]);
    assert_eq!(run.code, Some(2));
}

/// A negative value after a flag (`--timeout -1`) is taken by the argument parser for an
/// unknown flag `-1`: the message, `unexpected argument '-1' found`, never names the flag.
#[test]
fn negative_flag_values_name_their_flag() {
    let dir = TestDir::new();
    dir.write("g.graph", TRIANGLE);
    for (flag, value) in [
        ("--timeout", "-1"),
        ("--memory-limit", "-5MiB"),
        ("--limit", "-3"),
    ] {
        let run = dir.match_files("g.graph", &["g.graph"], &[flag, value]);
        assert_eq!(run.code, Some(2), "{run:#?}");
        run.no_panic();
        assert!(run.stderr.contains(flag), "{flag} {value}: {}", run.stderr);
    }
}

#[test]
fn json_lines_follow_the_schema() {
    let dir = TestDir::new();
    let data = clique(false, 7, 0);
    dir.write_spec("data.graph", &data);
    dir.write_spec("q_1.graph", &path(false, 3, 0));
    dir.write_spec("q_2.graph", &clique(false, 4, 0));
    dir.write("q_3.graph", "t 1 0\nv 0 0 5\n");
    for explain in [false, true] {
        let mut extra = vec!["--json"];
        if explain {
            extra.push("--explain");
        }
        let run = dir.match_files(
            "data.graph",
            &["q_1.graph", "q_2.graph", "q_3.graph"],
            &extra,
        );
        assert_eq!(run.code, Some(2), "{run:#?}");
        // Errors go into the JSON, not onto stderr.
        let out = run.json();
        assert_eq!(out.queries.len(), 3);
        let [p3, k4, bad] = &out.queries[..] else {
            unreachable!()
        };
        assert_eq!(p3.matches, 7 * 6 * 5);
        assert_eq!(k4.matches, 7 * 6 * 5 * 4);
        for q in [p3, k4] {
            assert_eq!(q.status, "ok");
            assert_eq!(q.engine.as_deref(), Some("cpu"));
            assert!(q.error.is_none());
            assert_eq!(q.plan.is_some(), explain, "{}", q.query);
            assert!(q.elapsed_ms >= 0.0 && q.elapsed_ms.is_finite());
            assert!(
                q.estimated_rows >= 0.0 && q.estimated_rows.is_finite(),
                "{q:?}"
            );
            let phases = &q.phases_ms;
            for t in [phases.filter, phases.plan, phases.join, phases.output] {
                assert!(t >= 0.0 && t <= q.elapsed_ms + 1.0, "{q:?}");
            }
            assert!(q.candidates.iter().all(|&c| c == 7), "{:?}", q.candidates);
        }
        assert_eq!(p3.candidates.len(), 3);
        assert_eq!(k4.candidates.len(), 4);
        assert_eq!(bad.status, "error");
        assert!(bad.error.as_deref().unwrap_or("").contains("q_3.graph"));
        assert!(bad.plan.is_none());
        let s = &out.summary;
        assert_eq!((s.vertices, s.edges), (7, 21));
        assert_eq!(
            (s.queries, s.ok, s.errors, s.timeouts, s.limits),
            (3, 2, 1, 0, 0)
        );
        assert_eq!(s.matches, p3.matches + k4.matches);
        assert!(s.data.ends_with("data.graph"));
        for t in [
            s.load_ms,
            s.index_ms,
            s.upload_ms.unwrap_or(0.0),
            s.queries_ms,
            s.median_ms,
        ] {
            assert!(t >= 0.0 && t.is_finite());
        }
        // The CPU engine readies nothing on a device, nor spreads a query over devices; an
        // error makes the total partial.
        assert_eq!((s.upload_ms, s.upload_bytes), (None, None));
        assert!(out.queries.iter().all(|q| q.spread.is_none()));
        assert!(!s.complete);
        assert!(p3.complete && k4.complete && !bad.complete);
    }
}

#[test]
fn text_output_has_a_row_per_query_and_a_summary() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 5, 0));
    dir.write_spec("q.graph", &path(false, 3, 0));
    let run = dir
        .match_files("data.graph", &["q.graph"], &["--explain"])
        .ok();
    let row = run
        .stdout
        .lines()
        .find(|l| l.ends_with("q.graph") && l.contains(" ok "))
        .unwrap_or_else(|| panic!("no result row: {}", run.stdout));
    assert_eq!(row.split_whitespace().next(), Some("60"), "{row}");
    for (key, value) in [
        ("queries", "1"),
        ("matches", "60"),
        ("ok", "1"),
        ("errors", "0"),
    ] {
        assert_eq!(run.value(key).as_deref(), Some(value), "{}", run.stdout);
    }
}

#[test]
fn explain_says_how_the_order_was_chosen() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 6, 0));
    dir.write_spec("q.graph", &path(false, 4, 0));
    // A light query keeps Algorithm 2's order and says why.
    let light = dir
        .match_files("data.graph", &["q.graph"], &["--explain"])
        .ok();
    assert!(
        light.stdout.contains("  order: paper ("),
        "{}",
        light.stdout
    );
    // Every query treated as heavy: three orders sampled, the least work run; same count
    // (6·5·4·3 = 360 paths of four vertices in K6).
    let heavy = dir
        .match_files(
            "data.graph",
            &["q.graph"],
            &["--explain", "--heavy-work", "0"],
        )
        .ok();
    assert!(
        heavy.stdout.contains("least work sampled: paper "),
        "{}",
        heavy.stdout
    );
    for run in [&light, &heavy] {
        assert_eq!(
            run.value("matches").as_deref(),
            Some("360"),
            "{}",
            run.stdout
        );
    }
    // A graph whose candidates' lists are long enough (400,000 edges, 3 · 800,000 entries
    // for a path of three) for the rule to weigh: planning judged never to pay keeps
    // Algorithm 2's order unsampled, judged to pay from any work samples it; each counts the
    // paths the degrees count.
    dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "50000",
        "--edges",
        "400000",
        "--shape",
        "scale-free",
        "--seed",
        "1",
        "--quiet",
        "-o",
        "big.graph",
    ])
    .ok();
    let path3 = |pays_from: &str| {
        let flag = format!("--planning-pays-from={pays_from}");
        dir.match_files(
            "big.graph",
            &["q3.graph"],
            &["--explain", "--engine", "cpu", &flag],
        )
        .ok()
    };
    dir.write_spec("q3.graph", &path(false, 3, 0));
    let never = path3("1e12");
    let always = path3("0");
    assert!(
        never
            .stdout
            .contains("(light, or costlier to refine than to join)"),
        "{}",
        never.stdout
    );
    assert!(
        always.stdout.contains("least work sampled: paper "),
        "{}",
        always.stdout
    );
    // Paths of three: each middle vertex's ordered pairs of neighbours.
    let mut degree = vec![0u128; 50_000];
    for line in dir.read("big.graph").lines() {
        if let ["e", a, b, _] = line.split_whitespace().collect::<Vec<_>>()[..] {
            for end in [a, b] {
                degree[end.parse::<usize>().expect("a vertex id")] += 1;
            }
        }
    }
    let paths: u128 = degree.iter().map(|&d| d * d.saturating_sub(1)).sum();
    for run in [&never, &always] {
        assert_eq!(run.value("matches"), Some(paths.to_string()));
    }
    for bad in ["-1", "NaN", "inf", "many"] {
        let flag = format!("--planning-pays-from={bad}");
        let refused = dir.match_files("data.graph", &["q.graph"], &[&flag]);
        refused.no_panic();
        assert_eq!(refused.code, Some(2), "{bad}: {refused:#?}");
        assert!(
            refused.stderr.contains("--planning-pays-from"),
            "{bad}: {}",
            refused.stderr
        );
    }
}

#[test]
fn explain_says_which_path_each_step_took_and_the_symmetry_broken() {
    let dir = TestDir::new();
    dir.write_spec("data.graph", &clique(false, 6, 0));
    dir.write_spec("q.graph", &path(false, 4, 0));
    let explain = |extra: &[&str]| {
        let mut args = vec!["--explain", "--no-leaf-products", "--no-tree-counts"];
        args.extend_from_slice(extra);
        let run = dir.match_files("data.graph", &["q.graph"], &args).ok();
        // 6·5·4·3 = 360 paths of four vertices in K6, whatever the path.
        assert_eq!(
            run.value("matches").as_deref(),
            Some("360"),
            "{}",
            run.stdout
        );
        run.stdout
    };
    let breadth = explain(&["--depth-first-rows", "never"]);
    assert!(breadth.contains("joined breadth-first"), "{breadth}");
    assert!(breadth.contains("counted at the last step"), "{breadth}");
    let depth = explain(&["--depth-first-rows", "0"]);
    assert!(depth.contains("counted depth-first"), "{depth}");
    // The path's two inner vertices swap: one match in two is found, and the count doubled.
    assert!(
        depth.contains("symmetry: 2 automorphisms broken"),
        "{depth}"
    );
    let plain = explain(&["--no-symmetry"]);
    assert!(!plain.contains("symmetry:"), "{plain}");
}

/// Queries whose counts we know by formula, as a sanity check of the formulas the other tests
/// rely on.
#[test]
fn clique_counts_follow_the_formulas() {
    let k6: Graph = clique(false, 6, 0).graph();
    assert_eq!(
        brute::count(&path(false, 3, 0).graph(), &k6, false),
        6 * 5 * 4
    );
    assert_eq!(
        brute::count(&clique(false, 3, 0).graph(), &k6, false),
        6 * 5 * 4
    );
    let distinct: BTreeSet<Vec<VertexId>> =
        brute::matches(&clique(false, 3, 0).graph(), &k6, false)
            .into_iter()
            .collect();
    assert_eq!(distinct.len(), 120);
}

#[test]
fn the_largest_labels_match_like_any_other() {
    let dir = TestDir::new();
    let big = u32::MAX - 1;
    let data = Spec::new(false, vec![big, big, 0, big])
        .edge(0, 1, u32::MAX)
        .edge(1, 2, u32::MAX)
        .edge(2, 3, 0)
        .edge(1, 3, u32::MAX);
    let query = Spec::new(false, vec![big, big]).edge(0, 1, u32::MAX);
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &query);
    let expected = brute::count(&query.graph(), &data.graph(), false);
    assert_eq!(expected, 4);
    let run = dir
        .match_files("data.graph", &["query.graph"], &["--json"])
        .ok();
    assert_eq!(run.json().queries[0].matches, expected);
}

#[test]
fn completions_and_the_manual_page_come_from_the_flags() {
    let dir = TestDir::new();
    let bash = dir.gsi(["completions", "bash"]).ok();
    assert!(bash.stdout.contains("_gsi()") && bash.stdout.contains("--memory-limit"));
    let fish = dir.gsi(["completions", "fish"]).ok();
    assert!(fish.stdout.contains("complete -c gsi"), "{}", fish.stdout);
    let man = dir.gsi(["man"]).ok();
    assert!(man.stdout.contains(".TH gsi 1") && man.stdout.contains("match"));
    let bad = dir.gsi(["completions", "cmd.exe"]);
    assert_eq!(bad.code, Some(2));
}

/// `--semantics induced` counts the matches that add no edge, as the brute force does;
/// `--semantics homomorphism` equals `--homomorphism`, and the two together are refused.
#[test]
fn semantics_option_counts_induced_matches() {
    let dir = TestDir::new();
    let mut data = clique(false, 5, 0);
    data.edges.truncate(7);
    let query = path(false, 3, 0);
    let (q, d) = (query.graph(), data.graph());
    let induced = brute::induced_matches(&q, &d).len() as u128;
    assert_ne!(induced, brute::count(&q, &d, false));
    dir.write_spec("data.graph", &data);
    dir.write_spec("query.graph", &query);
    let run = |args: &[&str]| {
        let mut all = vec!["--json", "--engine", "cpu"];
        all.extend_from_slice(args);
        dir.match_files("data.graph", &["query.graph"], &all)
    };
    assert_eq!(
        run(&["--semantics", "induced"]).ok().json().queries[0].matches,
        induced
    );
    assert_eq!(
        run(&["--semantics", "homomorphism"]).ok().json().queries[0].matches,
        brute::count(&q, &d, true)
    );
    let both = run(&["--semantics", "induced", "--homomorphism"]);
    assert_eq!(both.code, Some(2), "{both:#?}");
}

/// `--semantics edge-isomorphism` counts what the brute force counts from the definition,
/// lists data edges `a-b`, and refuses what has no line graph with a message.
#[test]
fn semantics_option_matches_edge_isomorphisms() {
    let dir = TestDir::new();
    // A triangle 0-1-2 with a tail 1-3, and a claw at 4 (4-5, 4-6, 4-7).
    let data = Spec::new(false, vec![0; 8])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(0, 2, 0)
        .edge(1, 3, 0)
        .edge(4, 5, 0)
        .edge(4, 6, 0)
        .edge(4, 7, 0);
    let triangle = Spec::new(false, vec![0; 3])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(0, 2, 0);
    let expected = brute::edge_isomorphism_count(&triangle.graph(), &data.graph());
    // The triangle's 6 maps onto itself, 6 onto the claw at 4, and 6 onto the star at 1.
    assert_eq!(expected, 18);
    dir.write_spec("data.graph", &data);
    dir.write_spec("triangle.graph", &triangle);
    let listed = dir
        .match_files(
            "data.graph",
            &["triangle.graph"],
            &[
                "--engine",
                "cpu",
                "--semantics",
                "edge-isomorphism",
                "--output",
                "-",
            ],
        )
        .ok();
    let rows: Vec<&str> = listed
        .stdout
        .lines()
        .filter(|l| l.contains('-') && !l.starts_with('#'))
        .collect();
    assert_eq!(rows.len() as u128, expected, "{}", listed.stdout);
    assert!(rows.contains(&"0-1 1-2 0-2"), "{}", listed.stdout);
    assert!(rows.contains(&"4-5 4-6 4-7"), "{}", listed.stdout);
    // A query vertex without an edge has no place in a line graph.
    dir.write_spec(
        "isolated.graph",
        &Spec::new(false, vec![0; 3]).edge(0, 1, 0),
    );
    let run = dir.match_files(
        "data.graph",
        &["isolated.graph"],
        &["--engine", "cpu", "--semantics", "edge-isomorphism"],
    );
    assert_ne!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("vertex 2 has no edge"), "{run:#?}");
    // Nor has a directed graph.
    let run = dir.match_files(
        "data.graph",
        &["triangle.graph"],
        &[
            "--engine",
            "cpu",
            "--directed",
            "--semantics",
            "edge-isomorphism",
        ],
    );
    assert_ne!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("undirected"), "{run:#?}");
}

// ---------------------------------------------------------------------------------------------
// The GPU libraries.

/// A folder holding a libcuda.so and a libnvrtc.so without any function, built with `cc`:
/// on `LD_LIBRARY_PATH`, no GPU is usable, whatever the machine has. `None` without `cc`.
fn cuda_libraries_without_functions(dir: &TestDir) -> Option<std::path::PathBuf> {
    let empty = dir.write("empty.c", "");
    let libs = dir.path("libs");
    std::fs::create_dir(&libs).unwrap();
    for library in ["libcuda.so", "libnvrtc.so"] {
        let built = std::process::Command::new("cc")
            .arg("-shared")
            .arg("-o")
            .arg(libs.join(library))
            .arg(&empty)
            .status();
        if !built.is_ok_and(|s| s.success()) {
            return None;
        }
    }
    Some(libs)
}

/// A libcuda and a libnvrtc that load but lack every function: `auto` (in `match`, `bench`,
/// `verify` and the demo) says why it uses the CPU and answers; `--engine gpu` is an error.
/// Neither panics.
#[test]
fn cuda_libraries_that_lack_their_functions_mean_no_gpu_not_a_panic() {
    let dir = TestDir::new();
    let Some(libs) = cuda_libraries_without_functions(&dir) else {
        eprintln!("skipped: no C compiler (cc) to build an empty shared library");
        return;
    };
    let env = [("LD_LIBRARY_PATH", libs.as_os_str())];
    dir.write_spec("k4.graph", &clique(false, 4, 0));
    dir.write("triangle.graph", TRIANGLE);
    let reason = "lacks the function cuInit";

    let auto = dir
        .gsi_env(
            &env,
            [
                "match",
                "--engine",
                "auto",
                "--json",
                "--data",
                "k4.graph",
                "--query",
                "triangle.graph",
            ],
        )
        .ok();
    assert_eq!(auto.json().queries[0].matches, 24, "{auto:#?}");
    assert!(auto.stderr.contains(reason), "{auto:#?}");
    for args in [
        &["demo"][..],
        &["verify", "--generated", "1"],
        &["bench", "--data", "k4.graph", "--query", "triangle.graph"],
    ] {
        let run = dir.gsi_env(&env, args);
        run.no_panic();
        assert!(run.stderr.contains(reason), "{args:?}: {run:#?}");
    }

    let gpu = dir.gsi_env(
        &env,
        [
            "match",
            "--engine",
            "gpu",
            "--data",
            "k4.graph",
            "--query",
            "triangle.graph",
        ],
    );
    gpu.no_panic();
    assert_ne!(gpu.code, Some(0), "{gpu:#?}");
    assert!(gpu.stderr.contains(reason), "{gpu:#?}");
}

// ---------------------------------------------------------------------------------------------
// Query folders and inputs without an end.

/// In a query folder, a FIFO (which would block), a link to `/dev/zero` (which never ends),
/// a dangling link and a subfolder are passed over, each named with its reason; /dev/zero given
/// as the query is refused as binary, and standard input is read only up to the memory
/// budget, the error naming both.
#[test]
fn query_folders_take_regular_files_and_inputs_stop_at_the_memory_budget() {
    let dir = TestDir::new();
    dir.write_spec("k4.graph", &clique(false, 4, 0));
    dir.write("q/triangle.graph", TRIANGLE);
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path("q/fifo.graph"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    std::os::unix::fs::symlink("/dev/zero", dir.path("q/zero.graph")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path("q/gone.graph")).unwrap();
    std::fs::create_dir(dir.path("q/sub")).unwrap();
    let run = dir.match_files("k4.graph", &["q"], &["--json"]).ok();
    let json = run.json();
    assert_eq!(json.queries.len(), 1, "{run:#?}");
    assert_eq!(json.queries[0].matches, 24, "{run:#?}");
    for said in [
        "fifo.graph (not a regular file)",
        "zero.graph (not a regular file)",
        "gone.graph (a dangling link)",
        "sub (a folder)",
    ] {
        assert!(run.stderr.contains(said), "{said}: {run:#?}");
    }

    // Given as the query, /dev/zero is refused within its first kilobytes.
    let run = dir.match_files("k4.graph", &["/dev/zero"], &[]);
    run.no_panic();
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(run.stderr.contains("/dev/zero: not text"), "{run:#?}");
    // Text on standard input is read up to the memory budget.
    let comments = dir.write("comments.txt", "# a comment\n".repeat(200_000));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args(["match", "--engine", "cpu", "--memory-limit", "1MiB"])
        .args(["--data", "k4.graph", "--query", "-"])
        .current_dir(dir.path(""))
        .stdin(std::fs::File::open(comments).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("-: more than 1048576 bytes to hold in memory (--memory-limit 1MiB)"),
        "{stderr}"
    );
}

/// Bytes no text file holds, the same on every run.
fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Compressed input is inflated as it is read: past the memory budget it stops, with a
/// message naming the file and the bound; binary data (inflated, or through standard input)
/// is refused within its first kilobytes; bytes after the gzip stream are named as such.
#[test]
fn compressed_and_piped_input_is_checked_as_it_is_read() {
    let dir = TestDir::new();
    dir.write_spec("k4.graph", &clique(false, 4, 0));
    // 64 MiB of blank lines in 64 KiB.
    dir.write("blank.graph.gz", gzip(&vec![b'\n'; 64 << 20]));
    let run = dir.match_files("k4.graph", &["blank.graph.gz"], &["--memory-limit", "1MiB"]);
    run.no_panic();
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr.contains(
            "blank.graph.gz: more than 1048576 bytes to hold in memory (--memory-limit 1MiB)"
        ),
        "{run:#?}"
    );

    let binary = "not text (a NUL byte or invalid UTF-8 in its first 8 KiB)";
    dir.write("noise.gz", gzip(&noise(4 << 20)));
    let run = dir.gsi(["info", "noise.gz"]);
    run.no_panic();
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(run.stderr.contains(binary), "{run:#?}");
    let noise_file = dir.write("noise.bin", noise(4 << 20));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args(["info", "-"])
        .stdin(std::fs::File::open(noise_file).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(binary), "{stderr}");

    let mut trailing = gzip(TRIANGLE.as_bytes());
    trailing.extend_from_slice(b"garbage\n");
    dir.write("trailing.gz", trailing);
    let run = dir.gsi(["info", "trailing.gz"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr.contains(
            "the gzip data does not decompress: trailing data after the compressed stream"
        ),
        "{run:#?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Queries that cannot fit.

/// A query with more vertices of a label than the data graph has cannot match injectively:
/// the answer is 0 at once, with a note, where the search would run to its timeout; under
/// homomorphism it matches as before. Counts against the brute force, or by pigeonhole.
#[test]
fn a_query_with_more_vertices_of_a_label_than_the_data_answers_0_at_once() {
    let dir = TestDir::new();
    let data = Spec::new(false, vec![0, 0, 0, 1, 1])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 0);
    dir.write_spec("data.graph", &data);
    let small = Spec::new(false, vec![0; 4]).edge(0, 1, 0);
    dir.write_spec("small.graph", &small);
    for (semantics, homomorphism) in [("isomorphism", false), ("homomorphism", true)] {
        let run = dir
            .match_files(
                "data.graph",
                &["small.graph"],
                &["--json", "--semantics", semantics],
            )
            .ok();
        let expected = brute::count(&small.graph(), &data.graph(), homomorphism);
        assert_eq!(run.json().queries[0].matches, expected, "{semantics}");
        let note = run
            .stderr
            .contains("4 vertices of label 0 and the data graph 3");
        assert_eq!(note, !homomorphism, "{semantics}: {run:#?}");
    }
    // 40 isolated vertices of label 0 over 39: no injective match, but every partial one of
    // up to 39 vertices would be tried.
    let mut labels = vec![0; 39];
    labels.push(1);
    dir.write_spec("wide.graph", &Spec::new(false, labels));
    dir.write_spec("forty.graph", &Spec::new(false, vec![0; 40]));
    let run = dir
        .match_files(
            "wide.graph",
            &["forty.graph"],
            &["--json", "--timeout", "60"],
        )
        .ok();
    let query = &run.json().queries[0];
    assert_eq!((query.matches, query.complete), (0, true), "{run:#?}");
    assert!(
        run.stderr
            .contains("the query has 40 vertices of label 0 and the data graph 39: no match"),
        "{run:#?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Partitions.

/// A share count with a large prime factor is planned as fast as any other: each of these
/// finishes well inside its timeout (the grid of 2^31 - 1 shares once took 20 s).
#[test]
fn large_share_counts_plan_at_once_whatever_their_factors() {
    let dir = TestDir::new();
    dir.write_spec("k5.graph", &clique(false, 5, 0));
    dir.write("triangle.graph", TRIANGLE);
    for count in ["2147483647", "2147483648", "4294967295"] {
        for index in ["0", "1"] {
            let partition = format!("{index}/{count}");
            let run = dir
                .match_files(
                    "k5.graph",
                    &["triangle.graph"],
                    &["--json", "--timeout", "5", "--partition", &partition],
                )
                .ok();
            let query = &run.json().queries[0];
            assert_eq!(query.status, "ok", "{partition}: {run:#?}");
            // Milliseconds, against seconds per grid before: a margin no machine's load eats.
            assert!(run.wall.as_secs() < 5, "{partition}: {run:#?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Messages that say what is wrong.

/// Each of these once had a message that misled: it now names the problem.
#[test]
fn unclear_messages_name_the_problem() {
    let dir = TestDir::new();
    dir.write_spec("k4.graph", &clique(false, 4, 0));
    dir.write("triangle.graph", TRIANGLE);
    let refused = |run: Run, says: &str| {
        run.no_panic();
        assert_eq!(run.code, Some(2), "{says}: {run:#?}");
        assert!(run.stderr.contains(says), "{says}: {run:#?}");
    };
    // A saved index given as a query.
    dir.gsi(["index", "k4.graph", "-o", "k4.gsidx"]).ok();
    refused(
        dir.match_files("k4.graph", &["k4.gsidx"], &[]),
        "a saved index (made by gsi index), which holds a data graph and cannot be a query",
    );
    // CR line endings.
    dir.write("cr.graph", TRIANGLE.replace('\n', "\r"));
    refused(
        dir.gsi(["info", "cr.graph"]),
        "cr.graph:1: the lines end in a carriage return alone (CR line endings)",
    );
    // Comments only.
    dir.write("comments.graph", "# a graph\n# to come\n");
    refused(
        dir.gsi(["info", "comments.graph"]),
        "the file holds only comments and blank lines",
    );
    // A Sun–Luo file read as SNAP.
    refused(
        dir.gsi(["info", "--format", "snap", "triangle.graph"]),
        "(the file looks like sunluo: --format auto reads it)",
    );
    // Standard input twice.
    refused(
        dir.gsi(["match", "--data", "-", "--query", "-"]),
        "standard input can be read only once",
    );
    // Environment variables out of range.
    for (name, value, says) in [
        (
            "GSI_AUTO_GPU_ROWS",
            "nan",
            "GSI_AUTO_GPU_ROWS=nan: expected a number of rows",
        ),
        (
            "GSI_GPU_PCSR_LIMIT",
            "-5",
            "GSI_GPU_PCSR_LIMIT=-5: expected a number of bytes",
        ),
        (
            "GSI_GPU_BUFFER_CACHE",
            "maybe",
            "GSI_GPU_BUFFER_CACHE=maybe: expected on or off",
        ),
    ] {
        let run = dir.gsi_env(
            &[(name, std::ffi::OsStr::new(value))],
            ["match", "--data", "k4.graph", "--query", "triangle.graph"],
        );
        refused(run, says);
    }
    // Swapped --data and --query: the hint first, the missing labels few.
    let labels: Vec<u32> = (0..20).collect();
    dir.write_spec("many.graph", &Spec::new(false, labels));
    let run = dir.match_files("triangle.graph", &["many.graph"], &[]).ok();
    let hints: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("many.graph:"))
        .collect();
    assert!(
        hints[0].contains("were --data and --query swapped?"),
        "{run:#?}"
    );
    assert!(
        hints[1].ends_with("vertex label 5 and 14 more: no match"),
        "{run:#?}"
    );
    // --devices without a GPU: `auto` runs on the CPU and says why, `gpu` refuses.
    let Some(libs) = cuda_libraries_without_functions(&dir) else {
        eprintln!("skipped: no C compiler (cc) to build an empty shared library");
        return;
    };
    let env = [("LD_LIBRARY_PATH", libs.as_os_str())];
    for devices in ["all", "99"] {
        let args = |engine| {
            [
                "match",
                "--engine",
                engine,
                "--devices",
                devices,
                "--data",
                "k4.graph",
                "--query",
                "triangle.graph",
            ]
        };
        let auto = dir.gsi_env(&env, args("auto")).ok();
        assert!(auto.stderr.contains("using the CPU engine"), "{auto:#?}");
        let gpu = dir.gsi_env(&env, args("gpu"));
        gpu.no_panic();
        assert_ne!(gpu.code, Some(0), "{gpu:#?}");
        assert!(gpu.stderr.contains("lacks the function cuInit"), "{gpu:#?}");
    }
}

/// `--explain` says which of the query's own vertices each `uI` of the plan is, where the
/// query file names them (issue 31); a Sun–Luo query, whose vertices are numbers, gets no
/// such line.
#[test]
fn issue_31_explain_names_the_querys_own_vertices() {
    let dir = TestDir::new();
    dir.write(
        "people.txt",
        "alice bob\nbob carol\ncarol alice\ncarol dave\n",
    );
    dir.write("q.txt", "x y\ny z\n");
    let run = dir.match_files("people.txt", &["q.txt"], &["--format", "snap", "--explain"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stdout
            .contains("  query vertices: u0 = x, u1 = y, u2 = z\n"),
        "{}",
        run.stdout
    );
    dir.write_spec("k.graph", &clique(false, 4, 0));
    dir.write_spec("p.graph", &path(false, 3, 0));
    let run = dir.match_files("k.graph", &["p.graph"], &["--explain"]);
    assert!(!run.stdout.contains("query vertices"), "{}", run.stdout);
}

/// A Sun–Luo query may name its labels where the data graph has names for them (issue 31):
/// SNAP data with a label file of names, a query `v 0 person 1`; against data whose labels
/// are numbers, the names are an error that says so.
#[test]
fn issue_31_sunluo_queries_may_name_the_datas_labels() {
    let dir = TestDir::new();
    dir.write(
        "people.txt",
        "alice bob\nbob carol\ncarol alice\ncarol dave\n",
    );
    dir.write(
        "kinds.txt",
        "alice person\nbob person\ncarol person\ndave robot\n",
    );
    dir.write("q.graph", "t 2 1\nv 0 person 1\nv 1 robot 1\ne 0 1\n");
    // The one person next to a robot: carol, with dave.
    let run = dir.match_files(
        "people.txt",
        &["q.graph"],
        &["--vertex-labels", "kinds.txt", "--output", "-"],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(output_rows_named(&run.stdout), [["carol", "dave"]]);
    // Two people next to each other: the three edges among alice, bob and carol, both ways.
    dir.write("pp.graph", "t 2 1\nv 0 person 1\nv 1 person 1\ne 0 1\n");
    let run = dir.match_files(
        "people.txt",
        &["pp.graph"],
        &["--vertex-labels", "kinds.txt", "--json"],
    );
    assert_eq!(run.json().queries[0].matches, 6);
    dir.write_spec("k.graph", &clique(false, 3, 0));
    let run = dir.match_files("k.graph", &["q.graph"], &["--json"]);
    let error = run.json().queries[0].error.clone().unwrap_or_default();
    assert!(error.contains("names its vertex labels"), "{error}");
}

/// Rows of `--output -` whose vertices are names.
fn output_rows_named(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split(' ').collect())
        .collect()
}
