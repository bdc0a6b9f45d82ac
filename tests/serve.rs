//! `gsi serve` as clients reach it: a real server on a free local port, spoken to over TCP
//! (HTTP/1.0, so that a response ends with its connection): the SPARQL 1.1 Protocol's three
//! ways to send a query and four result formats, answers checked against the data's triples
//! written out by hand; refusals with the status and a text that names the problem; hostile
//! requests; a full queue, timeouts, the stop on SIGTERM; `/match` against the brute force.
//! (Answers over larger data are compared with Oxigraph's in `test_serve.py`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{clique, Spec, TestDir};

/// a knows b and c, b knows c; a is a person; b has a name.
const DATA: &str = r#"<http://ex/a> <http://ex/knows> <http://ex/b> .
<http://ex/a> <http://ex/knows> <http://ex/c> .
<http://ex/b> <http://ex/knows> <http://ex/c> .
<http://ex/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/b> <http://ex/name> "Bob, \"B\""@en .
"#;

const KNOWS: &str = "SELECT ?x ?y WHERE { ?x <http://ex/knows> ?y }";

/// The complete directed graph on `n` vertices under one predicate: a cycle of 8 of its
/// edges has about n^8 matches, a query no timeout of a test outlasts.
fn complete(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            text += &format!("<http://ex/v{i}> <http://ex/p> <http://ex/v{j}> .\n");
        }
    }
    text
}

const HEAVY: &str = "SELECT (COUNT(*) AS ?n) { ?a <http://ex/p> ?b . ?b <http://ex/p> ?c . ?c <http://ex/p> ?d . ?d <http://ex/p> ?e . ?e <http://ex/p> ?f . ?f <http://ex/p> ?g . ?g <http://ex/p> ?h . ?h <http://ex/p> ?a }";

/// A running `gsi serve`, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    /// `gsi serve --data DATA --engine cpu --bind 127.0.0.1:0 EXTRA...`, once it listens.
    fn start(dir: &TestDir, data: &str, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gsi"))
            .args(["serve", "--data", data, "--engine", "cpu", "--quiet"])
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .current_dir(dir.path(""))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start gsi serve");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("read stderr");
        let port = line
            .trim()
            .strip_prefix("gsi: listening on http://127.0.0.1:")
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .expect("a port");
        // Whatever it says later must not fill the pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Server { child, port }
    }

    /// Sends `head` (request line and headers, without the blank line) and `body`.
    fn request(&self, head: &str, body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let head = format!("{head}\r\nContent-Length: {}\r\n\r\n", body.len());
        stream.write_all(head.as_bytes()).unwrap();
        // A server that refuses a body early may close before reading it all.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        Reply::parse(&raw)
    }

    fn get(&self, target: &str, accept: &str) -> Reply {
        self.request(&format!("GET {target} HTTP/1.0\r\nAccept: {accept}"), b"")
    }

    fn post(&self, target: &str, content_type: &str, body: &[u8]) -> Reply {
        let head = format!("POST {target} HTTP/1.0\r\nContent-Type: {content_type}");
        self.request(&head, body)
    }

    /// The query's URL at `/sparql`.
    fn url(query: &str) -> String {
        format!("/sparql?query={}", encode(query))
    }

    /// The value of `name` in `/metrics` (the first line that starts with it).
    fn metric(&self, name: &str) -> f64 {
        let reply = self.get("/metrics", "*/*");
        reply
            .body
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {}", reply.body))
    }

    /// Waits until no query runs (a cancelled one frees its engine), for at most 10 s.
    fn wait_idle(&self) {
        let started = Instant::now();
        while self.metric("gsi_queries_running") > 0.0 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "a query still runs"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encodes all but unreserved characters.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A response: its status, its headers (names lowercase) and its body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {text:?}"));
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: body.to_string(),
        }
    }

    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v)
    }

    /// Asserts the status, and that the body holds `says`.
    fn expect(&self, status: u16, says: &str) -> &Reply {
        assert_eq!(self.status, status, "{}", self.body);
        assert!(self.body.contains(says), "{says:?} not in {:?}", self.body);
        self
    }

    /// The (x, y) pairs of SPARQL JSON results, sorted.
    fn pairs(&self) -> Vec<(String, String)> {
        let json: serde_json::Value = serde_json::from_str(&self.body).expect("JSON results");
        let mut pairs: Vec<(String, String)> = json["results"]["bindings"]
            .as_array()
            .expect("bindings")
            .iter()
            .map(|b| {
                let value = |v: &str| b[v]["value"].as_str().unwrap_or("").to_string();
                (value("x"), value("y"))
            })
            .collect();
        pairs.sort();
        pairs
    }
}

