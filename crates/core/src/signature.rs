//! Vertex signatures and the signature table: GSI, ICDE 2020, Sec. 3.2 ("Filtering Phase").
//!
//! A signature is N = 512 bits. The first K = 32 bits hold the vertex label itself (the
//! paper's experiments store the label directly rather than hashing it; gsi then compares it
//! exactly, where the authors' code compares one hashed bit and can over-count). The other
//! 480 bits are 240 groups of two bits; each (edge label, neighbour label) pair of a vertex —
//! and, in a directed graph, the edge's direction — is hashed to one group, which saturates
//! through the states 00 (no pair), 01 (one pair) and 11 (several pairs). A data vertex v can
//! match a query vertex u only if its label equals u's and `S(v) & S(u) == S(u)`.
//!
//! Vertices of several labels (the paper's "Extensions"): every label of a neighbour is
//! hashed into the groups, and the filter finds candidates among the vertices of one of the
//! query vertex's labels and checks that they carry all of them, instead of comparing the
//! first K bits (which then hold the smallest label only).

use gsi_graph::{Buffer, Direction, EdgeLabel, Graph, VertexId, VertexLabel};
use rayon::prelude::*;

use crate::options::{FilterTests, Semantics};
use crate::random::{mix, GOLDEN_GAMMA};

/// Bits in a signature (the paper's N).
pub const SIGNATURE_BITS: usize = 512;
/// 32-bit words in a signature.
pub const SIGNATURE_WORDS: usize = SIGNATURE_BITS / 32;
/// Bits that hold the vertex label (the paper's K).
pub const LABEL_BITS: usize = 32;
/// Two-bit groups for (edge label, neighbour label) pairs: (N - K) / 2.
pub const GROUP_COUNT: usize = (SIGNATURE_BITS - LABEL_BITS) / 2;

/// One vertex's signature: word 0 is the label, words 1.. hold the 2-bit groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signature(pub [u32; SIGNATURE_WORDS]);

/// How many pairs a group must see before it reads "several": under homomorphism two query
/// neighbours may map to one data neighbour, so query signatures must not demand two pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saturation {
    /// 00 -> 01 -> 11, the paper's encoding (data vertices, and query vertices under isomorphism).
    Counting,
    /// 00 -> 01 only (query vertices under homomorphism).
    PresenceOnly,
}

/// The group of an (edge direction, edge label, neighbour label) pair.
///
/// The key is mixed with a 64-bit finaliser (splitmix64) so that nearby labels spread over
/// the groups.
pub fn group_of(direction: Direction, edge_label: EdgeLabel, neighbor_label: VertexLabel) -> usize {
    let dir = match direction {
        Direction::Out => 0u64,
        Direction::In => 1u64,
    };
    let key = (u64::from(edge_label) << 32 | u64::from(neighbor_label)) ^ (dir << 63);
    (mix(key.wrapping_add(GOLDEN_GAMMA)) % GROUP_COUNT as u64) as usize
}

impl Signature {
    /// The signature of vertex `v` of `graph`.
    pub fn of(graph: &Graph, v: VertexId, saturation: Saturation) -> Signature {
        let mut words = [0u32; SIGNATURE_WORDS];
        words[0] = graph.label(v);
        for &direction in graph.directions() {
            let (neighbors, labels) = graph.edges(v, direction);
            // The neighbours' labels lie anywhere in memory: asked for all at once, their
            // reads overlap.
            for &w in neighbors {
                graph.prefetch_labels(w);
            }
            // A neighbour of several labels counts once for each (a query neighbour's
            // labels are among its match's, so the query's counts stay below the data's).
            for (&w, &l) in neighbors.iter().zip(labels) {
                for &neighbor_label in graph.labels_of(w) {
                    let group = group_of(direction, l, neighbor_label);
                    let word = 1 + group / 16;
                    let shift = (group % 16) * 2;
                    let state = (words[word] >> shift) & 0b11;
                    let next = match (state, saturation) {
                        (0b00, _) => 0b01,
                        (_, Saturation::PresenceOnly) => 0b01,
                        _ => 0b11,
                    };
                    words[word] |= next << shift;
                }
            }
        }
        Signature(words)
    }

