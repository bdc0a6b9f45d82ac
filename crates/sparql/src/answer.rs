//! One query answered: its BGP matched by homomorphism (under each assignment of its
//! predicate variables in turn, `Union`), each match a solution (blank nodes
//! and constants included, so that multiplicities are SPARQL's), then projected, made
//! distinct where asked, sliced and written as it comes; under `ORDER BY`, once all are
//! found and sorted ([`Held`]). A `FILTER` drops the matches where it does not hold
//! ([`Filtered`]) before all that.

use std::collections::HashSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gsi_core::{
    find_matches, CountOnly, DataIndex, Engine, MatchOptions, MatchReport, MatchSink, Semantics,
    Status,
};
use gsi_graph::formats::{LabelNames, SkippedEdges, VertexNames};
use gsi_graph::{EdgeLabel, Graph, VertexId};
use oxrdf::vocab::xsd;

use crate::bgp::{QueryGraph, Terms};
use crate::error::{Error, Result};
use crate::explain;
use crate::filter::Filter;
use crate::order::{Held, Key};
use crate::parse::{Form, Query, Variable};
use crate::predicates::{predicate_name, PredicateVariables};
use crate::results::ResultsWriter;
use crate::rows::{Assigned, Filtered, RowSink, Rows, Tally, Typed};
use crate::spelling::TermIndex;

/// An indexed N-Triples graph, ready for queries.
pub struct RdfData<'d> {
    pub index: &'d DataIndex,
    pub terms: Terms<'d>,
}

impl<'d> RdfData<'d> {
    /// The data of `index`, whose file gave `names`, `labels` and dropped `skipped`.
    ///
    /// # Errors
    /// [`Error::Data`] for a graph not read from N-Triples, one whose file held triples from
    /// a term to itself (gsi's graphs drop them, and matches that need them would be
    /// missing), or one whose file spelled a term two ways ([`Terms::of`]).
    pub fn new(
        index: &'d DataIndex,
        names: Option<&'d VertexNames>,
        labels: &'d LabelNames,
        skipped: &SkippedEdges,
    ) -> Result<RdfData<'d>> {
        let Some(VertexNames::Terms(vertices)) = names else {
            return Err(Error::Data(
                "the data graph is not RDF: gsi sparql reads N-Triples or a saved index of it"
                    .into(),
            ));
        };
        if skipped.self_loops > 0 {
            return Err(Error::Data(format!(
                "the data holds {} triples whose subject is their object, which gsi's graphs cannot hold: SPARQL answers over it could miss solutions",
                skipped.self_loops
            )));
        }
        Ok(RdfData {
            index,
            terms: Terms::of(vertices, labels)?,
        })
    }
}

/// Answers `query` over `data` with `engine`, writing its results to `output` if given, and
/// returns its number: the solutions of a `SELECT`, the count of a `COUNT(*)`, 1 or 0 for an
/// `ASK`. `options` are taken as they are, but for the semantics (homomorphism), the limit
/// and `enough`.
///
/// # Errors
/// [`Error::Timeout`] once `options.deadline` passes, [`Error::Interrupted`] once
/// `options.interrupt` is set (the results written so far are then a part of the answer);
/// [`Error::Unsupported`] for a triple pattern outside the fragment or predicate variables
/// outside their rule ([`PredicateVariables::of`]); the matcher's and the
/// writer's failures.
pub fn answer<W: Write>(
    query: &Query,
    data: &RdfData<'_>,
    engine: &mut dyn Engine,
    options: &MatchOptions,
    output: Option<ResultsWriter<W>>,
) -> Result<u128> {
    let bgp = Union::build(query, &data.terms)?;
    let mut matcher = Matcher {
        engine,
        reports: None,
        part: 0,
    };
    answer_union(query, data, &bgp, &mut matcher, options, output)
}

