//! Running one query off the Python thread: the engine works on a matching thread (kept for
//! the next query), without the GIL, while the caller waits in short slices, checking for
//! Ctrl-C between them; matches come back in batches through a bounded channel.
//!
//! A stop (Ctrl-C, a closed or dropped iterator) sets the query's interrupt flag, which the
//! join driver checks as it works (`MatchOptions::stop`), and the engine goes back to the
//! pool when the join returns.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gsi_core::{
    find_matches, DataIndex, Engine, EngineConfig, EngineKind, MatchReport, MatchSink, Status,
};
use gsi_graph::VertexId;
use numpy::ndarray::Array2;
use numpy::PyArray2;
use pyo3::prelude::*;

use crate::errors::{core_error, raise};
use crate::graph::Held;

/// How long the caller waits, without the GIL, between two looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// A data graph's index with the engines that match against it: one per query under way,
/// opened as queries need them and kept for the next.
pub struct Engines {
    pub index: Arc<DataIndex>,
    kind: EngineKind,
    config: EngineConfig,
    idle: Mutex<Vec<Box<dyn Engine>>>,
    /// Queries under way.
    running: AtomicUsize,
}

impl Engines {
    /// The pool for `index`, holding `first`, an engine of `kind` opened with `config` and
    /// readied for the index.
    pub fn new(
        index: Arc<DataIndex>,
        kind: EngineKind,
        config: EngineConfig,
        first: Box<dyn Engine>,
    ) -> Engines {
        Engines {
            index,
            kind,
            config,
            idle: Mutex::new(vec![first]),
            running: AtomicUsize::new(0),
        }
    }

    /// Queries under way.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Relaxed)
    }

    /// An idle engine, or a new one when every engine is busy (a query started while another
    /// one's matches are still being read).
    fn take(self: &Arc<Self>) -> gsi_core::Result<Lent> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .pop();
        let engine = match idle {
            Some(engine) => engine,
            None => {
                let mut engine = gsi_core::open(self.kind, &self.config)?.engine;
                engine.prepare(&self.index)?;
                engine
            }
        };
        self.running.fetch_add(1, Ordering::Relaxed);
        Ok(Lent {
            engines: Arc::clone(self),
            engine: Some(engine),
        })
    }
}

/// An engine out of the pool; it goes back when dropped.
struct Lent {
    engines: Arc<Engines>,
    engine: Option<Box<dyn Engine>>,
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.engines
                .idle
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .push(engine);
        }
        self.engines.running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Work for a matching thread.
type Task = Box<dyn FnOnce() + Send>;

/// The matching threads waiting for work, kept for the next query: starting a thread costs
/// about 0.2 ms on a 2-core virtual machine, as much as a light query.
struct Workers {
    /// The process that started them: a child made by `fork` has none of its parent's
    /// threads and starts its own.
    process: u32,
    idle: Vec<SyncSender<Task>>,
}

static WORKERS: Mutex<Workers> = Mutex::new(Workers {
    process: 0,
    idle: Vec::new(),
});

impl Workers {
    fn lock() -> std::sync::MutexGuard<'static, Workers> {
        let mut workers = WORKERS.lock().unwrap_or_else(|poison| poison.into_inner());
        if workers.process != std::process::id() {
            workers.process = std::process::id();
            workers.idle.clear();
        }
        workers
    }

    /// Runs `task` on an idle matching thread, or on a new one.
    fn run(task: Task) -> std::io::Result<()> {
        let idle = Workers::lock().idle.pop();
        let task = match idle {
            Some(worker) => match worker.send(task) {
                Ok(()) => return Ok(()),
                Err(mpsc::SendError(task)) => task,
            },
            None => task,
        };
        std::thread::Builder::new()
            .name("gsi-match".into())
            .stack_size(gsi_core::config::MATCHING_STACK_BYTES)
            .spawn(move || {
                let (worker, tasks) = mpsc::sync_channel::<Task>(1);
                let mut task = task;
                loop {
                    task();
                    Workers::lock().idle.push(worker.clone());
                    match tasks.recv() {
                        Ok(next) => task = next,
                        Err(_) => return,
                    }
                }
            })
            .map(drop)
    }
}

/// One query to run: the query, its options (the interrupt flag among them) and the timeout
/// that set their deadline (for the message when it passes).
pub struct Job {
    pub engines: Arc<Engines>,
    pub query: Held,
    pub options: gsi_core::MatchOptions,
    pub timeout: Option<Duration>,
}

