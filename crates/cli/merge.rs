//! `gsi merge`: the K share runs of `gsi match --partition I/K --json` added up into one
//! answer per query, after checking that they are the whole set and one set.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::exit::{input_error, shown, Exit};
use crate::flags::MergeArgs;
use crate::output::{add_counts, count_json};

/// One line of a `gsi match --json` run: a query's record or the closing summary (the keys
/// merge reads; the others are ignored).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Query(QueryLine),
    Summary(SummaryLine),
}

#[derive(Deserialize)]
struct QueryLine {
    query: String,
    #[serde(deserialize_with = "count_of_json")]
    matches: u128,
    status: String,
    complete: bool,
    elapsed_ms: f64,
}

#[derive(Deserialize)]
struct SummaryLine {
    data: String,
    partition: Option<String>,
    status: String,
}

/// One share's run, read and checked on its own.
struct ShareRun {
    file: PathBuf,
    index: u32,
    count: u32,
    data: String,
    queries: Vec<QueryLine>,
}

impl ShareRun {
    /// The queries it answered, in its order.
    fn query_names(&self) -> Vec<&str> {
        self.queries.iter().map(|q| q.query.as_str()).collect()
    }
}

/// A query's answer over every share.
#[derive(Serialize)]
struct MergedQuery<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    query: &'a str,
    #[serde(serialize_with = "count_json")]
    matches: u128,
    status: &'a str,
    complete: bool,
    /// The shares' times added up, and the longest.
    shares_ms: f64,
    slowest_share_ms: f64,
}

/// The set's summary.
#[derive(Serialize)]
struct MergedSummary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    data: &'a str,
    shares: u32,
    queries: usize,
    #[serde(serialize_with = "count_json")]
    matches: u128,
    complete: bool,
}

/// A count as `gsi match --json` writes it: a number, or a string of digits above 2^53
/// ([`count_json`]).
fn count_of_json<'de, D: serde::Deserializer<'de>>(from: D) -> Result<u128, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        Number(u64),
        Digits(String),
    }
    match Count::deserialize(from)? {
        Count::Number(n) => Ok(u128::from(n)),
        Count::Digits(digits) => digits.parse().map_err(serde::de::Error::custom),
    }
}

/// Statuses from the least grave: a query's merged status is the gravest of its shares'.
const STATUSES: [&str; 5] = ["ok", "limit", "timeout", "interrupted", "error"];

pub fn run(args: MergeArgs) -> Result<Exit> {
    let runs = args
        .files
        .iter()
        .map(|file| read_share(file))
        .collect::<Result<Vec<_>>>()?;
    check_set(&runs)?;
    let first = &runs[0];
    let mut merged = Vec::with_capacity(first.queries.len());
    for (at, query) in first.queries.iter().enumerate() {
        let answers: Vec<&QueryLine> = runs.iter().map(|run| &run.queries[at]).collect();
        let gravest = answers
            .iter()
            .map(|a| STATUSES.iter().position(|s| *s == a.status).unwrap_or(4))
            .max()
            .unwrap_or(0);
        merged.push(MergedQuery {
            kind: "query",
            query: &query.query,
            matches: answers
                .iter()
                .try_fold(0, |sum, a| add_counts(sum, a.matches))?,
            status: STATUSES[gravest],
            complete: answers.iter().all(|a| a.complete),
            shares_ms: answers.iter().map(|a| a.elapsed_ms).sum(),
            slowest_share_ms: answers.iter().map(|a| a.elapsed_ms).fold(0.0, f64::max),
        });
    }
    let summary = MergedSummary {
        kind: "summary",
        data: &first.data,
        shares: first.count,
        queries: merged.len(),
        matches: merged
            .iter()
            .try_fold(0, |sum, q| add_counts(sum, q.matches))?,
        complete: merged.iter().all(|q| q.complete),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        for query in &merged {
            serde_json::to_writer(&mut out, query)?;
            writeln!(out)?;
        }
        serde_json::to_writer(&mut out, &summary)?;
        writeln!(out)?;
    } else {
        let width = merged
            .iter()
            .map(|q| q.query.len())
            .max()
            .unwrap_or(5)
            .max(5);
        writeln!(
            out,
            "{:<width$}  {:>20}  {:<11}  shares_ms  slowest_ms",
            "query", "matches", "status"
        )?;
        for q in &merged {
            writeln!(
                out,
                "{:<width$}  {:>20}  {:<11}  {:>9.1}  {:>10.1}",
                q.query, q.matches, q.status, q.shares_ms, q.slowest_share_ms
            )?;
        }
        writeln!(out, "data = {}", summary.data)?;
        writeln!(out, "shares = {}", summary.shares)?;
        writeln!(out, "queries = {}", summary.queries)?;
        writeln!(out, "matches = {}", summary.matches)?;
        writeln!(out, "complete = {}", summary.complete)?;
    }
    out.flush()?;
    Ok(Exit::Success)
}

