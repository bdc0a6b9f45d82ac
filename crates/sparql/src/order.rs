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
    /// Sort keys per solution.
    keys: usize,
    rows: Vec<VertexId>,
    count: usize,
    /// Bytes the solutions and their sort may take.
    budget: usize,
}

impl Held {
    /// No solutions yet, of `width` query vertices, to be sorted by `keys` keys within
    /// `budget` bytes.
    pub fn new(width: usize, keys: usize, budget: usize) -> Held {
        Held {
            width,
            keys,
            rows: Vec::new(),
            count: 0,
            budget,
        }
    }

    /// Bytes that `count` solutions and their sort take: the rows, each row's ranks and
    /// its place in the order.
    fn bytes(&self, count: usize) -> usize {
        let vertex = std::mem::size_of::<VertexId>();
        let per_row = self.width * vertex + self.keys * std::mem::size_of::<u32>();
        count.saturating_mul(per_row + std::mem::size_of::<usize>())
    }

    fn solution(&self, i: usize) -> &[VertexId] {
        &self.rows[i * self.width..(i + 1) * self.width]
    }

    /// The solutions sorted by `keys` (as many as [`Held::new`] was told), most significant
    /// first.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidData`] for a data term that is not an RDF term.
    pub fn sorted<'h>(
        &'h self,
        keys: &[Key],
        vertices: &TermIndex<'_>,
    ) -> io::Result<impl Iterator<Item = &'h [VertexId]>> {
        let ranks = &self.ranks(keys, vertices)?;
        // Each row's ranks, one per key; a descending key's rank reversed.
        let ranked: Vec<u32> = (0..self.count)
            .flat_map(|i| {
                let row = self.solution(i);
                keys.iter().map(move |key| {
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
        let mut order: Vec<usize> = (0..self.count).collect();
        order.sort_by(|&a, &b| of(a).cmp(of(b)));
        Ok(order.into_iter().map(|i| self.solution(i)))
    }

    /// The rank in SPARQL's order of each data vertex that a key binds (equal terms, blank
    /// nodes, share one).
    fn ranks(&self, keys: &[Key], vertices: &TermIndex<'_>) -> io::Result<HashMap<VertexId, u32>> {
        let mut bound: Vec<VertexId> = (0..self.count)
            .flat_map(|i| keys.iter().map(move |key| self.solution(i)[key.vertex]))
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
}

impl Rows for Held {
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()> {
        let bytes = self.bytes(self.count + 1);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holding_past_the_budget_is_an_error() {
        // A row of 2 vertices with 1 key takes 8 + 4 bytes, and 8 for its place.
        let mut held = Held::new(2, 1, 50);
        held.row(&[0, 1]).unwrap();
        held.row(&[1, 2]).unwrap();
        let err = held.row(&[2, 3]).unwrap_err();
        assert!(
            matches!(
                err,
                gsi_core::Error::MemoryLimit {
                    matches: 2,
                    bytes: 60,
                    budget: 50
                }
            ),
            "{err}"
        );
    }
}
