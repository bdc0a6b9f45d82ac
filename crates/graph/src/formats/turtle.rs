//! RDF Turtle as a directed, labelled graph, parsed by `oxttl`.
//!
//! ```text
//! @prefix ex: <http://ex/> .
//! ex:alice a ex:Person, ex:Agent ;
//!     ex:knows ex:bob, [ ex:name "Bob"@en ] .
//! ex:bob ex:age 42 .
//! ```
//!
//! Each triple is mapped to the graph as [`rdf`](super::rdf) says, every term named as
//! canonical N-Triples spells it: prefixed names and relative IRIs (against `@base`; without
//! one they are an error) become `<iri>`, `a` is `rdf:type`, `42` is
//! `"42"^^<http://www.w3.org/2001/XMLSchema#integer>`, a literal's escapes are those N-Triples
//! needs alone, a language tag in lower case. A labelled blank node keeps its label; `[]` gets a fresh one from the parser.

use std::fmt::Write;
use std::path::Path;

use oxttl::{TurtleParser, TurtleSyntaxError};

use crate::formats::rdf::TripleGraph;
use crate::formats::{empty, Format, LoadedGraph};
use crate::{Error, Result};

/// Parses Turtle from `bytes`; `path` only names the file in errors.
///
/// # Errors
/// [`Error::Parse`] for malformed Turtle, [`Error::Invalid`] when the file is empty.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<LoadedGraph> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(empty(path, bytes, "Turtle triples"));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut graph = TripleGraph::new();
    let [mut subject, mut predicate, mut object] = [String::new(), String::new(), String::new()];
    for triple in TurtleParser::new().for_slice(bytes) {
        let triple = triple.map_err(|err| syntax_error(path, &err))?;
        subject.clear();
        predicate.clear();
        object.clear();
        write!(subject, "{}", triple.subject).expect("writing to a string");
        write!(predicate, "{}", triple.predicate).expect("writing to a string");
        write!(object, "{}", triple.object).expect("writing to a string");
        graph
            .add(&subject, &predicate, &object)
            .map_err(|message| Error::Invalid {
                path: path.to_path_buf(),
                message,
            })?;
    }
    graph.finish(Format::Turtle)
}

