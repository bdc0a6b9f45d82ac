//! The filtering phase on the GPU (host side of `filter.cu`): one launch tests every data
//! vertex against every query vertex's signature; a prefix sum over the bitset words' counts
//! places the sorted candidate lists.

use std::ops::Range;

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};
use gsi_graph::{Graph, VertexId};
use gsi_kernels::Kernel;

use super::candidates::{ClassSets, DeviceCandidates};
use super::device::Device;
use super::index::DeviceIndex;
use super::launch::{per_element, LabelTest};
use super::scan::exclusive_scan;
use crate::cuda::buffers::Buffer;
use crate::error::{driver, Error, Result};
use crate::options::{Cut, FilterTests, Semantics};
use crate::signature::QuerySignatures;

/// The query side of `gsi_filter_signatures`.
struct QueryOnDevice<'a> {
    /// `SIGNATURE_WORDS` words per query vertex.
    signatures: CudaView<'a, u32>,
    /// `[out, in]` degree floors per query vertex.
    min_degrees: CudaView<'a, u32>,
    /// `q + 1` offsets into `labels`.
    label_offsets: CudaView<'a, u32>,
    /// Each query vertex's labels, sorted.
    labels: CudaView<'a, u32>,
    label_test: LabelTest,
    vertices: u32,
}

/// `gsi_filter_signatures`: thread per data vertex; writes `words` bitset words and their
/// population counts per query vertex.
fn filter_signatures(
    device: &Device,
    index: &DeviceIndex,
    query: &QueryOnDevice<'_>,
    words: u32,
    bits: &mut CudaSlice<u32>,
    word_counts: &mut CudaSlice<u32>,
) -> Result<()> {
    let n = index.vertex_count as u32;
    // Where the data has one label a vertex the kernel reads no label sets of it (any
    // slice stands in).
    let (label_offsets, labels) = match &index.label_sets {
        Some(sets) => (&sets.offsets, &sets.labels),
        None => (&index.out_degree, &index.out_degree),
    };
    let label_test = query.label_test as u32;
    // SAFETY: gsi_filter_signatures(signatures[16n], n, out_degree[n], in_degree[n],
    // query_signatures[16q], query_degrees[2q], q, words, bits[q*words],
    // word_counts[q*words], label_test, label_offsets[n+1], labels[..],
    // query_label_offsets[q+1], query_labels[..]): the index holds the first four and the
    // label sets (read only under LABEL_TEST_SETS_IN_SETS, which `candidates` chooses only
    // when the index has them), the query the signatures, degrees and labels, and the caller
    // allocates the outputs with q*words words.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::FilterSignatures)?)
            .arg(&index.signatures)
            .arg(&n)
            .arg(&index.out_degree)
            .arg(index.in_degree.as_ref().unwrap_or(&index.out_degree))
            .arg(&query.signatures)
            .arg(&query.min_degrees)
            .arg(&query.vertices)
            .arg(&words)
            .arg(bits)
            .arg(word_counts)
            .arg(&label_test)
            .arg(label_offsets)
            .arg(labels)
            .arg(&query.label_offsets)
            .arg(&query.labels)
            .launch(per_element(u64::from(n)))
    }
    .map_err(driver("launching gsi_filter_signatures"))?;
    Ok(())
}

/// `gsi_filter_compact`: thread per bitset word; writes the word's vertices at its offset.
fn filter_compact(
    device: &Device,
    bits: &CudaSlice<u32>,
    word_offsets: &CudaSlice<u32>,
    total_words: u64,
    words: u32,
    lists: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_filter_compact(bits[total_words], word_offsets[total_words + 1],
    // total_words, words, lists[word_offsets[total_words]]): `lists` holds the scan's total.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::FilterCompact)?)
            .arg(bits)
            .arg(word_offsets)
            .arg(&total_words)
            .arg(&words)
            .arg(lists)
            .launch(per_element(total_words))
    }
    .map_err(driver("launching gsi_filter_compact"))?;
    Ok(())
}