/// The pairs of `?x :knows ?y` in [`DATA`].
fn knows() -> Vec<(String, String)> {
    [("a", "b"), ("a", "c"), ("b", "c")]
        .iter()
        .map(|(x, y)| (format!("http://ex/{x}"), format!("http://ex/{y}")))
        .collect()
}

#[test]
fn the_protocols_three_ways_give_one_answer_in_four_formats() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    let server = Server::start(&dir, "d.nt", &[]);
    let json = "application/sparql-results+json";
    let by_url = server.get(&Server::url(KNOWS), "*/*");
    assert_eq!(by_url.header("content-type"), json);
    assert_eq!(by_url.pairs(), knows());
    let form = format!("query={}", encode(KNOWS));
    let by_form = server.post(
        "/sparql",
        "application/x-www-form-urlencoded",
        form.as_bytes(),
    );
    assert_eq!(by_form.pairs(), knows());
    let by_body = server.post("/sparql", "application/sparql-query", KNOWS.as_bytes());
    assert_eq!(by_body.pairs(), knows());

    let name = "SELECT ?n WHERE { <http://ex/b> <http://ex/name> ?n }";
    let csv = server.get(&Server::url(name), "text/csv");
    assert_eq!(csv.header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(csv.body, "n\r\n\"Bob, \"\"B\"\"\"\r\n");
    let tsv = server.get(&Server::url(name), "text/tab-separated-values");
    assert_eq!(tsv.body, "?n\n\"Bob, \\\"B\\\"\"@en\n");
    let xml = server.get(&Server::url(name), "application/sparql-results+xml");
    assert!(
        xml.body
            .contains(r#"<literal xml:lang="en">Bob, &quot;B&quot;</literal>"#),
        "{}",
        xml.body
    );
    // The best quality wins; ASK answers in JSON when CSV is only preferred.
    let ask = "ASK { <http://ex/a> a <http://ex/Person> }";
    let reply = server.get(&Server::url(ask), "text/csv, application/json;q=0.5");
    assert_eq!(reply.body.trim(), r#"{"head":{},"boolean":true}"#);
    let count = server.get(
        &Server::url("SELECT (COUNT(*) AS ?n) { ?x <http://ex/knows> ?y }"),
        "text/csv",
    );
    assert_eq!(count.body, "n\r\n3\r\n");
    // A smaller timeout than the server's is taken.
    let reply = server.get(&format!("{}&timeout=5", Server::url(KNOWS)), json);
    assert_eq!(reply.pairs(), knows());
    server.get("/health", "*/*").expect(200, r#""status":"ok""#);
}

#[test]
fn compressed_turtle_and_a_saved_index_serve_the_same_answers() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"@prefix ex: <http://ex/> .\nex:a ex:knows ex:b, ex:c .\nex:b ex:knows ex:c .\n")
        .unwrap();
    dir.write("d.ttl.gz", gz.finish().unwrap());
    dir.gsi(["index", "d.nt", "-o", "d.gsidx"]).ok();
    for data in ["d.ttl.gz", "d.gsidx"] {
        let server = Server::start(&dir, data, &[]);
        assert_eq!(
            server.get(&Server::url(KNOWS), "*/*").pairs(),
            knows(),
            "{data}"
        );
    }
}

#[test]
fn bad_flags_are_refused_and_a_long_timeout_is_taken() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    for (flag, value, says) in [
        ("--timeout", "0", "--timeout 0"),
        ("--max-concurrent", "0", "--max-concurrent 0"),
        ("--max-request", "10", "--max-request 10"),
        ("--max-response", "lots", "--max-response lots"),
    ] {
        let run = dir.gsi(["serve", "--data", "d.nt", "--engine", "cpu", flag, value]);
        assert_eq!(run.code, Some(2), "{flag}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{flag}: {}", run.stderr);
    }
    let server = Server::start(&dir, "d.nt", &["--timeout", "1e300"]);
    assert_eq!(server.get(&Server::url(KNOWS), "*/*").pairs(), knows());
    // A port taken is refused, naming it.
    let taken = format!("127.0.0.1:{}", server.port);
    let run = dir.gsi([
        "serve", "--data", "d.nt", "--engine", "cpu", "--bind", &taken,
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("--bind {taken}")),
        "{}",
        run.stderr
    );
}

