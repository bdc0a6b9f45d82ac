//! The data index on the device: the signature table in column-first layout (Sec. 3.2), the
//! degrees, and the PCSR partitions (Sec. 4) concatenated, uploaded once per data graph and
//! reused by every query; when the partitions do not fit, each query gets a copy of just the
//! partitions its plan reads.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};

use super::buffers::Buffer;
use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;

use super::device::Device;
use super::join::layout::{Link, LIST_CUT_ABOVE, LIST_CUT_BELOW, LIST_WHOLE};
use crate::config::ListIndex;
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::pcsr::{PartitionKey, Pcsr, GROUP_WORDS};
use crate::plan::Plan;

impl ListIndex {
    /// The layout a partition's lists are found through: the one `chosen` for every partition,
    /// or else CSR where its three words per vertex of the graph (`vertices`) take no more
    /// than `pcsr`'s groups, PCSR elsewhere.
    fn for_partition(chosen: Option<ListIndex>, pcsr: &Pcsr, vertices: usize) -> ListIndex {
        chosen.unwrap_or(if 3 * vertices <= pcsr.groups().len() {
            ListIndex::Csr
        } else {
            ListIndex::Pcsr
        })
    }

    /// The words that locate the lists of `pcsr`, a partition of a graph of `vertices`
    /// vertices, and the count the kernels read beside them: PCSR's groups and its hashed
    /// groups; CSR's triples of every vertex (its list's start, the start of its neighbours
    /// of higher ids, its end) and the vertex count; CR's sorted vertices, then their pairs,
    /// and how many vertices. CSR's and CR's words are padded to whole groups, so that a PCSR
    /// partition placed after them starts on a group.
    fn words(self, pcsr: &Pcsr, vertices: usize) -> (Cow<'_, [u32]>, u32) {
        let mut words = match self {
            ListIndex::Pcsr => return (Cow::Borrowed(pcsr.groups()), pcsr.hashed_groups()),
            ListIndex::Csr => {
                // The groups read in order, each list's triple stored where its vertex says.
                let ci = pcsr.column_index();
                let triples: Vec<AtomicU32> =
                    (0..3 * vertices).map(|_| AtomicU32::new(0)).collect();
                pcsr.par_lists().for_each(|(v, start, end)| {
                    let list = &ci[start as usize..end as usize];
                    let split = start + list.partition_point(|&w| w <= v) as u32;
                    for (k, word) in [start, split, end].into_iter().enumerate() {
                        triples[3 * v as usize + k].store(word, Ordering::Relaxed);
                    }
                });
                triples.into_iter().map(AtomicU32::into_inner).collect()
            }
            ListIndex::Cr => {
                let mut lists: Vec<(VertexId, u32, u32)> = pcsr.par_lists().collect();
                lists.par_sort_unstable();
                let mut words: Vec<u32> = lists.iter().map(|&(v, _, _)| v).collect();
                words.extend(lists.iter().flat_map(|&(_, start, end)| [start, end]));
                words
            }
        };
        let count = match self {
            ListIndex::Csr => vertices,
            _ => words.len() / 3,
        };
        words.resize(self.word_count(pcsr, vertices), 0);
        (Cow::Owned(words), count as u32)
    }

    /// How many words [`ListIndex::words`] gives for `pcsr`, without building them.
    fn word_count(self, pcsr: &Pcsr, vertices: usize) -> usize {
        match self {
            ListIndex::Pcsr => pcsr.groups().len(),
            ListIndex::Csr => (3 * vertices).next_multiple_of(GROUP_WORDS),
            ListIndex::Cr => (3 * pcsr.vertex_count()).next_multiple_of(GROUP_WORDS),
        }
    }

    /// Where a partition starts, in the kernels' units: groups for PCSR, words otherwise.
    fn base(self, words: usize) -> usize {
        match self {
            ListIndex::Pcsr => words / GROUP_WORDS,
            ListIndex::Csr | ListIndex::Cr => words,
        }
    }
}

