//! The SPARQL 1.1 Protocol's side of a request: the query and its parameters, from the URL,
//! a form or an `application/sparql-query` body; the results' format, from `Accept`; and
//! failures, as HTTP statuses whose text names the problem.

use std::time::Duration;

use axum::body::{to_bytes, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use gsi_sparql::{Form, ResultsFormat};
use percent_encoding::percent_decode;

/// A request refused, or a query that failed: its status and what went wrong.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub message: String,
}

impl Failure {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Failure {
        Failure::new(StatusCode::BAD_REQUEST, message)
    }

    /// A query past its `timeout`.
    pub fn timeout(timeout: Duration) -> Failure {
        Failure::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the query ran past its timeout of {} s (the server's --timeout, or the request's timeout parameter)",
                timeout.as_secs_f64()
            ),
        )
    }

    /// A query stopped: the server stops, or its client left.
    pub fn gone() -> Failure {
        Failure::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the query was cancelled: the server is stopping, or its client left",
        )
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut response = (self.status, format!("{}\n", self.message)).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// The pairs of `name=value&...` text (a URL's query or a form), percent-decoded.
///
/// # Errors
/// A name or value that is not UTF-8 once decoded.
pub fn parameters(text: &[u8]) -> Result<Vec<(String, String)>, Failure> {
    let decode = |part: &[u8]| -> Result<String, Failure> {
        let spaced: Vec<u8> = part
            .iter()
            .map(|&b| if b == b'+' { b' ' } else { b })
            .collect();
        percent_decode(&spaced)
            .decode_utf8()
            .map(|text| text.into_owned())
            .map_err(|_| Failure::bad_request("a parameter is not UTF-8 once percent-decoded"))
    };
    text.split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = match pair.iter().position(|&b| b == b'=') {
                Some(i) => (&pair[..i], &pair[i + 1..]),
                None => (pair, &pair[pair.len()..]),
            };
            Ok((decode(name)?, decode(value)?))
        })
        .collect()
}

/// The one value of parameter `name`, if given.
///
/// # Errors
/// The parameter given more than once.
pub fn single<'p>(pairs: &'p [(String, String)], name: &str) -> Result<Option<&'p str>, Failure> {
    let mut values = pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v);
    match (values.next(), values.next()) {
        (first, None) => Ok(first.map(String::as_str)),
        (_, Some(_)) => Err(Failure::bad_request(format!(
            "the parameter `{name}` is given more than once"
        ))),
    }
}

/// A request's timeout: its `timeout` parameter (seconds), at most `most`.
///
/// # Errors
/// A value that is not a positive number.
pub fn timeout(pairs: &[(String, String)], most: Duration) -> Result<Duration, Failure> {
    let Some(text) = single(pairs, "timeout")? else {
        return Ok(most);
    };
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => {
            Ok(Duration::try_from_secs_f64(s).map_or(most, |t| t.min(most)))
        }
        _ => Err(Failure::bad_request(format!(
            "timeout={text}: expected a positive number of seconds"
        ))),
    }
}

/// A request read whole: its head, and its body.
///
/// # Errors
/// 413 for a body, or a URL's query, over `limit` bytes.
pub async fn read(request: Request, limit: usize) -> Result<(Parts, Bytes), Failure> {
    let too_large = || {
        Failure::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request is larger than the server's limit of {limit} bytes (--max-request)"
            ),
        )
    };
    let (parts, body) = request.into_parts();
    if parts.uri.query().map_or(0, str::len) > limit {
        return Err(too_large());
    }
    let body = to_bytes(body, limit).await.map_err(|_| too_large())?;
    Ok((parts, body))
}

/// The media type of a request's body, without its parameters, lowercase.
pub fn content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next().unwrap_or("").trim();
    Some(essence.to_ascii_lowercase())
}

/// A SPARQL query request, as the protocol allows it to come.
pub struct QueryRequest {
    pub query: String,
    /// Every parameter: the URL's, and a form's.
    pub parameters: Vec<(String, String)>,
}

