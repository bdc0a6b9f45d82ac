//! The query page: one HTML file, its script and its style, built into the binary; with the
//! examples made from the data and the basic graph pattern of a query, which it draws.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderName};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::protocol::{self, single, Failure};
use super::Server;

/// Headers of the page's files: their type, no sniffing, nothing loaded from elsewhere.
fn file(media_type: &'static str, text: &'static str) -> Response {
    let headers: [(HeaderName, &str); 3] = [
        (header::CONTENT_TYPE, media_type),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CONTENT_SECURITY_POLICY, "default-src 'self'"),
    ];
    (headers, text).into_response()
}

pub async fn index() -> Response {
    file("text/html; charset=utf-8", include_str!("page/index.html"))
}

pub async fn script() -> Response {
    file(
        "text/javascript; charset=utf-8",
        include_str!("page/page.js"),
    )
}

pub async fn style() -> Response {
    file("text/css; charset=utf-8", include_str!("page/page.css"))
}

pub async fn examples(State(server): State<Arc<Server>>) -> Response {
    Json(&server.data.examples).into_response()
}

/// The triple patterns of the query in the `query` parameter, each as three SPARQL terms.
pub async fn bgp(RawQuery(url): RawQuery) -> Result<Response, Failure> {
    let parameters = protocol::parameters(url.unwrap_or_default().as_bytes())?;
    let text = single(&parameters, "query")?
        .ok_or_else(|| Failure::bad_request("no query: give it as the `query` parameter"))?;
    let query = gsi_sparql::parse(text).map_err(|e| Failure::bad_request(e.to_string()))?;
    let triples: Vec<[String; 3]> = query
        .patterns
        .iter()
        .map(|t| {
            [
                t.subject.to_string(),
                t.predicate.to_string(),
                t.object.to_string(),
            ]
        })
        .collect();
    Ok(Json(json!({ "triples": triples })).into_response())
}
