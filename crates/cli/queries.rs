//! Query files to queries: a file holds one graph, or (GSI) several, named `FILE#INDEX`.
//! Labels a query file names (N-Triples) are renumbered through the data graph's names.

use std::path::Path;

use anyhow::{anyhow, Result};
use gsi_core::DataIndex;
use gsi_graph::formats::{
    read_graphs, LabelNames, LoadedGraph, ReadOptions, SkippedEdges, UnknownLabel, VertexNames,
};
use gsi_graph::saved::is_saved_index;
use gsi_graph::Graph;

use crate::exit::{escape_controls, input_error, shown};

/// One query to answer: its name, and its graph or why it could not be read.
pub struct Query {
    pub name: String,
    pub graph: Result<Graph>,
    /// Label names of the query that the data graph lacks (so the query has no match).
    pub unknown_labels: Vec<UnknownLabel>,
    /// Repeated edges and self-loops its reader dropped.
    pub skipped: SkippedEdges,
    /// The names its file gave its vertices (SNAP ids, RDF terms), if any.
    pub vertex_names: Option<VertexNames>,
}

impl Query {
    fn failed(name: String, err: anyhow::Error) -> Query {
        Query {
            name,
            graph: Err(err),
            unknown_labels: Vec::new(),
            skipped: SkippedEdges::default(),
            vertex_names: None,
        }
    }

    /// For `--explain`: which of the query's own vertices each `uI` of the plan is, where its
    /// file names them (`u0 = alice, u1 = bob`), escaped as every printed name is.
    pub fn legend(&self) -> Option<String> {
        let names = self.vertex_names.as_ref()?;
        let n = self.graph.as_ref().ok()?.vertex_count();
        let pairs: Vec<String> = (0..n as u32)
            .map(|u| match names.name(u) {
                Some(name) => format!("u{u} = {name}"),
                None => format!("u{u}"),
            })
            .collect();
        Some(format!(
            "  query vertices: {}\n",
            escape_controls(&pairs.join(", "))
        ))
    }

    /// The query of `loaded`, its labels in the numbering of `data_labels`.
    fn translated(name: String, loaded: LoadedGraph, data_labels: &LabelNames) -> Query {
        match data_labels.translate(loaded.graph, &loaded.labels) {
            Ok(t) => Query {
                name,
                graph: Ok(t.graph),
                unknown_labels: t.unknown,
                skipped: loaded.skipped,
                vertex_names: loaded.names,
            },
            Err(err) => {
                let err = anyhow::Error::new(err).context(format!("reading query {name}"));
                Query::failed(name, err)
            }
        }
    }

    /// What the user should hear of before the answer, when the query looks like a mistake
    /// or plainly has no match: a query larger than the data graph (swapped `--data` and
    /// `--query`?), labels the data graph lacks (a few named), more vertices of a label than
    /// the data graph has under an `injective` semantics (answered 0 at once), edges its
    /// reader dropped. The answer stays exact.
    pub fn hints(&self, data: &DataIndex, injective: bool) -> Vec<String> {
        let name = &self.name;
        let mut hints = Vec::new();
        let query = self.graph.as_ref().ok();
        let (q, d) = (
            query.map_or(0, Graph::vertex_count),
            data.graph().vertex_count(),
        );
        if q > d {
            hints.push(format!(
                "{name}: the query has more vertices ({q}) than the data graph ({d}): were --data and --query swapped?"
            ));
        }
        let mut missing: Vec<String> = self.unknown_labels.iter().map(|u| u.to_string()).collect();
        if let (Some(query), true) = (query, missing.is_empty()) {
            let mut vertex: Vec<u32> = (0..query.vertex_count() as u32)
                .flat_map(|u| query.labels_of(u).iter().copied())
                .filter(|&l| data.vertices_with_label(l).is_empty())
                .collect();
            vertex.sort_unstable();
            vertex.dedup();
            missing.extend(vertex.iter().map(|l| format!("vertex label {l}")));
            let edge = query.edge_labels();
            missing.extend(
                edge.iter()
                    .filter(|&&l| data.edge_label_count(l) == 0)
                    .map(|l| format!("edge label {l}")),
            );
        }
        if !missing.is_empty() {
            hints.push(format!(
                "{name}: the data graph has no {}: no match",
                few(&missing)
            ));
        }
        if let (Some(query), true, true) = (query, injective, missing.is_empty() && q <= d) {
            if let Some(misfit) = gsi_core::fit::misfit(query, data) {
                hints.push(format!("{name}: {misfit}: no match"));
            }
        }
        if !self.skipped.is_empty() {
            hints.push(format!("{name}: {} in the query", self.skipped));
        }
        hints
    }
}

/// The first few of `items`, and how many more there are.
fn few(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let shown = items[..items.len().min(SHOWN)].join(", ");
    match items.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

/// The name of graph `index` of a file holding `count` graphs.
pub fn query_name(path: &Path, index: usize, count: usize) -> String {
    if count == 1 {
        shown(path)
    } else {
        format!("{}#{index}", shown(path))
    }
}

/// The queries of one file, their labels in the numbering of `data_labels` (the data
/// graph's label names); a file that cannot be read gives one query that failed.
pub fn read_query_file(path: &Path, options: &ReadOptions, data_labels: &LabelNames) -> Vec<Query> {
    let name = shown(path);
    if is_saved_index(path) {
        let err = input_error(format!(
            "reading query {name}: this is a saved index (made by gsi index), which holds a data graph and cannot be a query; give the query's text file"
        ));
        return vec![Query::failed(name, err)];
    }
    match read_graphs(path, options) {
        Ok(graphs) if graphs.is_empty() => {
            let err = anyhow!("reading query {name}: the file holds no graph");
            vec![Query::failed(name, err)]
        }
        Ok(graphs) => {
            let count = graphs.len();
            graphs
                .into_iter()
                .enumerate()
                .map(|(i, loaded)| {
                    Query::translated(query_name(path, i, count), loaded, data_labels)
                })
                .collect()
        }
        Err(err) => {
            let err = anyhow::Error::new(err).context(format!("reading query {name}"));
            vec![Query::failed(name, err)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gsi_file_of_several_graphs_gives_one_query_each() {
        let dir = tempfile::tempdir().unwrap();
        let many = dir.path().join("q.gsi");
        std::fs::write(
            &many,
            "t # 0\n1 0 1 1\nv 0 1\nt # 1\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n",
        )
        .unwrap();
        let one = dir.path().join("q.graph");
        std::fs::write(&one, "t 1 0\nv 0 0 0\n").unwrap();
        let bad = dir.path().join("bad.graph");
        std::fs::write(&bad, "t 1 0\nv 0 x 0\n").unwrap();
        let queries: Vec<Query> = [&many, &one, &bad]
            .iter()
            .flat_map(|p| read_query_file(p, &ReadOptions::default(), &LabelNames::default()))
            .collect();
        let names: Vec<&str> = queries.iter().map(|q| q.name.as_str()).collect();
        let expected = [
            format!("{}#0", many.display()),
            format!("{}#1", many.display()),
            one.display().to_string(),
            bad.display().to_string(),
        ];
        assert_eq!(names, expected);
        assert_eq!(queries[1].graph.as_ref().unwrap().edge_count(), 1);
        let err = queries[3].graph.as_ref().unwrap_err();
        assert!(format!("{err:#}").starts_with("reading query "), "{err:#}");
        assert_eq!(
            crate::exit::Exit::of_error(err),
            crate::exit::Exit::BadInput
        );
    }
}
