//! RDF N-Triples as a directed, labelled graph.
//!
//! ```text
//! # comment
//! <http://ex/alice> <http://ex/knows> <http://ex/bob> .
//! <http://ex/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
//! _:b0 <http://ex/name> "Bob"@en .
//! <http://ex/bob> <http://ex/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
//! ```
//!
//! Each triple is mapped to the graph as [`rdf`](super::rdf) says, every term named exactly as
//! written here.

use std::path::Path;

use crate::formats::rdf::TripleGraph;
use crate::formats::{empty, Format, Lines, LoadedGraph};
use crate::{Error, Result};

/// Parses N-Triples from `bytes`; `path` only names the file in errors.
///
/// # Errors
/// [`Error::Parse`] for a malformed line, [`Error::Invalid`] when the file is empty.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<LoadedGraph> {
    let mut lines = Lines::new(path, bytes);
    let mut graph = TripleGraph::new();
    let mut any_line = false;

    while let Some((line, text)) = lines.next_line()? {
        // The grammar ends a line with any run of CR and LF, so a CR alone ends one too.
        for text in text.split('\r') {
            let mut cursor = Cursor {
                text,
                at: 0,
                line,
                path,
            };
            if cursor.at_end_or_comment() {
                any_line |= cursor.at < text.len();
                continue;
            }
            any_line = true;
            let subject = cursor.term("subject", &[Kind::Iri, Kind::Blank])?;
            let predicate = cursor.term("predicate", &[Kind::Iri])?;
            let object = cursor.term("object", &[Kind::Iri, Kind::Blank, Kind::Literal])?;
            cursor.end_of_triple()?;
            graph
                .add(subject, predicate, object)
                .map_err(|message| cursor.error(message))?;
        }
    }
    if !any_line {
        return Err(empty(path, bytes, "triples `<s> <p> <o> .`"));
    }
    graph.finish(Format::NTriples)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Iri,
    Blank,
    Literal,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Iri => "an iri `<...>`",
            Kind::Blank => "a blank node `_:x`",
            Kind::Literal => "a literal `\"...\"`",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Iri => "an iri",
            Kind::Blank => "a blank node",
            Kind::Literal => "a literal",
        }
    }
}

