//! RDF shaped like WatDiv: typed entities (users, products, reviews, offers, retailers,
//! purchases, websites, cities, countries, genres, topics...) of WatDiv's vocabularies, 86
//! predicates (`rdf:type` included, [`schema`]), literals with datatypes and languages,
//! written as N-Triples while they are made.
//!
//! The entity kinds that grow with the data (users, products, ...) are scaled so that the
//! expected number of triples is the one asked; the others (240 cities, 25 countries, 145
//! genres, ...) keep their number, so their entities are there at every size. Degrees are
//! skewed: an entity carries 1 to `most` objects of a predicate, `k` of them with chance in
//! proportion to `1/k`, and entities with low numbers are drawn far more often as objects.
//! Entity 0 of each kind carries every predicate of its kind, and its first object of each
//! is entity 0 of the range (`wsdbm:User0 wsdbm:likes wsdbm:Product0`; its class beyond its
//! kind's is class 0 too), so that queries naming them have answers at every size. Each
//! entity draws from a random stream of its own, so the output depends on the seed and the
//! size alone.

mod schema;

use std::io::Write;

use rand_pcg::Pcg64;

use crate::random::{below, stream, unit, Purpose, Zipf};
use crate::{Error, Result};
use schema::{Kind, Property, Range, Size, KINDS, LANGUAGES, PROPERTIES, RDF_TYPE, WORDS};

/// The fewest triples [`write_rdf`] makes: below this, the kinds of fixed size alone
/// would be more than the triples asked.
pub const RDF_MIN_TRIPLES: u64 = 10_000;
/// The most triples [`write_rdf`] makes.
pub const RDF_MAX_TRIPLES: u64 = 1 << 40;
/// The predicates of the generated data, `rdf:type` included.
pub const RDF_PREDICATES: usize = 86;

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// What [`write_rdf`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdfSpec {
    /// The triples aimed at: the output has this many within 5 %.
    pub triples: u64,
    /// The seed: the same spec gives the same triples on every platform.
    pub seed: u64,
}

/// What [`write_rdf`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdfSummary {
    /// Triples written (all distinct).
    pub triples: u64,
    /// Entities (IRIs of WatDiv's kinds) described.
    pub entities: u64,
}

/// Writes the triples of `spec` to `out` as N-Triples, one a line.
///
/// # Errors
/// [`Error::Invalid`] for a number of triples outside [`RDF_MIN_TRIPLES`] to
/// [`RDF_MAX_TRIPLES`]; [`Error::Io`] when `out` fails.
pub fn write_rdf<W: Write>(spec: &RdfSpec, mut out: W) -> Result<RdfSummary> {
    if !(RDF_MIN_TRIPLES..=RDF_MAX_TRIPLES).contains(&spec.triples) {
        return Err(Error::Invalid(format!(
            "{} triples asked: the RDF generator makes {RDF_MIN_TRIPLES} to {RDF_MAX_TRIPLES}",
            spec.triples
        )));
    }
    let sizes = sizes_for(spec.triples);
    let mut writer = Triples {
        sizes,
        out: &mut out,
        triples: 0,
    };
    for (k, &(kind, name, _, subclasses)) in KINDS.iter().enumerate() {
        let properties: Vec<(&Property, Option<Zipf>)> = PROPERTIES
            .iter()
            .filter(|p| p.domain == kind)
            .map(|p| {
                let most = most_objects(p, &sizes);
                (p, (most > 1).then(|| Zipf::new(most)))
            })
            .collect();
        for i in 0..sizes[k] {
            let mut rng = stream(spec.seed, Purpose::Rdf, k as u64, i);
            let subject = entity(name, i);
            writer.triple(&subject, RDF_TYPE, &format!("<{}{name}>", schema::WSDBM))?;
            if let Some((class, count)) = subclasses {
                let c = match i {
                    0 => 0,
                    _ => popular(&mut rng, u64::from(count)),
                };
                writer.triple(
                    &subject,
                    RDF_TYPE,
                    &format!("<{}{class}{c}>", schema::WSDBM),
                )?;
            }
            for (property, counts) in &properties {
                if i > 0 && below(&mut rng, 100) >= u64::from(property.percent) {
                    continue;
                }
                let wanted = counts
                    .as_ref()
                    .map_or(1, |z| z.sample(&mut rng) as usize + 1);
                for object in writer.objects(property, kind, i, wanted, &mut rng) {
                    match property.owned {
                        true => writer.triple(&object, property.predicate, &subject)?,
                        false => writer.triple(&subject, property.predicate, &object)?,
                    }
                }
            }
        }
    }
    writer.out.flush()?;
    Ok(RdfSummary {
        triples: writer.triples,
        entities: sizes.iter().sum(),
    })
}

