//! SNAP edge lists (Stanford Network Analysis Project) and their kin.
//!
//! ```text
//! # comment                 lines starting with `#` (or `%`) are skipped
//! u v [label]               one edge per line, fields separated by spaces or tabs
//! ```
//!
//! Vertex ids may be numbers (any `u64`, not necessarily dense) or names (`alice bob`):
//! vertices are numbered from 0 in order of first appearance, and [`VertexNames`] keeps what
//! each was called ([`VertexNames::Ids`] while every id is a number, [`VertexNames::Terms`]
//! once one is a name). A missing label is 0. Repeated edges (same endpoints and label; in
//! either orientation when read as undirected) and self-loops are dropped silently and
//! counted in [`SkippedEdges`]; a vertex seen only in a self-loop is still a vertex.
//!
//! Vertex labels come from an optional second file of `id label` lines (same comments),
//! where `id` is an original id and `label` a number or, when any label is not one, a name
//! (numbered from 0 in order of first appearance; the names go to [`LabelNames::vertex`]). A vertex it does not mention gets label 0; an id it
//! mentions that no edge has becomes an isolated vertex, numbered after those of the edges.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use crate::formats::fields::Fields;
use crate::formats::names::IdHash;
use crate::formats::Dictionary;
use crate::formats::{empty, Format, LabelNames, Lines, LoadedGraph, SkippedEdges, VertexNames};
use crate::{EdgeLabel, GraphBuilder, Result, VertexId};

/// Original ids to dense vertices, in order of first appearance.
///
/// Ids that are small next to the number of vertices (the usual case: ids `0..N` with
/// gaps) are looked up in a flat table indexed by id; others in a hash map.
struct Renumbering {
    /// `direct[id]` is the vertex of `id`, or [`UNSEEN`].
    direct: Vec<VertexId>,
    hashed: HashMap<u64, VertexId, IdHash>,
    original: Vec<u64>,
}

const UNSEEN: VertexId = VertexId::MAX;

impl Renumbering {
    fn new() -> Renumbering {
        Renumbering {
            direct: Vec::new(),
            hashed: HashMap::default(),
            original: Vec::new(),
        }
    }

    fn vertex(&mut self, id: u64, fields: &Fields<'_>) -> Result<VertexId> {
        if id >= self.direct.len() as u64 {
            // Widen the table while it stays within a few words per vertex.
            let limit = 8 * (self.original.len() as u64 + 1) + (1 << 16);
            if id < limit {
                self.widen(id);
            }
        }
        let next = self.original.len();
        let slot = match self.direct.get_mut(id as usize) {
            Some(slot) if *slot != UNSEEN => return Ok(*slot),
            Some(slot) => Some(slot),
            None => {
                if let Some(&v) = self.hashed.get(&id) {
                    return Ok(v);
                }
                None
            }
        };
        if next >= UNSEEN as usize {
            return Err(fields.error(format!(
                "vertex {id} would be vertex number {next}: more vertices than 32-bit ids can number"
            )));
        }
        match slot {
            Some(slot) => *slot = next as VertexId,
            None => {
                self.hashed.insert(id, next as VertexId);
            }
        }
        self.original.push(id);
        Ok(next as VertexId)
    }

    /// Grows the flat table to cover `id`, moving over the ids it now covers.
    fn widen(&mut self, id: u64) {
        let len = (id + 1).next_power_of_two().max(1 << 10) as usize;
        self.direct.resize(len, UNSEEN);
        let direct = &mut self.direct;
        self.hashed.retain(|&k, &mut v| {
            let moved = k < len as u64;
            if moved {
                direct[k as usize] = v;
            }
            !moved
        });
    }
}

/// Original vertex ids to dense vertices: numbers (SNAP's usual ids) until the first id that
/// is not one (`alice`); from then on every id is a name, compared as text, and the numbers
/// seen before become the names they were written as.
enum Ids {
    Numbers(Renumbering),
    Names(Dictionary),
}

