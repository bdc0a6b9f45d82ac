//! Saved indexes (`gsi index`): a graph written with its index and mapped back gives the
//! answers its text gives, in every format; a damaged, truncated, stale or mismatched file
//! is refused with a message, never read into an answer.

use gsi_core::{find_matches, CollectMatches, DataIndex, IndexOptions, MatchOptions};
use gsi_core::{PcsrLayout, VertexNumbering};
use gsi_core::{SavedIndex, Semantics};
use gsi_graph::saved::GraphFacts;
use gsi_graph::{Direction, VertexId};
use proptest::prelude::*;

use crate::brute;
use crate::oracle::{data_and_subgraph, semantics, DIRECTED_MULTI, UNDIRECTED_MULTI};
use crate::util::{Spec, TestDir};

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() })]

    /// A graph saved and opened again is the same graph, its PCSR gives the same lists, and
    /// its counts are the brute force's, with either PCSR layout.
    #[test]
    fn saved_indexes_give_the_brute_force_answers(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 5),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 5),
        ],
        semantics in semantics(),
        paper in any::<bool>(),
        degree_order in any::<bool>(),
    ) {
        let (q, d) = (query.graph(), data.graph());
        let pcsr_layout = if paper { PcsrLayout::Paper } else { PcsrLayout::Packed };
        let built = DataIndex::build_with(d.clone(), IndexOptions { pcsr_layout, numbering: if degree_order { VertexNumbering::Degree } else { VertexNumbering::Given } })
            .expect("index");
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("data.gsidx");
        SavedIndex { index: built, facts: GraphFacts::default(), source: None }
            .write(&path)
            .expect("written");
        let saved = SavedIndex::open(&path).expect("opened").index;
        prop_assert_eq!(&*saved.original_graph(), &d);
        prop_assert_eq!(saved.options().pcsr_layout, pcsr_layout);
        prop_assert_eq!(saved.vertex_order().is_some(), degree_order && d.vertex_count() > 1);
        // The PCSR holds the graph's lists in the index's numbering.
        let inside = saved.graph();
        for v in 0..d.vertex_count() as VertexId {
            for l in d.edge_labels() {
                for &direction in d.directions() {
                    prop_assert_eq!(saved.pcsr().neighbors(v, l, direction), inside.neighbors(v, l, direction));
                }
            }
        }
        let options = MatchOptions { semantics, ..MatchOptions::default() };
        // Listed, the matches name the graph's own vertices, whatever the index's numbering.
        let mut found = CollectMatches::default();
        find_matches(&mut gsi_core::cpu::CpuEngine::default(), &q, &saved, &options, &mut found)
            .expect("matched");
        let found = found.sorted_rows();
        let mut expected = match semantics {
            Semantics::Induced => brute::induced_matches(&q, &d),
            _ => brute::matches(&q, &d, semantics == Semantics::Homomorphism),
        };
        expected.sort_unstable();
        prop_assert_eq!(found, expected);
    }
}

/// The data files of one graph in three formats, with a query for each.
fn formats(dir: &TestDir) -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let triangle = Spec::new(false, vec![0, 1, 0, 1, 0])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 1)
        .edge(3, 4, 0)
        .edge(4, 2, 0);
    dir.write_spec("data.graph", &triangle);
    dir.write_spec(
        "q.graph",
        &Spec::new(false, vec![0, 1, 0])
            .edge(0, 1, 0)
            .edge(1, 2, 0)
            .edge(2, 0, 0),
    );
    dir.write("data.txt", "# web\n10 20\n20 30\n30 10\n30 40 2\n40 10\n");
    dir.write("q.txt", "1 2\n2 3\n3 1\n");
    dir.write(
        "data.nt",
        "<a> <knows> <b> .\n<b> <knows> <c> .\n<c> <knows> <a> .\n<d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <Person> .\n<d> <knows> <a> .\n<c> <worksAt> \"ACME\" .\n",
    );
    dir.write("q.nt", "<x> <knows> <y> .\n<y> <knows> <z> .\n");
    vec![
        ("data.graph", "q.graph", vec![]),
        ("data.txt", "q.txt", vec!["--format", "snap"]),
        ("data.txt", "q.txt", vec!["--format", "snap", "--directed"]),
        ("data.nt", "q.nt", vec![]),
    ]
}

#[test]
fn a_saved_index_answers_as_its_text_does_in_every_format() {
    let dir = TestDir::new();
    for (i, (data, query, read)) in formats(&dir).into_iter().enumerate() {
        let saved = format!("saved_{i}.gsidx");
        let mut index = vec!["index", data, "-o", &saved];
        index.extend(&read);
        let written = dir.gsi(&index).ok();
        assert!(written.stderr.contains("wrote"), "{written:?}");
        let from_text = format!("text_{i}.txt");
        let from_saved = format!("saved_{i}.txt");
        let mut flags = read.clone();
        flags.extend(["--output", &from_text]);
        let text = dir.match_files(data, &[query], &flags).ok();
        // The query file keeps its format flag; the saved index needs none (a --directed
        // data graph stays directed).
        let query_format: Vec<&str> = match read.as_slice() {
            ["--format", f, ..] => vec!["--query-format", f],
            _ => vec![],
        };
        let mut flags = query_format;
        flags.extend(["--output", &from_saved]);
        let saved_run = dir.match_files(&saved, &[query], &flags).ok();
        let matches = |run: &crate::util::Run| run.value("matches").expect("a count");
        assert_eq!(matches(&saved_run), matches(&text), "{data} {read:?}");
        assert_ne!(
            matches(&text),
            "0",
            "{data} {read:?}: the query has matches"
        );
        assert_eq!(
            dir.read(&from_saved),
            dir.read(&from_text).replace(data, &saved),
            "{data} {read:?}: the matches, named as the file named them"
        );
        // `gsi info` and `gsi convert` read it too.
        let info = dir.gsi(["info", &saved]).ok();
        assert_eq!(info.value("index_ms").as_deref(), Some("0.000"));
        let source = std::fs::canonicalize(dir.path(data)).expect("the graph file");
        assert_eq!(info.value("saved_from"), Some(source.display().to_string()));
        let copy = format!("copy_{i}.graph");
        dir.gsi(["convert", &saved, "--to", "sunluo", "-o", &copy])
            .ok();
        if !data.ends_with(".nt") {
            // The Sun–Luo copy numbers the vertices as the saved graph did.
            let mut flags = vec!["--query-format", "sunluo"];
            flags.extend(read.iter().filter(|&&f| f == "--directed"));
            if let ["--format", f, ..] = read.as_slice() {
                flags[1] = f;
            }
            let converted = dir.match_files(&copy, &[query], &flags).ok();
            assert_eq!(matches(&converted), matches(&text), "{data} converted");
        }
    }
}

