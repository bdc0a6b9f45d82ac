//! Terms as the data file spelled them, found as RDF compares them.
//!
//! gsi's N-Triples reader names a vertex, a predicate or a class by its term as written, but
//! RDF takes some spellings for one term: escapes (`"a\u0062"` is `"ab"`), a language tag's
//! case (`@en-GB` is `@en-gb`), a string's datatype written out. A term written otherwise than
//! oxrdf writes it is found by oxrdf's spelling too, and a file that spells one term two ways
//! is refused, since gsi's graph holds two vertices (or labels) for it.

use std::collections::HashMap;
use std::str::FromStr;

use gsi_graph::formats::Dictionary;
use oxrdf::Term;
use rayon::prelude::*;

use crate::error::{Error, Result};

/// A dictionary of terms, looked up by RDF term.
#[derive(Clone, Debug)]
pub struct TermIndex<'d> {
    names: &'d Dictionary,
    /// Oxrdf's spelling of each term that the file spelled otherwise.
    respelled: HashMap<String, u32>,
    /// Terms numbered after those of `names`, in their order: the classes, which a solution
    /// binds where a variable predicate is `rdf:type` ([`TermIndex::after`]).
    after: Option<&'d Dictionary>,
}

impl<'d> TermIndex<'d> {
    /// The terms of `names` (`what` names them in messages: "term", "predicate", "class").
    ///
    /// # Errors
    /// [`Error::Data`] when two names spell one term.
    pub fn new(names: &'d Dictionary, what: &str) -> Result<TermIndex<'d>> {
        // Each term's respelling found on every thread (tens of millions of terms at 100 M
        // triples), then checked in order.
        let ids = names.first()..names.first() + names.len() as u32;
        let respellings: Vec<(u32, String)> = ids
            .into_par_iter()
            .filter_map(|id| {
                let name = names.name(id).filter(|name| may_be_respelled(name))?;
                // A term oxrdf cannot read is left as written.
                let term = Term::from_str(name).ok()?;
                let canonical = term.to_string();
                (canonical != name).then_some((id, canonical))
            })
            .collect();
        let mut respelled = HashMap::new();
        for (id, canonical) in respellings {
            let other = names
                .id(&canonical)
                .or_else(|| respelled.get(&canonical).copied());
            if let Some(other) = other {
                let other = names.name(other).unwrap_or_default();
                let name = names.name(id).unwrap_or_default();
                return Err(Error::Data(format!(
                    "the data spells one {what} two ways, {other} and {name}, which gsi would take for two"
                )));
            }
            respelled.insert(canonical, id);
        }
        Ok(TermIndex {
            names,
            respelled,
            after: None,
        })
    }

    /// These terms, then those of `after` numbered from the end of these on.
    pub fn with_after(self, after: &'d Dictionary) -> TermIndex<'d> {
        TermIndex {
            after: Some(after),
            ..self
        }
    }

    /// The number of `after`'s term numbered `id` there, among these terms: its own number
    /// here if it is one of these, else its number after them.
    pub fn after(&self, id: u32) -> Option<u32> {
        let after = self.after?;
        let name = after.name(id)?;
        self.id(name)
            .or_else(|| self.end()?.checked_add(id.checked_sub(after.first())?))
    }

    /// The number of `term`, spelled as oxrdf writes it.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.names
            .id(term)
            .or_else(|| self.respelled.get(term).copied())
    }

    /// The number after the last of these terms.
    fn end(&self) -> Option<u32> {
        self.names
            .first()
            .checked_add(u32::try_from(self.names.len()).ok()?)
    }

    /// Every term's number.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = u32> + 'd {
        self.names.iter().map(|(id, _)| id)
    }

    /// The term numbered `id`, as the file spelled it (a term of [`TermIndex::with_after`]
    /// past these).
    pub fn name(&self, id: u32) -> Option<&'d str> {
        self.names.name(id).or_else(|| {
            let past = id.checked_sub(self.end()?)?;
            let after = self.after?;
            after.name(past.checked_add(after.first())?)
        })
    }
}

/// Whether oxrdf may write `name` otherwise: it holds an escape, a language tag, a control
/// character or a datatype that a plain string leaves out.
fn may_be_respelled(name: &str) -> bool {
    name.bytes()
        .any(|b| matches!(b, b'\\' | b'@' | 0..=0x1f | 0x7f))
        || name.ends_with("#string>")
        || name.contains(['\u{fffe}', '\u{ffff}'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dictionary(names: &[&str]) -> Dictionary {
        let mut dictionary = Dictionary::new(0);
        for name in names {
            dictionary.insert(name);
        }
        dictionary
    }

    #[test]
    fn terms_spelled_otherwise_are_found_as_rdf_writes_them() {
        let names = dictionary(&[
            r#""a\u0062""#,
            r#""x"@en-GB"#,
            r#""s"^^<http://www.w3.org/2001/XMLSchema#string>"#,
            r#"<http://ex/\u0061>"#,
            r#""plain""#,
        ]);
        let index = TermIndex::new(&names, "term").unwrap();
        assert_eq!(index.id(r#""ab""#), Some(0));
        assert_eq!(index.id(r#""x"@en-gb"#), Some(1));
        assert_eq!(index.id(r#""s""#), Some(2));
        assert_eq!(index.id("<http://ex/a>"), Some(3));
        assert_eq!(index.id(r#""plain""#), Some(4));
        assert_eq!(index.id(r#""other""#), None);
        assert_eq!(index.name(0), Some(r#""a\u0062""#));
    }

    #[test]
    fn one_term_spelled_two_ways_is_refused() {
        for pair in [
            [r#""ab""#, r#""a\u0062""#],
            [r#""x"@en-GB"#, r#""x"@en-gb"#],
            [r#""x"@EN"#, r#""x"@en"#],
            [
                r#""s""#,
                r#""s"^^<http://www.w3.org/2001/XMLSchema#string>"#,
            ],
        ] {
            let names = dictionary(&pair);
            let err = TermIndex::new(&names, "term").unwrap_err().to_string();
            assert!(err.contains("spells one term two ways"), "{err}");
        }
    }
}