/// The partitions of `data` that `wanted` accepts, in the order they are concatenated: each
/// with the layout its lists are found through (`chosen`, or each partition's own), where its
/// words and column-index entries start, and in all, the words and entries.
struct Arrangement<'a> {
    partitions: Vec<Placed<'a>>,
    words: usize,
    entries: usize,
}

/// One partition of an [`Arrangement`].
#[derive(Clone, Copy)]
struct Placed<'a> {
    key: PartitionKey,
    pcsr: &'a Pcsr,
    list_index: ListIndex,
    words_from: usize,
    entries_from: usize,
}

impl<'a> Arrangement<'a> {
    fn new(
        data: &'a DataIndex,
        chosen: Option<ListIndex>,
        wanted: impl Fn(PartitionKey) -> bool,
    ) -> Arrangement<'a> {
        let vertices = data.graph().vertex_count();
        let (mut words, mut entries) = (0, 0);
        let mut partitions = Vec::new();
        for (key, pcsr) in data.pcsr().partitions().filter(|(key, _)| wanted(*key)) {
            let mut list_index = ListIndex::for_partition(chosen, pcsr, vertices);
            // A partition's own CSR must end where the kernels' 32-bit word offsets reach;
            // PCSR's are counted in groups.
            if chosen.is_none()
                && words + list_index.word_count(pcsr, vertices) >= u32::MAX as usize
            {
                list_index = ListIndex::Pcsr;
            }
            partitions.push(Placed {
                key,
                pcsr,
                list_index,
                words_from: words,
                entries_from: entries,
            });
            words += list_index.word_count(pcsr, vertices);
            entries += pcsr.column_index().len();
        }
        Arrangement {
            partitions,
            words,
            entries,
        }
    }

    /// Checked before anything is built: offsets that the kernels' 32-bit words cannot hold
    /// (CSR's words grow with the vertices times the partitions, beyond what host memory
    /// holds on many-label graphs) are an error.
    fn check(&self) -> Result<()> {
        let too_large = || Error::GpuIndexTooLarge {
            entries: self.entries,
            words: self.words,
        };
        if self.entries >= u32::MAX as usize {
            return Err(too_large());
        }
        for p in &self.partitions {
            if p.list_index.base(p.words_from) >= u32::MAX as usize {
                return Err(too_large());
            }
        }
        Ok(())
    }
}

/// Where a partition lies in concatenated arrays, and its longest list.
#[derive(Clone, Copy, Debug)]
struct Partition {
    list_index: ListIndex,
    group_base: u32,
    group_count: u32,
    ci_base: u32,
    max_degree: usize,
}

/// PCSR partitions on the device: groups and column indexes concatenated, and where each
/// partition lies in them.
pub struct DevicePcsr {
    directed: bool,
    pub(crate) groups: Buffer<u32>,
    pub(crate) column_index: Buffer<u32>,
    layout: HashMap<PartitionKey, Partition>,
    /// Bytes on the device.
    pub(crate) bytes: usize,
}

/// The partitions of a [`DevicePcsr`] on the host, ready to be copied: their groups (or
/// CSR's or CR's words) and column indexes, in the order the layout places them.
struct PcsrParts<'a> {
    directed: bool,
    groups: Vec<Cow<'a, [u32]>>,
    column_index: Vec<&'a [u32]>,
    layout: HashMap<PartitionKey, Partition>,
    words: usize,
}

