//! `gsi._gsi`: the native half of the `gsi` Python package.
//!
//! It holds graphs in gsi's CSR form ([`graph`]), indexes a data graph once and answers
//! queries on it with gsi-core's engines ([`matcher`]), each query on a thread of its own
//! without the GIL ([`run`]), builds line graphs for edge isomorphism ([`line`]), and turns
//! gsi's errors into Python exceptions ([`errors`]).
//! Node ids and label values other than integers, networkx graphs and the friendly API are
//! the pure-Python half's (`python/gsi`).

mod errors;
mod graph;
mod line;
mod matcher;
mod run;

use pyo3::prelude::*;

/// gsi's native module: `Graph`, `LineGraphs`, `Matcher` and `MatchStream`; use them through
/// `gsi`.
#[pymodule]
fn _gsi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<line::PyLineGraphs>()?;
    m.add_class::<matcher::PyMatcher>()?;
    m.add_class::<run::MatchStream>()?;
    Ok(())
}
