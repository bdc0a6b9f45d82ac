//! What `gsi match` prints on stdout: a readable table, or JSON Lines with `--json`; and the
//! sink that writes matches to `--output`.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use gsi_core::{DataEdges, MatchReport, MatchSink, SharesCut, SpreadReport};
use gsi_graph::formats::write::{write_graphs, write_graphs_to, WriteFormat};
use gsi_graph::formats::{AtomicFile, VertexNames};
use gsi_graph::{Graph, VertexId};
use serde::Serialize;

/// Counts above this are written to JSON as strings: a reader that takes every JSON number for
/// a double (JavaScript, jq) would round them (2^53, the largest integer of a double's
/// mantissa).
pub const EXACT_JSON_COUNT_MAX: u64 = 1 << 53;

/// Writes a count as a JSON number, or as a string of its digits above
/// [`EXACT_JSON_COUNT_MAX`].
pub fn count_json<S: serde::Serializer>(count: &u128, out: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*count) {
        Ok(count) if count <= EXACT_JSON_COUNT_MAX => out.serialize_u64(count),
        _ => out.collect_str(count),
    }
}

/// `a + b`, two counts added up, or an error where the sum passes what gsi counts.
pub fn add_counts(a: u128, b: u128) -> anyhow::Result<u128> {
    a.checked_add(b)
        .ok_or_else(|| anyhow::anyhow!(gsi_core::Error::CountBeyond128Bits))
}

/// Phase times in milliseconds.
#[derive(Debug, Serialize)]
pub struct PhasesMs {
    pub filter: f64,
    pub plan: f64,
    pub join: f64,
    pub output: f64,
}

