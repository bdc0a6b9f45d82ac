//! SPARQL text to the fragment gsi answers: spargebra parses, and this module keeps a query
//! only if its algebra is one basic graph pattern, with the FILTERs of [`crate::filter`],
//! under the solution modifiers gsi applies, naming the first construct it meets that is not.

use spargebra::algebra::{AggregateExpression, Expression, GraphPattern, OrderExpression};
use spargebra::term::TriplePattern;
use spargebra::SparqlParser;

use crate::error::{Error, Result};
use crate::filter::Filter;

pub use spargebra::term::Variable;

/// What a query asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// The solutions, projected on `variables` (under `DISTINCT`, each once).
    Select {
        variables: Vec<Variable>,
        distinct: bool,
    },
    /// Whether there is a solution.
    Ask,
    /// `SELECT (COUNT(*) AS ?variable)`: one solution, the number of the BGP's solutions.
    Count { variable: Variable },
}

/// One key of `ORDER BY`: a variable, ascending or descending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortKey {
    pub variable: Variable,
    pub descending: bool,
}

/// A query of the fragment: its form, its BGP, its order and its slice of the solutions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    pub form: Form,
    /// The triple patterns of the one BGP (a `{ }` group: none).
    pub patterns: Vec<TriplePattern>,
    /// The group's `FILTER`s, joined by `&&`.
    pub filter: Option<Filter>,
    /// `ORDER BY`'s keys, most significant first (none: any order).
    pub order: Vec<SortKey>,
    /// `OFFSET`: solutions skipped.
    pub offset: usize,
    /// `LIMIT`: solutions kept at most.
    pub limit: Option<usize>,
}

/// Parses `text` and checks that it is in the fragment.
///
/// # Errors
/// [`Error::Syntax`] for text that is not SPARQL, [`Error::Unsupported`] naming a construct
/// outside the fragment.
pub fn parse(text: &str) -> Result<Query> {
    let query = SparqlParser::new()
        .parse_query(text)
        .map_err(|e| Error::Syntax(e.to_string()))?;
    let (pattern, ask) = match query {
        spargebra::Query::Select {
            dataset, pattern, ..
        } => (no_dataset(dataset.is_some(), pattern)?, false),
        spargebra::Query::Ask {
            dataset, pattern, ..
        } => (no_dataset(dataset.is_some(), pattern)?, true),
        spargebra::Query::Construct { .. } => return Err(unsupported("CONSTRUCT")),
        spargebra::Query::Describe { .. } => return Err(unsupported("DESCRIBE")),
    };
    let (offset, limit, pattern) = match pattern {
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => (start, length, *inner),
        other => (0, None, other),
    };
    let (form, body, order) = match (select(pattern)?, ask) {
        ((Form::Select { .. }, body, order), true) => (Form::Ask, body, order),
        (_, true) => return Err(unsupported("an aggregate in ASK")),
        (selected, false) => selected,
    };
    Ok(Query {
        form,
        patterns: body.patterns,
        filter: body.filter,
        order,
        offset,
        limit,
    })
}

fn unsupported(construct: &str) -> Error {
    Error::Unsupported(construct.to_string())
}

fn no_dataset(dataset: bool, pattern: GraphPattern) -> Result<GraphPattern> {
    if dataset {
        return Err(unsupported("FROM"));
    }
    Ok(pattern)
}

/// A BGP and the filter over it.
struct Body {
    patterns: Vec<TriplePattern>,
    filter: Option<Filter>,
}

/// A `SELECT`'s (or an `ASK`'s) form, body and order:
/// `[DISTINCT|REDUCED] Project([OrderBy] [Filter] BGP)` or the count of a body.
fn select(pattern: GraphPattern) -> Result<(Form, Body, Vec<SortKey>)> {
    let (distinct, pattern) = match pattern {
        GraphPattern::Distinct { inner } => (true, *inner),
        // REDUCED allows duplicates to be kept: all of them are.
        GraphPattern::Reduced { inner } => (false, *inner),
        other => (false, other),
    };
    let GraphPattern::Project { inner, variables } = pattern else {
        return Err(unsupported(construct(&pattern)));
    };
    let (order, inner) = match *inner {
        GraphPattern::OrderBy { inner, expression } => (sort_keys(expression)?, *inner),
        inner => (Vec::new(), inner),
    };
    match inner {
        GraphPattern::Extend {
            inner,
            variable,
            expression,
        } => {
            let body = count(*inner, &expression)?;
            if variables != [variable.clone()] {
                return Err(unsupported("a projection beside COUNT(*)"));
            }
            // One solution: its order is the only one.
            Ok((Form::Count { variable }, body, Vec::new()))
        }
        GraphPattern::Group { .. } => Err(unsupported("GROUP BY")),
        inner => Ok((
            Form::Select {
                variables,
                distinct,
            },
            body(inner)?,
            order,
        )),
    }
}

