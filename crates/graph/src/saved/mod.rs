//! The saved-index file: a graph and whatever was built from it, written once as binary
//! sections and read back in place from a memory map instead of parsed.
//!
//! A file is a 64-byte header (magic `GSIINDEX`, format version, byte order, pointer width,
//! a checksum of the header) followed by sections in a fixed order, each a 48-byte section
//! header (tag, element size, element count, checksum of the payload, checksum of the
//! section header) and the payload at the next 64-byte boundary, zeros between. The last
//! section is `end`, and the file ends with it. Every byte is thus accounted for: a file
//! truncated, extended or changed anywhere is rejected with the section that disagrees,
//! never read into a wrong answer. The payloads are plain arrays in the machine's byte
//! order, so a reader maps them where they lie ([`Buffer`]).
//!
//! This module is the container; the [`Graph`](crate::Graph), its names and label
//! dictionaries write and check their own sections (in `graph.rs` here), and the matcher's
//! index adds its own on top.

mod graph;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytemuck::Pod;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::buffer::Buffer;
use crate::formats::AtomicFile;
use crate::{Error, Result};

pub use graph::{GraphFacts, SavedGraph};

/// The first eight bytes of every saved-index file.
pub const MAGIC: [u8; 8] = *b"GSIINDEX";

/// The layout version this build writes and reads; files of another version are rejected
/// with advice to write them again. (3: N-Triples vertices carry label 0 beside their types.)
pub const FORMAT_VERSION: u32 = 4;

const HEADER_BYTES: usize = 64;
const SECTION_HEADER_BYTES: usize = 48;
const ALIGN: usize = 64;
const TAG_BYTES: usize = 16;
/// Written as a native `u32`: read back unchanged only on a machine of the same byte order.
const BYTE_ORDER_MARK: u32 = 0x0102_0304;
const END_TAG: &str = "end";

/// Whether `path` is a regular file that starts with [`MAGIC`] (false when it cannot be
/// read). A pipe is never looked into: its first bytes, once read, would be gone.
pub fn is_saved_index(path: &Path) -> bool {
    let mut start = [0u8; 8];
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    regular
        && File::open(path)
            .and_then(|mut f| f.read_exact(&mut start))
            .is_ok_and(|()| start == MAGIC)
}

/// Whether `bytes` have the XXH3 `expected`. Always, in a fuzzing build: there the fuzzer
/// must reach the checks behind the checksums, which random bytes never pass.
fn sums_to(bytes: &[u8], expected: &[u8]) -> bool {
    cfg!(fuzzing) || xxh3_64(bytes).to_le_bytes() == expected
}

/// The checksum of a payload: XXH3 of it, or for a large payload XXH3 of the XXH3s of its
/// 64 MiB chunks, computed in parallel.
fn checksum(bytes: &[u8]) -> u64 {
    const CHUNK: usize = 64 << 20;
    if bytes.len() <= CHUNK {
        return xxh3_64(bytes);
    }
    let parts: Vec<u64> = bytes.par_chunks(CHUNK).map(xxh3_64).collect();
    xxh3_64(bytemuck::cast_slice(&parts))
}

fn padding(at: usize) -> usize {
    at.next_multiple_of(ALIGN) - at
}

fn tag_bytes(tag: &str) -> [u8; TAG_BYTES] {
    assert!(
        tag.len() <= TAG_BYTES && tag.is_ascii(),
        "section tag `{tag}`"
    );
    let mut bytes = [0u8; TAG_BYTES];
    bytes[..tag.len()].copy_from_slice(tag.as_bytes());
    bytes
}

fn file_header() -> [u8; HEADER_BYTES] {
    let mut header = [0u8; HEADER_BYTES];
    header[..8].copy_from_slice(&MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&BYTE_ORDER_MARK.to_ne_bytes());
    header[16..20].copy_from_slice(&(size_of::<usize>() as u32).to_le_bytes());
    let check = xxh3_64(&header[..HEADER_BYTES - 8]);
    header[HEADER_BYTES - 8..].copy_from_slice(&check.to_le_bytes());
    header
}

/// Writes a saved-index file section by section; the file appears under its name only when
/// [`Writer::finish`] succeeds.
pub struct Writer {
    out: BufWriter<AtomicFile>,
    path: PathBuf,
    at: usize,
}

