//! `gsi._gsi.Matcher`: a data graph's index and its engines, kept for many queries.
//!
//! Each query runs as a [`Job`] off the Python thread: `count` and `match_array` wait for it,
//! `matches` hands back a [`MatchStream`]. The options are the `gsi match` command's: the
//! same engines, memory budget, limit and timeout.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gsi_core::plan::LinkEdge;
use gsi_core::{EngineConfig, EngineKind, MatchOptions, MatchReport, NamedSemantics, Share};
use gsi_graph::Direction;
use numpy::PyArray2;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{core_error, core_error_in};
use crate::graph::PyGraph;
use crate::run::{finished, rows_array, Collect, Engines, Job, MatchStream};

/// A data graph, indexed, with the engine that answers queries on it.
#[pyclass(frozen, module = "gsi._gsi", name = "Matcher")]
pub struct PyMatcher {
    engines: Arc<Engines>,
    memory_budget: usize,
    engine: &'static str,
    device: Option<String>,
    notice: Option<String>,
}

#[pymethods]
impl PyMatcher {
    /// Indexes `graph` (unless it is indexed already) and opens the engine `engine`
    /// (`cpu`, `gpu` or `auto`) on GPU `device`; the join's tables may take `memory_limit`
    /// (bytes, or a size such as `"8GiB"`; `None`: gsi-core's default budget).
    #[new]
    #[pyo3(signature = (graph, engine = "auto", device = 0, memory_limit = None))]
    fn new(
        py: Python<'_>,
        graph: &PyGraph,
        engine: &str,
        device: usize,
        memory_limit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyMatcher> {
        let (kind, name) = match engine {
            "cpu" => (EngineKind::Cpu, "cpu"),
            "gpu" => (EngineKind::Gpu, "gpu"),
            "auto" => (EngineKind::Auto, "auto"),
            other => {
                return Err(PyValueError::new_err(format!(
                    "engine='{other}': expected 'cpu', 'gpu' or 'auto'"
                )))
            }
        };
        let memory_budget = match memory_limit {
            None => MatchOptions::default().memory_budget,
            Some(limit) => memory_size(limit)?,
        };
        let config = EngineConfig {
            device,
            kernel_cache: kernel_cache_dir(),
            ..EngineConfig::default()
        };
        let index = graph.index(py)?;
        let opened = py.detach({
            let (index, config) = (Arc::clone(&index), config.clone());
            move || -> gsi_core::Result<_> {
                let mut opened = gsi_core::open(kind, &config)?;
                let prepared = opened.engine.prepare(&index)?;
                Ok((opened, prepared))
            }
        });
        let (opened, prepared) =
            opened.map_err(|err| core_error_in(py, err, &format!("engine='{name}'")))?;
        // `auto` without a GPU is the CPU engine: new engines need not look for one again.
        let kind = if opened.notice.is_some() {
            EngineKind::Cpu
        } else {
            kind
        };
        let notice = opened
            .notice
            .as_ref()
            .or(prepared.as_ref())
            .map(ToString::to_string);
        let device = opened.engine.device();
        Ok(PyMatcher {
            engines: Arc::new(Engines::new(index, kind, config, opened.engine)),
            memory_budget,
            engine: name,
            device,
            notice,
        })
    }

    /// Number of matches of `query`, or of share `i` of `k` of them (`--partition i/k`).
    #[pyo3(signature = (query, semantics = "isomorphism", timeout = None, share = None))]
    fn count(
        &self,
        py: Python<'_>,
        query: &PyGraph,
        semantics: &str,
        timeout: Option<f64>,
        share: Option<(u32, u32)>,
    ) -> PyResult<u128> {
        let (job, timeout) = self.job(py, query, semantics, None, timeout, share)?;
        let (report, _) = job.run(py, gsi_core::CountOnly)?;
        Ok(finished(py, report, timeout)?.count)
    }

    /// Every match of `query` (at most `limit`), one row each: data vertices in query-vertex
    /// order.
    #[pyo3(signature = (query, limit = None, semantics = "isomorphism", timeout = None))]
    fn match_array<'py>(
        &self,
        py: Python<'py>,
        query: &PyGraph,
        limit: Option<u64>,
        semantics: &str,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let (mut job, timeout) = self.job(py, query, semantics, limit, timeout, None)?;
        let width = job.query.stored().vertex_count();
        // The memory limit is shared: half for the join's tables, half for the array.
        job.options.memory_budget = self.memory_budget / 2;
        let sink = Collect {
            rows: Vec::new(),
            budget: self.memory_budget - job.options.memory_budget,
        };
        let (report, sink) = job.run(py, sink)?;
        finished(py, report, timeout)?;
        Ok(rows_array(py, sink.rows, width))
    }

