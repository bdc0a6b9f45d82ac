//! Regressions: each test is named after the defect it pins down, with the issue it came from.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::brute;
use crate::util::{Run, Spec, TestDir};

// ---------------------------------------------------------------------------------------------
// Issue 11: N-Triples queries were matched with their own dictionaries, so a query's predicate
// number 0 was compared with the data's predicate number 0, whatever their names.

/// Writes `spec` as N-Triples: vertex `v` is `<{prefix}{v}>`, edge label `l` is predicate
/// `<p{l}>`, vertex label `c > 0` is `rdf:type <C{c}>`. Triples go in the order given by
/// `order` (indexes into the edges), so that the file's own first-appearance numbering differs
/// from the test's.
fn ntriples(spec: &Spec, prefix: &str, order: &[usize]) -> String {
    let mut text = String::new();
    for (v, &c) in spec.labels.iter().enumerate().rev() {
        if c > 0 {
            text += &format!(
                "<{prefix}{v}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <C{c}> .\n"
            );
        }
    }
    for &i in order {
        let (s, t, l) = spec.edges[i];
        text += &format!("<{prefix}{s}> <p{l}> <{prefix}{t}> .\n");
    }
    text
}

#[test]
fn issue_11_ntriples_queries_use_the_data_graphs_predicates() {
    let dir = TestDir::new();
    dir.write("d2.nt", "<a> <knows> <b> .\n<b> <worksAt> <c> .\n");
    dir.write("likes.nt", "<x> <likes> <y> .\n");
    dir.write("works.nt", "<x> <worksAt> <y> .\n");
    let run = dir
        .match_files(
            "d2.nt",
            &["likes.nt", "works.nt"],
            &["--json", "--output", "m.txt"],
        )
        .ok();
    let out = run.json();
    assert_eq!(out.queries[0].matches, 0, "no data triple uses <likes>");
    assert_eq!(out.queries[1].matches, 1);
    assert!(
        run.stderr.contains("has no edge label <likes>"),
        "the unknown predicate is named: {}",
        run.stderr
    );
    let rows: Vec<String> = dir
        .read("m.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert_eq!(rows, ["<b> <c>"]);
}

#[test]
fn issue_11_ntriples_queries_use_the_data_graphs_classes() {
    let dir = TestDir::new();
    let type_of = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    dir.write(
        "d.nt",
        format!(
            "<a> {type_of} <Person> .\n<b> {type_of} <Org> .\n<a> <at> <b> .\n<b> <at> <a> .\n"
        ),
    );
    // In the query's own file <Org> is class 1, in the data's it is class 2.
    dir.write(
        "q.nt",
        format!("<x> {type_of} <Org> .\n<x> <at> <y> .\n<y> {type_of} <Person> .\n"),
    );
    dir.write(
        "unknown.nt",
        format!("<x> {type_of} <Robot> .\n<x> <at> <y> .\n"),
    );
    let run = dir
        .match_files("d.nt", &["q.nt", "unknown.nt"], &["--json"])
        .ok();
    let out = run.json();
    assert_eq!(
        out.queries[0].matches, 1,
        "only b -> a goes from an Org to a Person"
    );
    assert_eq!(out.queries[1].matches, 0);
    assert!(
        run.stderr.contains("vertex label <Robot>"),
        "{}",
        run.stderr
    );
}

#[test]
fn issue_11_an_ntriples_query_on_numbered_data_is_an_error_for_that_query() {
    let dir = TestDir::new();
    dir.write("d.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    dir.write("q.nt", "<x> <p> <y> .\n");
    dir.write("q.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    let run = dir.match_files("d.graph", &["q.nt", "q.graph"], &["--json", "--directed"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    let out = run.json();
    assert_eq!(out.queries[0].status, "error");
    let error = out.queries[0].error.as_deref().unwrap_or_default();
    assert!(error.contains("names its"), "{error}");
    assert_eq!(out.queries[1].matches, 1, "the other query still runs");
}

/// Vertex labels, edges and a seed for the order of the triples.
type RandomGraph = (Vec<u32>, Vec<(u32, u32, u32)>, u64);

/// Random edge-labelled directed graphs written as N-Triples with shuffled triples: gsi's
/// count equals the brute force on the graphs as the test numbered them, untyped query
/// vertices matching any data vertex (issue 31).
#[test]
fn issue_11_ntriples_counts_equal_the_brute_force_whatever_the_triple_order() {
    let graph = |max_n: usize, max_m: usize| {
        (2..=max_n).prop_flat_map(move |n| {
            let labels = proptest::collection::vec(0u32..3, n);
            let edges = proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..4), 1..=max_m);
            (labels, edges, any::<u64>())
        })
    };
    let mut runner = TestRunner::new(Config {
        cases: 12,
        ..Config::default()
    });
    runner
        .run(&(graph(9, 24), graph(4, 4)), |(data, query)| {
            let spec = |(labels, edges, _): &RandomGraph| {
                let mut spec = Spec::new(true, labels.clone());
                for &(s, t, l) in edges {
                    if s != t && !spec.edges.iter().any(|&(a, b, c)| (a, b, c) == (s, t, l)) {
                        spec = spec.edge(s, t, l);
                    }
                }
                spec
            };
            let (data_spec, query_spec) = (spec(&data), spec(&query));
            // A file without triples is no graph at all.
            prop_assume!(!data_spec.edges.is_empty() && !query_spec.edges.is_empty());
            let shuffled = |spec: &Spec, seed: u64| {
                let mut order: Vec<usize> = (0..spec.edges.len()).collect();
                order.sort_by_key(|&i| (i as u64 + 1).wrapping_mul(seed | 1).rotate_left(17));
                order
            };
            let dir = TestDir::new();
            dir.write(
                "d.nt",
                ntriples(&data_spec, "d", &shuffled(&data_spec, data.2)),
            );
            dir.write(
                "q.nt",
                ntriples(&query_spec, "q", &shuffled(&query_spec, query.2)),
            );
            // Vertices without a triple are not in an N-Triples graph: compare on the
            // graphs gsi can see, which hold every vertex that has an edge or a type. Every
            // data vertex is a resource too (label 0): an untyped query vertex matches any.
            let mut data_graph = visible(&data_spec);
            data_graph.more_labels = (0..data_graph.len() as u32).map(|v| (v, 0)).collect();
            let query_graph = visible(&query_spec);
            let expected = brute::count(&query_graph.graph(), &data_graph.graph(), false);
            let run = dir.match_files("d.nt", &["q.nt"], &["--json"]).ok();
            prop_assert_eq!(run.json().queries[0].matches, expected);
            Ok(())
        })
        .unwrap();
}

/// The part of `spec` an N-Triples file shows: vertices with an edge or a type, renumbered.
fn visible(spec: &Spec) -> Spec {
    let seen: Vec<bool> = (0..spec.len() as u32)
        .map(|v| {
            spec.labels[v as usize] > 0 || spec.edges.iter().any(|&(s, t, _)| s == v || t == v)
        })
        .collect();
    let mut number = vec![u32::MAX; spec.len()];
    let mut labels = Vec::new();
    for v in 0..spec.len() {
        if seen[v] {
            number[v] = labels.len() as u32;
            labels.push(spec.labels[v]);
        }
    }
    let mut out = Spec::new(spec.directed, labels);
    for &(s, t, l) in &spec.edges {
        out = out.edge(number[s as usize], number[t as usize], l);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Issue 11: crashes and resource abuse. The inputs of `tests/data/repro` are the reported
// reproducers.

/// A reproducer's path.
fn repro(name: &str) -> String {
    format!("{}/tests/data/repro/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Address space, in KiB, under which the reproducers were found to abort gsi.
const ULIMIT_KIB: u64 = 4_000_000;

/// Runs gsi with `args` under `ulimit -v ULIMIT_KIB`, in `dir`.
fn gsi_under_ulimit(dir: &TestDir, args: &[&str]) -> Run {
    let mut all = vec![
        "-c".to_string(),
        format!("ulimit -v {ULIMIT_KIB} && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_gsi").to_string(),
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    let started = Instant::now();
    let output = Command::new("sh")
        .args(&all)
        .current_dir(dir.path(""))
        .output()
        .expect("run sh");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        wall: started.elapsed(),
        args: all,
    }
}

#[test]
fn issue_11_headers_that_claim_more_than_the_file_holds_are_errors_not_aborts() {
    let dir = TestDir::new();
    for (file, says) in [
        (
            "01_huge_header_abort.graph",
            ":1: 4000000000 vertices and 1 edges are declared",
        ),
        (
            "02_header_2p31_8GB.graph",
            ":1: 2147483648 vertices and 1 edges are declared",
        ),
        (
            "03_gsi_header_2p31.gsi",
            ":9: 2147483648 vertices and 4 edges are declared",
        ),
        (
            "03b_gsi_header_fuzz.gsi",
            ":9: 4 vertices and 18446744073709551615 edges",
        ),
    ] {
        let run = gsi_under_ulimit(&dir, &["info", &repro(file)]);
        assert_eq!(run.code, Some(2), "{file}: {run:#?}");
        assert!(run.stderr.contains(says), "{file}: {}", run.stderr);
        assert!(
            run.wall < Duration::from_secs(5),
            "{file} took {:?}",
            run.wall
        );
    }
}

#[test]
fn issue_11_the_default_memory_budget_respects_ulimit() {
    let dir = TestDir::new();
    let run = gsi_under_ulimit(
        &dir,
        &[
            "match",
            "--engine",
            "cpu",
            "--json",
            "--homomorphism",
            "--timeout",
            "2",
            "--data",
            &repro("15_data.txt"),
            "--query",
            &repro("15_hom_query_abort_under_ulimit.txt"),
        ],
    );
    run.no_panic();
    assert_eq!(run.code, Some(0), "{run:#?}");
    let status = &run.json().queries[0].status;
    assert!(status == "ok" || status == "timeout", "{status}");
}

#[test]
fn issue_11_a_memory_limit_beyond_what_the_process_may_use_is_refused() {
    let dir = TestDir::new();
    dir.write("g.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    let run = dir.match_files("g.graph", &["g.graph"], &["--memory-limit", "100TiB"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr
            .contains("--memory-limit 100TiB: more than this process may use"),
        "{}",
        run.stderr
    );
    let run = dir.match_files("g.graph", &["g.graph"], &["--threads", "100000"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr.contains("--threads 100000: at most"),
        "{}",
        run.stderr
    );
}

#[test]
fn issue_11_ntriples_lines_may_end_in_any_run_of_cr_and_lf() {
    let dir = TestDir::new();
    let run = dir
        .gsi(["info", "--json", &repro("13_nt_crcr_valid_rejected.nt")])
        .ok();
    assert!(run.stdout.contains("\"edges\":1"), "{}", run.stdout);
    dir.write("cr.nt", "<a> <p> <b> .\r<b> <p> <c> .\r\r\n\n<c> <p> <a> .");
    let run = dir.gsi(["info", "--json", "cr.nt"]).ok();
    assert!(run.stdout.contains("\"edges\":3"), "{}", run.stdout);
    // Characters the grammar forbids inside an IRI.
    for bad in [
        "<a b>",
        "<a{b}>",
        "<a\"b>",
        "<a\\b>",
        "<a|b>",
        "<a^b>",
        "<a`b>",
        "<a\u{1}b>",
    ] {
        dir.write("bad.nt", format!("{bad} <p> <c> .\n"));
        let run = dir.gsi(["info", "bad.nt"]);
        assert_eq!(run.code, Some(2), "{bad:?}: {run:#?}");
        assert!(
            run.stderr.contains("bad.nt:1: the iri of the subject"),
            "{}",
            run.stderr
        );
    }
    dir.write("escaped.nt", "<a\\u00E9> <p> <b\\U0001F600> .\n");
    dir.gsi(["info", "escaped.nt"]).ok();
}

#[test]
fn issue_11_error_messages_do_not_pass_terminal_escapes_through() {
    let dir = TestDir::new();
    let run = dir.gsi(["info", &repro("14_escape_in_error.graph")]);
    assert_eq!(run.code, Some(2));
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(run.stderr.contains("\\u{1b}[31mRED"), "{}", run.stderr);
}

#[test]
fn issue_11_a_byte_order_mark_is_skipped() {
    let dir = TestDir::new();
    dir.write("g.graph", "\u{feff}t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    dir.write("g.nt", "\u{feff}<a> <p> <b> .\n");
    dir.write("g.txt", "\u{feff}0 1\n");
    for file in ["g.graph", "g.nt", "g.txt"] {
        let run = dir.gsi(["info", "--json", file]).ok();
        assert!(run.stdout.contains("\"edges\":1"), "{file}: {}", run.stdout);
    }
}

#[test]
fn issue_11_a_reserved_vertex_label_is_refused_so_convert_never_writes_what_gsi_rejects() {
    let dir = TestDir::new();
    dir.write("tri.txt", "1 2\n2 3\n3 1\n");
    dir.write("lab.txt", "1 4294967295\n");
    dir.write("t.graph", "kept\n");
    let run = dir.gsi([
        "convert",
        "tri.txt",
        "--vertex-labels",
        "lab.txt",
        "--to",
        "sunluo",
        "-o",
        "t.graph",
    ]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr
            .contains("lab.txt:1: vertex label 4294967295 is reserved"),
        "{}",
        run.stderr
    );
    assert_eq!(dir.read("t.graph"), "kept\n");
}

#[test]
fn issue_11_a_failed_convert_leaves_the_previous_file_whole() {
    let dir = TestDir::new();
    // Edge label 4294967295 is fine in Sun–Luo but GSI labels are one higher.
    dir.write("g.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 4294967295\n");
    dir.write("out.gsi", "previous\n");
    let run = dir.gsi(["convert", "g.graph", "--to", "gsi", "-o", "out.gsi"]);
    assert_ne!(run.code, Some(0), "{run:#?}");
    assert_eq!(dir.read("out.gsi"), "previous\n");
    let litter: Vec<_> = std::fs::read_dir(dir.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(litter.is_empty(), "{litter:?}");
}

/// A query with very many matches on a complete graph: a 7-vertex path on K60 (60^7-ish
/// rows), so that a run is still busy when the test signals it.
fn busy(dir: &TestDir) {
    dir.write_spec("k.graph", &crate::util::clique(false, 60, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 7, 0));
}

/// Starts `gsi match` on [`busy`] input, sends `signal` after `after`, and waits.
fn signalled(dir: &TestDir, signal: &str, after: Duration, extra: &[&str]) -> Run {
    let mut args = vec!["match", "--data", "k.graph", "--engine", "cpu", "--json"];
    args.extend_from_slice(extra);
    args.extend(["--query", "p.graph", "p.graph"]);
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args(&args)
        .current_dir(dir.path(""))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gsi");
    std::thread::sleep(after);
    let killed = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let output = child.wait_with_output().expect("wait for gsi");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        wall: started.elapsed(),
        args: args.iter().map(|a| a.to_string()).collect(),
    }
}

#[test]
fn issue_11_sigint_and_sigterm_stop_cleanly_with_a_summary_and_a_marked_output() {
    let dir = TestDir::new();
    busy(&dir);
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        dir.write("m.txt", "previous\n");
        let run = signalled(&dir, signal, Duration::from_millis(700), &["-o", "m.txt"]);
        assert_eq!(run.code, Some(code), "{signal}: {run:#?}");
        let out = run.json();
        assert_eq!(out.summary.status, "interrupted");
        assert_eq!(out.queries.len(), 1, "the second query never starts");
        assert_eq!(out.queries[0].status, "interrupted");
        let written = dir.read("m.txt");
        assert!(
            written
                .trim_end()
                .ends_with("# incomplete: interrupted before every match was written"),
            "{}",
            &written[written.len().saturating_sub(200)..]
        );
    }
}

#[test]
fn issue_11_a_data_file_that_shrinks_while_read_never_kills_gsi_silently() {
    let dir = TestDir::new();
    let mut text = String::from("t 400000 1200000\n");
    for v in 0..400_000u32 {
        text += &format!("v {v} 0 6\n");
    }
    for v in 0..400_000u32 {
        for d in 1..=3 {
            text += &format!("e {v} {} 0\n", (v + d * 1000) % 400_000);
        }
    }
    let path = dir.write("big.graph", &text);
    for delay in [0, 5, 20, 60] {
        std::fs::write(&path, &text).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_gsi"))
            .args(["info", "big.graph"])
            .current_dir(dir.path(""))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start gsi");
        std::thread::sleep(Duration::from_millis(delay));
        std::fs::File::create(&path).unwrap();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Whether the file shrank before, during or after the read, gsi ends with a code.
        assert!(
            output.status.code().is_some(),
            "killed by a signal: {stderr}"
        );
        if output.status.code() == Some(2) && stderr.contains("shrank") {
            assert!(stderr.contains("big.graph"), "{stderr}");
        }
    }
}

#[test]
fn issue_11_two_runs_writing_one_output_never_interleave() {
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 14, 0));
    dir.write_spec("p4.graph", &crate::util::path(false, 4, 0));
    dir.write_spec("p3.graph", &crate::util::path(false, 3, 0));
    let start = |query: &str| {
        Command::new(env!("CARGO_BIN_EXE_gsi"))
            .args([
                "match", "--data", "k.graph", "--engine", "cpu", "-o", "m.txt", "--query", query,
            ])
            .current_dir(dir.path(""))
            .stdout(Stdio::null())
            .spawn()
            .expect("start gsi")
    };
    let (mut a, mut b) = (start("p4.graph"), start("p3.graph"));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let rows = crate::util::output_rows(&dir.read("m.txt"));
    // The whole output of one run: ordered paths of 4 (or 3) distinct vertices of K14.
    let width = rows.first().map_or(0, Vec::len);
    let expected = if width == 4 {
        14 * 13 * 12 * 11
    } else {
        14 * 13 * 12
    };
    assert_eq!(rows.len(), expected, "width {width}");
    assert!(rows
        .iter()
        .all(|r| r.len() == width && r.iter().all(|&v| v < 14)));
}

#[test]
fn issue_11_a_graph_too_large_to_generate_is_refused_before_memory_is_spent() {
    let dir = TestDir::new();
    let run = dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "4000000000",
        "--edges",
        "1",
        "-o",
        "g.graph",
    ]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr.contains("more than this process may use"),
        "{}",
        run.stderr
    );
    assert!(run.wall < Duration::from_secs(2), "{:?}", run.wall);
    assert!(!dir.path("g.graph").exists());
}

#[test]
fn issue_11_output_dash_writes_matches_to_stdout_and_the_rest_to_stderr() {
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 5, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 3, 0));
    let run = dir
        .match_files("k.graph", &["p.graph"], &["-o", "-", "--json"])
        .ok();
    let rows = crate::util::output_rows(&run.stdout);
    assert_eq!(rows.len(), 5 * 4 * 3);
    assert_eq!(
        crate::util::parse_json_lines(
            &run.stderr
                .lines()
                .filter(|l| l.starts_with('{'))
                .collect::<Vec<_>>()
                .join("\n")
        )
        .queries[0]
            .matches,
        60
    );
    assert!(!dir.path("-").exists());
}

