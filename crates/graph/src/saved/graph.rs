//! A graph's sections in a saved index: its CSR adjacencies and labels, read in place, and
//! what its file said beside it (format, vertex names, label dictionaries, dropped edges).
//! Everything read is checked for the invariants the matchers rely on, so that even a file
//! that passes its checksums cannot make them index out of bounds.

use rayon::prelude::*;

use super::{Reader, Writer};
use crate::formats::{Dictionary, Format, LabelNames, LoadedGraph, SkippedEdges, VertexNames};
use crate::graph::{Csr, LabelSets};
use crate::{Graph, Result};

/// What a graph's file said beside the graph; a [`LoadedGraph`] without its graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphFacts {
    /// The format the graph was read from ([`Format::Auto`] for a graph built in memory).
    pub format: Format,
    /// Original ids or RDF terms of the vertices.
    pub names: Option<VertexNames>,
    /// Names of the labels.
    pub labels: LabelNames,
    /// Edges the reader dropped.
    pub skipped: SkippedEdges,
}

impl GraphFacts {
    /// The facts of `loaded`, and its graph.
    pub fn split(loaded: LoadedGraph) -> (Graph, GraphFacts) {
        let LoadedGraph {
            graph,
            format,
            names,
            labels,
            skipped,
        } = loaded;
        let facts = GraphFacts {
            format,
            names,
            labels,
            skipped,
        };
        (graph, facts)
    }

    /// `graph` with these facts.
    pub fn join(self, graph: Graph) -> LoadedGraph {
        LoadedGraph {
            graph,
            format: self.format,
            names: self.names,
            labels: self.labels,
            skipped: self.skipped,
        }
    }
}

/// Writing and reading a graph with its facts.
pub trait SavedGraph: Sized {
    /// Appends the graph's sections.
    ///
    /// # Errors
    /// Writing fails.
    fn save(&self, facts: &GraphFacts, out: &mut Writer) -> Result<()>;

    /// Reads the sections [`SavedGraph::save`] wrote, checked.
    ///
    /// # Errors
    /// A section is missing or damaged, or the graph breaks an invariant.
    fn restore(from: &mut Reader) -> Result<(Self, GraphFacts)>;
}

const NO_NAMES: u64 = 0;
const ID_NAMES: u64 = 1;
const TERM_NAMES: u64 = 2;

impl SavedGraph for Graph {
    fn save(&self, facts: &GraphFacts, out: &mut Writer) -> Result<()> {
        let format = Format::ALL
            .iter()
            .position(|&f| f == facts.format)
            .expect("every format is in ALL") as u64;
        out.section::<u64>(
            "graph",
            &[
                u64::from(self.directed),
                self.vertex_count() as u64,
                self.edge_count as u64,
                format,
                facts.skipped.duplicates,
                facts.skipped.self_loops,
            ],
        )?;
        out.section("vertex.labels", &self.vertex_labels)?;
        out.section("vsets.offsets", &self.label_sets.offsets)?;
        out.section("vsets.labels", &self.label_sets.labels)?;
        for (csr, name) in [(&self.out, "out"), (&self.inc, "in")] {
            out.section(&format!("{name}.offsets"), &csr.offsets)?;
            out.section(&format!("{name}.neighbors"), &csr.neighbors)?;
            out.section(&format!("{name}.labels"), &csr.labels)?;
        }
        match &facts.names {
            None => out.section::<u64>("names", &[NO_NAMES])?,
            Some(VertexNames::Ids(ids)) => {
                out.section::<u64>("names", &[ID_NAMES])?;
                out.section("names.ids", ids)?;
            }
            Some(VertexNames::Terms(terms)) => {
                out.section::<u64>("names", &[TERM_NAMES])?;
                save_dictionary(terms, "terms", out)?;
            }
        }
        for (dictionary, name) in [
            (&facts.labels.vertex, "vlabels"),
            (&facts.labels.edge, "elabels"),
        ] {
            out.section::<u64>(name, &[u64::from(dictionary.is_some())])?;
            if let Some(dictionary) = dictionary {
                save_dictionary(dictionary, name, out)?;
            }
        }
        Ok(())
    }

