//! `gsi._gsi.Graph`: a labelled graph in gsi's CSR form, read from a file or built from
//! arrays, and indexed in place the first time it is matched against.
//!
//! The Python class `gsi.Graph` wraps it with what Python users name things by: node ids and
//! label values. Here vertices are `0..n` and labels are `u32` codes.

use std::borrow::Cow;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};

use gsi_core::{DataIndex, SavedIndex};
use gsi_graph::formats::{read_graphs, Format, LabelNames, ReadOptions, VertexNames};
use gsi_graph::saved::{is_saved_index, GraphFacts};
use gsi_graph::{vec_for, Graph, GraphBuilder};
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyDict, PyList};

use crate::errors::{core_error, graph_error, raise};

/// A graph as this module holds it: built (as read or made), or indexed for matching (the
/// index owns the graph, so indexing copies nothing).
#[derive(Clone)]
pub enum Held {
    /// Not indexed yet.
    Plain(Arc<Graph>),
    /// Indexed by a `Matcher`, or read from a saved index.
    Indexed(Arc<DataIndex>),
}

impl Held {
    /// The graph with its own vertex ids (an index may number them otherwise inside).
    pub fn graph(&self) -> Cow<'_, Graph> {
        match self {
            Held::Plain(graph) => Cow::Borrowed(graph),
            Held::Indexed(index) => index.original_graph(),
        }
    }

    /// The graph as held, for what does not depend on vertex ids: sizes, directedness.
    pub fn stored(&self) -> &Graph {
        match self {
            Held::Plain(graph) => graph,
            Held::Indexed(index) => index.graph(),
        }
    }
}

/// A labelled graph: vertices `0..vertex_count`, `u32` vertex and edge labels.
#[pyclass(frozen, module = "gsi._gsi", name = "Graph")]
pub struct PyGraph {
    held: Mutex<Held>,
}

impl PyGraph {
    pub(crate) fn new(held: Held) -> PyGraph {
        PyGraph {
            held: Mutex::new(held),
        }
    }