/// [`answer`], and how: each query graph of the BGP with its plan and engine, as text
/// ([`crate::explain`]).
///
/// # Errors
/// Those of [`answer`].
pub fn answer_explained<W: Write>(
    query: &Query,
    data: &RdfData<'_>,
    engine: &mut dyn Engine,
    options: &MatchOptions,
    output: Option<ResultsWriter<W>>,
) -> Result<(u128, String)> {
    let bgp = Union::build(query, &data.terms)?;
    let mut matcher = Matcher {
        engine,
        reports: Some(bgp.parts.iter().map(|_| None).collect()),
        part: 0,
    };
    let n = answer_union(query, data, &bgp, &mut matcher, options, output)?;
    let mut text = String::new();
    let reports = matcher.reports.unwrap_or_default();
    for ((part, assignment), report) in bgp.parts.iter().zip(&reports) {
        let named: Vec<(&str, &str)> = bgp
            .predicates
            .variables
            .iter()
            .zip(assignment)
            .map(|(v, &p)| (v.as_str(), predicate_name(&data.terms, p).unwrap_or("")))
            .collect();
        explain::query_graph(&mut text, part, &named, &data.terms, report.as_ref());
    }
    Ok((n, text))
}

/// [`answer`] of the BGP `bgp`, matched by `matcher`.
fn answer_union<W: Write>(
    query: &Query,
    data: &RdfData<'_>,
    bgp: &Union,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    mut output: Option<ResultsWriter<W>>,
) -> Result<u128> {
    let filter = query.filter.as_ref();
    let mut options = MatchOptions {
        semantics: Semantics::Homomorphism,
        ..options.clone()
    };
    match &query.form {
        Form::Ask => {
            let answer = query.limit != Some(0) && {
                options.limit = Some(query.offset.saturating_add(1) as u64);
                count(bgp, data, matcher, &options, filter)? > query.offset as u128
            };
            if let Some(output) = output {
                output.boolean(answer)?;
            }
            Ok(u128::from(answer))
        }
        Form::Count { variable } => {
            let n = count(bgp, data, matcher, &options, filter)?;
            if let Some(mut output) = output {
                let name = [variable.as_str()];
                output.start(&name)?;
                if query.offset == 0 && query.limit != Some(0) {
                    let term = format!("\"{n}\"^^<{}>", xsd::INTEGER.as_str());
                    output.solution(&name, &[Some(&term)])?;
                }
                output.finish()?;
            }
            Ok(n)
        }
        Form::Select {
            variables,
            distinct,
        } => {
            if query.limit == Some(0) {
                if let Some(mut output) = output.take() {
                    let names: Vec<&str> = variables.iter().map(|v| v.as_str()).collect();
                    output.start(&names)?;
                    output.finish()?;
                }
                return Ok(0);
            }
            // Without DISTINCT or FILTER, each match is a solution: the join may stop after
            // these.
            let matches_wanted = query.limit.map(|l| query.offset.saturating_add(l) as u64);
            if output.is_none() && !distinct {
                options.limit = matches_wanted;
                let n = count(bgp, data, matcher, &options, filter)?
                    .saturating_sub(query.offset as u128);
                return Ok(query.limit.map_or(n, |l| n.min(l as u128)));
            }
            let columns = variables.iter().map(|v| bgp.column_of(v)).collect();
            let names: Vec<&str> = variables.iter().map(|v| v.as_str()).collect();
            let stop = Arc::new(AtomicBool::new(false));
            // Keys of variables outside the BGP, unbound in every solution, order nothing.
            let keys: Vec<Key> = query
                .order
                .iter()
                .filter_map(|key| {
                    bgp.shape.vertex_of(&key.variable).map(|vertex| Key {
                        vertex,
                        descending: key.descending,
                    })
                })
                .collect();
            // Order matters only to the solutions written; under it, every solution is
            // needed before the first is known.
            let ordered = !keys.is_empty() && output.is_some();
            if !ordered {
                // `enough` also ends the union's assignments once the slice is full.
                options.enough = query.limit.map(|_| stop.clone());
                if !*distinct && filter.is_none() {
                    options.limit = matches_wanted;
                }
            }
            if let Some(output) = &mut output {
                output.start(&names)?;
            }
            let mut sink = Solutions {
                columns,
                names: &names,
                width: bgp.shape.vertex_count(),
                vertices: &data.terms.vertices,
                terms: &data.terms,
                seen: distinct.then(HashSet::new),
                skip: query.offset,
                left: query.limit,
                output: output.as_mut(),
                stop,
                count: 0,
            };
            if ordered {
                let width = bgp.shape.vertex_count() + bgp.predicates.variables.len();
                let mut held = Held::new(width, keys.len(), options.memory_budget);
                matches(bgp, data, matcher, &options, filter, &mut held)?;
                for row in held.sorted(&keys, &data.terms.vertices)? {
                    if sink.left == Some(0) {
                        break;
                    }
                    sink.row(row)?;
                }
            } else {
                matches(bgp, data, matcher, &options, filter, &mut sink)?;
            }
            let n = sink.count;
            if let Some(output) = output {
                output.finish()?;
            }
            Ok(u128::from(n))
        }
    }
}