impl Ids {
    fn vertex(&mut self, token: &str, fields: &Fields<'_>) -> Result<VertexId> {
        if let Ids::Numbers(numbers) = self {
            if let Ok(id) = token.parse::<u64>() {
                return numbers.vertex(id, fields);
            }
            let mut names = Dictionary::new(0);
            for id in &numbers.original {
                names.insert(&id.to_string());
            }
            *self = Ids::Names(names);
        }
        let Ids::Names(names) = self else {
            unreachable!("numbers switch to names above")
        };
        if names.id(token).is_none() && names.is_full() {
            return Err(fields.error(format!(
                "vertex `{token}` would be vertex number {}: more vertices than 32-bit ids can number",
                names.len()
            )));
        }
        Ok(names.insert(token))
    }

    fn len(&self) -> usize {
        match self {
            Ids::Numbers(numbers) => numbers.original.len(),
            Ids::Names(names) => names.len(),
        }
    }

    fn into_names(self) -> VertexNames {
        match self {
            Ids::Numbers(numbers) => VertexNames::Ids(numbers.original),
            Ids::Names(names) => VertexNames::Terms(names),
        }
    }
}

fn is_comment(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with('#') || text.starts_with('%')
}

/// Parses a SNAP edge list from `bytes`, with vertex labels from `labels` (a path, for
/// errors, and its bytes) if given. `path` only names the file in errors.
///
/// # Errors
/// [`crate::Error::Parse`] for a malformed line of either file, [`crate::Error::Invalid`] when the edge
/// list has no edge and no comment.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    labels: Option<(&Path, &[u8])>,
    directed: bool,
) -> Result<LoadedGraph> {
    let mut lines = Lines::new(path, bytes);
    let mut ids = Ids::Numbers(Renumbering::new());
    let mut edges: Vec<(VertexId, VertexId, EdgeLabel)> = Vec::new();
    let mut skipped = SkippedEdges::default();
    let mut any_line = false;
    while let Some((line, text)) = lines.next_line()? {
        if is_comment(text) {
            any_line = true;
            continue;
        }
        let mut fields = Fields::new(text, line, path);
        if !fields.has_more() {
            continue;
        }
        any_line = true;
        let u = fields.word().expect("the line has a field");
        let v = fields
            .word()
            .ok_or_else(|| fields.error("missing edge target".into()))?;
        let label = if fields.has_more() {
            fields.label("edge label")?
        } else {
            0
        };
        fields.end("`u v [label]`")?;
        let u = ids.vertex(u, &fields)?;
        let v = ids.vertex(v, &fields)?;
        if u == v {
            skipped.self_loops += 1;
            continue;
        }
        edges.push(if directed || u < v {
            (u, v, label)
        } else {
            (v, u, label)
        });
    }
    if !any_line {
        return Err(empty(path, bytes, "edges `u v [label]`"));
    }
    edges.par_sort_unstable();
    let before = edges.len();
    edges.dedup();
    skipped.duplicates = (before - edges.len()) as u64;
    edges.shrink_to_fit();

    let mut vertex_labels = vec![0; ids.len()];
    let label_names = match labels {
        Some((labels_path, labels_bytes)) => {
            read_labels(labels_path, labels_bytes, &mut ids, &mut vertex_labels)?
        }
        None => None,
    };
    let graph = GraphBuilder::with_edges(directed, vertex_labels, edges)?.build()?;
    Ok(LoadedGraph {
        graph,
        format: Format::Snap,
        names: Some(ids.into_names()),
        labels: LabelNames {
            vertex: label_names,
            edge: None,
        },
        skipped,
    })
}

