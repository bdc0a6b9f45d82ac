//! `/metrics`: requests by endpoint and outcome, the queries' latency, the queries under way
//! and waiting, and the bytes of the index on the devices, in Prometheus' text format.

use std::sync::Arc;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::Server;

/// A request's endpoint and how it ended: its HTTP status, `aborted` (a stream cut by a
/// failure) or `gone` (its client left before the end).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Outcome {
    endpoint: &'static str,
    status: String,
}

pub struct Metrics {
    registry: Registry,
    queries: Family<Outcome, Counter>,
    latency: Histogram,
    running: Gauge,
    queued: Gauge,
    device_bytes: Gauge,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let queries = Family::<Outcome, Counter>::default();
        // From 1 ms to about 65 s.
        let latency = Histogram::new(exponential_buckets(0.001, 2.0, 17));
        let (running, queued, device_bytes) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        let mut registry = Registry::with_prefix("gsi");
        registry.register(
            "queries",
            "Queries answered, by endpoint and outcome (an HTTP status, aborted or gone)",
            queries.clone(),
        );
        registry.register(
            "query_duration_seconds",
            "Time from a query's arrival to the end of its answer",
            latency.clone(),
        );
        registry.register("queries_running", "Queries under way", running.clone());
        registry.register(
            "queries_queued",
            "Queries waiting for their turn",
            queued.clone(),
        );
        registry.register(
            "device_index_bytes",
            "Bytes of the data index on the GPUs (0 on the CPU)",
            device_bytes.clone(),
        );
        Metrics {
            registry,
            queries,
            latency,
            running,
            queued,
            device_bytes,
        }
    }
}

impl Metrics {
    /// The text of `/metrics`, the gauges read from `server` now.
    pub fn text(&self, server: &Server) -> String {
        self.running.set(server.admission.running() as i64);
        self.queued.set(server.admission.waiting() as i64);
        self.device_bytes
            .set(i64::try_from(server.engines.device_bytes()).unwrap_or(i64::MAX));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a string");
        text
    }
}

/// One query's record, from its arrival: closed once with its outcome.
pub struct Tracker {
    server: Arc<Server>,
    endpoint: &'static str,
    started: Instant,
}

impl Tracker {
    pub fn start(server: &Arc<Server>, endpoint: &'static str) -> Tracker {
        Tracker {
            server: Arc::clone(server),
            endpoint,
            started: Instant::now(),
        }
    }

    /// The query ended with `status`.
    pub fn finish(self, status: &str) {
        let metrics = &self.server.metrics;
        let outcome = Outcome {
            endpoint: self.endpoint,
            status: status.to_string(),
        };
        metrics.queries.get_or_create(&outcome).inc();
        metrics
            .latency
            .observe(self.started.elapsed().as_secs_f64());
    }

    /// When the query arrived.
    pub fn started(&self) -> Instant {
        self.started
    }
}