/// A BGP as the union of its query graphs, one per assignment of its predicate variables
/// ([`PredicateVariables`]); all number their query vertices alike.
struct Union {
    /// The query vertices and variables, without predicate variables' assignments.
    shape: QueryGraph,
    predicates: PredicateVariables,
    /// Each assignment's query graph.
    parts: Vec<(QueryGraph, Vec<EdgeLabel>)>,
}

impl Union {
    fn build(query: &Query, data: &Terms<'_>) -> Result<Union> {
        let predicates = PredicateVariables::of(query, data)?;
        let variables = &predicates.variables;
        let shape = QueryGraph::build(&query.patterns, data, variables, &[])?;
        let parts = predicates
            .assignments()
            .into_iter()
            .map(|a| Ok((QueryGraph::build(&query.patterns, data, variables, &a)?, a)))
            .collect::<Result<_>>()?;
        Ok(Union {
            shape,
            predicates,
            parts,
        })
    }

    /// The place of `variable` in a row: its query vertex, or after them, its predicate.
    fn column_of(&self, variable: &Variable) -> Option<usize> {
        self.shape.vertex_of(variable).or_else(|| {
            let variables = &self.predicates.variables;
            let i = variables.iter().position(|v| v == variable)?;
            Some(self.shape.vertex_count() + i)
        })
    }
}

/// The engine that matches each query graph of a union, keeping each one's report where
/// asked (`--explain`).
struct Matcher<'e> {
    engine: &'e mut dyn Engine,
    /// By query graph of the union, once matched.
    reports: Option<Vec<Option<MatchReport>>>,
    /// The query graph being matched.
    part: usize,
}

impl Matcher<'_> {
    /// The matches of `graph`, the graph of `part`, to `sink`; returns their number. A
    /// search stopped by the caller's deadline or interrupt is an error ([`whole`]).
    fn find(
        &mut self,
        part: &QueryGraph,
        graph: &Graph,
        index: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<u128> {
        let options = MatchOptions {
            pinned: part.pinned.clone(),
            ..options.clone()
        };
        let report = find_matches(self.engine, graph, index, &options, sink)?;
        let (count, status) = (report.count, report.status);
        if let Some(reports) = &mut self.reports {
            reports[self.part] = Some(report);
        }
        whole(status)?;
        Ok(count)
    }
}

/// The number of solutions of the union that pass `filter` (up to `options.limit`).
fn count(
    bgp: &Union,
    data: &RdfData<'_>,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    filter: Option<&Filter>,
) -> Result<u128> {
    let mut total = 0u128;
    for (i, (part, _)) in bgp.parts.iter().enumerate() {
        let limit = options
            .limit
            .map(|l| l.saturating_sub(u64::try_from(total).unwrap_or(u64::MAX)));
        if limit == Some(0) {
            break;
        }
        let options = MatchOptions {
            limit,
            ..options.clone()
        };
        matcher.part = i;
        total = total
            .checked_add(count_part(part, data, matcher, &options, filter)?)
            .ok_or(gsi_core::Error::CountBeyond128Bits)?;
    }
    Ok(total)
}