impl Job {
    /// Runs the job on a matching thread, feeding `sink`, and hands the report and the sink
    /// to `finish` there.
    fn spawn<S: MatchSink + Send + 'static>(
        self,
        mut sink: S,
        finish: impl FnOnce(gsi_core::Result<MatchReport>, S) + Send + 'static,
    ) -> std::io::Result<()> {
        Workers::run(Box::new(move || {
            let report = self.engines.take().and_then(|mut lent| {
                let engine = lent.engine.as_mut().expect("lent until dropped");
                find_matches(
                    engine.as_mut(),
                    &self.query.graph(),
                    &self.engines.index,
                    &self.options,
                    &mut sink,
                )
            });
            finish(report, sink);
        }))
    }

    /// Runs the job into `sink` and waits for it, without the GIL; Ctrl-C stops the engine
    /// and raises `KeyboardInterrupt` at once.
    pub fn run<S: MatchSink + Send + 'static>(
        self,
        py: Python<'_>,
        sink: S,
    ) -> PyResult<(gsi_core::Result<MatchReport>, S)> {
        let interrupt = self.interrupt();
        let (done, answer) = mpsc::sync_channel(1);
        self.spawn(sink, move |report, sink| {
            // The caller may have gone (Ctrl-C): nobody is left to tell.
            let _ = done.send((report, sink));
        })?;
        match wait(py, answer, &interrupt)? {
            (Some(answer), _) => Ok(answer),
            (None, _) => Err(crate::errors::lost_worker()),
        }
    }

    fn interrupt(&self) -> Arc<AtomicBool> {
        Arc::clone(
            self.options
                .interrupt
                .as_ref()
                .expect("every job has an interrupt flag"),
        )
    }
}

/// Waits for `rx`'s next message in slices of [`SIGNAL_POLL`] without the GIL, checking for
/// signals between them; a signal's exception sets `interrupt` and is returned. Gives the
/// message (`None` once every sender is gone) and the receiver back.
fn wait<T: Send>(
    py: Python<'_>,
    rx: Receiver<T>,
    interrupt: &AtomicBool,
) -> PyResult<(Option<T>, Receiver<T>)> {
    let mut rx = rx;
    let mut spin = SPIN;
    loop {
        let (got, back) = py.detach(move || (spin_then_wait(&rx, spin), rx));
        spin = Duration::ZERO;
        rx = back;
        match got {
            Ok(message) => return Ok((Some(message), rx)),
            Err(RecvTimeoutError::Disconnected) => return Ok((None, rx)),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(err) = py.check_signals() {
                    interrupt.store(true, Ordering::Relaxed);
                    return Err(err);
                }
            }
        }
    }
}

/// How long a caller looks for an answer before it first sleeps: waking a sleeping thread
/// costs tens of microseconds on a virtual machine, as much as a light query (a light yeast
/// query took 0.21 ms through a sleeping caller, 0.08 ms with this, 0.07 ms in `gsi bench`).
const SPIN: Duration = Duration::from_micros(200);