// ---------------------------------------------------------------------------------------------
// Issue 7: any I/O error in a query's chain was taken for "writing matches failed", so a query
// file that could not be read ended the whole run.

#[test]
fn issue_7_an_unreadable_query_file_is_an_error_row_and_the_others_run() {
    // Files of the kernel's attribute filesystem: they say they hold 4096 bytes but cannot be
    // memory-mapped or read as a graph.
    let unreadable = [
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
        "/sys/kernel/profiling",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file());
    let Some(unreadable) = unreadable else {
        eprintln!("skipped: no attribute file under /sys to read");
        return;
    };
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 4, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 3, 0));
    let run = dir.match_files("k.graph", &[unreadable, "p.graph"], &["--json"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    let out = run.json();
    assert_eq!(out.queries.len(), 2);
    assert_eq!(out.queries[0].status, "error");
    assert!(out.queries[0]
        .error
        .as_deref()
        .unwrap_or_default()
        .contains(unreadable));
    assert_eq!(
        (out.queries[1].status.as_str(), out.queries[1].matches),
        ("ok", 24)
    );
    assert_eq!(out.summary.errors, 1);
}

// ---------------------------------------------------------------------------------------------
// Issue 8: `--limit` could not return early: a breadth-first join finished whole levels first.

/// A 200-vertex, 600-edge graph of one label (seeded) and a 40-vertex path query.
fn path_in_sparse_graph(dir: &TestDir) {
    let mut spec = Spec::new(false, vec![0; 200]);
    let mut seen = std::collections::BTreeSet::new();
    let mut x: u64 = 7;
    while seen.len() < 600 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v) = (((x >> 33) % 200) as u32, ((x >> 13) % 200) as u32);
        if u != v && seen.insert((u.min(v), u.max(v))) {
            spec = spec.edge(u, v, 0);
        }
    }
    dir.write_spec("g.graph", &spec);
    dir.write_spec("p40.graph", &crate::util::path(false, 40, 0));
}