impl<'a> PcsrParts<'a> {
    /// The partitions of `data` whose keys `wanted` accepts, their lists found through
    /// `chosen` (or each partition's own layout).
    fn new(
        data: &'a DataIndex,
        chosen: Option<ListIndex>,
        wanted: impl Fn(PartitionKey) -> bool,
    ) -> Result<PcsrParts<'a>> {
        let vertices = data.graph().vertex_count();
        let arrangement = Arrangement::new(data, chosen, wanted);
        arrangement.check()?;
        let mut groups = Vec::new();
        let mut column_index = Vec::new();
        let mut layout = HashMap::new();
        for p in &arrangement.partitions {
            let (words, group_count) = p.list_index.words(p.pcsr, vertices);
            layout.insert(
                p.key,
                Partition {
                    list_index: p.list_index,
                    group_base: p.list_index.base(p.words_from) as u32,
                    group_count,
                    ci_base: p.entries_from as u32,
                    max_degree: p.pcsr.max_degree(),
                },
            );
            groups.push(words);
            column_index.push(p.pcsr.column_index());
        }
        Ok(PcsrParts {
            directed: data.graph().is_directed(),
            groups,
            column_index,
            layout,
            words: arrangement.words + arrangement.entries,
        })
    }

    /// The groups' parts and the column indexes' parts, as [`Device::upload_buffers`] takes
    /// them.
    fn parts(&self) -> [Vec<&[u32]>; 2] {
        [
            self.groups.iter().map(|g| g.as_ref()).collect(),
            self.column_index.clone(),
        ]
    }

    /// The partitions on the device, from their two uploaded buffers.
    fn on_device(self, groups: Buffer<u32>, column_index: Buffer<u32>) -> DevicePcsr {
        DevicePcsr {
            directed: self.directed,
            bytes: 4 * self.words,
            groups,
            column_index,
            layout: self.layout,
        }
    }
}

impl DevicePcsr {
    /// Uploads the partitions of `data` whose keys `wanted` accepts, their lists found
    /// through `chosen` (or each partition's own layout).
    fn upload(
        device: &Device,
        data: &DataIndex,
        chosen: Option<ListIndex>,
        wanted: impl Fn(PartitionKey) -> bool,
    ) -> Result<DevicePcsr> {
        let parts = PcsrParts::new(data, chosen, wanted)?;
        let [groups, column_index] = parts.parts();
        let mut uploaded = device
            .upload_buffers(&[
                (&groups, "PCSR groups"),
                (&column_index, "PCSR column index"),
            ])?
            .into_iter();
        let (groups, column_index) = (uploaded.next(), uploaded.next());
        Ok(parts.on_device(groups.expect("uploaded"), column_index.expect("uploaded")))
    }

    fn partition(&self, label: EdgeLabel, direction: Direction) -> Option<Partition> {
        self.layout
            .get(&(label, direction.stored(self.directed)))
            .copied()
    }

    /// The kernel's view of N(row[column], label) in `direction`, cut to the neighbours above
    /// (`Some(true)`) or below (`Some(false)`) the column's vertex where the partition's
    /// layout keeps where they start (CSR), else whole.
    pub fn link(
        &self,
        column: usize,
        label: EdgeLabel,
        direction: Direction,
        cut: Option<bool>,
    ) -> Link {
        let p = self.partition(label, direction);
        let cut = match (cut, p.map(|p| p.list_index)) {
            (Some(true), Some(ListIndex::Csr)) => LIST_CUT_ABOVE,
            (Some(false), Some(ListIndex::Csr)) => LIST_CUT_BELOW,
            _ => LIST_WHOLE,
        };
        Link {
            column: column as u32,
            group_base: p.map_or(0, |p| p.group_base),
            group_count: p.map_or(0, |p| p.group_count),
            ci_base: p.map_or(0, |p| p.ci_base),
            list_index: p.map_or(ListIndex::Pcsr, |p| p.list_index).code(),
            cut,
        }
    }

    /// The longest list of a partition (0 if no edge has the label).
    pub fn max_degree(&self, label: EdgeLabel, direction: Direction) -> usize {
        self.partition(label, direction).map_or(0, |p| p.max_degree)
    }
}

/// The index on the device: the signature table and degrees always; the PCSR partitions all
/// together when they fit in the share of device memory the index may take, or else only
/// those a query's plan reads, copied for that query (Sec. 4: one partition at a time is
/// enough for a join step).
pub struct DeviceIndex {
    /// `DataIndex::id` of the index uploaded.
    pub(crate) id: u64,
    pub(crate) vertex_count: usize,
    pub(crate) signatures: Buffer<u32>,
    pub(crate) out_degree: Buffer<u32>,
    /// In-degrees of a directed graph; an undirected graph has only `out_degree`.
    pub(crate) in_degree: Option<Buffer<u32>>,
    /// Every vertex's sorted labels from `offsets[v]` in `labels`, when some vertex has
    /// several (the paper's Sec. 7.2).
    pub(crate) label_sets: Option<DeviceLabelSets>,
    /// Every partition, when they fit.
    pub(crate) resident: Option<DevicePcsr>,
    /// How the partitions' lists are found: one layout for all, or `None`, each its own.
    list_index: Option<ListIndex>,
    /// Bytes on the device.
    pub(crate) bytes: usize,
}