#[test]
fn refusals_name_the_problem() {
    let dir = TestDir::new();
    dir.write("d.nt", DATA);
    let server = Server::start(&dir, "d.nt", &["--max-request", "4KiB"]);
    let any = "*/*";
    server
        .get(&Server::url("SELECT * { ?x ?y }"), any)
        .expect(400, "not valid SPARQL");
    let optional = "SELECT * { ?x <http://ex/knows> ?y OPTIONAL { ?y <http://ex/name> ?n } }";
    server
        .get(&Server::url(optional), any)
        .expect(400, "outside the SPARQL fragment");
    server
        .get(&Server::url(KNOWS), "image/png")
        .expect(406, "text/csv");
    let ask = "ASK { ?x ?p ?y }";
    server
        .get(&Server::url(ask), "text/csv")
        .expect(406, "application/sparql-results+xml");
    server.get("/sparql", any).expect(400, "no query");
    server
        .get(&format!("{}&query=ASK%7B%7D", Server::url(KNOWS)), any)
        .expect(400, "more than once");
    server
        .get(&format!("{}&timeout=-1", Server::url(KNOWS)), any)
        .expect(400, "timeout=-1");
    server
        .get(
            &format!(
                "{}&default-graph-uri=http%3A%2F%2Fex%2Fg",
                Server::url(KNOWS)
            ),
            any,
        )
        .expect(400, "default-graph-uri");
    server
        .post("/sparql", "text/plain", KNOWS.as_bytes())
        .expect(415, "application/sparql-query");
    server
        .post(
            "/sparql",
            "application/sparql-update",
            b"INSERT DATA { <a:a> <a:b> <a:c> }",
        )
        .expect(400, "read-only");
    server
        .post(
            "/sparql",
            "application/x-www-form-urlencoded",
            b"update=CLEAR%20ALL",
        )
        .expect(400, "read-only");
    // Bad encodings: a body, or a parameter once percent-decoded, that is not UTF-8.
    server
        .post(
            "/sparql",
            "application/sparql-query",
            b"ASK { ?x ?p \"\xff\xfe\" }",
        )
        .expect(400, "not UTF-8");
    server
        .get("/sparql?query=ASK%7B%7D%ff", any)
        .expect(400, "not UTF-8");
    // Too large: a body, or a URL.
    let huge = vec![b'#'; 64 << 10];
    server
        .post("/sparql", "application/sparql-query", &huge)
        .expect(413, "--max-request");
    server
        .get(&format!("/sparql?query={}", "a".repeat(8 << 10)), any)
        .expect(413, "--max-request");
    // No path reaches the filesystem.
    for path in [
        "/nothing",
        "/../Cargo.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/page.js/../../d.nt",
        "//etc/passwd",
        "/d.nt",
        "/sparql/../d.nt",
    ] {
        let reply = server.get(path, any);
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert!(!reply.body.contains("ex/knows"), "{path}");
    }
    assert_eq!(server.request("DELETE /sparql HTTP/1.0", b"").status, 405);
    // A request that is not HTTP at all gets an answer, and the server goes on.
    assert_eq!(server.request("BLAH\x01 / FOO/9", b"").status, 400);
    server.get("/health", any).expect(200, "ok");
    let errors = server.metric("gsi_queries_total{endpoint=\"sparql\",status=\"400\"}");
    assert!(errors >= 10.0, "{errors}");
}

#[test]
fn a_response_larger_than_the_limit_is_refused() {
    let dir = TestDir::new();
    dir.write("k.nt", complete(30));
    let server = Server::start(&dir, "k.nt", &["--max-response", "4KiB"]);
    let all = "SELECT * { ?x <http://ex/p> ?y }";
    server
        .get(&Server::url(all), "*/*")
        .expect(422, "--max-response");
    let few = "SELECT * { ?x <http://ex/p> ?y } LIMIT 3";
    server.get(&Server::url(few), "*/*").expect(200, "bindings");
}

