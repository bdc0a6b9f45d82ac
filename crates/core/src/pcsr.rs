//! PCSR, the partitioned CSR of GSI, ICDE 2020, Sec. 4 (Definition 4, Algorithm 1, Claim 1).
//!
//! The data graph is split by edge label (and, for a directed graph, by direction); each
//! partition D keeps only its column index `ci` and replaces CSR's row offsets with |V(D)|
//! hash groups. A group is GPN = 16 pairs of u32 — 128 bytes, one memory transaction for a
//! warp. Pairs 0..14 are `(vertex, offset of its neighbours in ci)`; pair 15 is `(GID, END)`:
//! the group that holds this group's overflow (or [`NO_GROUP`]) and the end in `ci` of the
//! last vertex's neighbours. A vertex's neighbours end where the next pair's begin, or at END
//! after the last pair. Vertices are hashed one-to-one (|V(D)| keys into |V(D)| groups); a group
//! with more than GPN - 1 keys continues in groups that got no key, of which Claim 1 shows
//! there are always enough.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use gsi_graph::{Buffer, Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128_with_seed;

/// Pairs per group (the paper's GPN).
pub const GPN: usize = 16;
/// Vertex keys per group: the last pair is the (GID, END) flag.
pub const KEYS_PER_GROUP: usize = GPN - 1;
/// u32 words per group.
pub const GROUP_WORDS: usize = 2 * GPN;
/// Marks an unused vertex slot.
pub const EMPTY_SLOT: u32 = u32::MAX;
/// Marks "no overflow group" in the GID slot.
pub const NO_GROUP: u32 = u32::MAX;

/// The hash f of Algorithm 1: vertex id to group, uniform over `group_count` groups.
///
/// The GPU kernels compute the same function (`pcsr_group` in `prelude.cuh`).
pub fn group_of(v: VertexId, group_count: u32) -> u32 {
    // murmur3's 32-bit finaliser: a bijection on u32 that spreads consecutive ids.
    let mut h = v;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^= h >> 16;
    h % group_count
}

/// Where `v`'s list lies in its partition's column index, `[start, end)` (empty when it has
/// none), found in `groups` (the partition's, `hashed_groups` of them hashed to) by
/// following the group chain from `v`'s hash group, as the kernels' lookups do.
pub fn find_list(groups: &[u32], hashed_groups: u32, v: VertexId) -> (u32, u32) {
    if hashed_groups == 0 {
        return (0, 0);
    }
    let mut g = group_of(v, hashed_groups) as usize;
    loop {
        let group = &groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
        for slot in 0..KEYS_PER_GROUP {
            let key = group[2 * slot];
            if key == v {
                let next = slot + 1;
                let end = if next < KEYS_PER_GROUP && group[2 * next] != EMPTY_SLOT {
                    group[2 * next + 1]
                } else {
                    group[GROUP_WORDS - 1]
                };
                return (group[2 * slot + 1], end);
            }
            if key == EMPTY_SLOT {
                return (0, 0);
            }
        }
        match group[GROUP_WORDS - 2] {
            NO_GROUP => return (0, 0),
            next => g = next as usize,
        }
    }
}

/// How many hash groups a partition gets for its |V(D)| vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PcsrLayout {
    /// |V(D)| groups, as Algorithm 1: about one vertex per 128-byte group, overflow in the
    /// groups that got none (Claim 1). On graphs with many edge labels most vertices have
    /// short lists in many partitions, and the groups outweigh the lists many times.
    Paper,
    /// |V(D)| / [`PACKED_LOAD`] groups: about `PACKED_LOAD` of the `GPN - 1` keys used, so
    /// that a lookup still reads one group nearly always; overflow in groups appended after
    /// the hashed ones. A sixteenth of the paper's group bytes, and one more transaction
    /// for about one lookup in a hundred.
    #[default]
    Packed,
}

/// Vertices per hashed group under [`PcsrLayout::Packed`]: with keys hashed uniformly, a
/// group receives more than `KEYS_PER_GROUP` = 15 of them with probability below 1%.
pub const PACKED_LOAD: usize = 8;

impl PcsrLayout {
    /// Groups that vertices hash to, for a partition of `vertices` vertices.
    pub fn hashed_groups(self, vertices: usize) -> usize {
        match self {
            PcsrLayout::Paper => vertices,
            PcsrLayout::Packed => vertices.div_ceil(PACKED_LOAD),
        }
    }
}