impl DeviceIndex {
    /// Uploads `data`'s signature table and degrees, and its PCSR partitions when they take at
    /// most `pcsr_limit` bytes, their lists found through `list_index` (or, `None`, each
    /// partition's own layout).
    pub fn upload(
        device: &Device,
        data: &DataIndex,
        pcsr_limit: usize,
        list_index: Option<ListIndex>,
    ) -> Result<DeviceIndex> {
        let graph = data.graph();
        let n = graph.vertex_count();
        let degrees = |d: Direction| -> Vec<u32> {
            (0..n as VertexId)
                .into_par_iter()
                .map(|v| graph.degree(v, d) as u32)
                .collect()
        };
        let out_degree = degrees(Direction::Out);
        let in_degree = graph.is_directed().then(|| degrees(Direction::In));
        let arrangement = Arrangement::new(data, list_index, |_| true);
        let resident = if 4 * (arrangement.words + arrangement.entries) <= pcsr_limit {
            Some(PcsrParts::new(data, list_index, |_| true)?)
        } else {
            None
        };
        let label_sets = match graph.has_label_sets() {
            true => Some(LabelSets::new(graph)?),
            false => None,
        };
        // Everything in one pipeline of staged copies.
        let mut buffers: Vec<(Vec<&[u32]>, &str)> = vec![
            (vec![data.signatures().words()], "the signature table"),
            (vec![&out_degree], "degrees"),
        ];
        if let Some(in_degree) = &in_degree {
            buffers.push((vec![in_degree], "degrees"));
        }
        if let Some(parts) = &resident {
            let [groups, column_index] = parts.parts();
            buffers.push((groups, "PCSR groups"));
            buffers.push((column_index, "PCSR column index"));
        }
        if let Some(sets) = &label_sets {
            buffers.push((vec![&sets.offsets], "vertex label offsets"));
            buffers.push((vec![&sets.labels], "vertex labels"));
        }
        let views: Vec<(&[&[u32]], &str)> = buffers
            .iter()
            .map(|(parts, what)| (parts.as_slice(), *what))
            .collect();
        let mut uploaded = device.upload_buffers(&views)?.into_iter();
        let mut next = || uploaded.next().expect("one buffer each");
        let signatures = next();
        let out_degree = next();
        let in_degree = in_degree.map(|_| next());
        let resident = resident.map(|parts| {
            let (groups, column_index) = (next(), next());
            parts.on_device(groups, column_index)
        });
        let label_sets = label_sets.map(|sets| DeviceLabelSets {
            bytes: 4 * (sets.offsets.len() + sets.labels.len()),
            offsets: next(),
            labels: next(),
        });
        let degree_arrays = if in_degree.is_some() { 2 } else { 1 };
        let bytes = 4 * (data.signatures().words().len() + degree_arrays * n)
            + label_sets.as_ref().map_or(0, |s| s.bytes)
            + resident.as_ref().map_or(0, |p| p.bytes);
        Ok(DeviceIndex {
            id: data.id(),
            vertex_count: n,
            signatures,
            out_degree,
            in_degree,
            label_sets,
            resident,
            list_index,
            bytes,
        })
    }

    /// The partitions `plan` reads: the resident ones, or a copy of just those for this query.
    pub fn partitions_for<'a>(
        &'a self,
        device: &Device,
        data: &DataIndex,
        plan: &Plan,
    ) -> Result<PartitionsFor<'a>> {
        if let Some(resident) = &self.resident {
            return Ok(PartitionsFor::Resident(resident));
        }
        let directed = data.graph().is_directed();
        let keys: HashSet<PartitionKey> = plan
            .steps
            .iter()
            .flat_map(|s| s.links())
            .map(|e| (e.label, e.direction.stored(directed)))
            .collect();
        Ok(PartitionsFor::Copied(Box::new(DevicePcsr::upload(
            device,
            data,
            self.list_index,
            |key| keys.contains(&key),
        )?)))
    }
}