/// The number of solutions of one query graph that pass `filter` (up to `options.limit`).
fn count_part(
    bgp: &QueryGraph,
    data: &RdfData<'_>,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    filter: Option<&Filter>,
) -> Result<u128> {
    match (&bgp.graph, filter) {
        (None, _) => Ok(0),
        // The empty BGP has one solution, binding nothing.
        (Some(_), None) if bgp.vertex_count() == 0 => Ok(1),
        (Some(graph), None) if bgp.typing.is_none() => {
            matcher.find(bgp, graph, data.index, options, &mut CountOnly)
        }
        // Each match is filtered or typed, so the limit is on solutions, not matches.
        (Some(_), _) => {
            let stop = Arc::new(AtomicBool::new(false));
            let mut tally = Tally::new(options.limit, stop.clone());
            let options = MatchOptions {
                limit: None,
                enough: Some(stop),
                ..options.clone()
            };
            part_matches(bgp, data, matcher, &options, filter, &mut tally)?;
            Ok(u128::from(tally.count))
        }
    }
}

/// Hands every solution of the union where `filter` holds to `sink`: each match, then the
/// assignment's predicates. Stops between assignments once `options.enough` is set.
fn matches(
    bgp: &Union,
    data: &RdfData<'_>,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    filter: Option<&Filter>,
    sink: &mut dyn Rows,
) -> Result<()> {
    for (i, (part, assignment)) in bgp.parts.iter().enumerate() {
        matcher.part = i;
        match options.stop() {
            Some(Status::Limit) => break,
            Some(status) => whole(status)?,
            None => {}
        }
        if assignment.is_empty() {
            part_matches(part, data, matcher, options, filter, sink)?;
        } else {
            let width = bgp.shape.vertex_count();
            let mut assigned = Assigned::new(width, assignment, sink);
            part_matches(part, data, matcher, options, filter, &mut assigned)?;
        }
    }
    Ok(())
}

/// Hands every match of one query graph where `filter` holds to `sink`.
fn part_matches(
    bgp: &QueryGraph,
    data: &RdfData<'_>,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    filter: Option<&Filter>,
    sink: &mut dyn Rows,
) -> Result<()> {
    let Some(filter) = filter else {
        return all_matches(bgp, data, matcher, options, sink);
    };
    let mut filtered = Filtered::new(filter, bgp, &data.terms.vertices, sink);
    let matched = all_matches(bgp, data, matcher, options, &mut filtered);
    match filtered.failed {
        Some(error) => Err(error),
        None => matched,
    }
}

/// Hands every match of the BGP to `sink`.
fn all_matches(
    bgp: &QueryGraph,
    data: &RdfData<'_>,
    matcher: &mut Matcher<'_>,
    options: &MatchOptions,
    sink: &mut dyn Rows,
) -> Result<()> {
    match &bgp.graph {
        None => Ok(()),
        Some(_) if bgp.vertex_count() == 0 => Ok(sink.row(&[])?),
        Some(graph) => {
            match &bgp.typing {
                Some(typing) => {
                    let width = bgp.vertex_count();
                    let mut typed = Typed::new(typing, width, data.index, &data.terms, sink);
                    matcher.find(bgp, graph, data.index, options, &mut RowSink(&mut typed))?;
                }
                None => {
                    matcher.find(bgp, graph, data.index, options, &mut RowSink(sink))?;
                }
            }
            Ok(())
        }
    }
}

/// A search that ended at the caller's deadline or interrupt as an error: its solutions
/// would be a part of the answer.
fn whole(status: Status) -> Result<()> {
    match status {
        Status::Timeout => Err(Error::Timeout),
        Status::Interrupted => Err(Error::Interrupted),
        Status::Complete | Status::Limit => Ok(()),
    }
}

