//! `gsi info`: what a graph file holds, and what gsi's index of it costs.

use std::collections::HashMap;
use std::io::{self, Write};

use anyhow::Result;
use gsi_core::{DataIndex, IndexBytes, IndexOptions, PcsrLayout};
use gsi_graph::formats::{Dictionary, Format, VertexNames};
use gsi_graph::{Direction, Graph, VertexId};
use serde::Serialize;

use crate::config::{index_options, process_bound, read_options};
use crate::exit::Exit;
use crate::flags::InfoArgs;
use crate::output::ms;
use crate::queries::query_name;
use crate::{load, progress, system};

/// Labels listed per kind.
const TOP_LABELS: usize = 5;

/// One label and how often it occurs.
#[derive(Debug, PartialEq, Serialize)]
pub struct LabelCount {
    pub label: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub count: u64,
}

/// Minimum, mean, median and maximum degree.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Degrees {
    pub min: u64,
    pub mean: f64,
    pub median: f64,
    pub max: u64,
}

/// What `gsi info` prints about one graph.
#[derive(Debug, Serialize)]
pub struct Info {
    pub graph: String,
    pub format: String,
    pub vertices: usize,
    pub edges: usize,
    pub directed: bool,
    pub vertex_labels: usize,
    pub edge_labels: usize,
    pub top_vertex_labels: Vec<LabelCount>,
    pub top_edge_labels: Vec<LabelCount>,
    pub degree: Degrees,
    /// The share of wedges that close into triangles, drawn ([`DataIndex::closed_wedges`]).
    pub closed_wedges: f64,
    pub load_ms: f64,
    pub index_ms: f64,
    /// For a saved index: the graph file it was built from (`-` when that was no file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_from: Option<String>,
    /// Bytes of the signature table and the PCSRs: what the GPU engine copies.
    pub index_bytes: usize,
    pub memory: Memory,
    pub pcsr_layout: &'static str,
    pub pcsr_partitions: usize,
    /// Every partition, largest first (the text lists the first few).
    pub pcsr: Vec<PartitionBytes>,
    pub pcsr_longest_chain: usize,
    pub skipped_duplicates: u64,
    pub skipped_self_loops: u64,
    /// RDF: distinct terms (vertices), classes and predicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term_dictionary: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_dictionary: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate_dictionary: Option<usize>,
}

/// Where the bytes of a loaded, indexed graph go.
#[derive(Debug, Default, Serialize)]
pub struct Memory {
    /// The index's parts.
    #[serde(flatten)]
    pub parts: IndexBytes,
    /// Every part above.
    pub host_bytes: usize,
    pub host_bytes_per_edge: f64,
    /// What the GPU engine copies to the device: signatures and PCSRs.
    pub device_bytes: usize,
    pub device_bytes_per_edge: f64,
    /// The process's peak resident memory once the file was read (reader buffers included),
    /// and once the index was built; 0 where the system does not say.
    pub peak_rss_after_load: u64,
    pub peak_rss_after_index: u64,
}

/// One PCSR partition's size.
#[derive(Debug, Serialize)]
pub struct PartitionBytes {
    /// The edge label, as the file wrote it.
    pub label: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `out`, or `in` for the in-edges of a directed graph.
    pub direction: &'static str,
    /// Vertices with edges of this label.
    pub vertices: usize,
    pub group_bytes: usize,
    pub column_index_bytes: usize,
}

/// PCSR partitions listed in the text output.
const TOP_PARTITIONS: usize = 5;

/// The `n` most frequent labels, most frequent first (ties: smaller label first), as the
/// file wrote them: `shift` is added back where the reader shifted them (GSI files count
/// labels from 1).
pub fn top_labels(
    counts: impl IntoIterator<Item = (u32, u64)>,
    n: usize,
    names: Option<&Dictionary>,
    shift: u32,
) -> Vec<LabelCount> {
    let mut all: Vec<(u32, u64)> = counts.into_iter().filter(|&(_, c)| c > 0).collect();
    all.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(n);
    all.into_iter()
        .map(|(label, count)| LabelCount {
            label: label + shift,
            name: names.and_then(|d| d.name(label)).map(str::to_owned),
            count,
        })
        .collect()
}

/// Degree statistics: every edge at a vertex, in and out for a directed graph.
pub fn degrees(graph: &Graph) -> Degrees {
    let n = graph.vertex_count();
    if n == 0 {
        return Degrees::default();
    }
    let mut all: Vec<u64> = (0..n as VertexId)
        .map(|v| {
            let mut d = graph.degree(v, Direction::Out);
            if graph.is_directed() {
                d += graph.degree(v, Direction::In);
            }
            d as u64
        })
        .collect();
    let total: u64 = all.iter().sum();
    let (min, max) = all
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    let upper = *all.select_nth_unstable(n / 2).1;
    let median = if n % 2 == 1 {
        upper as f64
    } else {
        let lower = *all[..n / 2].iter().max().expect("n >= 2");
        (lower + upper) as f64 / 2.0
    };
    Degrees {
        min,
        mean: total as f64 / n as f64,
        median,
        max,
    }
}