#[test]
fn damaged_truncated_and_stale_saved_indexes_are_refused() {
    let dir = TestDir::new();
    formats(&dir);
    dir.gsi(["index", "data.graph", "-o", "good.gsidx"]).ok();
    let good = std::fs::read(dir.path("good.gsidx")).expect("index file");
    let refused = |bytes: &[u8], what: &str| {
        dir.write("bad.gsidx", bytes);
        let run = dir.match_files("bad.gsidx", &["q.graph"], &[]);
        run.no_panic();
        assert_eq!(run.code, Some(2), "{what}: {run:?}");
        assert!(run.stderr.contains("bad.gsidx"), "{what}: {}", run.stderr);
        run.stderr
    };
    // A changed byte in the header, in section headers, in payloads and at the very end.
    let step = (good.len() / 97).max(1);
    for at in (0..good.len()).step_by(step).chain([good.len() - 1]) {
        let mut bytes = good.clone();
        bytes[at] ^= 0x01;
        let message = refused(&bytes, &format!("byte {at} changed"));
        assert!(
            // A changed magic number makes it no saved index at all: a binary file.
            message.contains("damaged") || message.contains("binary file"),
            "byte {at}: {message}"
        );
    }
    for len in [good.len() - 1, good.len() / 2, 70, 9] {
        let message = refused(&good[..len], &format!("truncated to {len}"));
        assert!(message.contains("truncated"), "{len}: {message}");
    }
    // The graph file touched after it was indexed, its bytes the same; then changed.
    let graph = std::fs::File::options()
        .write(true)
        .open(dir.path("data.graph"))
        .expect("open the graph file");
    let later = graph
        .metadata()
        .expect("metadata")
        .modified()
        .expect("mtime")
        + std::time::Duration::from_secs(60);
    graph.set_modified(later).expect("touch");
    drop(graph);
    let run = dir.match_files("good.gsidx", &["q.graph"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("stale") && run.stderr.contains("modification time differs"),
        "{}",
        run.stderr
    );
    std::fs::write(dir.path("data.graph"), "t 1 0\nv 0 0 0\n").expect("rewrite");
    let run = dir.match_files("good.gsidx", &["q.graph"], &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("stale") && run.stderr.contains("bytes then"),
        "{}",
        run.stderr
    );
    // Read options that the saved graph cannot honour.
    dir.gsi(["index", "data.txt", "--format", "snap", "-o", "snap.gsidx"])
        .ok();
    let run = dir.match_files("snap.gsidx", &["q.txt"], &["--directed"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("--directed does not apply"),
        "{}",
        run.stderr
    );
    dir.write("labels.txt", "10 1\n");
    let run = dir.match_files(
        "snap.gsidx",
        &["q.txt"],
        &["--vertex-labels", "labels.txt", "--format", "snap"],
    );
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("--vertex-labels applies to SNAP text"),
        "{}",
        run.stderr
    );
    // `--format` names the queries' format too: with a saved index it is theirs alone.
    let with_format = dir
        .match_files("snap.gsidx", &["q.txt"], &["--format", "snap"])
        .ok();
    let from_text = dir
        .match_files("data.txt", &["q.txt"], &["--format", "snap"])
        .ok();
    assert_eq!(with_format.value("matches"), from_text.value("matches"));
    let run = dir.gsi(["index", "data.graph", "-o", "data.graph"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("would replace the graph"),
        "{}",
        run.stderr
    );
}

/// The saved index of a directed graph keeps both adjacencies: a lookup in either
/// direction equals the CSR's.
#[test]
fn a_directed_saved_index_keeps_both_directions() {
    let dir = TestDir::new();
    let spec = Spec::new(true, vec![0, 0, 1])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 1);
    let index = DataIndex::build(spec.graph()).expect("index");
    let path = dir.path("d.gsidx");
    SavedIndex {
        index,
        facts: GraphFacts::default(),
        source: None,
    }
    .write(&path)
    .expect("written");
    let saved = SavedIndex::open(&path).expect("opened").index;
    for v in 0..3 {
        for direction in [Direction::Out, Direction::In] {
            for l in [0, 1] {
                assert_eq!(
                    saved.pcsr().neighbors(v, l, direction),
                    spec.graph().neighbors(v, l, direction),
                    "N({v}, {l}) {direction:?}"
                );
            }
        }
    }
}
