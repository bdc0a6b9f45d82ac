//! GSI's index on the real benchmark graphs: N(v, l) read through PCSR equals the CSR's for
//! every vertex and edge label.

use gsi_core::DataIndex;
use gsi_graph::formats::{read_graph, Format};
use gsi_graph::{Direction, VertexId};

/// Every N(v, l) of the yeast, hprd and wordnet graphs, through PCSR and through CSR.
pub fn pcsr_equals_csr_on_the_benchmark_graphs(shared: &std::path::Path) {
    for name in ["yeast", "hprd", "wordnet"] {
        let path = shared
            .join(name)
            .join("data_graph")
            .join(format!("{name}.graph"));
        let graph = read_graph(&path, Format::Auto, false).expect("benchmark graph reads");
        let index = DataIndex::build(graph).expect("index builds");
        let graph = index.graph();
        let labels = graph.edge_labels();
        let mut lists = 0usize;
        for v in 0..graph.vertex_count() as VertexId {
            for &l in &labels {
                let csr = graph.neighbors(v, l, Direction::Out);
                assert_eq!(
                    index.pcsr().neighbors(v, l, Direction::Out),
                    csr,
                    "{name}: N({v}, {l})"
                );
                lists += usize::from(!csr.is_empty());
            }
        }
        assert!(lists > 0, "{name} has edges");
    }
}