/// The label sets of a graph whose vertices may carry several labels, as the filter kernel
/// reads them.
pub struct DeviceLabelSets {
    /// `n + 1` offsets into `labels`.
    pub(crate) offsets: Buffer<u32>,
    /// Each vertex's labels, sorted.
    pub(crate) labels: Buffer<u32>,
    bytes: usize,
}

/// A graph's label sets on the host, as [`DeviceLabelSets`] holds them.
struct LabelSets {
    offsets: Vec<u32>,
    labels: Vec<u32>,
}

impl LabelSets {
    fn new(graph: &Graph) -> Result<LabelSets> {
        let n = graph.vertex_count() as VertexId;
        let mut offsets = Vec::with_capacity(n as usize + 1);
        let mut labels = Vec::new();
        offsets.push(0u32);
        for v in 0..n {
            labels.extend_from_slice(graph.labels_of(v));
            offsets.push(u32::try_from(labels.len()).map_err(|_| {
                Error::GraphTooLarge(format!(
                    "{} vertex labels exceed the GPU filter's 32-bit offsets",
                    labels.len()
                ))
            })?);
        }
        Ok(LabelSets { offsets, labels })
    }
}

/// The PCSR partitions a query reads.
pub enum PartitionsFor<'a> {
    /// All partitions stay on the device.
    Resident(&'a DevicePcsr),
    /// Only this query's partitions, copied for it.
    Copied(Box<DevicePcsr>),
}