/// Matches to solutions: projected, made distinct where asked, sliced, written.
struct Solutions<'s, W: Write> {
    /// The query vertex of each projected variable (`None`: unbound).
    columns: Vec<Option<usize>>,
    names: &'s [&'s str],
    /// Query vertices: a row's places from here on hold predicates.
    width: usize,
    vertices: &'s TermIndex<'s>,
    terms: &'s Terms<'s>,
    /// Projected solutions seen, under `DISTINCT`.
    seen: Option<HashSet<Vec<Option<VertexId>>>>,
    /// Solutions still to skip (`OFFSET`).
    skip: usize,
    /// Solutions still to give (`LIMIT`).
    left: Option<usize>,
    output: Option<&'s mut ResultsWriter<W>>,
    /// Set once the limit is reached, to stop the join.
    stop: Arc<AtomicBool>,
    count: u64,
}

impl<W: Write> Rows for Solutions<'_, W> {
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()> {
        if self.left == Some(0) {
            return Ok(());
        }
        let projected: Vec<Option<VertexId>> =
            self.columns.iter().map(|c| c.map(|u| row[u])).collect();
        if let Some(seen) = &mut self.seen {
            if !seen.insert(projected.clone()) {
                return Ok(());
            }
        }
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(());
        }
        if let Some(output) = &mut self.output {
            let terms: Vec<Option<&str>> = projected
                .iter()
                .zip(&self.columns)
                .map(|(v, c)| match c {
                    Some(c) if *c >= self.width => v.and_then(|v| predicate_name(self.terms, v)),
                    _ => v.and_then(|v| self.vertices.name(v)),
                })
                .collect();
            output.solution(self.names, &terms)?;
        }
        self.count += 1;
        if let Some(left) = &mut self.left {
            *left -= 1;
            if *left == 0 {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gsi_core::cpu::CpuEngine;
    use gsi_graph::formats::ntriples;
    use gsi_graph::saved::GraphFacts;

    use super::*;
    use crate::parse::parse;
    use crate::results::ResultsFormat;

    /// a knows b and c, b knows c; a and b are people.
    const DATA: &str = r#"<http://ex/a> <http://ex/knows> <http://ex/b> .
<http://ex/a> <http://ex/knows> <http://ex/c> .
<http://ex/b> <http://ex/knows> <http://ex/c> .
<http://ex/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
"#;

    /// The results of `query` over [`DATA`] in `format`, and the number `answer` returned.
    fn run(query: &str, format: Option<ResultsFormat>) -> (String, u128) {
        let loaded = ntriples::parse(Path::new("d.nt"), DATA.as_bytes()).unwrap();
        let (graph, facts) = GraphFacts::split(loaded);
        let index = DataIndex::build(graph).unwrap();
        let data =
            RdfData::new(&index, facts.names.as_ref(), &facts.labels, &facts.skipped).unwrap();
        let query = parse(&format!("PREFIX : <http://ex/> {query}")).unwrap();
        let mut out = Vec::new();
        let writer = format.map(|f| ResultsWriter::new(f, &query.form, &mut out).unwrap());
        let n = answer(
            &query,
            &data,
            &mut CpuEngine::default(),
            &MatchOptions::default(),
            writer,
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), n)
    }

    fn count(query: &str) -> u128 {
        run(query, None).1
    }

    #[test]
    fn solutions_are_a_bag_unless_distinct() {
        assert_eq!(count("SELECT ?x { ?x :knows ?y }"), 3);
        assert_eq!(count("SELECT DISTINCT ?x { ?x :knows ?y }"), 2);
        assert_eq!(count("SELECT (COUNT(*) AS ?n) { ?x :knows ?y }"), 3);
        // A blank node counts its bindings as a variable does.
        assert_eq!(count("SELECT ?x { ?x :knows _:y }"), 3);
        // Homomorphism: ?y and ?z may bind one vertex.
        assert_eq!(count("SELECT * { ?x :knows ?y . ?x :knows ?z }"), 5);
        assert_eq!(
            count("SELECT * { ?x :knows ?y . ?y :knows ?z . ?x :knows ?z }"),
            1
        );
    }

    #[test]
    fn slices_constants_and_classes() {
        assert_eq!(count("SELECT ?x { ?x :knows ?y } LIMIT 2"), 2);
        assert_eq!(count("SELECT ?x { ?x :knows ?y } LIMIT 2 OFFSET 2"), 1);
        assert_eq!(
            count("SELECT DISTINCT ?x { ?x :knows ?y } LIMIT 5 OFFSET 1"),
            1
        );
        assert_eq!(count("SELECT ?x { ?x :knows ?y } LIMIT 0"), 0);
        // The largest offset does not wrap around.
        let far = usize::MAX;
        assert_eq!(
            count(&format!(
                "SELECT ?x {{ ?x :knows ?y }} LIMIT 2 OFFSET {far}"
            )),
            0
        );
        assert_eq!(count(&format!("ASK {{ ?x :knows ?y }} OFFSET {far}")), 0);
        let (json, n) = run(
            &format!("SELECT ?x {{ ?x :knows ?y }} LIMIT 2 OFFSET {far}"),
            Some(ResultsFormat::Json),
        );
        assert_eq!((json.matches("\"x\":").count(), n), (0, 0));
        assert_eq!(count("SELECT ?y { :a :knows ?y }"), 2);
        assert_eq!(count("SELECT ?y { ?y a :Person . ?x :knows ?y }"), 1);
        assert_eq!(count("SELECT ?y { ?y a :Robot }"), 0);
        assert_eq!(count("SELECT * { :a :knows :c }"), 1);
        assert_eq!(count("SELECT * { :c :knows :a }"), 0);
        assert_eq!(count("ASK { :b :knows ?y }"), 1);
        assert_eq!(count("ASK { :c :knows ?y }"), 0);
        assert_eq!(count("SELECT * {}"), 1);
    }

    #[test]
    fn order_by_sorts_before_the_slice() {
        let tsv = |query: &str| run(query, Some(ResultsFormat::Tsv)).0;
        assert_eq!(
            tsv("SELECT ?y { ?x :knows ?y } ORDER BY DESC(?y)"),
            "?y\n<http://ex/c>\n<http://ex/c>\n<http://ex/b>\n"
        );
        assert_eq!(
            tsv("SELECT ?x ?y { ?x :knows ?y } ORDER BY ?y DESC(?x) LIMIT 2 OFFSET 1"),
            "?x\t?y\n<http://ex/b>\t<http://ex/c>\n<http://ex/a>\t<http://ex/c>\n"
        );
        assert_eq!(
            tsv("SELECT DISTINCT ?y { ?x :knows ?y } ORDER BY ?y"),
            "?y\n<http://ex/b>\n<http://ex/c>\n"
        );
        // The count does not depend on the order.
        assert_eq!(count("SELECT ?y { ?x :knows ?y } ORDER BY ?y LIMIT 2"), 2);
    }

    #[test]
    fn filters_drop_solutions_before_the_slice_and_the_count() {
        assert_eq!(count("SELECT * { ?x :knows ?y FILTER(?y != :c) }"), 1);
        assert_eq!(
            count("SELECT * { ?x :knows ?y FILTER(?x = :a || ?y = :c) } LIMIT 2 OFFSET 1"),
            2
        );
        assert_eq!(
            count("SELECT (COUNT(*) AS ?n) { ?x :knows ?y FILTER(!sameTerm(?x, :a)) }"),
            1
        );
        assert_eq!(count("ASK { ?x :knows ?y FILTER(isLiteral(?y)) }"), 0);
        assert_eq!(count("ASK { ?x :knows ?y FILTER(isIRI(?y)) }"), 1);
        assert_eq!(count("SELECT * { FILTER(1 = 1.0) }"), 1);
        let (tsv, _) = run(
            "SELECT ?y { ?x :knows ?y FILTER(?x != :b) } ORDER BY DESC(?y)",
            Some(ResultsFormat::Tsv),
        );
        assert_eq!(tsv, "?y\n<http://ex/c>\n<http://ex/b>\n");
    }

    #[test]
    fn a_deadline_or_an_interrupt_is_an_error_not_a_part_of_the_answer() {
        let loaded = ntriples::parse(Path::new("d.nt"), DATA.as_bytes()).unwrap();
        let (graph, facts) = GraphFacts::split(loaded);
        let index = DataIndex::build(graph).unwrap();
        let data =
            RdfData::new(&index, facts.names.as_ref(), &facts.labels, &facts.skipped).unwrap();
        let run = |text: &str, options: &MatchOptions| {
            let query = parse(&format!("PREFIX : <http://ex/> {text}")).unwrap();
            let writer = ResultsWriter::new(ResultsFormat::Json, &query.form, Vec::new());
            let writer = Some(writer.unwrap());
            answer(&query, &data, &mut CpuEngine::default(), options, writer)
        };
        let past = MatchOptions {
            deadline: Some(std::time::Instant::now()),
            ..MatchOptions::default()
        };
        let interrupted = MatchOptions {
            interrupt: Some(Arc::new(AtomicBool::new(true))),
            ..MatchOptions::default()
        };
        let unset = MatchOptions {
            interrupt: Some(Arc::new(AtomicBool::new(false))),
            ..MatchOptions::default()
        };
        for text in [
            "SELECT ?x { ?x :knows ?y }",
            "SELECT DISTINCT ?x { ?x :knows ?y } LIMIT 1",
            "SELECT (COUNT(*) AS ?n) { ?x :knows ?y FILTER(?y != :b) }",
            "SELECT ?y { ?x :knows ?y . ?y :knows ?z } ORDER BY ?y",
            "ASK { ?x :knows ?y }",
        ] {
            let r = run(text, &past);
            assert!(matches!(r, Err(Error::Timeout)), "{text} {r:?}");
            assert!(
                matches!(run(text, &interrupted), Err(Error::Interrupted)),
                "{text}"
            );
        }
        // A LIMIT met ends the search without touching the caller's flag.
        let text = "SELECT DISTINCT ?x { ?x :knows ?y } LIMIT 1";
        assert_eq!(run(text, &unset).unwrap(), 1);
        assert!(!unset.interrupt.unwrap().load(Ordering::Relaxed));
    }

    #[test]
    fn results_are_written_in_each_format() {
        let query = "SELECT ?y ?z { :b :knows ?y }";
        let (json, _) = run(query, Some(ResultsFormat::Json));
        assert_eq!(
            json,
            r#"{"head":{"vars":["y","z"]},"results":{"bindings":[{"y":{"type":"uri","value":"http://ex/c"}}]}}"#
                .to_owned()
                + "\n"
        );
        let (tsv, _) = run(query, Some(ResultsFormat::Tsv));
        assert_eq!(tsv, "?y\t?z\n<http://ex/c>\t\n");
        let (csv, _) = run(query, Some(ResultsFormat::Csv));
        assert_eq!(csv, "y,z\r\nhttp://ex/c,\r\n");
        let (count, _) = run(
            "SELECT (COUNT(*) AS ?n) { ?x :knows ?y }",
            Some(ResultsFormat::Json),
        );
        assert!(count.contains(r#"{"n":{"datatype":"http://www.w3.org/2001/XMLSchema#integer","type":"literal","value":"3"}}"#), "{count}");
        let (ask, _) = run("ASK { :a :knows ?y }", Some(ResultsFormat::Json));
        assert_eq!(ask, "{\"head\":{},\"boolean\":true}\n");
        let (xml, _) = run(query, Some(ResultsFormat::Xml));
        assert_eq!(
            xml,
            concat!(
                "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">",
                "<head><variable name=\"y\"/><variable name=\"z\"/></head><results>",
                "<result><binding name=\"y\"><uri>http://ex/c</uri></binding></result>",
                "</results></sparql>\n"
            )
        );
        let (ask, _) = run("ASK { :c :knows ?y }", Some(ResultsFormat::Xml));
        assert!(
            ask.ends_with("<head/><boolean>false</boolean></sparql>\n"),
            "{ask}"
        );
    }
}
