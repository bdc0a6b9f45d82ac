//! The weighted homomorphisms of a 2-core made of blocks (its biconnected components, which
//! meet at cut vertices: two cycles joined by a path, say) that no single vertex turns into
//! a forest, but each of whose blocks one vertex does.
//!
//! The blocks form a tree (the block-cut tree). Rooted at one block, every other block hangs
//! from the cut vertex c it shares with its parent, and its homomorphisms with c pinned to
//! each candidate v ([`PinnedCore::values`]) multiply c's weight at v, as the trees hanging
//! from a core multiply their root's ([`super::CoreAndTrees::weights`]): from the leaves of
//! the block-cut tree to its root, whose values are summed. One block is the single-vertex
//! case; a block whose cut vertex toward the root leaves no forest in it takes another root,
//! or the core is joined.

use gsi_graph::Graph;

use super::{induced, pinned::links, PinnedCore};
use crate::candidates::CandidateSets;
use crate::index::DataIndex;

/// A 2-core counted block by block, each block by its program with one vertex pinned.
#[derive(Clone, Debug)]
pub(crate) struct PinnedBlocks {
    /// The blocks, each after the blocks that hang from it: the root last.
    blocks: Vec<Block>,
}

/// One block: its core vertices and its program.
#[derive(Clone, Debug)]
struct Block {
    /// The core vertex of each of the block's vertices.
    vertices: Vec<usize>,
    /// The block as a graph of its own, pinned at its cut vertex toward the root (the root:
    /// at its vertex of fewest candidates that leaves a forest).
    program: PinnedCore,
}

impl PinnedBlocks {
    /// The core `core` counted block by block, rooted at the block that reads the fewest
    /// lists for candidate sets of `sizes`; `None` where no root lets every block be pinned.
    pub(crate) fn of(core: &Graph, sizes: &[usize]) -> Option<PinnedBlocks> {
        let blocks = biconnected_components(core);
        let graphs: Vec<Graph> = blocks
            .iter()
            .map(|block| induced(core, block))
            .collect::<Option<_>>()?;
        let block_sizes = |b: usize| blocks[b].iter().map(|&u| sizes[u]).collect::<Vec<_>>();
        (0..blocks.len())
            .filter_map(|root| {
                let mut ordered = Vec::with_capacity(blocks.len());
                for (b, cut) in hanging_order(&blocks, root) {
                    let program = match cut {
                        Some(cut) => {
                            let at = blocks[b].iter().position(|&u| u == cut)?;
                            PinnedCore::at(&graphs[b], at)?
                        }
                        None => PinnedCore::of(&graphs[b], &block_sizes(b))?,
                    };
                    ordered.push(Block {
                        vertices: blocks[b].clone(),
                        program,
                    });
                }
                let lists: f64 = ordered
                    .iter()
                    .map(|block| block.program.lists(&block.sizes(sizes)))
                    .sum();
                Some((lists, PinnedBlocks { blocks: ordered }))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, blocks)| blocks)
    }

    /// The core vertices pinned: the root block's first, then each hanging block's cut vertex.
    pub(crate) fn pins(&self) -> Vec<usize> {
        self.blocks
            .iter()
            .rev()
            .map(|block| block.vertices[block.program.pinned()])
            .collect()
    }

    /// The programs' work for the core's candidate sets of `sizes`, in the units of
    /// [`crate::tree_count::work`].
    pub(crate) fn work(&self, sizes: &[usize], data: &DataIndex) -> f64 {
        self.blocks
            .iter()
            .map(|block| block.program.work(&block.sizes(sizes), data))
            .sum()
    }

    /// Σ over the core's homomorphisms φ into `sets` (the core's candidate sets) of Π over
    /// its vertices r of `weights`' w_r(φ(r)) (1 where a vertex has none), saturated at
    /// `u128::MAX`; `None` when `stop` says so. Each block's candidate edges are found first
    /// where they fit `edges_budget` bytes ([`PinnedCore::values`]).
    pub(crate) fn count(
        &self,
        sets: &CandidateSets,
        mut weights: Vec<Option<Vec<u128>>>,
        data: &DataIndex,
        edges_budget: Option<usize>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<u128> {
        let (root, hanging) = self.blocks.split_last()?;
        for block in hanging {
            // Its values at its cut vertex hold that vertex's weight already, and are the
            // cut vertex's weight in the blocks above.
            let values = block.values(sets, &mut weights, data, edges_budget, stop)?;
            weights[block.vertices[block.program.pinned()]] = Some(values);
        }
        let values = root.values(sets, &mut weights, data, edges_budget, stop)?;
        Some(values.iter().fold(0u128, |s, &v| s.saturating_add(v)))
    }
}

impl Block {
    /// The candidate set sizes of the block's vertices, from the core's `sizes`.
    fn sizes(&self, sizes: &[usize]) -> Vec<usize> {
        self.vertices.iter().map(|&u| sizes[u]).collect()
    }

