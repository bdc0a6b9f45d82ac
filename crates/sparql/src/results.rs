//! The W3C result formats, written one solution at a time: SPARQL 1.1 Query Results JSON,
//! XML, TSV and CSV. Terms come as the data file spelled them (N-Triples) and are read with
//! oxrdf's term parser.

use std::borrow::Cow;
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
    /// SPARQL 1.1 Query Results XML.
    Xml,
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
        let boolean = matches!(format, ResultsFormat::Json | ResultsFormat::Xml);
        if *form == Form::Ask && !boolean {
            return Err(Error::Format(
                "ASK results have no TSV or CSV form: use JSON or XML".into(),
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
            ResultsFormat::Xml => {
                write!(self.out, "{XML_START}<head>")?;
                for variable in variables {
                    write!(self.out, "<variable name=\"{}\"/>", xml_text(variable)?)?;
                }
                write!(self.out, "</head><results>")
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
            ResultsFormat::Xml => {
                let mut result = String::from("<result>");
                for (variable, term) in variables.iter().zip(terms) {
                    if let Some(term) = term {
                        let name = xml_text(variable)?;
                        let term = xml_term(&parse_term(term)?)?;
                        result += &format!("<binding name=\"{name}\">{term}</binding>");
                    }
                }
                result += "</result>";
                self.out.write_all(result.as_bytes())?;
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
        match self.format {
            ResultsFormat::Json => self.out.write_all(b"]}}\n")?,
            ResultsFormat::Xml => self.out.write_all(b"</results></sparql>\n")?,
            ResultsFormat::Tsv | ResultsFormat::Csv => {}
        }
        self.out.flush()
    }

    /// Writes the answer of an `ASK` (in JSON or XML: [`ResultsWriter::new`] refuses the
    /// others).
    pub fn boolean(mut self, answer: bool) -> io::Result<()> {
        if self.format == ResultsFormat::Xml {
            writeln!(
                self.out,
                "{XML_START}<head/><boolean>{answer}</boolean></sparql>"
            )?;
        } else {
            writeln!(self.out, "{{\"head\":{{}},\"boolean\":{answer}}}")?;
        }
        self.out.flush()
    }
}

/// A data term read back from its N-Triples spelling.
pub(crate) fn parse_term(term: &str) -> io::Result<Term> {
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

/// The XML declaration and the results' root element, opened.
const XML_START: &str =
    "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">";

/// A term as SPARQL XML results write it.
fn xml_term(term: &Term) -> io::Result<String> {
    Ok(match term {
        Term::NamedNode(iri) => format!("<uri>{}</uri>", xml_text(iri.as_str())?),
        Term::BlankNode(blank) => format!("<bnode>{}</bnode>", xml_text(blank.as_str())?),
        Term::Literal(literal) => {
            let value = xml_text(literal.value())?;
            if let Some(language) = literal.language() {
                let language = xml_text(language)?;
                format!("<literal xml:lang=\"{language}\">{value}</literal>")
            } else if literal.datatype() != xsd::STRING {
                let datatype = xml_text(literal.datatype().as_str())?;
                format!("<literal datatype=\"{datatype}\">{value}</literal>")
            } else {
                format!("<literal>{value}</literal>")
            }
        }
    })
}

/// `text` escaped for XML content or an attribute: markup characters as entities, and a
/// carriage return as a character reference, which a parser would otherwise read as a line
/// feed.
///
/// # Errors
/// [`io::ErrorKind::InvalidData`] for a character that XML 1.0 cannot hold at all.
fn xml_text(text: &str) -> io::Result<Cow<'_, str>> {
    if let Some(c) = text.chars().find(|&c| !in_xml(c)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the term {text:?} holds U+{:04X}, which XML cannot hold: choose JSON, TSV or CSV results",
                u32::from(c)
            ),
        ));
    }
    let escaped = quick_xml::escape::escape(text);
    Ok(if escaped.contains('\r') {
        escaped.replace('\r', "&#13;").into()
    } else {
        escaped
    })
}

/// Whether XML 1.0 can hold `c` (its production `Char`).
fn in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn xml_of(term: &str) -> io::Result<String> {
        xml_term(&parse_term(term)?)
    }

    #[test]
    fn xml_escapes_markup_and_keeps_carriage_returns() {
        assert_eq!(
            xml_of(r#""a<b>&\"c'\r\n"@en"#).unwrap(),
            r#"<literal xml:lang="en">a&lt;b&gt;&amp;&quot;c&apos;&#13;
</literal>"#
        );
        assert_eq!(
            xml_of("\"7\"^^<http://www.w3.org/2001/XMLSchema#integer>").unwrap(),
            r#"<literal datatype="http://www.w3.org/2001/XMLSchema#integer">7</literal>"#
        );
        assert_eq!(
            xml_of("<http://ex/a?b&c>").unwrap(),
            "<uri>http://ex/a?b&amp;c</uri>"
        );
        assert_eq!(xml_of("_:b1").unwrap(), "<bnode>b1</bnode>");
        assert_eq!(xml_of("\"s\"").unwrap(), "<literal>s</literal>");
    }

    #[test]
    fn a_character_xml_cannot_hold_is_refused() {
        let err = xml_of(r#""a\u0001""#).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("U+0001"), "{err}");
    }

    #[test]
    fn ask_has_no_tsv_or_csv_form() {
        for format in [ResultsFormat::Tsv, ResultsFormat::Csv] {
            assert!(ResultsWriter::new(format, &Form::Ask, Vec::new()).is_err());
        }
        assert!(ResultsWriter::new(ResultsFormat::Xml, &Form::Ask, Vec::new()).is_ok());
    }
}