    /// The matches of `query` (at most `limit`; of share `i` of `k` of them, as `count`) as
    /// they are found, in batches of about `batch` rows.
    #[pyo3(signature = (query, limit = None, semantics = "isomorphism", timeout = None, batch = 4096, share = None))]
    #[allow(clippy::too_many_arguments)]
    fn matches(
        &self,
        py: Python<'_>,
        query: &PyGraph,
        limit: Option<u64>,
        semantics: &str,
        timeout: Option<f64>,
        batch: usize,
        share: Option<(u32, u32)>,
    ) -> PyResult<MatchStream> {
        let (job, _) = self.job(py, query, semantics, limit, timeout, share)?;
        MatchStream::start(job, batch)
    }

    /// Runs `query`, counting, and describes how: the plan (join order, first edges, order
    /// bounds, candidate-set sizes, how the order was chosen, the symmetry broken), how each
    /// step ran, the count, the engine and the time of each phase.
    #[pyo3(signature = (query, semantics = "isomorphism", timeout = None))]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        query: &PyGraph,
        semantics: &str,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (job, _) = self.job(py, query, semantics, None, timeout, None)?;
        let (report, _) = job.run(py, gsi_core::CountOnly)?;
        let report = report.map_err(|e| core_error(py, e))?;
        explained(py, &report)
    }

    /// `cpu`, `gpu` or `auto`, as asked.
    #[getter]
    fn engine(&self) -> &'static str {
        self.engine
    }

    /// The GPU in use, by name and architecture; `None` on the CPU.
    #[getter]
    fn device(&self) -> Option<String> {
        self.device.clone()
    }

    /// What the engine said when it opened, if anything (such as `auto` finding no GPU).
    #[getter]
    fn notice(&self) -> Option<String> {
        self.notice.clone()
    }

    /// Bytes the join's tables may hold at once.
    #[getter]
    fn memory_limit(&self) -> usize {
        self.memory_budget
    }

    /// Queries under way (a stream being read counts until it ends or is closed).
    #[getter]
    fn running(&self) -> usize {
        self.engines.running()
    }
}

impl PyMatcher {
    /// The job of one query (of share `i` of `k` of its matches, when given), and its
    /// timeout.
    fn job(
        &self,
        py: Python<'_>,
        query: &PyGraph,
        semantics: &str,
        limit: Option<u64>,
        timeout: Option<f64>,
        share: Option<(u32, u32)>,
    ) -> PyResult<(Job, Option<Duration>)> {
        if limit == Some(0) {
            return Err(PyValueError::new_err(
                "limit=0: expected at least one match",
            ));
        }
        let timeout = timeout.map(seconds).transpose()?;
        let share = share
            .map(|(index, count)| {
                Share::new(index, count).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "share=({index}, {count}): expected (i, k) with 0 <= i < k"
                    ))
                })
            })
            .transpose()?;
        // Edge isomorphism: line graphs ([`crate::line`]) matched induced over their meeting
        // and parallel edges only.
        let named = semantics.parse::<NamedSemantics>().map_err(|err| {
            let names = NamedSemantics::NAMES.map(|(name, _)| format!("{name:?}"));
            PyValueError::new_err(format!("{err}: expected one of {}", names.join(", ")))
        })?;
        let options = MatchOptions {
            semantics: named.semantics(),
            absent_labels: named.absent_labels(),
            limit,
            // A deadline past what the clock can hold is no deadline.
            deadline: timeout.and_then(|t| Instant::now().checked_add(t)),
            memory_budget: self.memory_budget,
            interrupt: Some(Arc::new(AtomicBool::new(false))),
            share,
            ..MatchOptions::default()
        };
        let job = Job {
            engines: Arc::clone(&self.engines),
            query: query.held(py),
            options,
            timeout,
        };
        Ok((job, timeout))
    }
}

/// A positive number of seconds (one too large for a clock is the longest duration), as
/// `--timeout` takes it.
fn seconds(s: f64) -> PyResult<Duration> {
    if s > 0.0 && s.is_finite() {
        Ok(Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX))
    } else {
        Err(PyValueError::new_err(format!(
            "timeout={s}: expected a positive number of seconds"
        )))
    }
}

