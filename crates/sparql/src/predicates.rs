//! Variable predicates, answered by trying each edge label: the BGP's solutions are the union,
//! over every assignment of the data's predicates to its predicate variables (one variable,
//! one predicate, in every triple it names), of the solutions of the BGP with those
//! predicates, each extended with the variables bound to them. Each solution binds a
//! variable to one predicate, so the union is exact under bag semantics. Over data with
//! `rdf:type` triples, which gsi holds as vertex labels rather than edges, `rdf:type` is one
//! more predicate ([`RDF_TYPE`]): its triples are matched through their subject's classes
//! ([`crate::bgp::Typing`]).

use gsi_graph::EdgeLabel;
use spargebra::term::{NamedNodePattern, TermPattern};

use crate::bgp::{Terms, RDF_TYPE};
use crate::error::{Error, Result};
use crate::parse::{Query, Variable};

/// The most assignments of predicates one query may be answered by.
pub const MAX_ASSIGNMENTS: u64 = 10_000;

/// The term of predicate `label` of an assignment in `data`.
pub fn predicate_name<'d>(data: &Terms<'d>, label: EdgeLabel) -> Option<&'d str> {
    match label {
        RDF_TYPE => Some(concat!(
            "<",
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
            ">"
        )),
        _ => data.predicates.name(label),
    }
}

/// The predicate variables of a query, with the assignments they take.
#[derive(Clone, Debug)]
pub struct PredicateVariables {
    /// The variables, in order of first sight.
    pub variables: Vec<Variable>,
    /// The data's predicates.
    labels: Vec<EdgeLabel>,
}

impl PredicateVariables {
    /// The predicate variables of `query` over `data`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a predicate variable that is also a subject or an object,
    /// one that a `FILTER` or `ORDER BY` names, and more than [`MAX_ASSIGNMENTS`]
    /// assignments.
    pub fn of(query: &Query, data: &Terms<'_>) -> Result<PredicateVariables> {
        let mut variables: Vec<Variable> = Vec::new();
        for pattern in &query.patterns {
            if let NamedNodePattern::Variable(v) = &pattern.predicate {
                if !variables.contains(v) {
                    variables.push(v.clone());
                }
            }
        }
        let typed = data.classes.ids().next().is_some();
        let labels: Vec<EdgeLabel> = data
            .predicates
            .ids()
            .chain(typed.then_some(RDF_TYPE))
            .collect();
        if variables.is_empty() {
            return Ok(PredicateVariables { variables, labels });
        }
        let is_node = |v: &Variable| {
            query.patterns.iter().any(|p| {
                [&p.subject, &p.object]
                    .into_iter()
                    .any(|t| matches!(t, TermPattern::Variable(w) if w == v))
            })
        };
        let refuse = |what: &str| Err(Error::Unsupported(what.into()));
        if variables.iter().any(is_node) {
            return refuse("a variable predicate also used as a subject or object");
        }
        if let Some(filter) = &query.filter {
            if filter
                .variables()
                .into_iter()
                .any(|v| variables.contains(v))
            {
                return refuse("a FILTER on a variable predicate");
            }
        }
        if query.order.iter().any(|k| variables.contains(&k.variable)) {
            return refuse("ORDER BY a variable predicate");
        }
        let assignments = u32::try_from(variables.len())
            .ok()
            .and_then(|k| (labels.len() as u64).checked_pow(k));
        if assignments.is_none_or(|n| n > MAX_ASSIGNMENTS) {
            return Err(Error::Unsupported(format!(
                "a variable predicate with more than {MAX_ASSIGNMENTS} assignments \
                 ({} predicates to the power of {} variables)",
                labels.len(),
                variables.len()
            )));
        }
        Ok(PredicateVariables { variables, labels })
    }

    /// Every assignment of the data's predicates to the variables, in order; one, empty,
    /// without variables.
    pub fn assignments(&self) -> Vec<Vec<EdgeLabel>> {
        let mut all = vec![Vec::new()];
        for _ in &self.variables {
            all = all
                .into_iter()
                .flat_map(|prefix| {
                    self.labels.iter().map(move |&label| {
                        let mut next = prefix.clone();
                        next.push(label);
                        next
                    })
                })
                .collect();
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gsi_graph::formats::{ntriples, LoadedGraph, VertexNames};
    use oxrdf::vocab::rdf;

    use super::*;
    use crate::parse::parse;

    /// Three predicates, no `rdf:type`.
    const DATA: &str = r#"<http://ex/a> <http://ex/p> <http://ex/b> .
<http://ex/b> <http://ex/q> <http://ex/c> .
<http://ex/c> <http://ex/r> "c" .
"#;

    fn variables(data: &str, query: &str) -> Result<PredicateVariables> {
        let loaded: LoadedGraph = ntriples::parse(Path::new("d.nt"), data.as_bytes()).unwrap();
        let Some(VertexNames::Terms(vertices)) = &loaded.names else {
            unreachable!("N-Triples names its vertices")
        };
        let terms = Terms::of(vertices, &loaded.labels)?;
        PredicateVariables::of(&parse(query)?, &terms)
    }

    fn refused(data: &str, query: &str) -> String {
        match variables(data, query) {
            Err(Error::Unsupported(what)) => what,
            other => panic!("{query}: {other:?}"),
        }
    }

    #[test]
    fn each_variable_takes_every_predicate() {
        let found = variables(DATA, "SELECT * { ?x ?p ?y . ?y ?q ?z . ?z ?p ?w }").unwrap();
        assert_eq!(found.variables.len(), 2);
        let assignments = found.assignments();
        assert_eq!(assignments.len(), 9);
        assert_eq!(assignments[0], vec![0, 0]);
        assert_eq!(assignments[8], vec![2, 2]);
        let none = variables(DATA, "SELECT * { ?x <http://ex/p> ?y }").unwrap();
        assert_eq!(none.assignments(), vec![Vec::<EdgeLabel>::new()]);
    }

    #[test]
    fn what_the_rule_does_not_cover_is_refused() {
        for (query, what) in [
            (
                "SELECT * { ?x ?p ?y . ?p ?q ?z }",
                "also used as a subject or object",
            ),
            (
                "SELECT * { ?x ?p ?y . ?z ?q ?p }",
                "also used as a subject or object",
            ),
            (
                "SELECT * { ?x ?p ?y FILTER(?p != ?x) }",
                "a FILTER on a variable predicate",
            ),
            (
                "SELECT * { ?x ?p ?y } ORDER BY ?p",
                "ORDER BY a variable predicate",
            ),
        ] {
            assert!(refused(DATA, query).contains(what), "{query}");
        }
        let typed = format!(
            "{DATA}<http://ex/a> <{}> <http://ex/C> .\n",
            rdf::TYPE.as_str()
        );
        // Over typed data, rdf:type is one more predicate.
        let assignments = variables(&typed, "SELECT * { ?x ?p ?y }")
            .unwrap()
            .assignments();
        assert_eq!(assignments, vec![vec![0], vec![1], vec![2], vec![RDF_TYPE]]);
        // 3^8 assignments are answered, 3^9 are too many.
        let chain = |k: usize| {
            let triples: Vec<String> = (0..k)
                .map(|i| format!("?v{i} ?p{i} ?v{} .", i + 1))
                .collect();
            format!("SELECT * {{ {} }}", triples.join(" "))
        };
        assert_eq!(
            variables(DATA, &chain(8)).unwrap().assignments().len(),
            6561
        );
        assert!(refused(DATA, &chain(9)).contains("more than 10000 assignments"));
    }
}