/// The parser's error at its line, with the column.
fn syntax_error(path: &Path, err: &TurtleSyntaxError) -> Error {
    let at = err.location().start;
    Error::Parse {
        path: path.to_path_buf(),
        line: usize::try_from(at.line).map_or(usize::MAX, |line| line.saturating_add(1)),
        message: format!("column {}: {}", at.column + 1, err.message()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{ntriples, VertexNames};

    fn parse_str(text: &str) -> Result<LoadedGraph> {
        parse(Path::new("g.ttl"), text.as_bytes())
    }

    /// `loaded`, read from Turtle, is `expected`, read from N-Triples, in all but the format.
    fn assert_same_as_ntriples(loaded: LoadedGraph, ntriples: &str) {
        let expected = ntriples::parse(Path::new("g.nt"), ntriples.as_bytes()).unwrap();
        assert_eq!(loaded.format, Format::Turtle);
        let terms = |g: &LoadedGraph| match &g.names {
            Some(VertexNames::Terms(terms)) => {
                terms.iter().map(|(_, t)| t.to_string()).collect::<Vec<_>>()
            }
            _ => panic!("no terms"),
        };
        assert_eq!(terms(&loaded), terms(&expected));
        assert_eq!(
            LoadedGraph {
                format: Format::NTriples,
                ..loaded
            },
            expected
        );
    }

    #[test]
    fn the_syntax_gives_the_graph_of_its_triples() {
        let turtle = r#"# people
@prefix ex: <http://ex/> .
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
@base <http://ex/base/> .
ex:alice ex:knows ex:bob ; a ex:Person , ex:Agent .
_:b0 ex:name "Bob \"B\" Smith"@en-GB .
ex:bob ex:age 42 ;
    ex:knows _:b0 .
ex:carol a ex:Agent ; ex:weight 1.5, 2e1 ; ex:alive true ; ex:note """two
lines\ttabbed""" .
ex:alice ex:knows ex:bob . # again
ex:bob ex:knows ex:bob ;
    ex:name 'bob'^^xsd:string, "bob"^^<http://ex/dt> ;
    <rel> ex:bob .
"#;
        let ntriples = r#"<http://ex/alice> <http://ex/knows> <http://ex/bob> .
<http://ex/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Agent> .
_:b0 <http://ex/name> "Bob \"B\" Smith"@en-gb .
<http://ex/bob> <http://ex/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex/bob> <http://ex/knows> _:b0 .
<http://ex/carol> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Agent> .
<http://ex/carol> <http://ex/weight> "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://ex/carol> <http://ex/weight> "2e1"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://ex/carol> <http://ex/alive> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://ex/carol> <http://ex/note> "two\nlines\ttabbed" .
<http://ex/alice> <http://ex/knows> <http://ex/bob> .
<http://ex/bob> <http://ex/knows> <http://ex/bob> .
<http://ex/bob> <http://ex/name> "bob" .
<http://ex/bob> <http://ex/name> "bob"^^<http://ex/dt> .
<http://ex/bob> <http://ex/base/rel> <http://ex/bob> .
"#;
        let loaded = parse_str(turtle).unwrap();
        assert_eq!(
            loaded.skipped,
            crate::formats::SkippedEdges {
                duplicates: 1,
                self_loops: 2
            }
        );
        assert_same_as_ntriples(loaded, ntriples);
    }

    #[test]
    fn anonymous_blank_nodes_are_fresh_vertices() {
        let turtle = "@prefix : <http://ex/> .
:a :knows [ :name \"x\" ], [], [ :knows [] ] .
[] :knows :a .
";
        let loaded = parse_str(turtle).unwrap();
        let names = loaded.names.as_ref().unwrap();
        let blanks: Vec<_> = (0..names.len() as u32)
            .map(|v| names.name(v).unwrap().to_string())
            .filter(|name| name.starts_with("_:"))
            .collect();
        assert_eq!(blanks.len(), 5, "{blanks:?}");
        let mut distinct = blanks.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
        assert_eq!(loaded.graph.vertex_count(), 7);
        assert_eq!(loaded.graph.edge_count(), 6);
    }

    #[test]
    fn only_comments_is_an_empty_graph() {
        let loaded = parse_str("# nothing\n@prefix : <http://ex/> .\n").unwrap();
        assert_eq!(loaded.graph.vertex_count(), 0);
    }

    #[test]
    fn malformed_turtle_names_its_line_and_column() {
        let cases = [
            ("", "g.ttl: the file is empty: expected Turtle triples"),
            (" \n\t", "the file is empty"),
            (
                "@prefix : <http://ex/> .\n:a :p :b ;\n:c .\n",
                "g.ttl:3: column ",
            ),
            ("<http://ex/a> <http://ex/p> <b> .\n", "g.ttl:1: column "),
            (
                "@prefix : <http://ex/> .\n\n:a :p ex:b .\n",
                "g.ttl:3: column 7: The prefix ex: has not been declared",
            ),
            ("<http://ex/a> <http://ex/p> \"open .\n", "g.ttl:1: column "),
            ("<http://ex/a> <http://ex/p> <http://ex/b>\n", "g.ttl:"),
            (
                "\u{FEFF}<http://ex/a> <http://ex/p> \"\\q\" .\n",
                "g.ttl:1: column ",
            ),
        ];
        for (text, expected) in cases {
            let msg = parse_str(text).unwrap_err().to_string();
            assert!(
                msg.contains(expected),
                "{text:?}: got `{msg}`, expected `{expected}`"
            );
        }
        let invalid_utf8 = parse(
            Path::new("g.ttl"),
            b"<http://ex/a> <http://ex/p> \"\xff\" .\n",
        );
        assert!(matches!(invalid_utf8, Err(Error::Parse { line: 1, .. })));
    }
}