/// Reads one share's run: its records, then a summary that names its share and says the run
/// finished.
fn read_share(file: &Path) -> Result<ShareRun> {
    let name = shown(file);
    let reader =
        BufReader::new(std::fs::File::open(file).with_context(|| format!("cannot open {name}"))?);
    let mut queries = Vec::new();
    let mut summary = None;
    for (number, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {name}"))?;
        if line.trim().is_empty() {
            continue;
        }
        if summary.is_some() {
            return Err(input_error(format!(
                "{name}: line {} follows the run's summary: one run per file",
                number + 1
            )));
        }
        match serde_json::from_str::<Line>(&line) {
            Ok(Line::Query(query)) => queries.push(query),
            Ok(Line::Summary(s)) => summary = Some(s),
            Err(err) => {
                return Err(input_error(format!(
                    "{name}: line {} is not a record of `gsi match --json`: {err}",
                    number + 1
                )))
            }
        }
    }
    let Some(summary) = summary else {
        return Err(input_error(format!(
            "{name} ends without a summary: its run did not finish"
        )));
    };
    if summary.status != "finished" {
        return Err(input_error(format!(
            "{name}: its run was {}, not finished",
            summary.status
        )));
    }
    let Some(partition) = summary.partition else {
        return Err(input_error(format!(
            "{name} is not a share's run (no --partition I/K)"
        )));
    };
    let share = partition
        .split_once('/')
        .and_then(|(i, k)| Some((i.parse::<u32>().ok()?, k.parse::<u32>().ok()?)))
        .filter(|(i, k)| i < k);
    let Some((index, count)) = share else {
        return Err(input_error(format!(
            "{name}: its partition `{}` is not I/K",
            crate::exit::escape_controls(&partition)
        )));
    };
    Ok(ShareRun {
        file: file.to_path_buf(),
        index,
        count,
        data: summary.data,
        queries,
    })
}

/// Whether `runs` are every share of one set, once: the same K, data and queries.
fn check_set(runs: &[ShareRun]) -> Result<()> {
    let first = &runs[0];
    let mut seen: HashMap<u32, &Path> = HashMap::new();
    for run in runs {
        let name = shown(&run.file);
        if run.count != first.count {
            return Err(input_error(format!(
                "{name} is a share of {}, {} of {}: runs of one set only",
                run.count,
                shown(&first.file),
                first.count
            )));
        }
        if run.data != first.data {
            return Err(input_error(format!(
                "{name} read the data {}, {} read {}: runs of one set only",
                crate::exit::escape_controls(&run.data),
                shown(&first.file),
                crate::exit::escape_controls(&first.data)
            )));
        }
        if let Some(other) = seen.insert(run.index, &run.file) {
            return Err(input_error(format!(
                "share {}/{} is given twice: {} and {name}",
                run.index,
                run.count,
                shown(other)
            )));
        }
        let (ours, theirs) = (first.query_names(), run.query_names());
        if ours != theirs {
            let (ours, theirs): (HashSet<&str>, HashSet<&str>) =
                (ours.into_iter().collect(), theirs.into_iter().collect());
            let missing = ours.symmetric_difference(&theirs).next();
            return Err(input_error(match missing {
                Some(query) => format!(
                    "{} is answered in one of {} and {name} but not in the other: runs of one set only",
                    crate::exit::escape_controls(query),
                    shown(&first.file)
                ),
                None => format!(
                    "{name} answers its queries in another order than {}: runs of one set only",
                    shown(&first.file)
                ),
            }));
        }
    }
    let missing: Vec<String> = (0..first.count)
        .filter(|i| !seen.contains_key(i))
        .take(10)
        .map(|i| format!("{i}/{}", first.count))
        .collect();
    if !missing.is_empty() {
        let absent = first.count as usize - seen.len();
        return Err(input_error(format!(
            "{absent} of {} shares missing: {}{}",
            first.count,
            missing.join(", "),
            if absent > missing.len() { ", ..." } else { "" }
        )));
    }
    Ok(())
}
