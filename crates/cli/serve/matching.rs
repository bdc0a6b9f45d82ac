//! `/match`: a query graph in Sun–Luo text, its labels in the data graph's own numbering
//! (for RDF data, its class and predicate numbers), matched under `semantics` up to `limit`;
//! its matches as JSON Lines (an array of the data graph's vertex ids each) and a last line
//! with the count and how the search ended, or that line alone under `count`.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use gsi_core::{find_matches, MatchOptions, MatchSink, NamedSemantics, Semantics, Status};
use gsi_graph::formats::sunluo;
use gsi_graph::VertexId;

use super::jobs::{self, Work};
use super::metrics::Tracker;
use super::protocol::{self, single, Failure};
use super::stream::{write_failure, Chunks};
use super::Server;

pub async fn handle(State(server): State<Arc<Server>>, request: Request) -> Response {
    let tracker = Tracker::start(&server, "match");
    match prepare(&server, request).await {
        Ok((timeout, work)) => {
            jobs::respond(&server, tracker, timeout, "application/x-ndjson", work).await
        }
        Err(failure) => {
            tracker.finish(failure.status.as_str());
            failure.into_response()
        }
    }
}

/// The query graph and the parameters read: the query's timeout and the work of matching.
async fn prepare(server: &Arc<Server>, request: Request) -> Result<(Duration, Work), Failure> {
    let (parts, body) = protocol::read(request, server.limits.request_bytes).await?;
    let parameters = protocol::parameters(parts.uri.query().unwrap_or("").as_bytes())?;
    let timeout = protocol::timeout(&parameters, server.limits.timeout)?;
    let semantics = semantics(single(&parameters, "semantics")?)?;
    let limit = match single(&parameters, "limit")? {
        None => None,
        Some(text) => Some(text.parse::<u64>().ok().filter(|&l| l > 0).ok_or_else(|| {
            Failure::bad_request(format!("limit={text}: expected a positive whole number"))
        })?),
    };
    let count = match single(&parameters, "count")? {
        None | Some("false" | "0") => false,
        Some("" | "true" | "1") => true,
        Some(other) => {
            return Err(Failure::bad_request(format!(
                "count={other}: expected true or false"
            )))
        }
    };
    let index = server.data.index;
    let directed = index.graph().is_directed();
    let query = sunluo::parse(Path::new("the query graph"), &body, directed)
        .map_err(|e| Failure::bad_request(e.to_string()))?;
    let work: Work = Box::new(move |engine, options, chunks| {
        let options = MatchOptions {
            semantics,
            limit,
            ..options.clone()
        };
        let mut lines = Lines {
            out: chunks,
            matches: !count,
        };
        let failed = |err: gsi_core::Error| match err {
            gsi_core::Error::EmptyQuery | gsi_core::Error::DirectionMismatch => {
                Failure::bad_request(err.to_string())
            }
            err => write_failure(&err, timeout).unwrap_or_else(|| {
                Failure::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string())
            }),
        };
        let report = find_matches(engine, &query, index, &options, &mut lines).map_err(failed)?;
        let status = match report.status {
            Status::Timeout => return Err(Failure::timeout(timeout)),
            Status::Interrupted => return Err(Failure::gone()),
            status => status.as_str(),
        };
        let summary = serde_json::json!({"count": report.count, "status": status});
        writeln!(lines.out, "{summary}")
            .and_then(|()| lines.out.flush())
            .map_err(|e| failed(e.into()))
    });
    Ok((timeout, work))
}

/// The semantics named by a request (isomorphism without one).
fn semantics(name: Option<&str>) -> Result<Semantics, Failure> {
    let Some(name) = name else {
        return Ok(Semantics::Isomorphism);
    };
    match name.parse::<NamedSemantics>() {
        Ok(NamedSemantics::Vertices(semantics)) => Ok(semantics),
        Ok(NamedSemantics::EdgeIsomorphism) => Err(Failure::bad_request(
            "semantics=edge-isomorphism is not served (it matches line graphs built per data graph): use gsi match",
        )),
        Err(err) => Err(Failure::bad_request(format!(
            "semantics: {err}; expected isomorphism, homomorphism or induced"
        ))),
    }
}

/// Matches as JSON Lines, or none where only the count is wanted.
struct Lines {
    out: Chunks,
    matches: bool,
}

impl MatchSink for Lines {
    fn wants_matches(&self) -> bool {
        self.matches
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        let mut line = String::new();
        for row in rows.chunks_exact(width.max(1)) {
            line.clear();
            line.push('[');
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                line += &v.to_string();
            }
            line += "]\n";
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}
