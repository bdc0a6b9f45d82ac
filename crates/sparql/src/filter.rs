//! `FILTER`s over the BGP, in the fragment gsi answers: `=` and `!=` between variables,
//! constants and `LANG(…)`; `sameTerm`; `isIRI` (`isURI`), `isLiteral`, `isBlank`; `&&`,
//! `||` and `!` of those. They are evaluated as SPARQL 1.1 §17 says: a comparison that
//! errs (a type error, an unbound variable) is neither true nor false, errors pass through
//! `!`, `&&` and `||` by their truth tables, and a solution is kept only where its filter is
//! true.

use std::str::FromStr;

use oxrdf::vocab::{rdf, xsd};
use oxrdf::{Literal, Term};
use oxsdatatypes::{Boolean, DateTime};
use spargebra::algebra::{Expression, Function};
use spargebra::term::Variable;

use crate::compare::Number;
use crate::error::{Error, Result};

/// A filter of the fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    And(Box<Filter>, Box<Filter>),
    Or(Box<Filter>, Box<Filter>),
    Not(Box<Filter>),
    /// `=`: equal values for strings and numbers, else the same term.
    Equal(Operand, Operand),
    SameTerm(Operand, Operand),
    /// `isIRI`, `isBlank`, `isLiteral`.
    Is(Kind, Operand),
}

/// What `isIRI`, `isBlank` and `isLiteral` test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Iri,
    Blank,
    Literal,
}

/// A term that a filter compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Variable(Variable),
    Constant(Term),
    /// `LANG(…)`: the language tag of a literal, `""` if it has none.
    Lang(Box<Operand>),
}

/// A truth value of SPARQL's logic: `None` is an error.
type Truth = Option<bool>;

impl Filter {
    /// The filter `expression` stands for.
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming the first construct outside the fragment.
    pub fn of(expression: &Expression) -> Result<Filter> {
        Ok(match expression {
            Expression::And(a, b) => {
                Filter::And(Box::new(Filter::of(a)?), Box::new(Filter::of(b)?))
            }
            Expression::Or(a, b) => Filter::Or(Box::new(Filter::of(a)?), Box::new(Filter::of(b)?)),
            Expression::Not(a) => Filter::Not(Box::new(Filter::of(a)?)),
            Expression::Equal(a, b) => Filter::Equal(Operand::of(a)?, Operand::of(b)?),
            Expression::SameTerm(a, b) => Filter::SameTerm(Operand::of(a)?, Operand::of(b)?),
            Expression::FunctionCall(function, arguments) => {
                let kind = match function {
                    Function::IsIri => Kind::Iri,
                    Function::IsBlank => Kind::Blank,
                    Function::IsLiteral => Kind::Literal,
                    _ => return Err(refused(expression)),
                };
                match arguments.as_slice() {
                    [argument] => Filter::Is(kind, Operand::of(argument)?),
                    _ => return Err(refused(expression)),
                }
            }
            _ => return Err(refused(expression)),
        })
    }

    /// The variables the filter reads.
    pub fn variables(&self) -> Vec<&Variable> {
        match self {
            Filter::And(a, b) | Filter::Or(a, b) => {
                let mut variables = a.variables();
                variables.extend(b.variables());
                variables
            }
            Filter::Not(a) => a.variables(),
            Filter::Equal(a, b) | Filter::SameTerm(a, b) => {
                a.variable().into_iter().chain(b.variable()).collect()
            }
            Filter::Is(_, a) => a.variable().into_iter().collect(),
        }
    }

    /// Whether the filter holds where `bound` gives each variable's term (`None`: unbound).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for `=` between two literals whose values SPARQL compares but
    /// gsi does not (`xsd:boolean`, `xsd:dateTime`).
    pub fn holds<'t>(&self, bound: &impl Fn(&Variable) -> Option<&'t Term>) -> Result<Truth> {
        Ok(match self {
            Filter::And(a, b) => match (a.holds(bound)?, b.holds(bound)?) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Filter::Or(a, b) => match (a.holds(bound)?, b.holds(bound)?) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Filter::Not(a) => a.holds(bound)?.map(|truth| !truth),
            Filter::Equal(a, b) => match (a.term(bound), b.term(bound)) {
                (Some(a), Some(b)) => equal(&a, &b)?,
                _ => None,
            },
            Filter::SameTerm(a, b) => match (a.term(bound), b.term(bound)) {
                (Some(a), Some(b)) => Some(a == b),
                _ => None,
            },
            Filter::Is(kind, a) => a.term(bound).map(|term| match kind {
                Kind::Iri => matches!(term, Term::NamedNode(_)),
                Kind::Blank => matches!(term, Term::BlankNode(_)),
                Kind::Literal => matches!(term, Term::Literal(_)),
            }),
        })
    }
}

