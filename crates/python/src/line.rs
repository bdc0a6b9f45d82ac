//! `gsi._gsi.LineGraphs`: edge isomorphism, as `gsi match --semantics edge-isomorphism` does
//! it (the paper's Sec. "Extensions"): the data graph's line graph, matched by a `Matcher` of
//! its own, the data edge each of its vertices stands for, and the numbering of line labels
//! in which each query's line graph is built.

use std::sync::Arc;

use gsi_core::DataEdges;
use gsi_graph::line::LineError;
use gsi_graph::VertexId;
use numpy::ndarray::Array2;
use numpy::PyArray2;
use pyo3::prelude::*;

use crate::errors::raise;
use crate::graph::{Held, PyGraph};

/// The numbering of a data graph's line labels, for its queries' line graphs.
#[pyclass(frozen, module = "gsi._gsi", name = "LineGraphs")]
pub struct PyLineGraphs {
    edges: DataEdges,
}

#[pymethods]
impl PyLineGraphs {
    /// The line graph of `data` (indexed first, unless it is), the data edge each of its
    /// vertices stands for (an `(m, 2)` array, lower endpoint first), and the numbering its
    /// queries' line graphs use. `nodes`: the node id of each vertex, for messages (`None`: the
    /// vertex numbers).
    #[staticmethod]
    fn of_data<'py>(
        py: Python<'py>,
        data: &PyGraph,
        nodes: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(PyLineGraphs, PyGraph, Bound<'py, PyArray2<u32>>)> {
        let index = data.index(py)?;
        let built = py.detach(move || DataEdges::of(&index));
        let (edges, line) =
            built.map_err(|e| line_error(py, "the data graph", e, nodes.as_ref()))?;
        let array = edges_array(py, edges.edges());
        let graph = PyGraph::new(Held::Plain(Arc::new(line)));
        Ok((PyLineGraphs { edges }, graph, array))
    }

    /// The line graph of `query` (in the data graph's label codes) in the data's numbering,
    /// and the query edge each of its vertices stands for. `nodes` as for `of_data`.
    fn of_query<'py>(
        &self,
        py: Python<'py>,
        query: &PyGraph,
        nodes: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(PyGraph, Bound<'py, PyArray2<u32>>)> {
        let held = query.held(py);
        let line = self
            .edges
            .query(&held.graph())
            .map_err(|e| line_error(py, "the query", e, nodes.as_ref()))?;
        let edges = edges_array(py, &line.edges);
        Ok((PyGraph::new(Held::Plain(Arc::new(line.graph))), edges))
    }
}

/// `edges` as an `(m, 2)` array.
fn edges_array<'py>(py: Python<'py>, edges: &[[VertexId; 2]]) -> Bound<'py, PyArray2<u32>> {
    let flat: Vec<u32> = edges.iter().flatten().copied().collect();
    let array = Array2::from_shape_vec((edges.len(), 2), flat).expect("two ends per edge");
    PyArray2::from_owned_array(py, array)
}

/// Why `what` has no line graph to match, as a `GraphError` that names a vertex by its entry
/// of `nodes` (a sequence of node ids) where there is one.
fn line_error(
    py: Python<'_>,
    what: &str,
    err: LineError,
    nodes: Option<&Bound<'_, PyAny>>,
) -> PyErr {
    let name = |v: VertexId| match nodes.map(|n| n.get_item(v).and_then(|node| node.repr())) {
        Some(Ok(repr)) => format!("node {repr}"),
        _ => format!("vertex {v}"),
    };
    raise(
        py,
        "GraphError",
        (format!("edge isomorphism: {what}: {}", err.naming(name)),),
    )
}
