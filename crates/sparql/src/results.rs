//! The W3C result formats, written one solution at a time: SPARQL 1.1 Query Results JSON,
//! TSV and CSV. Terms come as the data file spelled them (N-Triples) and are read with
//! oxrdf's term parser.

use std::io::{self, Write};
use std::str::FromStr;

use oxrdf::vocab::xsd;
use oxrdf::Term;

use crate::error::{Error, Result};
use crate::parse::Form;

/// A result format of `--results`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultsFormat {
    /// SPARQL 1.1 Query Results JSON.
    #[default]
    Json,
    /// SPARQL 1.1 Query Results TSV: terms in N-Triples syntax.
    Tsv,
    /// SPARQL 1.1 Query Results CSV: IRIs and literals' values bare.
    Csv,
}

/// Writes the results of one query: a header, solutions as they come, an end.
pub struct ResultsWriter<W: Write> {
    format: ResultsFormat,
    out: W,
    /// Solutions written so far.
    written: u64,
}

impl<W: Write> ResultsWriter<W> {
    /// A writer of `format` into `out` for the results of a query of `form`.
    ///
    /// # Errors
    /// [`Error::Format`] for an `ASK` in TSV or CSV, which have no boolean form.
    pub fn new(format: ResultsFormat, form: &Form, out: W) -> Result<ResultsWriter<W>> {
        if *form == Form::Ask && format != ResultsFormat::Json {
            return Err(Error::Format(
                "ASK results have no TSV or CSV form: use JSON".into(),
            ));
        }
        Ok(ResultsWriter {
            format,
            out,
            written: 0,
        })
    }

    /// Starts the solutions of a `SELECT` over `variables` (names without `?`).
    pub fn start(&mut self, variables: &[&str]) -> io::Result<()> {
        match self.format {
            ResultsFormat::Json => {
                let vars = serde_json::to_string(variables)?;
                write!(
                    self.out,
                    "{{\"head\":{{\"vars\":{vars}}},\"results\":{{\"bindings\":["
                )
            }
            ResultsFormat::Tsv => {
                let header: Vec<String> = variables.iter().map(|v| format!("?{v}")).collect();
                writeln!(self.out, "{}", header.join("\t"))
            }
            ResultsFormat::Csv => write!(self.out, "{}\r\n", variables.join(",")),
        }
    }

    /// Writes one solution: per variable of [`ResultsWriter::start`], its term as the data
    /// file spelled it, or `None` where it is unbound.
    pub fn solution(&mut self, variables: &[&str], terms: &[Option<&str>]) -> io::Result<()> {
        match self.format {
            ResultsFormat::Json => {
                let mut binding = serde_json::Map::new();
                for (variable, term) in variables.iter().zip(terms) {
                    if let Some(term) = term {
                        binding.insert(variable.to_string(), json_term(&parse_term(term)?));
                    }
                }
                if self.written > 0 {
                    self.out.write_all(b",")?;
                }
                serde_json::to_writer(&mut self.out, &binding)?;
            }
            ResultsFormat::Tsv => {
                let mut fields = Vec::with_capacity(terms.len());
                for term in terms {
                    fields.push(match term {
                        Some(term) => parse_term(term)?.to_string(),
                        None => String::new(),
                    });
                }
                writeln!(self.out, "{}", fields.join("\t"))?;
            }
            ResultsFormat::Csv => {
                let mut fields = Vec::with_capacity(terms.len());
                for term in terms {
                    fields.push(match term {
                        Some(term) => csv_field(&parse_term(term)?),
                        None => String::new(),
                    });
                }
                write!(self.out, "{}\r\n", fields.join(","))?;
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Ends the solutions of a `SELECT`.
    pub fn finish(mut self) -> io::Result<()> {
        if self.format == ResultsFormat::Json {
            self.out.write_all(b"]}}\n")?;
        }
        self.out.flush()
    }

    /// Writes the answer of an `ASK` (in JSON: [`ResultsWriter::new`] refuses the others).
    pub fn boolean(mut self, answer: bool) -> io::Result<()> {
        writeln!(self.out, "{{\"head\":{{}},\"boolean\":{answer}}}")?;
        self.out.flush()
    }
}

/// A data term read back from its N-Triples spelling.
fn parse_term(term: &str) -> io::Result<Term> {
    Term::from_str(term).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the data term {term} is not an RDF term: {e}"),
        )
    })
}

/// A term as SPARQL JSON results write it.
fn json_term(term: &Term) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    let (kind, value) = match term {
        Term::NamedNode(iri) => ("uri", iri.as_str()),
        Term::BlankNode(blank) => ("bnode", blank.as_str()),
        Term::Literal(literal) => {
            if let Some(language) = literal.language() {
                object.insert("xml:lang".into(), language.into());
            } else if literal.datatype() != xsd::STRING {
                object.insert("datatype".into(), literal.datatype().as_str().into());
            }
            ("literal", literal.value())
        }
    };
    object.insert("type".into(), kind.into());
    object.insert("value".into(), value.into());
    serde_json::Value::Object(object)
}

/// A term as SPARQL CSV results write it: IRIs and literals' values bare, blank nodes as
/// `_:label`, quoted where they hold a comma, a quote or a line break.
fn csv_field(term: &Term) -> String {
    let text = match term {
        Term::NamedNode(iri) => iri.as_str().to_string(),
        Term::BlankNode(blank) => blank.to_string(),
        Term::Literal(literal) => literal.value().to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}