/// `ORDER BY`'s keys, which must be variables.
fn sort_keys(expressions: Vec<OrderExpression>) -> Result<Vec<SortKey>> {
    expressions
        .into_iter()
        .map(|expression| {
            let (expression, descending) = match expression {
                OrderExpression::Asc(e) => (e, false),
                OrderExpression::Desc(e) => (e, true),
            };
            match expression {
                Expression::Variable(variable) => Ok(SortKey {
                    variable,
                    descending,
                }),
                _ => Err(unsupported("ORDER BY on an expression")),
            }
        })
        .collect()
}

/// The body of `Group(body, [], [COUNT(*)])` whose aggregate is `expression`.
fn count(pattern: GraphPattern, expression: &Expression) -> Result<Body> {
    let GraphPattern::Group {
        inner,
        variables,
        aggregates,
    } = pattern
    else {
        return Err(unsupported("BIND or an expression in SELECT"));
    };
    if !variables.is_empty() {
        return Err(unsupported("GROUP BY"));
    }
    match aggregates.as_slice() {
        [(name, AggregateExpression::CountSolutions { distinct: false })]
            if *expression == Expression::Variable(name.clone()) =>
        {
            body(*inner)
        }
        [(_, AggregateExpression::CountSolutions { distinct: true })] => {
            Err(unsupported("COUNT(DISTINCT *)"))
        }
        _ => Err(unsupported("an aggregate other than COUNT(*)")),
    }
}

/// A BGP with its group's filter, if any.
fn body(pattern: GraphPattern) -> Result<Body> {
    Ok(match pattern {
        GraphPattern::Filter { expr, inner } => Body {
            patterns: bgp(*inner)?,
            filter: Some(Filter::of(&expr)?),
        },
        other => Body {
            patterns: bgp(other)?,
            filter: None,
        },
    })
}

/// The triple patterns of one BGP; groups joined without anything between them are one BGP.
fn bgp(pattern: GraphPattern) -> Result<Vec<TriplePattern>> {
    match pattern {
        GraphPattern::Bgp { patterns } => Ok(patterns),
        GraphPattern::Join { left, right } => {
            let mut patterns = bgp(*left)?;
            patterns.extend(bgp(*right)?);
            Ok(patterns)
        }
        other => Err(unsupported(construct(&other))),
    }
}