    /// The vertex label held in the first K bits.
    pub fn label(&self) -> VertexLabel {
        self.0[0]
    }

    /// Whether a data vertex with this signature may match a query vertex with signature
    /// `query`: the labels are equal and every group bit of `query` is set here (for graphs
    /// of one label per vertex: the label word holds the smallest of several).
    pub fn admits(&self, query: &Signature) -> bool {
        self.0[0] == query.0[0]
            && self.0[1..]
                .iter()
                .zip(&query.0[1..])
                .all(|(d, q)| d & q == *q)
    }
}

/// What the filter tests data vertices against, per query vertex: its signature and the
/// fewest out- and in-edges a candidate needs. Both engines' filters start from this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySignatures {
    /// Signature of each query vertex.
    pub signatures: Vec<Signature>,
    /// `[out, in]` edges a candidate of each query vertex needs at least: its degrees under
    /// isomorphism (an injective match needs that many distinct edges), else 0. An
    /// undirected graph keeps only out-edges, so `in` is 0 there.
    pub min_degrees: Vec<[u32; 2]>,
}

impl QuerySignatures {
    /// The signatures and degree floors of every vertex of `query` under `semantics`, as
    /// `tests` asks (without the signature, only the label word is kept).
    pub fn of(query: &Graph, semantics: Semantics, tests: FilterTests) -> QuerySignatures {
        let saturation = match semantics.injective() {
            true => Saturation::Counting,
            false => Saturation::PresenceOnly,
        };
        let vertices = 0..query.vertex_count() as VertexId;
        let signatures = vertices
            .clone()
            .map(|u| {
                let mut signature = Signature::of(query, u, saturation);
                if tests == FilterTests::LabelAndDegree {
                    signature.0[1..].fill(0);
                }
                signature
            })
            .collect();
        let min_degrees = vertices
            .map(|u| {
                let mut floor = [0u32; 2];
                if semantics.injective() {
                    for &d in query.directions() {
                        floor[d as usize] = query.degree(u, d) as u32;
                    }
                }
                floor
            })
            .collect();
        QuerySignatures {
            signatures,
            min_degrees,
        }
    }
}

/// Vertices whose signatures are computed together (4 MiB of them).
const SIGNATURE_BLOCK: usize = 1 << 16;

/// The signatures of all data vertices, column-first (Sec. 3.2, Fig. 4(d)): word `w` of vertex
/// `v` is at `words[w * vertex_count + v]`, so that consecutive threads reading the same word
/// of consecutive vertices make coalesced accesses on the GPU.
#[derive(Clone, Debug)]
pub struct SignatureTable {
    vertex_count: usize,
    /// `SIGNATURE_WORDS * vertex_count` words, column-first.
    words: Buffer<u32>,
}

impl SignatureTable {
    /// Computes the signature of every vertex of `graph` (in parallel), a block of vertices
    /// at a time so that only one block's signatures wait to be spread over the columns.
    pub fn build(graph: &Graph) -> SignatureTable {
        let n = graph.vertex_count();
        let mut words = vec![0u32; SIGNATURE_WORDS * n];
        for block in (0..n).step_by(SIGNATURE_BLOCK) {
            let end = (block + SIGNATURE_BLOCK).min(n);
            let rows: Vec<Signature> = (block as VertexId..end as VertexId)
                .into_par_iter()
                .map(|v| Signature::of(graph, v, Saturation::Counting))
                .collect();
            words.par_chunks_mut(n).enumerate().for_each(|(w, column)| {
                for (slot, row) in column[block..end].iter_mut().zip(&rows) {
                    *slot = row.0[w];
                }
            });
        }
        SignatureTable {
            vertex_count: n,
            words: words.into(),
        }
    }