/// One query's record, as `--json` prints it (the table shows part of it).
#[derive(Debug, Serialize)]
pub struct QueryJson {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub query: String,
    #[serde(serialize_with = "count_json")]
    pub matches: u128,
    pub status: &'static str,
    /// Whether `matches` is every match: false after a timeout, a limit, an interrupt or an
    /// error (the count is then a lower bound).
    pub complete: bool,
    pub elapsed_ms: f64,
    pub engine: Option<&'static str>,
    pub phases_ms: PhasesMs,
    pub candidates: Vec<usize>,
    pub peak_join_bytes: usize,
    pub estimated_rows: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The join plan, with `--explain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// How the query was spread over several GPUs (`--devices`), when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<SpreadJson>,
}

/// How a spread query was cut into shares (the width of the table whose rows were dealt,
/// or the grid's sides) and each engine's part, in milliseconds.
#[derive(Debug, Serialize)]
pub struct SpreadJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_width: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<[u32; gsi_core::options::AXES]>,
    pub engines: Vec<EngineSharesJson>,
    pub shares: Vec<ShareTimeJson>,
}

/// One share of a spread query ([`gsi_core::ShareTime`]): the engine that answered it, the
/// part of the query (a quotient, or 0) and its share of it as `i/n` (`null`: whole).
#[derive(Debug, Serialize)]
pub struct ShareTimeJson {
    pub engine: usize,
    pub part: usize,
    pub share: Option<String>,
    pub began_ms: f64,
    pub ms: f64,
}

/// One engine's part of a spread query ([`gsi_core::EngineShares`]).
#[derive(Debug, Serialize)]
pub struct EngineSharesJson {
    pub ready_ms: f64,
    pub shares: u32,
    pub busy_ms: f64,
    pub cutting_ms: f64,
    pub longest_ms: f64,
}

impl SpreadJson {
    fn of(spread: &SpreadReport) -> SpreadJson {
        SpreadJson {
            rows_width: match spread.cut {
                SharesCut::Rows { width } => Some(width),
                SharesCut::Grid(_) => None,
            },
            grid: match spread.cut {
                SharesCut::Grid(sides) => Some(sides),
                SharesCut::Rows { .. } => None,
            },
            engines: spread
                .engines
                .iter()
                .map(|e| EngineSharesJson {
                    ready_ms: ms(e.ready),
                    shares: e.shares,
                    busy_ms: ms(e.busy),
                    cutting_ms: ms(e.cutting),
                    longest_ms: ms(e.longest),
                })
                .collect(),
            shares: spread
                .shares
                .iter()
                .map(|t| ShareTimeJson {
                    engine: t.engine,
                    part: t.part,
                    share: t.share.map(|s| s.to_string()),
                    began_ms: ms(t.began),
                    ms: ms(t.took),
                })
                .collect(),
        }
    }
}

impl QueryJson {
    /// The record of query `query`: its report or error, its time and the part of that
    /// spent writing matches; the plan when `explain` is given, followed by its text (which
    /// query vertex each `uI` is, where the query names them; empty where it does not).
    pub fn of(
        query: String,
        report: &Result<MatchReport, String>,
        elapsed: Duration,
        output_time: Duration,
        explain: Option<String>,
    ) -> QueryJson {
        let ok = report.as_ref().ok();
        let times = ok.map(|r| r.times).unwrap_or_default();
        QueryJson {
            kind: "query",
            query,
            matches: ok.map_or(0, |r| r.count),
            status: ok.map_or("error", |r| r.status.as_str()),
            complete: ok.is_some_and(|r| r.status.is_complete()),
            elapsed_ms: ms(elapsed),
            engine: ok.map(|r| r.engine),
            phases_ms: PhasesMs {
                filter: ms(times.filter),
                plan: ms(times.plan),
                join: ms(times.join.saturating_sub(output_time)),
                output: ms(output_time),
            },
            candidates: ok
                .map(|r| r.plan.candidate_sizes.clone())
                .unwrap_or_default(),
            peak_join_bytes: ok.map_or(0, |r| r.peak_join_bytes),
            estimated_rows: ok.map_or(0.0, |r| r.estimated_rows),
            error: report.as_ref().err().cloned(),
            plan: ok
                .zip(explain)
                .map(|(r, legend)| format!("{}{legend}{}", r.plan, r.paths)),
            spread: ok.and_then(|r| r.spread.as_ref()).map(SpreadJson::of),
        }
    }
}

/// The JSON object that closes a run.
#[derive(Debug, Default, Serialize)]
pub struct SummaryJson {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub data: String,
    pub vertices: usize,
    pub edges: usize,
    pub queries: usize,
    #[serde(serialize_with = "count_json")]
    pub matches: u128,
    pub ok: usize,
    pub timeouts: usize,
    pub limits: usize,
    pub errors: usize,
    /// `I/K` when the run answered one share of each query (`--partition`): `matches` is
    /// then that share's count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    pub load_ms: f64,
    pub index_ms: f64,
    /// Readying the index on the device (on every GPU at once); absent for the CPU engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_ms: Option<f64>,
    /// Bytes of the index on each GPU; absent for the CPU engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_bytes: Option<usize>,
    pub queries_ms: f64,
    pub median_ms: f64,
    /// How the run ended: `finished` (every query was answered, whatever its status),
    /// `interrupted` (a signal stopped it) or `failed` (matches could no longer be written).
    pub status: &'static str,
    /// Whether `matches` adds up exact counts only: false when any query was stopped early
    /// (timeout, limit, interrupt) or failed, so that the total is a lower bound.
    pub complete: bool,
}

/// Milliseconds, to the microsecond.
pub fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The median of `times` in milliseconds (the mean of the middle two for an even count).
pub fn median_ms(times: &[Duration]) -> f64 {
    median(&times.iter().map(|&t| ms(t)).collect::<Vec<_>>())
}

/// `ms` milliseconds to the microsecond, as every time gsi prints.
pub fn to_microsecond(ms: f64) -> f64 {
    (ms * 1e3).round() / 1e3
}

/// The median of `values`, in milliseconds (the mean of the middle two for an even count, to
/// the microsecond; 0 for none).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => to_microsecond((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The `p`-th percentile of `values` by nearest rank: the smallest value that at least `p`
/// percent of the values do not exceed (0 for none).
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The mean of `values`, in milliseconds, to the microsecond (0 for none).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        to_microsecond(values.iter().sum::<f64>() / values.len() as f64)
    }
}

/// Prints a run's records as they come: a header, one record per query, a summary. One
/// printer per output kind: [`JsonLines`] for `--json`, a table for people (each command has
/// its own, such as [`MatchTable`]).
pub trait Printer<Q, S> {
    /// Before the first query.
    fn header(&mut self) -> io::Result<()>;
    /// One query's record.
    fn query(&mut self, record: &Q) -> io::Result<()>;
    /// The run's summary.
    fn summary(&mut self, summary: &S) -> io::Result<()>;
}

/// Where a run's report goes: stdout, or stderr when the matches themselves go to stdout
/// (`--output -`).
pub fn report_stream(to_stderr: bool) -> Box<dyn Write> {
    if to_stderr {
        Box::new(io::stderr())
    } else {
        Box::new(io::stdout().lock())
    }
}

/// `--json`: every record one JSON object on its own line.
pub struct JsonLines {
    pub out: Box<dyn Write>,
}

impl JsonLines {
    fn line(&mut self, value: &impl Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, value)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}

impl<Q: Serialize, S: Serialize> Printer<Q, S> for JsonLines {
    fn header(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn query(&mut self, record: &Q) -> io::Result<()> {
        self.line(record)
    }

    fn summary(&mut self, summary: &S) -> io::Result<()> {
        self.line(summary)
    }
}

/// `gsi match` for people: a row per query, the plans asked for with `--explain` after the
/// table (so that its rows stay together), then `key = value` lines.
pub struct MatchTable {
    pub out: Box<dyn Write>,
    /// `--explain`'s plans, by query, printed after the table.
    pub plans: Vec<(String, String)>,
}

impl Printer<QueryJson, SummaryJson> for MatchTable {
    fn header(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "{:>16}  {:<8} {:>12}  query",
            "matches", "status", "time (ms)"
        )
    }

    fn query(&mut self, q: &QueryJson) -> io::Result<()> {
        if let Some(plan) = &q.plan {
            self.plans.push((q.query.clone(), plan.clone()));
        }
        writeln!(
            self.out,
            "{:>16}  {:<8} {:>12.3}  {}",
            q.matches, q.status, q.elapsed_ms, q.query
        )?;
        if let Some(e) = &q.error {
            writeln!(self.out, "{:>16}  error: {e}", "")?;
        }
        self.out.flush()
    }

    fn summary(&mut self, s: &SummaryJson) -> io::Result<()> {
        for (query, plan) in &self.plans {
            writeln!(self.out)?;
            writeln!(self.out, "{query}:")?;
            write!(self.out, "{plan}")?;
        }
        writeln!(self.out)?;
        writeln!(self.out, "queries = {}", s.queries)?;
        writeln!(self.out, "matches = {}", s.matches)?;
        if let Some(partition) = &s.partition {
            writeln!(self.out, "partition = {partition}")?;
        }
        writeln!(self.out, "complete = {}", s.complete)?;
        writeln!(self.out, "ok = {}", s.ok)?;
        writeln!(self.out, "timeouts = {}", s.timeouts)?;
        writeln!(self.out, "limits = {}", s.limits)?;
        writeln!(self.out, "errors = {}", s.errors)?;
        writeln!(self.out, "load_ms = {:.3}", s.load_ms)?;
        writeln!(self.out, "index_ms = {:.3}", s.index_ms)?;
        if let Some(upload) = s.upload_ms {
            writeln!(self.out, "upload_ms = {upload:.3}")?;
        }
        if let Some(bytes) = s.upload_bytes {
            writeln!(self.out, "upload_bytes = {bytes}")?;
        }
        writeln!(self.out, "queries_ms = {:.3}", s.queries_ms)?;
        writeln!(self.out, "median_ms = {:.3}", s.median_ms)?;
        writeln!(self.out, "status = {}", s.status)?;
        self.out.flush()
    }
}

/// The printer `--json` asks for.
pub fn match_printer(json: bool, out: Box<dyn Write>) -> Box<dyn Printer<QueryJson, SummaryJson>> {
    if json {
        Box::new(JsonLines { out })
    } else {
        Box::new(MatchTable {
            out,
            plans: Vec::new(),
        })
    }
}

/// Writes matches to `--output`, one line each, streamed: dense vertex ids, or the names the
/// data file gave its vertices (SNAP ids, RDF terms; a literal's spaces stay inside its
/// quotes, as in N-Triples). A file appears only when [`FileSink::finish`] completes it
/// (see [`AtomicFile`]); `-` is standard output.
pub struct FileSink<'a> {
    writer: BufWriter<Destination>,
    line: Vec<u8>,
    names: Option<&'a VertexNames>,
    /// Under edge isomorphism, the data edge each matched (line) vertex stands for.
    edges: Option<&'a DataEdges>,
    /// Time spent formatting and writing.
    pub elapsed: Duration,
}

/// Where matches go.
enum Destination {
    File(AtomicFile),
    Stdout(io::Stdout),
}

impl Write for Destination {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Destination::File(f) => f.write(buf),
            Destination::Stdout(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Destination::File(f) => f.flush(),
            Destination::Stdout(s) => s.flush(),
        }
    }
}

/// Whether `--output PATH` means standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path` as notes name an output: `standard output` for `-`.
pub fn output_name(path: &Path) -> String {
    match is_stdout(path) {
        true => "standard output".into(),
        false => crate::exit::shown(path),
    }
}

/// An error when `path` is standard output, a terminal, and `format` is binary: checked
/// before the work of making the graph.
pub fn refuse_binary_to_terminal(path: &Path, format: WriteFormat) -> anyhow::Result<()> {
    if is_stdout(path) && format.is_binary() && io::stdout().is_terminal() {
        return Err(crate::exit::input_error(format!(
            "{format} is binary and standard output is a terminal: name a file with -o, or redirect standard output"
        )));
    }
    Ok(())
}

/// Writes `graphs` as `format` to the file `path`, or to standard output for `-`.
pub fn write_graph_output<'a>(
    path: &Path,
    graphs: impl IntoIterator<Item = &'a Graph>,
    format: WriteFormat,
) -> gsi_graph::Result<()> {
    match is_stdout(path) {
        true => write_graphs_to(
            path,
            graphs,
            format,
            &mut BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        ),
        false => write_graphs(path, graphs, format),
    }
}

