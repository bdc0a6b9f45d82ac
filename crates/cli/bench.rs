//! `gsi bench`: each query run several times on one loaded, indexed and uploaded data graph;
//! per-query medians and the statistics of the set, as a table or JSON Lines.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::spread::SPREAD_AFTER;
use gsi_core::{find_matches_spread, CountOnly, DataIndex, Engine, PhaseTimes, Status};
use gsi_graph::Graph;
use serde::Serialize;

use crate::config::BenchConfig;
use crate::exit::Exit;
use crate::output::{
    mean, median, median_ms, ms, percentile, report_stream, to_microsecond, JsonLines, Printer,
};
use crate::queries::Query;
use crate::session;
use crate::{progress, system};

/// The timed runs of one query.
#[derive(Debug, Default)]
struct Timed {
    /// Wall time of each timed run.
    times: Vec<Duration>,
    /// Phase times of each timed run.
    phases: Vec<PhaseTimes>,
    count: u128,
    status: Option<Status>,
    /// Engines that ran it (under `auto`, possibly both).
    engines: Vec<&'static str>,
    estimated_rows: f64,
    peak_join_bytes: usize,
}

impl Timed {
    fn median_ms(&self) -> f64 {
        median_ms(&self.times)
    }

    fn min_ms(&self) -> f64 {
        self.times.iter().min().map_or(0.0, |&t| ms(t))
    }

    fn phases_ms(&self) -> PhasesMs {
        let phase = |f: fn(&PhaseTimes) -> Duration| {
            median(&self.phases.iter().map(|p| ms(f(p))).collect::<Vec<_>>())
        };
        PhasesMs {
            filter: phase(|p| p.filter),
            plan: phase(|p| p.plan),
            join: phase(|p| p.join),
        }
    }

    fn status(&self) -> &'static str {
        self.status.map_or("ok", Status::as_str)
    }

    fn engine(&self) -> String {
        self.engines.join("+")
    }
}

/// Runs `query` `warmup` times untimed and `repeat` times timed; a run that times out ends
/// the query (and is its one timed run if it was a warm-up).
fn bench_query(
    engines: &mut [Box<dyn Engine>],
    query: &Graph,
    index: &DataIndex,
    cfg: &BenchConfig,
) -> Result<Timed> {
    let mut timed = Timed::default();
    for run in 0..cfg.warmup + cfg.repeat {
        let started = Instant::now();
        let options = cfg.matching.options_from(started);
        let report = find_matches_spread(
            engines,
            query,
            index,
            &options,
            &mut CountOnly,
            Some(SPREAD_AFTER),
            None,
        )?;
        let elapsed = started.elapsed();
        let timeout = report.status == Status::Timeout;
        if run < cfg.warmup && !timeout {
            continue;
        }
        if report.status == Status::Complete
            && timed.status == Some(Status::Complete)
            && report.count != timed.count
        {
            anyhow::bail!(
                "the count changed between runs: {} then {}",
                timed.count,
                report.count
            );
        }
        timed.times.push(elapsed);
        timed.phases.push(report.times);
        timed.count = report.count;
        timed.status = Some(report.status);
        if !timed.engines.contains(&report.engine) {
            timed.engines.push(report.engine);
            timed.engines.sort_unstable();
        }
        timed.estimated_rows = report.estimated_rows;
        timed.peak_join_bytes = timed.peak_join_bytes.max(report.peak_join_bytes);
        if timeout {
            break;
        }
    }
    Ok(timed)
}

/// Phase medians in milliseconds.
#[derive(Debug, Default, Serialize)]
struct PhasesMs {
    filter: f64,
    plan: f64,
    join: f64,
}