/// PCSR of one edge-label partition.
#[derive(Clone, Debug, Default)]
pub struct Pcsr {
    /// `group_count * GROUP_WORDS` words: the hashed groups, then the overflow groups that
    /// were appended; see the module docs for the layout of one group.
    groups: Buffer<u32>,
    /// Groups that vertices hash to: the modulus of [`group_of`].
    hashed_groups: u32,
    /// |V(D)|: vertices with at least one neighbour in this partition.
    vertex_count: usize,
    /// The neighbour lists, laid out group by group (Algorithm 1, lines 9-13).
    column_index: Buffer<VertexId>,
    /// The longest neighbour list: bounds a row's buffer when this partition is a first edge.
    max_degree: usize,
}

impl Pcsr {
    /// Builds the PCSR of a partition from `(vertex, sorted neighbours)` rows, vertices
    /// distinct, with the groups of `layout`.
    ///
    /// # Panics
    /// If the partition has `u32::MAX` or more neighbour entries (offsets are 32-bit);
    /// [`crate::DataIndex::build`] rejects such graphs first.
    pub fn build(rows: &[(VertexId, &[VertexId])], layout: PcsrLayout) -> Pcsr {
        let n = rows.len();
        if n == 0 {
            return Pcsr::default();
        }
        let hashed = layout.hashed_groups(n);
        // Lines 3-4: hash every vertex to a group; a counting sort lists each group's rows
        // (in row order) in one flat array, `members[first[g]..first[g + 1]]`.
        let hashes: Vec<u32> = rows
            .iter()
            .map(|&(v, _)| group_of(v, hashed as u32))
            .collect();
        let mut first = vec![0usize; hashed + 1];
        for &h in &hashes {
            first[h as usize + 1] += 1;
        }
        for g in 0..hashed {
            first[g + 1] += first[g];
        }
        let mut members = vec![0usize; n];
        let mut cursor = first.clone();
        for (i, &h) in hashes.iter().enumerate() {
            members[cursor[h as usize]] = i;
            cursor[h as usize] += 1;
        }
        // Lines 5-8: a group keeps its first GPN - 1 rows; the rest continue in groups that got
        // none (enough of them under the paper's layout, Claim 1) or else in groups appended
        // after the hashed ones, linked through GID. `slots[g]` is the run of `members` that
        // group g holds.
        let mut empty = (0..hashed).filter(|&g| first[g] == first[g + 1]);
        let mut slots = vec![(0usize, 0usize); hashed];
        let mut next_group = vec![NO_GROUP; hashed];
        for g in 0..hashed {
            let (start, end) = (first[g], first[g + 1]);
            if start == end {
                continue;
            }
            slots[g] = (start, end.min(start + KEYS_PER_GROUP));
            let mut tail = g;
            let mut from = start + KEYS_PER_GROUP;
            while from < end {
                let fresh = empty.next().unwrap_or_else(|| {
                    slots.push((0, 0));
                    next_group.push(NO_GROUP);
                    slots.len() - 1
                });
                slots[fresh] = (from, end.min(from + KEYS_PER_GROUP));
                next_group[tail] = fresh as u32;
                tail = fresh;
                from += KEYS_PER_GROUP;
            }
        }
        // Lines 9-13: lay the neighbour lists out group by group and record offsets and END.
        let total: usize = rows.iter().map(|(_, nb)| nb.len()).sum();
        assert!(total < u32::MAX as usize, "PCSR offsets are 32-bit");
        let group_count = slots.len();
        let mut groups = vec![EMPTY_SLOT; group_count * GROUP_WORDS];
        let mut column_index = Vec::with_capacity(total);
        for (g, group) in groups.chunks_exact_mut(GROUP_WORDS).enumerate() {
            let (start, end) = slots[g];
            for (slot, &i) in members[start..end].iter().enumerate() {
                let (v, neighbors) = rows[i];
                group[2 * slot] = v;
                group[2 * slot + 1] = column_index.len() as u32;
                column_index.extend_from_slice(neighbors);
            }
            group[GROUP_WORDS - 2] = next_group[g];
            group[GROUP_WORDS - 1] = column_index.len() as u32;
        }
        Pcsr {
            groups: groups.into(),
            hashed_groups: hashed as u32,
            vertex_count: n,
            column_index: column_index.into(),
            max_degree: rows.iter().map(|(_, nb)| nb.len()).max().unwrap_or(0),
        }
    }

