//! Which handler answers which path; `/health` and `/metrics`; 404 for every other path (no
//! path ever reaches the filesystem: the page's files are in the binary).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::protocol::Failure;
use super::{matching, page, sparql, Server};

pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/sparql", get(sparql::handle).post(sparql::handle))
        .route("/match", post(matching::handle))
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/", get(page::index))
        .route("/page.js", get(page::script))
        .route("/page.css", get(page::style))
        .route("/examples", get(page::examples))
        .route("/bgp", get(page::bgp))
        .fallback(not_found)
        .with_state(server)
}

/// The data's size and the queries under way; 503 once the server is stopping.
async fn health(State(server): State<Arc<Server>>) -> Response {
    let graph = server.data.index.graph();
    let status = if server.admission.is_stopping() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    let body = json!({
        "status": if status == StatusCode::OK { "ok" } else { "stopping" },
        "vertices": graph.vertex_count(),
        "edges": graph.edge_count(),
        "rdf": server.data.not_rdf().is_none(),
        "running": server.admission.running(),
        "queued": server.admission.waiting(),
    });
    (status, Json(body)).into_response()
}

async fn metrics(State(server): State<Arc<Server>>) -> Response {
    let text = server.metrics.text(&server);
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

async fn not_found() -> Failure {
    Failure::new(
        StatusCode::NOT_FOUND,
        "no such page: gsi serve answers /sparql, /match, /health, /metrics and the page at /",
    )
}
