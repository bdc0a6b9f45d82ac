//! The bytes of an input file, however the user has it: a regular file is memory-mapped (no
//! copy, and the parallel readers split it); a pipe, a process substitution (`<(zcat f.gz)`)
//! or standard input (the path `-`) is read to its end; compressed input — gzip, bzip2, xz or
//! zstd, told by its magic number, whatever its name — is decompressed first.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::{Error, Result};

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

    /// Everything `compressed` decompresses to (every member of a multi-member file).
    fn decompress(self, compressed: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        match self {
            Compression::Gzip => {
                flate2::read::MultiGzDecoder::new(compressed).read_to_end(&mut out)?;
            }
            Compression::Bzip2 => {
                bzip2::read::MultiBzDecoder::new(compressed).read_to_end(&mut out)?;
            }
            Compression::Xz => {
                liblzma::read::XzDecoder::new_multi_decoder(compressed).read_to_end(&mut out)?;
            }
            Compression::Zstd => {
                zstd::stream::read::Decoder::new(compressed)?.read_to_end(&mut out)?;
            }
        }
        Ok(out)
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
    /// The file cannot be opened or read, is a directory, does not decompress, or holds more
    /// than `memory` allows.
    pub(crate) fn open(path: &Path, memory: Option<&MemoryBound>) -> Result<FileBytes> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let raw = if is_stdin(path) {
            FileBytes::Read(read_within(path, io::stdin().lock(), memory)?)
        } else {
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
                match unsafe { memmap2::Mmap::map(&file) } {
                    Ok(map) => FileBytes::Mapped(map),
                    // Some files say they are regular but cannot be mapped (kernel attribute
                    // files): read them instead.
                    Err(_) => FileBytes::Read(read_within(path, file, memory)?),
                }
            } else {
                // Pipes, process substitutions, devices, and files that report no size.
                FileBytes::Read(read_within(path, file, memory)?)
            }
        };
        match Compression::of(raw.as_slice()) {
            None => Ok(raw),
            Some(compression) => {
                let bytes = compression
                    .decompress(raw.as_slice())
                    .map_err(|e| Error::Invalid {
                        path: path.to_path_buf(),
                        message: format!(
                            "the {} data does not decompress: {e}",
                            compression.name()
                        ),
                    })?;
                Ok(FileBytes::Read(bytes))
            }
        }
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

/// Reads `reader` to its end, refusing more than `memory` allows.
fn read_within(path: &Path, reader: impl Read, memory: Option<&MemoryBound>) -> Result<Vec<u8>> {
    let most = memory.map_or(u64::MAX, |m| m.bytes);
    let mut bytes = Vec::new();
    reader
        .take(most.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    match memory {
        Some(bound) if bytes.len() as u64 > bound.bytes => Err(Error::TooLarge {
            path: path.to_path_buf(),
            bound: bound.clone(),
        }),
        _ => Ok(bytes),
    }
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