/// Reads the terms of one line.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn error(&self, message: String) -> Error {
        Error::Parse {
            path: self.path.to_path_buf(),
            line: self.line,
            message,
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn skip_space(&mut self) {
        while matches!(self.bytes().get(self.at), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn at_end_or_comment(&mut self) -> bool {
        self.skip_space();
        matches!(self.bytes().get(self.at), None | Some(b'#'))
    }

    /// What follows, for error messages: the next word, shortened.
    fn shown(&self) -> String {
        let rest = &self.text[self.at..];
        let word = rest.split([' ', '\t']).next().unwrap_or_default();
        let short: String = word.chars().take(40).collect();
        if short.len() < word.len() {
            format!("{short}...")
        } else {
            short
        }
    }

    /// Reads one term of an allowed kind and returns it as written.
    fn term(&mut self, what: &str, allowed: &[Kind]) -> Result<&'a str> {
        self.skip_space();
        let start = self.at;
        let expected = || {
            let names: Vec<&str> = allowed.iter().map(|k| k.name()).collect();
            match names.as_slice() {
                [one] => one.to_string(),
                [init @ .., last] => format!("{} or {last}", init.join(", ")),
                [] => String::new(),
            }
        };
        let kind = match self.bytes().get(self.at) {
            None | Some(b'#') => {
                return Err(self.error(format!("missing the {what}: expected {}", expected())))
            }
            Some(b'<') => Kind::Iri,
            Some(b'_') if self.bytes().get(self.at + 1) == Some(&b':') => Kind::Blank,
            Some(b'"') => Kind::Literal,
            Some(_) => {
                return Err(self.error(format!(
                    "expected {} as the {what}, found `{}`",
                    expected(),
                    self.shown()
                )))
            }
        };
        if !allowed.contains(&kind) {
            return Err(self.error(format!(
                "the {what} must be {}, found {} `{}`",
                expected(),
                kind.short(),
                self.shown()
            )));
        }
        match kind {
            Kind::Iri => self.iri(what)?,
            Kind::Blank => self.blank(what)?,
            Kind::Literal => self.literal(what)?,
        }
        Ok(&self.text[start..self.at])
    }

    /// Reads `<...>`: the grammar's IRIREF, which allows no control character, space or any
    /// of `<>"{}|^`\` inside, except `\uXXXX` and `\UXXXXXXXX` escapes.
    fn iri(&mut self, what: &str) -> Result<()> {
        let bytes = self.bytes();
        let mut i = self.at + 1;
        loop {
            match bytes.get(i) {
                Some(b'>') => break,
                None | Some(b' ' | b'\t') => {
                    return Err(self.error(format!(
                        "the iri of the {what} has no closing `>`: expected `<...>` without spaces"
                    )))
                }
                Some(b'\\') => {
                    let digits = match bytes.get(i + 1) {
                        Some(b'u') => 4,
                        Some(b'U') => 8,
                        _ => 0,
                    };
                    let hex = bytes.get(i + 2..i + 2 + digits);
                    if digits == 0 || !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                        return Err(self.error(format!(
                            "the iri of the {what} holds a `\\` that is not a `\\uXXXX` or `\\UXXXXXXXX` escape"
                        )));
                    }
                    i += 2 + digits;
                }
                Some(&b) if b < 0x20 || b"<\"{}|^`".contains(&b) => {
                    let shown = if b < 0x20 {
                        format!("the control character {:#04x}", b)
                    } else {
                        format!("`{}`", b as char)
                    };
                    return Err(self.error(format!(
                        "the iri of the {what} holds {shown}, which an iri may not hold"
                    )));
                }
                Some(_) => i += 1,
            }
        }
        self.at = i + 1;
        Ok(())
    }

    fn blank(&mut self, what: &str) -> Result<()> {
        let start = self.at;
        self.at += 2;
        while let Some(&b) = self.bytes().get(self.at) {
            if matches!(b, b' ' | b'\t' | b'<' | b'"' | b'#') {
                break;
            }
            self.at += 1;
        }
        // A label may hold dots but not end with one: a final dot ends the triple.
        while self.at > start + 2 && self.bytes()[self.at - 1] == b'.' {
            self.at -= 1;
        }
        if self.at == start + 2 {
            return Err(self.error(format!(
                "the blank node of the {what} has no label: expected `_:label`"
            )));
        }
        Ok(())
    }

    fn literal(&mut self, what: &str) -> Result<()> {
        let bytes = self.bytes();
        let mut i = self.at + 1;
        loop {
            match bytes.get(i) {
                None => {
                    return Err(self.error(format!("the literal of the {what} has no closing `\"`")))
                }
                Some(b'\\') => {
                    if bytes.get(i + 1).is_none() {
                        return Err(
                            self.error(format!("the literal of the {what} ends in a lone `\\`"))
                        );
                    }
                    i += 2;
                }
                Some(b'"') => break,
                Some(_) => i += 1,
            }
        }
        self.at = i + 1;
        match bytes.get(self.at) {
            Some(b'@') => {
                let tag_start = self.at + 1;
                let mut j = tag_start;
                while bytes
                    .get(j)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-')
                {
                    j += 1;
                }
                if j == tag_start {
                    return Err(self.error(format!(
                        "the literal of the {what} has an empty language tag after `@`"
                    )));
                }
                self.at = j;
            }
            Some(b'^') => {
                if bytes.get(self.at + 1) != Some(&b'^') || bytes.get(self.at + 2) != Some(&b'<') {
                    return Err(self.error(format!(
                        "the literal of the {what} has a malformed datatype: expected `^^<iri>`"
                    )));
                }
                self.at += 2;
                self.iri(&format!("{what}'s datatype"))?;
            }
            _ => {}
        }
        Ok(())
    }

    fn end_of_triple(&mut self) -> Result<()> {
        self.skip_space();
        if self.bytes().get(self.at) != Some(&b'.') {
            return Err(self.error(if self.at >= self.text.len() {
                "missing the `.` that ends the triple".to_string()
            } else {
                format!(
                    "expected `.` to end the triple after the object, found `{}`",
                    self.shown()
                )
            }));
        }
        self.at += 1;
        if !self.at_end_or_comment() {
            return Err(self.error(format!(
                "unexpected `{}` after the `.` that ends the triple",
                self.shown()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::SkippedEdges;
    use crate::Direction;

    fn parse_str(text: &str) -> Result<LoadedGraph> {
        parse(Path::new("g.nt"), text.as_bytes())
    }

    const EXAMPLE: &str = r#"# people
<http://ex/alice> <http://ex/knows> <http://ex/bob> .
<http://ex/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Agent> .
_:b0 <http://ex/name> "Bob \"B\" Smith"@en-GB .
<http://ex/bob> <http://ex/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex/bob> <http://ex/knows> _:b0.
<http://ex/carol> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Agent> .
<http://ex/alice> <http://ex/knows> <http://ex/bob> . # again
<http://ex/bob> <http://ex/knows> <http://ex/bob> .
	<http://ex/bob>	<http://ex/name>	"bob"	.   
"#;

    #[test]
    fn reads_terms_types_and_predicates() {
        let loaded = parse_str(EXAMPLE).unwrap();
        assert_eq!(loaded.format, Format::NTriples);
        let g = &loaded.graph;
        assert!(g.is_directed());
        let names = loaded.names.as_ref().unwrap();
        let v = |name: &str| names.find(name).unwrap();
        let alice = v("<http://ex/alice>");
        let bob = v("http://ex/bob");
        let b0 = v("_:b0");
        let carol = v("<http://ex/carol>");
        let literal = v("\"Bob \\\"B\\\" Smith\"@en-GB");
        let age = v("\"42\"^^<http://www.w3.org/2001/XMLSchema#integer>");
        let bob_name = v("\"bob\"");
        assert_eq!(
            (alice, bob, b0, literal, age, carol, bob_name),
            (0, 1, 2, 3, 4, 5, 6)
        );
        assert_eq!(g.vertex_count(), 7);
        assert_eq!(names.find("<http://ex/Person>"), None);

        let preds = loaded.labels.edge.as_ref().unwrap();
        assert_eq!(
            preds.iter().collect::<Vec<_>>(),
            vec![
                (0, "<http://ex/knows>"),
                (1, "<http://ex/name>"),
                (2, "<http://ex/age>")
            ]
        );
        let classes = loaded.labels.vertex.as_ref().unwrap();
        assert_eq!(classes.find("http://ex/Person"), Some(1));
        assert_eq!(classes.id("<http://ex/Agent>"), Some(2));
        // Every vertex is a resource (label 0); Alice's two types are both her labels too.
        assert_eq!(g.labels_of(alice), &[0, 1, 2]);
        assert_eq!(g.labels_of(carol), &[0, 2]);
        assert_eq!(g.labels_of(bob), &[0]);

        assert_eq!(g.edge_count(), 5);
        assert_eq!(g.neighbors(alice, 0, Direction::Out), &[bob]);
        assert_eq!(g.neighbors(bob, 0, Direction::Out), &[b0]);
        assert_eq!(g.neighbors(b0, 1, Direction::Out), &[literal]);
        assert_eq!(g.neighbors(bob, 1, Direction::Out), &[bob_name]);
        assert_eq!(g.neighbors(age, 2, Direction::In), &[bob]);
        assert_eq!(
            loaded.skipped,
            SkippedEdges {
                duplicates: 1,
                self_loops: 1
            }
        );
    }

    #[test]
    fn only_comments_is_an_empty_graph() {
        let loaded = parse_str("# nothing\n").unwrap();
        assert_eq!(loaded.graph.vertex_count(), 0);
    }

    #[test]
    fn each_malformed_file_names_its_line() {
        let cases = [
            ("", "g.nt: the file is empty: expected triples"),
            ("  \n", "the file is empty"),
            ("<a>\n", "g.nt:1: missing the predicate: expected an iri `<...>`"),
            ("<a> <p>\n", "g.nt:1: missing the object: expected an iri `<...>`, a blank node `_:x` or a literal"),
            ("<a> <p> <o>\n", "g.nt:1: missing the `.` that ends the triple"),
            ("<a> <p> <o> ;\n", "g.nt:1: expected `.` to end the triple after the object, found `;`"),
            ("<a> <p> <o> . x\n", "g.nt:1: unexpected `x` after the `.`"),
            ("<a> <p> <o> . # fine\n<a <p> <o> .\n", "g.nt:2: the iri of the subject has no closing `>`"),
            ("<a> <p> <o\n", "g.nt:1: the iri of the object has no closing `>`"),
            ("a <p> <o> .\n", "g.nt:1: expected an iri `<...>` or a blank node `_:x` as the subject, found `a`"),
            ("\"s\" <p> <o> .\n", "g.nt:1: the subject must be an iri `<...>` or a blank node `_:x`, found a literal"),
            ("<a> _:p <o> .\n", "g.nt:1: the predicate must be an iri `<...>`, found a blank node"),
            ("<a> <p> \"open .\n", "g.nt:1: the literal of the object has no closing `\"`"),
            ("<a> <p> \"x\\", "g.nt:1: the literal of the object ends in a lone `\\`"),
            ("<a> <p> \"x\"@ .\n", "g.nt:1: the literal of the object has an empty language tag"),
            ("<a> <p> \"x\"^<t> .\n", "g.nt:1: the literal of the object has a malformed datatype"),
            ("<a> <p> \"x\"^^<t .\n", "g.nt:1: the iri of the object's datatype has no closing `>`"),
            ("_: <p> <o> .\n", "g.nt:1: the blank node of the subject has no label"),
            ("_:a. <p> <o> .\n", "g.nt:1: expected an iri `<...>` as the predicate, found `.`"),
            ("<a> <p> _:b..\n", "g.nt:1: unexpected `.` after the `.`"),
            ("<a> <p> <o> .\n<b> <p> <\u{0}> .\n", "g.nt:2: this line is not text"),
        ];
        for (text, expected) in cases {
            let msg = parse_str(text).unwrap_err().to_string();
            assert!(
                msg.contains(expected),
                "{text:?}: got `{msg}`, expected `{expected}`"
            );
        }
    }
}