    fn restore(from: &mut Reader) -> Result<(Graph, GraphFacts)> {
        let [directed, n, edge_count, format, duplicates, self_loops] =
            from.array::<u64, 6>("graph")?;
        let format = usize::try_from(format)
            .ok()
            .and_then(|f| Format::ALL.get(f).copied())
            .ok_or_else(|| from.invalid("the saved graph's format is unknown"))?;
        let directed = match directed {
            0 => false,
            1 => true,
            _ => return Err(from.invalid("the saved graph is neither directed nor undirected")),
        };
        let vertex_labels = from.section("vertex.labels")?;
        let label_sets = LabelSets {
            offsets: from.section("vsets.offsets")?,
            labels: from.section("vsets.labels")?,
        };
        let mut csrs = Vec::with_capacity(2);
        for name in ["out", "in"] {
            csrs.push(Csr::new(
                from.section(&format!("{name}.offsets"))?,
                from.section(&format!("{name}.neighbors"))?,
                from.section(&format!("{name}.labels"))?,
            ));
        }
        let inc = csrs.pop().expect("two adjacencies");
        let out = csrs.pop().expect("two adjacencies");
        let graph = Graph {
            directed,
            vertex_labels,
            label_sets,
            out,
            inc,
            edge_count: usize::try_from(edge_count).unwrap_or(usize::MAX),
        };
        check_graph(&graph, n)
            .map_err(|problem| from.invalid(&format!("the saved graph {problem}")))?;
        let names = match from.array::<u64, 1>("names")? {
            [NO_NAMES] => None,
            [ID_NAMES] => Some(VertexNames::Ids(from.vec("names.ids")?)),
            [TERM_NAMES] => Some(VertexNames::Terms(restore_dictionary("terms", from)?)),
            _ => return Err(from.invalid("the saved graph's vertex names are of an unknown kind")),
        };
        if names
            .as_ref()
            .is_some_and(|names| names.len() != graph.vertex_count())
        {
            return Err(
                from.invalid("the saved graph names another number of vertices than it has")
            );
        }
        let mut dictionaries = Vec::with_capacity(2);
        for name in ["vlabels", "elabels"] {
            dictionaries.push(match from.array::<u64, 1>(name)? {
                [0] => None,
                [1] => Some(restore_dictionary(name, from)?),
                _ => return Err(from.invalid("the saved graph's label names are damaged")),
            });
        }
        let edge = dictionaries.pop().expect("two dictionaries");
        let vertex = dictionaries.pop().expect("two dictionaries");
        let facts = GraphFacts {
            format,
            names,
            labels: LabelNames { vertex, edge },
            skipped: SkippedEdges {
                duplicates,
                self_loops,
            },
        };
        Ok((graph, facts))
    }
}

fn save_dictionary(dictionary: &Dictionary, tag: &str, out: &mut Writer) -> Result<()> {
    let (text, ends) = dictionary.parts();
    out.section::<u64>(&format!("{tag}.first"), &[u64::from(dictionary.first())])?;
    out.section(&format!("{tag}.text"), text.as_bytes())?;
    out.section(&format!("{tag}.ends"), ends)
}

fn restore_dictionary(tag: &str, from: &mut Reader) -> Result<Dictionary> {
    let [first] = from.array::<u64, 1>(&format!("{tag}.first"))?;
    let text = String::from_utf8(from.vec(&format!("{tag}.text"))?)
        .map_err(|_| from.invalid(&format!("the saved names `{tag}` are not UTF-8")))?;
    let ends = from.vec(&format!("{tag}.ends"))?;
    let first = u32::try_from(first)
        .map_err(|_| from.invalid(&format!("the saved names `{tag}` start past 2^32")))?;
    Dictionary::from_parts(first, text, ends)
        .map_err(|problem| from.invalid(&format!("the saved names `{tag}` are wrong: {problem}")))
}