/// `gsi_filter_list_starts`: thread per query vertex (plus one); where each list starts.
fn filter_list_starts(
    device: &Device,
    word_offsets: &CudaSlice<u32>,
    words: u32,
    query_vertices: u32,
    starts: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_filter_list_starts(word_offsets[q*words + 1], words, q, starts[q + 1]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::FilterListStarts)?)
            .arg(word_offsets)
            .arg(&words)
            .arg(&query_vertices)
            .arg(starts)
            .launch(per_element(u64::from(query_vertices) + 1))
    }
    .map_err(driver("launching gsi_filter_list_starts"))?;
    Ok(())
}

/// Runs the filter for every vertex of `query`.
pub fn candidates(
    device: &Device,
    index: &DeviceIndex,
    query: &Graph,
    semantics: Semantics,
    tests: FilterTests,
) -> Result<DeviceCandidates> {
    let q = query.vertex_count();
    let n = index.vertex_count;
    fits(q, n)?;
    let prepared = QuerySignatures::of(query, semantics, tests);
    // One copy to the device: the signatures, the degree floors, then the label sets.
    let mut words: Vec<u32> = prepared.signatures.iter().flat_map(|s| s.0).collect();
    let signature_words = words.len();
    words.extend(prepared.min_degrees.iter().flatten());
    let degree_words = words.len();
    let query_labels = (0..q as VertexId).map(|u| query.labels_of(u));
    let mut offset = 0;
    words.push(0);
    for labels in query_labels.clone() {
        offset += labels.len() as u32;
        words.push(offset);
    }
    let offset_words = words.len();
    words.extend(query_labels.flatten());
    let label_test = match (query.has_label_sets(), index.label_sets.is_some()) {
        (_, true) => LabelTest::SetsInSets,
        (true, false) => LabelTest::SetsInOne,
        (false, false) => LabelTest::Word,
    };
    let uploaded = device.upload(&words, "the query's signatures")?;
    let on_device = QueryOnDevice {
        signatures: uploaded.slice(0..signature_words),
        min_degrees: uploaded.slice(signature_words..degree_words),
        label_offsets: uploaded.slice(degree_words..offset_words),
        labels: uploaded.slice(offset_words..),
        label_test,
        vertices: q as u32,
    };
    let bitset_words = n.div_ceil(32).max(1);
    let total_words = bitset_words * q;
    let mut bits = device.alloc(total_words, "candidate bitsets")?;
    let mut word_counts = device.alloc(total_words, "candidate counts")?;
    filter_signatures(
        device,
        index,
        &on_device,
        bitset_words as u32,
        &mut bits,
        &mut word_counts,
    )?;
    let (lists, ranges) = compact(device, &bits, &word_counts, bitset_words, q, "candidate")?;
    Ok(DeviceCandidates {
        stream: device.stream.clone(),
        vertex_count: n,
        bits,
        words: bitset_words,
        lists,
        ranges,
    })
}

/// The sorted lists of `sets` bitsets of `words` words each (`bits`, their words'
/// population counts in `word_counts`), one after another, and where each lies: a prefix sum
/// over the counts places each word's vertices (`gsi_filter_compact`), and only where each
/// list starts is read back. `what` names the lists in messages.
fn compact(
    device: &Device,
    bits: &CudaSlice<u32>,
    word_counts: &CudaSlice<u32>,
    words: usize,
    sets: usize,
    what: &str,
) -> Result<(Buffer<u32>, Vec<Range<usize>>)> {
    let total_words = words * sets;
    let (word_offsets, total) =
        exclusive_scan(device, &word_counts.slice(0..total_words), total_words)?;
    let mut lists = device.alloc(total as usize, &format!("{what} lists"))?;
    filter_compact(
        device,
        bits,
        &word_offsets,
        total_words as u64,
        words as u32,
        &mut lists,
    )?;
    let what = format!("{what} list starts");
    let mut starts_dev = device.alloc(sets + 1, &what)?;
    filter_list_starts(
        device,
        &word_offsets,
        words as u32,
        sets as u32,
        &mut starts_dev,
    )?;
    let starts = device.read(&starts_dev, 0, sets + 1, &what)?;
    let ranges = starts
        .windows(2)
        .map(|w| w[0] as usize..w[1] as usize)
        .collect();
    Ok((lists, ranges))
}