#[test]
fn issue_8_a_limit_is_answered_at_once_when_matches_are_easy_to_find() {
    let dir = TestDir::new();
    path_in_sparse_graph(&dir);
    for extra in [&["--output", "m.txt"][..], &[][..]] {
        let mut args = vec!["--json", "--limit", "1000", "--timeout", "10"];
        args.extend_from_slice(extra);
        let run = dir.match_files("g.graph", &["p40.graph"], &args).ok();
        let q = &run.json().queries[0];
        assert_eq!((q.matches, q.status.as_str()), (1000, "limit"), "{extra:?}");
        assert!(q.elapsed_ms < 2000.0, "{extra:?}: {} ms", q.elapsed_ms);
    }
    let rows = crate::util::output_rows(&dir.read("m.txt"));
    assert_eq!(rows.len(), 1000);
    let (query, data) = (
        crate::util::read_sunluo(&dir.path("p40.graph"), false),
        crate::util::read_sunluo(&dir.path("g.graph"), false),
    );
    assert!(rows
        .iter()
        .all(|r| brute::is_match(&query, &data, r, false)));
}

#[test]
fn issue_8_a_timeout_ends_a_depth_first_count_on_time() {
    let dir = TestDir::new();
    path_in_sparse_graph(&dir);
    let run = dir
        .match_files("g.graph", &["p40.graph"], &["--json", "--timeout", "0.5"])
        .ok();
    let q = &run.json().queries[0];
    assert_eq!(q.status, "timeout");
    assert!(q.elapsed_ms < 700.0, "{} ms", q.elapsed_ms);
}