/// Whether `graph` has the shape [`crate::GraphBuilder`] gives: `n` vertices, offsets from 0
/// up to the entries, neighbours below `n` and never the vertex itself (no self-loops, which
/// the counts rely on: two adjacent query vertices never share a data vertex), each row
/// sorted by (label, neighbour) without repeats, and as many entries as edges (twice as many
/// when undirected).
fn check_graph(graph: &Graph, n: u64) -> std::result::Result<(), String> {
    let n = usize::try_from(n).map_err(|_| "has too many vertices".to_string())?;
    if graph.vertex_labels.len() != n || n > u32::MAX as usize {
        return Err("has a vertex count that disagrees with its labels".into());
    }
    check_label_sets(graph).map_err(|p| format!("label sets {p}"))?;
    let entries = if graph.directed {
        graph.edge_count
    } else {
        graph.edge_count.saturating_mul(2)
    };
    check_csr(&graph.out, n, entries).map_err(|p| format!("out-adjacency {p}"))?;
    if graph.directed {
        check_csr(&graph.inc, n, entries).map_err(|p| format!("in-adjacency {p}"))?;
        check_mirrored(&graph.out, &graph.inc)
            .map_err(|()| "in-adjacency disagrees with its out-adjacency".to_string())
    } else if graph.inc != Csr::default() {
        Err("is undirected but has an in-adjacency".into())
    } else {
        check_mirrored(&graph.out, &graph.out)
            .map_err(|()| "lists an edge that its other end lacks".to_string())
    }
}

/// Whether the entries `v -l-> w` of `csr` are, as a multiset, the entries `w <-l- v` of
/// `mirror`: compared through sums of a hash keyed anew for every check, one streaming pass
/// over each (a binary search per entry into the other end's row took seconds on graphs of
/// millions of edges). A file cannot be made to pass without knowing the key.
fn check_mirrored(csr: &Csr, mirror: &Csr) -> std::result::Result<(), ()> {
    use std::hash::BuildHasher;
    let key = std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64);
    let sum = |csr: &Csr, forward: bool| -> u64 {
        (0..csr.offsets.len() - 1)
            .into_par_iter()
            .map(|v| {
                (csr.offsets[v]..csr.offsets[v + 1])
                    .map(|i| {
                        let (w, label) = (u64::from(csr.neighbors[i]), u64::from(csr.labels[i]));
                        let (from, to) = if forward {
                            (v as u64, w)
                        } else {
                            (w, v as u64)
                        };
                        entry_hash(key, from, to, label)
                    })
                    .fold(0u64, u64::wrapping_add)
            })
            .reduce(|| 0, u64::wrapping_add)
    };
    if sum(csr, true) == sum(mirror, false) {
        Ok(())
    } else {
        Err(())
    }
}