    /// The table of `words`, as [`SignatureTable::words`] gives them, of `vertex_count`
    /// vertices (a saved index).
    ///
    /// # Errors
    /// The number of words is not `SIGNATURE_WORDS` per vertex.
    pub fn from_parts(vertex_count: usize, words: Buffer<u32>) -> Result<SignatureTable, String> {
        if Some(words.len()) != vertex_count.checked_mul(SIGNATURE_WORDS) {
            return Err("it has another number of words than the vertices need".into());
        }
        Ok(SignatureTable {
            vertex_count,
            words,
        })
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The column-first words, `SIGNATURE_WORDS * vertex_count` of them.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Signature of vertex `v`, gathered from its column.
    pub fn get(&self, v: VertexId) -> Signature {
        let mut s = [0u32; SIGNATURE_WORDS];
        for (w, slot) in s.iter_mut().enumerate() {
            *slot = self.words[w * self.vertex_count + v as usize];
        }
        Signature(s)
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;

    fn star(centre: u32, leaves: &[(u32, u32)]) -> Graph {
        let mut b = GraphBuilder::new(false);
        b.add_vertex(centre);
        for &(vertex_label, edge_label) in leaves {
            let w = b.add_vertex(vertex_label);
            b.add_edge(0, w, edge_label).unwrap();
        }
        b.build().unwrap()
    }

    #[test]
    fn groups_saturate_at_several() {
        let g = star(1, &[(2, 3), (2, 3), (2, 3)]);
        let s = Signature::of(&g, 0, Saturation::Counting);
        let group = group_of(Direction::Out, 3, 2);
        assert_eq!((s.0[1 + group / 16] >> ((group % 16) * 2)) & 3, 0b11);
        let h = Signature::of(&g, 0, Saturation::PresenceOnly);
        assert_eq!((h.0[1 + group / 16] >> ((group % 16) * 2)) & 3, 0b01);
    }

    #[test]
    fn containment_needs_equal_labels_and_enough_pairs() {
        let data = star(1, &[(2, 3), (2, 3), (4, 5)]);
        let two = star(1, &[(2, 3), (2, 3)]);
        let three = star(1, &[(2, 3), (2, 3), (2, 3)]);
        let other_label = star(9, &[(2, 3)]);
        let d = Signature::of(&data, 0, Saturation::Counting);
        assert!(d.admits(&Signature::of(&two, 0, Saturation::Counting)));
        // Two pairs in the data read "several" just as three do: the filter is sound, not exact.
        assert!(d.admits(&Signature::of(&three, 0, Saturation::Counting)));
        assert!(!d.admits(&Signature::of(&other_label, 0, Saturation::Counting)));
        let single = star(1, &[(2, 3)]);
        let s = Signature::of(&single, 0, Saturation::Counting);
        assert!(!s.admits(&Signature::of(&two, 0, Saturation::Counting)));
        assert!(s.admits(&Signature::of(&two, 0, Saturation::PresenceOnly)));
    }

    #[test]
    fn table_is_column_first() {
        let g = star(7, &[(2, 3), (4, 5)]);
        let t = SignatureTable::build(&g);
        for v in 0..3 {
            assert_eq!(t.get(v), Signature::of(&g, v, Saturation::Counting));
            assert_eq!(t.words()[v as usize], g.label(v));
        }
    }

    #[test]
    fn the_label_and_degree_filter_keeps_only_the_label_word() {
        let query = star(3, &[(1, 0), (2, 0), (2, 1)]);
        let full = QuerySignatures::of(&query, Semantics::Isomorphism, FilterTests::Signature);
        let plain =
            QuerySignatures::of(&query, Semantics::Isomorphism, FilterTests::LabelAndDegree);
        assert!(full.signatures[0].0[1..].iter().any(|&w| w != 0));
        for (p, f) in plain.signatures.iter().zip(&full.signatures) {
            assert_eq!(p.label(), f.label());
            assert!(p.0[1..].iter().all(|&w| w == 0));
        }
        assert_eq!(plain.min_degrees, full.min_degrees);
    }
}