// ---------------------------------------------------------------------------------------------
// Issue 11: inputs as users have them.

#[test]
fn issue_11_compressed_files_pipes_and_standard_input_are_read() {
    use std::io::Write;
    let dir = TestDir::new();
    let k5 = crate::util::clique(false, 5, 0);
    let p3 = crate::util::path(false, 3, 0);
    dir.write_spec("k5.graph", &k5);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(k5.sunluo().as_bytes()).unwrap();
    dir.write("k5.graph.gz", gz.finish().unwrap());
    dir.write(
        "k5.zst",
        zstd::encode_all(k5.sunluo().as_bytes(), 1).unwrap(),
    );
    dir.write_spec("p3.graph", &p3);
    for data in ["k5.graph.gz", "k5.zst"] {
        let run = dir.match_files(data, &["p3.graph"], &["--json"]).ok();
        assert_eq!(run.json().queries[0].matches, 60, "{data}");
    }
    // The query on standard input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args([
            "match",
            "--engine",
            "cpu",
            "--json",
            "--data",
            "k5.graph.gz",
            "--query",
            "-",
        ])
        .current_dir(dir.path(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(p3.sunluo().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let out = crate::util::parse_json_lines(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(
        (out.queries[0].query.as_str(), out.queries[0].matches),
        ("-", 60)
    );
    // A pipe that is not standard input: a FIFO written by another thread.
    let fifo = dir.path("data.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let text = k5.sunluo();
        let writer = std::thread::spawn(move || std::fs::write(fifo, text).unwrap());
        let run = dir
            .match_files("data.fifo", &["p3.graph"], &["--json"])
            .ok();
        writer.join().unwrap();
        assert_eq!(run.json().queries[0].matches, 60);
    } else {
        eprintln!("skipped: mkfifo is not available");
    }
}

#[test]
fn issue_11_snap_names_and_string_labels_are_read_and_printed_back() {
    let dir = TestDir::new();
    dir.write(
        "people.txt",
        "alice bob\nbob carol\ncarol alice\ncarol dave\n",
    );
    dir.write(
        "kinds.txt",
        "alice Person\nbob Person\ncarol Person\ndave Robot\n",
    );
    // A Person next to a Robot, by the labels' numbers in order of first appearance.
    dir.write("q.graph", "t 2 1\nv 0 0 1\nv 1 1 1\ne 0 1\n");
    let run = dir
        .match_files(
            "people.txt",
            &["q.graph"],
            &[
                "--vertex-labels",
                "kinds.txt",
                "-o",
                "m.txt",
                "--output-ids",
                "original",
            ],
        )
        .ok();
    assert!(run.stdout.contains("matches = 1"), "{}", run.stdout);
    assert_eq!(dir.read("m.txt"), "carol dave\n");
    let run = dir.gsi([
        "convert",
        "people.txt",
        "--vertex-labels",
        "kinds.txt",
        "--to",
        "sunluo",
        "-o",
        "people.graph",
    ]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(
        dir.read("people.graph.ids"),
        "0 alice\n1 bob\n2 carol\n3 dave\n"
    );
    assert_eq!(
        dir.read("people.graph.vertex-labels"),
        "0 Person\n1 Robot\n"
    );
    let run = dir
        .match_files("people.graph", &["q.graph"], &["--json"])
        .ok();
    assert_eq!(run.json().queries[0].matches, 1);
}

#[test]
fn issue_11_every_command_exits_alike_for_an_output_it_cannot_create_or_write() {
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 5, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 3, 0));
    let missing = "no/such/folder/out";
    let runs = [
        dir.match_files("k.graph", &["p.graph"], &["-o", missing]),
        dir.gsi([
            "generate",
            "graph",
            "--vertices",
            "5",
            "--edges",
            "4",
            "-o",
            missing,
        ]),
        dir.gsi(["convert", "k.graph", "--to", "gsi", "-o", missing]),
    ];
    for run in &runs {
        assert_eq!(run.code, Some(2), "{run:#?}");
        assert!(
            run.stderr.contains("No such file or directory"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("partial"), "{}", run.stderr);
    }
    if std::path::Path::new("/dev/full").exists() {
        let run = dir.match_files("k.graph", &["p.graph"], &["-o", "/dev/full", "--json"]);
        assert_eq!(run.code, Some(1), "{run:#?}");
        let out = run.json();
        assert_eq!(out.queries[0].status, "error", "a failed write is no `ok`");
        assert!(!out.summary.complete);
        let run = dir.gsi(["convert", "k.graph", "--to", "gsi", "-o", "/dev/full"]);
        assert_eq!(run.code, Some(1), "{run:#?}");
    } else {
        eprintln!("skipped: no /dev/full");
    }
}

#[test]
fn issue_11_likely_mistakes_get_a_hint_and_still_the_exact_answer() {
    let dir = TestDir::new();
    dir.write_spec("k3.graph", &crate::util::clique(false, 3, 0));
    dir.write_spec("k4.graph", &crate::util::clique(false, 4, 0));
    dir.write_spec("p3.graph", &crate::util::path(false, 3, 7));
    dir.write("loop.txt", "0 1\n1 1\n1 2\n");
    let run = dir
        .match_files(
            "k3.graph",
            &["k4.graph", "p3.graph", "loop.txt"],
            &["--json"],
        )
        .ok();
    let out = run.json();
    let counts: Vec<u128> = out.queries.iter().map(|q| q.matches).collect();
    // K4 in K3: none; label 7 is not in the data: none; the path 0-1-2 in K3: 6.
    assert_eq!(counts, [0, 0, 6]);
    for says in [
        "k4.graph: the query has more vertices (4) than the data graph (3): were --data and --query swapped?",
        "p3.graph: the data graph has no vertex label 7: no match",
        "loop.txt: dropped 0 duplicate edges and 1 self-loop in the query",
    ] {
        assert!(run.stderr.contains(says), "missing `{says}`: {}", run.stderr);
    }
    let quiet = dir
        .match_files("k3.graph", &["k4.graph"], &["--json", "--quiet"])
        .ok();
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
}

#[test]
fn issue_11_info_shows_gsi_labels_as_written_and_convert_warns_of_lost_directions() {
    let dir = TestDir::new();
    dir.write("g.gsi", "t # 0\n2 1 5 3\nv 0 5\nv 1 5\ne 0 1 3\nt # -1\n");
    let run = dir.gsi(["info", "--json", "g.gsi"]).ok();
    assert!(
        run.stdout
            .contains("\"top_vertex_labels\":[{\"label\":5,\"count\":2}]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("\"top_edge_labels\":[{\"label\":3,\"count\":1}]"),
        "{}",
        run.stdout
    );
    dir.write("d.nt", "<a> <p> <b> .\n");
    let run = dir.gsi(["convert", "d.nt", "--to", "sunluo", "-o", "d.graph"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.contains("read d.graph with --directed"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Issue 32: hardening, round 2.

/// Under edge isomorphism `--output` lists data edges in the documented order of the query's
/// edges (lower endpoint, then higher), not in the order of their labels.
#[test]
fn issue_32_edge_isomorphism_columns_follow_the_query_edges_by_endpoints() {
    let dir = TestDir::new();
    // Query edge 0-2 has the lower label, so a label-first order would list it before 0-1.
    let query = Spec::new(false, vec![0, 1, 1]).edge(0, 2, 0).edge(0, 1, 1);
    let data = Spec::new(false, vec![0, 1, 1, 0, 1])
        .edge(0, 1, 1)
        .edge(0, 2, 0)
        .edge(0, 4, 0)
        .edge(3, 2, 1)
        .edge(3, 4, 0)
        .edge(3, 1, 1);
    dir.write_spec("d.graph", &data);
    dir.write_spec("q.graph", &query);
    let expected: BTreeSet<String> = brute::edge_isomorphisms(&query.graph(), &data.graph())
        .into_iter()
        .map(|row| {
            let edges: Vec<String> = row.iter().map(|(a, b)| format!("{a}-{b}")).collect();
            edges.join(" ")
        })
        .collect();
    assert!(expected.len() >= 4, "{expected:?}");
    let run = dir
        .match_files(
            "d.graph",
            &["q.graph"],
            &["--semantics", "edge-isomorphism", "--output", "-"],
        )
        .ok();
    let listed: BTreeSet<String> = run
        .stdout
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('-'))
        .map(str::to_owned)
        .collect();
    assert_eq!(listed, expected, "{}", run.stdout);
}

/// Rewrites the payload of the first section `tag` of the saved index `bytes` with `change`
/// and recomputes its checksums, as a crafted file would.
fn rewrite_section(bytes: &mut [u8], tag: &str, change: impl FnOnce(&mut [u8])) {
    let aligned = |at: usize| at.next_multiple_of(64);
    let mut at = 64;
    loop {
        let header = &bytes[at..at + 48];
        let element = u32::from_le_bytes(header[16..20].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(header[24..32].try_into().unwrap()) as usize;
        let payload = aligned(at + 48);
        let end = payload + element * len;
        if header[..16].split(|&b| b == 0).next() == Some(tag.as_bytes()) {
            change(&mut bytes[payload..end]);
            let sum = xxhash_rust::xxh3::xxh3_64(&bytes[payload..end]);
            bytes[at + 32..at + 40].copy_from_slice(&sum.to_le_bytes());
            let check = xxhash_rust::xxh3::xxh3_64(&bytes[at..at + 40]);
            bytes[at + 40..at + 48].copy_from_slice(&check.to_le_bytes());
            return;
        }
        assert_ne!(&header[..3], b"end", "no section `{tag}`");
        at = aligned(end);
    }
}

/// A saved index whose sections were changed and their checksums recomputed is refused with
/// a message, or answers as its graph does: what a matcher trusts is checked against the
/// graph, not only against its checksums.
#[test]
fn issue_32_a_crafted_saved_index_cannot_change_an_answer() {
    let dir = TestDir::new();
    let data = Spec::new(false, vec![1, 1, 1, 1, 2])
        .edge(0, 1, 0)
        .edge(0, 2, 0)
        .edge(1, 2, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 1);
    let query = Spec::new(false, vec![1, 1]).edge(0, 1, 0);
    let expected = brute::count(&query.graph(), &data.graph(), false);
    assert_eq!(expected, 8);
    dir.write_spec("d.graph", &data);
    dir.write_spec("q.graph", &query);
    dir.gsi(["index", "d.graph", "-o", "good.gsidx"]).ok();
    let good = std::fs::read(dir.path("good.gsidx")).expect("index file");
    fn set_u32(payload: &mut [u8], i: usize, value: u32) {
        payload[4 * i..4 * i + 4].copy_from_slice(&value.to_ne_bytes());
    }
    /// How a crafted file changes a section's payload.
    type Change = fn(&mut [u8]);
    let crafted: [(&str, Change); 4] = [
        ("signatures", |p| p.fill(0)),
        // Edge counts of labels 0 and 1 as 4 and 2: the same total.
        ("edge.counts", |p| {
            p[8..16].copy_from_slice(&4u64.to_ne_bytes());
            p[24..32].copy_from_slice(&2u64.to_ne_bytes());
        }),
        ("pcsr.columns", |p| set_u32(p, 0, 4)),
        // Vertex 0's second neighbour 2 becomes 3, which does not list 0.
        ("out.neighbors", |p| set_u32(p, 1, 3)),
    ];
    for (tag, change) in crafted {
        let mut bytes = good.clone();
        rewrite_section(&mut bytes, tag, change);
        assert_ne!(bytes, good, "{tag}");
        dir.write("crafted.gsidx", &bytes);
        let run = dir.match_files("crafted.gsidx", &["q.graph"], &[]);
        run.no_panic();
        if run.code == Some(0) {
            assert_eq!(
                run.value("matches"),
                Some(expected.to_string()),
                "{tag}: {run:#?}"
            );
        } else {
            assert_eq!(run.code, Some(2), "{tag}: {run:#?}");
            assert!(run.stderr.contains("the saved "), "{tag}: {}", run.stderr);
        }
    }
}

/// `--output` naming a folder is refused before any query runs.
#[test]
fn issue_32_an_output_folder_is_refused_before_the_work() {
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 4, 0));
    std::fs::create_dir(dir.path("out")).unwrap();
    let run = dir.match_files("k.graph", &["k.graph", "k.graph"], &["--output", "out"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(
        run.stderr.contains("--output out: is a folder"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stdout.contains("k.graph"),
        "no query ran: {}",
        run.stdout
    );
}

/// After matches could not be written (a full disk), every later query is reported as not
/// run, and the summary says the run failed, beside `complete: false`.
#[test]
fn issue_32_after_a_full_disk_every_query_is_reported_and_the_run_failed() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full to fill");
        return;
    }
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 5, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 3, 0));
    let run = dir.match_files(
        "k.graph",
        &["p.graph", "p.graph", "p.graph"],
        &["--json", "--output", "/dev/full"],
    );
    assert_eq!(run.code, Some(1), "{run:#?}");
    let out = run.json();
    assert_eq!(out.queries.len(), 3, "{}", run.stdout);
    assert!(
        out.queries.iter().all(|q| q.status == "error"),
        "{}",
        run.stdout
    );
    for q in &out.queries[1..] {
        assert!(
            q.error.as_deref().unwrap_or_default().contains("not run"),
            "{q:?}"
        );
    }
    assert_eq!(out.summary.errors, 3);
    assert_eq!(
        (out.summary.status.as_str(), out.summary.complete),
        ("failed", false)
    );
    // A run that finished whole says so in both words.
    let fine = dir
        .match_files("k.graph", &["p.graph"], &["--json"])
        .ok()
        .json();
    assert_eq!(
        (fine.summary.status.as_str(), fine.summary.complete),
        ("finished", true)
    );
}

/// SIGHUP stops a run as SIGTERM does: a summary, the `# incomplete` marker, code 129, and
/// no partial file left behind.
#[test]
fn issue_32_sighup_stops_cleanly_with_a_marked_output() {
    let dir = TestDir::new();
    busy(&dir);
    let run = signalled(&dir, "HUP", Duration::from_millis(700), &["-o", "m.txt"]);
    assert_eq!(run.code, Some(129), "{run:#?}");
    assert_eq!(run.json().summary.status, "interrupted");
    let written = dir.read("m.txt");
    assert!(
        written
            .trim_end()
            .ends_with("# incomplete: interrupted before every match was written"),
        "{}",
        &written[written.len().saturating_sub(200)..]
    );
    let litter: Vec<_> = std::fs::read_dir(dir.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(litter.is_empty(), "{litter:?}");
}

/// `--output` onto a link to a setuid file writes a new file of the umask's mode, leaving the
/// link's target alone; a replaced regular file keeps its bits without setuid.
#[test]
fn issue_32_output_never_takes_a_setuid_bit() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 3, 0));
    let mode = |name: &str| {
        std::fs::metadata(dir.path(name))
            .unwrap()
            .permissions()
            .mode()
    };
    let target = dir.write("setuid", "old\n");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o4755)).unwrap();
    std::os::unix::fs::symlink(&target, dir.path("link")).unwrap();
    dir.match_files("k.graph", &["k.graph"], &["--output", "link"])
        .ok();
    assert_eq!(mode("link") & 0o7000, 0);
    assert_eq!(mode("setuid") & 0o7777, 0o4755);
    assert_eq!(dir.read("setuid"), "old\n");
    dir.match_files("k.graph", &["k.graph"], &["--output", "setuid"])
        .ok();
    assert_eq!(mode("setuid") & 0o7777, 0o755);
}