/// A 64-bit hash of the entry `from -label-> to` under `key` (the finaliser of SplitMix64,
/// applied field by field).
fn entry_hash(key: u64, from: u64, to: u64, label: u64) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(mix(mix(key ^ from) ^ to) ^ label.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// Whether the label sets are none, or one per vertex, each sorted without repeats and
/// starting with the vertex's label.
fn check_label_sets(graph: &Graph) -> std::result::Result<(), String> {
    let sets = &graph.label_sets;
    if sets.is_empty() {
        return match sets.labels.is_empty() {
            true => Ok(()),
            false => Err("have labels but no offsets".into()),
        };
    }
    let n = graph.vertex_labels.len();
    if sets.offsets.len() != n + 1 || sets.offsets[0] != 0 || sets.offsets[n] != sets.labels.len() {
        return Err("have offsets that disagree with their labels".into());
    }
    let problem = |v: usize| {
        let (start, end) = (sets.offsets[v], sets.offsets[v + 1]);
        if start >= end || end > sets.labels.len() {
            return Some(format!("give vertex {v} no labels"));
        }
        let set = &sets.labels[start..end];
        (set[0] != graph.vertex_labels[v] || set.windows(2).any(|w| w[0] >= w[1]))
            .then(|| format!("of vertex {v} are not sorted from its label"))
    };
    match (0..n).into_par_iter().find_first(|&v| problem(v).is_some()) {
        None => Ok(()),
        Some(v) => Err(problem(v).unwrap_or_default()),
    }
}

fn check_csr(csr: &Csr, n: usize, entries: usize) -> std::result::Result<(), String> {
    let offsets = &csr.offsets;
    if offsets.len() != n + 1
        || offsets[0] != 0
        || offsets[n] != entries
        || csr.neighbors.len() != entries
        || csr.labels.len() != entries
    {
        return Err("has offsets that disagree with its entries".into());
    }
    let row_ok = |v: usize| {
        let (start, end) = (offsets[v], offsets[v + 1]);
        start <= end
            && end <= entries
            && csr.neighbors[start..end]
                .iter()
                .all(|&w| (w as usize) < n && w as usize != v)
            && (start + 1..end).all(|i| {
                (csr.labels[i - 1], csr.neighbors[i - 1]) < (csr.labels[i], csr.neighbors[i])
            })
    };
    match (0..n).into_par_iter().find_any(|&v| !row_ok(v)) {
        Some(v) => Err(format!("has a bad row at vertex {v}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read_graphs, ReadOptions};
    use crate::GraphBuilder;

    fn round_trip(loaded: &LoadedGraph) -> LoadedGraph {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.gsidx");
        let (graph, facts) = GraphFacts::split(loaded.clone());
        let mut out = Writer::create(&path).unwrap();
        graph.save(&facts, &mut out).unwrap();
        out.finish().unwrap();
        let mut from = Reader::open(&path).unwrap();
        let (graph, facts) = Graph::restore(&mut from).unwrap();
        from.finish().unwrap();
        assert!(graph.vertex_labels.is_mapped());
        facts.join(graph)
    }

    #[test]
    fn graphs_round_trip_with_their_names_and_dictionaries() {
        let dir = tempfile::tempdir().unwrap();
        let nt = dir.path().join("g.nt");
        std::fs::write(
            &nt,
            "<a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <C> .\n<a> <p> <b> .\n<b> <q> \"x\"@en .\n<a> <p> <b> .\n<a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <D> .\n",
        )
        .unwrap();
        let snap = dir.path().join("g.txt");
        std::fs::write(&snap, "# c\n10 20\n20 30 4\n30 30\n").unwrap();
        for (path, directed) in [(&nt, true), (&snap, false), (&snap, true)] {
            let options = ReadOptions {
                directed,
                ..ReadOptions::default()
            };
            for loaded in read_graphs(path, &options).unwrap() {
                assert_eq!(round_trip(&loaded), loaded, "{}", path.display());
                // The N-Triples graph's <a> has two types: its label sets are saved too.
                assert_eq!(loaded.graph.has_label_sets(), path == &nt);
            }
        }
        let empty = LoadedGraph::plain(GraphBuilder::new(false).build().unwrap(), Format::SunLuo);
        assert_eq!(round_trip(&empty), empty);
    }

    #[test]
    fn graphs_that_break_an_invariant_are_refused() {
        let mut b = GraphBuilder::new(false);
        for l in [0, 1, 2] {
            b.add_vertex(l);
        }
        b.add_edge(0, 1, 0).unwrap();
        b.add_edge(1, 2, 3).unwrap();
        let good = b.build().unwrap();
        assert_eq!(check_graph(&good, 3), Ok(()));
        assert!(check_graph(&good, 4).is_err());
        let mut bad = good.clone();
        bad.out.neighbors = vec![1, 0, 7, 1].into();
        assert!(check_graph(&bad, 3).unwrap_err().contains("bad row"));
        let mut bad = good.clone();
        bad.out.labels = vec![0, 3, 0, 3].into();
        assert!(check_graph(&bad, 3)
            .unwrap_err()
            .contains("bad row at vertex 1"));
        // A self-loop at 0 and one at 1, each mirrored: rows sorted, ends agreeing.
        let mut bad = good.clone();
        bad.out.neighbors = vec![0, 1, 2, 1].into();
        assert!(check_graph(&bad, 3).unwrap_err().contains("bad row"));
        let mut bad = good.clone();
        bad.edge_count = 3;
        assert!(check_graph(&bad, 3).unwrap_err().contains("offsets"));
        let mut bad = good.clone();
        bad.directed = true;
        assert!(check_graph(&bad, 3).is_err());
        let mut b = GraphBuilder::with_vertices(false, vec![0, 1, 2]);
        b.add_label(1, 5).unwrap();
        let sets = b.build().unwrap();
        assert_eq!(check_graph(&sets, 3), Ok(()));
        let mut bad = sets.clone();
        bad.label_sets.labels = vec![0, 5, 1, 2].into();
        assert!(check_graph(&bad, 3).unwrap_err().contains("not sorted"));
        let mut bad = sets;
        bad.label_sets.offsets = vec![0, 1, 1, 4].into();
        assert!(check_graph(&bad, 3).unwrap_err().contains("no labels"));
    }
}