    /// The PCSR of `groups` and `column_index` as [`Pcsr::groups`] and [`Pcsr::column_index`]
    /// give them, with `hashed_groups` groups hashed to, of a graph of `vertices` vertices
    /// (a saved index).
    ///
    /// # Errors
    /// The parts break an invariant that lookups rely on: groups cut short, a key or a
    /// neighbour that is no vertex, offsets that run backwards or past the column index, an
    /// overflow link to no group, or chains that merge or loop.
    pub fn from_parts(
        hashed_groups: u32,
        groups: Buffer<u32>,
        column_index: Buffer<VertexId>,
        vertices: usize,
    ) -> Result<Pcsr, String> {
        let group_count = groups.len() / GROUP_WORDS;
        if !groups.len().is_multiple_of(GROUP_WORDS) || (hashed_groups as usize) > group_count {
            return Err("the groups are cut short".into());
        }
        if (hashed_groups == 0) != groups.is_empty() || column_index.len() >= u32::MAX as usize {
            return Err("the group count disagrees with the groups".into());
        }
        if let Some(&w) = column_index
            .par_iter()
            .find_any(|&&w| w as usize >= vertices)
        {
            return Err(format!("the column index holds {w}, which is no vertex"));
        }
        let mut vertex_count = 0;
        let mut max_degree = 0;
        let mut linked = vec![false; group_count];
        for (g, group) in groups.chunks_exact(GROUP_WORDS).enumerate() {
            let keys = (0..KEYS_PER_GROUP)
                .take_while(|&slot| group[2 * slot] != EMPTY_SLOT)
                .count();
            if (keys..KEYS_PER_GROUP).any(|slot| group[2 * slot] != EMPTY_SLOT)
                || group[..2 * keys]
                    .chunks(2)
                    .any(|pair| pair[0] as usize >= vertices)
            {
                return Err(format!("group {g} holds a key that is no vertex"));
            }
            let end = group[GROUP_WORDS - 1];
            let mut bounds = (0..keys).map(|slot| group[2 * slot + 1]).chain([end]);
            let mut previous = bounds.next().unwrap_or(end);
            for bound in bounds {
                if bound < previous {
                    return Err(format!("group {g} has offsets that run backwards"));
                }
                max_degree = max_degree.max((bound - previous) as usize);
                previous = bound;
            }
            if end as usize > column_index.len() {
                return Err(format!("group {g} ends past the column index"));
            }
            vertex_count += keys;
            match group[GROUP_WORDS - 2] {
                NO_GROUP => {}
                next if next as usize >= group_count || linked[next as usize] => {
                    return Err(format!("group {g} links to a group it cannot"));
                }
                next => linked[next as usize] = true,
            }
        }
        // Every link target has one predecessor; a loop would be a chain with no head.
        let mut reached = 0;
        for head in (0..group_count).filter(|&g| !linked[g]) {
            let mut g = head;
            reached += 1;
            while groups[g * GROUP_WORDS + GROUP_WORDS - 2] != NO_GROUP {
                g = groups[g * GROUP_WORDS + GROUP_WORDS - 2] as usize;
                reached += 1;
            }
        }
        if reached != group_count {
            return Err("the overflow links loop".into());
        }
        Ok(Pcsr {
            groups,
            hashed_groups,
            vertex_count,
            column_index,
            max_degree,
        })
    }

    /// The longest neighbour list.
    pub fn max_degree(&self) -> usize {
        self.max_degree
    }

    /// Number of groups, hashed and appended.
    pub fn group_count(&self) -> usize {
        self.groups.len() / GROUP_WORDS
    }

    /// Number of groups that vertices hash to ([`group_of`]'s modulus).
    pub fn hashed_groups(&self) -> u32 {
        self.hashed_groups
    }

    /// |V(D)|: vertices with neighbours in this partition.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The groups, `GROUP_WORDS` u32 each.
    pub fn groups(&self) -> &[u32] {
        &self.groups
    }

    /// The column index `ci`.
    pub fn column_index(&self) -> &[VertexId] {
        &self.column_index
    }

