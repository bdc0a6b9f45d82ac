//! The kept sets of the GPU's depth-first count (`gsi_join_depth_first`): which levels keep
//! their set of candidates for later ones. A level whose linking edges include every linking
//! edge of an earlier level draws its candidates from that level's set, which already passed
//! those edges, and tests only the rest: a k-clique's level intersects one more list instead
//! of all of them again (how gMatch and clique counters reuse their intersections). Only
//! sets that are real intersections (two links or more) are worth keeping.

use super::layout::Link;

/// Levels (steps) that may keep a set or draw from one: the kernel keeps each level's kept
/// state in shared memory.
pub const KEPT_LEVELS: usize = 8;
/// No slot: the level keeps no set, or draws from none.
pub const NO_SLOT: u32 = u32::MAX;

/// What one level does with kept sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeptSet {
    /// The slot where the level keeps the set of its candidates that pass its links.
    pub(super) set_slot: u32,
    /// The slot of the earlier level's set it draws from.
    pub(super) parent_slot: u32,
    /// Which of its links (bit k: link k) the parent's set guarantees.
    pub(super) inherited: u32,
}

impl KeptSet {
    pub(super) const NONE: KeptSet = KeptSet {
        set_slot: NO_SLOT,
        parent_slot: NO_SLOT,
        inherited: 0,
    };
}

/// The kept sets of a plan whose steps read `links` (each step's linking edges, the first
/// edge first, absent edges left out), for the levels before `levels` (the leaf suffix is
/// counted, not entered). Returns each step's and the number of slots.
pub(super) fn kept_sets(links: &[&[Link]], levels: usize) -> (Vec<KeptSet>, usize) {
    let levels = levels.min(links.len()).min(KEPT_LEVELS);
    let mut kept = vec![KeptSet::NONE; links.len()];
    let mut slots = 0;
    for s in 0..levels {
        // The earlier level with most links that are all s's own (the latest of equals).
        let parent = (0..s)
            .filter(|&p| links[p].len() >= 2 && links[p].iter().all(|l| links[s].contains(l)))
            .max_by_key(|&p| (links[p].len(), p));
        let Some(p) = parent else {
            continue;
        };
        if kept[p].set_slot == NO_SLOT {
            kept[p].set_slot = slots;
            slots += 1;
        }
        kept[s].parent_slot = kept[p].set_slot;
        kept[s].inherited = links[s]
            .iter()
            .enumerate()
            .filter(|&(k, l)| k < 32 && links[p].contains(l))
            .fold(0, |bits, (k, _)| bits | 1 << k);
    }
    (kept, slots as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(column: u32) -> Link {
        Link {
            column,
            ..Link::default()
        }
    }

    #[test]
    fn a_cliques_levels_draw_each_from_the_one_before() {
        // A 5-clique: level s links to columns 0..s.
        let lists: Vec<Vec<Link>> = (0..5).map(|s| (0..s).map(link).collect()).collect();
        let views: Vec<&[Link]> = lists.iter().map(Vec::as_slice).collect();
        let (kept, slots) = kept_sets(&views, 5);
        assert_eq!(slots, 2);
        assert_eq!(kept[0], KeptSet::NONE);
        assert_eq!(kept[1], KeptSet::NONE);
        assert_eq!((kept[2].set_slot, kept[2].parent_slot), (0, NO_SLOT));
        assert_eq!((kept[3].set_slot, kept[3].parent_slot), (1, 0));
        assert_eq!(kept[3].inherited, 0b011);
        assert_eq!((kept[4].set_slot, kept[4].parent_slot), (NO_SLOT, 1));
        assert_eq!(kept[4].inherited, 0b0111);
    }

    #[test]
    fn only_intersections_whose_links_a_level_shares_are_kept() {
        // A 4-cycle (0-1, 1-2, 2-3, 3-0): no level's links include two of another's.
        let lists = [vec![], vec![link(0)], vec![link(1)], vec![link(0), link(2)]];
        let views: Vec<&[Link]> = lists.iter().map(Vec::as_slice).collect();
        assert_eq!(kept_sets(&views, 4), (vec![KeptSet::NONE; 4], 0));
        // The same link to another partition (another label) is another list.
        let other = Link {
            column: 0,
            ci_base: 7,
            ..Link::default()
        };
        let lists = [
            vec![],
            vec![link(0)],
            vec![link(0), link(1)],
            vec![other, link(1), link(2)],
        ];
        let views: Vec<&[Link]> = lists.iter().map(Vec::as_slice).collect();
        assert_eq!(kept_sets(&views, 4), (vec![KeptSet::NONE; 4], 0));
        // Levels from `levels` on (the leaf suffix) neither keep nor draw.
        let lists: Vec<Vec<Link>> = (0..4).map(|s| (0..s).map(link).collect()).collect();
        let views: Vec<&[Link]> = lists.iter().map(Vec::as_slice).collect();
        assert_eq!(kept_sets(&views, 3), (vec![KeptSet::NONE; 4], 0));
    }
}