    /// The lock, waited for without the GIL: the index is built under it, without the GIL,
    /// and a thread must not hold the GIL while it waits for that.
    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, Held> {
        // A panic while the lock was held left the value whole: every change is one store.
        self.held
            .lock_py_attached(py)
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The graph as held now (a cheap copy of a reference).
    pub fn held(&self, py: Python<'_>) -> Held {
        self.lock(py).clone()
    }

    /// The graph's index, built now (without the GIL) unless it was built before.
    pub fn index(&self, py: Python<'_>) -> PyResult<Arc<DataIndex>> {
        let mut held = self.lock(py);
        if let Held::Indexed(index) = &*held {
            return Ok(Arc::clone(index));
        }
        // The graph moves into its index, where no query of it holds it too (then it is
        // copied); an index too large to build leaves the graph empty.
        let empty = GraphBuilder::new(false)
            .build()
            .map_err(|e| graph_error(py, e))?;
        let Held::Plain(graph) = std::mem::replace(&mut *held, Held::Plain(Arc::new(empty))) else {
            unreachable!("an indexed graph returned above")
        };
        let built = py.detach(move || {
            let graph = Arc::try_unwrap(graph).unwrap_or_else(|shared| (*shared).clone());
            DataIndex::build(graph)
        });
        let index = Arc::new(built.map_err(|e| core_error(py, e))?);
        *held = Held::Indexed(Arc::clone(&index));
        Ok(index)
    }
}

/// What `Graph.read` gives: the graph, the file's vertex names (`None` where vertices are
/// numbered `0..n` in the file), and its vertex- and edge-label names by code (`None` where
/// labels are numbers).
type ReadResult = (PyGraph, Option<Py<PyList>>, Names, Names);

/// Label names by code, where a file gave them.
type Names = Option<Py<PyDict>>;

#[pymethods]
impl PyGraph {
    /// Builds a graph from `edges` (one row `u, v` per edge), one label per vertex in
    /// `vertex_labels` (which also gives the number of vertices) and, if given, one label per
    /// edge. Self-loops, repeated edges and ids past the last vertex are errors.
    /// `more_labels`, an `(k, 2)` array of rows `v, label`, gives vertices further labels.
    #[staticmethod]
    #[pyo3(signature = (edges, vertex_labels, edge_labels, directed, more_labels = None))]
    fn from_edges(
        py: Python<'_>,
        edges: PyReadonlyArray2<'_, u32>,
        vertex_labels: PyReadonlyArray1<'_, u32>,
        edge_labels: Option<PyReadonlyArray1<'_, u32>>,
        directed: bool,
        more_labels: Option<PyReadonlyArray2<'_, u32>>,
    ) -> PyResult<PyGraph> {
        let edges = edges.as_array();
        if edges.ncols() != 2 {
            return Err(PyValueError::new_err(format!(
                "edges: expected an array of shape (m, 2), got (m, {})",
                edges.ncols()
            )));
        }
        let labels = edge_labels.as_ref().map(|l| l.as_array());
        if let Some(labels) = &labels {
            if labels.len() != edges.nrows() {
                return Err(PyValueError::new_err(format!(
                    "edge_labels: {} labels for {} edges",
                    labels.len(),
                    edges.nrows()
                )));
            }
        }
        // Read in place, whatever the strides: the one copy is the builder's edge list. Every
        // array sized by the caller is allocated fallibly: a failure is a MemoryError.
        let mut list = vec_for(edges.nrows(), "the edge list").map_err(|e| graph_error(py, e))?;
        list.extend(
            edges
                .rows()
                .into_iter()
                .enumerate()
                .map(|(i, row)| (row[0], row[1], labels.as_ref().map_or(0, |l| l[i]))),
        );
        let more: Vec<(u32, u32)> = match &more_labels {
            None => Vec::new(),
            Some(pairs) => {
                let pairs = pairs.as_array();
                if pairs.ncols() != 2 {
                    return Err(PyValueError::new_err(format!(
                        "more_labels: expected an array of shape (k, 2), got (k, {})",
                        pairs.ncols()
                    )));
                }
                pairs.rows().into_iter().map(|r| (r[0], r[1])).collect()
            }
        };
        let vertex_labels = vertex_labels.as_array();
        let mut labels =
            vec_for(vertex_labels.len(), "the vertex labels").map_err(|e| graph_error(py, e))?;
        labels.extend(vertex_labels.iter().copied());
        let built = py.detach(move || {
            let mut builder = GraphBuilder::with_edges(directed, labels, list)?;
            for (v, label) in more {
                builder.add_label(v, label)?;
            }
            builder.build()
        });
        let graph = built.map_err(|e| graph_error(py, e))?;
        Ok(PyGraph::new(Held::Plain(Arc::new(graph))))
    }

    /// Reads the one graph of the file `path` in `format` (`auto`: told from the content),
    /// or the graph of a saved index (`gsi index`), which comes indexed already.
    #[staticmethod]
    #[pyo3(signature = (path, format, directed))]
    fn read(py: Python<'_>, path: PathBuf, format: &str, directed: bool) -> PyResult<ReadResult> {
        let format = Format::from_str(format).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let shown = path.display().to_string();
        let (held, facts) = py.detach(move || -> Result<_, ReadError> {
            if is_saved_index(&path) {
                let saved = SavedIndex::open(&path).map_err(ReadError::Core)?;
                if directed && !saved.index.graph().is_directed() {
                    return Err(ReadError::Refused(format!(
                        "{}: directed=True does not apply: the saved index holds an undirected graph; index the text again with `gsi index --directed`",
                        path.display()
                    )));
                }
                return Ok((Held::Indexed(Arc::new(saved.index)), saved.facts));
            }
            let options = ReadOptions {
                format,
                directed,
                vertex_labels: None,
                memory: None,
            };
            let mut graphs = read_graphs(&path, &options).map_err(ReadError::Graph)?;
            if graphs.len() != 1 {
                return Err(ReadError::Refused(format!(
                    "{}: the file holds {} graphs, expected one",
                    path.display(),
                    graphs.len()
                )));
            }
            let (graph, facts) = GraphFacts::split(graphs.pop().expect("one graph"));
            Ok((Held::Plain(Arc::new(graph)), facts))
        })
        .map_err(|err| match err {
            ReadError::Graph(e) => graph_error(py, e),
            ReadError::Core(e) => core_error(py, e),
            ReadError::Refused(message) => {
                raise(py, "FormatError", (message, shown, None::<usize>))
            }
        })?;
        let names = match &facts.names {
            None => None,
            Some(VertexNames::Ids(ids)) => Some(PyList::new(py, ids)?.unbind()),
            Some(VertexNames::Terms(terms)) => {
                Some(PyList::new(py, terms.iter().map(|(_, name)| name))?.unbind())
            }
        };
        let (vertex, edge) = label_names(py, &facts.labels)?;
        Ok((PyGraph::new(held), names, vertex, edge))
    }

