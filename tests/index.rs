//! GSI's index on the real benchmark graphs: N(v, l) read through PCSR equals the CSR's for
//! every vertex and edge label, built or saved and mapped again.

use gsi_core::{DataIndex, IndexOptions, PcsrLayout, SavedIndex};
use gsi_graph::formats::{read_graph, Format};
use gsi_graph::saved::GraphFacts;
use gsi_graph::{Direction, VertexId};

/// Every N(v, l) of the yeast, hprd and wordnet graphs, through PCSR (both layouts, built
/// and from a saved index) and through CSR.
pub fn pcsr_equals_csr_on_the_benchmark_graphs(shared: &std::path::Path) {
    let layouts = [PcsrLayout::Paper, PcsrLayout::Packed];
    for (name, pcsr_layout) in ["yeast", "hprd", "wordnet"]
        .into_iter()
        .flat_map(|name| layouts.map(|layout| (name, layout)))
    {
        let path = shared
            .join(name)
            .join("data_graph")
            .join(format!("{name}.graph"));
        let graph = read_graph(&path, Format::Auto, false).expect("benchmark graph reads");
        let options = IndexOptions {
            pcsr_layout,
            ..IndexOptions::default()
        };
        let built = DataIndex::build_with(graph.clone(), options).expect("index builds");
        let dir = tempfile::tempdir().expect("temporary folder");
        let saved_path = dir.path().join(format!("{name}.gsidx"));
        SavedIndex {
            index: built,
            facts: GraphFacts::default(),
            source: None,
        }
        .write(&saved_path)
        .expect("index saved");
        let index = SavedIndex::open(&saved_path)
            .expect("saved index opens")
            .index;
        assert_eq!(*index.original_graph(), graph, "{name}: the saved graph");
        let graph = index.graph();
        let labels = graph.edge_labels();
        let mut lists = 0usize;
        for v in 0..graph.vertex_count() as VertexId {
            for &l in &labels {
                let csr = graph.neighbors(v, l, Direction::Out);
                assert_eq!(
                    index.pcsr().neighbors(v, l, Direction::Out),
                    csr,
                    "{name}, {pcsr_layout:?}: N({v}, {l})"
                );
                lists += usize::from(!csr.is_empty());
            }
        }
        assert!(lists > 0, "{name} has edges");
    }
}
