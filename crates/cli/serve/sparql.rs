//! `/sparql`: a query of the SPARQL 1.1 Protocol answered by gsi-sparql, in the format its
//! `Accept` prefers.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use gsi_sparql::results::ResultsWriter;

use super::jobs::{self, Work};
use super::metrics::Tracker;
use super::protocol::{self, Failure};
use super::stream::write_failure;
use super::Server;

pub async fn handle(State(server): State<Arc<Server>>, request: Request) -> Response {
    let tracker = Tracker::start(&server, "sparql");
    match prepare(&server, request).await {
        Ok((timeout, media_type, work)) => {
            jobs::respond(&server, tracker, timeout, media_type, work).await
        }
        Err(failure) => {
            tracker.finish(failure.status.as_str());
            failure.into_response()
        }
    }
}

/// The request read, its query parsed and its format chosen: the query's timeout, its
/// results' media type and the work of answering it.
async fn prepare(
    server: &Arc<Server>,
    request: Request,
) -> Result<(Duration, &'static str, Work), Failure> {
    let (parts, body) = protocol::read(request, server.limits.request_bytes).await?;
    let url = parts.uri.query().unwrap_or("").as_bytes();
    let request = protocol::query_request(&parts.method, &parts.headers, url, &body)?;
    let timeout = protocol::timeout(&request.parameters, server.limits.timeout)?;
    let rdf = server.data.rdf()?;
    let query =
        gsi_sparql::parse(&request.query).map_err(|e| Failure::bad_request(e.to_string()))?;
    let accept = parts
        .headers
        .get(header::ACCEPT)
        .map(|v| v.to_str().unwrap_or(""));
    let format = protocol::negotiate(accept, &query.form)?;
    let work: Work = Box::new(move |engine, options, chunks| {
        let failed = |err: gsi_sparql::Error| answer_failure(err, timeout);
        let writer = ResultsWriter::new(format, &query.form, chunks).map_err(failed)?;
        gsi_sparql::answer(&query, rdf, engine, options, Some(writer)).map_err(failed)?;
        Ok(())
    });
    Ok((timeout, protocol::media_type(format), work))
}

/// The failure of answering a query.
fn answer_failure(err: gsi_sparql::Error, timeout: Duration) -> Failure {
    use gsi_sparql::Error;
    match err {
        Error::Timeout => Failure::timeout(timeout),
        Error::Interrupted => Failure::gone(),
        Error::Graph(_) => Failure::bad_request(err.to_string()),
        err if err.is_input() => Failure::bad_request(err.to_string()),
        err => write_failure(&err, timeout)
            .unwrap_or_else(|| Failure::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string())),
    }
}