    /// Number of vertices.
    #[getter]
    fn vertex_count(&self, py: Python<'_>) -> usize {
        self.lock(py).stored().vertex_count()
    }

    /// Number of edges (an undirected edge counts once).
    #[getter]
    fn edge_count(&self, py: Python<'_>) -> usize {
        self.lock(py).stored().edge_count()
    }

    /// Whether edges have a direction.
    #[getter]
    fn directed(&self, py: Python<'_>) -> bool {
        self.lock(py).stored().is_directed()
    }

    /// Whether the graph's index is built (by a `Matcher`, or read from a saved index).
    #[getter]
    fn indexed(&self, py: Python<'_>) -> bool {
        matches!(*self.lock(py), Held::Indexed(_))
    }

    /// The label of every vertex, by vertex.
    fn vertex_labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.lock(py).graph().vertex_labels())
    }

    /// Every edge once, as an `(m, 2)` array of endpoints (an undirected edge with the smaller
    /// id first) and an array of their labels.
    fn edges<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray2<u32>>, Bound<'py, PyArray1<u32>>) {
        let held = self.held(py);
        let graph = held.graph();
        let mut ends = Vec::with_capacity(2 * graph.edge_count());
        let mut labels = Vec::with_capacity(graph.edge_count());
        for (s, t, l) in graph.edge_iter() {
            ends.extend([s, t]);
            labels.push(l);
        }
        let ends = Array2::from_shape_vec((labels.len(), 2), ends).expect("two ends per edge");
        (
            PyArray2::from_owned_array(py, ends),
            PyArray1::from_vec(py, labels),
        )
    }

    /// The further labels of vertices that carry several, as an `(k, 2)` array of rows
    /// `v, label` (a vertex's first label is in `vertex_labels`).
    fn more_labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u32>> {
        let held = self.held(py);
        let graph = held.graph();
        let pairs: Vec<u32> = (0..graph.vertex_count() as u32)
            .flat_map(|v| graph.labels_of(v)[1..].iter().flat_map(move |&l| [v, l]))
            .collect();
        let rows = pairs.len() / 2;
        let pairs = Array2::from_shape_vec((rows, 2), pairs).expect("two numbers per row");
        PyArray2::from_owned_array(py, pairs)
    }

    /// The distinct vertex labels (of every label set) and the distinct edge labels that
    /// occur, each sorted.
    fn label_sets<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>) {
        let held = self.held(py);
        let graph = held.graph();
        let mut vertex: Vec<u32> = (0..graph.vertex_count() as u32)
            .flat_map(|v| graph.labels_of(v).iter().copied())
            .collect();
        vertex.sort_unstable();
        vertex.dedup();
        (
            PyArray1::from_vec(py, vertex),
            PyArray1::from_vec(py, graph.edge_labels()),
        )
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let held = self.lock(py);
        let graph = held.stored();
        format!(
            "<gsi._gsi.Graph: {} vertices, {} edges, {}>",
            graph.vertex_count(),
            graph.edge_count(),
            if graph.is_directed() {
                "directed"
            } else {
                "undirected"
            }
        )
    }
}

/// Why a file gave no graph.
enum ReadError {
    Graph(gsi_graph::Error),
    Core(gsi_core::Error),
    /// A file that is well formed but not what `read` takes.
    Refused(String),
}

/// The names of the labels a file named (N-Triples classes and predicates), by code.
fn label_names(py: Python<'_>, labels: &LabelNames) -> PyResult<(Names, Names)> {
    let dict = |names: &Option<gsi_graph::formats::Dictionary>| -> PyResult<Names> {
        let Some(names) = names else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        for (code, name) in names.iter() {
            dict.set_item(code, name)?;
        }
        Ok(Some(dict.unbind()))
    };
    Ok((dict(&labels.vertex)?, dict(&labels.edge)?))
}