impl std::ops::Deref for PartitionsFor<'_> {
    type Target = DevicePcsr;

    fn deref(&self) -> &DevicePcsr {
        match self {
            PartitionsFor::Resident(p) => p,
            PartitionsFor::Copied(p) => p,
        }
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;
    use crate::pcsr::PcsrLayout;

    /// `list_locate` of `prelude.cuh`, on the host: where `v`'s list lies in the partition's
    /// column index, cut as `cut` says where the layout can (CSR).
    fn locate(
        list_index: ListIndex,
        words: &[u32],
        count: u32,
        v: VertexId,
        cut: u32,
    ) -> (u32, u32) {
        match list_index {
            ListIndex::Csr if v < count => {
                let at = 3 * v as usize;
                let from = usize::from(cut == LIST_CUT_ABOVE);
                let to = if cut == LIST_CUT_BELOW { 1 } else { 2 };
                (words[at + from], words[at + to])
            }
            ListIndex::Cr => match words[..count as usize].binary_search(&v) {
                Ok(k) => {
                    let at = count as usize + 2 * k;
                    (words[at], words[at + 1])
                }
                Err(_) => (0, 0),
            },
            _ => (0, 0),
        }
    }

    #[test]
    fn csr_and_cr_find_every_list_pcsr_finds() {
        let mut checked = 0;
        for (n, labels, layout) in [
            (40, 3, PcsrLayout::Packed),
            (300, 2, PcsrLayout::Paper),
            (2000, 5, PcsrLayout::Packed),
        ] {
            // Random directed edges, repeats dropped (a repeated edge is an error).
            let mut edges = std::collections::BTreeSet::new();
            let mut x = 12345u64;
            for _ in 0..4 * n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (s, t) = ((x >> 20) as u32 % n as u32, (x >> 40) as u32 % n as u32);
                if s != t {
                    edges.insert((s, t, (x >> 8) as u32 % labels));
                }
            }
            let edges = edges.into_iter().collect();
            let graph = GraphBuilder::with_edges(true, vec![0; n], edges)
                .and_then(GraphBuilder::build)
                .unwrap();
            let set = crate::pcsr::PcsrSet::build(&graph, layout);
            for (_, pcsr) in set.partitions() {
                for list_index in [ListIndex::Pcsr, ListIndex::Csr, ListIndex::Cr] {
                    let (words, count) = list_index.words(pcsr, n);
                    // The size checked before an upload is the size uploaded.
                    assert_eq!(
                        words.len(),
                        list_index.word_count(pcsr, n),
                        "{list_index:?}"
                    );
                    if list_index == ListIndex::Pcsr {
                        continue;
                    }
                    for v in 0..n as VertexId {
                        let (start, end) = locate(list_index, &words, count, v, LIST_WHOLE);
                        let found = &pcsr.column_index()[start as usize..end as usize];
                        let whole = pcsr.neighbors(v);
                        assert_eq!(found, whole, "{list_index:?}, vertex {v}");
                        checked += usize::from(!found.is_empty());
                        if list_index == ListIndex::Csr {
                            // The neighbours above v, and those not above it.
                            for cut in [LIST_CUT_ABOVE, LIST_CUT_BELOW] {
                                let (start, end) = locate(list_index, &words, count, v, cut);
                                let found = &pcsr.column_index()[start as usize..end as usize];
                                let above = cut == LIST_CUT_ABOVE;
                                let expected: Vec<u32> = whole
                                    .iter()
                                    .copied()
                                    .filter(|&w| (w > v) == above)
                                    .collect();
                                assert_eq!(found, expected, "cut {cut}, vertex {v}");
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 4000, "only {checked} lists checked");
    }

    #[test]
    fn each_partition_takes_csr_where_it_costs_no_more_than_pcsr() {
        // Label 0 on most edges, so that its partition holds nearly every vertex; labels 1-6
        // on a few, their partitions a few vertices each.
        let n = 3000usize;
        let mut edges = std::collections::BTreeSet::new();
        let mut x = 99u64;
        for i in 0..6 * n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (s, t) = ((x >> 20) as u32 % n as u32, (x >> 40) as u32 % n as u32);
            let label = if i % 50 == 0 {
                1 + (x >> 8) as u32 % 6
            } else {
                0
            };
            if s != t {
                edges.insert((s.min(t), s.max(t), label));
            }
        }
        let graph = GraphBuilder::with_edges(false, vec![0; n], edges.into_iter().collect())
            .and_then(GraphBuilder::build)
            .unwrap();
        let data = DataIndex::build(graph).unwrap();
        for chosen in [
            None,
            Some(ListIndex::Csr),
            Some(ListIndex::Pcsr),
            Some(ListIndex::Cr),
        ] {
            let parts = PcsrParts::new(&data, chosen, |_| true).unwrap();
            let words: Vec<u32> = parts
                .groups
                .iter()
                .flat_map(|g| g.iter().copied())
                .collect();
            let column_index: Vec<u32> = parts
                .column_index
                .iter()
                .flat_map(|c| c.iter().copied())
                .collect();
            let mut layouts = HashSet::new();
            for (key, pcsr) in data.pcsr().partitions() {
                let p = parts.layout[&key];
                layouts.insert(p.list_index);
                let own = ListIndex::for_partition(None, pcsr, n);
                assert_eq!(p.list_index, chosen.unwrap_or(own), "{key:?}");
                if chosen.is_none() {
                    // The choice never takes more words than PCSR.
                    assert!(own.word_count(pcsr, n) <= pcsr.groups().len());
                }
                for v in 0..n as VertexId {
                    let (start, end) = match p.list_index {
                        ListIndex::Pcsr => crate::pcsr::find_list(
                            &words[p.group_base as usize * GROUP_WORDS..],
                            p.group_count,
                            v,
                        ),
                        other => locate(
                            other,
                            &words[p.group_base as usize..],
                            p.group_count,
                            v,
                            LIST_WHOLE,
                        ),
                    };
                    let at = p.ci_base as usize;
                    let found = &column_index[at + start as usize..at + end as usize];
                    assert_eq!(found, pcsr.neighbors(v), "{chosen:?} {key:?}, vertex {v}");
                }
            }
            if chosen.is_none() {
                // Both layouts side by side, each partition located from its own base.
                assert_eq!(
                    layouts,
                    HashSet::from([ListIndex::Csr, ListIndex::Pcsr]),
                    "{layouts:?}"
                );
            }
        }
    }
}