/// The SPARQL keyword of an algebra node outside the fragment.
fn construct(pattern: &GraphPattern) -> &'static str {
    match pattern {
        GraphPattern::Bgp { .. } | GraphPattern::Join { .. } => "a nested group",
        GraphPattern::Path { .. } => "a property path",
        GraphPattern::LeftJoin { .. } => "OPTIONAL",
        GraphPattern::Filter { .. } => "FILTER in a nested group",
        GraphPattern::Union { .. } => "UNION",
        GraphPattern::Graph { .. } => "GRAPH",
        GraphPattern::Extend { .. } => "BIND or an expression in SELECT",
        GraphPattern::Minus { .. } => "MINUS",
        GraphPattern::Values { .. } => "VALUES",
        GraphPattern::OrderBy { .. } => "ORDER BY",
        GraphPattern::Project { .. }
        | GraphPattern::Distinct { .. }
        | GraphPattern::Reduced { .. }
        | GraphPattern::Slice { .. } => "a subquery",
        GraphPattern::Group { .. } => "GROUP BY",
        GraphPattern::Service { .. } => "SERVICE",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "PREFIX : <http://ex/> ";

    fn refusal(query: &str) -> String {
        match parse(&format!("{P}{query}")) {
            Err(Error::Unsupported(construct)) => construct,
            other => panic!("{query}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn each_construct_outside_the_fragment_is_refused_by_name() {
        let cases = [
            ("SELECT * { ?x :p ?y OPTIONAL { ?y :q ?z } }", "OPTIONAL"),
            ("SELECT * { { ?x :p ?y } UNION { ?x :q ?y } }", "UNION"),
            ("SELECT * { ?x :p ?y MINUS { ?x :q ?y } }", "MINUS"),
            ("SELECT * { ?x :p+ ?y }", "a property path"),
            ("SELECT * { ?x :p|:q ?y }", "a property path"),
            (
                "SELECT * { ?x :p ?y { ?y :p ?z FILTER(?z = ?x) } }",
                "FILTER in a nested group",
            ),
            (
                "SELECT * { ?x :p ?y FILTER(REGEX(?y, \"a\")) }",
                "REGEX in FILTER",
            ),
            ("SELECT * { ?x :p ?y FILTER(?x < ?y) }", "< in FILTER"),
            ("SELECT * { ?x :p ?y FILTER(BOUND(?y)) }", "BOUND in FILTER"),
            (
                "SELECT * { ?x :p ?y FILTER(STR(?y) = \"a\") }",
                "STR in FILTER",
            ),
            (
                "SELECT * { ?x :p ?y FILTER(?y) }",
                "a term's truth value in FILTER",
            ),
            ("SELECT * { GRAPH :g { ?x :p ?y } }", "GRAPH"),
            ("SELECT * { SERVICE :s { ?x :p ?y } }", "SERVICE"),
            (
                "SELECT * { ?x :p ?y BIND(1 AS ?z) }",
                "BIND or an expression in SELECT",
            ),
            ("SELECT * { ?x :p ?y VALUES ?x { :a } }", "VALUES"),
            (
                "SELECT * { ?x :p ?y } ORDER BY STR(?x)",
                "ORDER BY on an expression",
            ),
            (
                "SELECT * { ?x :p ?y { SELECT ?y { ?y :q ?z } } }",
                "a subquery",
            ),
            (
                "SELECT (SUM(?y) AS ?s) { ?x :p ?y }",
                "an aggregate other than COUNT(*)",
            ),
            (
                "SELECT (COUNT(?y) AS ?s) { ?x :p ?y }",
                "an aggregate other than COUNT(*)",
            ),
            (
                "SELECT (COUNT(DISTINCT *) AS ?n) { ?x :p ?y }",
                "COUNT(DISTINCT *)",
            ),
            (
                "SELECT ?x (COUNT(*) AS ?n) { ?x :p ?y } GROUP BY ?x",
                "GROUP BY",
            ),
            ("SELECT * FROM :g { ?x :p ?y }", "FROM"),
            ("CONSTRUCT { ?x :p ?y } WHERE { ?x :p ?y }", "CONSTRUCT"),
            ("DESCRIBE :a", "DESCRIBE"),
        ];
        for (query, construct) in cases {
            assert_eq!(refusal(query), construct, "{query}");
        }
    }

    #[test]
    fn the_message_names_the_construct_and_the_fragment() {
        let err = parse(&format!(
            "{P}SELECT * {{ ?x :p ?y OPTIONAL {{ ?y :q ?z }} }}"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("OPTIONAL is outside the SPARQL fragment"),
            "{err}"
        );
    }

    #[test]
    fn syntax_errors_are_told_apart() {
        assert!(matches!(parse("SELECT WHERE"), Err(Error::Syntax(_))));
    }

    #[test]
    fn the_fragment_parses_with_its_modifiers() {
        let query = parse(&format!(
            "{P}SELECT DISTINCT ?y {{ ?x :p ?y . ?y a :C }} LIMIT 5 OFFSET 2"
        ))
        .unwrap();
        assert_eq!(
            query.form,
            Form::Select {
                variables: vec![Variable::new_unchecked("y")],
                distinct: true
            }
        );
        assert_eq!(
            (query.offset, query.limit, query.patterns.len()),
            (2, Some(5), 2)
        );

        let count = parse(&format!("{P}SELECT (COUNT(*) AS ?n) {{ ?x :p ?y }}")).unwrap();
        assert_eq!(
            count.form,
            Form::Count {
                variable: Variable::new_unchecked("n")
            }
        );
        let ask = parse(&format!("{P}ASK {{ :a :p ?y }}")).unwrap();
        assert_eq!(ask.form, Form::Ask);
        let reduced = parse(&format!("{P}SELECT REDUCED * {{ ?x :p ?y }}")).unwrap();
        assert!(matches!(
            reduced.form,
            Form::Select {
                distinct: false,
                ..
            }
        ));
        let ordered = parse(&format!(
            "{P}SELECT ?x {{ ?x :p ?y }} ORDER BY DESC(?y) ?x LIMIT 3"
        ))
        .unwrap();
        let keys: Vec<_> = ordered
            .order
            .iter()
            .map(|k| (k.variable.as_str(), k.descending))
            .collect();
        assert_eq!(keys, [("y", true), ("x", false)]);
        assert_eq!(ordered.limit, Some(3));
        let filtered = parse(&format!(
            "{P}SELECT * {{ ?x :p ?y FILTER(?x != ?y) FILTER(isIRI(?y) || LANG(?y) = \"en\") }}"
        ))
        .unwrap();
        assert!(matches!(filtered.filter, Some(Filter::And(..))));
        let empty = parse("SELECT * {}").unwrap();
        assert!(empty.patterns.is_empty());
    }
}
