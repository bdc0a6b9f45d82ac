//! How SPARQL compares RDF terms: the order of `ORDER BY` (SPARQL 1.1 §15.1), and the
//! numbers whose values `=` compares.
//!
//! Blank nodes come before IRIs, IRIs before literals (unbound before all). IRIs compare by
//! their text; blank nodes are all equal (their labels are the data file's, not the data's). Literals that are numbers (`xsd:integer` and the
//! types derived from it, `xsd:decimal`, `xsd:float`, `xsd:double`, with a valid lexical form)
//! come first and compare by value, as doubles; the other literals compare by lexical form,
//! then datatype IRI, then language tag, so that strings (plain or `xsd:string`) compare by
//! their text as SPARQL's `<` does. Terms that SPARQL leaves unordered are thereby ordered
//! too, and the order is total.

use std::cmp::Ordering;
use std::str::FromStr;

use oxrdf::vocab::xsd;
use oxrdf::{Literal, Term};
use oxsdatatypes::{Decimal, Double, Float, Integer};

/// A term's place in `ORDER BY`'s order; derived `Ord` follows the variants' order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SortTerm {
    Unbound,
    Blank,
    Iri(String),
    /// A number: its value, then its lexical form and datatype to order equal values.
    Number(Value, String, String),
    /// Another literal: lexical form, datatype, language tag (empty if none).
    Literal(String, String, String),
}

impl SortTerm {
    /// The place of `term` (`None`: unbound).
    pub fn of(term: Option<&Term>) -> SortTerm {
        match term {
            None => SortTerm::Unbound,
            Some(Term::BlankNode(_)) => SortTerm::Blank,
            Some(Term::NamedNode(iri)) => SortTerm::Iri(iri.as_str().to_string()),
            Some(Term::Literal(literal)) => {
                let lexical = literal.value().to_string();
                let datatype = literal.datatype().as_str().to_string();
                match Number::of(literal) {
                    Some(number) => SortTerm::Number(Value(number.to_f64()), lexical, datatype),
                    None => SortTerm::Literal(
                        lexical,
                        datatype,
                        literal.language().unwrap_or_default().to_string(),
                    ),
                }
            }
        }
    }
}

/// A double ordered totally (`f64::total_cmp`).
#[derive(Clone, Copy, Debug)]
pub struct Value(f64);

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

/// A literal of a numeric XSD datatype, read from a valid lexical form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Integer(Integer),
    Decimal(Decimal),
    Float(Float),
    Double(Double),
}

/// `xsd:integer` and the datatypes derived from it.
const INTEGER_TYPES: [oxrdf::NamedNodeRef<'static>; 13] = [
    xsd::INTEGER,
    xsd::NON_POSITIVE_INTEGER,
    xsd::NEGATIVE_INTEGER,
    xsd::LONG,
    xsd::INT,
    xsd::SHORT,
    xsd::BYTE,
    xsd::NON_NEGATIVE_INTEGER,
    xsd::UNSIGNED_LONG,
    xsd::UNSIGNED_INT,
    xsd::UNSIGNED_SHORT,
    xsd::UNSIGNED_BYTE,
    xsd::POSITIVE_INTEGER,
];

impl Number {
    /// The number `literal` stands for, if its datatype is numeric and its form valid.
    pub fn of(literal: &Literal) -> Option<Number> {
        let value = literal.value();
        let datatype = literal.datatype();
        if INTEGER_TYPES.contains(&datatype) {
            Integer::from_str(value).ok().map(Number::Integer)
        } else if datatype == xsd::DECIMAL {
            Decimal::from_str(value).ok().map(Number::Decimal)
        } else if datatype == xsd::FLOAT {
            Float::from_str(value).ok().map(Number::Float)
        } else if datatype == xsd::DOUBLE {
            Double::from_str(value).ok().map(Number::Double)
        } else {
            None
        }
    }

    /// The number as a double (rounded where a double cannot hold it).
    pub fn to_f64(self) -> f64 {
        let double = match self {
            Number::Integer(n) => Double::from(n),
            Number::Decimal(n) => Double::from(n),
            Number::Float(n) => Double::from(n),
            Number::Double(n) => n,
        };
        double.into()
    }

    /// The number as a float (rounded where a float cannot hold it).
    fn to_float(self) -> Float {
        match self {
            Number::Integer(n) => n.into(),
            Number::Decimal(n) => n.into(),
            Number::Float(n) => n,
            Number::Double(n) => n.into(),
        }
    }

    /// `op:numeric-equal`, both numbers first promoted to the wider of their types
    /// (integer, decimal, float, double).
    pub fn equals(self, other: Number) -> bool {
        match (self, other) {
            (Number::Integer(a), Number::Integer(b)) => a == b,
            (Number::Integer(a), Number::Decimal(b)) => Decimal::from(a) == b,
            (Number::Decimal(a), Number::Integer(b)) => a == Decimal::from(b),
            (Number::Decimal(a), Number::Decimal(b)) => a == b,
            (Number::Double(_), _) | (_, Number::Double(_)) => self.to_f64() == other.to_f64(),
            _ => self.to_float() == other.to_float(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(term: &str) -> SortTerm {
        SortTerm::of(Some(&Term::from_str(term).unwrap()))
    }

    #[test]
    fn terms_sort_as_sparql_orders_them() {
        let integer = |n: &str| format!("\"{n}\"^^<http://www.w3.org/2001/XMLSchema#integer>");
        let sorted = [
            "_:a".to_string(),
            "<http://ex/a>".into(),
            "<http://ex/b>".into(),
            "\"-INF\"^^<http://www.w3.org/2001/XMLSchema#double>".into(),
            integer("-3"),
            "\"2.5\"^^<http://www.w3.org/2001/XMLSchema#decimal>".into(),
            integer("3"),
            "\"7\"^^<http://www.w3.org/2001/XMLSchema#int>".into(),
            integer("10"),
            "\"1e3\"^^<http://www.w3.org/2001/XMLSchema#float>".into(),
            "\"10\"".into(),
            "\"3\"".into(),
            // Not a valid integer: a literal like others, by its text.
            integer("abc"),
            "\"b\"@en".into(),
            "\"b\"".into(),
            "\"ba\"".into(),
        ];
        let places: Vec<SortTerm> = sorted.iter().map(|t| place(t)).collect();
        for pair in places.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
        assert!(SortTerm::of(None) < places[0]);
        assert_eq!(place("_:a"), place("_:b"));
        // Equal values are ordered by their form.
        assert!(place(&integer("01")) < place(&integer("1")));
    }
}
