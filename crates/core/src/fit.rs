//! Whether a query can fit the data graph at all under an injective semantics: distinct
//! query vertices need distinct data vertices, so the query may have no more vertices than
//! the data graph, nor more vertices carrying a label than the data graph has.

use std::collections::HashMap;
use std::fmt;

use gsi_graph::{Graph, VertexLabel};

use crate::index::DataIndex;

/// Why no injective match of a query exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misfit {
    /// More query vertices than data vertices.
    Vertices {
        /// The query's vertices.
        query: usize,
        /// The data graph's.
        data: usize,
    },
    /// More query vertices carrying `label` than data vertices carrying it.
    Label {
        /// The label.
        label: VertexLabel,
        /// Query vertices carrying it.
        query: usize,
        /// Data vertices carrying it.
        data: usize,
    },
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misfit::Vertices { query, data } => write!(
                f,
                "the query has {query} vertices and the data graph {data}"
            ),
            Misfit::Label { label, query, data } => write!(
                f,
                "the query has {query} vertices of label {label} and the data graph {data}"
            ),
        }
    }
}

/// The first reason why `query` has no injective match in `data`, if one is plain from
/// vertex and label counts.
pub fn misfit(query: &Graph, data: &DataIndex) -> Option<Misfit> {
    let (q, d) = (query.vertex_count(), data.graph().vertex_count());
    if q > d {
        return Some(Misfit::Vertices { query: q, data: d });
    }
    let mut per_label: HashMap<VertexLabel, usize> = HashMap::new();
    for u in 0..q as u32 {
        for &label in query.labels_of(u) {
            *per_label.entry(label).or_default() += 1;
        }
    }
    let mut labels: Vec<(VertexLabel, usize)> = per_label.into_iter().collect();
    labels.sort_unstable();
    labels.into_iter().find_map(|(label, count)| {
        let have = data.vertices_with_label(label).len();
        (count > have).then_some(Misfit::Label {
            label,
            query: count,
            data: have,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gsi_graph::GraphBuilder;

    fn graph(labels: &[VertexLabel]) -> Graph {
        let mut builder = GraphBuilder::new(false);
        for &label in labels {
            builder.add_vertex(label);
        }
        builder.build().unwrap()
    }

    #[test]
    fn counts_of_vertices_and_of_each_label_decide() {
        let data = DataIndex::build(graph(&[0, 0, 1])).unwrap();
        assert_eq!(misfit(&graph(&[0, 0, 1]), &data), None);
        assert_eq!(
            misfit(&graph(&[0, 0, 0]), &data),
            Some(Misfit::Label {
                label: 0,
                query: 3,
                data: 2
            })
        );
        assert_eq!(
            misfit(&graph(&[1, 1, 1, 1]), &data),
            Some(Misfit::Vertices { query: 4, data: 3 })
        );
    }
}
