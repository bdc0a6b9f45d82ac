//! `ORDER BY`: the solutions are held (within the memory budget), then given back sorted by
//! their keys' terms in SPARQL's order ([`SortTerm`]); equal keys keep the order found.

use std::collections::HashMap;
use std::io;

use gsi_graph::VertexId;

use crate::compare::SortTerm;
use crate::results::parse_term;
use crate::rows::Rows;
use crate::spelling::TermIndex;

/// One sort key: the query vertex of its variable, and whether it descends.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub vertex: usize,
    pub descending: bool,
}

/// Solutions held for sorting: whole matches, `width` query vertices each.
pub struct Held {
    width: usize,
    rows: Vec<VertexId>,
    count: usize,
    /// Bytes the rows may take.
    budget: usize,
}

impl Held {
    /// No solutions yet, of `width` query vertices, to be held in `budget` bytes.
    pub fn new(width: usize, budget: usize) -> Held {
        Held {
            width,
            rows: Vec::new(),
            count: 0,
            budget,
        }
    }

    /// The solutions sorted by `keys`, most significant first.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidData`] for a data term that is not an RDF term.
    pub fn sorted(&self, keys: &[Key], vertices: &TermIndex<'_>) -> io::Result<Vec<&[VertexId]>> {
        let rows: Vec<&[VertexId]> = if self.width == 0 {
            vec![&[]; self.count]
        } else {
            self.rows.chunks_exact(self.width).collect()
        };
        let ranks = ranks(&rows, keys, vertices)?;
        // Each row's ranks, one per key; a descending key's rank reversed.
        let ranked: Vec<u32> = rows
            .iter()
            .flat_map(|row| {
                keys.iter().map(|key| {
                    let rank = ranks[&row[key.vertex]];
                    if key.descending {
                        u32::MAX - rank
                    } else {
                        rank
                    }
                })
            })
            .collect();
        let of = |i: usize| &ranked[i * keys.len()..(i + 1) * keys.len()];
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| of(a).cmp(of(b)));
        Ok(order.into_iter().map(|i| rows[i]).collect())
    }
}

/// The rank in SPARQL's order of each data vertex that a key binds in `rows` (equal terms,
/// blank nodes, share one).
fn ranks(
    rows: &[&[VertexId]],
    keys: &[Key],
    vertices: &TermIndex<'_>,
) -> io::Result<HashMap<VertexId, u32>> {
    let mut bound: Vec<VertexId> = rows
        .iter()
        .flat_map(|row| keys.iter().map(|key| row[key.vertex]))
        .collect();
    bound.sort_unstable();
    bound.dedup();
    let mut places = Vec::with_capacity(bound.len());
    for v in bound {
        let term = vertices.name(v).map(parse_term).transpose()?;
        places.push((SortTerm::of(term.as_ref()), v));
    }
    places.sort_unstable();
    let mut ranks = HashMap::with_capacity(places.len());
    let mut rank = 0;
    for (i, (place, v)) in places.iter().enumerate() {
        if i > 0 && *place != places[i - 1].0 {
            rank += 1;
        }
        ranks.insert(*v, rank);
    }
    Ok(ranks)
}

impl Rows for Held {
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()> {
        let bytes = (self.rows.len() + row.len()) * std::mem::size_of::<VertexId>();
        if bytes > self.budget {
            return Err(gsi_core::Error::MemoryLimit {
                matches: self.count as u64,
                bytes,
                budget: self.budget,
            });
        }
        self.rows.extend_from_slice(row);
        self.count += 1;
        Ok(())
    }
}