impl Writer {
    /// Starts the file `path`.
    ///
    /// # Errors
    /// The file cannot be created or written.
    pub fn create(path: &Path) -> Result<Writer> {
        let file = AtomicFile::create(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut writer = Writer {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            at: 0,
        };
        writer.write(&file_header())?;
        Ok(writer)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).map_err(|source| Error::Write {
            path: self.path.clone(),
            source,
        })?;
        self.at += bytes.len();
        Ok(())
    }

    /// Appends the section `tag` holding `items`.
    ///
    /// # Errors
    /// Writing fails (a full disk).
    ///
    /// # Panics
    /// If `tag` is longer than 16 bytes or not ASCII: tags are the program's constants.
    pub fn section<T: Pod>(&mut self, tag: &str, items: &[T]) -> Result<()> {
        let payload: &[u8] = bytemuck::cast_slice(items);
        let mut header = [0u8; SECTION_HEADER_BYTES];
        header[..TAG_BYTES].copy_from_slice(&tag_bytes(tag));
        header[16..20].copy_from_slice(&(size_of::<T>() as u32).to_le_bytes());
        header[24..32].copy_from_slice(&(items.len() as u64).to_le_bytes());
        header[32..40].copy_from_slice(&checksum(payload).to_le_bytes());
        let check = xxh3_64(&header[..40]);
        header[40..48].copy_from_slice(&check.to_le_bytes());
        self.write(&header)?;
        self.write(&[0u8; ALIGN][..padding(self.at)])?;
        self.write(payload)?;
        self.write(&[0u8; ALIGN][..padding(self.at)])
    }

    /// Ends the file and puts it in place.
    ///
    /// # Errors
    /// Writing, flushing or renaming fails.
    pub fn finish(mut self) -> Result<()> {
        self.section::<u8>(END_TAG, &[])?;
        let path = self.path.clone();
        let write_error = |source: io::Error| Error::Write {
            path: path.clone(),
            source,
        };
        self.out
            .into_inner()
            .map_err(|e| write_error(e.into_error()))?
            .commit()
            .map_err(write_error)
    }
}

/// Reads a saved-index file's sections in the order they were written, each checked
/// against its checksums before it is handed out.
pub struct Reader {
    map: Arc<memmap2::Mmap>,
    path: PathBuf,
    at: usize,
    /// The checksum of each payload the section headers lead to, by where it starts:
    /// computed on every thread when the file is opened, since most sections are too small
    /// to be split ([`checksum`]) and are read one after another.
    sums: HashMap<usize, u64>,
}

/// A section header's fields, and where its payload lies: `payload..end`, the end `None`
/// where the file ends first.
struct SectionHeader<'a> {
    tag: &'a [u8],
    element: u32,
    len: u64,
    sum: u64,
    payload: usize,
    end: Option<usize>,
}

/// The section header at `at` of `bytes`, where one fits there and passes its checksum.
fn section_at(bytes: &[u8], at: usize) -> Option<SectionHeader<'_>> {
    let header = bytes.get(at..at + SECTION_HEADER_BYTES)?;
    if !sums_to(&header[..40], &header[40..48]) {
        return None;
    }
    let element = u32::from_le_bytes(header[16..20].try_into().expect("four bytes"));
    let len = u64::from_le_bytes(header[24..32].try_into().expect("eight bytes"));
    let after_header = at + SECTION_HEADER_BYTES;
    let payload = after_header + padding(after_header);
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| len.checked_mul(element as usize))
        .and_then(|n| n.checked_add(payload))
        .filter(|&end| end <= bytes.len());
    Some(SectionHeader {
        tag: &header[..TAG_BYTES],
        element,
        len,
        sum: u64::from_le_bytes(header[32..40].try_into().expect("eight bytes")),
        payload,
        end,
    })
}

impl Reader {
    /// Maps `path` and checks its header.
    ///
    /// # Errors
    /// The file cannot be read, is not a saved index, is of another format version, or was
    /// written on a machine of another byte order or pointer width.
    pub fn open(path: &Path) -> Result<Reader> {
        let io_error = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        // SAFETY: the mapping is read-only; a file changed underneath it is a user error that
        // the checksums catch where they can, and a file truncated underneath it raises
        // SIGBUS, which the binary reports as such. Not populated: the threads that compute
        // the checksums fault the pages in, in parallel (the kernel populates a mapping on
        // one thread: seconds for a file of gigabytes).
        let map = unsafe { memmap2::MmapOptions::new().map(&file) }.map_err(io_error)?;
        let mut reader = Reader {
            map: Arc::new(map),
            path: path.to_path_buf(),
            at: HEADER_BYTES,
            sums: HashMap::new(),
        };
        let bytes = &reader.map[..];
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(reader.invalid("not a saved gsi index (no GSIINDEX magic number)"));
        }
        if bytes.len() < HEADER_BYTES {
            return Err(reader.invalid("the saved index is truncated inside its header"));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
        if xxh3_64(&bytes[..HEADER_BYTES - 8]).to_le_bytes()
            != bytes[HEADER_BYTES - 8..HEADER_BYTES]
        {
            return Err(reader.invalid("the saved index's header is damaged (checksum mismatch)"));
        }
        if version != FORMAT_VERSION {
            return Err(reader.invalid(&format!(
                "the saved index has format version {version}, this gsi reads version {FORMAT_VERSION}: write it again with `gsi index`"
            )));
        }
        if bytes[..HEADER_BYTES] != file_header() {
            return Err(reader.invalid(
                "the saved index was written on a machine of another byte order or pointer width: write it again with `gsi index` here",
            ));
        }
        reader.sums = reader.payload_sums();
        Ok(reader)
    }

