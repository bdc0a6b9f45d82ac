//! The bytes of an input file, however the user has it: a regular file is memory-mapped (no
//! copy, and the parallel readers split it); a pipe, a process substitution (`<(zcat f.gz)`)
//! or standard input (the path `-`) is read to its end; compressed input — gzip, bzip2, xz or
//! zstd, told by its magic number, whatever its name — is inflated as it is read. What is held
//! in memory stops at a [`MemoryBound`], and is refused within its first kilobytes when it is
//! not text.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::bufread::GzDecoder;

use crate::{Error, Result};

/// Bytes at the start of a stream that tell its compression.
const MAGIC_BYTES: u64 = 6;

/// Bytes at the start of what is read into memory that must be text.
const TEXT_CHECKED: u64 = 8 << 10;

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An input's bytes.
pub(crate) enum FileBytes {
    /// A regular file, mapped.
    Mapped(memmap2::Mmap),
    /// Read or decompressed into memory.
    Read(Vec<u8>),
}

/// A compression format gsi reads, by its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compression {
    Gzip,
    Bzip2,
    Xz,
    Zstd,
}

impl Compression {
    fn of(bytes: &[u8]) -> Option<Compression> {
        match bytes {
            [0x1f, 0x8b, ..] => Some(Compression::Gzip),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Compression::Bzip2),
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some(Compression::Xz),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// What `compressed` inflates to (every member of a multi-member file), as it is read.
    fn inflate<'a>(self, compressed: impl Read + 'a) -> io::Result<Box<dyn Read + 'a>> {
        Ok(match self {
            Compression::Gzip => Box::new(GzipMembers {
                member: Some(GzDecoder::new(BufReader::new(compressed))),
            }),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(compressed)),
            Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(compressed)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(compressed)?),
        })
    }
}

/// The members of a gzip stream one after another; bytes after the last member that do not
/// start another are an error that says so (a multi-member decoder takes them for a broken
/// header).
struct GzipMembers<R: BufRead> {
    /// The member being read; `None` only while the next one is set up.
    member: Option<GzDecoder<R>>,
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let member = self.member.as_mut().expect("a member");
            let read = member.read(buf)?;
            if read > 0 || buf.is_empty() {
                return Ok(read);
            }
            let rest = member.get_mut().fill_buf()?;
            if rest.is_empty() {
                return Ok(0);
            }
            if !rest.starts_with(&[0x1f, 0x8b]) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "trailing data after the compressed stream",
                ));
            }
            let input = self.member.take().expect("a member").into_inner();
            self.member = Some(GzDecoder::new(input));
        }
    }
}

/// The most bytes of one input held in memory (read from a pipe or a device, or
/// decompressed), and what set that bound, for the message that names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBound {
    /// Bytes.
    pub bytes: u64,
    /// What set the bound, such as `--memory-limit 1GiB`.
    pub source: String,
}