/// The triples written so far, to `out`.
struct Triples<'w, W: Write> {
    sizes: [u64; KINDS.len()],
    out: &'w mut W,
    triples: u64,
}

impl<W: Write> Triples<'_, W> {
    /// Writes `subject <predicate> object .`; the terms are spelled as N-Triples.
    fn triple(&mut self, subject: &str, predicate: &str, object: &str) -> Result<()> {
        writeln!(self.out, "{subject} <{predicate}> {object} .")?;
        self.triples += 1;
        Ok(())
    }

    /// Up to `wanted` distinct objects of `property` for entity `i` of `kind`: fewer when
    /// repeated draws find no new one.
    fn objects(
        &self,
        property: &Property,
        kind: Kind,
        i: u64,
        wanted: usize,
        rng: &mut Pcg64,
    ) -> Vec<String> {
        let mut objects: Vec<String> = Vec::with_capacity(wanted);
        for _ in 0..4 * wanted + 8 {
            if objects.len() == wanted {
                break;
            }
            let object = match property.range {
                Range::Entity(of) => {
                    let j = match i == 0 && objects.is_empty() {
                        true => 0,
                        false => popular(rng, self.sizes[of as usize]),
                    };
                    if of == kind && j == i {
                        continue;
                    }
                    entity(KINDS[of as usize].1, j)
                }
                Range::Text { tagged } => {
                    let words: Vec<&str> = (0..3)
                        .map(|_| WORDS[below(rng, WORDS.len() as u64) as usize])
                        .collect();
                    match tagged {
                        true => {
                            let language = LANGUAGES[popular(rng, LANGUAGES.len() as u64) as usize];
                            format!("\"{}\"@{language}", words.join(" "))
                        }
                        false => format!("\"{}\"", words.join(" ")),
                    }
                }
                Range::Name => {
                    let local = property.predicate.rsplit(['/', '#']).next().unwrap_or("");
                    format!("\"{}{i} {local}\"", KINDS[kind as usize].1)
                }
                Range::Integer(max) => {
                    format!("\"{}\"^^<{XSD}integer>", below(rng, u64::from(max)))
                }
                Range::Decimal => {
                    // The last digit is never 0: the form is canonical, as stores give it back.
                    let cents = 10 * below(rng, 10_000) + 1 + below(rng, 9);
                    format!("\"{}.{:02}\"^^<{XSD}decimal>", cents / 100, cents % 100)
                }
                Range::Date => format!(
                    "\"{}-{:02}-{:02}\"^^<{XSD}date>",
                    2000 + below(rng, 16),
                    1 + below(rng, 12),
                    1 + below(rng, 28)
                ),
            };
            if !objects.contains(&object) {
                objects.push(object);
            }
        }
        objects
    }
}

/// The IRI of entity `i` of the kind named `name`.
fn entity(name: &str, i: u64) -> String {
    format!("<{}{name}{i}>", schema::WSDBM)
}

/// One of `0..n`, low numbers far more often: the chance of one below `x·n` is `sqrt(x)`.
fn popular(rng: &mut Pcg64, n: u64) -> u64 {
    let u = unit(rng);
    ((u * u * n as f64) as u64).min(n - 1)
}

/// The most objects an entity has of `property` with the kinds of `sizes`: a quarter of
/// the range's entities at most.
fn most_objects(property: &Property, sizes: &[u64; KINDS.len()]) -> u32 {
    match property.range {
        Range::Entity(of) => {
            let quarter = (sizes[of as usize] / 4).max(1);
            property
                .most
                .min(u32::try_from(quarter).unwrap_or(u32::MAX))
        }
        _ => property.most,
    }
}

/// The number of entities of each kind at `scale` units.
fn sizes_at(scale: f64) -> [u64; KINDS.len()] {
    KINDS.map(|(_, _, size, _)| match size {
        Size::PerUnit(n) => ((f64::from(n) * scale).round() as u64).max(1),
        Size::Fixed(n) => u64::from(n),
    })
}

/// The triples expected of the kinds of `sizes` (draws that find no new object aside).
fn expected_triples(sizes: &[u64; KINDS.len()]) -> f64 {
    let types: f64 = KINDS
        .iter()
        .zip(sizes)
        .map(|((_, _, _, subclasses), &n)| n as f64 * if subclasses.is_some() { 2.0 } else { 1.0 })
        .sum();
    let properties: f64 = PROPERTIES
        .iter()
        .map(|p| {
            let n = sizes[p.domain as usize] as f64;
            let carriers = 1.0 + (n - 1.0) * f64::from(p.percent) / 100.0;
            // Objects k in 1..=m with chance in proportion to 1/k: m / H(m) on average.
            let m = most_objects(p, sizes);
            let harmonic: f64 = (1..=m).map(|k| 1.0 / f64::from(k)).sum();
            carriers * f64::from(m) / harmonic
        })
        .sum();
    types + properties
}