/// Describes one graph of a file, building its index unless the file is a saved index.
fn describe(
    name: String,
    file: load::DataFile,
    options: IndexOptions,
    load_ms: f64,
    path: &std::path::Path,
    spinner: &indicatif::ProgressBar,
) -> Result<Info> {
    let peak_rss_after_load = system::peak_rss_bytes();
    let saved_from = match &file {
        load::DataFile::Saved(saved) => Some(
            saved
                .source
                .as_ref()
                .map_or_else(|| "-".to_string(), |s| crate::exit::shown(&s.path)),
        ),
        load::DataFile::Text(_) => None,
    };
    let (index, facts, index_time) = file.into_index(options, path, spinner)?;
    let peak_rss_after_index = system::peak_rss_bytes();
    let graph = index.graph();
    let mut vertex_counts: HashMap<u32, u64> = HashMap::new();
    for v in 0..graph.vertex_count() as u32 {
        for &label in graph.labels_of(v) {
            *vertex_counts.entry(label).or_default() += 1;
        }
    }
    let degree = degrees(graph);
    let (vertices, edges, directed) = (
        graph.vertex_count(),
        graph.edge_count(),
        graph.is_directed(),
    );
    let mut edge_labels: Vec<u32> = index.pcsr().partitions().map(|((l, _), _)| l).collect();
    edge_labels.dedup();
    let edge_counts = edge_labels
        .iter()
        .map(|&l| (l, index.edge_label_count(l) as u64));
    let shift = u32::from(facts.format == Format::Gsi);
    let bytes = index.bytes();
    let per_edge = |b: usize| b as f64 / edges.max(1) as f64;
    let memory = Memory {
        parts: bytes,
        host_bytes: bytes.total(),
        host_bytes_per_edge: per_edge(bytes.total()),
        device_bytes: bytes.device(),
        device_bytes_per_edge: per_edge(bytes.device()),
        peak_rss_after_load,
        peak_rss_after_index,
    };
    let mut pcsr: Vec<PartitionBytes> = index
        .pcsr()
        .partitions()
        .map(|((label, direction), p)| {
            let (group_bytes, column_index_bytes) = p.bytes();
            PartitionBytes {
                label: label + shift,
                name: facts
                    .labels
                    .edge
                    .as_ref()
                    .and_then(|d| d.name(label))
                    .map(str::to_owned),
                direction: match direction {
                    Direction::Out => "out",
                    Direction::In => "in",
                },
                vertices: p.vertex_count(),
                group_bytes,
                column_index_bytes,
            }
        })
        .collect();
    pcsr.sort_by_key(|p| std::cmp::Reverse(p.group_bytes + p.column_index_bytes));
    Ok(Info {
        graph: name,
        format: facts.format.to_string(),
        vertices,
        edges,
        directed,
        vertex_labels: vertex_counts.len(),
        edge_labels: edge_labels.len(),
        top_vertex_labels: top_labels(
            vertex_counts.iter().map(|(&l, &c)| (l, c)),
            TOP_LABELS,
            facts.labels.vertex.as_ref(),
            shift,
        ),
        top_edge_labels: top_labels(edge_counts, TOP_LABELS, facts.labels.edge.as_ref(), shift),
        degree,
        closed_wedges: index.closed_wedges(),
        load_ms,
        index_ms: ms(index_time),
        saved_from,
        index_bytes: bytes.device(),
        memory,
        pcsr_layout: match index.options().pcsr_layout {
            PcsrLayout::Paper => "paper",
            PcsrLayout::Packed => "packed",
        },
        pcsr_partitions: pcsr.len(),
        pcsr,
        pcsr_longest_chain: longest_chain(&index),
        skipped_duplicates: facts.skipped.duplicates,
        skipped_self_loops: facts.skipped.self_loops,
        term_dictionary: match &facts.names {
            Some(VertexNames::Terms(terms)) => Some(terms.len()),
            _ => None,
        },
        class_dictionary: facts.labels.vertex.as_ref().map(Dictionary::len),
        predicate_dictionary: facts.labels.edge.as_ref().map(Dictionary::len),
    })
}