/// One query's record, as `--json` prints it (the table shows part of it).
#[derive(Debug, Serialize)]
struct QueryJson {
    #[serde(rename = "type")]
    kind: &'static str,
    query: String,
    #[serde(serialize_with = "crate::output::count_json")]
    matches: u128,
    status: &'static str,
    median_ms: f64,
    min_ms: f64,
    runs: usize,
    engine: Option<String>,
    phases_ms: PhasesMs,
    estimated_rows: f64,
    peak_join_bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl QueryJson {
    fn of(query: String, result: &Result<Timed, String>) -> QueryJson {
        let empty = Timed::default();
        let timed = result.as_ref().unwrap_or(&empty);
        QueryJson {
            kind: "query",
            query,
            matches: timed.count,
            status: match result {
                Ok(t) => t.status(),
                Err(_) => "error",
            },
            median_ms: timed.median_ms(),
            min_ms: timed.min_ms(),
            runs: timed.times.len(),
            engine: result.as_ref().ok().map(Timed::engine),
            phases_ms: timed.phases_ms(),
            estimated_rows: timed.estimated_rows,
            peak_join_bytes: timed.peak_join_bytes,
            error: result.as_ref().err().cloned(),
        }
    }
}

/// The JSON object that closes a run.
#[derive(Debug, Default, Serialize)]
struct SummaryJson {
    #[serde(rename = "type")]
    kind: &'static str,
    data: String,
    vertices: usize,
    edges: usize,
    queries: usize,
    ok: usize,
    timeouts: usize,
    errors: usize,
    repeat: usize,
    warmup: usize,
    /// `I/K` when the run answered one share of each query (`--partition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    partition: Option<String>,
    /// Statistics of the per-query medians, over the queries that ran.
    mean_ms: f64,
    median_ms: f64,
    p95_ms: f64,
    max_ms: f64,
    sum_ms: f64,
    /// Medians over the queries of their phase medians.
    phases_ms: PhasesMs,
    load_ms: f64,
    index_ms: f64,
    /// Readying the index on the device; absent for the CPU engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    upload_ms: Option<f64>,
    peak_rss_bytes: u64,
    peak_join_bytes: usize,
    engine: String,
    threads: usize,
    machine: String,
    /// `finished`, or `interrupted` when a signal stopped the run before every query ran.
    status: &'static str,
}

/// The statistics of the set, from the per-query medians of the queries that ran.
fn set_statistics(summary: &mut SummaryJson, results: &[&Timed]) {
    let medians: Vec<f64> = results.iter().map(|t| t.median_ms()).collect();
    summary.mean_ms = mean(&medians);
    summary.median_ms = median(&medians);
    summary.p95_ms = percentile(&medians, 95.0);
    summary.max_ms = medians.iter().copied().fold(0.0, f64::max);
    summary.sum_ms = to_microsecond(medians.iter().sum());
    let phases: Vec<PhasesMs> = results.iter().map(|t| t.phases_ms()).collect();
    let phase = |f: fn(&PhasesMs) -> f64| median(&phases.iter().map(f).collect::<Vec<_>>());
    summary.phases_ms = PhasesMs {
        filter: phase(|p| p.filter),
        plan: phase(|p| p.plan),
        join: phase(|p| p.join),
    };
    summary.peak_join_bytes = results.iter().map(|t| t.peak_join_bytes).max().unwrap_or(0);
    let mut engines: Vec<&str> = results.iter().flat_map(|t| t.engines.clone()).collect();
    engines.sort_unstable();
    engines.dedup();
    summary.engine = if engines.is_empty() {
        "none".into()
    } else {
        engines.join("+")
    };
}

/// Estimated rows for a table cell: whole numbers up to a billion, then scientific.
fn rows_cell(rows: f64) -> String {
    if rows < 1e9 {
        format!("{rows:.0}")
    } else {
        format!("{rows:.3e}")
    }
}

/// `gsi bench` for people: a row per query, then `key = value` lines.
struct BenchTable {
    out: Box<dyn Write>,
}

impl Printer<QueryJson, SummaryJson> for BenchTable {
    fn header(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "{:>12} {:>12} {:>16}  {:<8} {:<8} {:>12}  query",
            "median (ms)", "min (ms)", "matches", "status", "engine", "est. rows"
        )
    }

    fn query(&mut self, q: &QueryJson) -> io::Result<()> {
        writeln!(
            self.out,
            "{:>12.3} {:>12.3} {:>16}  {:<8} {:<8} {:>12}  {}",
            q.median_ms,
            q.min_ms,
            q.matches,
            q.status,
            q.engine.as_deref().unwrap_or("-"),
            rows_cell(q.estimated_rows),
            q.query
        )?;
        if let Some(e) = &q.error {
            writeln!(self.out, "{:>12}  error: {e}", "")?;
        }
        self.out.flush()
    }