impl FileBytes {
    /// The bytes of `path` (`-`: standard input), decompressed when compressed; what is held
    /// in memory stays within `memory` (a regular file is mapped, not held).
    ///
    /// # Errors
    /// The file cannot be opened or read, is a directory, does not decompress, is not text
    /// where it is read into memory, or holds more than `memory` allows.
    pub(crate) fn open(path: &Path, memory: Option<&MemoryBound>) -> Result<FileBytes> {
        if is_stdin(path) {
            return read_stream(path, io::stdin().lock(), memory);
        }
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Error::Invalid {
                path: path.to_path_buf(),
                message: "is a directory, expected a graph file".into(),
            });
        }
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and lives only while the file is parsed. A file
            // changed underneath by another process can give a parse error; one truncated
            // raises SIGBUS, which the binary reports (it owns signal handling).
            // Some files say they are regular but cannot be mapped (kernel attribute files):
            // they are read as streams.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return match Compression::of(&map) {
                    None => Ok(FileBytes::Mapped(map)),
                    Some(compression) => inflate(path, compression, &map[..], memory),
                };
            }
        }
        // Pipes, process substitutions, devices, and files that report no size.
        read_stream(path, file, memory)
    }

    /// Lets a mapped file's pages leave this process's memory, once they were read: read
    /// again, they come back from the file. Nothing for bytes held in memory.
    pub(crate) fn release(&self) {
        if let FileBytes::Mapped(map) = self {
            // SAFETY: the map is read-only and backed by the file, so dropping its pages
            // loses nothing; `DontNeed` would zero only anonymous or written pages. Failure
            // only leaves the pages where they are.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// A stream's bytes, inflated when compressed.
fn read_stream(
    path: &Path,
    mut stream: impl Read,
    memory: Option<&MemoryBound>,
) -> Result<FileBytes> {
    let mut head = Vec::new();
    (&mut stream)
        .take(MAGIC_BYTES)
        .read_to_end(&mut head)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let compression = Compression::of(&head);
    let whole = io::Cursor::new(head).chain(stream);
    match compression {
        None => read_text(path, whole, memory, |source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
        .map(FileBytes::Read),
        Some(compression) => inflate(path, compression, whole, memory),
    }
}

/// What `compressed` inflates to.
fn inflate(
    path: &Path,
    compression: Compression,
    compressed: impl Read,
    memory: Option<&MemoryBound>,
) -> Result<FileBytes> {
    let broken = |e: io::Error| Error::Invalid {
        path: path.to_path_buf(),
        message: format!("the {} data does not decompress: {e}", compression.name()),
    };
    let inflated = compression.inflate(compressed).map_err(broken)?;
    read_text(path, inflated, memory, broken).map(FileBytes::Read)
}

/// Reads `reader` to its end into memory, refusing it within its first kilobytes when it is
/// not text and when it holds more than `memory` allows; `failed` words a read that fails.
fn read_text(
    path: &Path,
    mut reader: impl Read,
    memory: Option<&MemoryBound>,
    failed: impl Fn(io::Error) -> Error,
) -> Result<Vec<u8>> {
    let most = memory.map_or(u64::MAX, |m| m.bytes);
    let mut bytes = Vec::new();
    (&mut reader)
        .take(TEXT_CHECKED.min(most.saturating_add(1)))
        .read_to_end(&mut bytes)
        .map_err(&failed)?;
    if !looks_like_text(&bytes) {
        return Err(Error::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "not text (a NUL byte or invalid UTF-8 in its first {} KiB): is this a binary file?",
                TEXT_CHECKED >> 10
            ),
        });
    }
    let left = most.saturating_add(1).saturating_sub(bytes.len() as u64);
    reader.take(left).read_to_end(&mut bytes).map_err(&failed)?;
    match memory {
        Some(bound) if bytes.len() as u64 > bound.bytes => Err(Error::TooLarge {
            path: path.to_path_buf(),
            bound: bound.clone(),
        }),
        _ => Ok(bytes),
    }
}

/// Whether `head`, the start of an input, is UTF-8 text without NUL bytes (a character cut
/// at its end allowed).
fn looks_like_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    valid && !head.contains(&0)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const TEXT: &[u8] = b"t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n";

    fn compressed(compression: Compression) -> Vec<u8> {
        match compression {
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
                e.write_all(TEXT).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::encode_all(TEXT, 1).unwrap(),
        }
    }

    #[test]
    fn every_compression_is_told_by_its_magic_and_decompressed() {
        let dir = tempfile::tempdir().unwrap();
        for compression in [
            Compression::Gzip,
            Compression::Bzip2,
            Compression::Xz,
            Compression::Zstd,
        ] {
            // A misleading name: the content decides.
            let path = dir.path().join(format!("g.{}", compression.name()));
            std::fs::write(&path, compressed(compression)).unwrap();
            let bytes = FileBytes::open(&path, None).unwrap();
            assert_eq!(bytes.as_slice(), TEXT, "{compression:?}");
        }
        let plain = dir.path().join("plain.gz");
        std::fs::write(&plain, TEXT).unwrap();
        assert!(matches!(
            FileBytes::open(&plain, None).unwrap(),
            FileBytes::Mapped(_)
        ));
    }

    #[test]
    fn corrupt_compressed_data_is_an_error_naming_the_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.gz");
        let mut bytes = compressed(Compression::Gzip);
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&path, bytes).unwrap();
        let err = FileBytes::open(&path, None).err().unwrap().to_string();
        assert!(err.contains("the gzip data does not decompress"), "{err}");
    }
}