/// A file name's newline or terminal escape is printed escaped everywhere: it can neither
/// add lines under its `--output` header nor reach the terminal from the table, `--explain`
/// or `gsi info`.
#[test]
fn issue_32_file_names_are_printed_escaped() {
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 3, 0));
    let name = "a\n1 1 1\n2 2 2\u{1b}[31m.graph";
    dir.write_spec(&format!("q/{name}"), &crate::util::path(false, 2, 0));
    dir.write_spec("q/b.graph", &crate::util::path(false, 2, 0));
    let run = dir
        .match_files("k.graph", &["q"], &["--output", "o.txt", "--explain"])
        .ok();
    assert!(!run.stdout.contains('\u{1b}'), "{:?}", run.stdout);
    assert!(
        run.stdout
            .contains("a\\u{a}1 1 1\\u{a}2 2 2\\u{1b}[31m.graph"),
        "{}",
        run.stdout
    );
    let written = dir.read("o.txt");
    assert!(!written.contains('\u{1b}'), "{written:?}");
    assert!(
        !written.lines().any(|l| l == "1 1 1" || l == "2 2 2"),
        "{written}"
    );
    let rows = written.lines().filter(|l| !l.starts_with('#')).count();
    assert_eq!(rows, 12, "6 matches of each query: {written}");
    let info = dir.gsi(["info".to_string(), format!("q/{name}")]).ok();
    assert!(!info.stdout.contains('\u{1b}'), "{:?}", info.stdout);
    assert!(
        !info.stdout.lines().any(|l| l.starts_with("1 1 1")),
        "{}",
        info.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Issue 31: the rough edges a new user hits.

/// Every time in `--json` output (a key ending in `_ms`) is rounded to the microsecond, sums
/// and medians included.
#[test]
fn issue_31_json_times_have_at_most_three_decimals() {
    fn times(value: &serde_json::Value, key: &str, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    times(v, k, found);
                }
            }
            serde_json::Value::Number(n) if key.ends_with("_ms") => found.push(n.to_string()),
            _ => {}
        }
    }
    let dir = TestDir::new();
    dir.write_spec("k.graph", &crate::util::clique(false, 6, 0));
    dir.write_spec("p.graph", &crate::util::path(false, 3, 0));
    let queries = vec!["p.graph"; 40];
    let run = dir.match_files("k.graph", &queries, &["--json"]).ok();
    let info = dir.gsi(["info", "--json", "k.graph"]).ok();
    let mut found = Vec::new();
    for line in run.stdout.lines().chain(info.stdout.lines()) {
        let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        times(&value, "", &mut found);
    }
    assert!(found.len() > 40, "{found:?}");
    for number in found {
        let decimals = number.split_once('.').map_or(0, |(_, f)| f.len());
        assert!(decimals <= 3 && !number.contains('e'), "{number}");
    }
}