    fn summary(&mut self, s: &SummaryJson) -> io::Result<()> {
        let lines: [(&str, String); 26] = [
            ("queries", s.queries.to_string()),
            ("ok", s.ok.to_string()),
            ("timeouts", s.timeouts.to_string()),
            ("errors", s.errors.to_string()),
            ("repeat", s.repeat.to_string()),
            ("warmup", s.warmup.to_string()),
            ("mean_ms", format!("{:.3}", s.mean_ms)),
            ("median_ms", format!("{:.3}", s.median_ms)),
            ("p95_ms", format!("{:.3}", s.p95_ms)),
            ("max_ms", format!("{:.3}", s.max_ms)),
            ("sum_ms", format!("{:.3}", s.sum_ms)),
            ("filter_ms", format!("{:.3}", s.phases_ms.filter)),
            ("plan_ms", format!("{:.3}", s.phases_ms.plan)),
            ("join_ms", format!("{:.3}", s.phases_ms.join)),
            ("load_ms", format!("{:.3}", s.load_ms)),
            ("index_ms", format!("{:.3}", s.index_ms)),
            (
                "upload_ms",
                s.upload_ms
                    .map_or_else(|| "-".into(), |u| format!("{u:.3}")),
            ),
            ("peak_rss_bytes", s.peak_rss_bytes.to_string()),
            ("peak_join_bytes", s.peak_join_bytes.to_string()),
            ("engine", s.engine.clone()),
            ("threads", s.threads.to_string()),
            ("machine", s.machine.clone()),
            ("status", s.status.to_string()),
            ("data", s.data.clone()),
            ("vertices", s.vertices.to_string()),
            ("edges", s.edges.to_string()),
        ];
        writeln!(self.out)?;
        for (key, value) in lines {
            writeln!(self.out, "{key} = {value}")?;
        }
        self.out.flush()
    }
}