    /// The block's program's values ([`PinnedCore::values`]) over the core's `sets`, its
    /// vertices' weights taken from `weights`: each block is the last to read its own (those
    /// of its cut vertices toward the leaves were replaced by their blocks' values before).
    fn values(
        &self,
        sets: &CandidateSets,
        weights: &mut [Option<Vec<u128>>],
        data: &DataIndex,
        edges_budget: Option<usize>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<Vec<u128>> {
        let own: Vec<Option<Vec<u128>>> =
            self.vertices.iter().map(|&u| weights[u].take()).collect();
        self.program
            .values(&sets.select(&self.vertices), &own, data, edges_budget, stop)
    }
}

/// The blocks of `blocks` (vertex sets) rooted at `root`, each after those that hang from it,
/// with the cut vertex it shares with its parent (`None` for the root).
fn hanging_order(blocks: &[Vec<usize>], root: usize) -> Vec<(usize, Option<usize>)> {
    let mut order = vec![(root, None)];
    let mut placed = vec![false; blocks.len()];
    placed[root] = true;
    let mut at = 0;
    while at < order.len() {
        let b = order[at].0;
        at += 1;
        for &cut in &blocks[b] {
            for (other, block) in blocks.iter().enumerate() {
                if !placed[other] && block.contains(&cut) {
                    placed[other] = true;
                    order.push((other, Some(cut)));
                }
            }
        }
    }
    order.reverse();
    order
}

/// The vertex sets of `graph`'s biconnected components (edges' directions, labels and
/// repetitions aside), each sorted (Hopcroft and Tarjan's depth-first search).
fn biconnected_components(graph: &Graph) -> Vec<Vec<usize>> {
    let n = graph.vertex_count();
    let adjacency: Vec<Vec<usize>> = (0..n)
        .map(|u| {
            let mut near: Vec<usize> = links(graph, u)
                .into_iter()
                .map(|(w, _, _)| w)
                .filter(|&w| w != u)
                .collect();
            near.sort_unstable();
            near.dedup();
            near
        })
        .collect();
    // Depth first without recursion (a query may have tens of thousands of vertices): each
    // frame is a vertex, its parent and how many of its neighbours it has looked at.
    let mut reached = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut next = 0;
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut blocks = Vec::new();
    for start in 0..n {
        if reached[start] != usize::MAX {
            continue;
        }
        reached[start] = next;
        low[start] = next;
        next += 1;
        let mut stack = vec![(start, usize::MAX, 0)];
        while let Some(frame) = stack.last_mut() {
            let (u, parent, at) = *frame;
            if let Some(&w) = adjacency[u].get(at) {
                frame.2 += 1;
                if reached[w] == usize::MAX {
                    edges.push((u, w));
                    reached[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push((w, u, 0));
                } else if w != parent && reached[w] < reached[u] {
                    edges.push((u, w));
                    low[u] = low[u].min(reached[w]);
                }
                continue;
            }
            stack.pop();
            if parent == usize::MAX {
                continue;
            }
            low[parent] = low[parent].min(low[u]);
            if low[u] >= reached[parent] {
                // The parent cuts u's subtree off: the edges since (parent, u) are one block.
                let mut block = Vec::new();
                while let Some((a, b)) = edges.pop() {
                    block.extend([a, b]);
                    if (a, b) == (parent, u) {
                        break;
                    }
                }
                block.sort_unstable();
                block.dedup();
                blocks.push(block);
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::{biconnected_components, PinnedBlocks};

    #[test]
    fn two_triangles_joined_by_a_path_are_three_blocks_pinned_at_their_cut_vertices() {
        // Triangles 0-1-2 and 4-5-6, joined by the path 2-3-4.
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 7]);
        for (a, b) in [
            (0, 1),
            (1, 2),
            (2, 0),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 6),
            (6, 4),
        ] {
            builder.add_edge(a, b, 0).expect("an edge");
        }
        let core = builder.build().expect("a graph");
        let mut blocks = biconnected_components(&core);
        blocks.sort();
        assert_eq!(
            blocks,
            [vec![0, 1, 2], vec![2, 3], vec![3, 4], vec![4, 5, 6]]
        );
        let pinned = PinnedBlocks::of(&core, &[5; 7]).expect("each block pins");
        let pins = pinned.pins();
        assert_eq!(pins.len(), 4);
        // Every block but the root is pinned at a cut vertex.
        assert!(pins[1..].iter().all(|p| [2, 3, 4].contains(p)), "{pins:?}");
        // A 4-clique is one block that no vertex pins.
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 4]);
        for (a, b) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            builder.add_edge(a, b, 0).expect("an edge");
        }
        let clique = builder.build().expect("a graph");
        assert_eq!(biconnected_components(&clique), [vec![0, 1, 2, 3]]);
        assert!(PinnedBlocks::of(&clique, &[1; 4]).is_none());
    }
}