/// The longest overflow chain a PCSR lookup may follow, over all partitions.
fn longest_chain(index: &DataIndex) -> usize {
    index
        .pcsr()
        .partitions()
        .map(|(_, p)| p.longest_chain())
        .max()
        .unwrap_or(0)
}

/// The largest partitions: `label direction: vertices, group bytes + list bytes`.
fn partitions_cell(partitions: &[PartitionBytes]) -> String {
    let cells: Vec<String> = partitions
        .iter()
        .take(TOP_PARTITIONS)
        .map(|p| {
            let label = match &p.name {
                Some(name) => format!("{} {name}", p.label),
                None => p.label.to_string(),
            };
            format!(
                "{label} {} ({} vertices, {} + {} bytes)",
                p.direction, p.vertices, p.group_bytes, p.column_index_bytes
            )
        })
        .collect();
    if cells.is_empty() {
        "-".into()
    } else {
        cells.join(", ")
    }
}

fn labels_cell(labels: &[LabelCount]) -> String {
    let cells: Vec<String> = labels
        .iter()
        .map(|l| match &l.name {
            Some(name) => format!("{} {name} ({})", l.label, l.count),
            None => format!("{} ({})", l.label, l.count),
        })
        .collect();
    if cells.is_empty() {
        "-".into()
    } else {
        cells.join(", ")
    }
}

/// `key = value` lines.
pub fn write_text(out: &mut impl Write, info: &Info) -> io::Result<()> {
    let mut lines: Vec<(&str, String)> = vec![
        ("graph", info.graph.clone()),
        ("format", info.format.clone()),
        ("vertices", info.vertices.to_string()),
        ("edges", info.edges.to_string()),
        ("directed", info.directed.to_string()),
        ("vertex_labels", info.vertex_labels.to_string()),
        ("edge_labels", info.edge_labels.to_string()),
        ("top_vertex_labels", labels_cell(&info.top_vertex_labels)),
        ("top_edge_labels", labels_cell(&info.top_edge_labels)),
        ("degree_min", info.degree.min.to_string()),
        ("degree_mean", format!("{:.3}", info.degree.mean)),
        ("degree_median", info.degree.median.to_string()),
        ("degree_max", info.degree.max.to_string()),
        ("closed_wedges", format!("{:.4}", info.closed_wedges)),
        ("load_ms", format!("{:.3}", info.load_ms)),
        ("index_ms", format!("{:.3}", info.index_ms)),
        ("index_bytes", info.index_bytes.to_string()),
        ("pcsr_layout", info.pcsr_layout.to_string()),
        ("pcsr_partitions", info.pcsr_partitions.to_string()),
        ("pcsr_largest", partitions_cell(&info.pcsr)),
        ("pcsr_longest_chain", info.pcsr_longest_chain.to_string()),
        ("skipped_duplicates", info.skipped_duplicates.to_string()),
        ("skipped_self_loops", info.skipped_self_loops.to_string()),
    ];
    let m = &info.memory;
    for (key, bytes) in [
        ("memory_csr_offsets", m.parts.csr_offsets),
        ("memory_csr_neighbors", m.parts.csr_neighbors),
        ("memory_csr_edge_labels", m.parts.csr_edge_labels),
        ("memory_vertex_labels", m.parts.vertex_labels),
        ("memory_label_lists", m.parts.label_lists),
        ("memory_signatures", m.parts.signatures),
        ("memory_pcsr_groups", m.parts.pcsr_groups),
        ("memory_pcsr_column_index", m.parts.pcsr_column_index),
        ("memory_host_bytes", m.host_bytes),
        ("memory_device_bytes", m.device_bytes),
    ] {
        lines.push((key, bytes.to_string()));
    }
    lines.push((
        "memory_host_bytes_per_edge",
        format!("{:.1}", m.host_bytes_per_edge),
    ));
    lines.push((
        "memory_device_bytes_per_edge",
        format!("{:.1}", m.device_bytes_per_edge),
    ));
    lines.push(("peak_rss_after_load", m.peak_rss_after_load.to_string()));
    lines.push(("peak_rss_after_index", m.peak_rss_after_index.to_string()));
    for (key, value) in [
        ("term_dictionary", info.term_dictionary),
        ("class_dictionary", info.class_dictionary),
        ("predicate_dictionary", info.predicate_dictionary),
    ] {
        if let Some(v) = value {
            lines.push((key, v.to_string()));
        }
    }
    if let Some(source) = &info.saved_from {
        lines.push(("saved_from", source.clone()));
    }
    for (key, value) in lines {
        writeln!(out, "{key} = {value}")?;
    }
    Ok(())
}