    /// N(v, l) for this partition's label: follows the group chain from `v`'s hash group.
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        let (start, end) = self.list_range(v);
        &self.column_index[start as usize..end as usize]
    }

    /// Where N(v, l) lies in the column index, `[start, end)` (empty when `v` has no list
    /// here).
    pub fn list_range(&self, v: VertexId) -> (u32, u32) {
        find_list(&self.groups, self.hashed_groups, v)
    }

    /// Every vertex of the partition with where its list lies in the column index, `(v,
    /// start, end)`, in group order, read in parallel (for the device's other layouts,
    /// [`crate::config::ListIndex`]).
    pub fn par_lists(&self) -> impl ParallelIterator<Item = (VertexId, u32, u32)> + '_ {
        self.groups
            .par_chunks_exact(GROUP_WORDS)
            .flat_map_iter(slots)
    }

    /// The number of lists and their fingerprints' sum ([`ListTally::of`] under `key`), read
    /// group by group.
    ///
    /// # Errors
    /// A vertex sits where a lookup ([`find_list`]) does not find it: neither in the group
    /// it hashes to nor down that group's chain.
    fn tally(&self, key: u64) -> Result<ListTally, String> {
        self.groups
            .par_chunks_exact(GROUP_WORDS)
            .enumerate()
            .try_fold(ListTally::default, |mut tally, (g, group)| {
                for (v, start, end) in slots(group) {
                    // A vertex in its own hash group is found there; one in an overflow
                    // group is looked for (Claim 1: few are).
                    if group_of(v, self.hashed_groups) as usize != g
                        && find_list(&self.groups, self.hashed_groups, v) != (start, end)
                    {
                        return Err(format!(
                            "group {g} holds vertex {v}, which no lookup finds there"
                        ));
                    }
                    let list = &self.column_index[start as usize..end as usize];
                    tally = tally.add(ListTally::of(key, v, list));
                }
                Ok(tally)
            })
            .try_reduce(ListTally::default, |a, b| Ok(a.add(b)))
    }

    /// Length of the longest chain of groups a lookup may follow.
    pub fn longest_chain(&self) -> usize {
        let n = self.group_count();
        let mut is_overflow = vec![false; n];
        for g in 0..n {
            let next = self.groups[g * GROUP_WORDS + GROUP_WORDS - 2];
            if next != NO_GROUP {
                is_overflow[next as usize] = true;
            }
        }
        (0..n)
            .filter(|&g| !is_overflow[g])
            .map(|mut g| {
                let mut len = 1;
                while self.groups[g * GROUP_WORDS + GROUP_WORDS - 2] != NO_GROUP {
                    g = self.groups[g * GROUP_WORDS + GROUP_WORDS - 2] as usize;
                    len += 1;
                }
                len
            })
            .max()
            .unwrap_or(0)
    }

    /// Bytes held: groups, and column index.
    pub fn bytes(&self) -> (usize, usize) {
        (4 * self.groups.len(), 4 * self.column_index.len())
    }
}

/// Which partition: an edge label and, in a directed graph, the direction read.
pub type PartitionKey = (EdgeLabel, Direction);

/// The PCSR of every partition of a data graph.
#[derive(Clone, Debug, Default)]
pub struct PcsrSet {
    directed: bool,
    /// Sorted keys; `partitions[i]` belongs to `keys[i]`.
    keys: Vec<PartitionKey>,
    partitions: Vec<Pcsr>,
    /// The vertices each partition lists, sorted, gathered at their first use.
    listed: Vec<OnceLock<Vec<VertexId>>>,
}

impl PcsrSet {
    /// Partitions `graph` by edge label (and direction) and builds each PCSR with `layout`, in
    /// parallel. The partitions are built a batch at a time so that the rows in flight (a
    /// vertex and its list, 24 bytes each) stay a fraction of the graph.
    pub fn build(graph: &Graph, layout: PcsrLayout) -> PcsrSet {
        PcsrSet::build_in_batches(graph, layout, |total| {
            (total / ROW_BATCHES).max(MIN_BATCH_ROWS)
        })
    }

