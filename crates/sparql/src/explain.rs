//! `--explain`: each query graph of a BGP (one per assignment of its predicate variables) as
//! gsi matched it — its vertices with their terms and classes, its edges with their
//! predicates, the vertices pinned to a data vertex — then the plan and the engine of the
//! match, as gsi-core reports them for `gsi match --explain`.

use std::fmt::Write;

use gsi_core::MatchReport;
use gsi_graph::VertexId;

use crate::bgp::{QueryGraph, Terms};

/// Writes the explanation of one query graph to `out`: `assignment` names its predicate
/// variables' predicates (empty without them), `report` is its match (`None`: not run).
pub(crate) fn query_graph(
    out: &mut String,
    part: &QueryGraph,
    assignment: &[(&str, &str)],
    terms: &Terms<'_>,
    report: Option<&MatchReport>,
) {
    let name = |dictionary: &crate::spelling::TermIndex<'_>, id: u32| {
        dictionary
            .name(id)
            .map_or_else(|| format!("#{id}"), str::to_string)
    };
    let _ = write!(out, "query graph");
    for (variable, predicate) in assignment {
        let _ = write!(out, " (?{variable} = {predicate})");
    }
    let _ = writeln!(out, ":");
    let Some(graph) = &part.graph else {
        let _ = writeln!(
            out,
            "  no solutions: the data lacks one of its predicates, classes or constants, or it has a triple from a term to itself"
        );
        return;
    };
    for u in 0..graph.vertex_count() {
        let _ = write!(out, "  u{u} = {}", part.term(u));
        let classes: Vec<String> = graph
            .labels_of(u as VertexId)
            .iter()
            .filter(|&&label| label != 0)
            .map(|&label| name(&terms.classes, label))
            .collect();
        if !classes.is_empty() {
            let _ = write!(out, "  a {}", classes.join(", "));
        }
        if let Some((_, v)) = part.pinned.iter().find(|(p, _)| *p == u) {
            let _ = write!(out, "  pinned to data vertex {v}");
        }
        let _ = writeln!(out);
    }
    let mut edges: Vec<_> = graph.edge_iter().collect();
    edges.sort_unstable();
    for (s, o, label) in edges {
        let _ = writeln!(
            out,
            "  u{s} -> u{o}  {} (label {label})",
            name(&terms.predicates, label)
        );
    }
    if let Some(typing) = &part.typing {
        let _ = writeln!(
            out,
            "  rdf:type triples matched through their subjects' classes: {} checked, {} bound to classes",
            typing.checks.len(),
            typing.classes.len()
        );
    }
    let pinned: Vec<String> = part.pinned.iter().map(|(u, _)| format!("u{u}")).collect();
    let _ = writeln!(
        out,
        "  pinned vertices: {}",
        match pinned.is_empty() {
            true => "none".to_string(),
            false => pinned.join(", "),
        }
    );
    match report {
        Some(report) => {
            let _ = write!(
                out,
                "engine: {}\n{}{}",
                report.engine, report.plan, report.paths
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  not joined: no join was needed, or the solutions asked were found before it"
            );
        }
    }
}