/// `gsi_filter_classes`: thread per element of `list`; sets each element's bit in the bitset
/// of its class on `cuts`' axes, combined ([`Cut::combined`]).
fn filter_classes(
    device: &Device,
    list: &CudaView<'_, u32>,
    n: u32,
    cuts: &[Cut],
    words: u32,
    bits: &mut CudaSlice<u32>,
) -> Result<()> {
    let axis_words: Vec<u32> = cuts
        .iter()
        .flat_map(|c| [c.seed() as u32, (c.seed() >> 32) as u32, c.classes() as u32])
        .collect();
    let axis_words = device.upload(&axis_words, "a cut vertex's axes")?;
    let axes = cuts.len() as u32;
    // SAFETY: gsi_filter_classes(list[n], n, axis_words[3*axes], axes, words,
    // bits[classes*words]): every element of `list` is a data vertex below 32 * words, and
    // the caller allocates `bits` with as many zeroed words per combined class.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::FilterClasses)?)
            .arg(list)
            .arg(&n)
            .arg(&axis_words)
            .arg(&axes)
            .arg(&words)
            .arg(bits)
            .launch(per_element(u64::from(n)))
    }
    .map_err(driver("launching gsi_filter_classes"))?;
    Ok(())
}

/// `gsi_filter_word_counts`: thread per bitset word; its population count.
fn filter_word_counts(
    device: &Device,
    bits: &CudaSlice<u32>,
    total_words: u64,
    counts: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_filter_word_counts(bits[total_words], total_words, counts[total_words]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::FilterWordCounts)?)
            .arg(bits)
            .arg(&total_words)
            .arg(counts)
            .launch(per_element(total_words))
    }
    .map_err(driver("launching gsi_filter_word_counts"))?;
    Ok(())
}

/// C(u) of `sets` split by the classes of `cuts` (the vertex's, on its axes of a grid)
/// combined ([`Cut::combined`]), on the device: a bitset per class set from the list,
/// then each class's sorted list compacted from its bitset as the filter's lists are.
/// Nothing is read back but where each class starts, so a share's cut of C(u) is two copies
/// on the device from the first share on ([`DeviceCandidates::cut_to_class`]).
///
/// # Errors
/// The device cannot hold or make the classes.
pub fn classes(
    device: &Device,
    sets: &DeviceCandidates,
    u: usize,
    cuts: &[Cut],
) -> Result<ClassSets> {
    let range = sets.range(u);
    let classes = Cut::combined(cuts).0 as usize;
    let words = sets.words;
    let total_words = classes * words;
    let mut bits = device.zeros(total_words, "a cut vertex's class bitsets")?;
    if !range.is_empty() {
        filter_classes(
            device,
            &sets.lists.slice(range.clone()),
            range.len() as u32,
            cuts,
            words as u32,
            &mut bits,
        )?;
    }
    let mut counts = device.alloc(total_words, "a cut vertex's class counts")?;
    filter_word_counts(device, &bits, total_words as u64, &mut counts)?;
    let (lists, ranges) = compact(device, &bits, &counts, words, classes, "class")?;
    Ok(ClassSets {
        lists,
        ranges,
        bits,
    })
}

/// Whether every candidate set of a query of `query_vertices` vertices over `data_vertices`
/// data vertices, each as large as the data graph, fits the 32-bit offsets of the filter's
/// lists (a 60,000-vertex path over 100,000 vertices does not, and its offsets wrapped);
/// [`Error::CandidatesTooLargeForGpu`] otherwise.
pub(crate) fn fits(query_vertices: usize, data_vertices: usize) -> Result<()> {
    let entries = query_vertices as u64 * data_vertices as u64;
    match entries <= u64::from(u32::MAX) {
        true => Ok(()),
        false => Err(Error::CandidatesTooLargeForGpu {
            entries,
            query_vertices,
            data_vertices,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::fits;
    use crate::error::Error;

    #[test]
    fn candidate_sets_beyond_32_bit_offsets_are_refused_by_name() {
        assert!(fits(2_000, 100_000).is_ok());
        let refused = fits(60_000, 100_000).expect_err("6e9 entries exceed 2^32");
        assert!(matches!(
            refused,
            Error::CandidatesTooLargeForGpu {
                entries: 6_000_000_000,
                ..
            }
        ));
        assert!(
            refused.to_string().contains("use the CPU engine"),
            "{refused}"
        );
    }
}