    /// [`PcsrSet::build`] in batches of at most `batch_rows(all rows)` rows (a partition
    /// larger than that is a batch of its own).
    fn build_in_batches(
        graph: &Graph,
        layout: PcsrLayout,
        batch_rows: impl Fn(usize) -> usize,
    ) -> PcsrSet {
        let rows_per_key = rows_per_key(graph);
        let keys: Vec<PartitionKey> = rows_per_key.keys().copied().collect();
        let batch_rows = batch_rows(rows_per_key.values().sum());
        let mut partitions = Vec::with_capacity(keys.len());
        let mut lo = 0;
        while lo < keys.len() {
            let mut hi = lo + 1;
            let mut rows = rows_per_key[&keys[lo]];
            while hi < keys.len() && rows + rows_per_key[&keys[hi]] <= batch_rows {
                rows += rows_per_key[&keys[hi]];
                hi += 1;
            }
            partitions.extend(build_batch(graph, &keys[lo..hi], layout));
            lo = hi;
        }
        PcsrSet {
            directed: graph.is_directed(),
            listed: unlisted(keys.len()),
            keys,
            partitions,
        }
    }

    /// The set of `partitions`, keyed by `keys`, of a graph that is `directed` (a saved
    /// index).
    ///
    /// # Errors
    /// The keys are not sorted and distinct, do not match the partitions one to one, or
    /// read an undirected graph's edges inwards.
    pub fn from_parts(
        directed: bool,
        keys: Vec<PartitionKey>,
        partitions: Vec<Pcsr>,
    ) -> Result<PcsrSet, String> {
        let sorted = keys.windows(2).all(|w| w[0] < w[1]);
        let stored = keys.iter().all(|&(_, d)| d == d.stored(directed));
        if keys.len() != partitions.len() || !sorted || !stored {
            return Err("the partition keys are out of order or of another direction".into());
        }
        Ok(PcsrSet {
            directed,
            listed: unlisted(keys.len()),
            keys,
            partitions,
        })
    }

    /// Whether the partitions list exactly `graph`'s neighbours of each vertex, label and
    /// direction, and every vertex where a lookup ([`find_list`]) looks for it (a saved
    /// index: a file whose checksums hold may still disagree with its graph). Both sides are
    /// read in order: each partition's lists, group by group (a vertex outside its own hash
    /// group is looked up, so one no lookup finds is refused), and the graph's, summed as
    /// fingerprints of `(vertex, list)` under a key drawn for this check, so no file can be
    /// made to agree with it by design; different lists agree by chance with probability
    /// about 2^-128.
    ///
    /// # Errors
    /// Which partition disagrees.
    pub fn check(&self, graph: &Graph) -> Result<(), String> {
        let key = RandomState::new().hash_one(graph.vertex_count());
        let expected = tally_lists(graph, |v, list| ListTally::of(key, v, list));
        if !self.keys.iter().eq(expected.keys()) {
            return Err("its partitions list other vertices than the graph's edges".into());
        }
        for ((&(label, direction), partition), expected) in self
            .keys
            .iter()
            .zip(&self.partitions)
            .zip(expected.values())
        {
            if partition.vertex_count != expected.lists {
                return Err(format!(
                    "its partition of edge label {label} ({direction:?}) lists {} vertices where the graph has {}",
                    partition.vertex_count, expected.lists
                ));
            }
            if partition.tally(key)?.fingerprint != expected.fingerprint {
                return Err(format!(
                    "the lists of edge label {label} ({direction:?}) differ from the graph's"
                ));
            }
        }
        Ok(())
    }

    /// Index of the partition of `label` read in `direction`, if any edge has that label.
    pub fn partition_index(&self, label: EdgeLabel, direction: Direction) -> Option<usize> {
        let key = (label, direction.stored(self.directed));
        self.keys.binary_search(&key).ok()
    }

    /// The partitions with their keys.
    pub fn partitions(&self) -> impl Iterator<Item = (PartitionKey, &Pcsr)> {
        self.keys.iter().copied().zip(&self.partitions)
    }

    /// The partition at `index` (from [`PcsrSet::partition_index`]).
    pub fn partition(&self, index: usize) -> &Pcsr {
        &self.partitions[index]
    }

    /// The vertices that the partition at `index` lists (those with an edge of its label in
    /// its direction), sorted; gathered at the first call.
    pub fn listed_vertices(&self, index: usize) -> &[VertexId] {
        let listed = &self.listed[index];
        if let Some(vertices) = listed.get() {
            return vertices;
        }
        // Gathered outside the cell: a rayon thread waiting for the parallel work of an
        // initializer runs other tasks meanwhile, and one that asked for the cell from inside
        // `get_or_init` would wait for itself (callers asking at once may each gather it;
        // one is kept).
        let mut vertices: Vec<VertexId> = self.partitions[index]
            .par_lists()
            .map(|(v, _, _)| v)
            .collect();
        vertices.par_sort_unstable();
        let _ = listed.set(vertices);
        listed.get().expect("set just now")
    }