impl Operand {
    fn of(expression: &Expression) -> Result<Operand> {
        Ok(match expression {
            Expression::Variable(variable) => Operand::Variable(variable.clone()),
            Expression::NamedNode(iri) => Operand::Constant(iri.clone().into()),
            Expression::Literal(literal) => Operand::Constant(literal.clone().into()),
            Expression::FunctionCall(Function::Lang, arguments) => match arguments.as_slice() {
                [argument] => Operand::Lang(Box::new(Operand::of(argument)?)),
                _ => return Err(refused(expression)),
            },
            _ => return Err(refused(expression)),
        })
    }

    /// The variable the operand reads, if any.
    fn variable(&self) -> Option<&Variable> {
        match self {
            Operand::Variable(variable) => Some(variable),
            Operand::Constant(_) => None,
            Operand::Lang(inner) => inner.variable(),
        }
    }

    /// The operand's term, `None` where it errs (unbound, or `LANG` of a non-literal).
    fn term<'t>(&self, bound: &impl Fn(&Variable) -> Option<&'t Term>) -> Option<Term> {
        match self {
            Operand::Variable(variable) => bound(variable).cloned(),
            Operand::Constant(term) => Some(term.clone()),
            Operand::Lang(inner) => match inner.term(bound)? {
                Term::Literal(literal) => {
                    Some(Literal::new_simple_literal(literal.language().unwrap_or_default()).into())
                }
                _ => None,
            },
        }
    }
}

/// SPARQL's `=` (§17.3): numbers by value, strings by text, other terms by identity; two
/// literals whose values gsi cannot compare are an error.
fn equal(a: &Term, b: &Term) -> Result<Truth> {
    let (Term::Literal(a), Term::Literal(b)) = (a, b) else {
        return Ok(Some(a == b));
    };
    match (Value::of(a), Value::of(b)) {
        (Value::Number(x), Value::Number(y)) => Ok(Some(x.equals(y))),
        _ if a == b => Ok(Some(true)),
        (Value::Other, _) | (_, Value::Other) => Ok(None),
        (Value::Unsupported, Value::Unsupported) if a.datatype() == b.datatype() => Err(
            Error::Unsupported(format!("= between two {} literals in FILTER", a.datatype())),
        ),
        // Values of different types, or strings of different texts or tags.
        _ => Ok(Some(false)),
    }
}

/// What `=` knows of a literal's value.
enum Value {
    Number(Number),
    /// A string, with or without a language tag: its term is its value.
    String,
    /// A value SPARQL compares that gsi does not: a valid `xsd:boolean` or `xsd:dateTime`.
    Unsupported,
    /// A value no one here knows (another datatype, an invalid form).
    Other,
}

impl Value {
    fn of(literal: &Literal) -> Value {
        let datatype = literal.datatype();
        if let Some(number) = Number::of(literal) {
            Value::Number(number)
        } else if datatype == xsd::STRING || datatype == rdf::LANG_STRING {
            Value::String
        } else if (datatype == xsd::BOOLEAN && Boolean::from_str(literal.value()).is_ok())
            || (datatype == xsd::DATE_TIME && DateTime::from_str(literal.value()).is_ok())
        {
            Value::Unsupported
        } else {
            Value::Other
        }
    }
}

