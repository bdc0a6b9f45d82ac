//! A query's life: its turn (or its refusal), an engine on a blocking thread under the
//! query's deadline and interrupt flag, and its response, streamed as it is written.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body as HttpBody;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use gsi_core::{Engine, MatchOptions};

use super::admission::Refusal;
use super::metrics::Tracker;
use super::protocol::Failure;
use super::stream::{self, Body, Chunks};
use super::Server;

/// The work of one query: with an engine, its options (deadline and interrupt set) and a
/// writer of its response.
pub type Work =
    Box<dyn FnOnce(&mut dyn Engine, &MatchOptions, Chunks) -> Result<(), Failure> + Send>;

/// Runs `work` within `timeout` of the request's arrival and answers with what it writes,
/// as `media_type`; or with the failure that came before its first bytes.
pub async fn respond(
    server: &Arc<Server>,
    tracker: Tracker,
    timeout: Duration,
    media_type: &'static str,
    work: Work,
) -> Response {
    let deadline = tracker.started() + timeout;
    let turn = match server.admission.enter(deadline.into()).await {
        Ok(turn) => turn,
        Err(refusal) => {
            let failure = match refusal {
                Refusal::Busy => Failure::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server is busy: its queue of queries is full (--queue); try again later",
                ),
                Refusal::Timeout => Failure::timeout(timeout),
                Refusal::Stopping => Failure::gone(),
            };
            tracker.finish(failure.status.as_str());
            return failure.into_response();
        }
    };
    let (sender, receiver) = stream::channel();
    let interrupt = turn.interrupt();
    let mut body = Body::new(receiver, Arc::clone(&interrupt), tracker);
    let job = Arc::clone(server);
    let limit = server.limits.response_bytes;
    tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let options = MatchOptions {
            deadline: Some(deadline),
            interrupt: Some(interrupt),
            ..MatchOptions::default()
        };
        let chunks = Chunks::new(sender.clone(), limit, deadline.into());
        let done = match job.engines.take(job.data.index) {
            Ok(mut lent) => work(lent.engine(), &options, chunks),
            Err(err) => Err(Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("opening an engine: {err}"),
            )),
        };
        if let Err(failure) = done {
            // No one reads a failure after the client left.
            let _ = sender.blocking_send(Err(failure));
        }
    });
    match body.start().await {
        Ok(()) => (
            [(header::CONTENT_TYPE, media_type)],
            HttpBody::from_stream(body),
        )
            .into_response(),
        Err(failure) => failure.into_response(),
    }
}