pub fn run(args: InfoArgs) -> Result<Exit> {
    let read = read_options(&args.read, process_bound())?;
    let options = index_options()?;
    let spinner = progress::spinner(progress::wanted(args.quiet), String::new());
    // Dropped edges are part of the description; the note on stderr would repeat it.
    let loaded = load::read_file(&args.graph, &read, "graph", &spinner, false)?;
    let count = loaded.graphs.len();
    let load_ms = ms(loaded.time / count.max(1) as u32);
    let mut out = io::stdout().lock();
    for (i, graph) in loaded.graphs.into_iter().enumerate() {
        let info = describe(
            query_name(&args.graph, i, count),
            graph,
            options,
            load_ms,
            &args.graph,
            &spinner,
        )?;
        spinner.suspend(|| -> io::Result<()> {
            if args.json {
                serde_json::to_writer(&mut out, &info)?;
                writeln!(out)
            } else {
                if i > 0 {
                    writeln!(out)?;
                }
                write_text(&mut out, &info)
            }
        })?;
    }
    spinner.finish_and_clear();
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;

    #[test]
    fn top_labels_are_the_most_frequent_first() {
        let counts = [(3, 5), (1, 9), (2, 5), (7, 1), (8, 2), (9, 0), (4, 1)];
        let top = top_labels(counts, 5, None, 0);
        let got: Vec<(u32, u64)> = top.iter().map(|l| (l.label, l.count)).collect();
        assert_eq!(got, vec![(1, 9), (2, 5), (3, 5), (8, 2), (4, 1)]);
        // A GSI file's labels, as written: one higher than gsi's.
        let written = top_labels([(0, 3)], 5, None, 1);
        assert_eq!((written[0].label, written[0].count), (1, 3));
        let mut names = Dictionary::new(1);
        names.insert("<A>");
        let named = top_labels([(1, 2), (0, 1)], 5, Some(&names), 0);
        assert_eq!(named[0].name.as_deref(), Some("<A>"));
        assert_eq!(named[1].name, None);
        assert_eq!(labels_cell(&named), "1 <A> (2), 0 (1)");
        assert_eq!(labels_cell(&[]), "-");
    }

    #[test]
    fn degree_statistics() {
        // A star with 3 leaves and an isolated vertex: degrees 3, 1, 1, 1, 0.
        let mut b = GraphBuilder::with_vertices(false, vec![0; 5]);
        for leaf in 1..4 {
            b.add_edge(0, leaf, 0).unwrap();
        }
        let d = degrees(&b.build().unwrap());
        assert_eq!(
            d,
            Degrees {
                min: 0,
                mean: 1.2,
                median: 1.0,
                max: 3
            }
        );
        // Directed: in and out together; even count, so the middle two are averaged.
        let mut b = GraphBuilder::with_vertices(true, vec![0; 4]);
        b.add_edge(0, 1, 0).unwrap();
        b.add_edge(1, 2, 0).unwrap();
        b.add_edge(2, 0, 0).unwrap();
        b.add_edge(0, 3, 0).unwrap();
        let d = degrees(&b.build().unwrap());
        assert_eq!(
            d,
            Degrees {
                min: 1,
                mean: 2.0,
                median: 2.0,
                max: 3
            }
        );
        let empty = GraphBuilder::new(false).build().unwrap();
        assert_eq!(degrees(&empty), Degrees::default());
    }

    #[test]
    fn describes_a_graph_with_its_index() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 0, 1, 2]);
        b.add_edge(0, 1, 5).unwrap();
        b.add_edge(1, 2, 5).unwrap();
        b.add_edge(2, 3, 6).unwrap();
        let loaded = gsi_graph::formats::LoadedGraph::plain(
            b.build().unwrap(),
            gsi_graph::formats::Format::SunLuo,
        );
        let hidden = indicatif::ProgressBar::hidden();
        let info = describe(
            "g".into(),
            load::DataFile::Text(Box::new(loaded)),
            IndexOptions::default(),
            1.0,
            std::path::Path::new("g"),
            &hidden,
        )
        .unwrap();
        assert_eq!((info.vertices, info.edges, info.directed), (4, 3, false));
        assert_eq!((info.vertex_labels, info.edge_labels), (3, 2));
        assert_eq!(
            info.top_edge_labels[0],
            LabelCount {
                label: 5,
                name: None,
                count: 2
            }
        );
        assert_eq!(info.top_vertex_labels[0].count, 2);
        assert_eq!(info.pcsr_partitions, 2);
        assert!(info.pcsr_longest_chain >= 1);
        assert!(info.index_bytes > 0);
        let mut text = Vec::new();
        write_text(&mut text, &info).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("\nedges = 3\n") && text.contains("degree_max = 2\n"),
            "{text}"
        );
        assert!(!text.contains("term_dictionary"));
    }
}