/// The refusal of `expression` by name.
fn refused(expression: &Expression) -> Error {
    let name = match expression {
        Expression::FunctionCall(function, _) => format!("{function}"),
        Expression::Greater(..) => ">".into(),
        Expression::GreaterOrEqual(..) => ">=".into(),
        Expression::Less(..) => "<".into(),
        Expression::LessOrEqual(..) => "<=".into(),
        Expression::In(..) => "IN".into(),
        Expression::Add(..) | Expression::UnaryPlus(..) => "+".into(),
        Expression::Subtract(..) | Expression::UnaryMinus(..) => "-".into(),
        Expression::Multiply(..) => "*".into(),
        Expression::Divide(..) => "/".into(),
        Expression::Exists(..) => "EXISTS".into(),
        Expression::Bound(..) => "BOUND".into(),
        Expression::If(..) => "IF".into(),
        Expression::Coalesce(..) => "COALESCE".into(),
        Expression::NamedNode(..) | Expression::Literal(..) | Expression::Variable(..) => {
            "a term's truth value".into()
        }
        Expression::And(..)
        | Expression::Or(..)
        | Expression::Not(..)
        | Expression::Equal(..)
        | Expression::SameTerm(..) => "a truth value compared".into(),
    };
    Error::Unsupported(format!("{name} in FILTER"))
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::parse::parse;

    const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

    fn typed(value: &str, datatype: &str) -> String {
        format!("\"{value}\"^^<{XSD}{datatype}>")
    }

    fn equal_terms(a: &str, b: &str) -> Result<Truth> {
        equal(&Term::from_str(a).unwrap(), &Term::from_str(b).unwrap())
    }

    #[test]
    fn equality_compares_numbers_and_strings_by_value() {
        let cases = [
            (typed("1", "integer"), typed("1.0", "decimal"), Some(true)),
            (typed("01", "integer"), typed("1", "int"), Some(true)),
            (typed("1e0", "double"), typed("1", "integer"), Some(true)),
            (typed("0.5", "float"), typed("0.5", "decimal"), Some(true)),
            (typed("NaN", "double"), typed("NaN", "double"), Some(false)),
            (typed("2", "integer"), typed("1", "integer"), Some(false)),
            ("\"s\"".into(), typed("s", "string"), Some(true)),
            ("\"s\"".into(), "\"s\"@en".into(), Some(false)),
            ("\"s\"@en".into(), "\"s\"@EN".into(), Some(true)),
            ("\"1\"".into(), typed("1", "integer"), Some(false)),
            ("<http://ex/a>".into(), "\"s\"".into(), Some(false)),
            ("<http://ex/a>".into(), "<http://ex/a>".into(), Some(true)),
            ("_:a".into(), "_:b".into(), Some(false)),
            // Values no one here knows: equal only as the same term, else an error.
            (
                "\"x\"^^<http://ex/t>".into(),
                "\"x\"^^<http://ex/t>".into(),
                Some(true),
            ),
            (
                "\"x\"^^<http://ex/t>".into(),
                "\"y\"^^<http://ex/t>".into(),
                None,
            ),
            ("\"x\"^^<http://ex/t>".into(), "\"x\"".into(), None),
            (typed("abc", "integer"), typed("1", "integer"), None),
            // A boolean is no string; an invalid one is not known.
            (typed("true", "boolean"), "\"true\"".into(), Some(false)),
            (typed("x", "boolean"), "\"true\"".into(), None),
        ];
        for (a, b, truth) in cases {
            assert_eq!(equal_terms(&a, &b).unwrap(), truth, "{a} = {b}");
            assert_eq!(equal_terms(&b, &a).unwrap(), truth, "{b} = {a}");
        }
    }

    #[test]
    fn values_gsi_does_not_compare_are_refused_by_name() {
        let err = equal_terms(&typed("true", "boolean"), &typed("1", "boolean")).unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported(c) if c.contains("boolean")),
            "{err}"
        );
        assert!(
            equal_terms(&typed("true", "boolean"), &typed("true", "boolean")).unwrap()
                == Some(true)
        );
    }

    /// The truth of `filter` where ?x is bound to `x` and ?u is unbound.
    fn truth(filter: &str, x: &str) -> Truth {
        let query = parse(&format!(
            "SELECT * {{ ?x <http://ex/p> ?y FILTER({filter}) }}"
        ))
        .unwrap();
        let x = Term::from_str(x).unwrap();
        let bound = |v: &Variable| (v.as_str() == "x").then_some(&x);
        query.filter.unwrap().holds(&bound).unwrap()
    }

    #[test]
    fn errors_pass_through_the_logic_as_sparql_says() {
        let one = typed("1", "integer");
        assert_eq!(truth("?x = 1", &one), Some(true));
        assert_eq!(truth("?u = 1", &one), None);
        assert_eq!(truth("!(?u = 1)", &one), None);
        assert_eq!(truth("?u = 1 || ?x = 1", &one), Some(true));
        assert_eq!(truth("?u = 1 || ?x = 2", &one), None);
        assert_eq!(truth("?u = 1 && ?x = 2", &one), Some(false));
        assert_eq!(truth("?u = 1 && ?x = 1", &one), None);
        assert_eq!(truth("?x != 2 && isLiteral(?x)", &one), Some(true));
        assert_eq!(truth("isIRI(?x) || isBlank(?x)", &one), Some(false));
        assert_eq!(truth("sameTerm(?x, 1.0)", &one), Some(false));
        assert_eq!(truth("LANG(?x) = \"\"", &one), Some(true));
        assert_eq!(truth("LANG(?x) = \"en\"", "\"a\"@EN"), Some(true));
        assert_eq!(truth("LANG(?x) = \"en\"", "<http://ex/a>"), None);
        assert_eq!(truth("isURI(?x)", "<http://ex/a>"), Some(true));
    }
}