/// `rx`'s next message, looked for without sleeping for `spin`, then waited for until
/// [`SIGNAL_POLL`].
fn spin_then_wait<T>(rx: &Receiver<T>, spin: Duration) -> Result<T, RecvTimeoutError> {
    let started = Instant::now();
    while started.elapsed() < spin {
        match rx.try_recv() {
            Ok(message) => return Ok(message),
            Err(mpsc::TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
    rx.recv_timeout(SIGNAL_POLL)
}

/// Keeps every match, one after another, within `budget` bytes: past it (or when the
/// allocator refuses), the query ends with [`gsi_core::Error::MemoryLimit`] instead of the
/// process running out of memory.
pub struct Collect {
    pub rows: Vec<VertexId>,
    pub budget: usize,
}

impl MatchSink for Collect {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        let bytes = (self.rows.len() + rows.len()).saturating_mul(size_of::<VertexId>());
        let (matches, budget) = ((self.rows.len() / width.max(1)) as u64, self.budget);
        let over = || gsi_core::Error::MemoryLimit {
            matches,
            bytes,
            budget,
        };
        if bytes > self.budget {
            return Err(over());
        }
        self.rows.try_reserve(rows.len()).map_err(|_| over())?;
        self.rows.extend_from_slice(rows);
        Ok(())
    }
}

/// What a streaming job sends: batches of matches, then the report.
enum Message {
    Rows(Vec<VertexId>),
    End(Box<gsi_core::Result<MatchReport>>),
}

/// Hands matches on in batches of about `batch` rows through a bounded channel; a batch
/// waits at most [`BATCH_WAIT`] for more rows while the engine is still finding them.
struct Batches {
    tx: SyncSender<Message>,
    rows: Vec<VertexId>,
    batch: usize,
    since: Instant,
}

/// How long found matches wait for their batch to fill.
const BATCH_WAIT: Duration = Duration::from_millis(20);

impl Batches {
    fn send(&mut self) -> gsi_core::Result<()> {
        self.since = Instant::now();
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        self.tx.send(Message::Rows(rows)).map_err(|_| {
            gsi_core::Error::Output(std::io::Error::other("the match iterator was closed"))
        })
    }
}

impl MatchSink for Batches {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        let full = self.batch * width.max(1);
        for chunk in rows.chunks(full) {
            self.rows.extend_from_slice(chunk);
            if self.rows.len() >= full {
                self.send()?;
            }
        }
        if self.since.elapsed() >= BATCH_WAIT {
            self.send()?;
        }
        Ok(())
    }
}

/// Batches of matches kept ahead of the reader.
const BATCHES_AHEAD: usize = 4;

/// A query's matches as they come, in batches; dropping it stops the engine.
#[pyclass(frozen, module = "gsi._gsi")]
pub struct MatchStream {
    /// `None` once the end was read.
    rx: Mutex<Option<Receiver<Message>>>,
    interrupt: Arc<AtomicBool>,
    width: usize,
    timeout: Option<Duration>,
}

impl MatchStream {
    /// Starts `job`, its matches in batches of about `batch` rows.
    pub fn start(job: Job, batch: usize) -> PyResult<MatchStream> {
        let (tx, rx) = mpsc::sync_channel(BATCHES_AHEAD);
        let width = job.query.stored().vertex_count();
        let interrupt = job.interrupt();
        let timeout = job.timeout;
        let sink = Batches {
            tx,
            rows: Vec::new(),
            batch: batch.max(1),
            since: Instant::now(),
        };
        // The last rows, then the report, once the engine is done.
        job.spawn(sink, |report, mut sink| {
            let report = sink.send().and(report);
            let _ = sink.tx.send(Message::End(Box::new(report)));
        })?;
        Ok(MatchStream {
            rx: Mutex::new(Some(rx)),
            interrupt,
            width,
            timeout,
        })
    }

    fn stop(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
        // A sender blocked on a full channel fails once the receiver is gone.
        self.rx
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
    }
}

impl Drop for MatchStream {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The next batch of a stream, or how it ended.
enum Next {
    Rows(Vec<VertexId>),
    End(Box<gsi_core::Result<MatchReport>>),
    /// The stream was closed, or its end already read.
    Closed,
}

impl MatchStream {
    /// Waits for the next batch without the GIL, checking for Ctrl-C.
    fn next_batch(&self, py: Python<'_>) -> PyResult<Next> {
        let taken = self
            .rx
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
        let Some(rx) = taken else {
            return Ok(Next::Closed);
        };
        let (message, rx) = wait(py, rx, &self.interrupt)?;
        match message {
            Some(Message::Rows(rows)) => {
                *self.rx.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(rx);
                Ok(Next::Rows(rows))
            }
            Some(Message::End(report)) => Ok(Next::End(report)),
            None => Err(crate::errors::lost_worker()),
        }
    }
}

#[pymethods]
impl MatchStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch: an array of matches (one row each, data vertices in query-vertex
    /// order). Raises `MatchTimeout` when the query's deadline passed.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<u32>>>> {
        match self.next_batch(py)? {
            Next::Rows(rows) => Ok(Some(rows_array(py, rows, self.width))),
            Next::End(report) => {
                finished(py, *report, self.timeout)?;
                Ok(None)
            }
            Next::Closed => Ok(None),
        }
    }

    /// Stops the engine and drops what it had found and not yet handed over.
    fn close(&self) {
        self.stop();
    }

    /// Query vertices per match: the columns of every batch.
    #[getter]
    fn width(&self) -> usize {
        self.width
    }
}

/// `rows` (matches of `width` vertices each, one after another) as a 2-D array, without a
/// copy.
pub fn rows_array(py: Python<'_>, rows: Vec<VertexId>, width: usize) -> Bound<'_, PyArray2<u32>> {
    let shape = (rows.len() / width.max(1), width);
    let array = Array2::from_shape_vec(shape, rows).expect("whole rows");
    PyArray2::from_owned_array(py, array)
}

/// The report of a query that ended, or the exception for how it ended: its error, or
/// `MatchTimeout` (with the matches found until then) when `timeout` passed.
pub fn finished(
    py: Python<'_>,
    report: gsi_core::Result<MatchReport>,
    timeout: Option<Duration>,
) -> PyResult<MatchReport> {
    let report = report.map_err(|e| core_error(py, e))?;
    if report.status == Status::Timeout {
        let seconds = timeout.map_or(0.0, |t| t.as_secs_f64());
        let message = format!(
            "the query ran past its timeout of {seconds} s; {} matches were found until then",
            report.count
        );
        return Err(raise(py, "MatchTimeout", (message, report.count)));
    }
    Ok(report)
}