/// `gsi verify` without a GPU gives advice it can follow: no `--engine`, which it lacks.
#[test]
fn issue_31_verify_without_a_gpu_advises_what_it_accepts() {
    let dir = TestDir::new();
    let run = dir.gsi(["verify", "--generated", "1"]);
    run.no_panic();
    if run.code == Some(0) {
        eprintln!("skipped: a GPU is present, so verify ran");
        return;
    }
    assert!(
        !run.stderr.contains("--engine cpu or auto"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("gsi match --engine cpu"),
        "{}",
        run.stderr
    );
}

/// The demo's table: each header starts where its column does.
#[test]
fn issue_31_demo_table_headers_are_aligned() {
    let run = TestDir::new().gsi(["demo", "--engine", "cpu"]).ok();
    let starts = |line: &str| -> Vec<usize> {
        let bytes = line.as_bytes();
        (0..bytes.len())
            .filter(|&i| bytes[i] != b' ' && (i == 0 || bytes[i - 1] == b' '))
            .collect()
    };
    let mut lines = run
        .stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("molecule"));
    let header = starts(lines.next().expect("a header"));
    let row = starts(lines.next().expect("a row"));
    assert_eq!(header, row, "{}", run.stdout);
}

/// `gsi man COMMAND` prints that command's page, which the top page refers to.
#[test]
fn issue_31_man_prints_each_commands_page() {
    let dir = TestDir::new();
    let top = dir.gsi(["man"]).ok();
    assert!(
        top.stdout.contains("gsi\\-match(1)"),
        "{}",
        &top.stdout[..500]
    );
    let page = dir.gsi(["man", "match"]).ok();
    assert!(
        page.stdout.contains(".TH gsi-match"),
        "{}",
        &page.stdout[..200]
    );
    assert!(page.stdout.contains("\\-\\-query"), "the flags are on it");
    let nested = dir.gsi(["man", "generate", "graph"]).ok();
    assert!(
        nested.stdout.contains(".TH gsi-generate-graph"),
        "{}",
        &nested.stdout[..200]
    );
    let unknown = dir.gsi(["man", "nosuch"]);
    assert_eq!(unknown.code, Some(2), "{unknown:#?}");
    assert!(
        unknown.stderr.contains("no command `nosuch`"),
        "{}",
        unknown.stderr
    );
}

