//! `gsi serve`: the data loaded once and answered over HTTP — the SPARQL 1.1 Protocol at
//! `/sparql`, query graphs at `/match`, a query page at `/`, `/health` and `/metrics`.
//!
//! The async threads only read requests and write responses. Each query is admitted by
//! `admission` (at most `--max-concurrent` at once, the others in a bounded queue), runs on a
//! blocking thread with an engine of the pool (`engines`) and streams its results through
//! `stream`; its deadline, a client gone and the server's stop all end it through the
//! matcher's own stop flags.

mod admission;
mod dataset;
mod engines;
mod jobs;
mod matching;
mod metrics;
mod page;
mod protocol;
mod routes;
mod sparql;
mod stream;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::serve::ListenerExt;
use gsi_core::EngineKind;
use gsi_graph::formats::{Format, ReadOptions};

use crate::config::{engine_choice, parse_size, process_bound, seconds};
use crate::exit::{input_error, Exit};
use crate::flags::ServeArgs;
use crate::progress;
use crate::session::{Session, Show};

use self::admission::Admission;
use self::dataset::Dataset;
use self::engines::Engines;
use self::metrics::Metrics;

/// Stack of the threads that match: as the main thread's, which `gsi match` matches on.
const MATCH_STACK: usize = 8 << 20;

/// The longest `--timeout` taken (a longer one is this): a query's deadline must be an
/// instant the clock can hold.
const LONGEST_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long queries still running at a stop may take to see their cancellation.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Queries answered at once by default where a GPU may answer, at most: one a processor, as
/// on the CPU engine, up to this many engines on one GPU (each its own stream, all reading
/// one copy of the index). Light WatDiv-shaped queries on an H200, 8 and 64 clients: 1,693
/// and 2,269 queries a second with 8 at once, 1,907 and 2,237 with 16, 783 and 1,105 with 2
/// (2026-11-28).
const GPU_QUERIES_AT_ONCE: usize = 16;

/// What one request may ask for.
pub struct Limits {
    /// The longest a query runs (`--timeout`).
    pub timeout: Duration,
    /// Bytes of a request's body or URL query (`--max-request`).
    pub request_bytes: usize,
    /// Bytes of a response (`--max-response`).
    pub response_bytes: u64,
}

/// Everything the requests share.
pub struct Server {
    pub data: Dataset,
    pub engines: Engines,
    pub admission: Arc<Admission>,
    pub metrics: Metrics,
    pub limits: Limits,
}

pub fn run(args: ServeArgs) -> Result<Exit> {
    let limits = Limits {
        timeout: seconds("--timeout", args.timeout)?.min(LONGEST_TIMEOUT),
        request_bytes: parse_size("--max-request", &args.max_request)?,
        response_bytes: parse_size("--max-response", &args.max_response)? as u64,
    };
    if args.max_concurrent == Some(0) {
        return Err(input_error(
            "--max-concurrent 0: expected at least one query at once".into(),
        ));
    }
    let choice = engine_choice(&args.engine, gsi_core::Tuning::default())?;
    let processors = std::thread::available_parallelism().map_or(2, usize::from);
    let max_concurrent = args.max_concurrent.unwrap_or(match choice.kind {
        EngineKind::Cpu => processors,
        EngineKind::Gpu | EngineKind::Auto => processors.min(GPU_QUERIES_AT_ONCE),
    });
    let show = Show {
        progress: progress::wanted(args.quiet),
        notes: !args.quiet,
    };
    let read = ReadOptions {
        format: Format::Auto,
        directed: args.directed,
        vertex_labels: None,
        memory: Some(process_bound()),
    };
    let mut session = Session::open(&args.data, &read, &choice, show, false)?;
    let engines = Engines::new(std::mem::take(&mut session.engines), &choice);
    let data = Dataset::new(session);
    if let (Some(why), true) = (data.not_rdf(), show.notes) {
        eprintln!("gsi: {why}: /sparql refuses queries, /match answers them");
    }
    let server = Arc::new(Server {
        data,
        engines,
        admission: Arc::new(Admission::new(max_concurrent, args.queue)),
        metrics: Metrics::default(),
        limits,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(MATCH_STACK)
        .build()
        .context("starting the server's threads")?;
    runtime.block_on(serve(server, args.bind))?;
    runtime.shutdown_timeout(STOP_GRACE);
    Ok(Exit::Success)
}

/// Answers requests on `bind` until SIGINT or SIGTERM.
async fn serve(server: Arc<Server>, bind: SocketAddr) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .map_err(|e| input_error(format!("--bind {bind}: {e}")))?;
    let address = listener.local_addr().context("the address listened on")?;
    // Responses end with a small write (the last chunk): without TCP_NODELAY it would wait
    // for the client's delayed acknowledgement, some 40 ms.
    let listener = listener.tap_io(|connection| {
        let _ = connection.set_nodelay(true);
    });
    eprintln!("gsi: listening on http://{address}");
    let app = routes::router(Arc::clone(&server));
    axum::serve(listener, app)
        .with_graceful_shutdown(stop_asked(server))
        .await
        .context("serving")
}

/// Waits for SIGINT or SIGTERM, then cancels the queries under way and refuses new ones.
async fn stop_asked(server: Arc<Server>) {
    use tokio::signal::unix::{signal, SignalKind};
    let waits = [SignalKind::interrupt(), SignalKind::terminate()].map(signal);
    match waits {
        [Ok(mut interrupt), Ok(mut terminate)] => {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
        _ => {
            eprintln!("gsi: installing the signal handlers failed: stop gsi serve with SIGKILL");
            std::future::pending::<()>().await;
        }
    }
    server.admission.stop();
}