impl<'a> FileSink<'a> {
    pub fn create(
        path: &Path,
        names: Option<&'a VertexNames>,
        edges: Option<&'a DataEdges>,
    ) -> io::Result<FileSink<'a>> {
        let destination = if is_stdout(path) {
            Destination::Stdout(io::stdout())
        } else {
            Destination::File(AtomicFile::create(path)?)
        };
        Ok(FileSink {
            writer: BufWriter::with_capacity(1 << 20, destination),
            line: Vec::new(),
            names,
            edges,
            elapsed: Duration::ZERO,
        })
    }

    /// Appends data vertex `v` to the line, by its name when it has one.
    fn vertex(&mut self, v: VertexId) -> io::Result<()> {
        match self.names.and_then(|names| names.name(v)) {
            Some(name) => write!(self.line, "{name}"),
            None => write!(self.line, "{v}"),
        }
    }

    pub fn comment(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.writer, "# {text}")
    }

    /// Writes out what a query buffered, so that a failed write is that query's error.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }

    /// Completes the output; `incomplete` names why it lacks matches (an interrupt), in a
    /// last comment line.
    pub fn finish(mut self, incomplete: Option<&str>) -> io::Result<()> {
        if let Some(why) = incomplete {
            writeln!(self.writer, "# incomplete: {why}")?;
        }
        match self.writer.into_inner().map_err(|e| e.into_error())? {
            Destination::File(file) => file.commit(),
            Destination::Stdout(mut out) => out.flush(),
        }
    }
}