/// A memory size: bytes, or text such as `512MiB`, `4GiB` or `1.5G`, as `--memory-limit`
/// takes it; at least 1 KiB.
fn memory_size(limit: &Bound<'_, PyAny>) -> PyResult<usize> {
    let (bytes, shown) = if let Ok(bytes) = limit.extract::<u64>() {
        (bytes, bytes.to_string())
    } else if let Ok(text) = limit.extract::<String>() {
        let bytes = parse_size::Config::new()
            .with_binary()
            .parse_size(&text)
            .map_err(|e| {
                PyValueError::new_err(format!(
                    "memory_limit='{text}': {e}; expected a size such as '512MiB' or '4GiB'"
                ))
            })?;
        (bytes, format!("'{text}'"))
    } else {
        return Err(PyTypeError::new_err(format!(
            "memory_limit: expected a number of bytes or a size such as '8GiB', got {}",
            limit.get_type().name()?
        )));
    };
    if bytes < 1024 {
        return Err(PyValueError::new_err(format!(
            "memory_limit={shown}: at least 1KiB is needed"
        )));
    }
    Ok(usize::try_from(bytes).unwrap_or(usize::MAX))
}

/// Where compiled kernels are kept ([`gsi_core::kernel_cache::kernel_cache_dir`]); nowhere
/// when no safe absolute folder is named.
fn kernel_cache_dir() -> Option<PathBuf> {
    gsi_core::kernel_cache::kernel_cache_dir(
        std::env::var_os("GSI_CACHE_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
    .ok()
}

/// `report` as `explain`'s dictionary; query vertices by index, labels as codes.
fn explained<'py>(py: Python<'py>, report: &MatchReport) -> PyResult<Bound<'py, PyDict>> {
    let plan = &report.plan;
    let order = plan.order();
    let link = |edge: &LinkEdge| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("vertex", order[edge.column])?;
        d.set_item("label", edge.label)?;
        let direction = match (plan.directed, edge.direction) {
            (false, _) => "both",
            (true, Direction::Out) => "out",
            (true, Direction::In) => "in",
        };
        d.set_item("direction", direction)?;
        Ok(d)
    };
    let steps = PyList::empty(py);
    for (i, step) in plan.steps.iter().enumerate() {
        let d = PyDict::new(py);
        d.set_item("vertex", step.vertex)?;
        d.set_item("candidates", plan.candidate_sizes[step.vertex])?;
        d.set_item("first", step.first.as_ref().map(link).transpose()?)?;
        let others: Vec<_> = step.others.iter().map(link).collect::<PyResult<_>>()?;
        d.set_item("others", others)?;
        let above: Vec<usize> = bounds(step, &order, true);
        let below: Vec<usize> = bounds(step, &order, false);
        d.set_item("above", above)?;
        d.set_item("below", below)?;
        let path = report.paths.steps.get(i).copied().unwrap_or_default();
        d.set_item("rows_joined", path.breadth_first_rows)?;
        d.set_item("rows_counted", path.counted_rows)?;
        let counted = path.counted_as.map(|how| match how {
            gsi_core::options::Counted::LastStep => "last step",
            gsi_core::options::Counted::DepthFirst => "depth-first",
            gsi_core::options::Counted::LeafProducts => "leaf products",
            gsi_core::options::Counted::Pairs => "pairs",
        });
        d.set_item("counted_as", counted)?;
        steps.append(d)?;
    }
    let choice = &plan.choice;
    let out = PyDict::new(py);
    out.set_item("count", report.count)?;
    out.set_item("status", report.status.as_str())?;
    out.set_item("engine", report.engine)?;
    out.set_item("order", order.clone())?;
    out.set_item("steps", steps)?;
    out.set_item("candidates", plan.candidate_sizes.clone())?;
    out.set_item("strategy", choice.strategy)?;
    out.set_item("sampled", choice.sampled.to_vec())?;
    out.set_item("kept_because", choice.kept_because.clone())?;
    out.set_item("candidates_before_refinement", choice.filtered_total)?;
    out.set_item("automorphism_classes", plan.symmetry.classes())?;
    out.set_item("products_from_step", plan.leaves.from)?;
    out.set_item("estimated_rows", report.estimated_rows)?;
    out.set_item("peak_join_bytes", report.peak_join_bytes)?;
    let times = PyDict::new(py);
    times.set_item("filter", report.times.filter.as_secs_f64() * 1e3)?;
    times.set_item("plan", report.times.plan.as_secs_f64() * 1e3)?;
    times.set_item("join", report.times.join.as_secs_f64() * 1e3)?;
    out.set_item("times_ms", times)?;
    out.set_item("text", format!("{}{}", plan, report.paths))?;
    Ok(out)
}

/// The query vertices of earlier columns that `step`'s match must be above (or below).
fn bounds(step: &gsi_core::plan::JoinStep, order: &[usize], above: bool) -> Vec<usize> {
    step.order_bounds
        .iter()
        .filter(|b| b.above == above)
        .map(|b| order[b.column])
        .collect()
}