pub fn run(mut cfg: BenchConfig) -> Result<Exit> {
    let (mut session, interrupt, show_progress) = session::start(
        &cfg.data,
        &cfg.read,
        &cfg.engine,
        &cfg.queries,
        cfg.quiet,
        &mut cfg.matching,
    )?;
    let queries: Vec<Query> = cfg
        .queries
        .files
        .iter()
        .flat_map(|path| session.queries(path, &cfg.query_read))
        .collect();

    let out = report_stream(false);
    let mut printer: Box<dyn Printer<QueryJson, SummaryJson>> = if cfg.json {
        Box::new(JsonLines { out })
    } else {
        Box::new(BenchTable { out })
    };
    printer.header()?;
    let bar = progress::bar(show_progress, queries.len() as u64);
    let mut summary = SummaryJson {
        kind: "summary",
        data: crate::exit::shown(&cfg.data),
        vertices: session.data_vertices(),
        edges: session.data_edges(),
        queries: queries.len(),
        repeat: cfg.repeat,
        warmup: cfg.warmup,
        partition: cfg.matching.options.share.map(|s| s.to_string()),
        load_ms: ms(session.load_time),
        index_ms: ms(session.index_time),
        upload_ms: session.upload_time.map(ms),
        threads: rayon::current_num_threads(),
        ..SummaryJson::default()
    };
    let mut exit = Exit::Success;
    let mut results = Vec::with_capacity(queries.len());
    for query in queries {
        if interrupt.is_set() {
            break;
        }
        if !cfg.quiet {
            for hint in query.hints(&session.index, cfg.matching.options.semantics.injective()) {
                bar.suspend(|| eprintln!("gsi: {hint}"));
            }
        }
        let name = query.name;
        let result = query.graph.and_then(|graph| {
            bench_query(&mut session.engines, &graph, &session.index, &cfg)
                .with_context(|| format!("matching {name}"))
        });
        let result = match result {
            Ok(timed) => {
                match timed.status {
                    Some(Status::Timeout) => summary.timeouts += 1,
                    _ => summary.ok += 1,
                }
                Ok(timed)
            }
            Err(err) => {
                if !cfg.quiet && !cfg.json {
                    bar.suspend(|| eprintln!("gsi: {}", crate::exit::message(&err)));
                }
                exit = exit.max(Exit::of_error(&err));
                summary.errors += 1;
                Err(crate::exit::message(&err))
            }
        };
        let record = QueryJson::of(name, &result);
        bar.suspend(|| printer.query(&record))?;
        bar.inc(1);
        results.push(result);
    }
    bar.finish_and_clear();
    let ran: Vec<&Timed> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    set_statistics(&mut summary, &ran);
    summary.peak_rss_bytes = system::peak_rss_bytes();
    summary.machine = system::machine(session.gpu.as_deref());
    summary.status = if interrupt.is_set() {
        "interrupted"
    } else {
        "finished"
    };
    printer.summary(&summary)?;
    if interrupt.is_set() {
        return Ok(interrupt.exit());
    }
    Ok(exit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(times_ms: &[u64], engine: &'static str, peak: usize) -> Timed {
        Timed {
            times: times_ms.iter().map(|&t| Duration::from_millis(t)).collect(),
            phases: times_ms
                .iter()
                .map(|&t| PhaseTimes {
                    filter: Duration::from_millis(1),
                    plan: Duration::ZERO,
                    join: Duration::from_millis(t - 1),
                })
                .collect(),
            count: 7,
            status: Some(Status::Complete),
            engines: vec![engine],
            estimated_rows: 10.0,
            peak_join_bytes: peak,
        }
    }

    #[test]
    fn set_statistics_use_the_per_query_medians() {
        let a = timed(&[10, 2, 4], "cpu", 100);
        let b = timed(&[20, 30], "gpu", 50);
        let c = timed(&[3], "cpu", 0);
        assert_eq!(a.median_ms(), 4.0);
        assert_eq!(a.min_ms(), 2.0);
        assert_eq!(b.median_ms(), 25.0);
        assert_eq!(a.phases_ms().join, 3.0);
        let mut s = SummaryJson::default();
        set_statistics(&mut s, &[&a, &b, &c]);
        assert_eq!(s.sum_ms, 32.0);
        assert_eq!(s.median_ms, 4.0);
        assert_eq!(s.max_ms, 25.0);
        assert_eq!(s.p95_ms, 25.0);
        assert_eq!(s.mean_ms, 10.667, "to the microsecond");
        assert_eq!(s.phases_ms.filter, 1.0);
        assert_eq!(s.phases_ms.join, 3.0);
        assert_eq!(s.peak_join_bytes, 100);
        assert_eq!(s.engine, "cpu+gpu");
        let mut empty = SummaryJson::default();
        set_statistics(&mut empty, &[]);
        assert_eq!((empty.median_ms, empty.engine.as_str()), (0.0, "none"));
    }

    #[test]
    fn rows_print_whole_then_scientific() {
        assert_eq!(rows_cell(15.48), "15");
        assert_eq!(rows_cell(2.5e12), "2.500e12");
    }

    fn clique(n: u32) -> DataIndex {
        let mut b = gsi_graph::GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for u in 0..n {
            for v in u + 1..n {
                b.add_edge(u, v, 0).unwrap();
            }
        }
        DataIndex::build(b.build().unwrap()).unwrap()
    }

    fn path(n: u32) -> Graph {
        let mut q = gsi_graph::GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for v in 1..n {
            q.add_edge(v - 1, v, 0).unwrap();
        }
        q.build().unwrap()
    }

    fn config(extra: &[&str]) -> BenchConfig {
        use clap::Parser;
        let mut argv = vec!["gsi", "bench", "-d", "g", "-q", "."];
        argv.extend_from_slice(extra);
        let cli = crate::flags::Cli::try_parse_from(argv).unwrap();
        let Some(crate::flags::Command::Bench(args)) = cli.command else {
            panic!()
        };
        BenchConfig::from_args(args).unwrap()
    }

    #[test]
    fn runs_repeat_then_report() {
        let cfg = config(&["--repeat", "3", "--warmup", "2"]);
        let mut engine: Vec<Box<dyn Engine>> = vec![Box::new(gsi_core::cpu::CpuEngine::default())];
        let timed = bench_query(&mut engine, &path(3), &clique(6), &cfg).unwrap();
        assert_eq!(timed.times.len(), 3);
        assert_eq!(timed.phases.len(), 3);
        assert_eq!(timed.count, 6 * 5 * 4);
        assert_eq!(timed.status(), "ok");
        assert_eq!(timed.engine(), "cpu");
        assert!(timed.min_ms() <= timed.median_ms());
    }

    #[test]
    fn a_timeout_ends_the_query_after_one_run() {
        let cfg = config(&["--repeat", "3", "--warmup", "2", "--timeout", "0.05"]);
        let mut engine: Vec<Box<dyn Engine>> = vec![Box::new(gsi_core::cpu::CpuEngine::default())];
        let timed = bench_query(&mut engine, &path(10), &clique(60), &cfg).unwrap();
        assert_eq!(timed.times.len(), 1);
        assert_eq!(timed.status(), "timeout");
    }

    #[test]
    fn repeat_must_be_positive() {
        let cli = <crate::flags::Cli as clap::Parser>::try_parse_from([
            "gsi", "bench", "-d", "g", "-q", ".", "--repeat", "0",
        ])
        .unwrap();
        let Some(crate::flags::Command::Bench(args)) = cli.command else {
            panic!()
        };
        let err = BenchConfig::from_args(args).unwrap_err();
        assert!(err.to_string().starts_with("--repeat 0"), "{err}");
    }
}