/// The query of a `GET` or `POST` to `/sparql` (`url` the URL's query, `body` the body).
///
/// # Errors
/// 400 for a missing or repeated query, an update, a dataset other than the one served;
/// 415 for a body of another type.
pub fn query_request(
    method: &Method,
    headers: &HeaderMap,
    url: &[u8],
    body: &[u8],
) -> Result<QueryRequest, Failure> {
    let mut parameters = parameters(url)?;
    let mut body_query = None;
    if method == Method::POST {
        match content_type(headers).as_deref() {
            Some("application/x-www-form-urlencoded") => parameters.extend(self::parameters(body)?),
            Some("application/sparql-query") => {
                let text = std::str::from_utf8(body)
                    .map_err(|_| Failure::bad_request("the query (the request's body) is not UTF-8"))?;
                body_query = Some(text.to_string());
            }
            Some("application/sparql-update") => return Err(read_only()),
            other => {
                return Err(Failure::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!(
                        "a POST to /sparql carries application/x-www-form-urlencoded or application/sparql-query, not {}",
                        other.unwrap_or("a body without a Content-Type")
                    ),
                ))
            }
        }
    }
    if single(&parameters, "update")?.is_some() {
        return Err(read_only());
    }
    for dataset in ["default-graph-uri", "named-graph-uri"] {
        if parameters.iter().any(|(name, _)| name == dataset) {
            return Err(Failure::bad_request(format!(
                "{dataset}: gsi serve holds one graph, queried without naming it"
            )));
        }
    }
    let query = match (body_query, single(&parameters, "query")?) {
        (Some(_), Some(_)) => {
            return Err(Failure::bad_request(
                "the query is given both as the body and as the `query` parameter",
            ))
        }
        (Some(query), None) => query,
        (None, Some(query)) => query.to_string(),
        (None, None) => return Err(Failure::bad_request(
            "no query: give it as the `query` parameter, or POST it as application/sparql-query",
        )),
    };
    Ok(QueryRequest { query, parameters })
}

fn read_only() -> Failure {
    Failure::bad_request("gsi serve is read-only: it answers queries, not SPARQL Update")
}

/// The media types of each result format, the first the one answered with.
const TYPES: [(ResultsFormat, &[&str]); 4] = [
    (
        ResultsFormat::Json,
        &["application/sparql-results+json", "application/json"],
    ),
    (
        ResultsFormat::Xml,
        &[
            "application/sparql-results+xml",
            "application/xml",
            "text/xml",
        ],
    ),
    (ResultsFormat::Csv, &["text/csv"]),
    (ResultsFormat::Tsv, &["text/tab-separated-values"]),
];

/// The `Content-Type` of results in `format`.
pub fn media_type(format: ResultsFormat) -> &'static str {
    match format {
        ResultsFormat::Json => "application/sparql-results+json",
        ResultsFormat::Xml => "application/sparql-results+xml",
        ResultsFormat::Csv => "text/csv; charset=utf-8",
        ResultsFormat::Tsv => "text/tab-separated-values; charset=utf-8",
    }
}

/// The results' format that `accept` (an `Accept` header) prefers among those that a query
/// of `form` has (an `ASK` has no CSV or TSV form): of the highest quality, the first of
/// [`TYPES`] among equals; JSON without a header.
///
/// # Errors
/// 406 where it accepts none of them.
pub fn negotiate(accept: Option<&str>, form: &Form) -> Result<ResultsFormat, Failure> {
    let accept = accept.map(str::trim).filter(|a| !a.is_empty());
    let Some(accept) = accept else {
        return Ok(ResultsFormat::Json);
    };
    let ranges: Vec<(String, f32)> = accept.split(',').filter_map(media_range).collect();
    let boolean = *form == Form::Ask;
    let mut best: Option<(ResultsFormat, f32)> = None;
    for (format, types) in TYPES {
        if boolean && matches!(format, ResultsFormat::Csv | ResultsFormat::Tsv) {
            continue;
        }
        let quality = types
            .iter()
            .filter_map(|t| quality(&ranges, t))
            .fold(0.0, f32::max);
        if quality > 0.0 && best.is_none_or(|(_, q)| quality > q) {
            best = Some((format, quality));
        }
    }
    best.map(|(format, _)| format).ok_or_else(|| {
        let offered = if boolean {
            "application/sparql-results+json or application/sparql-results+xml"
        } else {
            "application/sparql-results+json, application/sparql-results+xml, text/csv or text/tab-separated-values"
        };
        Failure::new(
            StatusCode::NOT_ACCEPTABLE,
            format!("Accept: {accept}: this query's results come as {offered}"),
        )
    })
}