/// Reads `id label` lines into `vertex_labels`, adding vertices for ids no edge has. Labels are
/// numbers when every label is one; otherwise every label is a name, numbered from 0 in order
/// of first appearance, and the names are returned.
fn read_labels(
    path: &Path,
    bytes: &[u8],
    ids: &mut Ids,
    vertex_labels: &mut Vec<u32>,
) -> Result<Option<Dictionary>> {
    let mut lines = Lines::new(path, bytes);
    // The line that labelled each vertex, 0 while unlabelled.
    let mut labelled_on = vec![0u32; vertex_labels.len()];
    // (vertex, label as written, line), in file order.
    let mut given: Vec<(usize, &str, usize)> = Vec::new();
    while let Some((line, text)) = lines.next_line()? {
        if is_comment(text) {
            continue;
        }
        let mut fields = Fields::new(text, line, path);
        let Some(id) = fields.word() else {
            continue;
        };
        let label = fields
            .word()
            .ok_or_else(|| fields.error("missing vertex label".into()))?;
        fields.end("`id label`")?;
        let v = ids.vertex(id, &fields)? as usize;
        if v == vertex_labels.len() {
            vertex_labels.push(0);
            labelled_on.push(0);
        }
        if labelled_on[v] != 0 {
            return Err(fields.error(format!(
                "vertex {id} is labelled twice (first on line {})",
                labelled_on[v]
            )));
        }
        labelled_on[v] = line as u32;
        given.push((v, label, line));
    }
    let numbered = given.iter().all(|(_, l, _)| l.parse::<u64>().is_ok());
    if numbered {
        for (v, label, line) in given {
            let mut fields = Fields::new(label, line, path);
            vertex_labels[v] = fields.vertex_label("vertex label")?;
        }
        return Ok(None);
    }
    let mut names = Dictionary::new(0);
    for (v, label, _) in given {
        vertex_labels[v] = names.insert(label);
    }
    Ok(Some(names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    fn parse_str(text: &str, directed: bool) -> Result<LoadedGraph> {
        parse(Path::new("g.txt"), text.as_bytes(), None, directed)
    }

    fn with_labels(text: &str, labels: &str) -> Result<LoadedGraph> {
        parse(
            Path::new("g.txt"),
            text.as_bytes(),
            Some((Path::new("labels.txt"), labels.as_bytes())),
            false,
        )
    }

    fn ids(loaded: &LoadedGraph) -> &[u64] {
        match &loaded.names {
            Some(VertexNames::Ids(ids)) => ids,
            other => panic!("expected ids, got {other:?}"),
        }
    }

    #[test]
    fn renumbers_ids_in_order_of_first_appearance() {
        let text =
            "# Directed graph: example\n# FromNodeId\tToNodeId\n1000\t7\n7 42\r\n\n  42   1000  \n";
        let loaded = parse_str(text, false).unwrap();
        assert_eq!(loaded.format, Format::Snap);
        assert_eq!(ids(&loaded), &[1000, 7, 42]);
        let g = &loaded.graph;
        assert_eq!((g.vertex_count(), g.edge_count()), (3, 3));
        assert_eq!(g.vertex_labels(), &[0, 0, 0]);
        assert_eq!(g.neighbors(0, 0, Direction::Out), &[1, 2]);
        assert!(loaded.skipped.is_empty());
        assert_eq!(
            loaded.names.as_ref().unwrap().name(2).unwrap().to_string(),
            "42"
        );
    }

    #[test]
    fn names_are_ids_too_and_numbers_seen_before_become_names() {
        let loaded = with_labels(
            "1 2\nalice bob\n2 alice\n",
            "alice Person\nbob Person\n1 Place\n7 Place\n",
        )
        .unwrap();
        let names = loaded.names.as_ref().unwrap();
        let shown: Vec<String> = (0..5).map(|v| names.name(v).unwrap().to_string()).collect();
        assert_eq!(shown, ["1", "2", "alice", "bob", "7"]);
        assert_eq!(names.find("alice"), Some(2));
        let g = &loaded.graph;
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.vertex_labels(), &[1, 0, 0, 0, 1]);
        let classes = loaded.labels.vertex.as_ref().unwrap();
        assert_eq!(classes.name(0), Some("Person"));
        assert_eq!(classes.name(1), Some("Place"));
        // Numbers only: numeric labels, no names.
        let numeric = with_labels("1 2\n", "1 5\n2 6\n").unwrap();
        assert_eq!(numeric.graph.vertex_labels(), &[5, 6]);
        assert!(numeric.labels.vertex.is_none());
        assert!(matches!(numeric.names, Some(VertexNames::Ids(_))));
    }

    #[test]
    fn drops_duplicates_and_self_loops_and_counts_them() {
        let text = "1 2\n2 1\n1 2\n3 3\n1 2 5\n2 3\n";
        let loaded = parse_str(text, false).unwrap();
        assert_eq!(loaded.graph.edge_count(), 3);
        assert_eq!(loaded.graph.vertex_count(), 3);
        assert_eq!(
            loaded.skipped,
            SkippedEdges {
                duplicates: 2,
                self_loops: 1
            }
        );
        assert_eq!(
            loaded.skipped.to_string(),
            "dropped 2 duplicate edges and 1 self-loop"
        );
        let directed = parse_str(text, true).unwrap();
        assert_eq!(directed.graph.edge_count(), 4);
        assert_eq!(directed.skipped.duplicates, 1);
        assert_eq!(directed.graph.neighbors(1, 0, Direction::Out), &[0, 2]);
        assert_eq!(directed.graph.neighbors(0, 5, Direction::Out), &[1]);
    }

    #[test]
    fn reads_vertex_labels_by_original_id() {
        let loaded = with_labels("10 20\n20 30\n", "# id label\n30 3\n10\t1\n\n99 9\n").unwrap();
        assert_eq!(ids(&loaded), &[10, 20, 30, 99]);
        assert_eq!(loaded.graph.vertex_labels(), &[1, 0, 3, 9]);
        assert_eq!(loaded.graph.degree(3, Direction::Out), 0);
    }

    #[test]
    fn small_and_huge_ids_mix() {
        // Small ids go to the flat table, huge ones to the hash map; 200000 is too large for
        // the table at first and is moved into it once the table has grown to cover it.
        let mut text = String::from("18446744073709551615 200000\n3000 1\n");
        for i in 0..200_000u64 {
            text.push_str(&format!("{i} {}\n", i + 1));
        }
        let loaded = parse_str(&text, false).unwrap();
        let original = ids(&loaded);
        assert_eq!(&original[..5], &[u64::MAX, 200_000, 3000, 1, 0]);
        assert_eq!(original.len(), 200_002);
        let mut sorted = original.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 200_002);
        assert_eq!(loaded.graph.edge_count(), 200_002);
        assert_eq!(loaded.skipped.duplicates, 0);
        let names = loaded.names.as_ref().unwrap();
        assert_eq!(names.find("200000"), Some(1));
        assert_eq!(names.find("2"), Some(5));
        assert_eq!(
            loaded.graph.neighbors(1, 0, Direction::Out),
            &[0, names.find("199999").unwrap()]
        );
    }

    #[test]
    fn only_comments_is_an_empty_graph() {
        let loaded = parse_str("# nothing here\n", false).unwrap();
        assert_eq!(loaded.graph.vertex_count(), 0);
    }

    #[test]
    fn each_malformed_file_names_its_line() {
        let cases = [
            ("", "g.txt: the file is empty: expected edges"),
            ("\n  \n", "the file is empty"),
            ("1\n", "g.txt:1: missing edge target"),
            ("1 2 3 4\n", "g.txt:1: unexpected `4` after `u v [label]`"),
            (
                "1 2 99999999999\n",
                "g.txt:1: edge label 99999999999 does not fit in 32 bits",
            ),
            (
                "1 2\n3 4 a\n",
                "g.txt:2: edge label must be an integer, found `a`",
            ),
            ("1 2\n\u{0}\n", "g.txt:2: this line is not text"),
        ];
        for (text, expected) in cases {
            let msg = parse_str(text, false).unwrap_err().to_string();
            assert!(
                msg.contains(expected),
                "{text:?}: got `{msg}`, expected `{expected}`"
            );
        }
        let label_cases = [
            ("1\n", "labels.txt:1: missing vertex label"),
            (
                "1 99999999999\n",
                "vertex label 99999999999 does not fit in 32 bits",
            ),
            ("1 1 1\n", "labels.txt:1: unexpected `1` after `id label`"),
            (
                "1 1\n# again\n1 2\n",
                "labels.txt:3: vertex 1 is labelled twice (first on line 1)",
            ),
            ("7 1\n7 1\n", "labels.txt:2: vertex 7 is labelled twice"),
        ];
        for (labels, expected) in label_cases {
            let msg = with_labels("1 2\n", labels).unwrap_err().to_string();
            assert!(
                msg.contains(expected),
                "{labels:?}: got `{msg}`, expected `{expected}`"
            );
        }
    }
}