#[test]
fn a_full_queue_answers_503_and_a_timeout_frees_the_engine() {
    let dir = TestDir::new();
    dir.write("k.nt", complete(40));
    let server = Server::start(
        &dir,
        "k.nt",
        &["--max-concurrent", "1", "--queue", "1", "--timeout", "3"],
    );
    let heavy = Server::url(HEAVY);
    std::thread::scope(|scope| {
        let first = scope.spawn(|| server.get(&heavy, "*/*"));
        std::thread::sleep(Duration::from_millis(500));
        let queued = scope.spawn(|| server.get(&format!("{heavy}&timeout=1"), "*/*"));
        std::thread::sleep(Duration::from_millis(500));
        let started = Instant::now();
        let refused = server.get(&heavy, "*/*");
        refused.expect(503, "queue");
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(refused.header("retry-after"), "1");
        server.get("/health", "*/*").expect(200, r#""queued":1"#);
        // The queued query's timeout passes while it waits.
        queued.join().unwrap().expect(503, "timeout of 1 s");
        first.join().unwrap().expect(503, "timeout of 3 s");
    });
    server.wait_idle();
    // The engine is free again.
    let light = "SELECT (COUNT(*) AS ?n) { ?x <http://ex/p> ?y }";
    let reply = server.get(&Server::url(light), "text/csv");
    assert_eq!(reply.body, "n\r\n1560\r\n");
}

#[test]
fn a_client_that_leaves_frees_its_query() {
    let dir = TestDir::new();
    dir.write("k.nt", complete(40));
    let server = Server::start(&dir, "k.nt", &["--timeout", "30"]);
    // Matches of a 4-path stream for long; the client reads a little and leaves.
    let stream = "SELECT * { ?a <http://ex/p> ?b . ?b <http://ex/p> ?c . ?c <http://ex/p> ?d . ?d <http://ex/p> ?e }";
    let mut client = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(client, "GET {} HTTP/1.0\r\n\r\n", Server::url(stream)).unwrap();
    let mut start = [0u8; 4096];
    client.read_exact(&mut start).unwrap();
    assert_eq!(
        &start[8..13],
        b" 200 ",
        "{}",
        String::from_utf8_lossy(&start)
    );
    assert_eq!(server.metric("gsi_queries_running"), 1.0);
    drop(client);
    let started = Instant::now();
    server.wait_idle();
    assert!(started.elapsed() < Duration::from_secs(5));
    let gone = "gsi_queries_total{endpoint=\"sparql\",status=\"gone\"}";
    assert_eq!(server.metric(gone), 1.0);
    // A count, which writes nothing before its end, is cancelled as well.
    let mut client = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(client, "GET {} HTTP/1.0\r\n\r\n", Server::url(HEAVY)).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(server.metric("gsi_queries_running"), 1.0);
    drop(client);
    let started = Instant::now();
    server.wait_idle();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.metric(gone), 2.0);
}

#[test]
fn sigterm_cancels_the_queries_and_exits_zero() {
    let dir = TestDir::new();
    dir.write("k.nt", complete(40));
    let mut server = Server::start(&dir, "k.nt", &[]);
    let port = server.port;
    std::thread::scope(|scope| {
        let heavy = scope.spawn(|| server.get(&Server::url(HEAVY), "*/*"));
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(server.metric("gsi_queries_running"), 1.0);
        // SAFETY: signals the child this test started.
        unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
        heavy.join().unwrap().expect(503, "cancelled");
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "gsi serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    // The port is free again.
    std::net::TcpListener::bind(("127.0.0.1", port)).expect("the port released");
}

#[test]
fn match_counts_and_lists_as_the_brute_force_does() {
    let dir = TestDir::new();
    let data = clique(false, 6, 0);
    dir.write_spec("k6.graph", &data);
    let server = Server::start(&dir, "k6.graph", &[]);
    // Not RDF: /sparql says so.
    server
        .get(&Server::url(KNOWS), "*/*")
        .expect(400, "not RDF");
    let triangle = clique(false, 3, 0);
    let body = triangle.sunluo();
    for (semantics, homomorphism) in [("isomorphism", false), ("homomorphism", true)] {
        let expected = crate::brute::count(&triangle.graph(), &data.graph(), homomorphism);
        let counted = server.post(
            &format!("/match?count=true&semantics={semantics}"),
            "text/plain",
            body.as_bytes(),
        );
        counted.expect(200, &format!("{{\"count\":{expected},\"status\":\"ok\"}}"));
        let listed = server.post(
            &format!("/match?semantics={semantics}"),
            "text/plain",
            body.as_bytes(),
        );
        let mut rows: Vec<Vec<u32>> = listed
            .body
            .lines()
            .filter(|l| l.starts_with('['))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        rows.sort();
        let mut brute = crate::brute::matches(&triangle.graph(), &data.graph(), homomorphism);
        brute.sort();
        assert_eq!(rows, brute, "{semantics}");
    }
    let limited = server.post("/match?limit=5", "text/plain", body.as_bytes());
    assert_eq!(
        limited.body.lines().filter(|l| l.starts_with('[')).count(),
        5
    );
    assert!(
        limited
            .body
            .ends_with("{\"count\":5,\"status\":\"limit\"}\n"),
        "{}",
        limited.body
    );
    let path = Spec::new(false, vec![0, 0]).edge(0, 1, 0).sunluo();
    server
        .post(
            "/match?semantics=edge-isomorphism",
            "text/plain",
            path.as_bytes(),
        )
        .expect(400, "not served");
    server
        .post("/match?semantics=exact", "text/plain", path.as_bytes())
        .expect(400, "unknown semantics");
    server
        .post("/match?limit=0", "text/plain", path.as_bytes())
        .expect(400, "limit=0");
    server
        .post("/match", "text/plain", b"t 2 1\nv 0 0 1\n")
        .expect(400, "the query graph");
}