/// `gsi convert --help` says where the names go, as convert writes them.
#[test]
fn issue_31_convert_help_says_the_names_are_written_beside() {
    let dir = TestDir::new();
    let help = dir.gsi(["convert", "--help"]).ok();
    assert!(
        !help.stdout.contains("names are not written"),
        "{}",
        help.stdout
    );
    assert!(help.stdout.contains("OUTPUT.ids"), "{}", help.stdout);
    dir.write("d.txt", "alice bob\n");
    dir.gsi(["convert", "d.txt", "--to", "sunluo", "-o", "d.graph"])
        .ok();
    assert!(dir.path("d.graph.ids").exists());
}

/// `-o -` is standard output for `generate graph` (also without `-o`) and `convert`, and is
/// refused by `index`, whose file commands map: never a file named `-` (or `-.ids`).
#[test]
fn issue_31_dash_means_standard_output_or_is_refused() {
    let dir = TestDir::new();
    let spec = [
        "generate",
        "graph",
        "--vertices",
        "20",
        "--edges",
        "40",
        "--seed",
        "3",
    ];
    let to_file = [&spec[..], &["-o", "g.graph"]].concat();
    dir.gsi(to_file).ok();
    let file = dir.read("g.graph");
    assert_eq!(dir.gsi(spec).ok().stdout, file);
    assert_eq!(
        dir.gsi([&spec[..], &["-o", "-"]].concat()).ok().stdout,
        file
    );
    dir.write("s.txt", "alice bob\nbob carol\n");
    dir.gsi(["convert", "s.txt", "--to", "gsi", "-o", "s.gsi"])
        .ok();
    let converted = dir.gsi(["convert", "s.txt", "--to", "gsi", "-o", "-"]).ok();
    assert_eq!(converted.stdout, dir.read("s.gsi"));
    assert!(converted
        .stderr
        .contains("names the numbers stand for are not written"));
    let index = dir.gsi(["index", "g.graph", "-o", "-"]);
    assert_eq!(index.code, Some(2), "{index:#?}");
    assert!(
        index.stderr.contains("-o -: a saved index"),
        "{}",
        index.stderr
    );
    for name in ["-", "-.ids"] {
        assert!(!dir.path(name).exists(), "{name} was written");
    }
}