    /// The checksum of every payload that the section headers lead to, from the first on
    /// while they pass their own checksums and fit in the file (what follows is [`Reader::next`]'s
    /// to report), computed in parallel.
    fn payload_sums(&self) -> HashMap<usize, u64> {
        if cfg!(fuzzing) {
            return HashMap::new();
        }
        let bytes = &self.map[..];
        let mut payloads = Vec::new();
        let mut at = HEADER_BYTES;
        while let Some(SectionHeader {
            payload,
            end: Some(end),
            ..
        }) = section_at(bytes, at)
        {
            payloads.push(payload..end);
            at = end + padding(end);
        }
        payloads
            .into_par_iter()
            .map(|range| (range.start, checksum(&bytes[range])))
            .collect()
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An error saying that the file is wrong in the way `message` says.
    pub fn invalid(&self, message: &str) -> Error {
        Error::Invalid {
            path: self.path.clone(),
            message: message.to_string(),
        }
    }

    fn damaged(&self, tag: &str, what: &str) -> Error {
        self.invalid(&format!(
            "the saved index is damaged at section `{tag}`: {what}; write it again with `gsi index`"
        ))
    }

    /// Checks the next section's header and payload; returns where the payload starts and
    /// how many elements it has.
    fn next<T: Pod>(&mut self, tag: &str) -> Result<(usize, usize)> {
        let bytes = &self.map[..];
        let start = self.at;
        if bytes.len() < start + SECTION_HEADER_BYTES {
            return Err(self.damaged(tag, "the file ends before it (truncated)"));
        }
        let Some(header) = section_at(bytes, start) else {
            return Err(self.damaged(tag, "its header fails its checksum"));
        };
        if header.tag != tag_bytes(tag) {
            let found = String::from_utf8_lossy(header.tag);
            return Err(self.damaged(
                tag,
                &format!("found section `{}` there", found.trim_end_matches('\0')),
            ));
        }
        if header.element as usize != size_of::<T>() || bytes[start + 20..start + 24] != [0; 4] {
            return Err(self.damaged(tag, "its element size is not the one expected"));
        }
        let (payload, len) = (header.payload, header.len);
        let Some(end) = header.end else {
            return Err(self.damaged(tag, "the file ends inside it (truncated)"));
        };
        let next = end + padding(end);
        let zeros =
            |r: std::ops::Range<usize>| bytes.get(r).is_some_and(|b| b.iter().all(|&x| x == 0));
        if !zeros(start + SECTION_HEADER_BYTES..payload)
            || (next <= bytes.len() && !zeros(end..next))
        {
            return Err(self.damaged(tag, "the padding around it is not zero"));
        }
        // Computed when the file was opened: the headers up to here all led on.
        if !cfg!(fuzzing) && self.sums.get(&payload) != Some(&header.sum) {
            return Err(self.damaged(tag, "its contents fail their checksum"));
        }
        self.at = next;
        Ok((payload, len as usize))
    }

    /// The next section, which must be `tag`, read in place.
    ///
    /// # Errors
    /// The section is missing, of another type or length, or fails its checksum.
    pub fn section<T: Pod>(&mut self, tag: &str) -> Result<Buffer<T>> {
        let (payload, len) = self.next::<T>(tag)?;
        Ok(Buffer::mapped(Arc::clone(&self.map), payload, len))
    }

    /// The next section, which must be `tag`, copied out.
    ///
    /// # Errors
    /// As [`Reader::section`].
    pub fn vec<T: Pod>(&mut self, tag: &str) -> Result<Vec<T>> {
        let (payload, len) = self.next::<T>(tag)?;
        Ok(bytemuck::cast_slice(&self.map[payload..payload + len * size_of::<T>()]).to_vec())
    }

    /// The next section, which must be `tag` and hold exactly `N` elements.
    ///
    /// # Errors
    /// As [`Reader::section`], or the section has another length.
    pub fn array<T: Pod, const N: usize>(&mut self, tag: &str) -> Result<[T; N]> {
        let items = self.vec::<T>(tag)?;
        <[T; N]>::try_from(items).map_err(|items| {
            self.damaged(tag, &format!("it holds {} values, not {N}", items.len()))
        })
    }

    /// Checks that the file ends here, with its `end` section.
    ///
    /// # Errors
    /// The `end` section is missing or something follows it.
    pub fn finish(mut self) -> Result<()> {
        self.next::<u8>(END_TAG)?;
        if self.at != self.map.len() {
            return Err(self.invalid(
                "the saved index has bytes after its end section; write it again with `gsi index`",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_sample(path: &Path) {
        let mut w = Writer::create(path).unwrap();
        w.section::<u32>("numbers", &[1, 2, 3]).unwrap();
        w.section::<u64>("wide", &[u64::MAX]).unwrap();
        w.section::<u8>("empty", &[]).unwrap();
        w.finish().unwrap();
    }

    fn read_sample(path: &Path) -> Result<(Vec<u32>, [u64; 1])> {
        let mut r = Reader::open(path)?;
        let numbers = r.section::<u32>("numbers")?.to_vec();
        let wide = r.array::<u64, 1>("wide")?;
        assert!(r.vec::<u8>("empty")?.is_empty());
        r.finish()?;
        Ok((numbers, wide))
    }

    #[test]
    fn sections_round_trip_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sample.gsidx");
        write_sample(&path);
        assert!(is_saved_index(&path));
        let mut r = Reader::open(&path).unwrap();
        let numbers = r.section::<u32>("numbers").unwrap();
        assert!(numbers.is_mapped());
        assert_eq!(&*numbers, &[1, 2, 3]);
        drop(r);
        // The buffer keeps the mapping alive after the reader is gone.
        assert_eq!(numbers.iter().sum::<u32>(), 6);
        assert_eq!(read_sample(&path).unwrap(), (vec![1, 2, 3], [u64::MAX]));
    }

    #[test]
    fn every_changed_byte_and_every_truncation_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sample.gsidx");
        write_sample(&path);
        let good = std::fs::read(&path).unwrap();
        let bad = dir.path().join("bad.gsidx");
        for at in 0..good.len() {
            let mut bytes = good.clone();
            bytes[at] ^= 0x10;
            std::fs::write(&bad, &bytes).unwrap();
            assert!(
                read_sample(&bad).is_err(),
                "byte {at} changed, file accepted"
            );
        }
        for len in 0..good.len() {
            std::fs::write(&bad, &good[..len]).unwrap();
            assert!(
                read_sample(&bad).is_err(),
                "truncated to {len}, file accepted"
            );
        }
        let mut longer = good.clone();
        longer.extend_from_slice(&[0; 64]);
        std::fs::write(&bad, &longer).unwrap();
        let err = read_sample(&bad).unwrap_err().to_string();
        assert!(err.contains("after its end section"), "{err}");
    }

    #[test]
    fn sections_out_of_order_or_of_another_type_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sample.gsidx");
        write_sample(&path);
        let mut r = Reader::open(&path).unwrap();
        let err = r.section::<u32>("wide").unwrap_err().to_string();
        assert!(err.contains("found section `numbers`"), "{err}");
        let mut r = Reader::open(&path).unwrap();
        let err = r.section::<u64>("numbers").unwrap_err().to_string();
        assert!(err.contains("element size"), "{err}");
    }

    #[test]
    fn other_files_and_other_versions_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("graph.txt");
        std::fs::write(&text, "t 1 0\nv 0 0 0\n").unwrap();
        assert!(!is_saved_index(&text));
        let err = Reader::open(&text).err().unwrap().to_string();
        assert!(err.contains("not a saved gsi index"), "{err}");
        let path = dir.path().join("sample.gsidx");
        write_sample(&path);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let check = xxh3_64(&bytes[..HEADER_BYTES - 8]);
        bytes[HEADER_BYTES - 8..HEADER_BYTES].copy_from_slice(&check.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let err = Reader::open(&path).err().unwrap().to_string();
        assert!(
            err.contains(&format!("format version {}", FORMAT_VERSION + 1)),
            "{err}"
        );
    }
}