impl MatchSink for FileSink<'_> {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        let started = Instant::now();
        for row in rows.chunks_exact(width) {
            self.line.clear();
            for (i, &v) in row.iter().enumerate() {
                if i > 0 {
                    self.line.push(b' ');
                }
                match self.edges {
                    // A data edge: its endpoints, `a-b`.
                    Some(edges) => {
                        let [a, b] = edges.edge(v);
                        self.vertex(a)?;
                        self.line.push(b'-');
                        self.vertex(b)?;
                    }
                    None => self.vertex(v)?,
                }
            }
            self.line.push(b'\n');
            self.writer.write_all(&self.line)?;
        }
        self.elapsed += started.elapsed();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_percentiles() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        let ms3 = [3, 1, 2].map(Duration::from_millis);
        assert_eq!(median_ms(&ms3), 2.0);
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&values, 95.0), 19.0);
        assert_eq!(percentile(&values, 100.0), 20.0);
        assert_eq!(percentile(&values, 50.0), 10.0);
        assert_eq!(percentile(&values, 0.0), 1.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 95.0), 0.0);
        assert_eq!(percentile(&[5.0, 1.0, 3.0], 95.0), 5.0);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(mean(&[0.001, 0.001, 0.002]), 0.001);
        assert_eq!(median(&[0.001, 0.002]), 0.002);
        assert_eq!(mean(&[]), 0.0);
    }
}