/// The sizes whose expected triples are closest to `triples`: the scale found by bisection.
fn sizes_for(triples: u64) -> [u64; KINDS.len()] {
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while expected_triples(&sizes_at(high)) < triples as f64 {
        high *= 2.0;
    }
    for _ in 0..60 {
        let middle = (low + high) / 2.0;
        match expected_triples(&sizes_at(middle)) < triples as f64 {
            true => low = middle,
            false => high = middle,
        }
    }
    sizes_at(high)
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    fn generate(triples: u64, seed: u64) -> (Vec<u8>, RdfSummary) {
        let mut out = Vec::new();
        let summary = write_rdf(&RdfSpec { triples, seed }, &mut out).unwrap();
        (out, summary)
    }

    /// Each line's subject, predicate and object.
    fn triples(text: &[u8]) -> Vec<(&str, &str, &str)> {
        std::str::from_utf8(text)
            .unwrap()
            .lines()
            .map(|line| {
                let line = line.strip_suffix(" .").expect("a triple ends with ` .`");
                let (subject, rest) = line.split_once(' ').unwrap();
                let (predicate, object) = rest.split_once(' ').unwrap();
                (subject, predicate, object)
            })
            .collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_triples() {
        let (a, _) = generate(20_000, 7);
        let (b, _) = generate(20_000, 7);
        let (c, _) = generate(20_000, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_triples_are_as_many_as_asked_within_five_percent() {
        for (triples, seed) in [(10_000, 0), (20_000, 1), (100_000, 2), (1_000_000, 3)] {
            let (text, summary) = generate(triples, seed);
            assert_eq!(
                summary.triples as usize,
                text.iter().filter(|&&b| b == b'\n').count()
            );
            let ratio = summary.triples as f64 / triples as f64;
            assert!((0.95..=1.05).contains(&ratio), "{triples}: {summary:?}");
        }
    }

    #[test]
    fn every_predicate_is_used_and_no_triple_repeats() {
        let (text, _) = generate(20_000, 3);
        let triples = triples(&text);
        let predicates: HashSet<&str> = triples.iter().map(|t| t.1).collect();
        let schema: HashSet<String> = PROPERTIES
            .iter()
            .map(|p| format!("<{}>", p.predicate))
            .chain([format!("<{RDF_TYPE}>")])
            .collect();
        assert_eq!(schema.len(), RDF_PREDICATES);
        assert_eq!(predicates.len(), RDF_PREDICATES);
        assert!(predicates.iter().all(|p| schema.contains(*p)));
        let distinct: HashSet<_> = triples.iter().collect();
        assert_eq!(distinct.len(), triples.len());
        assert!(triples.iter().all(|(s, _, o)| s != o));
    }

    #[test]
    fn literals_have_datatypes_and_languages() {
        let (text, _) = generate(20_000, 4);
        let triples = triples(&text);
        for suffix in ["integer>", "decimal>", "date>", "@en", "@de"] {
            assert!(
                triples.iter().any(|t| t.2.ends_with(suffix)),
                "no literal ending {suffix}"
            );
        }
        assert!(triples
            .iter()
            .any(|t| t.2.starts_with('"') && t.2.ends_with('"')));
    }

    #[test]
    fn degrees_are_skewed() {
        let (text, _) = generate(100_000, 5);
        let mut in_degree: HashMap<&str, usize> = HashMap::new();
        let mut out_degree: HashMap<&str, usize> = HashMap::new();
        for (s, p, o) in triples(&text) {
            if p.ends_with("friendOf>") {
                *in_degree.entry(o).or_default() += 1;
                *out_degree.entry(s).or_default() += 1;
            }
        }
        for degrees in [in_degree, out_degree] {
            let max = *degrees.values().max().unwrap() as f64;
            let mean = degrees.values().sum::<usize>() as f64 / degrees.len() as f64;
            assert!(max > 5.0 * mean, "max {max}, mean {mean}");
        }
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        for triples in [0, RDF_MIN_TRIPLES - 1, RDF_MAX_TRIPLES + 1] {
            let err = write_rdf(&RdfSpec { triples, seed: 0 }, Vec::new()).unwrap_err();
            assert!(err.to_string().contains("triples"), "{err}");
        }
    }
}