    /// N(v, l) in `direction`.
    pub fn neighbors(&self, v: VertexId, label: EdgeLabel, direction: Direction) -> &[VertexId] {
        match self.partition_index(label, direction) {
            Some(i) => self.partitions[i].neighbors(v),
            None => &[],
        }
    }

    /// Bytes held by all partitions: groups, and column indexes.
    pub fn bytes(&self) -> (usize, usize) {
        self.partitions
            .iter()
            .map(Pcsr::bytes)
            .fold((0, 0), |(g, c), (pg, pc)| (g + pg, c + pc))
    }

    /// Bytes held by all partitions.
    pub fn size_bytes(&self) -> usize {
        let (groups, column_index) = self.bytes();
        groups + column_index
    }
}

/// No partition's vertices gathered yet, for `partitions` of them.
fn unlisted(partitions: usize) -> Vec<OnceLock<Vec<VertexId>>> {
    (0..partitions).map(|_| OnceLock::new()).collect()
}

/// The rows of all partitions are built in about this many batches, or fewer...
const ROW_BATCHES: usize = 8;
/// ...of at least this many rows each.
const MIN_BATCH_ROWS: usize = 1 << 20;

/// The runs of equal labels in `v`'s list in `direction`: `(label, neighbours)`.
pub(crate) fn runs(
    graph: &Graph,
    v: VertexId,
    direction: Direction,
) -> impl Iterator<Item = (EdgeLabel, &[VertexId])> {
    let (neighbors, labels) = graph.edges(v, direction);
    let mut start = 0;
    std::iter::from_fn(move || {
        let &l = labels.get(start)?;
        let end = start + labels[start..].partition_point(|&x| x == l);
        let run = (l, &neighbors[start..end]);
        start = end;
        Some(run)
    })
}

/// |V(D)| of every partition, in key order.
fn rows_per_key(graph: &Graph) -> BTreeMap<PartitionKey, usize> {
    let tallies = tally_lists(graph, |_, _| ListTally {
        lists: 1,
        fingerprint: 0,
    });
    tallies.into_iter().map(|(k, t)| (k, t.lists)).collect()
}

/// The sum of `of(vertex, list)` over the lists of each partition of `graph`, in key order.
fn tally_lists(
    graph: &Graph,
    of: impl Fn(VertexId, &[VertexId]) -> ListTally + Sync,
) -> BTreeMap<PartitionKey, ListTally> {
    let add_all = |mut a: BTreeMap<PartitionKey, ListTally>, b: BTreeMap<_, ListTally>| {
        for (key, tally) in b {
            let sum = a.entry(key).or_default();
            *sum = sum.add(tally);
        }
        a
    };
    (0..graph.vertex_count() as VertexId)
        .into_par_iter()
        .fold(
            BTreeMap::new,
            |mut tallies: BTreeMap<PartitionKey, ListTally>, v| {
                for &direction in graph.directions() {
                    for (l, list) in runs(graph, v, direction) {
                        let sum = tallies.entry((l, direction)).or_default();
                        *sum = sum.add(of(v, list));
                    }
                }
                tallies
            },
        )
        .reduce(BTreeMap::new, add_all)
}

/// A count of lists and the sum of their fingerprints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ListTally {
    lists: usize,
    fingerprint: u128,
}

impl ListTally {
    /// One list, `v`'s, fingerprinted under `key`: a hash of the list seeded by the key and
    /// the vertex.
    fn of(key: u64, v: VertexId, list: &[VertexId]) -> ListTally {
        let seed = key ^ u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ListTally {
            lists: 1,
            fingerprint: xxh3_128_with_seed(bytemuck::cast_slice(list), seed),
        }
    }

    fn add(self, other: ListTally) -> ListTally {
        ListTally {
            lists: self.lists + other.lists,
            fingerprint: self.fingerprint.wrapping_add(other.fingerprint),
        }
    }
}