/// One media range of an `Accept` header, lowercase, with its quality.
fn media_range(text: &str) -> Option<(String, f32)> {
    let mut parts = text.split(';');
    let range = parts.next()?.trim().to_ascii_lowercase();
    if range.is_empty() {
        return None;
    }
    let mut quality = 1.0;
    for parameter in parts {
        if let Some((name, value)) = parameter.split_once('=') {
            if name.trim().eq_ignore_ascii_case("q") {
                quality = value.trim().parse::<f32>().ok()?.clamp(0.0, 1.0);
            }
        }
    }
    Some((range, quality))
}

/// The quality `ranges` give `media_type`: that of the most specific range matching it.
fn quality(ranges: &[(String, f32)], media_type: &str) -> Option<f32> {
    let (kind, _) = media_type.split_once('/')?;
    let specificity = |range: &str| -> Option<u8> {
        if range == media_type {
            Some(2)
        } else if range.strip_suffix("/*") == Some(kind) {
            Some(1)
        } else if range == "*/*" {
            Some(0)
        } else {
            None
        }
    };
    ranges
        .iter()
        .filter_map(|(range, q)| specificity(range).map(|s| (s, *q)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, q)| q)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever a client sends as a query string, an `Accept` header or a `timeout`, the
        /// server answers with a value or a 400/406 naming the problem, never a panic.
        #[test]
        fn any_request_text_is_read_or_refused_by_name(
            text in proptest::collection::vec(any::<u8>(), 0..120),
            accept in "[ -~]{0,60}",
            seconds in "[ -~]{0,12}",
        ) {
            match parameters(&text) {
                Ok(pairs) => prop_assert!(pairs.iter().all(|(name, _)| !name.contains('&'))),
                Err(failure) => prop_assert_eq!(failure.status, StatusCode::BAD_REQUEST),
            }
            for form in [select(), Form::Ask] {
                if let Err(failure) = negotiate(Some(&accept), &form) {
                    prop_assert_eq!(failure.status, StatusCode::NOT_ACCEPTABLE);
                }
            }
            let most = Duration::from_secs(60);
            match timeout(&[("timeout".to_owned(), seconds)], most) {
                Ok(limit) => prop_assert!(limit <= most),
                Err(failure) => prop_assert_eq!(failure.status, StatusCode::BAD_REQUEST),
            }
        }
    }

    fn select() -> Form {
        Form::Select {
            variables: Vec::new(),
            distinct: false,
        }
    }

    #[test]
    fn accept_picks_the_best_quality_then_the_first_type() {
        let pick = |accept: Option<&str>, form: &Form| negotiate(accept, form).ok();
        assert_eq!(pick(None, &select()), Some(ResultsFormat::Json));
        assert_eq!(pick(Some("text/csv"), &select()), Some(ResultsFormat::Csv));
        assert_eq!(
            pick(
                Some("text/csv;q=0.5, application/sparql-results+xml"),
                &select()
            ),
            Some(ResultsFormat::Xml)
        );
        assert_eq!(pick(Some("text/*"), &select()), Some(ResultsFormat::Xml));
        assert_eq!(
            pick(Some("*/*;q=0.1, text/tab-separated-values"), &select()),
            Some(ResultsFormat::Tsv)
        );
        assert_eq!(pick(Some("*/*"), &Form::Ask), Some(ResultsFormat::Json));
        assert_eq!(pick(Some("text/csv"), &Form::Ask), None);
        assert_eq!(pick(Some("image/png"), &select()), None);
        assert_eq!(pick(Some("text/csv;q=0"), &select()), None);
        assert_eq!(
            pick(Some("*/*, text/csv;q=0"), &select()),
            Some(ResultsFormat::Json)
        );
    }

    #[test]
    fn parameters_are_percent_decoded_and_strict_utf8() {
        let pairs = parameters(b"query=SELECT+%3Fx&timeout=2&flag").unwrap();
        assert_eq!(
            pairs,
            [
                ("query".into(), "SELECT ?x".into()),
                ("timeout".into(), "2".into()),
                ("flag".into(), String::new())
            ]
        );
        assert!(parameters(b"query=%ff%fe").is_err());
        assert!(single(&parameters(b"query=a&query=b").unwrap(), "query").is_err());
    }
}