/// The vertices of `group` with where their lists lie in the column index, `(v, start,
/// end)`.
fn slots(group: &[u32]) -> impl Iterator<Item = (VertexId, u32, u32)> + '_ {
    (0..KEYS_PER_GROUP)
        .take_while(move |&slot| group[2 * slot] != EMPTY_SLOT)
        .map(move |slot| {
            let next = slot + 1;
            let end = if next < KEYS_PER_GROUP && group[2 * next] != EMPTY_SLOT {
                group[2 * next + 1]
            } else {
                group[GROUP_WORDS - 1]
            };
            (group[2 * slot], group[2 * slot + 1], end)
        })
}

/// The PCSRs of the partitions `keys` (sorted), built in parallel from one pass over the
/// graph that collects their rows.
fn build_batch(graph: &Graph, keys: &[PartitionKey], layout: PcsrLayout) -> Vec<Pcsr> {
    let (first, last) = (keys[0].0, keys[keys.len() - 1].0);
    let mut rows: Vec<(u32, VertexId, &[VertexId])> = (0..graph.vertex_count() as VertexId)
        .into_par_iter()
        .flat_map_iter(|v| {
            graph.directions().iter().flat_map(move |&direction| {
                runs(graph, v, direction)
                    .skip_while(move |&(l, _)| l < first)
                    .take_while(move |&(l, _)| l <= last)
                    .filter_map(move |(l, list)| {
                        let rank = keys.binary_search(&(l, direction)).ok()?;
                        Some((rank as u32, v, list))
                    })
            })
        })
        .collect();
    // Stable: each partition's rows stay in vertex order.
    rows.par_sort_by_key(|&(rank, _, _)| rank);
    let mut bounds = vec![0];
    bounds.extend((1..rows.len()).filter(|&i| rows[i].0 != rows[i - 1].0));
    bounds.push(rows.len());
    bounds
        .par_windows(2)
        .map(|w| {
            let part: Vec<(VertexId, &[VertexId])> = rows[w[0]..w[1]]
                .iter()
                .map(|&(_, v, list)| (v, list))
                .collect();
            Pcsr::build(&part, layout)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;
    use proptest::prelude::*;

    use super::*;

    const LAYOUTS: [PcsrLayout; 2] = [PcsrLayout::Paper, PcsrLayout::Packed];

    /// Every layout, in one batch and in batches of one row, gives N(v, l) as the CSR does.
    fn assert_matches_csr(graph: &Graph) {
        let labels = graph.edge_labels();
        for layout in LAYOUTS {
            for batch in [usize::MAX, 1] {
                let set = PcsrSet::build_in_batches(graph, layout, |_| batch);
                for v in 0..graph.vertex_count() as VertexId {
                    for &l in labels.iter().chain(&[u32::MAX - 1]) {
                        for d in [Direction::Out, Direction::In] {
                            assert_eq!(
                                set.neighbors(v, l, d),
                                graph.neighbors(v, l, d),
                                "v={v} l={l} {d:?} {layout:?} batch {batch}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn overflow_chains_hold_every_vertex() {
        for layout in LAYOUTS {
            // Among 100 000 ids, take 64 that hash to group 0 of the partition's hashed groups,
            // and make a star of them: the partition has 65 vertices and most land in one
            // group, forcing a long chain.
            let n = 100_000u32;
            let hashed = layout.hashed_groups(65) as u32;
            let colliding: Vec<u32> = (1..n)
                .filter(|&v| group_of(v, hashed) == 0)
                .take(64)
                .collect();
            assert_eq!(colliding.len(), 64);
            let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
            for &v in &colliding {
                b.add_edge(0, v, 3).unwrap();
            }
            let g = b.build().unwrap();
            let set = PcsrSet::build(&g, layout);
            let part = set.partition(set.partition_index(3, Direction::Out).unwrap());
            assert!(part.longest_chain() >= 5, "chain {}", part.longest_chain());
            assert_eq!(part.vertex_count(), 65);
            assert_matches_csr(&g);
        }
    }

    /// A partition whose groups or lists were changed is refused by the check against its
    /// graph, whether or not a lookup still finds every vertex.
    #[test]
    fn a_changed_partition_disagrees_with_its_graph() {
        let n = 2_000u32;
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for v in 1..n {
            b.add_edge(v - 1, v, 0).unwrap();
            if v % 7 == 0 {
                b.add_edge(0, v, 1).unwrap();
            }
        }
        let g = b.build().unwrap();
        for layout in LAYOUTS {
            let set = PcsrSet::build(&g, layout);
            set.check(&g).unwrap();
            let remade = |change: &dyn Fn(&mut Vec<u32>, &mut Vec<u32>)| {
                let (keys, partitions): (Vec<_>, Vec<_>) = set
                    .partitions()
                    .map(|(key, p)| {
                        let (mut groups, mut columns) =
                            (p.groups().to_vec(), p.column_index().to_vec());
                        if key.0 == 0 {
                            change(&mut groups, &mut columns);
                        }
                        let part = Pcsr::from_parts(
                            p.hashed_groups(),
                            groups.into(),
                            columns.into(),
                            n as usize,
                        );
                        (key, part.unwrap())
                    })
                    .unzip();
                PcsrSet::from_parts(false, keys, partitions)
                    .unwrap()
                    .check(&g)
            };
            // A neighbour changed.
            let err = remade(&|_, columns| columns[5] = (columns[5] + 2) % n).unwrap_err();
            assert!(err.contains("lists of edge label 0"), "{layout:?}: {err}");
            // Two vertices' keys swapped: each list now sits where its vertex is not looked
            // for, or under another vertex.
            let err = remade(&|groups, _| {
                let mut keyed = (0..groups.len())
                    .step_by(GROUP_WORDS)
                    .filter(|&at| groups[at] != EMPTY_SLOT);
                let (a, b) = (keyed.next().unwrap(), keyed.next().unwrap());
                groups.swap(a, b);
            })
            .unwrap_err();
            assert!(
                err.contains("no lookup finds") || err.contains("differ from the graph's"),
                "{layout:?}: {err}"
            );
            // A vertex listed twice in its own group, its list cut in two: every lookup
            // finds one half, the other half's neighbours are lost.
            let with_two = (0..n)
                .find(|&v| {
                    let (start, end) = set.partition(0).list_range(v);
                    end - start == 2
                })
                .unwrap();
            let err = remade(&|groups, _| {
                let g = group_of(with_two, set.partition(0).hashed_groups()) as usize;
                let group = &mut groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
                let slot = (0..KEYS_PER_GROUP)
                    .find(|&s| group[2 * s] == with_two)
                    .unwrap();
                let free = (0..KEYS_PER_GROUP).find(|&s| group[2 * s] == EMPTY_SLOT);
                // Only where the group has a slot after the last key: the key moves to it,
                // keeping its start one further on.
                if let Some(free) = free.filter(|&f| f == slot + 1) {
                    group[2 * free] = with_two;
                    group[2 * free + 1] = group[2 * slot + 1] + 1;
                } else {
                    group[2 * slot] = (with_two + 1) % n;
                }
            })
            .unwrap_err();
            assert!(
                err.contains("edge label 0") || err.contains("no lookup finds"),
                "{layout:?}: {err}"
            );
        }
    }

    #[test]
    fn packed_groups_take_an_eighth_of_the_papers() {
        // A path: every vertex has one or two neighbours.
        let n = 8000;
        let mut b = GraphBuilder::with_vertices(false, vec![0; n]);
        for v in 1..n as u32 {
            b.add_edge(v - 1, v, 0).unwrap();
        }
        let g = b.build().unwrap();
        let paper = PcsrSet::build(&g, PcsrLayout::Paper).bytes();
        let packed = PcsrSet::build(&g, PcsrLayout::Packed).bytes();
        assert_eq!(paper.0, n * 128);
        assert_eq!(paper.1, packed.1);
        // Hashed groups, and overflow ones appended: about 1% more.
        assert!(
            packed.0 >= n * 16 && packed.0 <= n * 16 * 11 / 10,
            "{packed:?}"
        );
    }

    #[test]
    fn empty_graph_has_no_partitions() {
        let g = GraphBuilder::new(false).build().unwrap();
        for layout in LAYOUTS {
            assert_eq!(PcsrSet::build(&g, layout).partitions().count(), 0);
            assert!(PcsrSet::build(&g, layout)
                .neighbors(0, 0, Direction::Out)
                .is_empty());
        }
    }

    proptest! {
        #[test]
        fn pcsr_agrees_with_csr(
            n in 1usize..60,
            directed: bool,
            edges in proptest::collection::vec((0u32..60, 0u32..60, 0u32..4), 0..200),
        ) {
            assert_matches_csr(&crate::testing::simple_graph(n, directed, &edges));
        }
    }
}
